// The review page's server through the real binary (`editd review`, and
// `--review` beside a server): its API over the ledger, keep across a
// restart, a revert of one hunk and a conflict shown, and every request a
// hostile page or client could make refused. The page itself, in a real
// browser: tests/clients/browser.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <regex>

#include "helpers/process.h"
#include "helpers/socket_client.h"

using namespace editd::test;

namespace {

namespace beast = boost::beast;
namespace http = beast::http;

struct Reply {
  unsigned status = 0;
  std::string body;
  http::fields headers;
  json data() const { return json::parse(body, nullptr, false); }
};

// The page's address as `editd review` printed it.
struct Page {
  std::string host;  // "127.0.0.1:PORT"
  std::string port;
  std::string token;

  static Page of(const std::string& url) {
    std::smatch m;
    const std::regex re("http://(127\\.0\\.0\\.1):([0-9]+)/\\?token=([0-9a-f]{64})");
    REQUIRE_MESSAGE(std::regex_search(url, m, re), url);
    return {m[1].str() + ":" + m[2].str(), m[2].str(), m[3].str()};
  }

  // One request on a connection of its own. `fields`: headers to set
  // (Host is the page's unless given).
  Reply send(http::verb verb, const std::string& target, const std::string& body = "",
             std::vector<std::pair<std::string, std::string>> fields = {}) const {
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    beast::tcp_stream stream(io);
    stream.connect(resolver.resolve("127.0.0.1", port));
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, host);
    for (auto& [k, v] : fields) req.set(k, v);
    req.body() = body;
    req.prepare_payload();
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    Reply r;
    r.status = res.result_int();
    r.body = res.body();
    r.headers = res.base();
    return r;
  }
  // `request` as it is, then the reply (status 0: none, the connection closed).
  Reply raw(const std::string& request) const {
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    beast::tcp_stream stream(io);
    stream.connect(resolver.resolve("127.0.0.1", port));
    boost::system::error_code ec;
    boost::asio::write(stream, boost::asio::buffer(request), ec);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res, ec);
    Reply r;
    if (!ec) {
      r.status = res.result_int();
      r.body = res.body();
    }
    return r;
  }
  Reply get(const std::string& path) const {
    const char* sep = path.find('?') == std::string::npos ? "?" : "&";
    return send(http::verb::get, path + sep + "token=" + token);
  }
  Reply post(const std::string& path, const json& body) const {
    return send(http::verb::post, path, body.dump(),
                {{"X-Editd-Token", token}, {"Content-Type", "application/json"},
                 {"Origin", "http://" + host}});
  }
};

std::string numbered(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

struct ReviewRoot {
  TempDir root;
  TempDir state;

  ReviewRoot() { root.write("a.txt", numbered(1, 20)); }

  Process serve() const {
    return spawn_editd(root, {"--state-dir", state.str()});
  }
  // `editd review` and the page it printed.
  std::pair<std::unique_ptr<Process>, Page> review(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"review", "--root", root.str(), "--state-dir", state.str()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto p = std::make_unique<Process>(EDITD_BINARY, args);
    auto line = p->read_line();
    REQUIRE_MESSAGE(line.has_value(), p->stderr_text());
    return {std::move(p), Page::of(*line)};
  }
};

// Three hunks in one change: lines 2, 10 and 18 of 20.
std::string three_hunks(Process& p) {
  json r = p.ok("write_text",
                {{"path", "a.txt"},
                 {"content", std::regex_replace(numbered(1, 20),
                                                std::regex("line (2|10|18)\n"), "LINE $1\n")}});
  return r["changeId"];
}

// A root whose a.txt an agent changed in three hunks (change `id`).
struct Changed {
  ReviewRoot f;
  Process agent = f.serve();
  std::string id;
  Changed() {
    agent.ok("initialize", {{"protocolVersion", 1}});
    id = three_hunks(agent);
  }
};

}  // namespace

