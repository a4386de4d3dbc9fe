// Test data from other projects (Codex's apply_patch scenarios), kept beside
// this project rather than in it: EDITD_CONFORMANCE_DIR in the environment, or
// ../shared/conformance next to the source tree.
//
// When the data is absent the test says so in one line and its ctest entry is
// reported as skipped (tests/main.cpp exits 77), except under CI=true, where
// absence is a failure: CI always runs these tests.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

namespace editd::test {

// Set when a test found its data missing and skipped its checks.
inline bool& conformance_skipped() {
  static bool skipped = false;
  return skipped;
}

// The folder `name` of the conformance data, or nullopt after saying why (a
// failure under CI=true).
inline std::optional<std::filesystem::path> conformance_dir(const std::string& name) {
  const char* env = std::getenv("EDITD_CONFORMANCE_DIR");
  const std::filesystem::path base = env && *env ? env : EDITD_CONFORMANCE_DIR;
  const std::filesystem::path dir = base / name;
  if (std::filesystem::is_directory(dir)) return dir;
  const char* ci = std::getenv("CI");
  if (ci && std::string(ci) == "true") {
    FAIL("conformance data " << dir.string()
                             << " is missing, and CI=true requires it (set EDITD_CONFORMANCE_DIR)");
  }
  std::cout << "skipped: conformance data " << dir.string()
            << " is missing (set EDITD_CONFORMANCE_DIR, or put the shared/ folder beside the "
               "source tree)\n";
  conformance_skipped() = true;
  return std::nullopt;
}

}  // namespace editd::test
