// The local backend's directory walks: list, to a depth and a limit.

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

namespace editd::local_backend_detail {

Result<Fd> LocalBackend::open_directory(const std::string& canonical, std::string& root) const {
  auto t = target_of(canonical);
  if (!t) return t.error();
  Fd at;
  if (int err = root_.open_dir(t->rel, at)) return path_error(*t, err, "open");
  Fd readable(::openat(at.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!readable.valid()) return path_error(*t, errno, "open");
  root = options_.root;
  return readable;
}

Result<FsBackend::Listing> LocalBackend::list_sync(const std::string& canonical, unsigned depth,
                                                   std::size_t limit) const {
  auto t = target_of(canonical);
  if (!t) return t.error();
  Fd at;
  if (int err = root_.open_dir(t->rel, at)) return path_error(*t, err, "list");
  Listing out;
  // Breadth first, so that a limit keeps the upper levels whole.
  struct Pending {
    Fd dir;  // O_PATH
    std::string prefix;
    unsigned level;
  };
  std::deque<Pending> pending;
  pending.push_back({std::move(at), "", 1});
  while (!pending.empty()) {
    Pending p = std::move(pending.front());
    pending.pop_front();
    Fd readable(::openat(p.dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!readable.valid()) {
      if (p.prefix.empty()) return path_error(*t, errno, "list");
      continue;  // a subdirectory that went away or may not be read
    }
    DIR* d = ::fdopendir(readable.release());
    if (!d) return path_error(*t, errno, "list");
    std::vector<DirEntry> here;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.empty() || name.front() == '.') continue;
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_UNKNOWN) {
        struct stat st;
        is_dir = ::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                 S_ISDIR(st.st_mode);
      }
      here.push_back({p.prefix + name, is_dir});
    }
    ::closedir(d);
    std::sort(here.begin(), here.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.path < b.path; });
    for (DirEntry& e : here) {
      if (out.entries.size() >= limit) {
        out.truncated = true;
        break;
      }
      if (e.directory && p.level < depth) {
        Fd child;
        const std::string name = e.path.substr(p.prefix.size());
        if (root_.open_child_dir(p.dir.get(), name, child) == 0)
          pending.push_back({std::move(child), e.path + "/", p.level + 1});
      }
      out.entries.push_back(std::move(e));
    }
    if (out.truncated) break;
  }
  std::sort(out.entries.begin(), out.entries.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.path < b.path; });
  return out;
}

}  // namespace editd::local_backend_detail
