// MCP through the real binary: the dialect chosen by initialize, tools/list
// derived from the registry, tools/call results and errors, paging,
// cancellation, and MCP over stdio, a Unix socket and TCP.
#include <doctest/doctest.h>

#include <algorithm>

#include <map>
#include <regex>
#include <set>
#include <thread>

#include "helpers/socket_client.h"

using namespace editd::test;

namespace {

// A tools/call request as the line that carries it.
std::string tool_call(const std::string& id, const char* tool, json arguments) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "tools/call"},
              {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}}
             .dump() +
         "\n";
}

// Whether a schema holds any construct hosts reject, at any depth.
bool has_forbidden(const json& schema) {
  if (schema.is_object()) {
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (it.key() == "anyOf" || it.key() == "oneOf" || it.key() == "allOf" || it.key() == "$ref" ||
          it.key() == "$defs" || it.key() == "$schema" || it.key() == "definitions")
        return true;
      if (it.key() == "type" && !it.value().is_string()) return true;
      if (it.key() == "properties" && it.value().is_object()) {
        // Property names are not keywords (OpenAI's operation has a "type").
        for (const json& property : it.value())
          if (has_forbidden(property)) return true;
        continue;
      }
      if (has_forbidden(it.value())) return true;
    }
  }
  if (schema.is_array())
    for (const json& v : schema)
      if (has_forbidden(v)) return true;
  return false;
}

bool editd_code(const json& reply) {
  if (!reply.contains("error")) return false;
  int code = reply["error"]["code"].get<int>();
  return code >= -32099 && code <= -32000;
}

}  // namespace

TEST_CASE(
    "a string protocolVersion makes the connection MCP: a supported version is echoed, any other "
    "gets the newest") {
  TempDir root;
  for (std::string v : {"2025-11-25", "2025-06-18"}) {
    auto p = spawn_editd(root);
    json r = p.ok("initialize", mcp_initialize_params(v));
    CHECK(r["protocolVersion"] == v);
    CHECK(r["serverInfo"]["name"] == "editd");
    CHECK(r["capabilities"]["tools"].is_object());
    CHECK(r["instructions"].is_string());
  }
  for (std::string v : {"2024-11-05", "2099-01-01", ""}) {
    auto p = spawn_editd(root);
    CHECK(p.ok("initialize", mcp_initialize_params(v))["protocolVersion"] == "2025-11-25");
  }
  // An integer keeps the plain (ACP) answer.
  auto plain = spawn_editd(root);
  json r = plain.ok("initialize", {{"protocolVersion", 1}});
  CHECK(r["protocolVersion"] == 1);
  CHECK(r["agentCapabilities"]["_meta"]["editd"]["methods"].size() == 21);
}

TEST_CASE("server/discover is method-not-found, and initialize follows on the same connection") {
  TempDir root;
  auto p = spawn_editd(root);
  json d = p.request("server/discover", json::object());
  CHECK(d["error"]["code"] == -32601);
  CHECK(p.ok("initialize", mcp_initialize_params("2025-11-25"))["protocolVersion"] == "2025-11-25");
  // notifications/initialized and unknown notifications get no answer; ping does.
  p.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  p.send({{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}, {"params", {{"x", 1}}}});
  json ping = p.request("ping", json::object());
  CHECK(ping["result"] == json::object());
  CHECK(p.other.empty());
}

TEST_CASE("a second initialize is refused as invalid_request and changes neither dialect nor backend") {
  TempDir root;
  root.write("a.txt", "x\n");
  // Plain first: neither another plain nor an MCP initialize goes through.
  auto plain = spawn_editd(root);
  plain.ok("initialize", {{"protocolVersion", 1}});
  for (const json& again : {json{{"protocolVersion", 1}}, mcp_initialize_params("2025-11-25")}) {
    json e = plain.fails("initialize", again);
    CHECK(e["code"] == -32600);
    CHECK(e["data"]["kind"] == "invalid_request");
    CHECK(e["data"]["method"] == "initialize");
  }
  CHECK(plain.fails("tools/list", json::object())["code"] == -32601);
  CHECK(plain.ok("read_text", {{"path", "a.txt"}})["content"] == "x\n");

  // MCP first: a plain initialize is refused in MCP's codes, and MCP goes on.
  auto mcp = spawn_editd(root);
  mcp_initialize(mcp);
  json e = mcp.fails("initialize", {{"protocolVersion", 1}});
  CHECK(e["code"] == -32600);
  CHECK(e["data"]["kind"] == "invalid_request");
  CHECK(mcp.fails("initialize", mcp_initialize_params("2025-06-18"))["code"] == -32600);
  CHECK(mcp.ok("tools/list", json::object())["tools"].size() > 0);

  // A failed initialize is no initialize: the next one may succeed.
  auto retry = spawn_editd(root);
  CHECK(retry.fails("initialize", {{"protocolVersion", true}})["code"] == -32602);
  CHECK(retry.ok("initialize", mcp_initialize_params("2025-11-25"))["protocolVersion"] ==
        "2025-11-25");
}

