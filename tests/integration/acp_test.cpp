// The delegated backend through the real binary: this test plays an ACP editor
// that serves fs/* from an in-memory map (never the disk), answers permission
// requests and records session/update notifications.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <set>

#include "helpers/process.h"

using namespace editd::test;

namespace {

json fs_capabilities(bool read = true, bool write = true) {
  return {{"protocolVersion", 1},
          {"clientCapabilities", {{"fs", {{"readTextFile", read}, {"writeTextFile", write}}}}},
          {"clientInfo", {{"name", "fake-editor"}}}};
}

class Editor {
 public:
  explicit Editor(Process& p) : p_(p) {}

  std::map<std::string, std::string> files;  // absolute path -> buffer text
  std::vector<json> fs_requests;             // {method, params}
  std::vector<json> permissions;             // session/request_permission params
  std::vector<json> updates;                 // session/update params
  std::set<std::string> failing;             // paths answered with a client error
  std::set<std::string> silent;              // paths never answered
  std::vector<json> unanswered;              // requests for silent paths
  // The answer to session/request_permission: an outcome object.
  std::function<json(const json&)> decide = [](const json&) {
    return json{{"outcome", "selected"}, {"optionId", "allow_once"}};
  };

  json request(const std::string& method, json params) {
    json id = next_id_++;
    send_request(id, method, std::move(params));
    return response_to(id);
  }
  void send_request(const json& id, const std::string& method, json params) {
    p_.send(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  }
  // Serves editd's requests until the response to `id` arrives.
  json response_to(const json& id) {
    if (auto early = early_.find(id.dump()); early != early_.end()) {
      json m = std::move(early->second);
      early_.erase(early);
      return m;
    }
    while (true) {
      json m = p_.read_message();
      if (!m.contains("method") && m["id"] == id) return m;
      handle(m);
    }
  }
  // Serves editd's requests until one of `method` arrives, which is returned unanswered.
  json next_request(const std::string& method) {
    while (true) {
      json m = p_.read_message();
      if (m.value("method", "") == method && m.contains("id")) return m;
      handle(m);
    }
  }
  void answer(const json& request) { p_.send(reply(request)); }

  json ok(const std::string& method, json params) {
    json r = request(method, std::move(params));
    REQUIRE_MESSAGE(r.contains("result"), method << " failed: " << r.dump());
    return r["result"];
  }
  json fails(const std::string& method, json params) {
    json r = request(method, std::move(params));
    REQUIRE_MESSAGE(r.contains("error"), method << " succeeded: " << r.dump());
    return r["error"];
  }

 private:
  void handle(const json& m) {
    if (!m.contains("method")) {
      // Requests in flight together may be answered in any order: the
      // response to another request waits for its turn.
      if (m.contains("id") && !m["id"].is_null() && !early_.count(m["id"].dump())) {
        early_.emplace(m["id"].dump(), m);
        return;
      }
      FAIL("unexpected response " << m.dump().substr(0, 400));
      return;
    }
    if (!m.contains("id")) {
      if (m["method"] == "session/update") updates.push_back(m["params"]);
      return;
    }
    const std::string path = m["params"].value("path", "");
    if (m["method"] == "fs/read_text_file" || m["method"] == "fs/write_text_file")
      fs_requests.push_back({{"method", m["method"]}, {"params", m["params"]}});
    if (silent.count(path)) {
      unanswered.push_back(m);
      return;
    }
    p_.send(reply(m));
  }

  json reply(const json& m) {
    json base = {{"jsonrpc", "2.0"}, {"id", m["id"]}};
    const json& params = m["params"];
    const std::string method = m["method"];
    if (method == "session/request_permission") {
      permissions.push_back(params);
      base["result"] = {{"outcome", decide(params)}};
      return base;
    }
    CHECK_MESSAGE(params.contains("sessionId"), m.dump());
    const std::string path = params.value("path", "");
    CHECK_MESSAGE(path.starts_with("/"), "paths sent to the client are absolute: " << path);
    if (failing.count(path)) {
      base["error"] = {
          {"code", -32603}, {"message", "buffer is read-only"}, {"data", {{"buffer", 7}}}};
      return base;
    }
    if (method == "fs/read_text_file") {
      CHECK_FALSE(params.contains("line"));
      CHECK_FALSE(params.contains("limit"));
      auto it = files.find(path);
      if (it == files.end())
        base["error"] = {{"code", -32002}, {"message", "Resource not found: " + path}};
      else
        base["result"] = {{"content", it->second}};
      return base;
    }
    if (method == "fs/write_text_file") {
      files[path] = params["content"].get<std::string>();
      base["result"] = nullptr;
      return base;
    }
    base["error"] = {{"code", -32601}, {"message", "Method not found"}};
    return base;
  }

  Process& p_;
  std::map<std::string, json> early_;  // responses that came before their turn, by id
  std::int64_t next_id_ = 1;
};

}  // namespace

TEST_CASE(
    "a client that offers fs gets the delegated backend and edits land in its buffers, not on "
    "disk") {
  TempDir root;
  auto p = spawn_editd(root);
  Editor ed(p);
  json init = ed.ok("initialize", fs_capabilities());
  CHECK(init["agentCapabilities"]["_meta"]["editd"]["backend"] == "delegated");
  const std::string a = root.str() + "/src/a.txt";

  json w = ed.ok("write_text", {{"path", "src/a.txt"}, {"content", "one\r\ntwo\r\n"}});
  CHECK(w["created"] == true);
  CHECK(ed.files[a] == "one\r\ntwo\r\n");
  json r = ed.ok("read_text", {{"path", a}, {"line", 2}});
  CHECK(r["content"] == "two\r\n");
  CHECK(r["fingerprint"] == w["fingerprint"]);

  // Unsaved buffer changes are what editd sees.
  ed.files[a] = "one\r\nTWO\r\n";
  json s = ed.ok("str_replace",
                 {{"path", "src/a.txt"}, {"oldText", "TWO\n"}, {"newText", "2\nthree\n"}});
  CHECK(ed.files[a] == "one\r\n2\r\nthree\r\n");
  ed.ok("insert", {{"path", "src/a.txt"}, {"line", 0}, {"text", "zero"}});
  CHECK(ed.files[a] == "zero\r\none\r\n2\r\nthree\r\n");

  CHECK(ed.fails("create", {{"path", "src/a.txt"}, {"content", "x"}})["data"]["kind"] == "exists");
  ed.ok("create", {{"path", "new/dir/b.md"}, {"content", "# b\n"}});
  CHECK(ed.files[root.str() + "/new/dir/b.md"] == "# b\n");
  CHECK(ed.ok("fingerprint", {{"path", "new/dir/b.md"}})["size"] == 4);
  CHECK(ed.fails("read_text", {{"path", "missing.txt"}})["data"]["kind"] == "not_found");
  CHECK(ed.fails("read_text", {{"path", "../x"}})["data"]["kind"] == "outside_root");

  // Conflicts work on the client's text.
  json e = ed.fails(
      "write_text",
      {{"path", "src/a.txt"}, {"content", "x"}, {"expectedFingerprint", w["fingerprint"]}});
  CHECK(e["data"]["kind"] == "conflict");
  CHECK(ed.files[a] == "zero\r\none\r\n2\r\nthree\r\n");

  CHECK(root.files().empty());
}

TEST_CASE(
    "without both fs capabilities, or with --backend local, a client gets the local backend") {
  TempDir root;
  {
    auto p = spawn_editd(root);
    CHECK(p.ok("initialize",
               fs_capabilities(true, false))["agentCapabilities"]["_meta"]["editd"]["backend"] ==
          "local");
    p.ok("write_text", {{"path", "a.txt"}, {"content", "disk\n"}});
    CHECK(root.read("a.txt") == "disk\n");
  }
  {
    auto p = spawn_editd(root, {"--backend", "local"});
    CHECK(p.ok("initialize", fs_capabilities())["agentCapabilities"]["_meta"]["editd"]["backend"] ==
          "local");
    CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "disk\n");
  }
  {
    auto p = spawn_editd(root, {"--backend", "delegated"});
    CHECK(p.ok("initialize", fs_capabilities())["agentCapabilities"]["_meta"]["editd"]["backend"] ==
          "delegated");
  }
}

