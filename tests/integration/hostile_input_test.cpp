// Hostile input through the real binary: lines that once killed a connection
// or the process (found by fuzzing), each followed by an ordinary request that
// must still be answered. Every line gets its answer or its documented error.
#include <doctest/doctest.h>

#include "helpers/socket_client.h"

using namespace editd::test;
using namespace std::string_literals;

namespace {

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A JSON string literal of `s` (NUL and all).
std::string quoted(const std::string& s) { return json(s).dump(); }

// Initializes `p` (--backend delegated) as a client that offers fs.
void initialize_with_fs(Process& p) {
  p.ok("initialize",
       {{"protocolVersion", 1},
        {"clientCapabilities", {{"fs", {{"readTextFile", true}, {"writeTextFile", true}}}}}});
}

void check_alive(Process& p, const TempDir& root) {
  root.write("alive.txt", "still here\n");
  CHECK(p.ok("read_text", {{"path", "alive.txt"}})["content"] == "still here\n");
}

}  // namespace

TEST_CASE("a number beyond a double anywhere in a line is a parse error; the connection goes on") {
  TempDir root;
  auto p = spawn_editd(root);
  for (
      const std::string& line :
      {R"({"jsonrpc":"2.0","id":1e400,"method":"read_text","params":{"path":"a"}})"s,
       R"({"jsonrpc":"2.0","id":2,"method":"read_text","params":{"path":"a","x":-)" +
           std::string(310, '9') + "}}",
       R"({"jsonrpc":"2.0","id":3,"method":"insert","params":{"path":"a","line":1e99999,"text":"x"}})"s}) {
    p.write_raw(line + "\n");
    json m = p.read_message();
    CHECK(m["id"].is_null());
    CHECK(m["error"]["code"] == -32700);
    CHECK(m["error"]["data"]["detail"].get<std::string>().find("number overflow") !=
          std::string::npos);
  }
  check_alive(p, root);
}

TEST_CASE("on stdio a hostile last line is answered before the process exits") {
  TempDir root;
  auto p = spawn_editd(root);
  p.write_raw(R"({"jsonrpc":"2.0","id":1e400,"method":"read_text"})"s + "\n" +
              R"({"jsonrpc":"2.0","id":7,"result":)" + nested(140000) + "}\n" +
              R"({"jsonrpc":"2.0","id":8,"method":"read_text","params":{"path":"x"}})" + "\n");
  p.close_stdin();
  CHECK(p.read_message()["error"]["code"] == -32700);
  // The deep response answers no call of ours: it is dropped, the request after it is answered.
  json m = p.read_message();
  CHECK(m["id"] == 8);
  CHECK(m["error"]["data"]["kind"] == "not_found");
  CHECK(p.wait() == 0);
}

TEST_CASE("nesting past the limit is invalid_request with the id; the process survives") {
  TempDir root;
  auto p = spawn_editd(root);
  const std::string deep = nested(140000);
  for (
      const std::string& line :
      {R"({"jsonrpc":"2.0","id":11,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"x":)" +
           deep + "}}}",
       R"({"jsonrpc":"2.0","id":12,"method":"read_text","params":{"path":)" + deep + "}}",
       R"({"jsonrpc":"2.0","id":13,"method":"x","params":{},"extra":)" + deep + "}"}) {
    p.write_raw(line + "\n");
    json m = p.read_message();
    CHECK(m["error"]["code"] == -32600);
    CHECK(m["error"]["data"]["limit"] == 128);
    CHECK(m["error"]["message"].get<std::string>().find("128") != std::string::npos);
    CHECK(m["id"].is_number_integer());
  }
  // A cancel notification whose requestId is deep, then a bare deep array.
  p.write_raw(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":)" + deep +
              "}}\n");
  CHECK(p.read_message()["id"].is_null());
  p.write_raw(std::string(140000, '[') + "\n");
  CHECK(p.read_message()["error"]["code"] == -32700);
  check_alive(p, root);
}

