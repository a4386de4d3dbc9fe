// What the review page (`editd review`, server/review/) costs, against issue
// 55's two goals, in one run against one binary. One root with a fresh 0700
// state directory; its ledger filled through editd itself: one client
// (initialize with clientInfo), 1,000 durable edits pipelined 64 in flight
// over 8 files, each changing one line (str_replace of 7 files of 2,000
// lines, write_text of a 200-line file every 8th edit): one run of 1,000
// changes and 1,000 hunks. Then `editd review --listen 127.0.0.1:0`, and:
//   render  GET /api/runs and GET /api/run?id=RUN (the whole run: one page),
//           each timed end to end over loopback on a connection of its own
//           (connect, request, the last byte of the body), 30 each in turns
//           after one untimed request each; p50/p90/max, and the bytes. Goal:
//           the two together < 1 s (p90 of each, summed).
//   live    /api/events open (server-sent events), 50 edits one at a time by
//           the same client, each sent at a random point of the server's
//           polls: from the edit's reply to the `event: change` naming it.
//           Goal: < 200 ms (the max).
// REVIEW_BENCH_ONLY=render,live runs those alone. The page in a browser:
// bench/review_page.sh. docs/performance.md records the figures with the
// command.
//
// usage: review_bench [EDITD_BINARY]

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "bench/child.h"
#include "bench/compare_support.h"

using namespace editd::bench::compare;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr int kChanges = 1000;
constexpr int kFiles = 8;  // f0..f6.txt by str_replace, notes.txt by write_text
constexpr int kFileLines = 2000, kNotes = 200;
constexpr int kWindow = 64;

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(v.size() * p))];
}

const char* verdict(bool met) { return met ? "met" : "NOT MET"; }

// ---- The ledger: one client's 1,000 changes ---------------------------------

std::string notes(int edited) {  // lines 0..edited-1 edited
  std::string out;
  for (int i = 0; i < kNotes; ++i)
    out += "note " + std::to_string(i) + (i < edited ? " edited\n" : "\n");
  return out;
}

// Edit k of the run: str_replace of line k/8 of f(k%8), or (k%8 == 7) the
// notes' next line by write_text. Both change one line.
std::string edit(int id, int k) {
  const int n = k / kFiles;
  if (k % kFiles == kFiles - 1)
    return request(id, "write_text", {{"path", "notes.txt"}, {"content", notes(n + 1)}});
  const std::string line = "line " + std::to_string(n);
  return request(id, "str_replace", {{"path", "f" + std::to_string(k % kFiles) + ".txt"},
                                     {"oldText", line + " a\n"},
                                     {"newText", line + " b\n"}});
}

void initialize(Child& editd) {
  std::string reply;
  round_trip(editd,
             request(0, "initialize",
                     {{"protocolVersion", 1},
                      {"clientInfo", {{"name", "review-bench"}, {"version", "1"}}}}),
             &reply);
  check(reply, "initialize");
}

// The 1,000 edits, 64 in flight; seconds.
double record(Child& editd) {
  std::vector<std::string> lines;
  for (int k = 0; k < kChanges; ++k) lines.push_back(edit(k + 1, k));
  int sent = 0, received = 0;
  std::string batch;
  const auto t = Clock::now();
  while (received < kChanges) {
    batch.clear();
    while (sent < kChanges && sent - received < kWindow) batch += lines[sent++];
    if (!batch.empty()) editd.send(batch);
    check(editd.line(), "an edit of the run");
    ++received;
  }
  return ms_since(t) / 1000;
}

// ---- The page ----------------------------------------------------------------

// `editd review` and the address it printed.
struct Review {
  std::unique_ptr<Child> child;
  std::string host;  // 127.0.0.1:PORT
  unsigned short port = 0;
  std::string token;

  ~Review() {
    if (child) ::kill(child->pid(), SIGTERM);
  }
};

void serve(const std::string& binary, const fs::path& root, const fs::path& state, Review& r) {
  r.child = std::make_unique<Child>(std::vector<std::string>{
      binary, "review", "--root", root.string(), "--state-dir", state.string(), "--listen",
      "127.0.0.1:0", "--log-level", "warn"});
  const std::string line = r.child->line();
  std::smatch m;
  static const std::regex re("http://127\\.0\\.0\\.1:([0-9]+)/\\?token=([0-9a-f]+)");
  if (!std::regex_search(line, m, re)) fail("editd review printed " + line);
  r.port = static_cast<unsigned short>(std::stoi(m[1].str()));
  r.host = "127.0.0.1:" + m[1].str();
  r.token = m[2].str();
}

struct Fetched {
  double ms;
  unsigned status;
  std::size_t body, total;  // bytes: the body; with the status line and headers
  std::string text;
};