TEST_CASE("session/new gives the session id that requests to the client carry") {
  TempDir root;
  auto p = spawn_editd(root);
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  // Before any session, editd uses an id of its own.
  ed.ok("write_text", {{"path", "a.txt"}, {"content", "a\n"}});
  const std::string own = ed.fs_requests.back()["params"]["sessionId"];
  CHECK_FALSE(own.empty());

  CHECK(ed.fails("session/new", {{"cwd", "/"}, {"mcpServers", json::array()}})["data"]["kind"] ==
        "outside_root");
  CHECK(ed.fails("session/new", {{"cwd", "rel"}, {"mcpServers", json::array()}})["data"]["param"] ==
        "cwd");
  std::string s1 =
      ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}})["sessionId"];
  std::string s2 = ed.ok(
      "session/new", {{"cwd", root.str() + "/sub"}, {"mcpServers", json::array()}})["sessionId"];
  CHECK(s1 != s2);
  CHECK(s1 != own);
  ed.ok("read_text", {{"path", "a.txt"}});
  CHECK(ed.fs_requests.back()["params"]["sessionId"] == s2);  // the latest
  ed.ok("read_text", {{"path", "a.txt"}, {"sessionId", s1}});
  CHECK(ed.fs_requests.back()["params"]["sessionId"] == s1);
  json e = ed.fails("read_text", {{"path", "a.txt"}, {"sessionId", "nope"}});
  CHECK(e["data"]["kind"] == "not_found");
  CHECK(e["data"]["sessionId"] == "nope");
}

