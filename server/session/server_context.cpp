#include "server/session/server_context.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

namespace editd {

namespace asio = boost::asio;

ServerContext::ServerContext(SessionOptions session, DoorOptions doors, OpsOptions ops,
                             std::vector<asio::io_context*> served, asio::thread_pool& pool,
                             std::unique_ptr<FsBackend> local)
    : session_(std::move(session)),
      doors_(std::move(doors)),
      ops_options_(std::move(ops)),
      served_(std::move(served)),
      pool_(pool),
      local_(std::move(local)),
      ops_(ops_options_, locks_, pool_),
      messages_(session_.max_message_bytes_in_flight),
      replies_(session_.max_queued_bytes_total),
      registry_(ops_),
      outside_(io(), session_.outside_changes == OutsideChanges::kWatch),
      load_(served_.size(), 0) {
  // Language servers are processes with pipes: they stay on one context.
  if (served_.size() > 1) ops_.run_checks_on(io().get_executor());
}

std::size_t ServerContext::pick_io() {
  std::lock_guard lock(connections_mutex_);
  const std::size_t n = served_.size();
  std::size_t best = next_ % n;
  for (std::size_t k = 1; k < n; ++k) {
    std::size_t i = (next_ + k) % n;
    if (load_[i] < load_[best]) best = i;
  }
  next_ = best + 1;
  return best;
}

std::size_t ServerContext::unauthenticated_cap() const {
  rlimit limit{};
  std::uint64_t quarter = 256;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    quarter = limit.rlim_cur / 4;
  return static_cast<std::size_t>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(session_.max_unauthenticated, quarter)));
}

bool ServerContext::admit_unauthenticated() {
  if (unauthenticated_.load() >= unauthenticated_cap()) return false;
  ++unauthenticated_;
  return true;
}

void ServerContext::release_unauthenticated() { --unauthenticated_; }

void ServerContext::add(const std::shared_ptr<Connection>& c, std::size_t io_thread) {
  std::lock_guard lock(connections_mutex_);
  connections_.emplace(c.get(), Served{c, io_thread});
  ++load_[io_thread];
}

void ServerContext::remove(Connection* c) {
  std::lock_guard lock(connections_mutex_);
  auto it = connections_.find(c);
  if (it == connections_.end()) return;
  --load_[it->second.io_thread];
  connections_.erase(it);
}

std::vector<std::shared_ptr<Connection>> ServerContext::connections() const {
  std::lock_guard lock(connections_mutex_);
  std::vector<std::shared_ptr<Connection>> out;
  out.reserve(connections_.size());
  for (const auto& [raw, served] : connections_)
    if (auto c = served.connection.lock()) out.push_back(std::move(c));
  return out;
}

void log_failure(const char* what, std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    spdlog::error("{} failed: {}", what, ex.what());
  } catch (...) {
    spdlog::error("{} failed", what);
  }
}

}  // namespace editd
