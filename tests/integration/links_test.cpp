// Every relative link in README.md and docs/*.md resolves: the file exists,
// and an #anchor names a heading of the target (GitHub's slugs).
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Link {
  int line = 0;
  std::string target;
};

// GitHub's anchor of a heading: lower case, punctuation dropped (letters,
// digits, '-', '_' and non-ASCII bytes kept), spaces to '-'.
std::string slug(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (c >= 0x80 || std::isalnum(c) || c == '-' || c == '_')
      out.push_back(static_cast<char>(std::tolower(c)));
    else if (c == ' ')
      out.push_back('-');
  }
  return out;
}

// Drops `code` spans from a line of prose.
std::string without_code(const std::string& line) {
  std::string out;
  bool code = false;
  for (char c : line) {
    if (c == '`')
      code = !code;
    else if (!code)
      out.push_back(c);
  }
  return out;
}

struct Markdown {
  std::vector<Link> links;
  std::set<std::string> anchors;
};

Markdown read_markdown(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  Markdown md;
  std::map<std::string, int> seen;
  std::string line;
  bool fenced = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    if (line.rfind('#', 0) == 0) {
      std::size_t level = line.find_first_not_of('#');
      if (level != std::string::npos && line[level] == ' ') {
        // Code spans keep their text in the slug: only the backticks go.
        std::string heading;
        for (char c : line.substr(level + 1))
          if (c != '`') heading.push_back(c);
        const std::string base = slug(heading);
        int k = seen[base]++;
        md.anchors.insert(k == 0 ? base : base + "-" + std::to_string(k));
      }
    }
    const std::string prose = without_code(line);
    // Inline links and images: ](target) and ](target "title").
    for (std::size_t at = prose.find("]("); at != std::string::npos; at = prose.find("](", at + 2)) {
      std::size_t end = prose.find(')', at + 2);
      if (end == std::string::npos) break;
      std::string target = prose.substr(at + 2, end - at - 2);
      if (auto space = target.find(' '); space != std::string::npos) target.resize(space);
      md.links.push_back({n, target});
    }
    // Reference definitions: [name]: target
    if (prose.rfind('[', 0) == 0) {
      if (auto def = prose.find("]: "); def != std::string::npos) {
        std::string target = prose.substr(def + 3);
        if (auto space = target.find(' '); space != std::string::npos) target.resize(space);
        md.links.push_back({n, target});
      }
    }
  }
  return md;
}

bool external(const std::string& target) {
  return target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 ||
         target.rfind("mailto:", 0) == 0;
}

}  // namespace

TEST_CASE("every relative link in README.md and docs/ resolves, anchors included") {
  const fs::path source = EDITD_SOURCE_DIR;
  std::vector<fs::path> files{source / "README.md"};
  for (const auto& e : fs::directory_iterator(source / "docs"))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::map<fs::path, Markdown> parsed;
  auto markdown = [&](const fs::path& p) -> const Markdown& {
    auto key = fs::weakly_canonical(p);
    auto it = parsed.find(key);
    if (it == parsed.end()) it = parsed.emplace(key, read_markdown(key)).first;
    return it->second;
  };

  int checked = 0;
  for (const fs::path& file : files) {
    for (const Link& link : markdown(file).links) {
      if (link.target.empty() || external(link.target)) continue;
      const std::string where = fs::relative(file, source).string() + ":" +
                                std::to_string(link.line) + ": " + link.target;
      CAPTURE(where);
      const std::size_t hash = link.target.find('#');
      const std::string path_part = link.target.substr(0, hash);
      const std::string anchor = hash == std::string::npos ? "" : link.target.substr(hash + 1);
      const fs::path target = path_part.empty() ? file : file.parent_path() / path_part;
      CHECK_MESSAGE(fs::exists(target), where << " does not exist");
      ++checked;
      if (!anchor.empty() && fs::exists(target) && target.extension() == ".md")
        CHECK_MESSAGE(markdown(target).anchors.count(anchor) == 1,
                      where << ": no heading has the anchor #" << anchor);
    }
  }
  CHECK(checked > 10);
}

TEST_CASE("the anchor of a heading is GitHub's") {
  CHECK(slug("Back-pressure, signals and shutdown") == "back-pressure-signals-and-shutdown");
  CHECK(slug("ACP editors: the delegated backend, sessions, approvals and progress") ==
        "acp-editors-the-delegated-backend-sessions-approvals-and-progress");
  CHECK(slug("read_text") == "read_text");
}