TEST_CASE(
    "client errors are delegate_failed with the client's message, -32002 is not_found, silence is "
    "timeout") {
  TempDir root;
  auto p = spawn_editd(root, {"--delegate-timeout", "0.3"});
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  const std::string a = root.str() + "/a.txt", b = root.str() + "/b.txt";
  ed.files[a] = "a\n";
  ed.files[b] = "b\n";
  ed.failing.insert(a);
  json e = ed.fails("str_replace", {{"path", "a.txt"}, {"oldText", "a"}, {"newText", "x"}});
  CHECK(e["code"] == -32052);
  CHECK(e["data"]["kind"] == "delegate_failed");
  CHECK(e["data"]["clientError"]["message"] == "buffer is read-only");
  CHECK(e["data"]["clientError"]["code"] == -32603);
  CHECK(e["data"]["clientError"]["data"]["buffer"] == 7);
  CHECK(e["message"].get<std::string>().find("buffer is read-only") != std::string::npos);
  CHECK(ed.files[a] == "a\n");

  ed.silent.insert(b);
  json t = ed.fails("write_text", {{"path", "b.txt"}, {"content", "x\n"}});
  CHECK(t["code"] == -32051);
  CHECK(t["data"]["kind"] == "timeout");
  CHECK(ed.files[b] == "b\n");
  // The connection goes on; a late answer is ignored.
  ed.silent.clear();
  REQUIRE(ed.unanswered.size() == 1);
  ed.answer(ed.unanswered[0]);
  CHECK(ed.ok("read_text", {{"path", "b.txt"}})["content"] == "b\n");
}

TEST_CASE("editd keeps reading while it waits for the client, even with every slot taken") {
  TempDir root;
  auto p = spawn_editd(root, {"--max-inflight", "1"});
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  const std::string a = root.str() + "/a.txt";
  ed.files[a] = "1\n";
  // Request 10 waits for fs/read_text_file; request 11 is read meanwhile and
  // must wait for the slot, yet the answer behind it must still be read.
  ed.send_request(10, "str_replace", {{"path", "a.txt"}, {"oldText", "1"}, {"newText", "2"}});
  json read = ed.next_request("fs/read_text_file");
  ed.send_request(11, "read_text", {{"path", "a.txt"}});
  ed.answer(read);
  CHECK(ed.response_to(10).contains("result"));
  json r = ed.response_to(11);
  CHECK(r["result"]["content"] == "2\n");
}

