#include "server/server.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

#include <spdlog/spdlog.h>

#include "backends/local/local_backend.h"
#include "server/checks/child_process.h"
#include "server/session/connection.h"
#include "server/session/server_context.h"
#include "server/cpus.h"
#include "server/session/socket_stream.h"
#include "server/review/server.h"
#include "support/accept.h"

namespace editd {

namespace asio = boost::asio;

// Shutdown by signal: a client that takes in less than a write slice of its
// replies in this long loses them and its connection, so that it cannot hold
// the exit back (Connection::limit_stall).
constexpr std::chrono::seconds kFlushStall{10};

namespace {

// Accept failures that persist until descriptors or memory free up (EMFILE,
// ENFILE, ENOBUFS, ENOMEM, or anything unexpected) are retried after a pause
// that doubles from kMin to kMax, with one log line when they start and one
// when accepting works again.
class AcceptBackoff {
 public:
  static constexpr std::chrono::milliseconds kMin{10};
  static constexpr std::chrono::milliseconds kMax{1000};

  explicit AcceptBackoff(std::string listener) : listener_(std::move(listener)) {}

  // The pause before the next attempt, after a failure.
  std::chrono::milliseconds failed(const boost::system::error_code& ec) {
    if (failures_++ == 0) {
      since_ = std::chrono::steady_clock::now();
      pause_ = kMin;
      spdlog::warn("accept on {}: {}; retrying every {} to {} ms until it works", listener_,
                   ec.message(), kMin.count(), kMax.count());
    } else {
      pause_ = std::min(pause_ * 2, kMax);
    }
    return pause_;
  }

  void succeeded() {
    if (failures_ == 0) return;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - since_)
                  .count();
    spdlog::info("accept on {} works again, after {} failures in {} ms", listener_, failures_, ms);
    failures_ = 0;
  }

 private:
  std::string listener_;
  std::uint64_t failures_ = 0;
  std::chrono::milliseconds pause_ = kMin;
  std::chrono::steady_clock::time_point since_;
};

// TCP connections closed at once because --max-unauthenticated were waiting
// to authenticate: one log line when it starts, then at most one every
// kEvery with the count, so that a flood cannot flood the log too.
class RefusalLog {
 public:
  static constexpr std::chrono::seconds kEvery{10};

  explicit RefusalLog(std::string listener) : listener_(std::move(listener)) {}

  void refused(const std::string& peer, std::size_t cap) {
    const auto now = std::chrono::steady_clock::now();
    ++count_;
    if (logged_ && now - last_ < kEvery) return;
    spdlog::warn(
        "{}: closed {} connection{} (the last from {}): {} wait to authenticate, the most "
        "served at once (--max-unauthenticated, a quarter of the descriptor limit)",
        listener_, count_, count_ == 1 ? "" : "s", peer, cap);
    logged_ = true;
    last_ = now;
    count_ = 0;
  }

 private:
  std::string listener_;
  bool logged_ = false;
  std::uint64_t count_ = 0;
  std::chrono::steady_clock::time_point last_;
};

class Server {
 public:
  enum class Cause { kEndOfInput, kSignal };

  Server(ServerContext& ctx, const ServerOptions& options)
      : ctx_(ctx),
        options_(options),
        signals_(ctx.io(), SIGINT, SIGTERM, SIGHUP),
        children_(ctx.io(), SIGCHLD),
        drained_(ctx.io()),
        grace_(ctx.io()) {}

  Result<void> start() {
    ctx_.outside().start();
    wait_signal();
    wait_children();
    if (options_.listen.empty()) {
      serve(0, make_stdio_stream(ctx_.io().get_executor()), {}, /*last=*/true);
      return {};
    }
    for (const std::string& spec : options_.listen) {
      auto r = spec.starts_with("unix:") ? listen_unix(spec.substr(5)) : listen_tcp(spec.substr(4));
      if (!r) {
        close_listeners();
        return r;
      }
    }
    return {};
  }