TEST_CASE("a request in flight when initialize switches the dialect is answered in its own") {
  TempDir root;
  std::string small;
  for (int i = 0; small.size() < 50 * 1024; ++i)
    small += "line " + std::to_string(i) + " of a small file\n";
  root.write("small.txt", small);
  std::string old_text;
  for (int i = 0; old_text.size() < (8 << 20); ++i)
    old_text += "line " + std::to_string(i) + " of another file\n";
  auto p = spawn_editd(root);
  // Small replies first, so that the two requests below run together.
  for (int i = 0; i < 8; ++i)
    p.ok("fingerprint", {{"path", "small.txt"}});
  // A plain request that misses after a long search, and MCP's initialize
  // while it runs.
  std::string lines =
      json{{"jsonrpc", "2.0"},
           {"id", "edit"},
           {"method", "str_replace"},
           {"params", {{"path", "small.txt"}, {"oldText", old_text}, {"newText", "x"}}}}
          .dump() +
      "\n" +
      json{{"jsonrpc", "2.0"},
           {"id", "init"},
           {"method", "initialize"},
           {"params", mcp_initialize_params("2025-11-25")}}
          .dump() +
      "\n";
  p.write_raw(lines);
  std::map<std::string, json> replies;
  std::vector<std::string> order;
  for (int i = 0; i < 2; ++i) {
    json m = p.read_message();
    order.push_back(m["id"].get<std::string>());
    replies[order.back()] = m;
  }
  // The edit was still in flight when the dialect changed.
  CHECK(order.front() == "init");
  REQUIRE(replies.count("init") == 1);
  REQUIRE(replies.count("edit") == 1);
  CHECK(replies["init"]["result"]["protocolVersion"] == "2025-11-25");
  CHECK(replies["edit"]["error"]["data"]["kind"] == "no_match");
  CHECK(replies["edit"]["error"]["code"] == -32020);
  CHECK(p.ok("tools/list", json::object())["tools"].size() > 0);
}

TEST_CASE(
    "tools/list has one tool per registry method with flat input schemas, output schemas and "
    "annotations") {
  TempDir root;
  auto plain = spawn_editd(root);
  json methods = plain.ok(
      "initialize", {{"protocolVersion", 1}})["agentCapabilities"]["_meta"]["editd"]["methods"];
  // Without --lsp the symbol tools are not listed (symbols_test.cpp lists them with it).
  methods.erase(std::remove(methods.begin(), methods.end(), json("edit_symbol")), methods.end());
  methods.erase(std::remove(methods.begin(), methods.end(), json("read_symbols")), methods.end());
  auto p = spawn_editd(root, {"--mcp-tools", "all"});
  mcp_initialize(p);
  json tools = p.ok("tools/list", json::object())["tools"];
  std::vector<std::string> names;
  for (const json& t : tools) {
    CAPTURE(t["name"]);
    names.push_back(t["name"]);
    CHECK(t["title"].is_string());
    CHECK(t["description"].get<std::string>().size() > 80);
    const json& in = t["inputSchema"];
    CHECK(in["type"] == "object");
    CHECK(in["additionalProperties"] == false);
    CHECK_FALSE(has_forbidden(in));
    for (const json& req : in["required"]) CHECK(in["properties"].contains(req.get<std::string>()));
    CHECK(t["outputSchema"]["type"] == "object");
    CHECK_FALSE(has_forbidden(t["outputSchema"]));
    const json& a = t["annotations"];
    CHECK(a["openWorldHint"] == false);
    CHECK(a["readOnlyHint"].is_boolean());
    CHECK(a["destructiveHint"].is_boolean());
    CHECK(a["idempotentHint"].is_boolean());
  }
  CHECK(json(names) == methods);
  auto flags = [&](const std::string& name) {
    for (const json& t : tools)
      if (t["name"] == name) return t["annotations"];
    return json();
  };
  CHECK(flags("read_text")["readOnlyHint"] == true);
  CHECK(flags("fingerprint")["readOnlyHint"] == true);
  CHECK(flags("str_replace")["readOnlyHint"] == false);
  CHECK(flags("apply_patch")["destructiveHint"] == true);
  CHECK(flags("insert")["destructiveHint"] == false);
}