TEST_CASE("a full message budget never holds back the client's answers that requests wait for") {
  TempDir root;
  // Each long message below takes the whole budget: a reader that waited for
  // room before reading the answer to fs/read_text_file would wait forever.
  auto p = spawn_editd(root, {"--max-message-bytes-in-flight", "1048576"});
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  const std::string big(600 * 1024, 'x');
  ed.files[root.str() + "/a.txt"] = big + "\n";
  ed.files[root.str() + "/b.txt"] = big + "\n";
  // Both sent at once: the second is read while the first holds the budget,
  // and the answers to the first's calls (600 KiB lines) come after it.
  ed.send_request(30, "write_text", {{"path", "a.txt"}, {"content", big + "a\n"}});
  ed.send_request(31, "write_text", {{"path", "b.txt"}, {"content", big + "b\n"}});
  CHECK(ed.response_to(30).contains("result"));
  CHECK(ed.response_to(31).contains("result"));
  CHECK(ed.files[root.str() + "/a.txt"] == big + "a\n");
  CHECK(ed.files[root.str() + "/b.txt"] == big + "b\n");
}

TEST_CASE("requests to the client interleave with the client's own requests") {
  TempDir root;
  auto p = spawn_editd(root);
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  ed.files[root.str() + "/a.txt"] = "a\n";
  ed.files[root.str() + "/b.txt"] = "b\n";
  ed.send_request(20, "read_text", {{"path", "a.txt"}});
  json first = ed.next_request("fs/read_text_file");
  ed.send_request(21, "read_text", {{"path", "b.txt"}});
  json second = ed.next_request("fs/read_text_file");
  ed.answer(second);
  CHECK(ed.response_to(21)["result"]["content"] == "b\n");
  ed.answer(first);
  CHECK(ed.response_to(20)["result"]["content"] == "a\n");
}

TEST_CASE(
    "with --approve ask the client is asked with the whole-file diff, and a refusal writes "
    "nothing") {
  TempDir root;
  auto p = spawn_editd(root, {"--approve", "ask"});
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  std::string sid =
      ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}})["sessionId"];
  const std::string a = root.str() + "/a.txt";
  ed.files[a] = "\xEF\xBB\xBFold\n";

  ed.ok("str_replace", {{"path", "a.txt"}, {"oldText", "old"}, {"newText", "new"}});
  REQUIRE(ed.permissions.size() == 1);
  json asked = ed.permissions[0];
  CHECK(asked["sessionId"] == sid);
  CHECK(asked["toolCall"]["content"][0] ==
        json({{"type", "diff"}, {"path", a}, {"oldText", "old\n"}, {"newText", "new\n"}}));
  std::vector<std::string> kinds;
  for (auto& o : asked["options"]) kinds.push_back(o["kind"]);
  CHECK(kinds == std::vector<std::string>{"allow_once", "allow_always", "reject_once"});
  CHECK(ed.files[a] == "\xEF\xBB\xBFnew\n");

  ed.decide = [](const json&) {
    return json{{"outcome", "selected"}, {"optionId", "reject_once"}};
  };
  json e = ed.fails("write_text", {{"path", "a.txt"}, {"content", "no\n"}});
  CHECK(e["data"]["kind"] == "denied");
  CHECK(ed.files[a] == "\xEF\xBB\xBFnew\n");

  ed.decide = [](const json&) { return json{{"outcome", "cancelled"}}; };
  CHECK(ed.fails("create", {{"path", "c.txt"}, {"content", "c\n"}})["data"]["outcome"] ==
        "cancelled");
  CHECK(ed.files.count(root.str() + "/c.txt") == 0);

  // A dry run asks nothing.
  ed.ok("write_text", {{"path", "a.txt"}, {"content", "dry\n"}, {"dryRun", true}});
  CHECK(ed.permissions.size() == 3);

  ed.decide = [](const json&) {
    return json{{"outcome", "selected"}, {"optionId", "allow_always"}};
  };
  ed.ok("write_text", {{"path", "a.txt"}, {"content", "1\n"}});
  ed.decide = [](const json&) {
    return json{{"outcome", "selected"}, {"optionId", "reject_once"}};
  };
  ed.ok("write_text", {{"path", "a.txt"}, {"content", "2\n"}});
  CHECK(ed.permissions.size() == 4);
  CHECK(ed.files[a] ==
        "\xEF\xBB\xBF"
        "2\n");
  // allow_always lasts for its session only.
  ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}});
  CHECK(ed.fails("write_text", {{"path", "a.txt"}, {"content", "3\n"}})["data"]["kind"] ==
        "denied");
  CHECK(ed.permissions.size() == 5);
  CHECK(root.files().empty());
}

