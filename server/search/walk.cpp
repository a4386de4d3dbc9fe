#include "server/search/walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "backends/root_path.h"

namespace editd::search {

bool path_less(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == b[i]) continue;
    // '/' ends a component: it sorts before every byte of a name.
    const unsigned char x = a[i] == '/' ? 0 : static_cast<unsigned char>(a[i]);
    const unsigned char y = b[i] == '/' ? 0 : static_cast<unsigned char>(b[i]);
    return x < y;
  }
  return a.size() < b.size();
}

bool glob_matches(const std::string& glob, std::string_view rel) {
  if (glob.find('/') == std::string::npos) {
    const std::size_t slash = rel.rfind('/');
    const std::string leaf(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
    return ::fnmatch(glob.c_str(), leaf.c_str(), 0) == 0;
  }
  std::string_view g = glob;
  if (g.starts_with("/")) g.remove_prefix(1);
  return ::fnmatch(std::string(g).c_str(), std::string(rel).c_str(), 0) == 0;
}

bool is_text(std::string_view bytes, bool prefix) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull, kOnes = 0x0101010101010101ull;
  while (i < n) {
    // Eight ASCII bytes at a time: none with its high bit, none zero.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      if ((w & kHigh) || ((w - kOnes) & ~w & kHigh)) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = p[i];
    if (c == 0) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return prefix;
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += len;
  }
  return true;
}


