// The MCP door and the registry as pure functions: schemas derived from the
// declarations, argument checks, paging cuts and error texts.
#include "server/doors/mcp.h"

#include <doctest/doctest.h>


#include "helpers/in_process.h"
#include "protocol/fast_json.h"
#include "server/methods/texts.h"

using namespace editd;
using nlohmann::json;

namespace {

struct RegistryFixture : test::InProcess {
  Registry registry{ops};
};

}  // namespace

TEST_CASE(
    "every registry method declares a flat schema whose required params exist, and a renderer") {
  RegistryFixture f;
  REQUIRE(f.registry.methods().size() == 21);
  for (const Method& m : f.registry.methods()) {
    CAPTURE(m.name);
    CHECK(static_cast<bool>(m.render));
    CHECK(static_cast<bool>(m.run));
    CHECK(m.input_schema["additionalProperties"] == false);
    for (const json& r : m.input_schema["required"])
      CHECK(m.input_schema["properties"].contains(r.get<std::string>()));
    // Exactly the mutations take dryRun, so the dry-run check follows the declaration;
    // provider-native inputs are the provider's, with no dryRun.
    const bool dry_runs = m.mutates && !m.provider_native;
    CHECK(m.input_schema["properties"].contains("dryRun") == dry_runs);
    CHECK(m.dry_run({{"dryRun", true}}) == dry_runs);
    CHECK_FALSE(m.dry_run({{"dryRun", "true"}}));
  }
  CHECK(f.registry.find("_edit/str_replace") == f.registry.find("str_replace"));
  CHECK(f.registry.find("nope") == nullptr);
}

TEST_CASE(
    "tool arguments must be an object of the tool's own params; read_text gets a default page") {
  RegistryFixture f;
  const Method& read = *f.registry.find("read_text");
  CHECK(*mcp::prepare_arguments(read, json()) == json{{"limit", mcp::kPageLines}});
  CHECK((*mcp::prepare_arguments(read, {{"path", "a"}, {"limit", 5}}))["limit"] == 5);
  auto bad = mcp::prepare_arguments(read, {{"path", "a"}, {"sessionId", "s"}});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().kind == ErrorKind::kInvalidParams);
  CHECK(bad.error().data["param"] == "sessionId");
  CHECK(bad.error().message.find("(it takes format, limit, line, path, symbol)") != std::string::npos);
  CHECK_FALSE(mcp::prepare_arguments(read, json::array()).has_value());
  const Method& write = *f.registry.find("write_text");
  CHECK_FALSE(mcp::prepare_arguments(write, {{"path", "a"}}).value().contains("limit"));
}

TEST_CASE("the arguments hosts add to every tool are dropped, and only those") {
  RegistryFixture f;
  CHECK(mcp::host_added_arguments() == std::vector<std::string>{"wait_for_previous"});
  for (const Method& m : f.registry.methods()) {
    CAPTURE(m.name);
    CHECK_FALSE(m.input_schema["properties"].contains("wait_for_previous"));
    auto added = mcp::prepare_arguments(m, {{"wait_for_previous", true}});
    REQUIRE(added.has_value());
    CHECK_FALSE(added->contains("wait_for_previous"));
  }
  const Method& read = *f.registry.find("read_text");
  CHECK(*mcp::prepare_arguments(read, {{"path", "a"}, {"wait_for_previous", false}}) ==
        json{{"path", "a"}, {"limit", mcp::kPageLines}});
  // Any other unknown argument is still refused, and the list of real ones leaves it out.
  auto bad = mcp::prepare_arguments(
      read, {{"path", "a"}, {"wait_for_previous", true}, {"waitForPrevious", true}});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message ==
        "invalid param 'waitForPrevious': read_text takes no such argument (it takes format, "
        "limit, line, path, symbol)");
  CHECK(bad.error().data["unknown"] == json::array({"waitForPrevious"}));
}

