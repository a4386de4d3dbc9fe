#include "backends/local/journal_key.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdlib>

#include "backends/local/sync.h"

namespace editd::journal {
namespace {

constexpr const char* kKeyFile = "journal-key";

int read_key(int state, std::array<unsigned char, Key::kBytes>& out) {
  Fd f(::openat(state, kKeyFile, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!f.valid()) return errno;
  struct stat st;
  if (::fstat(f.get(), &st) != 0) return errno;
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0 ||
      st.st_size != static_cast<off_t>(Key::kBytes))
    return EPERM;
  std::string bytes = read_all(f.get());
  if (bytes.size() != Key::kBytes) return EPERM;
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return 0;
}

int fill_random(std::array<unsigned char, Key::kBytes>& out) {
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::getrandom(out.data() + got, out.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    got += static_cast<std::size_t>(n);
  }
  return 0;
}

// A new key written whole under a temporary name, then linked to its name:
// a reader never sees a part of one, and of two editd making it at once the
// second finds the first's (EEXIST) and uses that.
int make_key(int state) {
  std::array<unsigned char, Key::kBytes> secret{};
  if (int err = fill_random(secret)) return err;
  const std::string temp = std::string(kKeyFile) + "." + std::to_string(::getpid()) + ".new";
  ::unlinkat(state, temp.c_str(), 0);
  Fd f(::openat(state, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!f.valid()) return errno;
  int err = write_all(f.get(),
                      std::string_view(reinterpret_cast<const char*>(secret.data()), secret.size()));
  if (!err) err = sync_data(f.get());
  if (!err && ::linkat(state, temp.c_str(), state, kKeyFile, 0) != 0 && errno != EEXIST) err = errno;
  ::unlinkat(state, temp.c_str(), 0);
  if (!err) err = sync_directory(state);
  return err;
}

}  // namespace

int Key::load(int state, Key& out) {
  int err = read_key(state, out.secret_);
  if (err == ENOENT) {
    if ((err = make_key(state))) return err;
    err = read_key(state, out.secret_);
  }
  out.valid_ = err == 0;
  return err;
}

std::string Key::tag(std::string_view name, std::size_t index, std::string_view line) const {
  std::string text;
  text.reserve(name.size() + line.size() + 24);
  text.append(name);
  text += '\n';
  text += std::to_string(index);
  text += '\n';
  text.append(line);
  const XXH128_hash_t h =
      XXH3_128bits_withSecret(text.data(), text.size(), secret_.data(), secret_.size());
  static const char* hex = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    const unsigned b = static_cast<unsigned>((i < 8 ? h.high64 >> (56 - 8 * i)
                                                    : h.low64 >> (56 - 8 * (i - 8))) &
                                             0xff);
    out[2 * i] = hex[b >> 4];
    out[2 * i + 1] = hex[b & 15];
  }
  return out;
}

std::string default_state_dir() {
  auto absolute = [](const char* v) { return v && v[0] == '/'; };
  if (const char* x = std::getenv("XDG_STATE_HOME"); absolute(x)) return std::string(x) + "/editd";
  if (const char* h = std::getenv("HOME"); absolute(h) && std::string_view(h) != "/")
    return std::string(h) + "/.local/state/editd";
  if (const passwd* pw = ::getpwuid(::geteuid());
      pw && absolute(pw->pw_dir) && std::string_view(pw->pw_dir) != "/")
    return std::string(pw->pw_dir) + "/.local/state/editd";
  return "";
}

int open_state_dir(const std::string& path, Fd& out) {
  if (path.empty() || path.front() != '/') return EINVAL;
  // The missing parents, from the top; each made private.
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string parent = path.substr(0, slash);
    if (::mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST) return errno;
  }
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return errno;
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return errno;
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return errno;
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) return EPERM;
  out = std::move(fd);
  return 0;
}

}  // namespace editd::journal
