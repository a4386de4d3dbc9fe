#include "backends/local/journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <random>
#include <set>

#include "backends/root_path.h"
#include "backends/local/file_metadata.h"
#include "backends/local/stripe_lock.h"
#include "backends/local/sync.h"

namespace editd::journal {
namespace {

constexpr std::string_view kHeader = "editd-journal 3";
// Written by builds without old records, read the same way.
constexpr std::string_view kHeaderV2 = "editd-journal 2";

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i <= line.size()) {
    std::size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    out.push_back(line.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::optional<std::uint64_t> number(std::string_view s) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// One path component that names an entry of a directory: not empty, no '/',
// neither "." nor "..", no NUL.
bool one_component(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

// A dir field: "." is the root (""); else a relative path beneath the root,
// each of its components one_component, and not editd's own .editd.
std::optional<std::string> dir_of(std::string_view field) {
  if (field == ".") return std::string();
  std::optional<std::string> d = unescape(field);
  if (!d || d->empty() || reserved_below_root(*d)) return std::nullopt;
  for (std::size_t i = 0; i <= d->size();) {
    std::size_t j = d->find('/', i);
    if (j == std::string::npos) j = d->size();
    if (!one_component(std::string_view(*d).substr(i, j - i))) return std::nullopt;
    i = j + 1;
  }
  return d;
}

// A name field: one component; `temp` also has the name of editd's temporary
// files; `in_root` (the record's directory is the root): not .editd.
std::optional<std::string> name_of(std::string_view field, bool temp, bool in_root) {
  std::optional<std::string> n = unescape(field);
  if (!n || !one_component(*n)) return std::nullopt;
  if (temp != is_temp_name(*n)) return std::nullopt;
  if (in_root && is_state_dir_name(*n)) return std::nullopt;
  return n;
}

// `line` without its tag, when the tag is the one `key` gives line `index` of
// journal `name`.
std::optional<std::string_view> verified(std::string_view line, const Key& key,
                                         std::string_view name, std::size_t index) {
  const std::size_t space = line.rfind(' ');
  if (space == std::string_view::npos) return std::nullopt;
  std::string_view body = line.substr(0, space);
  if (line.substr(space + 1) != key.tag(name, index, body)) return std::nullopt;
  return body;
}

// Makes (if missing) and opens the subdirectory `name` of `dir`; `made` says
// whether this call created it.
int make_child_dir(const Beneath& root, int dir, const std::string& name, Fd& out, bool& made) {
  made = ::mkdirat(dir, name.c_str(), 0777) == 0;
  if (!made && errno != EEXIST) return errno;
  return root.open_child_dir(dir, name, out);
}

constexpr std::string_view kGitignore = "*\n";

int write_gitignore(int editd) {
  Fd f(::openat(editd, ".gitignore", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (!f.valid()) return errno == EEXIST ? 0 : errno;
  return write_all(f.get(), kGitignore);
}

// The temporary files that the tmp, mv and old records of `text` name, read
// without any check of tags or form: what is read only spares files.
void add_named_temps(std::string_view text, NamedTemps& out) {
  for (std::size_t i = 0; i < text.size();) {
    std::size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) nl = text.size();
    std::vector<std::string_view> f = fields(text.substr(i, nl - i));
    i = nl + 1;
    // tmp D T, mv D T N INO DEV, old D T N INO SIZE: T is a staged file.
    if (!((f[0] == "tmp" && f.size() >= 3) || (f[0] == "mv" && f.size() >= 6) ||
          (f[0] == "old" && f.size() >= 6)))
      continue;
    std::optional<std::string> dir = f[1] == "." ? std::string() : unescape(f[1]);
    std::optional<std::string> name = unescape(f[2]);
    if (dir && name && is_temp_name(*name)) out.temps.emplace(std::move(*dir), std::move(*name));
  }
}

}  // namespace

std::string escape(std::string_view raw) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : raw) {
    if (c <= ' ' || c >= 0x7f || c == '%') {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::optional<std::string> unescape(std::string_view escaped) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] != '%') {
      out += escaped[i];
      continue;
    }
    if (i + 2 >= escaped.size()) return std::nullopt;
    int hi = digit(escaped[i + 1]), lo = digit(escaped[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string dir_field(std::string_view rel) { return rel.empty() ? "." : escape(rel); }

std::string random_suffix(std::size_t n) {
  static constexpr std::string_view kChars =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(::getpid());
  }());
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += kChars[rng() % kChars.size()];
  return out;
}

std::string temp_name(std::string_view target) {
  return "." + std::string(target.substr(0, 200)) + std::string(kTempMark) +
         random_suffix(kTempSuffix);
}

bool remove_stale_temp(int dir, const std::string& name) {
  Fd f(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!f.valid()) return false;
  struct stat st, now;
  if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (::flock(f.get(), LOCK_EX | LOCK_NB) != 0) return false;
  if (::fstatat(dir, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_ino != st.st_ino ||
      now.st_dev != st.st_dev)
    return false;
  return ::unlinkat(dir, name.c_str(), 0) == 0;
}

int remove_stale_temps(int dir, const std::string& rel, const NamedTemps& keep, std::size_t limit) {
  if (!keep.complete) return 0;
  int fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return 0;
  }
  std::vector<std::string> temps;
  std::size_t seen = 0;
  while (dirent* e = ::readdir(d)) {
    if (++seen > limit) break;
    if (is_temp_name(e->d_name) && !keep.keeps(rel, e->d_name)) temps.emplace_back(e->d_name);
  }
  ::closedir(d);
  int removed = 0;
  for (const std::string& t : temps) removed += remove_stale_temp(dir, t) ? 1 : 0;
  return removed;
}

std::optional<Parsed> parse(std::string_view text, const Key& key, std::string_view name) {
  Parsed out;
  if (!key.valid()) return std::nullopt;
  std::size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  auto header = verified(text.substr(0, nl), key, name, 0);
  if (!header || (*header != kHeader && *header != kHeaderV2)) return std::nullopt;
  std::size_t i = nl + 1;
  std::size_t index = 1;
  // Records end with '\n': a last line without one was torn by the crash.
  // Every complete line must carry its tag, and every name and directory be
  // one editd writes (one component; beneath the root, not .editd): else the
  // whole journal is another's. A tagged line of another form ends what is
  // read, as a torn one does.
  while ((nl = text.find('\n', i)) != std::string_view::npos) {
    auto line = verified(text.substr(i, nl - i), key, name, index++);
    if (!line) return std::nullopt;
    std::vector<std::string_view> f = fields(*line);
    i = nl + 1;
    const std::string_view kind = f[0];
    if (kind == "dir" && f.size() == 2) {
      auto d = dir_of(f[1]);
      if (!d) return std::nullopt;
      out.dirs.push_back(*d);
    } else if (kind == "tmp" && f.size() == 3) {
      auto d = dir_of(f[1]);
      auto t = d ? name_of(f[2], true, d->empty()) : std::nullopt;
      if (!d || !t) return std::nullopt;
      out.temps.emplace_back(*d, *t);
    } else if (kind == "mv" && f.size() == 6) {
      Record r;
      auto d = dir_of(f[1]);
      auto t = d ? name_of(f[2], true, d->empty()) : std::nullopt;
      auto n = d ? name_of(f[3], false, d->empty()) : std::nullopt;
      auto ti = number(f[4]);
      auto oi = f[5] == "-" ? std::optional<std::uint64_t>(0) : number(f[5]);
      if (!d || !t || !n || !ti || !oi) return std::nullopt;
      r.kind = Record::Kind::kMove;
      r.dir = *d;
      r.temp = *t;
      r.name = *n;
      r.temp_ino = static_cast<ino_t>(*ti);
      if (f[5] != "-") r.old_ino = static_cast<ino_t>(*oi);
      out.plan.push_back(std::move(r));
    } else if (kind == "rm" && f.size() == 4) {
      Record r;
      auto d = dir_of(f[1]);
      auto n = d ? name_of(f[2], false, d->empty()) : std::nullopt;
      auto ino = number(f[3]);
      if (!d || !n || !ino) return std::nullopt;
      r.kind = Record::Kind::kRemove;
      r.dir = *d;
      r.name = *n;
      r.ino = static_cast<ino_t>(*ino);
      out.plan.push_back(std::move(r));
    } else if (kind == "old" && f.size() == 6) {
      auto d = dir_of(f[1]);
      auto t = d ? name_of(f[2], true, d->empty()) : std::nullopt;
      auto n = d ? name_of(f[3], false, d->empty()) : std::nullopt;
      auto ino = number(f[4]);
      auto size = number(f[5]);
      if (!d || !t || !n || !ino || !size) return std::nullopt;
      out.saved.push_back({*d, *t, *n, static_cast<ino_t>(*ino), *size});
    } else if (kind == "commit" && f.size() == 2) {
      auto k = number(f[1]);
      if (!k || *k != out.plan.size()) break;  // not a commit: the change is rolled back
      out.committed = true;
    } else if (kind == "abort" && f.size() == 1) {
      out.aborted = true;
    } else {
      break;  // a record this build does not know: what follows is not read
    }
  }
  return out;
}

std::string old_record(std::string_view dir, std::string_view temp, std::string_view name,
                       ino_t ino, std::uint64_t size) {
  return "old " + dir_field(dir) + " " + escape(temp) + " " + escape(name) + " " +
         std::to_string(ino) + " " + std::to_string(size);
}

std::string Journal::tagged(std::string_view line) {
  std::string rec(line);
  rec += ' ';
  rec += key_->tag(name_, lines_++, line);
  rec += '\n';
  return rec;
}

int Journal::append(std::string_view line) { return write_all(file_.get(), tagged(line)); }

std::string Journal::tagged_lines(std::string_view records, std::size_t& count) {
  std::string text;
  count = 0;
  for (std::size_t i = 0; i < records.size();) {
    std::size_t nl = records.find('\n', i);
    if (nl == std::string_view::npos) nl = records.size();
    text += tagged(records.substr(i, nl - i));
    ++count;
    i = nl + 1;
  }
  return text;
}

int Journal::write_synced(std::string_view text) {
  if (int err = write_all(file_.get(), text)) return err;
  if (!durable_) return 0;
  return sync_data(file_.get());
}

int Journal::commit(std::string_view records) {
  std::size_t k = 0;
  std::string text = tagged_lines(records, k);
  text += tagged("commit " + std::to_string(k));
  if (int err = write_synced(text)) return err;
  if (!durable_ || dirs_taken_) return 0;
  if (int err = sync_directory(dir_.get())) return err;
  for (const Fd& d : fresh_dirs_)
    if (int err = sync_directory(d.get())) return err;
  return 0;
}

int Journal::take_directories(std::vector<Fd>& out) {
  auto take = [&](const Fd& d) {
    Fd readable = syncable_directory(d.get());
    if (!readable.valid()) return errno;
    out.push_back(std::move(readable));
    return 0;
  };
  if (int err = take(dir_)) return err;
  for (const Fd& d : fresh_dirs_)
    if (int err = take(d)) return err;
  dirs_taken_ = true;
  return 0;
}

int Journal::abort() { return write_synced(tagged("abort")); }

int Journal::log(std::string_view records) {
  std::size_t count = 0;
  return write_synced(tagged_lines(records, count));
}

int Journals::begin(Journal& out) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!key_.valid()) return ENOKEY;
  int err = ENOENT;
  // A process tidying .editd away may remove it under us: then again.
  for (int attempt = 0; attempt < 8; ++attempt) {
    Fd editd, dir;
    bool made_editd = false, made_dir = false;
    if ((err = make_child_dir(root_, root_.root_fd(), ".editd", editd, made_editd))) return err;
    if ((err = write_gitignore(editd.get()))) {
      if (err == ENOENT) continue;
      return err;
    }
    if ((err = make_child_dir(root_, editd.get(), "journal", dir, made_dir))) {
      if (err == ENOENT) continue;
      return err;
    }
    std::string name = "b-" + std::to_string(::getpid()) + "-" + random_suffix(8);
    Fd file(::openat(dir.get(), name.c_str(),
                     O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.valid()) {
      err = errno;
      if (err == ENOENT || err == EEXIST) continue;
      return err;
    }
    // A recovery elsewhere may have the new, empty file locked for a moment.
    if (::flock(file.get(), LOCK_EX | LOCK_NB) != 0) {
      err = errno;
      ::unlinkat(dir.get(), name.c_str(), 0);
      continue;
    }
    // A recovery elsewhere may have taken it for a dead writer's and deleted it.
    struct stat st;
    if (::fstat(file.get(), &st) != 0 || st.st_nlink == 0) continue;
    out.key_ = &key_;
    out.name_ = name;
    out.lines_ = 0;
    if ((err = write_all(file.get(), out.tagged(kHeader)))) {
      ::unlinkat(dir.get(), name.c_str(), 0);
      return err;
    }
    out.file_ = std::move(file);
    out.durable_ = durable_;
    out.fresh_dirs_.clear();
    out.dirs_taken_ = false;
    if (made_editd) out.fresh_dirs_.emplace_back(::fcntl(root_.root_fd(), F_DUPFD_CLOEXEC, 0));
    if (made_editd || made_dir) out.fresh_dirs_.push_back(std::move(editd));
    out.dir_ = std::move(dir);
    ++in_flight_;
    return 0;
  }
  return err;
}

void Journals::end(Journal& j) {
  std::lock_guard<std::mutex> lk(mu_);
  if (j.file_.valid()) {
    ::unlinkat(j.dir_.get(), j.name_.c_str(), 0);
    j.file_.reset();
    j.dir_.reset();
    j.fresh_dirs_.clear();
    --in_flight_;
  }
  if (in_flight_ == 0) tidy_locked();
}

void Journals::abandon(Journal& j) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!j.file_.valid()) return;
  j.file_.reset();
  j.dir_.reset();
  j.fresh_dirs_.clear();
  --in_flight_;
}