  // Stops accepting, removes the Unix socket files, and has every connection
  // refuse requests it has not started; the server exits once every started
  // request has answered and every reply is written. A signal also starts
  // the grace period for requests that have not begun writing and the limit
  // on clients that read nothing (kFlushStall).
  void shutdown(Cause cause) {
    if (!stopping_) {
      stopping_ = true;
      close_listeners();
      on_each_connection([](Connection& c) { c.shut_down(); });
      asio::co_spawn(ctx_.io(), drain(),
                     [](std::exception_ptr e) { log_failure("shutdown", e); });
    }
    if (cause == Cause::kSignal && !signalled_) {
      signalled_ = true;
      on_each_connection([](Connection& c) { c.limit_stall(kFlushStall); });
      grace_.expires_after(options_.shutdown_grace);
      grace_.async_wait([this](boost::system::error_code ec) {
        if (ec || !ctx_.serving()) return;
        spdlog::info("shutdown grace over: cancelling the requests that have not begun writing");
        on_each_connection([](Connection& c) { c.cancel_uncommitted(); });
      });
    }
  }

 private:
  // Runs `f` on each connection, on the connection's own thread. The post
  // holds the only extra reference, so a connection that has ended meanwhile
  // is destroyed on its own thread too.
  template <class F>
  void on_each_connection(F f) {
    for (auto& c : ctx_.connections()) {
      asio::io_context& io = c->io();
      asio::post(io, [c = std::move(c), f] { f(*c); });
    }
  }

  // SIGHUP is ignored: editd has nothing to reload, and a closed terminal or
  // a host's hangup must not kill requests in flight.
  void wait_signal() {
    signals_.async_wait([this](boost::system::error_code ec, int sig) {
      if (ec) return;
      if (sig == SIGHUP)
        spdlog::info("SIGHUP ignored: editd has nothing to reload");
      else if (signalled_)
        spdlog::info("signal {}: already shutting down", sig);
      else {
        spdlog::info("signal {}: shutting down", sig);
        shutdown(Cause::kSignal);
      }
      wait_signal();
    });
  }

  // Every child that exits is reaped, the orphans that editd adopted too
  // (child_process.h: adopt_orphans).
  void wait_children() {
    reap_orphans();
    children_.async_wait([this](boost::system::error_code ec, int) {
      if (!ec) wait_children();
    });
  }

  void close_listeners() {
    boost::system::error_code ignored;
    for (auto& a : unix_acceptors_) a->close(ignored);
    for (auto& a : tcp_acceptors_) a->close(ignored);
    for (auto& t : pauses_) t->cancel();
    // Removed now rather than at exit, and only while the path is still the
    // socket this server bound (same device and inode): a server started
    // meanwhile on the same path, which took it over, keeps its socket.
    for (const BoundPath& bound : unix_paths_) {
      struct stat st;
      if (::lstat(bound.path.c_str(), &st) != 0) continue;
      if (st.st_dev == bound.dev && st.st_ino == bound.ino)
        ::unlink(bound.path.c_str());
      else
        spdlog::info("unix:{} is another socket now (a newer editd's?): left in place",
                     bound.path);
    }
    unix_paths_.clear();
  }

