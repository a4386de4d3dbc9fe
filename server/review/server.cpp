#include "server/review/server.h"

#include <sys/random.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <set>
#include <thread>

#include "protocol/params.h"
#include "server/methods/shared.h"
#include "server/ops/operations.h"
#include "server/review/api.h"
#include "server/review/assets.h"
#include "support/accept.h"

namespace editd::review {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr auto kIdle = 30s;
constexpr auto kPoll = 25ms;
constexpr auto kPing = 15s;
constexpr const char* kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

std::string random_token() {
  unsigned char bytes[32];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

// Equal, in a time that does not depend on where they differ.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

unsigned status_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidParams: return 400;
    case ErrorKind::kNotFound: return 404;
    case ErrorKind::kConflict: return 409;
    case ErrorKind::kDenied: return 403;
    case ErrorKind::kUnsupported: return 422;
    default: return 500;
  }
}

json error_body(std::string_view kind, std::string_view message, const json& data = nullptr) {
  json e = {{"kind", kind}, {"message", message}};
  if (!data.is_null() && !data.empty()) e["data"] = data;
  return {{"error", std::move(e)}};
}

using Response = http::response<http::string_body>;

void secure(http::response_header<>& h) {
  h.set("Content-Security-Policy", kCsp);
  h.set("X-Content-Type-Options", "nosniff");
  h.set("Referrer-Policy", "no-referrer");
  h.set("X-Frame-Options", "DENY");
  h.set("Cross-Origin-Opener-Policy", "same-origin");
  h.set("Cross-Origin-Resource-Policy", "same-origin");
  h.set(http::field::cache_control, "no-store");
  h.set(http::field::server, "editd");
}

Response reply(unsigned status, std::string type, std::string body) {
  Response res{static_cast<http::status>(status), 11};
  secure(res.base());
  res.set(http::field::content_type, type);
  res.body() = std::move(body);
  return res;
}

Response json_reply(unsigned status, const json& body) {
  return reply(status, "application/json; charset=utf-8",
               body.dump(-1, ' ', false, json::error_handler_t::replace));
}

Response error_reply(unsigned status, std::string_view kind, std::string_view message,
                     const json& data = nullptr) {
  return json_reply(status, error_body(kind, message, data));
}

Response result_reply(Result<json> r) {
  if (r) return json_reply(200, *r);
  return error_reply(status_of(r.error().kind), kind_name(r.error().kind), r.error().message,
                     r.error().data);
}