TEST_CASE("an unauthenticated TCP client sending deep nesting gets an error and the server lives") {
  TempDir root;
  root.write("a.txt", "x\n");
  TempDir secrets;
  secrets.write("token", "tok\n");
  Process p(EDITD_BINARY, {"--root", root.str(), "--listen", "tcp:127.0.0.1:0", "--token-file",
                           (secrets.path() / "token").string()});
  int port = logged_port(p);
  REQUIRE(port > 0);
  auto hostile = SocketClient::tcp(port);
  REQUIRE(hostile);
  // Deep, yet within the 64 KiB a line may have before authentication.
  REQUIRE(hostile->send_raw(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)" +
                            nested(30000) + "}\n"));
  auto line = hostile->read_line();
  REQUIRE(line);
  json m = json::parse(*line);
  CHECK(m["id"] == 1);
  CHECK(m["error"]["code"] == -32600);
  REQUIRE(
      hostile->send_raw(R"({"jsonrpc":"2.0","id":2,"method":"x","params":{"n":1e400}})"s + "\n"));
  line = hostile->read_line();
  REQUIRE(line);
  CHECK(json::parse(*line)["error"]["code"] == -32700);
  // The same connection can still authenticate, and others are served.
  CHECK((*hostile->call("initialize", {{"protocolVersion", 1}, {"authToken", "tok"}}))
            .contains("result"));
  auto other = SocketClient::tcp(port);
  REQUIRE(other);
  CHECK((*other->call("initialize", {{"protocolVersion", 1}, {"authToken", "tok"}}))
            .contains("result"));
  CHECK((*other->call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "x\n");
}

TEST_CASE("a client's error with a non-integer code fails only the call that waited for it") {
  TempDir root;
  auto p = spawn_editd(root, {"--backend", "delegated"});
  initialize_with_fs(p);
  std::int64_t id = 100;
  for (const char* code : {R"("boom")", "1.5", "1e300", "null", "{}"}) {
    p.send(
        {{"jsonrpc", "2.0"}, {"id", id}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}});
    json call = p.read_message();
    REQUIRE(call["method"] == "fs/read_text_file");
    p.write_raw(R"({"jsonrpc":"2.0","id":)" + call["id"].dump() + R"(,"error":{"code":)" + code +
                R"(,"message":"client broke"}})" + "\n");
    json r = p.response_to(id++);
    CHECK_MESSAGE(r["error"]["data"]["kind"] == "delegate_failed", code);
    CHECK(r["error"]["data"]["clientError"]["code"] == json::parse(code));
  }
  // A deep answer fails its call too; then an ordinary exchange works.
  p.send(
      {{"jsonrpc", "2.0"}, {"id", id}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}});
  json call = p.read_message();
  p.write_raw(R"({"jsonrpc":"2.0","id":)" + call["id"].dump() + R"(,"result":{"content":)" +
              nested(140000) + "}}\n");
  CHECK(p.response_to(id++)["error"]["data"]["kind"] == "delegate_failed");
  p.send(
      {{"jsonrpc", "2.0"}, {"id", id}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}});
  call = p.read_message();
  p.send({{"jsonrpc", "2.0"}, {"id", call["id"]}, {"result", {{"content", "ok\n"}}}});
  CHECK(p.response_to(id)["result"]["content"] == "ok\n");
}

TEST_CASE("a client's answer with neither result nor error, or without jsonrpc, fails its call") {
  TempDir root;
  auto p = spawn_editd(root, {"--backend", "delegated"});
  initialize_with_fs(p);
  std::int64_t id = 100;
  for (const std::string& answer :
       {R"({"jsonrpc":"2.0","id":ID})"s, R"({"id":ID,"result":{"content":"x\n"}})"s,
        R"({"jsonrpc":"1.0","id":ID,"result":{"content":"x\n"}})"s}) {
    CAPTURE(answer);
    p.send(
        {{"jsonrpc", "2.0"}, {"id", id}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}});
    json call = p.read_message();
    REQUIRE(call["method"] == "fs/read_text_file");
    std::string line = answer;
    line.replace(line.find("ID"), 2, call["id"].dump());
    p.write_raw(line + "\n");
    json r = p.response_to(id++);
    CHECK(r["error"]["data"]["kind"] == "delegate_failed");
    CHECK(r["error"]["message"].get<std::string>().find("not a JSON-RPC response") !=
          std::string::npos);
  }
  // The malformed answers were not answered as requests.
  CHECK(p.other.empty());
}

TEST_CASE("integer params far out of range are invalid_params naming the param") {
  TempDir root;
  root.write("a.txt", "one\ntwo\n");
  auto p = spawn_editd(root);
  for (const char* v : {"1e300", "-1e300", "1e19", "18446744073709551616", "9223372036854775808"}) {
    p.write_raw(
        R"({"jsonrpc":"2.0","id":1,"method":"read_text","params":{"path":"a.txt","line":)"s + v +
        "}}\n");
    json m = p.read_message();
    CHECK_MESSAGE(m["error"]["data"]["kind"] == "invalid_params", v);
    CHECK(m["error"]["data"]["param"] == "line");
  }
  // The largest accepted limit reads to the end.
  json r = p.ok("read_text", {{"path", "a.txt"}, {"line", 2}, {"limit", 9223372036854775807LL}});
  CHECK(r["content"] == "two\n");
  CHECK(r["lineCount"] == 1);
}

