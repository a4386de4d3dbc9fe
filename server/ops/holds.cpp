// What a request holds while it runs: its place in its connection's turn, the
// lock chains of its files, their bytes in the budget and the processes'
// lock; and the checks made once they are held (cancellation, --require-read).
#include <algorithm>

#include "server/ops/pipeline.h"

namespace editd {

boost::asio::awaitable<Result<std::string>> Pipeline::resolve_in_turn(const RequestContext& ctx,
                                                                      const std::string& path) {
  Result<std::string> first = ctx.backend.resolve(path);
  if (first || !ctx.place) co_return first;
  co_await ctx.place->after_earlier();
  co_return ctx.backend.resolve(path);
}

boost::asio::awaitable<LockChains::Guard> Pipeline::lock_one(const RequestContext& ctx,
                                                             const std::string& canonical,
                                                             LockChains::Mode mode) {
  std::vector<std::string> keys(1, canonical);
  return locks_.lock(std::move(keys), mode, ctx.place);
}

Result<void> Pipeline::check_cancel(const RequestContext& ctx) const {
  if (ctx.cancel && ctx.cancel->cancelled)
    return Error(ErrorKind::kCancelled, "the request was cancelled before it changed anything");
  return {};
}

Result<void> Pipeline::check_known(const RequestContext& ctx, const std::string& canonical,
                                   const std::string& shown, bool exists,
                                   const std::string& current_fp) const {
  if (!options_.require_read || !ctx.known || !exists) return {};
  const std::string* known = ctx.known->find(canonical);
  if (!known)
    return Error(
        ErrorKind::kStale,
        shown + " has not been read on this connection" +
            (ctx.known->forgot()
                 ? std::string(" (or its record was forgotten: a connection keeps records of "
                               "the files it read within a bound, the least recently used go)")
                 : std::string()) +
            ": read it first (--require-read)",
        {{"path", shown}, {"knownFingerprint", nullptr}, {"currentFingerprint", current_fp}});
  if (*known != current_fp)
    return Error(
        ErrorKind::kStale,
        shown + " changed since this connection last read or wrote it: read it again",
        {{"path", shown}, {"knownFingerprint", *known}, {"currentFingerprint", current_fp}});
  return {};
}

boost::asio::awaitable<Result<Pipeline::FilesHeld>> Pipeline::hold_for_mutation(
    const RequestContext& ctx, std::vector<std::string> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  FilesHeld files;
  files.chains = co_await locks_.lock(keys, LockChains::Mode::kExclusive, ctx.place);
  if (auto c = check_cancel(ctx); !c) co_return c.error();
  auto bytes = co_await hold_files(ctx, keys, kMutationHold);
  if (!bytes) co_return bytes.error();
  files.bytes = std::move(*bytes);
  auto processes = co_await ctx.backend.lock(std::move(keys));
  if (!processes) co_return processes.error();
  files.processes = std::move(*processes);
  co_return std::move(files);
}

boost::asio::awaitable<Result<ByteBudget::Hold>> Pipeline::hold_files(
    const RequestContext& ctx, const std::vector<std::string>& canonicals, std::uint64_t factor) {
  std::uint64_t size = 0;
  for (const std::string& c : canonicals) size += ctx.backend.size_hint(c).value_or(0);
  std::optional<ByteBudget::Hold> hold = co_await budget_.acquire(factor * size);
  if (!hold) {
    const std::string shown =
        canonicals.size() == 1 ? ctx.backend.display_path(canonicals.front()) : "the files";
    co_return Error(
        ErrorKind::kTooLarge,
        shown + ": " + std::to_string(size) + " bytes, held " + std::to_string(factor) +
            " times while the request runs, exceed what " +
            "all requests in flight may hold (--max-file-bytes-in-flight " +
            std::to_string(budget_.limit()) + ")",
        canonicals.size() == 1 ? nlohmann::json{{"path", shown}} : nlohmann::json::object());
  }
  co_return std::move(*hold);
}

}  // namespace editd
