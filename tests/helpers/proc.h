// Test support: what Linux's /proc says of a process: memory, CPU time and
// open descriptors. Header-only.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace editd::test {

// A "Vm..." line of /proc/PID/status in KiB (VmRSS: resident now, VmHWM: the
// peak resident size); nullopt if the process or the field is gone.
inline std::optional<std::uint64_t> vm_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::istringstream rest(line.substr(field.size() + 1));
    std::uint64_t kib = 0;
    if (rest >> kib) return kib;
  }
  return std::nullopt;
}

// User plus system CPU time consumed so far, in clock ticks (sysconf(_SC_CLK_TCK) a second).
inline std::uint64_t cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name may hold spaces: fields are counted after its closing parenthesis.
  auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  std::uint64_t utime = 0, stime = 0;
  // Field 3 (state) comes first; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return utime + stime;
}

// How many times the threads of the process have gone to sleep so far
// (voluntary context switches, all threads together): a thread that wakes on
// a timer or an event adds one each time.
inline std::uint64_t sleeps(pid_t pid) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::ifstream in(it->path() / "status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0)
        total += std::stoull(line.substr(line.find(':') + 1));
  }
  return total;
}

// The number of descriptors the process has open.
inline std::size_t open_descriptors(pid_t pid) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

// The descriptors the process holds on unlinked files of directory `dir`
// (files made with O_TMPFILE read "DIR/#INODE (deleted)").
inline std::size_t unlinked_files_in(pid_t pid, const std::string& dir) {
  std::size_t n = 0;
  std::error_code ec;
  const std::string prefix = dir + "/#";
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code link_ec;
    const std::string target = std::filesystem::read_symlink(it->path(), link_ec).string();
    if (!link_ec && target.rfind(prefix, 0) == 0 && target.ends_with(" (deleted)")) ++n;
  }
  return n;
}

}  // namespace editd::test
