#include "backends/memory/memory_backend.h"

#include <vector>

#include "backends/root_path.h"

namespace editd {

namespace {

// Error builders outside the coroutines (docs/architecture.md, GCC 12).
Error injected(std::string_view what, const std::string& shown) {
  return Error(ErrorKind::kIo, "injected " + std::string(what) + " failure for " + shown,
               {{"errno", "EIO"}});
}

Error not_empty(const std::string& shown) {
  return Error(ErrorKind::kIo, shown + " is not empty", {{"errno", "ENOTEMPTY"}});
}

}  // namespace

std::string MemoryBackend::canonical(const std::string& path) {
  std::string start = path.starts_with("/") ? path : std::string(kRoot) + "/" + path;
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i <= start.size()) {
    std::size_t j = start.find('/', i);
    if (j == std::string::npos) j = start.size();
    std::string c = start.substr(i, j - i);
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!c.empty() && c != ".") {
      parts.push_back(c);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::optional<std::string> MemoryBackend::get(const std::string& path) const {
  auto it = files_.find(canonical(path));
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

boost::asio::awaitable<void> MemoryBackend::maybe_delay(const std::string& canonical) {
  auto it = delays_.find(canonical);
  if (it != delays_.end()) co_await it->second();
}

Result<std::string> MemoryBackend::resolve(const std::string& path) const {
  std::string c = canonical(path);
  if (!inside_root(kRoot, c))
    return Error(ErrorKind::kOutsideRoot, "path " + path + " is outside the root /mem",
                    {{"path", path}});
  if (auto denied = reserved_path_error(kRoot, c, path)) return std::move(*denied);
  // A file used as a directory.
  for (std::size_t slash = c.find('/', 1); slash != std::string::npos; slash = c.find('/', slash + 1))
    if (files_.count(c.substr(0, slash)))
      return Error(ErrorKind::kNotFound, "not found: " + path + " (a parent is a file)");
  return c;
}

std::string MemoryBackend::display_path(const std::string& c) const {
  return shown_path(kRoot, c);
}

std::optional<std::uint64_t> MemoryBackend::size_hint(const std::string& c) const {
  auto it = files_.find(c);
  return it == files_.end() ? 0 : it->second.size();
}

boost::asio::awaitable<Result<FileStat>> MemoryBackend::stat(std::string c) {
  if (auto it = files_.find(c); it != files_.end()) {
    auto a = attributes_.find(c);
    co_return FileStat{FileStat::Type::kFile, it->second.size(),
                       a != attributes_.end() ? a->second : FileAttributes{kDefaultMode, 0, 0}};
  }
  if (c == kRoot || dirs_.count(c)) co_return FileStat{FileStat::Type::kDirectory, 0, std::nullopt};
  auto it = files_.lower_bound(c + "/");
  if (it != files_.end() && it->first.starts_with(c + "/"))
    co_return FileStat{FileStat::Type::kDirectory, 0, std::nullopt};
  co_return FileStat{};
}

boost::asio::awaitable<Result<std::string>> MemoryBackend::read(std::string c) {
  co_await maybe_delay(c);
  auto st = co_await stat(c);
  if (st->type == FileStat::Type::kDirectory)
    co_return Error(ErrorKind::kIsDirectory, display_path(c) + " is a directory");
  auto it = files_.find(c);
  if (it == files_.end())
    co_return Error(ErrorKind::kNotFound, "not found: " + display_path(c),
                    {{"path", display_path(c)}});
  co_return it->second;
}

boost::asio::awaitable<Result<void>> MemoryBackend::write(std::string c, std::string bytes) {
  if (read_only) co_return Error(ErrorKind::kDenied, "read-only");
  auto st = co_await stat(c);
  if (st->type == FileStat::Type::kDirectory)
    co_return Error(ErrorKind::kIsDirectory, display_path(c) + " is a directory");
  if (auto f = fail_write_.find(c); f != fail_write_.end()) {
    fail_write_.erase(f);
    co_return injected("write", display_path(c));
  }
  files_[c] = std::move(bytes);
  co_return Result<void>{};
}

boost::asio::awaitable<Result<void>> MemoryBackend::remove(std::string c) {
  if (read_only) co_return Error(ErrorKind::kDenied, "read-only");
  if (auto f = fail_remove_.find(c); f != fail_remove_.end()) {
    fail_remove_.erase(f);
    co_return injected("remove", display_path(c));
  }
  attributes_.erase(c);
  if (files_.erase(c) == 0) {
    auto st = co_await stat(c);
    if (st->type == FileStat::Type::kDirectory)
      co_return Error(ErrorKind::kIsDirectory, display_path(c) + " is a directory");
    co_return Error(ErrorKind::kNotFound, "not found: " + display_path(c));
  }
  co_return Result<void>{};
}

boost::asio::awaitable<Result<void>> MemoryBackend::apply_batch(std::vector<FileChange> ops,
                                                                std::vector<std::size_t>& applied) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    FileChange& op = ops[i];
    Result<void> r;
    if (op.kind == FileChange::Kind::kWrite)
      r = co_await write(op.canonical, std::move(op.bytes));
    else
      r = co_await remove(op.canonical);
    if (!r) co_return r;
    if (op.kind == FileChange::Kind::kWrite && (op.attributes || op.executable)) {
      FileAttributes a = (co_await stat(op.canonical))->attributes.value();
      if (op.attributes) a = *op.attributes;
      a.mode &= 07777;
      if (op.executable) a.mode = with_executable(a.mode, *op.executable);
      attributes_[op.canonical] = a;
    }
    applied.push_back(i);
  }
  co_return Result<void>();
}

std::vector<std::string> MemoryBackend::missing_directories(const std::string&) const {
  return {};
}

boost::asio::awaitable<Result<void>> MemoryBackend::remove_directory(std::string c) {
  if (read_only) co_return Error(ErrorKind::kDenied, "read-only");
  auto st = co_await stat(c);
  if (st->type != FileStat::Type::kDirectory)
    co_return Error(ErrorKind::kNotFound, "not found: " + display_path(c));
  auto child = files_.lower_bound(c + "/");
  if (child != files_.end() && child->first.starts_with(c + "/"))
    co_return not_empty(display_path(c));
  dirs_.erase(c);
  co_return Result<void>{};
}

}  // namespace editd
