// list and search: walks beneath the root on the pool (server/search/).
//
// search runs in slices: each walks on to a batch of files and scans them on
// two pool threads at once (the second joins when the pool has it free), then
// the coroutine, back on its I/O thread, looks at the request's cancellation
// and its deadline before the next. The hits of a page come in walk order,
// so a cursor (a file's path and how many of its hits were shown) goes on
// where the page stopped.
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <charconv>
#include <condition_variable>
#include <mutex>

#include "edit/anchors/hashline.h"
#include "edit/text/fingerprint.h"
#include "edit/text/text.h"
#include "server/ops/pipeline.h"
#include "server/search/git_ignore.h"
#include "server/search/matcher.h"
#include "server/search/walk.h"
#include "support/offload.h"

namespace editd {

namespace {

using Clock = std::chrono::steady_clock;
using search::GitIgnore;
using search::Matcher;
using search::Walk;
using search::WalkEntry;

// Files a slice scans at most.
constexpr std::size_t kBatchFiles = 64;

// `canonical` relative to `root` ("" for the root itself).
std::string relative_to(const std::string& root, const std::string& canonical) {
  if (canonical == root) return {};
  return canonical.substr(root.size() + (root.ends_with('/') ? 0 : 1));
}

// Whether the .gitignore of the root and of each directory down to `rel`
// (exclusive of `rel` itself, which the walk looks at) is a regular file or
// absent.
bool ancestors_ignore_safe(int root_fd, const std::string& rel) {
  std::string dir;
  std::size_t from = 0;
  while (true) {
    const std::string probe = dir.empty() ? ".gitignore" : dir + "/.gitignore";
    struct stat st;
    if (::fstatat(root_fd, probe.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
      return false;
    if (from >= rel.size()) return true;
    const std::size_t slash = rel.find('/', from);
    dir = rel.substr(0, slash);
    if (slash == std::string::npos) return true;
    from = slash + 1;
  }
}

// The root's descriptor, the start's, and the start's path relative to the root.
struct Opened {
  std::string root;
  Fd root_fd;
  Fd start;
  std::string rel;
};

Result<Opened> open_start(FsBackend& backend, const std::string& canonical) {
  Opened o;
  auto start = backend.open_directory(canonical, o.root);
  if (!start) return start.error();
  o.start = std::move(*start);
  std::string again;
  auto root = backend.open_directory(o.root, again);
  if (!root) return root.error();
  o.root_fd = std::move(*root);
  o.rel = relative_to(o.root, canonical);
  return o;
}

ops::ListEntry::Kind kind_of(mode_t mode) {
  using Kind = ops::ListEntry::Kind;
  return S_ISREG(mode)   ? Kind::kFile
         : S_ISDIR(mode) ? Kind::kDirectory
         : S_ISLNK(mode) ? Kind::kSymlink
                         : Kind::kOther;
}

// Whether file `name` of `dir` starts as text (is_text on its first bytes).
bool probe_text(int dir, const std::string& name) {
  Fd f(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!f.valid() || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  char buf[ops::kTextProbeBytes];
  ssize_t n;
  do n = ::pread(f.get(), buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) return false;
  return search::is_text(std::string_view(buf, static_cast<std::size_t>(n)),
                         static_cast<std::size_t>(n) == sizeof buf);
}

Result<ops::Listed> list_sync(Opened o, const ops::ListRequest& p, std::string shown) {
  std::unique_ptr<GitIgnore> ignore;
  if (!p.filter.include_ignored) ignore = GitIgnore::open(o.root_fd.get(), o.root);
  ops::WalkFilter walk_filter = p.filter;
  walk_filter.include.clear();  // list's globs choose entries of every kind, below
  Walk walk(std::move(o.start), o.rel, walk_filter, ignore.get(),
            ancestors_ignore_safe(o.root_fd.get(), o.rel), static_cast<unsigned>(p.depth),
            p.cursor, false);
  ops::Listed out;
  out.path = std::move(shown);
  while (auto e = walk.next()) {
    if (walk.visited() > ops::kListMaxVisited) {
      out.truncated_by = "entries";
      break;
    }
    if (!p.filter.include.empty() &&
        std::none_of(p.filter.include.begin(), p.filter.include.end(),
                     [&](const std::string& g) { return search::glob_matches(g, e->rel); }))
      continue;
    if (out.entries.size() >= p.limit) {
      out.next_cursor = out.entries.back().path;
      break;
    }
    ops::ListEntry entry;
    struct stat st;
    if (::fstatat(e->dir->get(), e->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      entry.kind = kind_of(st.st_mode);
      entry.size = static_cast<std::uint64_t>(st.st_size);
    } else {
      entry.kind = e->kind;
    }
    if (entry.kind == ops::ListEntry::Kind::kDirectory) entry.size = 0;
    if (entry.kind == ops::ListEntry::Kind::kFile) entry.text = probe_text(e->dir->get(), e->name);
    entry.path = std::move(e->rel);
    out.entries.push_back(std::move(entry));
  }
  if (out.truncated_by && !out.entries.empty()) out.next_cursor = out.entries.back().path;
  return out;
}

// ---- search ----

struct ScanJob {
  std::shared_ptr<Fd> dir;
  std::string name;
  std::string rel;
  std::uint64_t skip = 0;  // hits of it shown by earlier pages
  bool ask_ignore = false;  // the ignore rules are asked about it by the scan
};

struct ScanResult {
  enum class Status { kPending, kIgnored, kScanned, kBinary, kTooLarge, kUnreadable };
  Status status = Status::kPending;
  std::vector<ops::SearchHit> hits;  // from the first not skipped
  std::uint64_t total = 0;           // hits found, skipped ones included
  bool more = false;                 // hits past the cap were left unfound
};

// What every slice of one search shares; one slice at a time.
struct SearchRun {
  ops::SearchRequest request;
  std::shared_ptr<const Matcher> matcher;
  std::unique_ptr<GitIgnore> ignore;
  std::unique_ptr<GitIgnore> helper_ignore;  // the helper thread's own (libgit2 is not shared)
  std::unique_ptr<Walk> walk;
  std::string root;
  std::uint64_t max_file_bytes = 0;
  Views* views = nullptr;
  Views::Where where;  // reader and scope; path per file
  std::size_t view_budget = 0;
  Clock::time_point deadline;
  // A single file searched (the request's path names one): its job.
  std::optional<ScanJob> single;
  std::string cursor_file;  // the file the cursor names, whose first hits are skipped
  std::uint64_t cursor_skip = 0;

  ops::Searched out;
  std::size_t bytes = 0;  // of the reply so far, roughly
  std::string last_file;  // the last file wholly shown, and its hits
  std::uint64_t last_hits = 0;
  bool walk_ended = false;
};

std::string cursor_of(const std::string& file, std::uint64_t hits) {
  return std::to_string(hits) + ":" + file;
}

// The hit's line and context as shown: the break and a CR before it left
// out, cut at kSearchMaxLineBytes (at a character's start).
ops::SearchLine make_line(std::string_view text, std::size_t begin, std::size_t end,
                          std::uint64_t number) {
  if (end > begin && text[end - 1] == '\r') --end;
  std::string_view line = text.substr(begin, end - begin);
  if (number == 1 && line.starts_with(text::kBom)) line.remove_prefix(text::kBom.size());
  ops::SearchLine out;
  out.line = number;
  out.anchor = std::to_string(number) + "~" + hashline::tag(line);
  if (line.size() > ops::kSearchMaxLineBytes) {
    std::size_t cut = ops::kSearchMaxLineBytes;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
    out.text = std::string(line.substr(0, cut));
    out.cut = true;
  } else {
    out.text = std::string(line);
  }
  return out;
}

std::size_t line_bytes(const ops::SearchLine& l) { return l.text.size() + l.anchor.size() + 40; }

void record_view(SearchRun& run, const ScanJob& job, std::string_view bytes,
                 const std::vector<ops::SearchHit>& hits) {
  if (!run.views || run.where.reader == 0 || hits.empty()) return;
  auto doc = text::Document::decode(bytes);
  if (!doc) return;
  if (doc->line_count() * hashline::kSnapshotBytesPerLine > run.view_budget) return;
  text::Normalized norm(*doc);
  Views::Where where = run.where;
  where.path = run.root + (run.root.ends_with('/') ? "" : "/") + job.rel;
  const std::string fp = fingerprint(bytes);
  auto snapshot = std::make_shared<const hashline::Snapshot>(hashline::snapshot(norm.view()));
  bool first = true;
  for (const ops::SearchHit& h : hits) {
    const std::uint64_t from = h.before.empty() ? h.line.line : h.before.front().line;
    const std::uint64_t to = h.after.empty() ? h.line.line : h.after.back().line;
    if (first) {
      if (!run.views->add_lines(where, fp, {from, to}))
        run.views->remember(where, fp, {from, to}, snapshot);
      first = false;
    } else {
      run.views->add_lines(where, fp, {from, to});
    }
  }
}

// Scans one file: at most `cap` hits counted (skipped ones included), the
// shown ones' bytes at most `max_bytes`.
void scan_file(SearchRun& run, const ScanJob& job, ScanResult& r, std::string& buf,
               Matcher::Scratch& scratch, std::uint64_t cap, std::size_t max_bytes) {
  using Status = ScanResult::Status;
  Fd f(::openat(job.dir->get(), job.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!f.valid() || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    r.status = Status::kUnreadable;
    return;
  }
  if (static_cast<std::uint64_t>(st.st_size) > run.max_file_bytes) {
    r.status = Status::kTooLarge;
    return;
  }
  // Read to the end (the file may have grown), never past the bound.
  buf.resize(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t got = 0;
  while (true) {
    if (got == buf.size()) {
      if (buf.size() > run.max_file_bytes) {
        r.status = Status::kTooLarge;
        return;
      }
      buf.resize(std::min<std::uint64_t>(buf.size() * 2, run.max_file_bytes + 1));
    }
    const ssize_t n = ::read(f.get(), buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.status = Status::kUnreadable;
      return;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  const std::string_view text(buf.data(), got);
  if (!search::is_text(text)) {
    r.status = Status::kBinary;
    return;
  }
  r.status = Status::kScanned;
  const ops::SearchRequest& p = run.request;
  std::size_t pos = 0, counted = 0, shown_bytes = 0;
  std::uint64_t line = 1;
  while (r.total < cap) {
    auto m = run.matcher->find(text, pos, scratch);
    if (!m) break;
    const std::size_t start = m->first;
    if (start == text.size() && (text.empty() || text.back() == '\n')) break;  // past the last line
    const std::size_t nl = start == 0 ? std::string_view::npos : text.rfind('\n', start - 1);
    const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    line += static_cast<std::uint64_t>(std::count(text.data() + counted, text.data() + begin, '\n'));
    counted = begin;
    const void* e = ::memchr(text.data() + start, '\n', text.size() - start);
    const std::size_t end = e ? static_cast<const char*>(e) - text.data() : text.size();
    ++r.total;
    if (r.total > job.skip && shown_bytes <= max_bytes) {
      ops::SearchHit hit;
      hit.path = job.rel;
      hit.line = make_line(text, begin, end, line);
      shown_bytes += line_bytes(hit.line) + hit.path.size();
      // Context: up to `before` lines above, `after` below.
      std::size_t b = begin;
      for (std::uint64_t k = 1; k <= p.before && b > 0 && line > k; ++k) {
        const std::size_t prev_end = b - 1;  // its '\n'
        const std::size_t pn = prev_end == 0 ? std::string_view::npos : text.rfind('\n', prev_end - 1);
        const std::size_t prev_begin = pn == std::string_view::npos ? 0 : pn + 1;
        hit.before.push_back(make_line(text, prev_begin, prev_end, line - k));
        shown_bytes += line_bytes(hit.before.back());
        b = prev_begin;
      }
      std::reverse(hit.before.begin(), hit.before.end());
      std::size_t a = end;
      for (std::uint64_t k = 1; k <= p.after && a < text.size(); ++k) {
        const std::size_t next_begin = a + 1;
        if (next_begin >= text.size()) break;
        const void* ne = ::memchr(text.data() + next_begin, '\n', text.size() - next_begin);
        const std::size_t next_end = ne ? static_cast<const char*>(ne) - text.data() : text.size();
        hit.after.push_back(make_line(text, next_begin, next_end, line + k));
        shown_bytes += line_bytes(hit.after.back());
        a = next_end;
      }
      r.hits.push_back(std::move(hit));
    }
    if (end >= text.size()) break;
    pos = end + 1;
  }
  if (r.total >= cap && run.matcher->find(text, pos, scratch)) r.more = true;
  record_view(run, job, text, r.hits);
}

// The jobs of one slice, scanned by whichever threads take them.
struct Batch {
  SearchRun* run = nullptr;
  std::vector<ScanJob> jobs;
  std::vector<ScanResult> results;
  std::uint64_t cap = 0;
  std::size_t max_bytes = 0;
  std::atomic<std::size_t> next{0};
  // The helper on a second pool thread: 0 not started, 1 working, 2 shut out.
  std::atomic<int> helper{0};
  std::mutex mutex;
  std::condition_variable helper_done_cv;
  bool helper_done = false;

  void work(GitIgnore* ignore) {
    std::string buf;
    Matcher::Scratch scratch(*run->matcher);
    while (true) {
      const std::size_t i = next.fetch_add(1);
      if (i >= jobs.size()) return;
      if (Clock::now() >= run->deadline) return;  // left pending: the slice stops there
      if (jobs[i].ask_ignore && ignore && ignore->ignored(jobs[i].rel, false)) {
        results[i].status = ScanResult::Status::kIgnored;
        continue;
      }
      scan_file(*run, jobs[i], results[i], buf, scratch, cap + jobs[i].skip, max_bytes);
    }
  }
};

// The second pool thread's part: it works only if it starts before the first
// thread has finished alone.
struct Helper {
  std::shared_ptr<Batch> batch;
  void operator()() const {
    int idle = 0;
    if (!batch->helper.compare_exchange_strong(idle, 1)) return;
    batch->work(batch->run->helper_ignore.get());
    std::lock_guard lock(batch->mutex);
    batch->helper_done = true;
    batch->helper_done_cv.notify_all();
  }
};

// One slice: walks on to the next files, scans them, adds their hits to the
// page. Returns whether the search is over.
Result<bool> search_slice(SearchRun& run, boost::asio::thread_pool& pool) {
  ops::Searched& out = run.out;
  const ops::SearchRequest& p = run.request;
  auto batch = std::make_shared<Batch>();
  batch->run = &run;
  if (run.single) {
    batch->jobs.push_back(*run.single);
    run.single.reset();
    run.walk_ended = true;
  } else {
    while (batch->jobs.size() < kBatchFiles &&
           out.files_scanned + batch->jobs.size() < p.max_files) {
      auto e = run.walk->next();
      if (!e) {
        run.walk_ended = true;
        break;
      }
      if (e->kind != ops::ListEntry::Kind::kFile) continue;
      ScanJob job{std::move(e->dir), std::move(e->name), std::move(e->rel), 0, e->ask_ignore};
      if (job.rel == run.cursor_file) job.skip = run.cursor_skip;
      batch->jobs.push_back(std::move(job));
    }
  }
  if (batch->jobs.empty()) {
    if (!run.walk_ended) out.stopped_by = "files";
    return true;
  }
  batch->results.resize(batch->jobs.size());
  batch->cap = p.limit - out.hits.size() + 1;
  batch->max_bytes = ops::kSearchMaxReplyBytes - std::min(run.bytes, ops::kSearchMaxReplyBytes);
  // Without its own ignore rules the helper could not ask them.
  if (batch->jobs.size() > 1 && (!run.ignore || run.helper_ignore))
    boost::asio::post(pool, Helper{batch});
  batch->work(run.ignore.get());
  int idle = 0;
  if (!batch->helper.compare_exchange_strong(idle, 2)) {
    std::unique_lock lock(batch->mutex);
    batch->helper_done_cv.wait(lock, [&] { return batch->helper_done; });
  }

  // The page, in walk order.
  using Status = ScanResult::Status;
  for (std::size_t i = 0; i < batch->jobs.size(); ++i) {
    const ScanJob& job = batch->jobs[i];
    ScanResult& r = batch->results[i];
    if (r.status == Status::kPending) {
      out.stopped_by = "time";
      return true;
    }
    if (r.status == Status::kIgnored) continue;
    ++out.files_scanned;
    if (r.status == Status::kBinary) ++out.skipped_binary;
    if (r.status == Status::kTooLarge) ++out.skipped_too_large;
    if (r.status == Status::kUnreadable) ++out.skipped_unreadable;
    if (r.total > job.skip) ++out.files_with_hits;
    std::uint64_t shown = job.skip;
    for (ops::SearchHit& h : r.hits) {
      std::size_t size = line_bytes(h.line) + h.path.size();
      for (const auto& l : h.before) size += line_bytes(l);
      for (const auto& l : h.after) size += line_bytes(l);
      const bool full = out.hits.size() >= p.limit;
      if (full || (run.bytes + size > ops::kSearchMaxReplyBytes && !out.hits.empty())) {
        out.stopped_by = full ? "limit" : "bytes";
        out.next_cursor = cursor_of(job.rel, shown);
        return true;
      }
      run.bytes += size;
      out.hits.push_back(std::move(h));
      ++shown;
    }
    if (r.more || shown < r.total) {
      // Hits left unfound (the cap) or unshown (the file's bytes bound).
      out.stopped_by = out.hits.size() >= p.limit ? "limit" : "bytes";
      out.next_cursor = cursor_of(job.rel, shown);
      return true;
    }
    run.last_file = job.rel;
    run.last_hits = r.total;
  }
  if (out.files_scanned >= p.max_files && !run.walk_ended) {
    out.stopped_by = "files";
    return true;
  }
  return run.walk_ended;
}

}  // namespace

boost::asio::awaitable<Result<ops::Listed>> Operations::list(RequestContext& ctx,
                                                             ops::ListRequest p) {
  auto canonical = co_await pipeline_->resolve_in_turn(ctx, p.path);
  if (!canonical) co_return canonical.error();
  auto opened = open_start(ctx.backend, *canonical);
  if (!opened) co_return opened.error();
  std::string shown = ctx.backend.display_path(*canonical);
  // Named, not a temporary of the co_await expression (GCC 12).
  auto job = [o = std::move(*opened), p = std::move(p), shown = std::move(shown)]() mutable {
    return list_sync(std::move(o), p, std::move(shown));
  };
  auto listed = co_await offload(pipeline_->pool(), std::move(job));
  co_return listed;
}

boost::asio::awaitable<Result<ops::Searched>> Operations::search(RequestContext& ctx,
                                                                 ops::SearchRequest p) {
  auto matcher = Matcher::make(p.pattern, p.regex, p.case_sensitive);
  if (!matcher) co_return matcher.error();
  auto canonical = co_await pipeline_->resolve_in_turn(ctx, p.path);
  if (!canonical) co_return canonical.error();
  auto st = co_await ctx.backend.stat(*canonical);
  if (!st) co_return st.error();
  if (st->type == FileStat::Type::kMissing)
    co_return Error(ErrorKind::kNotFound, "no such file or directory: " + p.path,
                    {{"path", ctx.backend.display_path(*canonical)}});
  const bool file = st->type != FileStat::Type::kDirectory;
  const std::size_t slash = canonical->rfind('/');
  const std::string dir = file ? (slash == 0 ? "/" : canonical->substr(0, slash)) : *canonical;
  auto opened = open_start(ctx.backend, dir);
  if (!opened) co_return opened.error();

  auto run = std::make_shared<SearchRun>();
  run->matcher = std::move(*matcher);
  run->root = opened->root;
  run->max_file_bytes = pipeline_->options().max_file_bytes;
  run->views = &pipeline_->views();
  run->where = Views::Where{ctx.reader, ctx.scope.key(), ""};
  run->view_budget = pipeline_->options().view_memory > 0 ? run->views->budget() : 0;
  run->deadline = Clock::now() + std::chrono::milliseconds(p.timeout_ms);
  if (p.cursor) {
    // "N:path": N hits of file `path` were shown.
    const std::string& c = *p.cursor;
    const std::size_t colon = c.find(':');
    std::uint64_t n = 0;
    if (colon == std::string::npos ||
        std::from_chars(c.data(), c.data() + colon, n).ptr != c.data() + colon ||
        colon + 1 > c.size())
      co_return invalid_param("cursor", "is not a cursor a previous search returned");
    run->cursor_file = c.substr(colon + 1);
    run->cursor_skip = n;
  }
  run->request = std::move(p);
  const ops::SearchRequest& q = run->request;
  if (file) {
    std::shared_ptr<Fd> d = std::make_shared<Fd>(std::move(opened->start));
    const std::string rel = relative_to(opened->root, *canonical);
    run->single = ScanJob{std::move(d), canonical->substr(slash + 1), rel, 0};
    if (rel == run->cursor_file) run->single->skip = run->cursor_skip;
  } else {
    if (!q.filter.include_ignored) {
      run->ignore = GitIgnore::open(opened->root_fd.get(), opened->root);
      if (run->ignore) run->helper_ignore = GitIgnore::open(opened->root_fd.get(), opened->root);
    }
    const bool safe = ancestors_ignore_safe(opened->root_fd.get(), opened->rel);
    std::optional<std::string> after;
    if (!run->cursor_file.empty()) after = run->cursor_file;
    run->walk = std::make_unique<Walk>(std::move(opened->start), opened->rel, q.filter,
                                       run->ignore.get(), safe, ops::kWalkMaxDepth, after, true);
    run->walk->defer_files();
  }

  while (true) {
    if (ctx.cancel && ctx.cancel->cancelled)
      co_return Error(ErrorKind::kCancelled, "the search was cancelled");
    if (Clock::now() >= run->deadline) {
      run->out.stopped_by = "time";
      break;
    }
    SearchRun* r = run.get();
    boost::asio::thread_pool* pool = &pipeline_->pool();
    auto done = co_await offload(*pool, [r, pool] { return search_slice(*r, *pool); });
    if (!done) co_return done.error();
    if (*done) break;
  }
  ops::Searched& out = run->out;
  if (out.stopped_by && !out.next_cursor && !run->last_file.empty())
    out.next_cursor = cursor_of(run->last_file, run->last_hits);
  if (out.stopped_by && !out.next_cursor && run->walk && !run->walk_ended)
    out.next_cursor = cursor_of("", 0);
  co_return std::move(out);
}

}  // namespace editd
