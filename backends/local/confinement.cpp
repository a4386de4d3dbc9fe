// The local backend's confinement: paths taken apart against the root and
// walked without following a symbolic link out of it (beneath.h).

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "backends/local/internal.h"
#include "backends/root_path.h"

namespace editd::local_backend_detail {

std::string LocalBackend::display_path(const std::string& canonical) const {
  return shown_path(options_.root, canonical);
}

std::optional<std::uint64_t> LocalBackend::size_hint(const std::string& canonical) const {
  const std::string rel = display_path(canonical);
  if (rel == "." || rel.starts_with('/')) return std::nullopt;
  struct stat st;
  if (::fstatat(root_.root_fd(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  return S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
}

std::vector<std::string> LocalBackend::missing_directories(const std::string& canonical) const {
  auto t = target_of(canonical);
  if (!t || t->name.empty()) return {};
  Fd cur;
  if (root_.open_dir("", cur) != 0) return {};
  std::vector<std::string> missing;
  std::string abs = options_.root;
  for (const std::string& part : split_relative(t->dir)) {
    abs = join(abs, part);
    if (!missing.empty()) {
      missing.push_back(abs);
      continue;
    }
    Fd child;
    int err = root_.open_child_dir(cur.get(), part, child);
    if (err == ENOENT) {
      missing.push_back(abs);
    } else if (err) {
      return {};
    } else {
      cur = std::move(child);
    }
  }
  return missing;
}

Result<std::string> LocalBackend::resolve_sync(const std::string& path) const {
  // The root is canonical (realpath at start): a path under it is walked
  // from it, one fstatat on the root's descriptor per component below the
  // root, rather than one lstat per component from "/" (a root ten levels
  // deep cost ten more per request) or of the whole path each time.
  const std::string& root = options_.root;
  std::string out = "/";
  std::string_view below = path;
  if (path.front() != '/') {
    out = root;
  } else if (root != "/" && path.compare(0, root.size(), root) == 0 &&
             (path.size() == root.size() || path[root.size()] == '/')) {
    out = root;
    below.remove_prefix(root.size());
  }
  std::deque<std::string> pending;
  for (auto& c : split_relative(below)) pending.push_back(std::move(c));
  int hops = 0;
  while (!pending.empty()) {
    std::string c = std::move(pending.front());
    pending.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      out = parent_of(out);
      continue;
    }
    std::string next = join(out, c);
    // Below the root, from the root's descriptor: the directory the opens
    // use, even if its path has been moved since.
    const char* rel = below_root(next);
    struct stat st;
    if ((rel ? ::fstatat(root_.root_fd(), rel, &st, AT_SYMLINK_NOFOLLOW)
             : ::lstat(next.c_str(), &st)) != 0) {
      int err = errno;
      if (err == ENOENT) {
        // The rest does not exist: finish lexically.
        out = next;
        while (!pending.empty()) {
          std::string rest = std::move(pending.front());
          pending.pop_front();
          if (rest == ".") continue;
          out = rest == ".." ? parent_of(out) : join(out, rest);
        }
        break;
      }
      if (err == ENOTDIR)
        return Error(ErrorKind::kNotFound,
                     "not found: " + path + " (a parent, " + display_path(out) + ", is a file)",
                     {{"path", path}});
      return posix_error("resolve", path, err);
    }
    if (S_ISLNK(st.st_mode)) {
      if (++hops > 40) return posix_error("resolve", path, ELOOP);
      std::vector<char> buf(PATH_MAX + 1);
      ssize_t n = rel ? ::readlinkat(root_.root_fd(), rel, buf.data(), buf.size() - 1)
                      : ::readlink(next.c_str(), buf.data(), buf.size() - 1);
      if (n < 0) return posix_error("readlink", path, errno);
      std::string target(buf.data(), static_cast<std::size_t>(n));
      if (!target.empty() && target.front() == '/') out = "/";
      auto parts = split_relative(target);
      pending.insert(pending.begin(), parts.begin(), parts.end());
      continue;
    }
    if (!S_ISDIR(st.st_mode) && !pending.empty()) {
      // A file used as a directory.
      return Error(ErrorKind::kNotFound,
                   "not found: " + path + " (" + display_path(next) + " is not a directory)",
                   {{"path", path}});
    }
    out = next;
  }
  if (!inside_root(out))
    return Error(ErrorKind::kOutsideRoot,
                 "path " + path + " is outside the root " + options_.root +
                     " (paths are judged after resolving links and ..)",
                 {{"path", path}, {"root", options_.root}});
  if (auto denied = reserved_path_error(options_.root, out, path)) return std::move(*denied);
  for (const std::string& own : own_dirs_)
    if (out == own || editd::inside_root(own, out))
      return Error(ErrorKind::kDenied,
                   "path " + path + " is editd's own: " + own +
                       " is its state directory (locks, journal key), and no request may read or "
                       "change it",
                   {{"path", path}});
  return out;
}

const char* LocalBackend::below_root(const std::string& p) const {
  std::optional<std::string_view> rel = editd::below_root(options_.root, p);
  if (!rel || rel->empty()) return nullptr;
  return p.c_str() + (p.size() - rel->size());
}

bool LocalBackend::inside_root(const std::string& p) const {
  return editd::inside_root(options_.root, p);
}

Result<Target> LocalBackend::target_of(const std::string& canonical) const {
  Target t;
  t.shown = display_path(canonical);
  const std::string& root = options_.root;
  if (canonical == root) return t;
  const std::string_view rel = editd::below_root(root, canonical).value_or(std::string_view());
  std::vector<std::string> parts = split_relative(rel);
  bool canonical_form =
      !rel.empty() && rel.back() != '/' && rel.find("//") == std::string_view::npos;
  for (const std::string& p : parts) canonical_form = canonical_form && p != "." && p != "..";
  if (!canonical_form)
    return Error(ErrorKind::kOutsideRoot,
                 "path " + canonical + " is not a canonical path inside the root " + root,
                 {{"path", canonical}, {"root", root}});
  t.rel = std::string(rel);
  t.dir = parent_relative(rel);
  t.name = leaf_of(rel);
  return t;
}

Error LocalBackend::path_error(const Target& t, int err, std::string_view op) {
  if (err == ENOENT) return not_found(t.shown);
  if (err == ENOTDIR)
    return Error(ErrorKind::kNotFound, "not found: " + t.shown + " (a parent is not a directory)",
                 {{"path", t.shown}});
  if (err == ELOOP) return changed(t.shown);
  return posix_error(op, t.shown, err);
}

}  // namespace editd::local_backend_detail
