#include "server/cpus.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace editd {

namespace {

std::optional<double> parse_positive(std::string_view text) {
  std::string s(text);
  std::istringstream in(s);
  long long n = 0;
  if (!(in >> n) || n <= 0) return std::nullopt;
  return static_cast<double>(n);
}

// Where a cgroup's files are: `relative` below `mount`, and each cgroup above
// it up to the mount itself (inside a container the mount is often the
// container's own cgroup, whatever /proc/self/cgroup names).
std::vector<std::string> cgroup_dirs(const std::string& mount, std::string relative) {
  std::vector<std::string> out;
  while (relative.starts_with('/') && relative != "/") {
    out.push_back(mount + relative);
    relative.erase(relative.rfind('/'));
  }
  out.push_back(mount);
  return out;
}

bool lists_cpu(std::string_view controllers) {
  while (!controllers.empty()) {
    auto comma = controllers.find(',');
    if (controllers.substr(0, comma) == "cpu") return true;
    if (comma == std::string_view::npos) break;
    controllers.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::optional<double> parse_cpu_max(std::string_view text) {
  auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto quota = parse_positive(text.substr(0, space));  // "max": nullopt
  auto period = parse_positive(text.substr(space + 1));
  if (!quota || !period) return std::nullopt;
  return *quota / *period;
}

unsigned usable_cpus(unsigned affinity,
                     const std::function<std::optional<std::string>(const std::string&)>& read) {
  std::optional<double> limit;
  auto tighten = [&](std::optional<double> cpus) {
    if (cpus && (!limit || *cpus < *limit)) limit = cpus;
  };
  std::istringstream lines(read("/proc/self/cgroup").value_or(""));
  for (std::string line; std::getline(lines, line);) {
    // ID:CONTROLLERS:PATH; v2 is "0::PATH".
    auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string_view controllers = std::string_view(line).substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (controllers.empty()) {
      for (const std::string& dir : cgroup_dirs("/sys/fs/cgroup", path))
        if (auto text = read(dir + "/cpu.max")) tighten(parse_cpu_max(*text));
    } else if (lists_cpu(controllers)) {
      for (const char* mount :
           {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpuacct,cpu"})
        for (const std::string& dir : cgroup_dirs(mount, path)) {
          auto quota = read(dir + "/cpu.cfs_quota_us");  // -1: unlimited
          auto period = read(dir + "/cpu.cfs_period_us");
          if (quota && period) {
            auto q = parse_positive(*quota), p = parse_positive(*period);
            if (q && p) tighten(*q / *p);
          }
        }
    }
  }
  unsigned cpus = std::max(1u, affinity);
  if (limit) cpus = std::min(cpus, static_cast<unsigned>(std::max(1.0, std::ceil(*limit))));
  return cpus;
}

unsigned usable_cpus() {
  unsigned affinity = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) affinity = CPU_COUNT(&set);
  if (affinity == 0) affinity = std::thread::hardware_concurrency();
  return usable_cpus(affinity, [](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  });
}

}  // namespace editd
