// What the tools tell a model is what the binary does: every name a tool
// description, the server instructions or an error list uses is real, and
// every quantity a description states is a claim checked here against the
// real binary over MCP (issue 44: edit_lines said an anchor "moved by up to 5
// lines is followed" long after that window was gone).
#include <doctest/doctest.h>

#include <regex>
#include <set>

#include "protocol/error.h"
#include "helpers/mcp_session.h"
#include "helpers/process.h"

using namespace editd::test;

namespace {

// Every property name in a schema, at any depth.
void property_names(const json& schema, std::set<std::string>& out) {
  if (schema.is_object()) {
    if (auto props = schema.find("properties"); props != schema.end() && props->is_object())
      for (auto it = props->begin(); it != props->end(); ++it) out.insert(it.key());
    for (const json& v : schema) property_names(v, out);
  } else if (schema.is_array()) {
    for (const json& v : schema) property_names(v, out);
  }
}

// The kinds a description names: "Fails with KIND", and the list after "Errors:", each with
// its parenthesised note removed.
std::vector<std::string> listed_kinds(const std::string& description) {
  std::vector<std::string> kinds;
  std::smatch m;
  if (std::regex_search(description, m, std::regex("Fails with ([a-z_]+)")))
    kinds.push_back(m[1]);
  auto at = description.find("Errors: ");
  if (at == std::string::npos) return kinds;
  std::string flat;
  int depth = 0;
  for (char c : description.substr(at + 8)) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (depth == 0)
      flat += c;
  }
  flat = flat.substr(0, flat.find('.'));
  std::regex word("[a-z_]+");
  for (std::sregex_iterator it(flat.begin(), flat.end(), word), end; it != end; ++it)
    kinds.push_back(it->str());
  return kinds;
}

// The quantities a description states ("2000 lines", "10000 bytes"): each must be a claim below.
const std::regex kQuantity(R"(\b\d[\d,]*\s+(lines?|bytes?|characters?|tokens?|files?|edits?)\b)");

// The claims with a quantity that the descriptions make, each checked by a test case below.
const std::multimap<std::string, std::string> kCheckedClaims = {
    {"read_text", "at most 2000 lines and about 10000 bytes"},
};

}  // namespace

TEST_CASE(
    "tool descriptions and the server instructions name only real tools, params, result members "
    "and error kinds, and state no quantity that is not checked") {
  TempDir root;
  auto p = spawn_editd(root, {"--mcp-tools", "all"});
  mcp_initialize(p);
  json tools = p.ok("tools/list", json::object())["tools"];
  std::set<std::string> tool_names, model_tools, properties;
  for (const json& t : tools) {
    tool_names.insert(t["name"].get<std::string>());
    property_names(t["inputSchema"], properties);
    property_names(t["outputSchema"], properties);
  }
  REQUIRE(tool_names.size() == 19);
  for (const json& t : tools) {
    const std::string name = t["name"];
    const std::string d = t["description"];
    CAPTURE(name);
    CAPTURE(d);
    const bool provider_native = name == "anthropic_text_editor" || name == "openai_apply_patch";
    if (!provider_native) model_tools.insert(name);

    const auto kinds = listed_kinds(d);
    CHECK_MESSAGE(
        (!kinds.empty() || name == "anthropic_text_editor" || name == "openai_apply_patch"),
        "a model tool's description lists its errors");
    for (const std::string& k : kinds) {
      CAPTURE(k);
      CHECK(editd::kind_from_name(k).has_value());
    }

    for (std::sregex_iterator it(d.begin(), d.end(), kQuantity), end; it != end; ++it) {
      const std::size_t at = static_cast<std::size_t>(it->position());
      bool claimed = false;
      auto [first, last] = kCheckedClaims.equal_range(name);
      for (auto c = first; c != last; ++c)
        for (auto pos = d.find(c->second); pos != std::string::npos;
             pos = d.find(c->second, pos + 1))
          if (pos <= at && at < pos + c->second.size()) claimed = true;
      CHECK_MESSAGE(claimed, "unchecked quantity: '" << it->str() << "'");
    }

    // The provider-native tools speak their provider's vocabulary; a model tool's speaks editd's.
    if (provider_native) continue;
    std::regex snake(R"(\b[a-z]+(?:_[a-z]+)+\b)"), camel(R"(\b[a-z]+[A-Z][A-Za-z]*\b)");
    for (std::sregex_iterator it(d.begin(), d.end(), snake), end; it != end; ++it) {
      CAPTURE(it->str());
      CHECK((tool_names.count(it->str()) || editd::kind_from_name(it->str()).has_value() ||
             properties.count(it->str())));
    }
    for (std::sregex_iterator it(d.begin(), d.end(), camel), end; it != end; ++it) {
      CAPTURE(it->str());
      CHECK(properties.count(it->str()));
    }
  }
  for (const auto& [tool, claim] : kCheckedClaims) {
    bool found = false;
    for (const json& t : tools)
      if (t["name"] == tool && t["description"].get<std::string>().find(claim) != std::string::npos)
        found = true;
    CHECK_MESSAGE(found, tool << "'s description no longer says '" << claim << "'");
  }

  // The instructions name every tool meant for a model.
  TempDir other;
  auto q = spawn_editd(other);
  const std::string instructions =
      q.ok("initialize", {{"protocolVersion", "2025-11-25"},
                          {"capabilities", json::object()},
                          {"clientInfo", {{"name", "t"}, {"version", "0"}}}})["instructions"];
  for (const std::string& tool : model_tools) {
    CAPTURE(tool);
    CHECK(std::regex_search(instructions, std::regex("\\b" + tool + "\\b")));
  }
}