TEST_CASE(
    "tools/list lists the tools meant for models unless --mcp-tools all asks for the hosts' too; "
    "tools/call runs either") {
  TempDir root;
  root.write("f.txt", "a\n");
  auto plain = spawn_editd(root);
  json methods = plain.ok(
      "initialize", {{"protocolVersion", 1}})["agentCapabilities"]["_meta"]["editd"]["methods"];
  // Without --lsp the symbol tools are not listed (symbols_test.cpp lists them with it).
  methods.erase(std::remove(methods.begin(), methods.end(), json("edit_symbol")), methods.end());
  methods.erase(std::remove(methods.begin(), methods.end(), json("read_symbols")), methods.end());
  const std::vector<std::string> for_hosts = {"anthropic_text_editor", "openai_apply_patch"};
  std::vector<std::string> for_models;
  for (const json& m : methods)
    if (std::find(for_hosts.begin(), for_hosts.end(), m) == for_hosts.end())
      for_models.push_back(m);
  auto names = [](const json& list) {
    std::vector<std::string> out;
    for (const json& t : list["tools"]) out.push_back(t["name"]);
    return out;
  };

  auto p = spawn_editd(root);
  mcp_initialize(p);
  CHECK(names(p.ok("tools/list", json::object())) == for_models);
  // Not listed, still served: a host that forwards its provider's calls works either way.
  json viewed = call(p, "anthropic_text_editor", {{"command", "view"}, {"path", "f.txt"}});
  CHECK(viewed["isError"] == false);
  CHECK(text_of(viewed) == "1: a");

  auto models = spawn_editd(root, {"--mcp-tools", "models"});
  mcp_initialize(models);
  CHECK(names(models.ok("tools/list", json::object())) == for_models);

  auto all = spawn_editd(root, {"--mcp-tools=all"});
  mcp_initialize(all);
  CHECK(json(names(all.ok("tools/list", json::object()))) == methods);

  Run bad = run_editd({"--mcp-tools", "some"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--mcp-tools must be models or all") != std::string::npos);
}

TEST_CASE(
    "tools/call returns the plain method's whole result as structuredContent and complete text") {
  TempDir root;
  auto p = spawn_editd(root);
  mcp_initialize(p);
  json w = call(p, "write_text", {{"path", "notes.txt"}, {"content", "alpha\nbeta\ngamma\n"}});
  CHECK(w["isError"] == false);
  CHECK(w["structuredContent"]["created"] == true);
  std::string wt = text_of(w);
  CHECK(wt.find("notes.txt: created") == 0);
  CHECK(wt.find(w["structuredContent"]["fingerprint"].get<std::string>()) != std::string::npos);
  CHECK(wt.find(w["structuredContent"]["diff"].get<std::string>()) != std::string::npos);

  json r = call(p, "read_text", {{"path", "notes.txt"}});
  auto plain = spawn_editd(root);
  CHECK(r["structuredContent"] == plain.ok("read_text", {{"path", "notes.txt"}}));
  CHECK(text_of(r) == "notes.txt: lines 1-3 of 3, fingerprint " +
                          r["structuredContent"]["fingerprint"].get<std::string>() +
                          " (the whole file)\nalpha\nbeta\ngamma\n");

  json s =
      call(p, "str_replace",
           {{"path", "notes.txt"}, {"oldText", "beta"}, {"newText", "BETA"}, {"dryRun", true}});
  CHECK(s["structuredContent"]["replacements"] == 1);
  CHECK(text_of(s).find("1 replacement at line 2 (matched by exact)") != std::string::npos);
  CHECK(text_of(s).find("dry run: nothing was written") != std::string::npos);
  CHECK(root.read("notes.txt") == "alpha\nbeta\ngamma\n");

  json patch = call(p, "apply_patch",
                    {{"patch", "*** Begin Patch\n*** Add File: b.txt\n+new\n*** End Patch\n"}});
  CHECK(patch["structuredContent"]["files"][0]["action"] == "add");
  CHECK(text_of(patch).find("apply_patch: 1 file: add b.txt (+1 -0") == 0);
  json fp = call(p, "fingerprint", {{"path", "b.txt"}});
  CHECK(text_of(fp) == "b.txt: fingerprint " +
                           fp["structuredContent"]["fingerprint"].get<std::string>() + ", 4 bytes");
}

TEST_CASE("hashline anchors and undo as MCP tools: the text alone is enough to use them") {
  TempDir root;
  root.write("calc.py", "def add(a, b):\r\n    return a + b\r\n");
  auto p = spawn_editd(root);
  mcp_initialize(p);
  json r = call(p, "read_text", {{"path", "calc.py"}, {"format", "hashline"}});
  REQUIRE(r["isError"] == false);
  CHECK(r["structuredContent"]["format"] == "hashline");
  // The anchor of line 2, read from the text a model sees.
  std::smatch m;
  std::string text = text_of(r);
  REQUIRE(std::regex_search(text, m, std::regex("\n(2~[a-z]+)\\|    return a \\+ b")));
  const std::string anchor = m[1];

  json e = call(p, "edit_lines",
                {{"path", "calc.py"},
                 {"edits", {{{"replace", {{"start", anchor}}}, {"newText", "    return a - b"}}}}});
  REQUIRE(e["isError"] == false);
  CHECK(root.read("calc.py") == "def add(a, b):\r\n    return a - b\r\n");
  const std::string undo_id = e["structuredContent"]["undoId"];
  CHECK(text_of(e).find("undoId " + undo_id) != std::string::npos);

  json u = call(p, "undo", {{"undoId", undo_id}});
  REQUIRE(u["isError"] == false);
  CHECK(text_of(u).find("undo: 1 file: update calc.py") == 0);
  CHECK(root.read("calc.py") == "def add(a, b):\r\n    return a + b\r\n");

  // A tag that no line carries: the anchor is stale, not rebased.
  std::string tag = "zz";
  for (std::string t : {"zz", "yy", "xx"})
    if (text.find("~" + t + "|") == std::string::npos) {
      tag = t;
      break;
    }
  json stale =
      call(p, "edit_lines",
           {{"path", "calc.py"}, {"edits", {{{"insertAfter", "2~" + tag}, {"newText", "x"}}}}});
  CHECK(stale["isError"] == true);
  CHECK(text_of(stale).find("Error (stale)") == 0);
  CHECK(root.read("calc.py") == "def add(a, b):\r\n    return a + b\r\n");
}

TEST_CASE(
    "an MCP error's text shows the region its message points at, with line numbers, and never "
    "names a data field the model cannot see") {
  TempDir root;
  root.write("calc.py",
             "# calc\ndef add(a, b):\n    total = a + b\n    return total\n\nprint(add(1, 2))\n");
  root.write("notes.txt", "alpha\nbeta\n");
  auto p = spawn_editd(root, {"--mcp-tools", "all"});
  mcp_initialize(p);
  std::vector<std::string> texts;

  json nm = call(p, "str_replace",
                 {{"path", "calc.py"},
                  {"oldText", "    total = a * b\n    return total"},
                  {"newText", "x"}});
  REQUIRE(nm["isError"] == true);
  std::string t = text_of(nm);
  INFO(t);
  CHECK(t.find("the most similar region is lines 3-4") != std::string::npos);
  CHECK(std::regex_search(
      t, std::regex("\nClosest region, lines 3-4 \\(similarity 0\\.[0-9]+\\):\n    total = a \\+ "
                    "b\n    return total\n")));
  texts.push_back(t);

  // A stale anchor: the lines as they are now, with their anchors.
  json read = call(p, "read_text", {{"path", "notes.txt"}, {"format", "hashline"}});
  const std::string lines = read["structuredContent"]["content"];
  std::smatch beta;
  REQUIRE(std::regex_search(lines, beta, std::regex("(2~[a-z]{2})\\|beta")));
  root.write("notes.txt", "alpha\nBETA\n");
  json stale = call(p, "edit_lines",
                    {{"path", "notes.txt"},
                     {"edits", {{{"replace", {{"start", beta[1].str()}}}, {"newText", "gamma"}}}}});
  REQUIRE(stale["isError"] == true);
  t = text_of(stale);
  CHECK(t.find("Error (stale)") == 0);
  CHECK(t.find("the error's region holds lines 1-2 as they are now") != std::string::npos);
  CHECK(std::regex_search(t, std::regex("\nRegion, the lines as they are now:\n1~[a-z]{2}\\|alpha\n"
                                        "2~[a-z]{2}\\|BETA\n")));
  texts.push_back(t);

  // A hunk that does not apply: the lines it looked for and the closest region.
  json hunk = call(p, "apply_patch",
                   {{"patch",
                     "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return totals\n+    "
                     "return 0\n*** End Patch\n"}});
  REQUIRE(hunk["isError"] == true);
  t = text_of(hunk);
  CHECK(t.find("The hunk's lines that were not found:\n    return totals\n") != std::string::npos);
  CHECK(t.find("Closest region, line 4") != std::string::npos);
  texts.push_back(t);

  // The provider-native tools give the same account after their provider's line.
  texts.push_back(text_of(call(p, "anthropic_text_editor",
                               {{"command", "str_replace"},
                                {"path", "calc.py"},
                                {"old_str", "    total = a * b"},
                                {"new_str", "x"}})));
  texts.push_back(text_of(call(
      p, "openai_apply_patch",
      {{"operation", {{"type", "update_file"}, {"path", "calc.py"}, {"diff", "@@\n-zzz\n+y\n"}}}})));
  for (const std::string& text : texts) {
    CAPTURE(text);
    const bool shows_region = text.find("Closest region, line") != std::string::npos ||
                              text.find("Region, the lines") != std::string::npos;
    CHECK(shows_region);
    CHECK(text.find("data.") == std::string::npos);
  }
  const json listed = p.ok("tools/list", json::object());
  for (const json& tool : listed["tools"]) {
    CAPTURE(tool["name"]);
    CHECK(tool["description"].get<std::string>().find("data.") == std::string::npos);
  }
}

TEST_CASE(
    "failed calls are isError results with message, kind and every hint; unknown tools are "
    "-32602") {
  TempDir root;
  root.write(
      "calc.js",
      "function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n");
  auto p = spawn_editd(root);
  mcp_initialize(p);
  std::vector<json> replies;

  json nm =
      call(p, "str_replace", {{"path", "calc.js"}, {"oldText", "return a * b;"}, {"newText", "x"}});
  CHECK(nm["isError"] == true);
  CHECK_FALSE(nm.contains("structuredContent"));
  std::string t = text_of(nm);
  CHECK(t.find("Error (no_match): oldText was not found") == 0);
  CHECK(t.find("Closest region, line 2 (similarity 0.80):\n  return a + b;\n") !=
        std::string::npos);

  json amb = call(p, "str_replace",
                  {{"path", "calc.js"}, {"oldText", "(a, b) {"}, {"newText", "(x, y) {"}});
  t = text_of(amb);
  CHECK(t.find("Error (ambiguous):") == 0);
  CHECK(t.find("Candidate, line 1:\nfunction add(a, b) {\n") != std::string::npos);
  CHECK(t.find("Candidate, line 5:\nfunction sub(a, b) {\n") != std::string::npos);

  json missing = call(p, "read_text", json::object());
  CHECK(missing["isError"] == true);
  CHECK(text_of(missing).find("Error (invalid_params): invalid param 'path'") == 0);

  json unknown_arg =
      call(p, "str_replace", {{"path", "calc.js"}, {"old_str", "a"}, {"new_str", "b"}});
  CHECK(unknown_arg["isError"] == true);
  CHECK(text_of(unknown_arg)
            .find("invalid params 'new_str', 'old_str': str_replace takes no such arguments (it "
                  "takes dryRun,") != std::string::npos);

  // Gemini CLI adds wait_for_previous to every call: it is ignored, on reads and edits alike;
  // another unknown argument beside it is still refused.
  json waited = call(p, "read_text", {{"path", "calc.js"}, {"wait_for_previous", true}});
  CHECK(waited["isError"] == false);
  CHECK(waited["structuredContent"]["totalLines"] == 7);
  json waited_edit = call(p, "str_replace",
                          {{"path", "calc.js"},
                           {"oldText", "return a - b;"},
                           {"newText", "return a - b; // diff"},
                           {"wait_for_previous", false}});
  CHECK(waited_edit["isError"] == false);
  CHECK(root.read("calc.js").find("return a - b; // diff\n") != std::string::npos);
  json misspelt = call(p, "read_text",
                       {{"path", "calc.js"}, {"wait_for_previous", true}, {"waitForPrevious", true}});
  CHECK(misspelt["isError"] == true);
  CHECK(text_of(misspelt).find("invalid param 'waitForPrevious': read_text takes no such argument "
                               "(it takes format, limit, line, path, symbol)") != std::string::npos);

  json not_object = p.ok("tools/call", {{"name", "read_text"}, {"arguments", "calc.js"}});
  CHECK(not_object["isError"] == true);

  json conflict = call(
      p, "write_text",
      {{"path", "calc.js"}, {"content", "x"}, {"expectedFingerprint", "xxh3:0000000000000000"}});
  CHECK(text_of(conflict).find("Error (conflict):") == 0);
  CHECK(text_of(conflict).find("currentFingerprint") != std::string::npos);

  json unknown = p.request("tools/call", {{"name", "frobnicate"}, {"arguments", json::object()}});
  CHECK(unknown["error"]["code"] == -32602);
  replies.push_back(unknown);
  json mistyped = p.request("tools/call", {{"name", 5}, {"arguments", json::object()}});
  CHECK(mistyped["error"]["code"] == -32602);
  CHECK(mistyped["error"]["message"].get<std::string>().find("must be a string") !=
        std::string::npos);
  replies.push_back(mistyped);
  // Plain methods are not MCP methods; editd's own codes never go out.
  json plain = p.request("read_text", {{"path", "calc.js"}});
  CHECK(plain["error"]["code"] == -32601);
  replies.push_back(plain);
  p.write_raw("{not json\n");
  replies.push_back(p.read_message());
  CHECK(replies.back()["error"]["code"] == -32700);
  for (const json& r : replies) CHECK_FALSE(editd_code(r));
  CHECK(root.read("calc.js").find("return a + b;") != std::string::npos);
}

TEST_CASE("diagnostics on MCP: the text names what the edit introduced, the schema allows them") {
  TempDir root;
  root.write("m.py", "import os\n");
  auto p = spawn_editd(root, {"--check", "*.py=pyflakes3 {file}"});
  mcp_initialize(p);
  json r = call(p, "str_replace",
                {{"path", "m.py"}, {"oldText", "import os\n"}, {"newText", "import os\nprint(nope)\n"}});
  REQUIRE(r["isError"] == false);
  const std::string text = text_of(r);
  INFO(text);
  CHECK(text.find("Diagnostics of m.py after the edit (ok): 2 in all, 1 introduced by this edit") !=
        std::string::npos);
  CHECK(text.find("line 2:7: error: undefined name 'nope' [pyflakes3]") != std::string::npos);
  CHECK(text.find("imported but unused") == std::string::npos);  // not introduced: not listed
  CHECK(r["structuredContent"]["introduced"].size() == 1);

  json list = p.ok("tools/list", json::object());
  for (const json& tool : list["tools"])
    if (tool["name"] == "str_replace" || tool["name"] == "apply_patch") {
      const json& props = tool["name"] == "apply_patch"
                              ? tool["outputSchema"]["properties"]["files"]["items"]["properties"]
                              : tool["outputSchema"]["properties"];
      CHECK(props.contains("diagnostics"));
      CHECK(props.contains("introduced"));
      CHECK(props.contains("diagnosticsStatus"));
    }
}

namespace {

// A tools/call of read_text as the reply's raw line, and the text of its structuredContent as
// the line carries it (members in editd's order, which parsing would sort).
struct RawRead {
  json reply;
  std::string structured;
};

RawRead raw_read(Process& p, const std::string& id, json arguments) {
  p.write_raw(tool_call(id, "read_text", std::move(arguments)));
  auto line = p.read_line();
  REQUIRE(line.has_value());
  RawRead r{json::parse(*line), ""};
  // The reply's members are sorted and so are the result's: structuredContent is the last
  // member of the result, the last member of the reply.
  const std::string key = "\"structuredContent\":";
  auto at = line->find(key);
  REQUIRE(at != std::string::npos);
  REQUIRE(line->size() >= at + key.size() + 2);
  r.structured = line->substr(at + key.size(), line->size() - at - key.size() - 2);
  REQUIRE(json::accept(r.structured));
  return r;
}

}  // namespace

TEST_CASE(
    "read_text pages on MCP: 2,000 lines or 10,000 bytes of JSON, paging facts first, and "
    "nextLine reads on") {
  TempDir root;
  std::string many;
  for (int i = 1; i <= 2500; ++i) many += std::to_string(i % 10) + "\n";
  root.write("many.txt", many);
  std::string wide;
  for (int i = 0; i < 300; ++i) wide += std::string(1000, 'a' + i % 26) + "\n";
  root.write("wide.txt", wide);
  auto p = spawn_editd(root);
  mcp_initialize(p);

  // Short lines: the 2,000-line default.
  RawRead first = raw_read(p, "m1", {{"path", "many.txt"}});
  const json& result = first.reply["result"];
  CHECK(result["structuredContent"]["lineCount"] == 2000);
  CHECK(result["structuredContent"]["totalLines"] == 2500);
  CHECK(result["structuredContent"]["nextLine"] == 2001);
  // The paging facts come first, the content last.
  CHECK(first.structured.find(R"({"line":1,"lineCount":2000,"totalLines":2500,"nextLine":2001,)"
                              R"("fingerprint":"xxh3:)") == 0);
  CHECK(first.structured.find(R"(,"content":"1\n2\n)") != std::string::npos);
  std::string header = text_of(result).substr(0, text_of(result).find('\n'));
  CHECK(header.find("many.txt: lines 1-2000 of 2500") == 0);
  CHECK(header.find("call read_text with line 2001") != std::string::npos);
  json rest = call(p, "read_text", {{"path", "many.txt"}, {"line", 2001}});
  CHECK(rest["structuredContent"]["lineCount"] == 500);
  CHECK_FALSE(rest["structuredContent"].contains("nextLine"));
  CHECK(text_of(rest).find("many.txt: lines 2001-2500 of 2500, fingerprint") == 0);
  // An explicit limit is kept while the page holds it.
  CHECK(call(p, "read_text",
             {{"path", "many.txt"}, {"limit", 2500}})["structuredContent"]["lineCount"] == 2500);

  // Long lines: 10,000 bytes as JSON writes them (each line 1,000 letters and "\n").
  json w = call(p, "read_text", {{"path", "wide.txt"}, {"limit", 1000}});
  CHECK(w["structuredContent"]["lineCount"] == 9);
  CHECK(w["structuredContent"]["nextLine"] == 10);
  CHECK(w["structuredContent"]["content"].get<std::string>().size() == 9 * 1001);
  CHECK(text_of(w).find("call read_text with line 10") != std::string::npos);
  // The plain method does not page.
  auto plain = spawn_editd(root);
  CHECK(plain.ok("read_text", {{"path", "many.txt"}})["lineCount"] == 2500);
  CHECK_FALSE(plain.ok("read_text", {{"path", "many.txt"}}).contains("nextLine"));
}

TEST_CASE(
    "every MCP page of a large source file fits every host's limit, and reading on by nextLine "
    "returns the file exactly") {
  // Code as a model reads it: indentation (tabs), quotes, backslashes, UTF-8, CRLF here and
  // there.
  TempDir root;
  std::string code;
  for (int i = 0; code.size() < 600'000; ++i)
    code += "\tprintf(\"%s\\n\", names[" + std::to_string(i) + "]); // caf\xC3\xA9 \"q\"" +
            (i % 7 == 0 ? "\r\n" : "\n");
  root.write("big.c", code);
  auto p = spawn_editd(root);
  mcp_initialize(p);

  std::string seen;
  std::uint64_t line = 1, pages = 0;
  std::size_t largest = 0;
  while (true) {
    RawRead r = raw_read(p, "p" + std::to_string(pages), {{"path", "big.c"}, {"line", line}});
    const json& result = r.reply["result"];
    REQUIRE(result["isError"] == false);
    const json& page = result["structuredContent"];
    CHECK(page["line"] == line);
    // Codex passes 12,000 bytes of structuredContent whole (10,000 x 1.2); the text is within
    // Gemini CLI's 40,000 characters and both within Claude Code's 50,000.
    largest = std::max(largest, r.structured.size());
    CHECK(r.structured.size() <= 10'300);
    CHECK(text_of(result).size() <= 10'300);
    seen += page["content"].get<std::string>();
    ++pages;
    if (!page.contains("nextLine")) break;
    REQUIRE(page["nextLine"] == line + page["lineCount"].get<std::uint64_t>());
    line = page["nextLine"].get<std::uint64_t>();
  }
  INFO("pages: " << pages << ", largest structuredContent: " << largest);
  CHECK(seen == code);
  CHECK(pages > 50);
  CHECK(largest > 9'000);  // pages are full, not needlessly small
}

TEST_CASE(
    "notifications/cancelled cancels a queued call, which changes nothing and gets no answer") {
  TempDir root;
  root.write("big.txt", "start\n");
  auto p = spawn_editd(root);
  mcp_initialize(p);
  std::string big(8 << 20, 'x');
  std::string lines =
      tool_call("w", "write_text", {{"path", "big.txt"}, {"content", big + "\nstart\n"}}) +
      tool_call("e", "str_replace",
                {{"path", "big.txt"}, {"oldText", "start"}, {"newText", "changed"}}) +
      json{{"jsonrpc", "2.0"},
           {"method", "notifications/cancelled"},
           {"params", {{"requestId", "e"}, {"reason", "user"}}}}
          .dump() +
      "\n" + json{{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}}.dump() + "\n";
  p.write_raw(lines);
  std::set<std::string> ids;
  ids.insert(p.read_message()["id"].get<std::string>());
  ids.insert(p.read_message()["id"].get<std::string>());
  CHECK(ids == std::set<std::string>{"w", "p"});
  // After a later request is answered, the cancelled one still has not been.
  json after = p.request("ping", json::object());
  CHECK(after.contains("result"));
  CHECK(p.other.empty());
  CHECK(root.read("big.txt").find("changed") == std::string::npos);
}

TEST_CASE("tools/call keeps arrival order behind an apply_patch that parses on the pool") {
  TempDir root;
  root.write("a.txt", "old\n");
  const std::string patch = large_patch_old_to_new();
  REQUIRE(patch.size() > 64 * 1024);
  auto p = spawn_editd(root);
  mcp_initialize(p);
  // Small replies first, so that what follows may run together.
  for (int i = 0; i < 8; ++i)
    p.write_raw(tool_call("warm" + std::to_string(i), "fingerprint", {{"path", "a.txt"}}));
  for (int i = 0; i < 8; ++i) REQUIRE(p.read_message().contains("result"));
  p.write_raw(tool_call("patch", "apply_patch", {{"patch", patch}}) +
              tool_call("edit", "str_replace",
                        {{"path", "a.txt"}, {"oldText", "new"}, {"newText", "third"}}));
  std::map<std::string, json> replies;
  for (int i = 0; i < 2; ++i) {
    json m = p.read_message();
    replies[m["id"].get<std::string>()] = m;
  }
  CHECK_MESSAGE(replies["patch"]["result"]["isError"] == false,
                replies["patch"].dump().substr(0, 300));
  CHECK_MESSAGE(replies["edit"]["result"]["isError"] == false,
                replies["edit"].dump().substr(0, 300));
  CHECK(root.read("a.txt") == "third\n");
}

TEST_CASE("MCP on a Unix socket and on TCP, where initialize carries the token") {
  TempDir root, run_dir, secrets;
  root.write("a.txt", "x\n");
  const std::string socket = (run_dir.path() / "editd.sock").string();
  Process unix_server(EDITD_BINARY, {"--root", root.str(), "--listen", "unix:" + socket});
  REQUIRE(wait_for_path(socket));
  auto c = SocketClient::unix_socket(socket);
  REQUIRE(c);
  CHECK((*c->call("initialize", mcp_initialize_params(
                                    "2025-06-18")))["result"]["protocolVersion"] == "2025-06-18");
  json r = *c->call("tools/call", {{"name", "read_text"}, {"arguments", {{"path", "a.txt"}}}});
  CHECK(r["result"]["structuredContent"]["content"] == "x\n");

  secrets.write("token", "s3cret-token\n");
  Process tcp(EDITD_BINARY, {"--root", root.str(), "--listen", "tcp:127.0.0.1:0", "--token-file",
                             (secrets.path() / "token").string()});
  const int port = logged_port(tcp);
  REQUIRE(port > 0);
  auto bad = SocketClient::tcp(port);
  REQUIRE(bad);
  json refused = *bad->call("initialize", mcp_initialize_params("2025-11-25"));
  CHECK(refused["error"]["code"] == -32600);
  CHECK(refused["error"]["data"]["kind"] == "unauthenticated");
  auto good = SocketClient::tcp(port);
  REQUIRE(good);
  json params = mcp_initialize_params("2025-11-25");
  params["authToken"] = "s3cret-token";
  CHECK((*good->call("initialize", params))["result"]["protocolVersion"] == "2025-11-25");
  CHECK((*good->call(
            "tools/call",
            {{"name", "fingerprint"},
             {"arguments", {{"path", "a.txt"}}}}))["result"]["structuredContent"]["size"] == 2);
}

TEST_CASE(
    "--approve ask on MCP fails closed: a client that cannot ask its user gets no ACP request, "
    "and nothing is written") {
  TempDir root;
  auto p = spawn_editd(root, {"--approve", "ask"});
  mcp_initialize(p);  // no elicitation capability
  json r = call(p, "write_text", {{"path", "a.txt"}, {"content", "x\n"}});
  CHECK(r["isError"] == true);
  CHECK(text_of(r).find("Error (denied):") == 0);
  CHECK(p.other.empty());  // editd asked the client nothing
  CHECK_FALSE(root.exists("a.txt"));
}

TEST_CASE("editd tools prints the registry's tools for MCP, Anthropic and OpenAI requests") {
  TempDir root;
  auto host = spawn_editd(root);
  mcp_initialize(host);
  const json for_models = host.ok("tools/list", json::object());
  auto p = spawn_editd(root, {"--mcp-tools", "all"});
  mcp_initialize(p);
  const json listed = p.ok("tools/list", json::object());

  Run mcp = run_editd({"tools", "--format", "mcp"});
  REQUIRE(mcp.code == 0);
  CHECK(json::parse(mcp.out) == for_models);
  Run by_default = run_editd({"tools"});
  REQUIRE(by_default.code == 0);
  CHECK(json::parse(by_default.out) == for_models);
  Run all = run_editd({"tools", "--mcp-tools", "all", "--format", "mcp"});
  REQUIRE(all.code == 0);
  CHECK(json::parse(all.out) == listed);

  Run anthropic = run_editd({"tools", "--format", "anthropic"});
  REQUIRE(anthropic.code == 0);
  const json a = json::parse(anthropic.out);
  REQUIRE(a.is_array());
  REQUIRE(a.size() == listed["tools"].size() - 1);
  // Each provider's native tool stands for editd's method of it; the other's is left out.
  std::size_t k = 0;
  for (const json& t : listed["tools"]) {
    if (t["name"] == "openai_apply_patch") continue;
    if (t["name"] == "anthropic_text_editor")
      CHECK(a[k] == json{{"type", "text_editor_20250728"}, {"name", "str_replace_based_edit_tool"}});
    else
      CHECK(a[k] == json{{"name", t["name"]},
                         {"description", t["description"]},
                         {"input_schema", t["inputSchema"]}});
    ++k;
  }

  Run openai = run_editd({"tools", "--format=openai"});
  REQUIRE(openai.code == 0);
  const json o = json::parse(openai.out);
  REQUIRE(o.size() == listed["tools"].size() - 2);
  // OpenAI's own apply_patch tool is the model's apply_patch: no function of that name.
  k = 0;
  for (const json& t : listed["tools"]) {
    if (t["name"] == "anthropic_text_editor" || t["name"] == "apply_patch") continue;
    if (t["name"] == "openai_apply_patch")
      CHECK(o[k] == json{{"type", "apply_patch"}});
    else
      CHECK(o[k] == json{{"type", "function"},
                         {"name", t["name"]},
                         {"description", t["description"]},
                         {"parameters", t["inputSchema"]},
                         {"strict", false}});
    ++k;
  }

  Run bad = run_editd({"tools", "--format", "gemini"});
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("--format must be mcp, anthropic or openai") != std::string::npos);
  CHECK(run_editd({"tools", "--root", "."}).code == 2);
}

TEST_CASE("every tool editd tools prints has a name of its own, in every format") {
  for (const std::string format : {"mcp", "anthropic", "openai"}) {
    for (const std::string mcp_tools : {"models", "all"}) {
      CAPTURE(format);
      CAPTURE(mcp_tools);
      Run r = run_editd({"tools", "--format", format, "--mcp-tools", mcp_tools});
      REQUIRE(r.code == 0);
      const json printed = json::parse(r.out);
      const json& tools = format == "mcp" ? printed["tools"] : printed;
      REQUIRE(tools.size() > 5);
      // A provider's own tool without a name is called by its type.
      std::set<std::string> names;
      for (const json& t : tools) {
        const std::string name = t.contains("name") ? t["name"] : t["type"];
        CAPTURE(name);
        CHECK(names.insert(name).second);
      }
    }
  }
}