TEST_CASE(
    "with a session each mutation is announced: tool_call pending, then completed or failed") {
  TempDir root;
  auto p = spawn_editd(root);
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  ed.ok("write_text", {{"path", "a.txt"}, {"content", "a\nb\n"}});
  CHECK(ed.updates.empty());  // no session, no announcements
  std::string sid =
      ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}})["sessionId"];
  const std::string a = root.str() + "/a.txt";

  ed.ok("str_replace", {{"path", "a.txt"}, {"oldText", "b"}, {"newText", "B"}});
  REQUIRE(ed.updates.size() == 2);
  json start = ed.updates[0], done = ed.updates[1];
  CHECK(start["sessionId"] == sid);
  CHECK(start["update"]["sessionUpdate"] == "tool_call");
  CHECK(start["update"]["kind"] == "edit");
  CHECK(start["update"]["status"] == "pending");
  CHECK(start["update"]["locations"] == json::array({{{"path", a}}}));
  CHECK(done["update"]["sessionUpdate"] == "tool_call_update");
  CHECK(done["update"]["toolCallId"] == start["update"]["toolCallId"]);
  CHECK(done["update"]["status"] == "completed");
  CHECK(
      done["update"]["content"] ==
      json::array({{{"type", "diff"}, {"path", a}, {"oldText", "a\nb\n"}, {"newText", "a\nB\n"}}}));
  CHECK(done["update"]["locations"] == json::array({{{"path", a}, {"line", 2}}}));

  ed.updates.clear();
  ed.fails("str_replace", {{"path", "a.txt"}, {"oldText", "zzz"}, {"newText", "y"}});
  REQUIRE(ed.updates.size() == 2);
  CHECK(ed.updates[1]["update"]["status"] == "failed");
  CHECK(ed.updates[1]["update"]["rawOutput"]["error"]["data"]["kind"] == "no_match");

  ed.updates.clear();
  CHECK(ed.fails("write_text", {{"path", ""}, {"content", "x"}})["data"]["kind"] ==
        "invalid_params");
  REQUIRE(ed.updates.size() == 2);
  CHECK(ed.updates[1]["update"]["status"] == "failed");

  ed.updates.clear();
  ed.ok("create", {{"path", "n.txt"}, {"content", "n\n"}});
  REQUIRE(ed.updates.size() == 2);
  CHECK_FALSE(ed.updates[1]["update"]["content"][0].contains("oldText"));

  // apply_patch too, with the whole texts (which its batch must not take away).
  ed.updates.clear();
  ed.ok("apply_patch",
        {{"patch", "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n"}});
  REQUIRE(ed.updates.size() == 2);
  CHECK(
      ed.updates[1]["update"]["content"] ==
      json::array({{{"type", "diff"}, {"path", a}, {"oldText", "a\nB\n"}, {"newText", "A\nB\n"}}}));
  ed.updates.clear();
  ed.ok("read_text", {{"path", "a.txt"}});
  ed.ok("write_text", {{"path", "a.txt"}, {"content", "x\n"}, {"dryRun", true}});
  CHECK(ed.updates.empty());  // reads and dry runs are not announced
  ed.ok("anthropic_text_editor", {{"command", "view"}, {"path", "a.txt"}});
  CHECK(ed.updates.empty());  // the text editor's view is a read

  // A provider's tool reports its failures in its result: announced as failed.
  json out =
      ed.ok("openai_apply_patch",
            {{"operation",
              {{"type", "update_file"}, {"path", "a.txt"}, {"diff", "@@\n-no such line\n+y\n"}}}});
  REQUIRE(out["status"] == "failed");
  REQUIRE(ed.updates.size() == 2);
  CHECK(ed.updates[1]["update"]["status"] == "failed");
  CHECK(ed.updates[1]["update"]["rawOutput"] == out);
  CHECK(ed.updates[1]["update"]["content"][0]["content"]["text"] == out["output"]);
  ed.updates.clear();
  out = ed.ok("anthropic_text_editor", {{"command", "str_replace"},
                                        {"path", "a.txt"},
                                        {"old_str", "no such line"},
                                        {"new_str", "y"}});
  REQUIRE(out["is_error"] == true);
  REQUIRE(ed.updates.size() == 2);
  CHECK(ed.updates[1]["update"]["status"] == "failed");
  CHECK(ed.updates[1]["update"]["content"][0]["content"]["text"] == out["content"]);
  ed.updates.clear();
  out = ed.ok("anthropic_text_editor",
              {{"command", "str_replace"}, {"path", "a.txt"}, {"old_str", "A"}, {"new_str", "y"}});
  CHECK_FALSE(out.contains("is_error"));
  REQUIRE(ed.updates.size() == 2);
  CHECK(ed.updates[1]["update"]["status"] == "completed");
}

