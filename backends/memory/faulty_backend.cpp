#include "backends/memory/faulty_backend.h"

#include <cstring>
#include <iterator>

#include "backends/local/local_backend.h"

namespace editd {
namespace {

const char* verb(FaultyBackend::Call call) {
  switch (call) {
    case FaultyBackend::Call::kStat:
      return "stat";
    case FaultyBackend::Call::kRead:
      return "read";
    case FaultyBackend::Call::kWrite:
      return "write";
    case FaultyBackend::Call::kRemove:
      return "unlink";
    case FaultyBackend::Call::kRemoveDirectory:
      return "rmdir";
    case FaultyBackend::Call::kLock:
      return "lock";
    case FaultyBackend::Call::kBatchWrite:
      return "rename";
    case FaultyBackend::Call::kBatchRemove:
      return "unlink";
  }
  return "call";
}

}  // namespace

void FaultyBackend::inject(Fault fault) {
  std::lock_guard<std::mutex> lk(mu_);
  faults_.push_back(std::move(fault));
}

int FaultyBackend::failures() const {
  std::lock_guard<std::mutex> lk(mu_);
  return failures_;
}

std::optional<Error> FaultyBackend::trip(Call call, const std::string& canonical) {
  const std::string shown = canonical.empty() ? std::string() : inner_->display_path(canonical);
  std::lock_guard<std::mutex> lk(mu_);
  for (Fault& f : faults_) {
    if (f.call != call || f.times == 0 || (!f.path.empty() && f.path != shown)) continue;
    if (f.skip > 0) {
      --f.skip;
      return std::nullopt;
    }
    if (f.times > 0) --f.times;
    ++failures_;
    return Error(
        f.kind, std::string(verb(call)) + " " + shown + ": " + std::strerror(f.err) + " (injected)",
        {{"path", shown}, {"errno", errno_name(f.err)}});
  }
  return std::nullopt;
}

boost::asio::awaitable<Result<FileStat>> FaultyBackend::stat(std::string canonical) {
  if (auto e = trip(Call::kStat, canonical)) co_return *e;
  Result<FileStat> r = co_await inner_->stat(std::move(canonical));
  co_return r;
}

boost::asio::awaitable<Result<std::string>> FaultyBackend::read(std::string canonical) {
  if (auto e = trip(Call::kRead, canonical)) co_return *e;
  Result<std::string> r = co_await inner_->read(std::move(canonical));
  co_return r;
}

boost::asio::awaitable<Result<void>> FaultyBackend::write(std::string canonical,
                                                          std::string bytes) {
  if (auto e = trip(Call::kWrite, canonical)) co_return *e;
  Result<void> r = co_await inner_->write(std::move(canonical), std::move(bytes));
  co_return r;
}

boost::asio::awaitable<Result<void>> FaultyBackend::remove(std::string canonical) {
  if (auto e = trip(Call::kRemove, canonical)) co_return *e;
  Result<void> r = co_await inner_->remove(std::move(canonical));
  co_return r;
}

boost::asio::awaitable<Result<void>> FaultyBackend::remove_directory(std::string canonical) {
  if (auto e = trip(Call::kRemoveDirectory, canonical)) co_return *e;
  Result<void> r = co_await inner_->remove_directory(std::move(canonical));
  co_return r;
}

boost::asio::awaitable<Result<std::unique_ptr<FsBackend::Lock>>> FaultyBackend::lock(
    std::vector<std::string> canonicals) {
  for (const std::string& c : canonicals)
    if (auto e = trip(Call::kLock, c)) co_return *e;
  Result<std::unique_ptr<Lock>> r = co_await inner_->lock(std::move(canonicals));
  co_return r;
}

boost::asio::awaitable<Result<void>> FaultyBackend::apply_batch(std::vector<FileChange> ops,
                                                                std::vector<std::size_t>& applied) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    Call call = ops[i].kind == FileChange::Kind::kWrite ? Call::kBatchWrite : Call::kBatchRemove;
    std::optional<Error> e = trip(call, ops[i].canonical);
    if (!e) continue;
    if (i > 0) {
      std::vector<FileChange> before(
          std::make_move_iterator(ops.begin()),
          std::make_move_iterator(ops.begin() + static_cast<std::ptrdiff_t>(i)));
      Result<void> r = co_await inner_->apply_batch(std::move(before), applied);
      if (!r) co_return r;
    }
    co_return *e;
  }
  Result<void> r = co_await inner_->apply_batch(std::move(ops), applied);
  co_return r;
}

}  // namespace editd
