// The local backend's walk of a whole tree (FsBackend::tree): what a
// directory move or removal takes, hidden entries included, links never
// followed.

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <utility>
#include <vector>

#include "backends/local/internal.h"

namespace editd::local_backend_detail {

asio::awaitable<Result<FsBackend::Tree>> LocalBackend::tree(std::string canonical,
                                                             std::size_t limit,
                                                             std::uint64_t max_bytes) {
  return offload(pool_, [this, canonical = std::move(canonical), limit, max_bytes] {
    return tree_sync(canonical, limit, max_bytes);
  });
}

Result<FsBackend::Tree> LocalBackend::tree_sync(const std::string& canonical, std::size_t limit,
                                                std::uint64_t max_bytes) const {
  auto t = target_of(canonical);
  if (!t) return t.error();
  Fd at;
  if (int err = root_.open_dir(t->rel, at)) return path_error(*t, err, "walk");
  Tree out;
  struct Pending {
    Fd dir;  // O_PATH, opened without following a link
    std::string prefix;
  };
  std::deque<Pending> pending;
  pending.push_back({std::move(at), ""});
  while (!pending.empty() && !out.truncated) {
    Pending p = std::move(pending.front());
    pending.pop_front();
    Fd readable(::openat(p.dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!readable.valid()) return path_error(*t, errno, "walk");
    DIR* d = ::fdopendir(readable.release());
    if (!d) return path_error(*t, errno, "walk");
    std::vector<TreeEntry> here;
    errno = 0;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      struct stat st;
      TreeEntry entry;
      entry.path = p.prefix + name;
      if (::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        entry.kind = TreeEntry::Kind::kOther;  // gone meanwhile, or not to be looked at
      } else if (S_ISLNK(st.st_mode)) {
        entry.kind = TreeEntry::Kind::kLink;
      } else if (S_ISDIR(st.st_mode)) {
        entry.kind = TreeEntry::Kind::kDirectory;
      } else if (S_ISREG(st.st_mode)) {
        entry.kind = TreeEntry::Kind::kFile;
        entry.size = static_cast<std::uint64_t>(st.st_size);
      } else {
        entry.kind = TreeEntry::Kind::kOther;
      }
      here.push_back(std::move(entry));
    }
    ::closedir(d);
    std::sort(here.begin(), here.end(),
              [](const TreeEntry& a, const TreeEntry& b) { return a.path < b.path; });
    for (TreeEntry& e : here) {
      if (e.kind == TreeEntry::Kind::kFile) {
        ++out.files;
        out.bytes += e.size;
      }
      if (out.entries.size() >= limit || out.bytes > max_bytes) {
        out.truncated = true;
        break;
      }
      if (e.kind == TreeEntry::Kind::kDirectory) {
        Fd child;
        const std::string name = e.path.substr(p.prefix.size());
        if (int err = root_.open_child_dir(p.dir.get(), name, child))
          return path_error(*t, err, "walk");
        pending.push_back({std::move(child), e.path + "/"});
      }
      out.entries.push_back(std::move(e));
    }
  }
  std::sort(out.entries.begin(), out.entries.end(),
            [](const TreeEntry& a, const TreeEntry& b) { return a.path < b.path; });
  return out;
}

}  // namespace editd::local_backend_detail
