// A decorator that makes chosen calls of another backend fail, for tests of
// what callers make of failures (ENOSPC, EIO, EACCES, a removal or a rename
// that fails part-way through a batch).
//
// A failed call does not reach the wrapped backend, so it changes nothing,
// except in apply_batch: a fault on one op lets the ops before it through (one
// inner apply_batch) and then fails, with `applied` as the inner backend
// reported it, which is what a rename failing part-way does on disk. Errors
// look like the local backend's: the kind asked for, a message naming the
// path, data.path (the display path) and data.errno.
//
// Short writes and failures inside a write (the temporary file, its fsync, the
// rename) are the local backend's own business: LocalBackendOptions::inject
// reaches those system calls.
#pragma once

#include <cerrno>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/fs_backend.h"

namespace editd {

class FaultyBackend final : public FsBackend {
 public:
  enum class Call {
    kStat,
    kRead,
    kWrite,
    kRemove,
    kRemoveDirectory,
    kLock,
    kBatchWrite,
    kBatchRemove
  };

  struct Fault {
    Call call = Call::kWrite;
    std::string path;  // the display path it applies to; empty: every path
    int skip = 0;      // matching calls let through before the first failure
    int times = 1;     // failures before the fault is spent; -1: every time
    int err = EIO;
    ErrorKind kind = ErrorKind::kIo;
  };

  explicit FaultyBackend(std::unique_ptr<FsBackend> inner) : inner_(std::move(inner)) {}

  FsBackend& inner() { return *inner_; }

  // Adds a fault; faults are tried in the order they were added. Thread-safe.
  void inject(Fault fault);
  // How many calls failed so far.
  int failures() const;

  Result<std::string> resolve(const std::string& path) const override {
    return inner_->resolve(path);
  }
  std::string display_path(const std::string& canonical) const override {
    return inner_->display_path(canonical);
  }
  std::optional<std::uint64_t> size_hint(const std::string& canonical) const override {
    return inner_->size_hint(canonical);
  }
  boost::asio::awaitable<Result<FileStat>> stat(std::string canonical) override;
  boost::asio::awaitable<Result<std::string>> read(std::string canonical) override;
  boost::asio::awaitable<Result<void>> write(std::string canonical, std::string bytes) override;
  boost::asio::awaitable<Result<void>> remove(std::string canonical) override;
  bool can_remove() const override { return inner_->can_remove(); }
  bool has_modes() const override { return inner_->has_modes(); }
  std::vector<std::string> missing_directories(const std::string& canonical) const override {
    return inner_->missing_directories(canonical);
  }
  boost::asio::awaitable<Result<void>> remove_directory(std::string canonical) override;
  boost::asio::awaitable<Result<std::unique_ptr<Lock>>> lock(
      std::vector<std::string> canonicals) override;
  boost::asio::awaitable<Result<void>> apply_batch(std::vector<FileChange> ops,
                                                   std::vector<std::size_t>& applied) override;

 private:
  // The error of the fault that claims this call, if one does.
  std::optional<Error> trip(Call call, const std::string& canonical);

  std::unique_ptr<FsBackend> inner_;
  mutable std::mutex mu_;
  std::vector<Fault> faults_;
  int failures_ = 0;
};

}  // namespace editd