void Journals::tidy_locked() {
  Fd editd;
  if (root_.open_child_dir(root_.root_fd(), ".editd", editd) != 0) return;
  if (::unlinkat(editd.get(), "journal", AT_REMOVEDIR) != 0 && errno != ENOENT) return;
  bool removed = false;
  Fd ignore(::openat(editd.get(), ".gitignore", O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  // Ours, or left empty by a kill between its creation and its one write.
  if (std::string text = ignore.valid() ? read_all(ignore.get()) : "-";
      text == kGitignore || text.empty())
    removed = ::unlinkat(editd.get(), ".gitignore", 0) == 0;
  // Not empty: someone else's files, or another editd's change just began.
  if (::unlinkat(root_.root_fd(), ".editd", AT_REMOVEDIR) != 0 && removed)
    write_gitignore(editd.get());
}

NamedTemps Journals::named_temps(int dir, const std::vector<std::string>& names) {
  NamedTemps out;
  std::size_t read = 0;
  for (const std::string& name : names) {
    Fd file(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st;
    if (!file.valid() && (errno == ENOENT || errno == ELOOP)) continue;  // gone, or a link
    if (!file.valid() || ::fstat(file.get(), &st) != 0) {
      out.complete = false;
      return out;
    }
    if (!S_ISREG(st.st_mode)) continue;  // never a journal, names nothing
    read += static_cast<std::size_t>(st.st_size);
    if (read > kMaxJournalBytes) {
      out.complete = false;
      return out;
    }
    add_named_temps(read_all(file.get()), out);
  }
  return out;
}

}  // namespace editd::journal
