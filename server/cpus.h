// How many CPUs editd may use: the defaults of --io-threads and --threads.
//
// Two things bound it. The affinity mask (taskset, a container's cpuset) says
// which CPUs the process may run on. A CPU quota of its cgroup (a container's
// --cpus, a systemd CPUQuota=) says how much of them it may use: 1.5 CPUs'
// worth on a 64-core host is 2, not 64. Both cgroup versions are read:
// cpu.max (v2) and cpu.cfs_quota_us / cpu.cfs_period_us (v1), in the
// process's own cgroup and each one above it, the tightest winning.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace editd {

// The CPUs of the affinity mask, bounded by the cgroup's quota; at least 1.
unsigned usable_cpus();

// The same from given facts: `affinity` CPUs, and `read` giving a file's
// contents (nullopt: absent). For tests.
unsigned usable_cpus(unsigned affinity,
                     const std::function<std::optional<std::string>(const std::string&)>& read);

// A cgroup v2 cpu.max ("QUOTA PERIOD" or "max PERIOD") as CPUs; nullopt when
// unlimited or not understood.
std::optional<double> parse_cpu_max(std::string_view text);

}  // namespace editd