  asio::awaitable<void> drain() {
    while (ctx_.serving()) {
      drained_.expires_at(std::chrono::steady_clock::time_point::max());
      co_await drained_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    grace_.cancel();
    boost::system::error_code ignored;
    signals_.cancel(ignored);
    ctx_.operations().stop_checks();
    ctx_.outside().stop();
    children_.cancel(ignored);
    // Completions already queued (the connections' last timers) run first.
    // The other I/O threads end once their contexts run out of work
    // (run_server).
    co_await asio::post(ctx_.io(), asio::use_awaitable);
    ctx_.io().stop();
  }

  // Serves `stream`, whose I/O objects are on I/O thread `io_thread`'s
  // context, on that thread.
  void serve(std::size_t io_thread, std::unique_ptr<Stream> stream, Connection::Settings settings,
             bool last) {
    asio::io_context& io = ctx_.io(io_thread);
    auto conn = std::make_shared<Connection>(ctx_, io, std::move(stream), settings);
    spdlog::debug("connection {} opened, on I/O thread {}", conn->peer(), io_thread);
    ctx_.add(conn, io_thread);
    asio::co_spawn(io, conn->run(), [this, conn, last](std::exception_ptr e) {
      if (e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          spdlog::error("connection {} failed: {}", conn->peer(), ex.what());
        }
      }
      ctx_.remove(conn.get());
      spdlog::debug("connection {} closed", conn->peer());
      // The server's own state is the main thread's.
      asio::post(ctx_.io(), [this, last] {
        drained_.cancel();
        // In stdio mode the end of stdin ends the server.
        if (last) shutdown(Cause::kEndOfInput);
      });
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
    // The socket is bound and listening under a temporary name, then renamed to
    // PATH: a client (or a health check) that sees PATH can connect, never
    // catching the moment between bind() and listen(). A PATH too long for the
    // temporary name is bound in place.
    std::string staged = path + ".new";
    if (staged.size() >= sizeof(sockaddr_un::sun_path)) staged = path;
    if (staged != path && ::lstat(staged.c_str(), &st) == 0) {
      if (!S_ISSOCK(st.st_mode))
        return Error(ErrorKind::kExists, "--listen unix:" + path + ": " + staged + " is in the way");
      ::unlink(staged.c_str());
    }
    auto acceptor = std::make_unique<stream_protocol::acceptor>(ctx_.io());
    boost::system::error_code ec;
    acceptor->open(stream_protocol(), ec);
    close_on_exec(*acceptor, ec);
    mode_t old = ::umask(0177);  // the socket is created with mode 0600
    if (!ec) acceptor->bind(stream_protocol::endpoint(staged), ec);
    ::umask(old);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) ::chmod(staged.c_str(), 0600);
    // The file the bind made, to know it again at shutdown (close_listeners).
    struct stat bound;
    if (!ec && ::lstat(staged.c_str(), &bound) != 0)
      ec.assign(errno, boost::system::system_category());
    if (!ec && staged != path && ::rename(staged.c_str(), path.c_str()) != 0)
      ec.assign(errno, boost::system::system_category());
    if (ec) {
      ::unlink(staged.c_str());
      return Error(ErrorKind::kIo, "--listen unix:" + path + ": " + ec.message());
    }
    spdlog::info("listening on unix:{}", path);
    unix_paths_.push_back(BoundPath{path, bound.st_dev, bound.st_ino});
    pauses_.push_back(std::make_unique<asio::steady_timer>(ctx_.io()));
    asio::co_spawn(ctx_.io(), accept_unix(*acceptor, path, *pauses_.back()),
                   [](std::exception_ptr e) { log_failure("accepting", e); });
    unix_acceptors_.push_back(std::move(acceptor));
    return {};
  }

  asio::awaitable<void> accept_unix(asio::local::stream_protocol::acceptor& acceptor,
                                    std::string path, asio::steady_timer& pause) {
    AcceptBackoff backoff("unix:" + path);
    while (!stopping_) {
      auto [ec, fd] = co_await accept_cloexec(acceptor);
      if (stopping_ || ec == asio::error::operation_aborted) break;
      if (ec == asio::error::connection_aborted) continue;
      if (ec) {
        pause.expires_after(backoff.failed(ec));
        co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
        continue;
      }
      backoff.succeeded();
      const std::size_t io_thread = ctx_.pick_io();
      auto socket = adopt<asio::local::stream_protocol::socket>(fd, ctx_.io(io_thread),
                                                                asio::local::stream_protocol());
      if (!socket) continue;
      serve(io_thread, make_socket_stream(std::move(*socket), "unix:" + path), {}, false);
    }
  }

  Result<void> listen_tcp(const std::string& spec) {
    using asio::ip::tcp;
    if (!ctx_.token())
      return Error(ErrorKind::kInvalidParams,
                   "--listen tcp:" + spec + " needs --token-file: TCP clients must authenticate");
    const auto [host, port] = tcp_host_port(spec);
    boost::system::error_code ec;
    tcp::resolver resolver(ctx_.io());
    auto results = resolver.resolve(host, port, tcp::resolver::numeric_service, ec);
    if (ec || results.empty())
      return Error(ErrorKind::kInvalidParams, "--listen tcp:" + spec + ": cannot resolve: " + ec.message());
    tcp::endpoint endpoint = *results.begin();
    auto acceptor = std::make_unique<tcp::acceptor>(ctx_.io());
    acceptor->open(endpoint.protocol(), ec);
    close_on_exec(*acceptor, ec);
    if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return Error(ErrorKind::kIo, "--listen tcp:" + spec + ": " + ec.message());
    auto bound = acceptor->local_endpoint(ec);
    std::string name = "tcp:" + bound.address().to_string() + ":" + std::to_string(bound.port());
    spdlog::info("listening on {}", name);
    pauses_.push_back(std::make_unique<asio::steady_timer>(ctx_.io()));
    asio::co_spawn(ctx_.io(), accept_tcp(*acceptor, name, *pauses_.back()),
                   [](std::exception_ptr e) { log_failure("accepting", e); });
    tcp_acceptors_.push_back(std::move(acceptor));
    return {};
  }

  asio::awaitable<void> accept_tcp(asio::ip::tcp::acceptor& acceptor, std::string name,
                                   asio::steady_timer& pause) {
    AcceptBackoff backoff(name);
    RefusalLog refused(name);
    boost::system::error_code unknown;
    const asio::ip::tcp protocol = acceptor.local_endpoint(unknown).protocol();
    while (!stopping_) {
      auto [ec, fd] = co_await accept_cloexec(acceptor);
      if (stopping_ || ec == asio::error::operation_aborted) break;
      if (ec == asio::error::connection_aborted) continue;
      if (ec) {
        pause.expires_after(backoff.failed(ec));
        co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
        continue;
      }
      backoff.succeeded();
      const std::size_t io_thread = ctx_.pick_io();
      auto socket = adopt<asio::ip::tcp::socket>(fd, ctx_.io(io_thread), protocol);
      if (!socket) continue;
      boost::system::error_code ignored;
      auto remote = socket->remote_endpoint(ignored);
      std::string peer =
          "tcp:" + remote.address().to_string() + ":" + std::to_string(remote.port());
      if (!ctx_.admit_unauthenticated()) {
        refused.refused(peer, ctx_.unauthenticated_cap());
        socket->close(ignored);
        continue;
      }
      socket->set_option(asio::ip::tcp::no_delay(true), ignored);
      Connection::Settings settings;
      settings.needs_auth = true;
      // The connection releases its admission once it authenticates or ends.
      serve(io_thread, make_socket_stream(std::move(*socket), peer), settings, false);
    }
  }

  ServerContext& ctx_;
  const ServerOptions& options_;
  asio::signal_set signals_;
  asio::signal_set children_;   // SIGCHLD
  asio::steady_timer drained_;  // woken when a connection ends
  asio::steady_timer grace_;    // --shutdown-grace
  bool stopping_ = false;
  bool signalled_ = false;
  std::vector<std::unique_ptr<asio::local::stream_protocol::acceptor>> unix_acceptors_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> tcp_acceptors_;
  std::vector<std::unique_ptr<asio::steady_timer>> pauses_;  // accept backoff, one per listener
  // The Unix socket paths listened on, each with the device and inode of the
  // socket file its bind made.
  struct BoundPath {
    std::string path;
    dev_t dev;
    ino_t ino;
  };
  std::vector<BoundPath> unix_paths_;
};

}  // namespace

HostPort tcp_host_port(const std::string& spec) {
  HostPort out{"127.0.0.1", spec};
  if (auto colon = spec.rfind(':'); colon != std::string::npos) {
    out.host = spec.substr(0, colon);
    out.port = spec.substr(colon + 1);
    if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']')
      out.host = out.host.substr(1, out.host.size() - 2);
    if (out.host.empty()) out.host = "127.0.0.1";
  }
  return out;
}

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

