// The local backend against what other processes do meanwhile, through the
// real binary: a directory swapped for a link to outside the root, two editd
// editing one file, and kill -9 in the middle of writes and multi-file patches.
// Every loop is bounded by a count, never by time, and nothing asserts on time.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <random>
#include <set>
#include <thread>

#include "helpers/process.h"
#include "helpers/tree.h"

using namespace editd::test;

namespace {

// Sends `requests` pipelined `window` at a time and returns every reply.
std::vector<json> exchange(Process& p, const std::vector<json>& requests, std::size_t window) {
  std::vector<json> replies;
  for (std::size_t i = 0; i < requests.size(); i += window) {
    std::size_t end = std::min(requests.size(), i + window);
    std::string batch;
    for (std::size_t k = i; k < end; ++k) batch += requests[k].dump() + "\n";
    p.write_raw(batch);
    for (std::size_t k = i; k < end; ++k) replies.push_back(p.read_message());
  }
  return replies;
}

json request(int id, const std::string& method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

std::string line_text(int i, const std::string& state) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "line %03d %s", i, state.c_str());
  return buf;
}

// One editd edits `lines` of `path`, one request at a time: a str_replace per
// line, with an expectedFingerprint from a read just before when `round_trip`
// (a conflict is read again and retried). The lines it was told it changed.
struct Editor {
  std::vector<int> acknowledged;
  int conflicts = 0;
  std::string failure;  // what went wrong, if anything did
};

void edit_lines(Process& p, const std::string& path, const std::vector<int>& lines,
                const std::string& who, bool round_trip, Editor& out) {
  try {
    for (int i : lines) {
      json params{
          {"path", path}, {"oldText", line_text(i, "original")}, {"newText", line_text(i, who)}};
      for (int attempt = 0;; ++attempt) {
        if (round_trip)
          params["expectedFingerprint"] = p.ok("read_text", {{"path", path}})["fingerprint"];
        json r = p.request("str_replace", params);
        if (r.contains("result")) {
          out.acknowledged.push_back(i);
          break;
        }
        if (round_trip && r["error"]["data"]["kind"] == "conflict" && attempt < 1000) {
          ++out.conflicts;
          continue;
        }
        out.failure = r.dump();
        return;
      }
    }
  } catch (const std::exception& e) {
    out.failure = e.what();
  } catch (...) {
    out.failure = "a failed REQUIRE";
  }
}

// Two editd, one on `root_a` and one on `root_b`, edit distinct lines of one
// file (`path_a` and `path_b` name it for each): every edit they acknowledge
// must be in the file at the end.
void two_editors(const TempDir& root, const std::string& root_b, const std::string& path_a,
                 const std::string& path_b, bool round_trip) {
  const int kLines = 400;
  std::string text;
  for (int i = 0; i < kLines; ++i) text += line_text(i, "original") + "\n";
  root.write(path_a, text);
  Process a(EDITD_BINARY, {"--root", root.str()});
  Process b(EDITD_BINARY, {"--root", root_b});
  std::vector<int> mine, theirs;
  for (int i = 0; i < kLines; ++i) (i % 2 ? theirs : mine).push_back(i);
  Editor ea, eb;
  std::thread ta([&] { edit_lines(a, path_a, mine, "by-a", round_trip, ea); });
  std::thread tb([&] { edit_lines(b, path_b, theirs, "by-b", round_trip, eb); });
  ta.join();
  tb.join();
  CHECK_MESSAGE(ea.failure.empty(), ea.failure);
  CHECK_MESSAGE(eb.failure.empty(), eb.failure);
  const std::string final_text = root.read(path_a);
  int lost = 0;
  for (int i : ea.acknowledged)
    lost += final_text.find(line_text(i, "by-a") + "\n") == std::string::npos;
  for (int i : eb.acknowledged)
    lost += final_text.find(line_text(i, "by-b") + "\n") == std::string::npos;
  CHECK(lost == 0);
  CHECK(ea.acknowledged.size() == mine.size());
  CHECK(eb.acknowledged.size() == theirs.size());
  MESSAGE("round trips: " << round_trip
                          << ", conflicts reported and retried: " << ea.conflicts + eb.conflicts);
}