TEST_CASE("editd ends promptly when the client goes away while editd waits for its answer") {
  TempDir root;
  auto p = spawn_editd(root, {"--delegate-timeout", "600"});
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  ed.send_request(30, "read_text", {{"path", "a.txt"}});
  ed.next_request("fs/read_text_file");
  p.close_stdin();
  json r = p.response_to(30);
  CHECK(r["error"]["data"]["kind"] == "delegate_failed");
  CHECK(p.wait() == 0);
}

TEST_CASE("hashline reads and edit_lines work on the client's buffers and are announced") {
  TempDir root;
  auto p = spawn_editd(root);
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  std::string session =
      ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}})["sessionId"];
  const std::string a = root.str() + "/a.txt";
  ed.files[a] = "one\r\ntwo\r\nthree\r\n";
  json view = ed.ok("read_text", {{"path", "a.txt"}, {"format", "hashline"}});
  CHECK(view["format"] == "hashline");
  std::string c = view["content"];
  std::string two = c.substr(c.find("\n") + 1);
  two = two.substr(0, two.find('|'));
  // The buffer moves under the model: a line above is added (unsaved).
  ed.files[a] = "zero\r\none\r\ntwo\r\nthree\r\n";
  json r = ed.ok("edit_lines",
                 {{"path", "a.txt"}, {"edits", {{{"replace", {{"start", two}}}, {"newText", "2"}}}}});
  CHECK(r["rebased"][0]["line"] == 3);
  CHECK(ed.files[a] == "zero\r\none\r\n2\r\nthree\r\n");
  REQUIRE(ed.updates.size() >= 2);
  CHECK(ed.updates[ed.updates.size() - 2]["update"]["title"] == "edit_lines a.txt");
  CHECK(ed.updates.back()["update"]["status"] == "completed");
  CHECK(ed.updates.back()["sessionId"] == session);
  CHECK(root.files().empty());
}

TEST_CASE("undo on a delegated connection goes through the client") {
  TempDir root;
  auto p = spawn_editd(root);
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  const std::string a = root.str() + "/a.txt";
  ed.files[a] = "one\r\ntwo\r\n";
  json r = ed.ok("str_replace", {{"path", "a.txt"}, {"oldText", "two"}, {"newText", "2"}});
  CHECK(ed.files[a] == "one\r\n2\r\n");
  json u = ed.ok("undo", {{"undoId", r["undoId"]}});
  CHECK(ed.files[a] == "one\r\ntwo\r\n");
  CHECK(u["files"][0]["action"] == "update");
  // A buffer edited since: refused, nothing written.
  json again = ed.ok("undo", {{"undoId", u["undoId"]}});
  CHECK(ed.files[a] == "one\r\n2\r\n");
  ed.files[a] = "one\r\n2\r\nunsaved\r\n";
  CHECK(ed.fails("undo", {{"undoId", r["undoId"]}})["data"]["kind"] == "conflict");
  CHECK(ed.files[a] == "one\r\n2\r\nunsaved\r\n");
  // ACP cannot delete a file: the undo of a create is refused.
  json c = ed.ok("create", {{"path", "new.txt"}, {"content", "n\n"}});
  json e = ed.fails("undo", {{"undoId", c["undoId"]}});
  CHECK(e["data"]["kind"] == "denied");
  CHECK(e["data"]["reason"] == "unsupported");
  CHECK(ed.files[root.str() + "/new.txt"] == "n\n");
  // In a session the edit is made whole (to announce it); the history keeps
  // the span that changed, and the undo rebuilds the buffer from it exactly.
  ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}});
  const std::string b = root.str() + "/b.txt";
  std::string lines;
  for (int i = 0; i < 300; ++i) lines += "line " + std::to_string(i) + (i % 2 ? "\r\n" : "\n");
  ed.files[b] = lines;
  json big = ed.ok("str_replace", {{"path", "b.txt"}, {"oldText", "line 150"}, {"newText", "L"}});
  CHECK(ed.files[b] != lines);
  ed.ok("undo", {{"undoId", big["undoId"]}});
  CHECK(ed.files[b] == lines);
  CHECK(root.files().empty());
  (void)again;
}