int run_server(const ServerOptions& options) {
  ::signal(SIGPIPE, SIG_IGN);
  adopt_orphans();
  // Until the server's signal set takes SIGHUP over, and after it gives it back.
  ::signal(SIGHUP, SIG_IGN);
  // Defaults from the CPUs editd may use (server/cpus.h): its affinity mask
  // and its cgroup's quota.
  const unsigned cpus = usable_cpus();
  unsigned threads = options.threads ? options.threads : std::max(2u, cpus);
  // stdio is one connection: the main thread serves it alone.
  unsigned io_threads = options.listen.empty() ? 1
                        : options.io_threads ? options.io_threads
                                             : cpus;
  // One context per I/O thread, the main thread's first.
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::vector<asio::io_context*> served;
  for (unsigned i = 0; i < io_threads; ++i) {
    contexts.push_back(std::make_unique<asio::io_context>(1));
    served.push_back(contexts.back().get());
    // Its reactor (epoll, timerfd, eventfd: three descriptors) is made with
    // its first timer or socket: now, not with its first connection, which
    // may come when descriptors have run out.
    asio::steady_timer reactor_made(*contexts.back());
  }
  asio::io_context& io = *contexts.front();
  asio::thread_pool pool(threads);

  auto backend = make_local_backend(local_backend_options(options), pool);
  if (!backend) {
    spdlog::critical("{}", backend.error().message);
    return 2;
  }
  ServerContext ctx(options.session, options.doors, options.ops, served, pool, std::move(*backend));
  if (options.token_file) {
    auto token = read_token(*options.token_file);
    if (!token) {
      spdlog::critical("{}", token.error().message);
      return 2;
    }
    ctx.set_token(*token);
  }
  {
    Server server(ctx, options);
    if (auto r = server.start(); !r) {
      spdlog::critical("{}", r.error().message);
      return 2;
    }
    // The review page beside the server (--review), on a thread of its own.
    std::unique_ptr<review::ReviewServer> review_page;
    if (options.review) {
      auto started = review::ReviewServer::start({*options.review, options.ops.read_only},
                                                 ctx.operations(), ctx.local_backend(),
                                                 review::canonical_root(options.ops.root));
      if (!started) {
        spdlog::critical("{}", started.error().message);
        return 2;
      }
      review_page = std::move(*started);
      spdlog::info("review page: {}", review_page->url());
    }
    spdlog::info("editd {} serving root {} ({} I/O thread{}, {} file thread{})", EDITD_VERSION,
                 options.ops.root, io_threads, io_threads == 1 ? "" : "s", threads,
                 threads == 1 ? "" : "s");
    // The other I/O threads run until shutdown has drained every connection
    // (their work guards go then) and their contexts hold no more work.
    using Guard = asio::executor_work_guard<asio::io_context::executor_type>;
    std::vector<Guard> guards;
    std::vector<std::thread> runners;
    for (std::size_t i = 1; i < contexts.size(); ++i) {
      guards.push_back(asio::make_work_guard(*contexts[i]));
      runners.emplace_back([c = contexts[i].get()] { c->run(); });
      // Named for top -H and the like (editd-io-1, editd-io-2, ...), here
      // rather than by the thread itself: named before a connection is served.
      const std::string name = "editd-io-" + std::to_string(i);
      ::pthread_setname_np(runners.back().native_handle(), name.c_str());
    }
    io.run();
    guards.clear();
    for (std::thread& t : runners) t.join();
  }
  // Every reply is written: from here a signal must not turn the exit code 0
  // into a kill (the signal set restored the default actions).
  ::signal(SIGHUP, SIG_IGN);
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  return 0;
}

}  // namespace editd