std::string big_lines(const std::string& tag, int lines) {
  std::string out;
  for (int i = 0; i < lines; ++i)
    out += tag + " line " + std::to_string(i) + " of some length to make it take a while\n";
  return out;
}

}  // namespace

TEST_CASE(
    "no request reaches outside the root while a directory in it is swapped for a link to "
    "outside") {
  TempDir root, outside;
  outside.write("f.txt", "OUTSIDE-SECRET f\n");
  outside.write("sentinel.txt", "OUTSIDE-SECRET sentinel\n");
  outside.write("sub/g.txt", "OUTSIDE-SECRET g\n");
  root.write("dir/f.txt", "inside 0\n");
  root.write("dir/sub/g.txt", "inside g\n");
  fs::create_directory_symlink(outside.path(), root.path() / "swap");
  const auto before = tree_state(outside.path());
  auto p = spawn_editd(root);

  std::atomic<bool> stop{false};
  std::atomic<int> swaps{0};
  std::thread swapper([&] {
    const std::string dir = (root.path() / "dir").string(), swap = (root.path() / "swap").string();
    while (!stop) {
      // `dir` is the real directory and `swap` the link, then the other way round.
      if (::renameat2(AT_FDCWD, dir.c_str(), AT_FDCWD, swap.c_str(), RENAME_EXCHANGE) == 0) ++swaps;
    }
  });

  std::vector<json> requests;
  const int kRequests = 2000;
  for (int i = 0; i < kRequests; ++i) {
    const std::string n = std::to_string(i);
    switch (i % 8) {
      case 0:
        requests.push_back(request(i, "read_text", {{"path", "dir/f.txt"}}));
        break;
      case 1:
        requests.push_back(
            request(i, "write_text", {{"path", "dir/f.txt"}, {"content", "inside " + n + "\n"}}));
        break;
      case 2:
        requests.push_back(
            request(i, "create", {{"path", "dir/new-" + n + ".txt"}, {"content", "new\n"}}));
        break;
      case 3:
        requests.push_back(request(i, "read_text", {{"path", "dir/sub/g.txt"}}));
        break;
      case 4:
        requests.push_back(request(
            i, "write_text", {{"path", "dir/sub/deeper-" + n + "/h.txt"}, {"content", "h\n"}}));
        break;
      case 5:
        requests.push_back(request(i, "fingerprint", {{"path", "dir/sentinel.txt"}}));
        break;
      case 6:
        requests.push_back(
            request(i, "write_text", {{"path", "dir/sub/g.txt"}, {"content", "inside g\n"}}));
        break;
      default:
        requests.push_back(
            request(i, "apply_patch",
                    {{"patch", "*** Begin Patch\n*** Add File: dir/p-" + n +
                                   ".txt\n+p\n"
                                   "*** Delete File: dir/sub/g.txt\n*** End Patch"}}));
    }
  }
  std::vector<json> replies = exchange(p, requests, 16);
  stop = true;
  swapper.join();

  REQUIRE(replies.size() == requests.size());
  int leaked = 0, succeeded = 0;
  for (const json& r : replies) {
    leaked += r.dump().find("OUTSIDE-SECRET") != std::string::npos;
    succeeded += r.contains("result");
  }
  CHECK(leaked == 0);
  CHECK(tree_state(outside.path()) == before);
  MESSAGE(swaps.load() << " swaps, " << succeeded << " of " << replies.size()
                       << " requests succeeded");
}

TEST_CASE("two editd on one root lose no acknowledged edit of one file") {
  TempDir root;
  two_editors(root, root.str(), "shared.txt", "shared.txt", false);
}

TEST_CASE(
    "two editd, on a root and on a subdirectory, lose no edit made with expectedFingerprint round "
    "trips") {
  TempDir root;
  fs::create_directory(root.path() / "sub");
  two_editors(root, root.str() + "/sub", "sub/shared.txt", "shared.txt", true);
}