// GET `target` (with ?token=) on a connection of its own: from connect to the
// body's last byte.
Fetched get(const Review& r, const std::string& target) {
  asio::io_context io;
  beast::tcp_stream stream(io);
  const char* sep = target.find('?') == std::string::npos ? "?" : "&";
  http::request<http::empty_body> req{http::verb::get, target + sep + "token=" + r.token, 11};
  req.set(http::field::host, r.host);
  req.keep_alive(false);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  const auto t = Clock::now();
  stream.connect(tcp::endpoint(asio::ip::address_v4::loopback(), r.port));
  http::write(stream, req);
  std::size_t total = http::read(stream, buffer, parser);
  const double ms = ms_since(t);
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  auto res = parser.release();
  return {ms, res.result_int(), res.body().size(), total, std::move(res.body())};
}

void render(const Review& page) {
  const Fetched runs = get(page, "/api/runs");
  if (runs.status != 200) fail("GET /api/runs: " + std::to_string(runs.status));
  const json list = json::parse(runs.text)["runs"];
  if (list.size() != 1) fail("GET /api/runs: " + std::to_string(list.size()) + " runs, not 1");
  const std::string id = list[0].value("id", "");
  const int changes = list[0].value("changes", 0), hunks = list[0].value("hunks", 0);
  if (changes < kChanges) fail("the run has " + std::to_string(changes) + " changes");
  const std::string target = "/api/run?id=" + id;
  const Fetched first = get(page, target);
  if (first.status != 200) fail("GET " + target + ": " + std::to_string(first.status));
  const json run = json::parse(first.text);
  std::size_t listed_hunks = 0;
  for (const json& e : run["entries"])
    for (const json& f : e["files"]) listed_hunks += f["hunks"].size();
  std::printf(
      "render: run %s of %d changes, %d hunks; /api/run lists %zu entries and %zu hunks "
      "(nextBefore %s); the first /api/runs %.2f ms, the first /api/run %.2f ms\n",
      id.c_str(), changes, hunks, run["entries"].size(), listed_hunks,
      run["nextBefore"].is_null() ? "null" : run["nextBefore"].dump().c_str(), runs.ms, first.ms);
  const int reps = 30;
  std::vector<double> ms[2];
  std::size_t body[2] = {}, total[2] = {};
  const std::string targets[2] = {"/api/runs", target};
  for (int i = 0; i < reps; ++i)
    for (int j = 0; j < 2; ++j) {
      const Fetched f = get(page, targets[j]);
      if (f.status != 200) fail("GET " + targets[j] + ": " + std::to_string(f.status));
      ms[j].push_back(f.ms);
      body[j] = f.body;
      total[j] = f.total;
    }
  for (int j = 0; j < 2; ++j)
    std::printf("render: GET %-22s n=%d  p50 %.2f ms  p90 %.2f ms  max %.2f ms  (body %zu B, %zu B "
                "with headers)\n",
                j ? "/api/run?id=RUN" : "/api/runs", reps, pct(ms[j], 0.5), pct(ms[j], 0.9),
                *std::max_element(ms[j].begin(), ms[j].end()), body[j], total[j]);
  const double both = pct(ms[0], 0.9) + pct(ms[1], 0.9);
  std::printf("render: the two requests' p90s together %.2f ms; goal < 1,000 ms: %s\n", both,
              verdict(both < 1000));
  std::fflush(stdout);
}

// ---- The live channel --------------------------------------------------------

// GET /api/events on a connection of its own, read by a thread: each
// `event: change`'s `last` with its arrival time.
class Events {
 public:
  explicit Events(const Review& r) : stream_(io_) {
    stream_.connect(tcp::endpoint(asio::ip::address_v4::loopback(), r.port));
    const std::string req = "GET /api/events?token=" + r.token + " HTTP/1.1\r\nHost: " + r.host +
                            "\r\nAccept: text/event-stream\r\n\r\n";
    asio::write(stream_.socket(), asio::buffer(req));
    reader_ = std::thread([this] { read(); });
  }
  ~Events() {
    boost::system::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    reader_.join();
  }

  // Waits up to `timeout_ms` for an event whose `last` is `id`; its arrival
  // time. Earlier events are dropped.
  std::optional<Clock::time_point> wait_for(const std::string& id, int timeout_ms) {
    std::unique_lock lock(mutex_);
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      while (!events_.empty()) {
        auto [t, last] = events_.front();
        events_.pop_front();
        if (last == id) return t;
      }
      if (closed_ || cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
        if (events_.empty()) return std::nullopt;
      }
    }
  }

  // The events seen, headers included: whether the channel opened (200).
  bool opened() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return headers_done_ || closed_; });
    return headers_done_ && status_ok_;
  }

 private:
  void read() {
    std::string buf;
    char chunk[16384];
    bool headers = false;
    for (;;) {
      boost::system::error_code ec;
      const std::size_t n = stream_.socket().read_some(asio::buffer(chunk), ec);
      const auto t = Clock::now();
      if (ec) break;
      buf.append(chunk, n);
      std::lock_guard lock(mutex_);
      if (!headers) {
        const std::size_t end = buf.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        status_ok_ = buf.starts_with("HTTP/1.1 200");
        headers = headers_done_ = true;
        buf.erase(0, end + 4);
        cv_.notify_all();
      }
      for (std::size_t end; (end = buf.find("\n\n")) != std::string::npos;) {
        const std::string block = buf.substr(0, end);
        buf.erase(0, end + 2);
        if (!block.starts_with("event: change")) continue;
        const std::size_t data = block.find("data: ");
        if (data == std::string::npos) continue;
        const json d = json::parse(block.substr(data + 6), nullptr, false);
        events_.emplace_back(t, d.is_object() ? d.value("last", "") : "");
        cv_.notify_all();
      }
    }
    std::lock_guard lock(mutex_);
    closed_ = true;
    cv_.notify_all();
  }

  asio::io_context io_;
  beast::tcp_stream stream_;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::pair<Clock::time_point, std::string>> events_;
  bool headers_done_ = false, status_ok_ = false, closed_ = false;
};