TEST_CASE("review: the page and its API, with every response's security headers") {
  ReviewRoot f;
  auto p = f.serve();
  p.ok("initialize", {{"protocolVersion", 1}, {"clientInfo", {{"name", "agent-x"}, {"version", "1"}}}});
  const std::string id = three_hunks(p);
  auto [review, page] = f.review();

  Reply html = page.get("/");
  CHECK(html.status == 200);
  CHECK(html.body.find(page.token) != std::string::npos);
  CHECK(html.body.find("{{TOKEN}}") == std::string::npos);
  const std::string csp(html.headers["Content-Security-Policy"]);
  CHECK(csp.find("default-src 'none'") != std::string::npos);
  CHECK(csp.find("script-src 'self'") != std::string::npos);
  CHECK(csp.find("unsafe") == std::string::npos);
  CHECK(html.headers["X-Content-Type-Options"] == "nosniff");
  CHECK(html.headers["Referrer-Policy"] == "no-referrer");
  CHECK(page.get("/assets/app.js").status == 200);
  CHECK(page.get("/assets/nothing.js").status == 404);

  json runs = page.get("/api/runs").data();
  REQUIRE(runs["runs"].size() == 1);
  const json& run = runs["runs"][0];
  CHECK(run["client"] == "agent-x");
  CHECK(run["changes"] == 1);
  CHECK(run["hunks"] == 3);
  CHECK(run["last"] == id);

  json one = page.get("/api/run?id=" + run["id"].get<std::string>()).data();
  REQUIRE(one["entries"].size() == 1);
  const json& file = one["entries"][0]["files"][0];
  CHECK(file["path"] == "a.txt");
  REQUIRE(file["hunks"].size() == 3);
  CHECK(file["hunks"][1]["id"] == id + ":2");
  CHECK(file["hunks"][1]["oldStart"] == 10);
  CHECK(file["hunks"][1]["old"] == json::array({"line 10"}));
  CHECK(file["hunks"][1]["new"] == json::array({"LINE 10"}));
  CHECK(file["hunks"][1]["state"] == "stands");
  CHECK(page.get("/api/run?id=r999999").status == 404);
}

TEST_CASE("review: reverting one hunk of three changes exactly its lines; a conflict is refused") {
  Changed c;
  ReviewRoot& f = c.f;
  Process& p = c.agent;
  const std::string& id = c.id;
  auto [review, page] = f.review();

  Reply r = page.post("/api/revert", {{"hunks", {id + ":2"}}});
  REQUIRE_MESSAGE(r.status == 200, r.body);
  CHECK(r.data()["ok"] == true);
  CHECK(f.root.read("a.txt") ==
        std::regex_replace(numbered(1, 20), std::regex("line (2|18)\n"), "LINE $1\n"));
  // The revert is on record, by the review page, and the hunk shows as reverted.
  json runs = page.get("/api/runs").data();
  REQUIRE(runs["runs"].size() == 2);
  CHECK(runs["runs"][0]["door"] == "review");
  json first = page.get("/api/run?id=" + runs["runs"][1]["id"].get<std::string>()).data();
  CHECK(first["entries"][0]["files"][0]["hunks"][1]["state"] == "reverted");

  // Hunk 3's lines changed since: shown, not forced.
  p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "LINE 18\n"}, {"newText", "line eighteen\n"}});
  const std::string before = f.root.read("a.txt");
  Reply conflict = page.post("/api/revert", {{"hunks", {id + ":3"}}});
  CHECK(conflict.status == 409);
  json e = conflict.data()["error"];
  CHECK(e["kind"] == "conflict");
  CHECK(e["data"]["hunk"] == id + ":3");
  CHECK(e["data"]["found"][0] == "line eighteen");
  CHECK(f.root.read("a.txt") == before);
  json again = page.get("/api/run?id=" + runs["runs"][1]["id"].get<std::string>()).data();
  CHECK(again["entries"][0]["files"][0]["hunks"][2]["state"] == "touched");
}