TEST_CASE(
    "kill -9 during multi-file patches leaves, after the next start, the tree before or after") {
  const int kFiles = 5;
  auto setup = [&](const TempDir& root) {
    for (const auto& e : fs::directory_iterator(root.path())) fs::remove_all(e.path());
    for (int i = 0; i < kFiles; ++i)
      root.write("f" + std::to_string(i) + ".txt", big_lines("f" + std::to_string(i), 3000));
    root.write("moved.txt", "moved\n");
    root.write("gone.txt", "gone\n");
  };
  std::string patch = "*** Begin Patch\n";
  for (int i = 0; i < kFiles; ++i)
    patch += "*** Update File: f" + std::to_string(i) + ".txt\n@@\n-f" + std::to_string(i) +
             " line 0 of some length to make it take a while\n+changed\n";
  patch +=
      "*** Add File: new/dir/n.txt\n+n\n*** Delete File: gone.txt\n*** Update File: moved.txt\n*** "
      "Move to: dest/moved.txt\n@@\n-moved\n+moved!\n*** End Patch";
  const json params{{"patch", patch}};

  TempDir root;
  setup(root);
  const auto before = tree_state(root.path());
  auto started = std::chrono::steady_clock::now();
  {
    auto p = spawn_editd(root);
    p.ok("apply_patch", params);
  }
  const auto whole = std::chrono::steady_clock::now() - started;
  const auto after = tree_state(root.path());
  REQUIRE(before != after);

  std::mt19937 rng(12345);
  const int kRounds = 60;
  int ended_before = 0, ended_after = 0, recovered = 0;
  for (int round = 0; round < kRounds; ++round) {
    CAPTURE(round);
    setup(root);
    {
      auto p = spawn_editd(root);
      p.send(request(1, "apply_patch", params));
      auto delay = std::chrono::duration_cast<std::chrono::microseconds>(whole) *
                   std::uniform_int_distribution<int>(0, 120)(rng) / 100;
      std::this_thread::sleep_for(delay);
      ::kill(p.pid(), SIGKILL);
      p.wait();
    }
    {
      auto p = spawn_editd(root);
      p.ok("fingerprint", {{"path", "f0.txt"}});  // served: recovery is over
      recovered += p.stderr_text().find("recovered") != std::string::npos;
    }
    auto now = tree_state(root.path());
    CHECK(editd_leftovers(now).empty());
    bool whole_state = now == before || now == after;
    CHECK(whole_state);
    ended_before += now == before;
    ended_after += now == after;
  }
  MESSAGE("kill -9 rounds: " << ended_before << " ended before, " << ended_after << " after; "
                             << recovered << " needed a recovery");
}

TEST_CASE(
    "kill -9 during single writes leaves no temporary file after a restart, nor a torn file") {
  TempDir root;
  const std::string old_a = big_lines("a", 400), new_a = big_lines("A", 400);
  // Many writes one after the other, so that a kill often lands between a
  // temporary file's creation and its rename.
  std::string batch;
  for (int i = 0; i < 40; ++i)
    batch +=
        request(i, "write_text",
                {{"path", i % 4 ? "d" + std::to_string(i % 3) + "/f" + std::to_string(i) + ".txt"
                                : std::string("a.txt")},
                 {"content", i % 8 ? new_a : old_a}})
            .dump() +
        "\n";
  root.write("a.txt", old_a);
  auto started = std::chrono::steady_clock::now();
  {
    auto p = spawn_editd(root);
    p.write_raw(batch);
    for (int i = 0; i < 40; ++i) p.read_message();
  }
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started);

  std::mt19937 rng(6789);
  int recovered = 0;
  const int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    CAPTURE(round);
    for (const auto& e : fs::directory_iterator(root.path())) fs::remove_all(e.path());
    root.write("a.txt", old_a);
    {
      auto p = spawn_editd(root);
      p.write_raw(batch);
      std::this_thread::sleep_for(whole * std::uniform_int_distribution<int>(0, 100)(rng) / 100);
      ::kill(p.pid(), SIGKILL);
      p.wait();
    }
    {
      auto p = spawn_editd(root);
      p.ok("fingerprint", {{"path", "a.txt"}});
      recovered += p.stderr_text().find("recovered") != std::string::npos;
    }
    auto now = tree_state(root.path());
    CHECK(editd_leftovers(now).empty());
    for (const auto& [path, content] : now)
      if (content != "/") CHECK_MESSAGE((content == old_a || content == new_a), path);
  }
  MESSAGE(recovered << " of " << kRounds << " starts removed temporary files of a killed editd");
}
