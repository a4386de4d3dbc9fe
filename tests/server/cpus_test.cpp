#include "server/cpus.h"

#include <doctest/doctest.h>

#include <map>

using namespace editd;

namespace {

// A file system of the given files, for usable_cpus(affinity, read).
auto files(std::map<std::string, std::string> contents) {
  return [contents = std::move(contents)](const std::string& path) -> std::optional<std::string> {
    auto it = contents.find(path);
    if (it == contents.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("cpu.max reads as CPUs; max and nonsense are no limit") {
  CHECK(parse_cpu_max("150000 100000\n") == doctest::Approx(1.5));
  CHECK(parse_cpu_max("50000 100000") == doctest::Approx(0.5));
  CHECK_FALSE(parse_cpu_max("max 100000\n").has_value());
  CHECK_FALSE(parse_cpu_max("").has_value());
  CHECK_FALSE(parse_cpu_max("100000").has_value());
  CHECK_FALSE(parse_cpu_max("0 100000").has_value());
}

TEST_CASE("without a cgroup quota, the affinity mask decides") {
  CHECK(usable_cpus(8, files({})) == 8);
  CHECK(usable_cpus(8, files({{"/proc/self/cgroup", "0::/\n"},
                              {"/sys/fs/cgroup/cpu.max", "max 100000\n"}})) == 8);
  CHECK(usable_cpus(0, files({})) == 1);
  // Lines that are not what a kernel writes are skipped, not trusted.
  CHECK(usable_cpus(4, files({{"/proc/self/cgroup", "garbage\n0::relative/x\n2:cpu:\n"},
                              {"/sys/fs/cgroup/cpu.max", "max 100000\n"}})) == 4);
}

TEST_CASE("a cgroup v2 quota bounds the CPUs, rounded up, the tightest of the path winning") {
  // A container with its own cgroup namespace: its limit at the root.
  CHECK(usable_cpus(64, files({{"/proc/self/cgroup", "0::/\n"},
                               {"/sys/fs/cgroup/cpu.max", "150000 100000\n"}})) == 2);
  // A systemd service: its own cgroup, under a slice with a tighter limit.
  CHECK(usable_cpus(64,
                    files({{"/proc/self/cgroup", "0::/system.slice/editd.service\n"},
                           {"/sys/fs/cgroup/system.slice/editd.service/cpu.max", "400000 100000\n"},
                           {"/sys/fs/cgroup/system.slice/cpu.max", "300000 100000\n"}})) == 3);
  // Half a CPU is still one thread; the mask can be tighter than the quota.
  CHECK(usable_cpus(64, files({{"/proc/self/cgroup", "0::/\n"},
                               {"/sys/fs/cgroup/cpu.max", "50000 100000\n"}})) == 1);
  CHECK(usable_cpus(2, files({{"/proc/self/cgroup", "0::/\n"},
                              {"/sys/fs/cgroup/cpu.max", "800000 100000\n"}})) == 2);
}

TEST_CASE("a cgroup v1 quota bounds the CPUs; -1 is none; other controllers are ignored") {
  const std::string v1 = "4:memory:/m\n3:cpuset:/\n2:cpu,cpuacct:/docker/abc\n0::/\n";
  CHECK(usable_cpus(
            16, files({{"/proc/self/cgroup", v1},
                       {"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n"},
                       {"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n"}})) ==
        3);
  // Inside the container the mount is its own cgroup, whatever the path says.
  CHECK(usable_cpus(16, files({{"/proc/self/cgroup", v1},
                               {"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "100000\n"},
                               {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"}})) == 1);
  CHECK(usable_cpus(16, files({{"/proc/self/cgroup", v1},
                               {"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n"},
                               {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"}})) == 16);
  // A memory or cpuset line names no CPU quota.
  CHECK(usable_cpus(16, files({{"/proc/self/cgroup", "4:memory:/m\n3:cpuset:/\n"},
                               {"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "100000\n"},
                               {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"}})) == 16);
}
