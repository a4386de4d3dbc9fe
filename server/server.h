// The server: shared state, listeners, connections and graceful shutdown.
//
// One I/O thread runs every connection, the lock chains and the operations'
// coroutines; a thread pool (sized to the machine) runs blocking file work.
// stdio is served unless --listen is given; then each Unix or TCP connection is
// its own session. Accepting backs off while descriptors or memory run out.
//
// At the end of stdin (stdio mode) every request received is answered, then
// editd exits 0. SIGTERM/SIGINT: stop accepting and remove the Unix socket
// files; requests not started yet answer `cancelled`; requests that have begun
// run to completion, with no time limit once they have begun writing (the
// others are cancelled after --shutdown-grace); every reply is written whole;
// exit 0. SIGHUP is ignored.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "backends/fs_backend.h"
#include "server/registry.h"
#include "server/lock_chain.h"
#include "server/operations.h"
#include "server/options.h"

namespace editd {

class Connection;

class ServerContext {
 public:
  ServerContext(ServerOptions options, boost::asio::io_context& io,
                boost::asio::thread_pool& pool, std::unique_ptr<FsBackend> local);

  const ServerOptions& options() const { return options_; }
  boost::asio::io_context& io() { return io_; }
  FsBackend& local_backend() { return *local_; }
  LockChains& locks() { return locks_; }
  Operations& operations() { return ops_; }
  const Registry& registry() const { return registry_; }
  // The TCP token, when --token-file was given.
  const std::optional<std::string>& token() const { return token_; }
  void set_token(std::string token) { token_ = std::move(token); }

  void add(const std::shared_ptr<Connection>& c) { connections_.insert(c.get()); }
  void remove(Connection* c) { connections_.erase(c); }
  const std::set<Connection*>& connections() const { return connections_; }

 private:
  ServerOptions options_;
  boost::asio::io_context& io_;
  boost::asio::thread_pool& pool_;
  std::unique_ptr<FsBackend> local_;
  LockChains locks_;
  Operations ops_;
  Registry registry_;
  std::optional<std::string> token_;
  std::set<Connection*> connections_;
};

// Runs the server until it is told to stop; returns the process exit code.
int run_server(const ServerOptions& options);

// The contents of a --token-file, without its final line break; not empty.
Result<std::string> read_token(const std::string& path);

// Where a detached coroutine ends: an exception there is a bug, logged.
void log_failure(const char* what, std::exception_ptr e);

}  // namespace editd
