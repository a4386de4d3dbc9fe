// What every connection of a serving editd shares: the options, the I/O
// threads, the pool, the local backend, the lock chains, the operations and
// the registry, and the count of the connections being served.
//
// The process (server/server.cpp) makes one and hands it to each connection it
// accepts; the connection and its doors read it from any of the I/O threads.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/fs_backend.h"
#include "server/doors/door_options.h"
#include "server/doors/registry.h"
#include "server/ops/operations.h"
#include "server/ops/ops_options.h"
#include "server/session/outside_watch.h"
#include "server/session/session_options.h"
#include "support/byte_budget.h"
#include "support/lock_chain.h"

namespace editd {

class Connection;

class ServerContext {
 public:
  // `served`: the contexts that serve connections, `io` (the main one) first.
  // Each part's options: the session's, the doors' and the operations'.
  ServerContext(SessionOptions session, DoorOptions doors, OpsOptions ops,
                std::vector<boost::asio::io_context*> served, boost::asio::thread_pool& pool,
                std::unique_ptr<FsBackend> local);

  const SessionOptions& session_options() const { return session_; }
  const DoorOptions& door_options() const { return doors_; }
  // The main context: listeners, signals, shutdown, checks.
  boost::asio::io_context& io() { return *served_.front(); }
  // I/O thread `i`'s context; 0 is the main one.
  boost::asio::io_context& io(std::size_t i) { return *served_[i]; }
  // The I/O thread for a new connection: the one serving the fewest now,
  // the next in turn among equals. Main thread only.
  std::size_t pick_io();
  FsBackend& local_backend() { return *local_; }
  // The pool for blocking work and long computations off the I/O threads.
  boost::asio::thread_pool& pool() { return pool_; }
  LockChains& locks() { return locks_; }
  Operations& operations() { return ops_; }
  // The long messages requests in flight hold, all connections together.
  ByteBudget& messages() { return messages_; }
  // The replies queued for clients, all connections together
  // (--max-queued-bytes-total).
  ByteBudget& replies() { return replies_; }
  const Registry& registry() const { return registry_; }
  // What connections are told of changes made outside them: the watch of
  // their files' directories (the operations put such changes on the
  // ledger's record: server/ops/outside.cpp).
  OutsideWatch& outside() { return outside_; }
  // The TCP token, when --token-file was given.
  const std::optional<std::string>& token() const { return token_; }
  void set_token(std::string token) { token_ = std::move(token); }

  // The connections being served, each with its I/O thread; add, remove and
  // look from any thread.
  // TCP connections that have not authenticated yet: at most
  // unauthenticated_cap() at once, so that a peer without the token can never
  // take the descriptors that authenticated clients, Unix clients (editd
  // probe), files and checks need. admit: main thread (accepting); release,
  // once per admitted connection: any thread.
  bool admit_unauthenticated();
  void release_unauthenticated();
  // --max-unauthenticated, and at most a quarter of the descriptor limit in
  // force now (RLIMIT_NOFILE's soft limit), at least 1.
  std::size_t unauthenticated_cap() const;

  void add(const std::shared_ptr<Connection>& c, std::size_t io_thread);
  void remove(Connection* c);
  std::vector<std::shared_ptr<Connection>> connections() const;
  bool serving() const {
    std::lock_guard lock(connections_mutex_);
    return !connections_.empty();
  }

 private:
  SessionOptions session_;
  DoorOptions doors_;
  OpsOptions ops_options_;
  std::vector<boost::asio::io_context*> served_;
  std::size_t next_ = 0;  // pick_io's turn among equals
  boost::asio::thread_pool& pool_;
  std::unique_ptr<FsBackend> local_;
  LockChains locks_;
  Operations ops_;
  ByteBudget messages_;
  ByteBudget replies_;
  Registry registry_;
  OutsideWatch outside_;
  std::optional<std::string> token_;
  std::atomic<std::size_t> unauthenticated_{0};
  struct Served {
    std::weak_ptr<Connection> connection;
    std::size_t io_thread = 0;
  };
  mutable std::mutex connections_mutex_;  // guards connections_ and load_
  std::map<Connection*, Served> connections_;
  std::vector<std::size_t> load_;  // connections per I/O thread
};

// Where a detached coroutine ends: an exception there is a bug, logged.
void log_failure(const char* what, std::exception_ptr e);

}  // namespace editd