TEST_CASE("read_text's claim: over MCP at most 2000 lines and about 10000 bytes a page") {
  TempDir root;
  std::string short_lines, long_lines;
  for (int i = 0; i < 2500; ++i) short_lines += "x\n";
  for (int i = 0; i < 500; ++i) long_lines += std::string(99, 'y') + "\n";
  root.write("short.txt", short_lines);
  root.write("long.txt", long_lines);
  auto p = spawn_editd(root);
  mcp_initialize(p);
  json s = call(p, "read_text", {{"path", "short.txt"}})["structuredContent"];
  CHECK(s["lineCount"] == 2000);
  CHECK(s["nextLine"] == 2001);
  json l = call(p, "read_text", {{"path", "long.txt"}})["structuredContent"];
  CHECK(l["content"].get<std::string>().size() <= 10000);
  CHECK(l["content"].get<std::string>().size() > 9000);
  CHECK(l["nextLine"] == l["lineCount"].get<int>() + 1);
}

TEST_CASE(
    "edit_lines' claims: an anchor is followed however far its line moved, rebased lists it, a "
    "changed line is stale, and the text says what was replaced") {
  TempDir root;
  std::string text;
  for (int i = 1; i <= 30; ++i) text += "line " + std::to_string(i) + "\n";
  root.write("f.txt", text);
  auto p = spawn_editd(root);
  mcp_initialize(p);
  json r = call(p, "read_text", {{"path", "f.txt"}, {"format", "hashline"}});
  const std::string view = r["structuredContent"]["content"];
  std::smatch m;
  // "12~ab: line 12": an anchor starts with its line number.
  REQUIRE(std::regex_search(view, m, std::regex("\n(12~[a-z]{2})\\|line 12\n")));
  const std::string a12 = m[1];
  REQUIRE(std::regex_search(view, m, std::regex("\n(13~[a-z]{2})\\|line 13\n")));
  const std::string a13 = m[1];
  REQUIRE(std::regex_search(view, m, std::regex("\n(20~[a-z]{2})\\|line 20\n")));
  const std::string a20 = m[1];

  // The text of a replacement of line 13 says replacement, not insertion.
  json rep =
      call(p, "edit_lines",
           {{"path", "f.txt"}, {"edits", {{{"replace", {{"start", a13}}}, {"newText", "13!"}}}}});
  REQUIRE(rep["isError"] == false);
  CHECK(text_of(rep).find("f.txt: replacement at line 13, +1 -1 lines, fingerprint ") == 0);

  // Twelve lines inserted above line 20 (far past the old 5-line window): it is followed.
  std::string twelve;
  for (int i = 0; i < 12; ++i) twelve += "new\n";
  REQUIRE(call(p, "insert", {{"path", "f.txt"}, {"line", 1}, {"text", twelve}})["isError"] ==
          false);
  json moved =
      call(p, "edit_lines",
           {{"path", "f.txt"}, {"edits", {{{"replace", {{"start", a20}}}, {"newText", "20!"}}}}});
  REQUIRE_MESSAGE(moved["isError"] == false, text_of(moved));
  CHECK(moved["structuredContent"]["rebased"] == json::array({{{"anchor", a20}, {"line", 32}}}));
  CHECK(root.read("f.txt").find("line 19\n20!\nline 21\n") != std::string::npos);

  // Line 12 changed since it was read: stale, and nothing is written.
  const std::string before = root.read("f.txt");
  REQUIRE(call(p, "str_replace",
               {{"path", "f.txt"}, {"oldText", "line 12\n"}, {"newText", "twelve\n"}})["isError"] ==
          false);
  const std::string changed = root.read("f.txt");
  json stale = call(p, "edit_lines",
                    {{"path", "f.txt"}, {"edits", {{{"insertAfter", a12}, {"newText", "x"}}}}});
  CHECK(stale["isError"] == true);
  CHECK(text_of(stale).find("Error (stale)") == 0);
  CHECK(root.read("f.txt") == changed);
  CHECK(changed != before);
}