TEST_CASE("review: keep marks a hunk reviewed, and the mark survives a restart") {
  Changed c;
  ReviewRoot& f = c.f;
  Process& p = c.agent;
  const std::string& id = c.id;
  std::string run_id;
  {
    auto [review, page] = f.review();
    Reply r = page.post("/api/keep", {{"hunks", {id + ":1"}}});
    REQUIRE_MESSAGE(r.status == 200, r.body);
    CHECK(page.post("/api/keep", {{"hunks", {id + ":9"}}}).status == 404);
    CHECK(page.post("/api/keep", {{"hunks", {"nonsense"}}}).status == 400);
    run_id = page.get("/api/runs").data()["runs"][0]["id"];
    ::kill(review->pid(), SIGTERM);
    CHECK(review->wait() == 0);
  }
  auto [review, page] = f.review();
  json runs = page.get("/api/runs").data();
  CHECK(runs["runs"][0]["kept"] == 1);
  json hunks = page.get("/api/run?id=" + run_id).data()["entries"][0]["files"][0]["hunks"];
  CHECK(hunks[0]["kept"] == true);
  CHECK(hunks[1]["kept"] == false);
  // Unmarked again.
  REQUIRE(page.post("/api/keep", {{"changes", {id}}, {"kept", false}}).status == 200);
  CHECK(page.get("/api/runs").data()["runs"][0]["kept"] == 0);
}

TEST_CASE("review: requests a hostile page or client can make are refused, and change nothing") {
  Changed c;
  ReviewRoot& f = c.f;
  Process& p = c.agent;
  const std::string& id = c.id;
  const std::string written = f.root.read("a.txt");
  auto [review, page] = f.review();
  const json body = {{"changes", {id}}};

  CHECK(page.send(http::verb::get, "/api/runs").status == 403);  // no token
  CHECK(page.send(http::verb::get, "/api/runs?token=" + std::string(64, '0')).status == 403);
  CHECK(page.send(http::verb::get, "/?token=" + page.token, "", {{"Host", "evil.example:" + page.port}})
            .status == 403);
  // The token in the URL alone is not enough for a change (a form could send it).
  CHECK(page.send(http::verb::post, "/api/revert?token=" + page.token, body.dump(),
                  {{"Content-Type", "application/json"}})
            .status == 403);
  CHECK(page.send(http::verb::post, "/api/revert", body.dump(),
                  {{"X-Editd-Token", page.token}, {"Content-Type", "application/json"},
                   {"Origin", "http://evil.example"}})
            .status == 403);
  CHECK(page.send(http::verb::post, "/api/revert", body.dump(),
                  {{"X-Editd-Token", page.token}, {"Content-Type", "application/json"},
                   {"Sec-Fetch-Site", "cross-site"}})
            .status == 403);
  CHECK(page.send(http::verb::post, "/api/revert", body.dump(),
                  {{"X-Editd-Token", page.token}, {"Content-Type", "text/plain"}})
            .status == 415);
  CHECK(page.send(http::verb::put, "/api/revert", body.dump(), {{"X-Editd-Token", page.token}})
            .status == 405);
  CHECK(page.raw("POST /api/revert HTTP/1.1\r\nHost: " + page.host + "\r\nX-Editd-Token: " +
                 page.token + "\r\nContent-Type: application/json\r\nContent-Length: " +
                 std::to_string(2 << 20) + "\r\n\r\n")
            .status == 413);
  CHECK(page.raw("GET /api/runs?token=" + page.token + " HTTP/1.1\r\nHost: " + page.host +
                 "\r\nX-Pad: " + std::string(32 << 10, 'x') + "\r\n\r\n")
            .status == 0);  // headers over 16 KiB: closed
  CHECK(page.post("/api/revert", {{"changes", "c1"}}).status == 400);
  CHECK(page.post("/api/revert", {{"changes", {id}}, {"dryRun", false}}).status == 400);
  CHECK(f.root.read("a.txt") == written);
  // The server still serves.
  CHECK(page.get("/api/info").status == 200);
}

