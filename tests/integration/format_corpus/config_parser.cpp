#include <string>
#include <map>
#include <sstream>
#include <optional>
#include <cctype>

namespace config {

enum class Kind { Flag,Number,Text };

struct Entry {
  std::string key;
  std::string value;
  Kind kind=Kind::Text;
  int line=0;
};

static std::string trim(const std::string &s)
{
  std::size_t b=0,e=s.size();
  while(b<e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while(e>b && std::isspace(static_cast<unsigned char>(s[e-1]))) --e;
  return s.substr(b,e-b);
}

static Kind kind_of(const std::string &value) {
    if (value=="true"||value=="false") return Kind::Flag;
    bool digits=!value.empty();
    for (char c:value) if(!std::isdigit(static_cast<unsigned char>(c))) { digits=false; break; }
    return digits?Kind::Number:Kind::Text;
}

std::optional<std::map<std::string,Entry>> parse(const std::string &text,std::string *error)
{
  std::map<std::string,Entry> entries;
  std::istringstream in(text);
  std::string raw;
  int number=0;
  while(std::getline(in,raw))
  {
    ++number;
    const std::string line=trim(raw.substr(0,raw.find('#')));
    if(line.empty()) continue;
    const auto eq=line.find('=');
    if(eq==std::string::npos)
    {
      if(error) *error="line "+std::to_string(number)+": no '=' in \""+line+"\"";
      return std::nullopt;
    }
    Entry entry{trim(line.substr(0,eq)),trim(line.substr(eq+1)),Kind::Text,number};
    entry.kind=kind_of(entry.value);
    entries[entry.key]=entry;
  }
  return entries;
}

}  // namespace config

int main() {
  std::string error;
  auto parsed=config::parse("a = 1\nb=true\n# comment\nname = editd\n",&error);
  return parsed && parsed->size()==3 ? 0 : 1;
}