TEST_CASE("--delegate-timeout refuses values that are not a positive finite number of seconds") {
  TempDir root;
  for (const char* v : {"inf", "-inf", "nan", "1e300", "-1", "0", "1e-400x", "99999999999"}) {
    Process p(EDITD_BINARY, {"--root", root.str(), "--delegate-timeout", v});
    CHECK_MESSAGE(p.wait() == 2, v);
    CHECK(p.stderr_text().find("--delegate-timeout") != std::string::npos);
  }
  Process tiny(EDITD_BINARY, {"--root", root.str(), "--delegate-timeout", "1e-9"});
  tiny.close_stdin();
  CHECK(tiny.wait() == 0);
}

TEST_CASE("a patch that once threw is a patch_parse error, through the server and the CLI") {
  TempDir root;
  auto p = spawn_editd(root);
  for (const char* patch : {"diff --git a b\n", "diff --git a\n", "diff --git ab c\n"}) {
    json e = p.fails("apply_patch", {{"patch", patch}});
    CHECK_MESSAGE(e["data"]["kind"] == "patch_parse", patch);
  }
  check_alive(p, root);
  Process cli(EDITD_BINARY, {"apply-patch", "--root", root.str(), "diff --git a b\n"});
  CHECK(cli.wait() == 1);
  CHECK(cli.stderr_text().find("invalid patch at line") != std::string::npos);
}

TEST_CASE("a patch path with a NUL byte is refused and nothing is touched") {
  TempDir root;
  root.write("a.txt", "keep\n");
  auto p = spawn_editd(root);
  for (
      const std::string& patch :
      {"*** Begin Patch\n*** Delete File: a.txt\0zz\n*** End Patch\n"s,
       "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\0\n@@\n-keep\n+x\n*** End Patch\n"s,
       "*** Begin Patch\n*** Add File: a.txt\0.bak\n+x\n*** End Patch\n"s,
       "--- \"a/a.txt\\000zz\"\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep\n"s}) {
    json e = p.fails("apply_patch", {{"patch", patch}});
    CHECK(e["data"]["kind"] == "patch_parse");
    CHECK(e["data"].contains("line"));
    CHECK(e["message"].get<std::string>().find("NUL") != std::string::npos);
  }
  CHECK(root.files() == std::vector<std::string>{"a.txt"});
  CHECK(root.read("a.txt") == "keep\n");
}

TEST_CASE("a path over 4096 bytes is refused before it is resolved, wherever it is given") {
  // Resolving such a path took time quadratic in its length (seconds at a few
  // hundred KB, holding a file thread); no longer path names a file on Linux.
  TempDir root;
  root.write("a.txt", "keep\n");
  auto p = spawn_editd(root);
  std::string long_path;
  while (long_path.size() <= 200000) long_path += "a/";
  long_path += "a.txt";
  json e = p.fails("read_text", {{"path", long_path}});
  CHECK(e["data"]["kind"] == "invalid_params");
  CHECK(e["data"]["param"] == "path");
  CHECK(e["message"].get<std::string>().find("at most 4096 bytes") != std::string::npos);
  e = p.fails("write_text", {{"path", std::string(4097, 'x')}, {"content", "x"}});
  CHECK(e["data"]["kind"] == "invalid_params");
  for (const auto& [key, why] : {std::pair{long_path, "at most 4096 bytes"},
                                 std::pair{std::string(), "must not be empty"}}) {
    e = p.fails("apply_patch",
                {{"patch", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"},
                 {"expectedFingerprints", {{key, "xxh3:0000000000000000"}}}});
    CHECK(e["data"]["kind"] == "invalid_params");
    CHECK(e["data"]["param"] == "expectedFingerprints");
    CHECK(e["message"].get<std::string>().find(why) != std::string::npos);
  }
  e = p.fails("apply_patch",
              {{"patch", "*** Begin Patch\n*** Add File: " + long_path + "\n+x\n*** End Patch\n"}});
  CHECK(e["data"]["kind"] == "patch_parse");
  // A path of exactly 4096 bytes is judged by the file system.
  e = p.fails("read_text", {{"path", std::string(4096, 'x')}});
  CHECK(e["data"]["kind"] == "io");
  CHECK(e["data"]["errno"] == "ENAMETOOLONG");
  CHECK(root.files() == std::vector<std::string>{"a.txt"});
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "keep\n");
}