TEST_CASE("review: --read-only shows the ledger and refuses every change") {
  Changed c;
  ReviewRoot& f = c.f;
  Process& p = c.agent;
  const std::string& id = c.id;
  const std::string written = f.root.read("a.txt");
  auto [review, page] = f.review({"--read-only"});
  CHECK(page.get("/api/info").data()["readOnly"] == true);
  CHECK(page.post("/api/revert", {{"changes", {id}}}).status == 403);
  CHECK(page.post("/api/keep", {{"changes", {id}}}).status == 403);
  CHECK(f.root.read("a.txt") == written);
}

TEST_CASE("review: --review beside a server; the live channel tells of a new change") {
  ReviewRoot f;
  Process p(EDITD_BINARY, {"--root", f.root.str(), "--state-dir", f.state.str(), "--review",
                           "127.0.0.1:0"});
  auto url = p.await_log("review page: (http://\\S+)");
  REQUIRE_MESSAGE(url.has_value(), p.stderr_text());
  Page page = Page::of(*url);
  p.ok("initialize", {{"protocolVersion", 1}});

  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  stream.connect(resolver.resolve("127.0.0.1", page.port));
  http::request<http::empty_body> req{http::verb::get, "/api/events?token=" + page.token, 11};
  req.set(http::field::host, page.host);
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response_parser<http::empty_body> head;
  http::read_header(stream, buffer, head);
  REQUIRE(head.get().result_int() == 200);
  CHECK(head.get()[http::field::content_type] == "text/event-stream");

  const std::string id = three_hunks(p);
  // Read until the change is told (each read bounded: 20 s).
  timeval bound{20, 0};
  ::setsockopt(stream.socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  std::string seen(static_cast<const char*>(buffer.data().data()), buffer.size());
  char chunk[4096];
  while (seen.find("event: change") == std::string::npos) {
    boost::system::error_code ec;
    const std::size_t n = stream.read_some(boost::asio::buffer(chunk), ec);
    REQUIRE_MESSAGE(!ec, ec.message());
    seen.append(chunk, n);
  }
  CHECK(seen.find(id) != std::string::npos);
  CHECK(page.get("/api/runs").data()["runs"][0]["last"] == id);
}

TEST_CASE("review: a Unix socket's client is told apart by its process (its peer on record)") {
  ReviewRoot f;
  f.root.write("a.txt", numbered(1, 5));
  const std::string socket = f.state.str() + "/s.sock";
  Process server(EDITD_BINARY, {"--root", f.root.str(), "--state-dir", f.state.str(), "--listen",
                                "unix:" + socket});
  REQUIRE(wait_for_path(socket));
  auto client = SocketClient::unix_socket(socket);
  REQUIRE(client.has_value());
  REQUIRE(client->call("initialize", {{"protocolVersion", 1}}).has_value());
  auto r = client->call("write_text", {{"path", "a.txt"}, {"content", "x\n"}});
  REQUIRE(r.has_value());
  auto page = client->call("changes", json::object());
  REQUIRE(page.has_value());
  CHECK((*page)["result"]["changes"][0]["peer"] ==
        "unix:" + socket + ",pid=" + std::to_string(::getpid()));
}

TEST_CASE("review: a whole run of more changes than a model's revert takes goes back at once") {
  ReviewRoot f;
  f.root.write("a.txt", numbered(1, 300));
  auto p = f.serve();
  p.ok("initialize", {{"protocolVersion", 1}});
  json ids = json::array();
  for (int i = 1; i <= 300; ++i)
    ids.push_back(p.ok("str_replace", {{"path", "a.txt"},
                                       {"oldText", "line " + std::to_string(i) + "\n"},
                                       {"newText", "LINE " + std::to_string(i) + "\n"}})["changeId"]);
  auto [review, page] = f.review();
  Reply r = page.post("/api/revert", {{"changes", ids}});
  REQUIRE_MESSAGE(r.status == 200, r.body.substr(0, 500));
  CHECK(f.root.read("a.txt") == numbered(1, 300));
}
