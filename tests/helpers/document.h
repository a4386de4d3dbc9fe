// Test support: a text::Document over bytes that live as long as the test
// run (a Document views its bytes). Header-only.
#pragma once

#include <doctest/doctest.h>

#include <deque>
#include <string>

#include "edit/text/text.h"

namespace editd::test {

inline text::Document doc(std::string s) {
  static std::deque<std::string> kept;
  auto d = text::Document::decode(kept.emplace_back(std::move(s)));
  REQUIRE(d.has_value());
  return *d;
}

}  // namespace editd::test