TEST_CASE("a + line with a NUL byte refuses the whole patch as not_text before any write") {
  TempDir root;
  root.write("a.txt", "one\n");
  auto p = spawn_editd(root);
  json e = p.fails("apply_patch", {{"patch",
                                    "*** Begin Patch\n*** Add File: new.txt\n+fine\n"
                                    "*** Update File: a.txt\n@@\n-one\n+o\0ne\n"
                                    "*** End Patch\n"s}});
  CHECK(e["code"] == -32033);
  CHECK(e["data"]["kind"] == "not_text");
  CHECK(e["data"]["line"] == 7);
  CHECK(e["data"]["path"] == "a.txt");
  CHECK(e["data"]["reason"] == "nul");
  CHECK(root.files() == std::vector<std::string>{"a.txt"});
  CHECK(root.read("a.txt") == "one\n");
  // What the file would have become is still editable: nothing wrote a NUL.
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "one\n");
}

TEST_CASE("a lone surrogate in a string id is refused with id null, never echoed altered") {
  TempDir root;
  auto p = spawn_editd(root);
  p.write_raw(R"({"jsonrpc":"2.0","id":"req-\ud800","method":"read_text","params":{"path":"a"}})"s +
              "\n");
  std::string line = *p.read_line();
  CHECK(line.find("\xF4\x8F\xBF\xBE") == std::string::npos);
  json m = json::parse(line);
  CHECK(m["id"].is_null());
  CHECK(m["error"]["code"] == -32600);
  CHECK(m["error"]["message"].get<std::string>().find("'id'") != std::string::npos);
  // A valid pair comes back exactly.
  p.write_raw(R"({"jsonrpc":"2.0","id":"\ud83d\ude00","method":"nope"})"s + "\n");
  CHECK(p.read_message()["id"] == "\xF0\x9F\x98\x80");
  check_alive(p, root);
}

TEST_CASE("a raw NUL byte inside a line is a parse error for that line only") {
  TempDir root;
  root.write("a.txt", "hi\n");
  auto p = spawn_editd(root);
  const std::string request =
      R"({"jsonrpc":"2.0","id":1,"method":"read_text","params":{"path":"a.txt"}})";
  p.write_raw(request + '\0' + "trailing\n" +
              R"({"jsonrpc":"2.0","id":2,"method":"read_text","params":{"path":"a.txt"}})" + "\n" +
              R"({"jsonrpc":"2.0","id":3,"method":"read_text","params":{"path":"a)" + '\0' +
              R"(.txt"}})" + "\n");
  // Errors for unreadable lines go out at once; the request's answer may come after them.
  std::vector<json> parse_errors;
  json answer;
  for (int i = 0; i < 3; ++i) {
    json m = p.read_message();
    if (m["id"].is_null())
      parse_errors.push_back(m);
    else
      answer = m;
  }
  REQUIRE(parse_errors.size() == 2);
  CHECK(parse_errors[0]["error"]["code"] == -32700);
  CHECK(parse_errors[0]["error"]["data"]["offset"] == request.size());
  CHECK(parse_errors[1]["error"]["code"] == -32700);
  CHECK(answer["id"] == 2);
  CHECK(answer["result"]["content"] == "hi\n");
  // An escaped NUL is JSON: the path param refuses it.
  p.write_raw(R"({"jsonrpc":"2.0","id":4,"method":"read_text","params":{"path":"a\u0000.txt"}})"s +
              "\n");
  json escaped = p.read_message();
  CHECK(escaped["id"] == 4);
  CHECK(escaped["error"]["data"]["param"] == "path");
}

TEST_CASE("a burst of hostile lines gets one answer per line and the connection goes on") {
  TempDir root;
  auto p = spawn_editd(root);
  const std::vector<std::string> lines = {
      R"({"jsonrpc":"2.0","id":1e400})",
      "\0"s,
      R"({"jsonrpc":"2.0","id":"\udfff"})",
      std::string(200000, '{'),
      R"({"jsonrpc":"2.0","id":5,"method":"apply_patch","params":{"patch":"diff --git a b\n"}})",
      R"({"jsonrpc":"2.0","id":6,"method":"read_text","params":{"path":"x","line":1e300}})",
      R"({"jsonrpc":"2.0","id":7,"method":"apply_patch","params":{"patch":)" +
          quoted("--- a/f\n+++ b/f\n@@ -9223372036854775807,1 +1 @@\n-a\n+b\n") + "}}",
      "\xff\xfe",
      R"({"jsonrpc":"2.0","id":9,"method":"read_text","params":{"path":"a\ud800"}})",
  };
  std::string burst;
  for (const std::string& l : lines) burst += l + "\n";
  p.write_raw(burst);
  std::size_t answers = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto line = p.read_line();
    REQUIRE_MESSAGE(line, "no answer to line " << i << "; stderr: " << p.stderr_text());
    json m = json::parse(*line);
    CHECK(m.contains("error"));
    ++answers;
  }
  CHECK(answers == lines.size());
  check_alive(p, root);
}