void file_rule_leaves(std::string_view rules, std::vector<std::string>& out) {
  while (!rules.empty()) {
    const std::size_t nl = rules.find('\n');
    std::string_view line = rules.substr(0, nl);
    rules.remove_prefix(nl == std::string_view::npos ? rules.size() : nl + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    if (line.find('\\') != std::string_view::npos || line.find('[') != std::string_view::npos) {
      out.push_back("*");  // escapes and classes: not judged here
      continue;
    }
    while (line.ends_with(' ')) line.remove_suffix(1);
    if (line.empty() || line.ends_with('/')) continue;  // directories only
    const std::size_t slash = line.rfind('/');
    std::string_view leaf = slash == std::string_view::npos ? line : line.substr(slash + 1);
    out.push_back(leaf.empty() ? "*" : std::string(leaf));
  }
}

namespace {

// A regular .gitignore of `dir`, at most 1 MiB, never through a link; "".
std::string read_gitignore(int dir) {
  Fd f(::openat(dir, ".gitignore", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!f.valid() || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20))
    return {};
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  const ssize_t n = ::pread(f.get(), out.data(), out.size(), 0);
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

bool leaf_may_match(const std::vector<std::string>* leaves, const std::string& name) {
  if (!leaves) return true;
  for (const std::string& l : *leaves)
    if (l == "*" || ::fnmatch(l.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

}  // namespace

Walk::Walk(Fd start, std::string start_rel, const ops::WalkFilter& filter, GitIgnore* ignore,
           bool ignore_safe, unsigned max_depth, std::optional<std::string> after,
           bool include_after)
    : filter_(filter),
      ignore_(filter.include_ignored ? nullptr : ignore),
      max_depth_(max_depth),
      after_(std::move(after)),
      include_after_(include_after) {
  // The prefilter knows the rules in effect from the root only: below it the
  // ancestors' files would have to be read too, so every file is asked.
  std::shared_ptr<const std::vector<std::string>> leaves;
  if (ignore_ && start_rel.empty()) {
    auto own = std::make_shared<std::vector<std::string>>();
    file_rule_leaves(ignore_->exclude(), *own);
    leaves = std::move(own);
  }
  push(std::move(start), start_rel.empty() ? "" : start_rel + "/", 1, ignore_safe,
       std::move(leaves));
}

void Walk::push(Fd dir, std::string prefix, unsigned level, bool ignore_safe,
                std::shared_ptr<const std::vector<std::string>> leaves) {
  Frame f;
  f.prefix = std::move(prefix);
  f.level = level;
  f.ignore_safe = ignore_safe;
  // readdir on a duplicate: the frame's own descriptor stays for openat.
  const int copy = ::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) return;
  DIR* d = ::fdopendir(copy);
  if (!d) {
    ::close(copy);
    return;
  }
  while (dirent* e = ::readdir(d)) {
    const char* n = e->d_name;
    if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
    if (f.children.size() >= kMaxDirEntries) {
      clipped_ = true;
      break;
    }
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st;
      if (::fstatat(dir.get(), n, &st, AT_SYMLINK_NOFOLLOW) == 0)
        type = S_ISDIR(st.st_mode)   ? DT_DIR
               : S_ISREG(st.st_mode) ? DT_REG
               : S_ISLNK(st.st_mode) ? DT_LNK
                                     : DT_FIFO;
    }
    // A .gitignore that is not a regular file (a link out of the root): the
    // rules are not asked about anything here (libgit2 would follow it).
    if (std::strcmp(n, ".gitignore") == 0 && type != DT_REG) f.ignore_safe = false;
    f.children.push_back({n, type});
  }
  ::closedir(d);
  std::sort(f.children.begin(), f.children.end(),
            [](const Child& a, const Child& b) { return a.name < b.name; });
  if (leaves && ignore_) {
    const bool has_own = std::any_of(f.children.begin(), f.children.end(), [](const Child& c) {
      return c.name == ".gitignore" && c.type == DT_REG;
    });
    if (has_own) {
      auto more = std::make_shared<std::vector<std::string>>(*leaves);
      file_rule_leaves(read_gitignore(dir.get()), *more);
      leaves = std::move(more);
    }
  }
  f.leaves = std::move(leaves);
  f.dir = std::make_shared<Fd>(std::move(dir));
  stack_.push_back(std::move(f));
}

std::optional<WalkEntry> Walk::next() {
  using Kind = ops::ListEntry::Kind;
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.next >= f.children.size()) {
      stack_.pop_back();
      continue;
    }
    const Child& c = f.children[f.next++];
    ++visited_;
    const std::string name = c.name;  // `c` may move when the stack grows
    if (name == ".git") continue;
    if (f.prefix.empty() && is_state_dir_name(name)) continue;
    if (name.front() == '.' && (!filter_.include_hidden || is_temp_name(name))) continue;
    std::string rel = f.prefix + name;
    const bool is_dir = c.type == DT_DIR;
    bool enter = is_dir && f.level < max_depth_;
    bool give = true;
    if (after_) {
      // Before the cursor: passed over, unless an ancestor of it.
      if (path_less(rel, *after_) || rel == *after_) {
        const bool ancestor = after_->size() > rel.size() && after_->starts_with(rel) &&
                              (*after_)[rel.size()] == '/';
        give = rel == *after_ && include_after_;
        if (!ancestor && rel != *after_) continue;
        if (rel == *after_ && !is_dir) {
          after_.reset();  // found: everything after is new
        }
      }
    }
    bool excluded = false;
    for (const std::string& g : filter_.exclude)
      if (glob_matches(g, rel)) excluded = true;
    if (excluded) continue;
    const bool ask = ignore_ && f.ignore_safe && (is_dir || leaf_may_match(f.leaves.get(), name));
    const bool deferred = ask && !is_dir && defer_files_;
    if (ask && !deferred && ignore_->ignored(rel, is_dir)) continue;
    const Kind kind = is_dir             ? Kind::kDirectory
                      : c.type == DT_REG ? Kind::kFile
                      : c.type == DT_LNK ? Kind::kSymlink
                                         : Kind::kOther;
    std::shared_ptr<Fd> dir = f.dir;
    const unsigned level = f.level;
    const bool safe = f.ignore_safe;
    std::shared_ptr<const std::vector<std::string>> leaves = f.leaves;
    if (enter) {
      Fd child(::openat(dir->get(), name.c_str(),
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      // `f` may move when the stack grows: nothing of it is used after.
      if (child.valid() && stack_.size() < ops::kWalkMaxDepth)
        push(std::move(child), rel + "/", level + 1, safe, std::move(leaves));
    }
    if (!give) continue;
    if (kind != Kind::kDirectory && !filter_.include.empty()) {
      bool included = false;
      for (const std::string& g : filter_.include)
        if (glob_matches(g, rel)) included = true;
      if (!included) continue;
    }
    return WalkEntry{std::move(dir), name, std::move(rel), kind, level, deferred};
  }
  return std::nullopt;
}

}  // namespace editd::search
