#include "server/search/git_ignore.h"

#include <fcntl.h>
#include <git2.h>
#include <git2/sys/repository.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include "support/fd.h"

namespace editd::search {

namespace {

// .git/info/exclude larger than this is not honoured.
constexpr std::size_t kMaxExcludeBytes = 1 << 20;

// libgit2 once for the process: initialised, and told to search no
// configuration or ignore file outside the repository it is given.
void init_libgit2() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    for (int level : {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_XDG,
                      GIT_CONFIG_LEVEL_PROGRAMDATA})
      git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, "");
  });
}

bool write_file(const std::string& path, std::string_view bytes) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return false;
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd.get(), bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// ROOT/.git/info/exclude, through descriptors, never following a link; ""
// when there is none, or it is not a regular file, or too large.
std::string read_exclude(int git_dir) {
  Fd info(::openat(git_dir, "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!info.valid()) return {};
  Fd f(::openat(info.get(), "exclude", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!f.valid() || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::size_t>(st.st_size) > kMaxExcludeBytes)
    return {};
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(f.get(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

void remove_scratch(const std::string& dir) {
  for (const char* f : {"/info/exclude", "/HEAD", "/config"}) ::unlink((dir + f).c_str());
  for (const char* d : {"/info", "/objects", "/refs"}) ::rmdir((dir + d).c_str());
  ::rmdir(dir.c_str());
}

}  // namespace

struct GitIgnore::Repo {
  git_repository* repo = nullptr;
  git_config* config = nullptr;
  ~Repo() {
    if (repo) git_repository_free(repo);
    if (config) git_config_free(config);
  }
};

std::unique_ptr<GitIgnore> GitIgnore::open(int root_fd, const std::string& root) {
  Fd git_dir(::openat(root_fd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!git_dir.valid()) return nullptr;  // no repository here (or .git is a file or a link)
  const std::string exclude = read_exclude(git_dir.get());
  init_libgit2();

  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp == '/' ? tmp : "/tmp") + "/editd-ignore-XXXXXX";
  if (!::mkdtemp(dir.data())) {
    spdlog::warn("search: .gitignore not honoured: no private repository ({})", strerror(errno));
    return nullptr;
  }
  std::unique_ptr<GitIgnore> out(new GitIgnore());
  out->scratch_ = dir;
  out->exclude_ = exclude;
  bool made = ::mkdir((dir + "/objects").c_str(), 0700) == 0 &&
              ::mkdir((dir + "/refs").c_str(), 0700) == 0 &&
              ::mkdir((dir + "/info").c_str(), 0700) == 0 &&
              write_file(dir + "/HEAD", "ref: refs/heads/main\n") &&
              write_file(dir + "/config", "") && write_file(dir + "/info/exclude", exclude);
  out->repo_ = std::make_unique<Repo>();
  Repo& r = *out->repo_;
  if (made)
    made = git_repository_open_ext(&r.repo, dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) ==
               0 &&
           git_config_new(&r.config) == 0 && git_repository_set_config(r.repo, r.config) == 0 &&
           git_repository_set_workdir(r.repo, root.c_str(), 0) == 0;
  if (!made) {
    const git_error* e = git_error_last();
    spdlog::warn("search: .gitignore not honoured: {}", e && e->message ? e->message : "io");
    return nullptr;
  }
  return out;
}

GitIgnore::~GitIgnore() {
  repo_.reset();
  if (!scratch_.empty()) remove_scratch(scratch_);
}

bool GitIgnore::ignored(std::string_view rel, bool directory) {
  path_.assign(rel);
  if (directory) path_ += '/';
  int ignored = 0;
  if (git_ignore_path_is_ignored(&ignored, repo_->repo, path_.c_str()) != 0) return false;
  return ignored != 0;
}

}  // namespace editd::search
