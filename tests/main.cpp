// doctest's main for every test binary. It exits 77 (ctest's SKIP_RETURN_CODE)
// when every test passed but one skipped for want of conformance data
// (helpers/conformance.h); ctest runs those tests as entries of their own.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "helpers/conformance.h"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int code = context.run();
  if (context.shouldExit() || code != 0) return code;
  return editd::test::conformance_skipped() ? 77 : 0;
}
