#include "backends/delegated/delegated_backend.h"

#include <vector>

#include "backends/root_path.h"
#include "edit/text/text.h"
#include "protocol/acp.h"

namespace editd {
namespace {

using nlohmann::json;

constexpr std::string_view kRead = acp::kReadTextFile;
constexpr std::string_view kWrite = acp::kWriteTextFile;

// `path` made absolute against `root`, with "." and ".." applied lexically.
std::string normalize(const std::string& root, const std::string& path) {
  std::string start = !path.empty() && path.front() == '/' ? path : root + "/" + path;
  std::vector<std::string_view> parts;
  std::string_view rest = start;
  while (!rest.empty()) {
    std::size_t slash = rest.find('/');
    std::string_view c = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(c);
  }
  std::string out;
  for (std::string_view p : parts) {
    out += '/';
    out += p;
  }
  return out.empty() ? "/" : out;
}

class DelegatedBackend final : public FsBackend {
 public:
  DelegatedBackend(DelegatedBackendOptions options, ClientChannel& client)
      : options_(std::move(options)), client_(client) {}

  Result<std::string> resolve(const std::string& path) const override {
    std::string out = normalize(options_.root, path);
    if (!inside_root(out))
      return Error(ErrorKind::kOutsideRoot,
                   "path " + path + " is outside the root " + options_.root +
                       " (paths are judged after resolving ..)",
                   {{"path", path}, {"root", options_.root}});
    if (auto denied = reserved_path_error(options_.root, out, path)) return std::move(*denied);
    return out;
  }

  std::string display_path(const std::string& canonical) const override {
    return shown_path(options_.root, canonical);
  }

  boost::asio::awaitable<Result<FileStat>> stat(std::string canonical) override {
    Result<std::string> bytes = co_await read(canonical);
    co_return stat_of(bytes);
  }

  boost::asio::awaitable<Result<std::string>> read(std::string canonical) override {
    json params = acp::read_text_file_params(options_.session_id, canonical);
    Result<json> answer =
        co_await client_.call(std::string(kRead), std::move(params), options_.timeout);
    co_return content_of(answer, canonical);
  }

  boost::asio::awaitable<Result<void>> write(std::string canonical, std::string bytes) override {
    if (auto ok = check_write(canonical, bytes); !ok) co_return ok;
    json params = acp::write_text_file_params(options_.session_id, canonical, std::move(bytes));
    Result<json> answer =
        co_await client_.call(std::string(kWrite), std::move(params), options_.timeout);
    co_return written(answer, canonical);
  }

  bool can_remove() const override { return false; }

  // ACP has no directories: the client makes whatever a path needs.
  std::vector<std::string> missing_directories(const std::string&) const override { return {}; }

  boost::asio::awaitable<Result<void>> remove_directory(std::string canonical) override {
    co_return refuse_remove_directory(canonical);
  }

  boost::asio::awaitable<Result<void>> remove(std::string canonical) override {
    if (options_.read_only) co_return read_only(canonical, "deleting");
    Result<FileStat> st = co_await stat(canonical);
    co_return refuse_remove(st, canonical);
  }

 private:
  bool inside_root(const std::string& p) const { return editd::inside_root(options_.root, p); }

  // A failed call as an editd error: the client's -32002 is not_found, any
  // other client error delegate_failed (the client's error kept in
  // data.clientError); timeout and a closed connection pass through.
  Error client_failure(const Error& e, std::string_view method,
                       const std::string& canonical) const {
    const std::string shown = display_path(canonical);
    if (!e.data.is_object() || !e.data.contains("code")) {
      Error out = e;
      if (!out.data.is_object()) out.data = json::object();
      out.data["path"] = shown;
      out.data["method"] = method;
      return out;
    }
    json client = {{"code", e.data["code"]}, {"message", e.message}};
    if (e.data.contains("data")) client["data"] = e.data["data"];
    json data = {{"path", shown}, {"method", method}, {"clientError", client}};
    if (e.data["code"] == acp::kResourceNotFound)
      return Error(ErrorKind::kNotFound,
                   "not found: " + shown + " (the client says: " + e.message + ")",
                   std::move(data));
    return Error(ErrorKind::kDelegateFailed,
                 "the client failed " + std::string(method) + " for " + shown + ": " + e.message,
                 std::move(data));
  }

  Error too_large(const std::string& canonical, std::uint64_t size) const {
    const std::string shown = display_path(canonical);
    return Error(ErrorKind::kTooLarge,
                 shown + " is " + std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(options_.max_file_bytes) + " (--max-file-bytes)",
                 {{"path", shown}, {"size", size}, {"limit", options_.max_file_bytes}});
  }

  Error read_only(const std::string& canonical, std::string_view what) const {
    const std::string shown = display_path(canonical);
    return Error(ErrorKind::kDenied,
                 "the server is read-only (--read-only): not " + std::string(what) + " " + shown,
                 {{"path", shown}});
  }

  Result<std::string> content_of(Result<json>& answer, const std::string& canonical) const {
    if (!answer) return client_failure(answer.error(), kRead, canonical);
    std::optional<std::string> content = acp::take_content(*answer);
    if (!content) {
      const std::string shown = display_path(canonical);
      return Error(
          ErrorKind::kDelegateFailed,
          "the client answered fs/read_text_file for " + shown + " without a string content",
          {{"path", shown}, {"method", kRead}});
    }
    if (content->size() > options_.max_file_bytes) return too_large(canonical, content->size());
    return std::move(*content);
  }

  static Result<FileStat> stat_of(const Result<std::string>& bytes) {
    if (bytes) return FileStat{FileStat::Type::kFile, bytes->size(), std::nullopt};
    if (bytes.error().kind == ErrorKind::kNotFound) return FileStat{};
    return bytes.error();
  }

  Result<void> check_write(const std::string& canonical, const std::string& bytes) const {
    if (options_.read_only) return read_only(canonical, "writing");
    if (bytes.size() > options_.max_file_bytes) return too_large(canonical, bytes.size());
    // ACP carries text in JSON strings: bytes that are not UTF-8 cannot travel.
    if (!text::is_valid_utf8(bytes)) {
      const std::string shown = display_path(canonical);
      return Error(ErrorKind::kNotText,
                   "not writing " + shown + ": ACP clients take UTF-8 text only",
                   {{"path", shown}, {"reason", "utf8"}});
    }
    return {};
  }

  Result<void> written(const Result<json>& answer, const std::string& canonical) const {
    if (!answer) return client_failure(answer.error(), kWrite, canonical);
    return {};
  }

  Result<void> refuse_remove_directory(const std::string& canonical) const {
    return refuse_remove(FileStat{FileStat::Type::kDirectory, 0, std::nullopt}, canonical);
  }

  Result<void> refuse_remove(const Result<FileStat>& st, const std::string& canonical) const {
    if (!st) return st.error();
    const std::string shown = display_path(canonical);
    if (st->type == FileStat::Type::kMissing)
      return Error(ErrorKind::kNotFound, "not found: " + shown, {{"path", shown}});
    return Error(ErrorKind::kDenied,
                 "cannot delete " + shown +
                     ": ACP has no request to delete a file in the client's buffers (delegated "
                     "backend)",
                 {{"path", shown}, {"reason", "unsupported"}});
  }

  DelegatedBackendOptions options_;
  ClientChannel& client_;
};

}  // namespace

std::unique_ptr<FsBackend> make_delegated_backend(DelegatedBackendOptions options,
                                                  ClientChannel& client) {
  return std::make_unique<DelegatedBackend>(std::move(options), client);
}

}  // namespace editd
