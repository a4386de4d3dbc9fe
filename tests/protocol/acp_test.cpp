#include "protocol/acp.h"

#include <doctest/doctest.h>

using namespace editd;
using nlohmann::json;

TEST_CASE("acp: fs is offered only when both text-file requests are") {
  CHECK(acp::offers_fs(json::parse(R"({"fs":{"readTextFile":true,"writeTextFile":true}})")));
  CHECK_FALSE(acp::offers_fs(json::parse(R"({"fs":{"readTextFile":true}})")));
  CHECK_FALSE(acp::offers_fs(json::parse(R"({"fs":{"readTextFile":true,"writeTextFile":false}})")));
  CHECK_FALSE(acp::offers_fs(json::parse(R"({"fs":{"readTextFile":"yes","writeTextFile":1}})")));
  CHECK_FALSE(acp::offers_fs(json::parse(R"({"fs":true})")));
  CHECK_FALSE(acp::offers_fs(json::object()));
  CHECK_FALSE(acp::offers_fs(json(nullptr)));
  CHECK_FALSE(acp::offers_fs(json::array()));
}

TEST_CASE("acp: the initialize result names editd, its methods and where files live") {
  json r = acp::initialize_result(json::array({"read_text", "str_replace"}), true, "1.2.3");
  CHECK(r["protocolVersion"] == 1);
  CHECK(r["agentInfo"] == json{{"name", "editd"}, {"title", "editd"}, {"version", "1.2.3"}});
  CHECK(r["agentCapabilities"]["loadSession"] == false);
  const json& meta = r["agentCapabilities"]["_meta"]["editd"];
  CHECK(meta["methods"] == json::array({"read_text", "str_replace"}));
  CHECK(meta["backend"] == "delegated");
  CHECK(meta["version"] == "1.2.3");
  CHECK(r["authMethods"] == json::array());
  CHECK(acp::initialize_result(json::array(), false,
                               "1")["agentCapabilities"]["_meta"]["editd"]["backend"] == "local");
}

TEST_CASE("acp: session/new takes an absolute cwd and an optional array of MCP servers") {
  auto ok = acp::decode_new_session(json::parse(R"({"cwd":"/w","mcpServers":[]})"));
  REQUIRE(ok.has_value());
  CHECK(ok->cwd == "/w");
  CHECK(acp::decode_new_session(json::parse(R"({"cwd":"/w","mcpServers":null})")).has_value());
  CHECK(acp::decode_new_session(json::parse(R"({"cwd":"/"})")).has_value());

  auto param_of = [](const json& params) {
    auto r = acp::decode_new_session(params);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::kInvalidParams);
    return r.error().data["param"].get<std::string>();
  };
  CHECK(param_of(json::object()) == "cwd");
  CHECK(param_of(json::parse(R"({"cwd":"relative/dir"})")) == "cwd");
  CHECK(param_of(json::parse(R"({"cwd":""})")) == "cwd");
  CHECK(param_of(json::parse(R"({"cwd":7})")) == "cwd");
  CHECK(param_of(json::parse(R"({"cwd":"/w","mcpServers":{}})")) == "mcpServers");
  CHECK(param_of(json::array()) == "cwd");
  CHECK(acp::new_session_result("s-1") == json{{"sessionId", "s-1"}});
}

TEST_CASE("acp: file requests carry the session and read the whole file") {
  json read = acp::read_text_file_params("s", "/w/a.txt");
  CHECK(read == json{{"sessionId", "s"}, {"path", "/w/a.txt"}});  // no line, no limit
  CHECK(acp::write_text_file_params("s", "/w/a.txt", "x\n") ==
        json{{"sessionId", "s"}, {"path", "/w/a.txt"}, {"content", "x\n"}});

  json answer = {{"content", "hello\n"}};
  auto content = acp::take_content(answer);
  REQUIRE(content);
  CHECK(*content == "hello\n");
  json empty = {{"content", ""}};
  CHECK(acp::take_content(empty) == std::optional<std::string>(""));
  for (json bad : {json(nullptr), json::object(), json{{"content", 3}}, json{{"content", nullptr}},
                   json::array({"content"})})
    CHECK_FALSE(acp::take_content(bad));
}