std::optional<std::string_view> header(const http::request<http::string_body>& req,
                                       std::string_view name) {
  auto it = req.find(name);
  if (it == req.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

// "HOST:PORT" or "[V6]:PORT".
std::optional<std::pair<std::string, std::string>> split_address(const std::string& spec) {
  if (!spec.empty() && spec.front() == '[') {
    const std::size_t end = spec.find("]:");
    if (end == std::string::npos) return std::nullopt;
    return std::pair{spec.substr(1, end - 1), spec.substr(end + 2)};
  }
  const std::size_t colon = spec.rfind(':');
  if (colon == std::string::npos || spec.find(':') != colon) return std::nullopt;
  return std::pair{spec.substr(0, colon), spec.substr(colon + 1)};
}

}  // namespace

std::optional<Gate::Refusal> Gate::check(const Request& r) const {
  // The Host first: a page of another site that rebinds its name to this
  // address learns nothing, not even whether the token was right.
  bool known_host = false;
  if (r.host)
    for (const std::string& h : hosts)
      if (*r.host == h) known_host = true;
  if (!known_host)
    return Refusal{403, "this server answers only to its own address (Host: " + hosts.front() +
                            "), not to another name"};
  const bool by_header = r.header_token && same_secret(*r.header_token, token);
  const bool by_query = r.query_token && same_secret(*r.query_token, token);
  if (!by_header && !by_query)
    return Refusal{403, "the token is missing or wrong: open the URL editd review printed"};
  if (r.method == "GET") return std::nullopt;
  if (r.method != "POST") return Refusal{405, "only GET and POST are served"};
  if (!by_header)
    return Refusal{403, "a change needs the token in the X-Editd-Token header"};
  if (r.origin) {
    bool same = false;
    for (const std::string& h : hosts)
      if (*r.origin == "http://" + h) same = true;
    if (!same) return Refusal{403, "a change from another origin is refused"};
  }
  if (r.fetch_site && *r.fetch_site != "same-origin" && *r.fetch_site != "none")
    return Refusal{403, "a change from another site is refused"};
  if (!r.content_type || !r.content_type->starts_with("application/json"))
    return Refusal{415, "a change's body is JSON (Content-Type: application/json)"};
  if (read_only) return Refusal{403, "this review page is read-only (--read-only)"};
  return std::nullopt;
}

struct ReviewServer::Impl {
  ReviewOptions options;
  Operations& ops;
  FsBackend& backend;
  Api api;
  Gate gate;
  std::string url;
  std::string peer;  // "http:127.0.0.1:PORT", for the ledger

  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer poll{io};
  std::thread thread;
  std::size_t connections = 0;
  std::size_t streams = 0;
  // The ledger's version as last polled, and how often it changed.
  std::int64_t version = -1;
  std::uint64_t generation = 0;
  bool polling_now = false;
  // The live channels' timers, each woken when the ledger changes.
  std::set<asio::steady_timer*> waiting;
  bool stopping = false;
  // Reverts in flight: their operations run on the pool and come back to
  // this context, which must outlive them.
  std::atomic<int> busy{0};

  Impl(const ReviewOptions& o, Operations& ops, FsBackend& backend, ledger::Ledger& ledger,
       std::string root)
      : options(o), ops(ops), backend(backend), api(ledger, std::move(root), o.read_only) {}

  // --- accepting ---------------------------------------------------------

  asio::awaitable<void> accept() {
    while (!stopping) {
      auto [ec, fd] = co_await accept_cloexec(acceptor);
      if (stopping || ec == asio::error::operation_aborted) break;
      if (ec == asio::error::connection_aborted) continue;
      if (ec) {
        // Out of descriptors, say: wait a little rather than spin.
        asio::steady_timer pause(io, 100ms);
        co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
        continue;
      }
      if (connections >= kMaxConnections) {
        ::close(fd);
        continue;
      }
      auto socket = adopt<tcp::socket>(fd, io, acceptor.local_endpoint().protocol());
      if (!socket) continue;
      ++connections;
      asio::co_spawn(io, serve(std::move(*socket)), asio::detached);
    }
  }

  // --- one connection ----------------------------------------------------

  asio::awaitable<void> serve(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer(64 * 1024);
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(16 * 1024);
      parser.body_limit(kMaxBody);
      stream.expires_after(kIdle);
      auto [ec, n] =
          co_await http::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
      if (ec == http::error::body_limit) {
        Response res = error_reply(413, "invalid_params", "the body is over 1 MiB");
        res.keep_alive(false);
        res.prepare_payload();
        co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
        break;
      }
      if (ec) break;
      http::request<http::string_body> req = parser.release();
      const std::string_view target(req.target().data(), req.target().size());
      auto url = boost::urls::parse_origin_form(target);
      if (!url) {
        Response res = error_reply(400, "invalid_params", "not a path");
        res.keep_alive(false);
        res.prepare_payload();
        co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
        break;
      }
      Gate::Request g;
      g.method = std::string_view(req.method_string().data(), req.method_string().size());
      const std::string path = url->path();
      g.path = path;
      if (auto t = url->params().find("token"); t != url->params().end())
        g.query_token = std::string((*t).value);
      g.header_token = header(req, "X-Editd-Token");
      g.host = header(req, "Host");
      g.origin = header(req, "Origin");
      g.fetch_site = header(req, "Sec-Fetch-Site");
      g.content_type = header(req, "Content-Type");
      if (auto refused = gate.check(g)) {
        Response res = error_reply(refused->status, "denied", refused->message);
        res.keep_alive(false);
        res.prepare_payload();
        co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
        break;
      }
      if (g.method == "GET" && path == "/api/events") {
        co_await events(stream);
        break;
      }
      Response res = co_await handle(g.method, path, *url, req.body());
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      stream.expires_after(kIdle);
      auto [wec, wn] = co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
      if (wec || !res.keep_alive()) break;
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    --connections;
  }

  asio::awaitable<Response> handle(std::string_view method, const std::string& path,
                                   const boost::urls::url_view& url, const std::string& body) {
    if (method == "POST") {
      json parsed = json::parse(body, nullptr, false);
      if (parsed.is_discarded() || !parsed.is_object())
        co_return error_reply(400, "invalid_params", "the body must be a JSON object");
      if (path == "/api/keep") co_return result_reply(api.keep(parsed));
      if (path == "/api/revert") co_return co_await revert(std::move(parsed));
      co_return error_reply(404, "not_found", "no such action");
    }
    if (path == "/api/info") co_return json_reply(200, api.info());
    if (path == "/api/runs") co_return result_reply(api.runs());
    if (path == "/api/run") {
      auto id = url.params().find("id");
      if (id == url.params().end())
        co_return error_reply(400, "invalid_params", "which run? /api/run?id=r12");
      std::optional<std::string> before;
      if (auto b = url.params().find("before"); b != url.params().end())
        before = std::string((*b).value);
      co_return result_reply(api.run(std::string((*id).value), before));
    }
    if (path == "/" || path == "/index.html") {
      const Asset* page = find_asset("/");
      if (!page) co_return error_reply(500, "internal", "the page is missing from this build");
      std::string html(page->bytes);
      const std::string_view mark = "{{TOKEN}}";
      for (std::size_t at = html.find(mark); at != std::string::npos;
           at = html.find(mark, at + gate.token.size()))
        html.replace(at, mark.size(), gate.token);
      co_return reply(200, std::string(page->content_type), std::move(html));
    }
    if (const Asset* a = find_asset(path); a && path.starts_with("/assets/"))
      co_return reply(200, std::string(a->content_type), std::string(a->bytes));
    co_return error_reply(404, "not_found", "nothing here");
  }

  // A revert, as the person at the page: the revert method's operation, on
  // record as the client "editd review" (door "review"). A person may take
  // back a whole run at once: up to kRunWindow changes and kMaxHunks hunks
  // in one call, more than a model's revert takes (256 and 4096).
  static constexpr std::size_t kMaxHunks = 50'000;

  static Result<ops::RevertRequest> decode_revert(const json& body) {
    ops::RevertRequest r;
    for (auto& [key, value] : body.items()) {
      std::vector<std::string>* out = key == "changes" ? &r.changes
                                      : key == "hunks" ? &r.hunks
                                      : key == "paths" ? &r.paths
                                                       : nullptr;
      if (!out)
        return Error(ErrorKind::kInvalidParams,
                     "unknown field " + key + ": a revert takes changes, hunks and paths");
      if (value.is_null()) continue;
      const std::size_t max = key == "changes" ? kRunWindow : key == "hunks" ? kMaxHunks : 4096;
      if (!value.is_array() || value.size() > max)
        return Error(ErrorKind::kInvalidParams,
                     key + " must be an array of at most " + std::to_string(max) + " strings");
      for (const json& v : value) {
        if (!v.is_string())
          return Error(ErrorKind::kInvalidParams, key + " must be an array of strings");
        out->push_back(v.get<std::string>());
      }
    }
    for (const std::string& path : r.paths)
      if (auto problem = protocol::path_problem(path))
        return Error(ErrorKind::kInvalidParams, "paths: " + *problem);
    if (r.changes.empty() && r.hunks.empty())
      return Error(ErrorKind::kInvalidParams, "name the changes or hunks to revert");
    return r;
  }

  asio::awaitable<Response> revert(json body) {
    auto request = decode_revert(body);
    if (!request)
      co_return error_reply(400, "invalid_params", request.error().message);
    RequestContext ctx{backend, nullptr};
    ctx.actor.client = "editd review";
    ctx.actor.client_version = EDITD_VERSION;
    ctx.actor.door = "review";
    ctx.actor.peer = peer;
    ctx.actor.method = "revert";
    ++busy;
    Result<ops::Patched> r = co_await ops.revert(ctx, std::move(*request));
    --busy;
    if (!r) {
      const Error& e = r.error();
      json data = e.data;
      // The lines found, as lines, for the page to show.
      if (data.contains("found") && data["found"].is_string()) {
        json lines = json::array();
        std::string_view rest = data["found"].get_ref<const std::string&>();
        while (!rest.empty()) {
          const std::size_t nl = rest.find('\n');
          lines.push_back(std::string(rest.substr(0, nl)));
          if (nl == std::string_view::npos) break;
          rest.remove_prefix(nl + 1);
        }
        data["found"] = std::move(lines);
      }
      co_return error_reply(status_of(e.kind), kind_name(e.kind), e.message, data);
    }
    json encoded = methods::encode_patched(std::move(*r));
    json out = {{"ok", true}};
    for (const char* key : {"changeId", "diff", "files"})
      if (encoded.contains(key)) out[key] = encoded[key];
    co_return json_reply(200, out);
  }

  // --- the live channel --------------------------------------------------

  asio::awaitable<void> events(beast::tcp_stream& stream) {
    if (streams >= kMaxStreams) {
      Response res = error_reply(503, "busy", "too many open review pages");
      res.keep_alive(false);
      res.prepare_payload();
      co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
      co_return;
    }
    ++streams;
    if (streams == 1) start_polling();
    http::response<http::empty_body> res{http::status::ok, 11};
    secure(res.base());
    res.set(http::field::content_type, "text/event-stream");
    res.keep_alive(false);
    http::response_serializer<http::empty_body> sr{res};
    stream.expires_after(kIdle);
    auto [ec, n] = co_await http::async_write_header(stream, sr,
                                                     asio::as_tuple(asio::use_awaitable));
    std::uint64_t seen = generation;
    auto last_sent = std::chrono::steady_clock::now();
    // Woken by the poller when the ledger changes (or at the ping).
    asio::steady_timer tick(io);
    waiting.insert(&tick);
    // "retry": how soon EventSource comes back after a drop.
    std::string out = "retry: 1000\n\n";
    while (!ec && !stopping) {
      if (generation != seen) {
        seen = generation;
        out += "event: change\ndata: " + json{{"last", api.last()}}.dump() + "\n\n";
      } else if (std::chrono::steady_clock::now() - last_sent >= kPing) {
        out += ": ping\n\n";
      }
      if (!out.empty()) {
        stream.expires_after(kIdle);
        std::tie(ec, n) =
            co_await asio::async_write(stream, asio::buffer(out), asio::as_tuple(asio::use_awaitable));
        out.clear();
        last_sent = std::chrono::steady_clock::now();
        if (ec) break;
      }
      if (generation != seen) continue;
      tick.expires_after(kPing);
      co_await tick.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    waiting.erase(&tick);
    --streams;
  }

  // While a live channel is open, the ledger's version every kPoll: a change
  // made by any process shows within it.
  void start_polling() {
    if (polling_now) return;
    polling_now = true;
    asio::co_spawn(io, polling(), asio::detached);
  }

  asio::awaitable<void> polling() {
    while (!stopping && streams > 0) {
      const std::int64_t v = api.ledger().version();
      if (v != version) {
        if (version >= 0) {
          ++generation;
          for (asio::steady_timer* t : waiting) t->cancel();
        }
        version = v;
      }
      poll.expires_after(kPoll);
      co_await poll.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    version = -1;
    polling_now = false;
  }
};

std::string canonical_root(const std::string& root) {
  if (char* real = ::realpath(root.c_str(), nullptr)) {
    std::string out = real;
    std::free(real);
    return out;
  }
  return root;
}

ReviewServer::ReviewServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ReviewServer::~ReviewServer() {
  asio::post(impl_->io, [impl = impl_.get()] {
    impl->stopping = true;
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    impl->poll.cancel();
    for (asio::steady_timer* t : impl->waiting) t->cancel();
  });
  // A revert in flight finishes (its files are written or not, never half);
  // then whatever is left (idle connections, live channels) is destroyed
  // with the context.
  while (impl_->busy.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

const std::string& ReviewServer::url() const { return impl_->url; }

Result<std::unique_ptr<ReviewServer>> ReviewServer::start(const ReviewOptions& options,
                                                          Operations& ops, FsBackend& backend,
                                                          std::string root) {
  auto address = split_address(options.listen);
  if (!address)
    return Error(ErrorKind::kInvalidParams,
                 "--listen for the review page is HOST:PORT (127.0.0.1:8765, [::1]:0), not " +
                     options.listen);
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address->first, ec);
  if (ec)
    return Error(ErrorKind::kInvalidParams,
                 "the review page listens on an IP address (127.0.0.1, ::1), not " +
                     address->first);
  unsigned long port = 0;
  try {
    std::size_t used = 0;
    port = std::stoul(address->second, &used);
    if (used != address->second.size() || port > 65535) throw std::out_of_range("port");
  } catch (const std::exception&) {
    return Error(ErrorKind::kInvalidParams, "not a port: " + address->second);
  }
  auto ledger = ops.ledger();
  if (!ledger) return ledger.error();
  if (!*ledger)
    return Error(ErrorKind::kUnsupported, "the review page shows the ledger: not with --ledger off");
  if (!ip.is_loopback())
    spdlog::warn("the review page listens on {}, not loopback: anyone who can reach it and "
                 "learns its token can revert changes",
                 ip.to_string());
  auto impl = std::make_unique<Impl>(options, ops, backend, **ledger, std::move(root));
  tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  close_on_exec(impl->acceptor, ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return Error(ErrorKind::kIo, "the review page cannot listen on " + options.listen + ": " +
                                     ec.message());
  const auto bound = impl->acceptor.local_endpoint(ec);
  const std::string host = ip.is_v6() ? "[" + ip.to_string() + "]" : ip.to_string();
  const std::string port_text = std::to_string(bound.port());
  impl->gate.token = random_token();
  impl->gate.read_only = options.read_only;
  impl->gate.hosts = {host + ":" + port_text};
  // Bound to every address (a container's port published to the host's
  // loopback), a browser still names it as loopback.
  if (ip.is_loopback() || ip.is_unspecified())
    for (const char* alias : {"127.0.0.1", "localhost", "[::1]"})
      if (host != alias) impl->gate.hosts.push_back(std::string(alias) + ":" + port_text);
  impl->url = "http://" + host + ":" + port_text + "/?token=" + impl->gate.token;
  impl->peer = "http:" + host + ":" + port_text;
  Impl* self = impl.get();
  asio::co_spawn(self->io, self->accept(), asio::detached);
  self->thread = std::thread([self] { self->io.run(); });
  return std::unique_ptr<ReviewServer>(new ReviewServer(std::move(impl)));
}

}  // namespace editd::review
