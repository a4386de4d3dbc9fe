// An in-memory backend for tests: a map from canonical path to bytes, rooted at
// "/mem". Directories exist implicitly (as prefixes of files) or explicitly
// (add_directory); a write creates none, so there are none to roll back. Files
// have modes and owners, as on a POSIX disk: a new file gets kDefaultMode and
// owner 0, an existing one keeps its own, a batch write sets those it carries.
// A test can hold back operations on one path to observe the order in which
// the server completes work.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backends/fs_backend.h"

namespace editd {

class MemoryBackend : public FsBackend {
 public:
  static constexpr std::string_view kRoot = "/mem";
  static constexpr std::uint32_t kDefaultMode = 0644;

  Result<std::string> resolve(const std::string& path) const override;
  std::string display_path(const std::string& canonical) const override;
  std::optional<std::uint64_t> size_hint(const std::string& canonical) const override;
  boost::asio::awaitable<Result<FileStat>> stat(std::string canonical) override;
  boost::asio::awaitable<Result<std::string>> read(std::string canonical) override;
  boost::asio::awaitable<Result<void>> write(std::string canonical, std::string bytes) override;
  boost::asio::awaitable<Result<void>> remove(std::string canonical) override;
  std::vector<std::string> missing_directories(const std::string& canonical) const override;
  boost::asio::awaitable<Result<void>> remove_directory(std::string canonical) override;
  bool has_modes() const override { return true; }
  boost::asio::awaitable<Result<void>> apply_batch(std::vector<FileChange> ops,
                                                   std::vector<std::size_t>& applied) override;

  // Test hooks.
  void put(const std::string& path, std::string bytes) { files_[canonical(path)] = std::move(bytes); }
  std::optional<std::string> get(const std::string& path) const;
  // Sets an existing file's mode and owner.
  void set_attributes(const std::string& path, FileAttributes a) {
    attributes_[canonical(path)] = a;
  }
  void add_directory(const std::string& path) { dirs_[canonical(path)] = true; }
  // The next write to `path` fails with io.
  void fail_next_write(const std::string& path) { fail_write_[canonical(path)] = true; }
  // The next remove of `path` fails with io.
  void fail_next_remove(const std::string& path) { fail_remove_[canonical(path)] = true; }
  // Every read of `path` waits until `gate` is called... before completing.
  void set_delay(const std::string& path, std::function<boost::asio::awaitable<void>()> delay) {
    delays_[canonical(path)] = std::move(delay);
  }
  bool read_only = false;

 private:
  static std::string canonical(const std::string& path);
  boost::asio::awaitable<void> maybe_delay(const std::string& canonical);

  std::map<std::string, std::string> files_;
  std::map<std::string, FileAttributes> attributes_;  // absent: the default
  std::map<std::string, bool> dirs_;
  std::map<std::string, bool> fail_write_;
  std::map<std::string, bool> fail_remove_;
  std::map<std::string, std::function<boost::asio::awaitable<void>()>> delays_;
};

}  // namespace editd
