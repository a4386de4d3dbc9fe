// `editd probe ADDRESS`: the health check of a serving editd (the container's
// HEALTHCHECK, a pod's probes). It connects, sends `initialize` and exits 0
// only when the answer is editd's own initialize result.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace editd {

struct ProbeOptions {
  std::string address;                     // unix:PATH | tcp:HOST:PORT
  std::optional<std::string> token_file;  // TCP: the token initialize must carry
  std::chrono::milliseconds timeout{5'000};
};

// 0: editd answered initialize; 1: it did not (the reason goes to stderr).
int run_probe(const ProbeOptions& options);

}  // namespace editd
