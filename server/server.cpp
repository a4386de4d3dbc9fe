#include "server/server.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "backends/local_backend.h"
#include "server/connection.h"
#include "server/socket_stream.h"

namespace editd {

namespace asio = boost::asio;

// How long shutdown waits for requests in flight before exiting anyway.
constexpr std::chrono::seconds kDrainLimit{10};

ServerContext::ServerContext(ServerOptions options, asio::io_context& io, asio::thread_pool& pool,
                             std::unique_ptr<FsBackend> local)
    : options_(std::move(options)),
      io_(io),
      pool_(pool),
      local_(std::move(local)),
      locks_(io.get_executor()),
      ops_(options_, locks_, pool_),
      dispatcher_(ops_) {}

namespace {

class Server {
 public:
  Server(ServerContext& ctx) : ctx_(ctx), signals_(ctx.io(), SIGINT, SIGTERM) {}

  Result<void> start() {
    signals_.async_wait([this](boost::system::error_code ec, int sig) {
      if (ec) return;
      spdlog::info("signal {}: shutting down", sig);
      shutdown();
    });
    if (ctx_.options().listen.empty()) {
      serve(make_stdio_stream(ctx_.io().get_executor()), {}, /*last=*/true);
      return {};
    }
    for (const std::string& spec : ctx_.options().listen) {
      auto r = spec.starts_with("unix:") ? listen_unix(spec.substr(5)) : listen_tcp(spec.substr(4));
      if (!r) return r;
    }
    return {};
  }

  void shutdown() {
    if (stopping_) return;
    stopping_ = true;
    boost::system::error_code ignored;
    for (auto& a : unix_acceptors_) a->close(ignored);
    for (auto& a : tcp_acceptors_) a->close(ignored);
    for (const std::string& path : unix_paths_) ::unlink(path.c_str());
    signals_.cancel(ignored);
    for (Connection* c : ctx_.connections()) c->stop();
    asio::co_spawn(ctx_.io(), drain(), asio::detached);
  }

 private:
  asio::awaitable<void> drain() {
    asio::steady_timer timer(ctx_.io());
    auto deadline = std::chrono::steady_clock::now() + kDrainLimit;
    while (std::chrono::steady_clock::now() < deadline) {
      bool idle = true;
      for (Connection* c : ctx_.connections()) idle &= c->idle();
      if (idle) break;
      timer.expires_after(std::chrono::milliseconds(5));
      co_await timer.async_wait(asio::use_awaitable);
    }
    ctx_.io().stop();
  }

  void serve(std::unique_ptr<Stream> stream, Connection::Settings settings, bool last) {
    auto conn = std::make_shared<Connection>(ctx_, std::move(stream), settings);
    ctx_.add(conn);
    asio::co_spawn(ctx_.io(), conn->run(), [this, conn, last](std::exception_ptr e) {
      if (e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          spdlog::error("connection {} failed: {}", conn->peer(), ex.what());
        }
      }
      ctx_.remove(conn.get());
      // In stdio mode the end of stdin ends the server.
      if (last) shutdown();
    });
  }

  Result<void> listen_unix(const std::string& path) {
    using asio::local::stream_protocol;
    // A stale socket from an earlier run is replaced; any other file is not.
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0) {
      if (!S_ISSOCK(st.st_mode))
        return Error(ErrorKind::kExists, "--listen unix:" + path + ": a file that is not a socket exists there");
      ::unlink(path.c_str());
    }
    auto acceptor = std::make_unique<stream_protocol::acceptor>(ctx_.io());
    boost::system::error_code ec;
    acceptor->open(stream_protocol(), ec);
    mode_t old = ::umask(0177);  // the socket is created with mode 0600
    if (!ec) acceptor->bind(stream_protocol::endpoint(path), ec);
    ::umask(old);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return Error(ErrorKind::kIo, "--listen unix:" + path + ": " + ec.message());
    ::chmod(path.c_str(), 0600);
    spdlog::info("listening on unix:{}", path);
    unix_paths_.push_back(path);
    asio::co_spawn(ctx_.io(), accept_unix(*acceptor, path), asio::detached);
    unix_acceptors_.push_back(std::move(acceptor));
    return {};
  }

