// Paths against their root: what every backend calls inside, and how it shows
// them.
#include "backends/root_path.h"

#include <doctest/doctest.h>

namespace editd {
namespace {

TEST_CASE("below_root: the part below the root, empty for the root, none outside") {
  CHECK(below_root("/w", "/w") == std::string_view());
  CHECK(below_root("/w", "/w/a/b.txt") == std::string_view("a/b.txt"));
  // A common prefix is not a parent.
  CHECK_FALSE(below_root("/w", "/wx/a").has_value());
  CHECK_FALSE(below_root("/w", "/").has_value());
  CHECK_FALSE(below_root("/w/a", "/w").has_value());
  // The root "/" holds every absolute path.
  CHECK(below_root("/", "/") == std::string_view());
  CHECK(below_root("/", "/etc/passwd") == std::string_view("etc/passwd"));
  CHECK_FALSE(below_root("/", "relative").has_value());
}

TEST_CASE("inside_root and shown_path agree with below_root") {
  CHECK(inside_root("/w", "/w"));
  CHECK(inside_root("/w", "/w/a"));
  CHECK_FALSE(inside_root("/w", "/wx"));
  CHECK(shown_path("/w", "/w") == ".");
  CHECK(shown_path("/w", "/w/a/b.txt") == "a/b.txt");
  CHECK(shown_path("/w", "/etc/passwd") == "/etc/passwd");
  CHECK(shown_path("/", "/etc/passwd") == "etc/passwd");
  CHECK(shown_path("/", "/") == ".");
}

}  // namespace
}  // namespace editd