TEST_CASE("acp: a mutation is announced as a pending edit, then completed with its diffs") {
  json started = acp::tool_call_started("s", "c1", "str_replace a.txt", {"/w/a.txt"});
  CHECK(started["sessionId"] == "s");
  const json& u = started["update"];
  CHECK(u["sessionUpdate"] == "tool_call");
  CHECK(u["toolCallId"] == "c1");
  CHECK(u["title"] == "str_replace a.txt");
  CHECK(u["kind"] == "edit");
  CHECK(u["status"] == "pending");
  CHECK(u["locations"] == json::array({{{"path", "/w/a.txt"}}}));
  CHECK(acp::tool_call_started("s", "c1", "t", {})["update"]["locations"] == json::array());

  std::vector<acp::Diff> diffs = {{"/w/a.txt", "old\n", "new\n", 3},
                                  {"/w/b.txt", std::nullopt, "fresh\n", std::nullopt}};
  json done = acp::tool_call_completed("s", "c1", json{{"fingerprint", "f"}}, diffs);
  const json& d = done["update"];
  CHECK(d["sessionUpdate"] == "tool_call_update");
  CHECK(d["toolCallId"] == "c1");
  CHECK(d["status"] == "completed");
  CHECK(d["rawOutput"] == json{{"fingerprint", "f"}});
  REQUIRE(d["content"].size() == 2);
  CHECK(d["content"][0] ==
        json{{"type", "diff"}, {"path", "/w/a.txt"}, {"oldText", "old\n"}, {"newText", "new\n"}});
  CHECK_FALSE(d["content"][1].contains("oldText"));  // a new file has no old text
  CHECK(d["locations"] ==
        json::array({{{"path", "/w/a.txt"}, {"line", 3}}, {{"path", "/w/b.txt"}}}));
}

TEST_CASE("acp: a failed mutation carries the error's message and the error itself") {
  Error e(ErrorKind::kNoMatch, "no match for oldText in a.txt", {{"path", "a.txt"}});
  json failed = acp::tool_call_failed("s", "c2", e);
  const json& u = failed["update"];
  CHECK(u["status"] == "failed");
  CHECK(
      u["content"] ==
      json::array({{{"type", "content"},
                    {"content", {{"type", "text"}, {"text", "no match for oldText in a.txt"}}}}}));
  CHECK(u["rawOutput"]["error"]["code"] == kind_code(ErrorKind::kNoMatch));
  CHECK(u["rawOutput"]["error"]["message"] == e.message);
  CHECK(u["rawOutput"]["error"]["data"] == e.wire_data());
  CHECK(u["rawOutput"]["error"]["data"]["kind"] == "no_match");
}

TEST_CASE("acp: a permission request shows the diff and offers once, always and reject") {
  json p = acp::permission_params("s", "c3", "a.txt", {"/w/a.txt", "a\n", "b\n", std::nullopt});
  CHECK(p["sessionId"] == "s");
  const json& call = p["toolCall"];
  CHECK(call["toolCallId"] == "c3");
  CHECK(call["title"] == "edit a.txt");
  CHECK(call["kind"] == "edit");
  CHECK(call["content"] ==
        json::array(
            {{{"type", "diff"}, {"path", "/w/a.txt"}, {"oldText", "a\n"}, {"newText", "b\n"}}}));
  CHECK(call["locations"] == json::array({{{"path", "/w/a.txt"}}}));
  std::vector<std::string> ids, kinds;
  for (const json& o : p["options"]) {
    ids.push_back(o["optionId"]);
    kinds.push_back(o["kind"]);
    CHECK(o["name"].is_string());
  }
  CHECK(ids == std::vector<std::string>{"allow_once", "allow_always", "reject_once"});
  CHECK(kinds == ids);
}

TEST_CASE("acp: permission outcomes are selected (with the option as sent), cancelled or invalid") {
  using Kind = acp::PermissionOutcome::Kind;
  auto sel = acp::decode_permission_outcome(
      json::parse(R"({"outcome":{"outcome":"selected","optionId":"allow_always"}})"));
  CHECK(sel.kind == Kind::kSelected);
  CHECK(sel.option_id == "allow_always");
  auto odd = acp::decode_permission_outcome(
      json::parse(R"({"outcome":{"outcome":"selected","optionId":42}})"));
  CHECK(odd.kind == Kind::kSelected);
  CHECK(odd.option_id == 42);
  CHECK(acp::decode_permission_outcome(json::parse(R"({"outcome":{"outcome":"selected"}})"))
            .option_id.is_null());
  CHECK(
      acp::decode_permission_outcome(json::parse(R"({"outcome":{"outcome":"cancelled"}})")).kind ==
      Kind::kCancelled);
  for (const char* bad :
       {R"(null)", R"({})", R"({"outcome":"selected"})", R"({"outcome":{"outcome":"approved"}})",
        R"({"outcome":{"outcome":1}})", R"([{"outcome":{"outcome":"cancelled"}}])"})
    CHECK(acp::decode_permission_outcome(json::parse(bad)).kind == Kind::kInvalid);
}

TEST_CASE("acp: a failed mutation names the inputs the engine mentioned, as editd's params") {
  Error e(ErrorKind::kNoMatch, mention(Input::kOldText) + " was not found",
          {{"hint", "copy " + mention(Input::kOldText)}});
  const json failed = acp::tool_call_failed("s", "c3", e);
  const json& u = failed["update"];
  CHECK(u["content"][0]["content"]["text"] == "oldText was not found");
  CHECK(u["rawOutput"]["error"]["message"] == "oldText was not found");
  CHECK(u["rawOutput"]["error"]["data"]["hint"] == "copy oldText");
}
