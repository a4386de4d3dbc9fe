#include "backends/fs_backend.h"

namespace editd {

boost::asio::awaitable<Result<std::unique_ptr<FsBackend::Lock>>> FsBackend::lock(
    std::vector<std::string> canonicals) {
  co_return std::make_unique<Lock>();
}

Result<Fd> FsBackend::open_directory(const std::string& canonical, std::string& root) const {
  return Error(ErrorKind::kDenied,
               "this client's files cannot be listed or searched: " + display_path(canonical),
               {{"path", display_path(canonical)}, {"reason", "unsupported"}});
}

boost::asio::awaitable<Result<FsBackend::Listing>> FsBackend::list(std::string canonical,
                                                                 unsigned depth,
                                                                 std::size_t limit) {
  co_return Error(ErrorKind::kDenied,
                  "this client's files cannot be listed: " + display_path(canonical) +
                      " is a directory",
                  {{"path", display_path(canonical)}, {"reason", "unsupported"}});
}

boost::asio::awaitable<Result<FsBackend::Tree>> FsBackend::tree(std::string canonical,
                                                               std::size_t, std::uint64_t) {
  co_return Error(ErrorKind::kDenied,
                  "this client's directories cannot be walked: " + display_path(canonical) +
                      " is a directory",
                  {{"path", display_path(canonical)}, {"reason", "unsupported"}});
}

boost::asio::awaitable<Result<void>> FsBackend::write_pieces(
    std::string canonical, std::vector<std::string_view> pieces) {
  std::size_t size = 0;
  for (std::string_view p : pieces) size += p.size();
  std::string bytes;
  bytes.reserve(size);
  for (std::string_view p : pieces) bytes.append(p);
  co_return co_await write(std::move(canonical), std::move(bytes));
}

boost::asio::awaitable<Result<void>> FsBackend::apply_batch(std::vector<FileChange> ops,
                                                            std::vector<std::size_t>& applied) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    FileChange& op = ops[i];
    // No co_await inside ?: (GCC 12 destroys the temporaries twice).
    Result<void> r;
    if (op.kind == FileChange::Kind::kWrite)
      r = co_await write(op.canonical, std::move(op.bytes));
    else
      r = co_await remove(op.canonical);
    if (!r) co_return r;
    applied.push_back(i);
  }
  co_return Result<void>();
}

}  // namespace editd
