// doctest's main for every test binary. It exits 77 (ctest's SKIP_RETURN_CODE)
// when every test passed but one skipped for want of conformance data
// (helpers/conformance.h); ctest runs those tests as entries of their own.
//
// Every editd the tests run, in process or as a child, keeps its state (the
// journal key, the ledger: server/ledger/ledger.h) in a directory of this
// run's own, removed at the end, never in the user's: XDG_STATE_HOME is set
// to it unless the caller set EDITD_TEST_KEEP_STATE.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "helpers/conformance.h"

int main(int argc, char** argv) {
  std::string state;
  if (!std::getenv("EDITD_TEST_KEEP_STATE")) {
    char dir[] = "/tmp/editd-test-state-XXXXXX";
    if (::mkdtemp(dir)) {
      state = dir;
      ::setenv("XDG_STATE_HOME", dir, 1);
    }
  }
  doctest::Context context(argc, argv);
  int code = context.run();
  if (!state.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(state, ignored);
  }
  if (context.shouldExit() || code != 0) return code;
  return editd::test::conformance_skipped() ? 77 : 0;
}
