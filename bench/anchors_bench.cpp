// Cost of mapping hashline anchors by the view that was read (edit/anchors/hashline.h):
// a 100,000-line file, a view of it 10 edits old, 20 anchors from the view.
// Times the snapshot read_text makes, edit_lines' plan through the view (line
// hashes of the file as it is, the diff, the mapping) and, for scale, writing
// the new file (temporary file, fsync, rename), which edit_lines then does.
// Then the same through the binary: edit_lines' round trip with the 20
// anchors through that view, against the same call whose view is the file as
// it is (nothing to map). Prints one line per figure; docs/performance.md
// records them.
//
// usage: anchors_bench [EDITD_BINARY]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench/child.h"
#include "edit/anchors/hashline.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"

namespace {

using namespace editd;
using Clock = std::chrono::steady_clock;

// The median of `runs` timings of `f`, in microseconds.
template <typename F>
double median_us(int runs, F&& f) {
  std::vector<double> us;
  for (int i = 0; i < runs; ++i) {
    auto t = Clock::now();
    f();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

// edit_lines' round trip on `root`/f.txt after a read of `read` when the file
// is `now` by then: the median of `runs`, in microseconds.
double round_trip_us(const std::string& binary, const std::filesystem::path& root,
                     const std::string& read, const std::string& now,
                     const std::vector<hashline::LineEdit>& edits) {
  using nlohmann::json;
  editd::bench::Child c(binary, root.string());
  json list = json::array();
  for (const hashline::LineEdit& e : edits)
    list.push_back({{"replace", {{"start", hashline::format(e.start)}}}, {"newText", e.new_text}});
  std::vector<double> us;
  for (int i = 0; i < 11; ++i) {
    std::ofstream(root / "f.txt", std::ios::trunc) << read;
    c.send(
        json{
            {"jsonrpc", "2.0"}, {"id", 1}, {"method", "read_text"}, {"params", {{"path", "f.txt"}}}}
            .dump() +
        "\n");
    c.line();
    std::ofstream(root / "f.txt", std::ios::trunc) << now;
    auto t = Clock::now();
    c.send(json{{"jsonrpc", "2.0"},
                {"id", 2},
                {"method", "edit_lines"},
                {"params", {{"path", "f.txt"}, {"edits", list}}}}
               .dump() +
           "\n");
    const std::string reply = c.line();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
    if (reply.find("\"result\"") == std::string::npos)
      std::printf("failed: %.200s\n", reply.c_str());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

int main(int argc, char** argv) {
  std::mt19937 rng(35);
  std::vector<std::string> lines;
  for (int i = 0; i < 100'000; ++i)
    lines.push_back(i % 7 == 0 ? "}"
                               : "    value_" + std::to_string(i) + " = compute(" +
                                     std::to_string(rng() % 1000) + ");");
  std::string old_text;
  for (const std::string& l : lines) old_text += l + "\n";
  // Ten edits since the read: inserted, removed and changed lines all over the file.
  for (int k = 0; k < 10; ++k) {
    const std::size_t at = rng() % lines.size();
    if (k % 3 == 0) lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), "// new");
    if (k % 3 == 1) lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
    if (k % 3 == 2) lines[at] += " // changed";
  }
  std::string now;
  for (const std::string& l : lines) now += l + "\n";

  hashline::Snapshot snap;
  const double snapshot_us = median_us(21, [&] { snap = hashline::snapshot(old_text); });
  hashline::View view{&snap, {{1, snap.hashes.size()}}};
  const std::vector<std::string_view> old_lines = text::split_lines(old_text);
  std::vector<hashline::LineEdit> edits;
  for (int i = 0; i < 20; ++i) {
    const std::uint64_t line = 1 + (static_cast<std::uint64_t>(i) * 4999 + 17) % old_lines.size();
    edits.push_back({hashline::Kind::kReplace,
                     {line, hashline::tag(old_lines[line - 1])},
                     std::nullopt,
                     "x" + std::to_string(i)});
  }
  std::size_t mapped = 0;
  const double plan_us = median_us(21, [&] {
    auto p = hashline::plan(now, edits, &view);
    mapped = p ? p->edits.size() : 0;
  });
  const double in_place_us = median_us(21, [&] { (void)hashline::plan(old_text, edits); });
  const std::vector<std::string_view> now_lines = text::split_lines(now);
  std::vector<std::uint64_t> now_hashes;
  const double hashes_us = median_us(21, [&] {
    now_hashes.clear();
    for (std::string_view l : now_lines) now_hashes.push_back(hashline::line_hash(l));
  });
  const double map_us = median_us(21, [&] { hashline::LineMap m(snap.hashes, now_hashes); });
  auto p = hashline::plan(now, edits, &view);
  const std::string written = p ? splice::apply_edits(now, p->edits) : now;
  const std::string tmp = "anchors-bench-" + std::to_string(::getpid()) + ".tmp";
  const double write_us = median_us(11, [&] {
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, written.data(), written.size()) < 0 || ::fsync(fd) != 0)
      std::perror("write");
    ::close(fd);
    ::rename(tmp.c_str(), (tmp + ".done").c_str());
  });
  ::unlink((tmp + ".done").c_str());
  std::printf("file: 100,000 lines, %zu bytes; view 10 edits old; 20 anchors, %zu mapped\n",
              now.size(), mapped);
  std::printf("read_text's snapshot of the view        %8.0f us\n", snapshot_us);
  std::printf("edit_lines' plan through the view        %8.0f us\n", plan_us);
  std::printf("  of which the same plan without a view     %8.0f us\n", in_place_us);
  std::printf("  of which hashing the file as it is      %8.0f us\n", hashes_us);
  std::printf("  of which the diff of the line hashes    %8.0f us\n", map_us);
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("editd-anchors-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root);
  // The edits' anchors as they stand in `now` (no view needed) for the baseline.
  std::vector<hashline::LineEdit> here = edits;
  if (p)
    for (std::size_t i = 0; i < here.size(); ++i) here[i].start.line = p->lines[i].start_line;
  const double direct_us = round_trip_us(binary, root, now, now, here);
  const double mapped_us = round_trip_us(binary, root, old_text, now, edits);
  std::filesystem::remove_all(root);
  std::printf("edit_lines round trip, view = the file    %8.0f us\n", direct_us);
  std::printf("edit_lines round trip, view 10 edits old  %8.0f us\n", mapped_us);
  std::printf("writing the new file (write, fsync, rename) %5.0f us\n", write_us);
}