TEST_CASE(
    "a git mode change through an ACP client's files is reported skipped, the content written") {
  TempDir root;
  auto p = spawn_editd(root);
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  const std::string a = root.str() + "/run.sh";
  ed.files[a] = "echo\n";
  json r = ed.ok("apply_patch", {{"patch",
                                  "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
                                  "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo\n+echo hi\n"}});
  REQUIRE(r["files"].size() == 1);
  CHECK(r["files"][0]["executable"] == true);
  CHECK(r["files"][0]["modeSkipped"] == true);
  CHECK(ed.files[a] == "echo hi\n");
}

TEST_CASE("a local ACP session hears of a change made outside, and its edits are on record as its") {
  TempDir root;
  root.write("a.txt", "one\ntwo\n");
  auto p = spawn_editd(root);
  Editor ed(p);
  ed.ok("initialize", fs_capabilities(false, false));  // files on the local disk
  std::string sid =
      ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}})["sessionId"];
  ed.ok("read_text", {{"path", "a.txt"}});
  root.write("a.txt", "one\nTWO\n");
  ed.updates.clear();
  json r = ed.ok("fingerprint", {{"path", "a.txt"}});
  CHECK(r.contains("outsideChanges"));
  REQUIRE(ed.updates.size() == 1);
  const json& u = ed.updates[0];
  CHECK(u["sessionId"] == sid);
  CHECK(u["update"]["sessionUpdate"] == "tool_call");
  CHECK(u["update"]["status"] == "completed");
  CHECK(u["update"]["title"] == "Changed outside this session: a.txt");

  ed.ok("str_replace", {{"path", "a.txt"}, {"oldText", "TWO"}, {"newText", "2"}});
  json listed = ed.ok("changes", {{"limit", 2}});
  REQUIRE(listed["changes"].size() == 2);
  CHECK(listed["changes"][0]["door"] == "acp");
  CHECK(listed["changes"][0]["session"] == sid);
  CHECK(listed["changes"][0]["client"]["name"] == "fake-editor");
  CHECK(listed["changes"][1]["origin"] == "outside");
}

TEST_CASE("with --approve ask, str_replace's edits are one approval of the whole change") {
  TempDir root;
  auto p = spawn_editd(root, {"--approve", "ask"});
  Editor ed(p);
  ed.ok("initialize", fs_capabilities());
  ed.ok("session/new", {{"cwd", root.str()}, {"mcpServers", json::array()}});
  const std::string a = root.str() + "/a.txt";
  ed.files[a] = "one\ntwo\nthree\nfour\n";
  const json edits = {{{"oldText", "one"}, {"newText", "1"}},
                      {{"oldText", "four"}, {"newText", "4"}}};
  ed.decide = [](const json&) {
    return json{{"outcome", "selected"}, {"optionId", "reject_once"}};
  };
  CHECK(ed.fails("str_replace", {{"path", "a.txt"}, {"edits", edits}})["data"]["kind"] ==
        "denied");
  REQUIRE(ed.permissions.size() == 1);
  CHECK(ed.files[a] == "one\ntwo\nthree\nfour\n");
  ed.decide = [](const json&) {
    return json{{"outcome", "selected"}, {"optionId", "allow_once"}};
  };
  ed.ok("str_replace", {{"path", "a.txt"}, {"edits", edits}});
  REQUIRE(ed.permissions.size() == 2);
  CHECK(ed.permissions[1]["toolCall"]["content"][0] ==
        json({{"type", "diff"},
              {"path", a},
              {"oldText", "one\ntwo\nthree\nfour\n"},
              {"newText", "1\ntwo\nthree\n4\n"}}));
  CHECK(ed.files[a] == "1\ntwo\nthree\n4\n");
}