TEST_CASE(
    "a page is cut at a line end within 10,000 bytes of JSON, a single longer line comes whole, "
    "and nextLine says where to read on") {
  std::string line(1000, 'x');
  std::string text;
  for (int i = 0; i < 300; ++i) text += line + "\n";
  json r = {{"content", text}, {"line", 1}, {"lineCount", 300}, {"totalLines", 300}};
  mcp::page(r);
  CHECK(r["lineCount"] == 9);  // 1,002 bytes a line as JSON: "\n" is two
  CHECK(r["content"].get<std::string>().size() == 9 * 1001);
  CHECK(r["nextLine"] == 10);

  // Quotes, backslashes and tabs count two bytes, other control characters six.
  json quotes = {{"content", std::string(99, '"') + "\n" + std::string(9850, 'a') + "\n"},
                 {"line", 5},
                 {"lineCount", 2},
                 {"totalLines", 6}};
  mcp::page(quotes);
  CHECK(quotes["lineCount"] == 1);  // 200 + 9,852 bytes
  CHECK(quotes["nextLine"] == 6);
  std::string tabs;
  for (int i = 0; i < 100; ++i) tabs += std::string(49, '\t') + "\n";  // 100 bytes a line
  json t = {{"content", tabs}, {"line", 1}, {"lineCount", 100}, {"totalLines", 100}};
  mcp::page(t);
  CHECK(t["lineCount"] == 100);  // exactly 10,000 bytes: kept whole
  CHECK_FALSE(t.contains("nextLine"));
  json ctl = {{"content", std::string(1666, '\x01') + "\n" + "b\n"},
              {"line", 1},
              {"lineCount", 2},
              {"totalLines", 2}};
  mcp::page(ctl);
  CHECK(ctl["lineCount"] == 1);  // 9,996 + 2 bytes, then "b\n" does not fit

  json one = {{"content", std::string(300000, 'y') + "\nshort\n"},
              {"line", 1},
              {"lineCount", 2},
              {"totalLines", 2}};
  mcp::page(one);
  CHECK(one["lineCount"] == 1);
  CHECK(one["content"].get<std::string>().size() == 300001);
  CHECK(one["nextLine"] == 2);
  json whole = {
      {"content", std::string(300000, 'y')}, {"line", 1}, {"lineCount", 1}, {"totalLines", 1}};
  mcp::page(whole);
  CHECK(whole["content"].get<std::string>().size() == 300000);
  CHECK_FALSE(whole.contains("nextLine"));

  // A page cut by its limit, not its bytes, says where to read on too; an empty file does not.
  json limited = {{"content", "a\nb\n"}, {"line", 3}, {"lineCount", 2}, {"totalLines", 9}};
  mcp::page(limited);
  CHECK(limited["nextLine"] == 5);
  json empty = {{"content", ""}, {"line", 1}, {"lineCount", 0}, {"totalLines", 0}};
  mcp::page(empty);
  CHECK_FALSE(empty.contains("nextLine"));
}

TEST_CASE("a page's structuredContent shows the paging facts first and its content last") {
  RegistryFixture f;
  const Method& read = *f.registry.find("read_text");
  json r = {{"content", "a\n"}, {"fingerprint", "xxh3:0"}, {"format", "hashline"},
            {"line", 1},        {"lineCount", 1},          {"totalLines", 4}};
  mcp::page(r);
  json out = mcp::tool_result(read, {{"path", "a.txt"}}, r);
  CHECK(protocol::fast_json::dump(out["structuredContent"]) ==
        R"({"line":1,"lineCount":1,"totalLines":4,"nextLine":2,"fingerprint":"xxh3:0",)"
        R"("format":"hashline","content":"a\n"})");
  CHECK(out["content"][0]["text"].get<std::string>().find(
            "a.txt: lines 1-1 of 4, fingerprint xxh3:0; lines 2-4 not shown: call read_text with "
            "line 2 to read on\n") == 0);
  // Other tools' structuredContent is the result as it is.
  const Method& fp = *f.registry.find("fingerprint");
  json plain = {{"fingerprint", "xxh3:0"}, {"size", 2}};
  CHECK(mcp::tool_result(fp, {{"path", "a.txt"}}, plain)["structuredContent"] == plain);
}

TEST_CASE("an error's text holds its kind, message and every hint in full") {
  Error e(ErrorKind::kAmbiguous, "oldText matches 2 regions",
          {{"candidates", json::array({{{"startLine", 1}, {"endLine", 2}, {"text", "a\nb"}},
                                       {{"startLine", 5}, {"endLine", 5}, {"text", "a"}}})},
           {"lines", {1, 5}},
           {"hint", "add a line"}});
  CHECK(render_error(e) ==
        "Error (ambiguous): oldText matches 2 regions\n"
        "Candidate, lines 1-2:\na\nb\n"
        "Candidate, line 5:\na\n"
        "Hint: add a line\n"
        "Details: {\"lines\":[1,5]}\n");
  CHECK(render_error(Error(ErrorKind::kNotFound, "not found: a")) ==
        "Error (not_found): not found: a\n");
  // A stale anchor's region and a hunk's missing lines come as text, not as JSON strings.
  CHECK(render_error(Error(ErrorKind::kStale, "anchor 2~ec is stale",
                           {{"anchor", "2~ec"}, {"region", "1~wr|a\n2~zw|b\n"}})) ==
        "Error (stale): anchor 2~ec is stale\n"
        "Region, the lines as they are now:\n1~wr|a\n2~zw|b\n"
        "Details: {\"anchor\":\"2~ec\"}\n");
  CHECK(render_error(Error(ErrorKind::kPatchApply, "hunk 1 does not apply",
                           {{"context", "x\ny"}, {"hunk", 1}})) ==
        "Error (patch_apply): hunk 1 does not apply\n"
        "The hunk's lines that were not found:\nx\ny\n"
        "Details: {\"hunk\":1}\n");
}