  asio::awaitable<void> accept_unix(asio::local::stream_protocol::acceptor& acceptor, std::string path) {
    while (!stopping_) {
      auto [ec, socket] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
      if (ec) {
        if (stopping_ || ec == asio::error::operation_aborted) break;
        spdlog::warn("accept on unix:{}: {}", path, ec.message());
        continue;
      }
      serve(make_socket_stream(std::move(socket), "unix:" + path), {}, false);
    }
  }

  Result<void> listen_tcp(const std::string& spec) {
    using asio::ip::tcp;
    if (!ctx_.token())
      return Error(ErrorKind::kInvalidParams,
                   "--listen tcp:" + spec + " needs --token-file: TCP clients must authenticate");
    std::string host = "127.0.0.1", port = spec;
    if (auto colon = spec.rfind(':'); colon != std::string::npos) {
      host = spec.substr(0, colon);
      port = spec.substr(colon + 1);
      if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
      if (host.empty()) host = "127.0.0.1";
    }
    boost::system::error_code ec;
    tcp::resolver resolver(ctx_.io());
    auto results = resolver.resolve(host, port, tcp::resolver::numeric_service, ec);
    if (ec || results.empty())
      return Error(ErrorKind::kInvalidParams, "--listen tcp:" + spec + ": cannot resolve: " + ec.message());
    tcp::endpoint endpoint = *results.begin();
    auto acceptor = std::make_unique<tcp::acceptor>(ctx_.io());
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return Error(ErrorKind::kIo, "--listen tcp:" + spec + ": " + ec.message());
    auto bound = acceptor->local_endpoint(ec);
    spdlog::info("listening on tcp:{}:{}", bound.address().to_string(), bound.port());
    asio::co_spawn(ctx_.io(), accept_tcp(*acceptor), asio::detached);
    tcp_acceptors_.push_back(std::move(acceptor));
    return {};
  }

  asio::awaitable<void> accept_tcp(asio::ip::tcp::acceptor& acceptor) {
    while (!stopping_) {
      auto [ec, socket] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
      if (ec) {
        if (stopping_ || ec == asio::error::operation_aborted) break;
        spdlog::warn("accept on tcp: {}", ec.message());
        continue;
      }
      boost::system::error_code ignored;
      socket.set_option(asio::ip::tcp::no_delay(true), ignored);
      auto remote = socket.remote_endpoint(ignored);
      std::string peer = "tcp:" + remote.address().to_string() + ":" + std::to_string(remote.port());
      Connection::Settings settings;
      settings.needs_auth = true;
      serve(make_socket_stream(std::move(socket), peer), settings, false);
    }
  }

  ServerContext& ctx_;
  asio::signal_set signals_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<asio::local::stream_protocol::acceptor>> unix_acceptors_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> tcp_acceptors_;
  std::vector<std::string> unix_paths_;
};

Result<std::string> read_token(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorKind::kNotFound, "--token-file " + path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = ss.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  if (token.empty()) return Error(ErrorKind::kInvalidParams, "--token-file " + path + " is empty");
  return token;
}

}  // namespace

int run_server(const ServerOptions& options) {
  ::signal(SIGPIPE, SIG_IGN);
  unsigned threads = options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency());
  asio::io_context io(1);
  asio::thread_pool pool(threads);

  auto backend = make_local_backend(local_backend_options(options), pool);
  if (!backend) {
    spdlog::critical("{}", backend.error().message);
    return 2;
  }
  ServerContext ctx(options, io, pool, std::move(*backend));
  if (options.token_file) {
    auto token = read_token(*options.token_file);
    if (!token) {
      spdlog::critical("{}", token.error().message);
      return 2;
    }
    ctx.set_token(*token);
  }
  Server server(ctx);
  if (auto r = server.start(); !r) {
    spdlog::critical("{}", r.error().message);
    return 2;
  }
  spdlog::info("editd {} serving root {}", EDITD_VERSION, ctx.local_backend().display_path("/") == "/" ? options.root : options.root);
  io.run();
  return 0;
}

}  // namespace editd