void live(Child& editd, const Review& page) {
  Events events(page);
  if (!events.opened()) fail("GET /api/events did not open");
  // The page's poll starts with the channel: let it read the ledger once.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  const int n = 50;
  std::mt19937 rng(55);
  std::uniform_int_distribution<int> gap_us(0, 100000);  // two polls
  std::vector<double> ms, edit_ms;
  int missed = 0;
  for (int i = 0; i < n; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(gap_us(rng)));
    // Line 1,500 + i of f0.txt: not touched by the run above.
    const std::string line = "line " + std::to_string(kFileLines - 500 + i);
    const auto sent = Clock::now();
    editd.send(request(10000 + i, "str_replace",
                       {{"path", "f0.txt"}, {"oldText", line + " a\n"}, {"newText", line + " c\n"}}));
    const std::string reply = editd.line();
    const auto replied = Clock::now();
    check(reply, "a live edit");
    edit_ms.push_back(std::chrono::duration<double, std::milli>(replied - sent).count());
    const std::string id = json::parse(reply)["result"].value("changeId", "");
    if (id.empty()) fail("a live edit's reply has no changeId: " + reply.substr(0, 300));
    const auto arrived = events.wait_for(id, 5000);
    if (!arrived) {
      ++missed;
      continue;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(*arrived - replied).count());
  }
  if (ms.empty()) fail("live: no event arrived in 5 s after any of " + std::to_string(n) + " edits");
  const double max = *std::max_element(ms.begin(), ms.end());
  std::printf(
      "live: %d edits one at a time (durable str_replace, p50 %.2f ms to its reply), each at a "
      "random point of the server's ledger polls: from the reply to its `event: change` n=%zu  p50 %.1f ms  "
      "p90 %.1f ms  max %.1f ms  min %.1f ms; %d without an event in 5 s; goal < 200 ms: %s\n",
      n, pct(edit_ms, 0.5), ms.size(), pct(ms, 0.5), pct(ms, 0.9), max,
      *std::min_element(ms.begin(), ms.end()), missed, verdict(max < 200 && missed == 0));
  std::fflush(stdout);
}

bool runs(std::string_view name) { return editd::bench::runs_in("REVIEW_BENCH_ONLY", name); }

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  editd::bench::g_bench = "review_bench";
  std::signal(SIGPIPE, SIG_IGN);
  g_root = fs::temp_directory_path() / ("editd-review-" + std::to_string(::getpid()));
  const fs::path root = g_root / "root", state = g_root / "state";
  fs::create_directories(root);
  fs::create_directories(state);
  fs::permissions(state, fs::perms::owner_all, fs::perm_options::replace);
  std::printf("editd: %s (%s)\nroot: %s, on %s\ncores: %u\nload average before: %s\n\n",
              binary.c_str(), first_line_of("'" + binary + "' --version").c_str(), g_root.c_str(),
              filesystem_of(g_root).c_str(), std::thread::hardware_concurrency(),
              first_line_of("cat /proc/loadavg").c_str());
  const auto t = Clock::now();
  std::string text;
  for (int i = 0; i < kFileLines; ++i) text += "line " + std::to_string(i) + " a\n";
  for (int f = 0; f < kFiles - 1; ++f) write_file(root / ("f" + std::to_string(f) + ".txt"), text);
  write_file(root / "notes.txt", notes(0));
  {
    Child editd(binary, root.string(), {"--state-dir", state.string()});
    initialize(editd);
    const double secs = record(editd);
    std::printf("recorded: %d durable edits, %d in flight, over %d files, in %.2f s\n", kChanges,
                kWindow, kFiles, secs);
    std::fflush(stdout);
    Review page;
    serve(binary, root, state, page);
    if (runs("render")) render(page);
    if (runs("live")) live(editd, page);
  }
  std::printf("\nload average after: %s; %.0f s in all\n",
              first_line_of("cat /proc/loadavg").c_str(), ms_since(t) / 1000);
  fs::remove_all(g_root);
}
