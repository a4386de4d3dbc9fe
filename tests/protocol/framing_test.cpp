#include "protocol/framing.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

using editd::protocol::LineFramer;

namespace {
struct Collect {
  std::vector<std::optional<std::string>> events;  // nullopt: oversize
  LineFramer::Sink sink() {
    return {[this](std::string l) { events.emplace_back(std::move(l)); },
            [this](std::size_t) { events.emplace_back(std::nullopt); }};
  }
};
}  // namespace

TEST_CASE("lines split across chunks are joined") {
  LineFramer f(100);
  Collect c;
  f.feed("{\"a\":", c.sink());
  f.feed("1}\n{\"b\"", c.sink());
  f.feed(":2}\n", c.sink());
  REQUIRE(c.events.size() == 2);
  CHECK(*c.events[0] == "{\"a\":1}");
  CHECK(*c.events[1] == "{\"b\":2}");
}

TEST_CASE("CR before LF is dropped and blank lines are skipped") {
  LineFramer f(100);
  Collect c;
  f.feed("\r\n\n  \nx\r\ny\n", c.sink());
  REQUIRE(c.events.size() == 2);
  CHECK(*c.events[0] == "x");
  CHECK(*c.events[1] == "y");
}

TEST_CASE("an oversize line is reported once and never buffered whole") {
  LineFramer f(10);
  Collect c;
  f.feed("0123456789", c.sink());
  CHECK(c.events.empty());
  f.feed("abcdefghij", c.sink());
  CHECK(f.buffered() == 0);
  f.feed(std::string(100000, 'z'), c.sink());
  CHECK(f.buffered() == 0);
  f.feed("tail\nok\n", c.sink());
  REQUIRE(c.events.size() == 2);
  CHECK_FALSE(c.events[0].has_value());
  CHECK(*c.events[1] == "ok");
}

TEST_CASE("a line of exactly the limit passes, with or without CR") {
  LineFramer f(5);
  Collect c;
  f.feed("12345\n12345\r\n123456\n", c.sink());
  REQUIRE(c.events.size() == 3);
  CHECK(*c.events[0] == "12345");
  CHECK(*c.events[1] == "12345");
  CHECK_FALSE(c.events[2].has_value());
}

TEST_CASE("finish delivers a last line without newline") {
  LineFramer f(100);
  Collect c;
  f.feed("abc", c.sink());
  f.finish(c.sink());
  REQUIRE(c.events.size() == 1);
  CHECK(*c.events[0] == "abc");
}

TEST_CASE("a NUL byte is part of its line: only a newline ends one") {
  using namespace std::string_literals;
  LineFramer f(100);
  Collect c;
  f.feed("{\"a\":\0\"b\"}\n\0\nx\0"s, c.sink());
  f.finish(c.sink());
  REQUIRE(c.events.size() == 3);
  CHECK(*c.events[0] == "{\"a\":\0\"b\"}"s);
  CHECK(*c.events[1] == "\0"s);
  CHECK(*c.events[2] == "x\0"s);
}

TEST_CASE("the largest limit does not wrap around") {
  LineFramer f(static_cast<std::size_t>(-1));
  Collect c;
  f.feed("abc\n", c.sink());
  REQUIRE(c.events.size() == 1);
  CHECK(*c.events[0] == "abc");
}
