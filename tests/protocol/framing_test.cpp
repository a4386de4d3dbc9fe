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
    return {[this](editd::protocol::Line l) { events.emplace_back(std::move(l).join()); },
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

TEST_CASE("finish drops a last line without newline, unread, and frees its buffer") {
  LineFramer f(100);
  Collect c;
  f.feed("{\"a\":1}\nabc", c.sink());
  CHECK(f.buffered() == 3);
  CHECK(f.finish() == 3);
  CHECK(f.buffered() == 0);
  REQUIRE(c.events.size() == 1);
  CHECK(*c.events[0] == "{\"a\":1}");
  // The framer starts afresh: nothing of the dropped line is left.
  f.feed("x\n", c.sink());
  REQUIRE(c.events.size() == 2);
  CHECK(*c.events[1] == "x");
}

TEST_CASE("a long line arrives in pieces none longer than kPieceBytes and joins whole") {
  const std::size_t piece = LineFramer::kPieceBytes;
  LineFramer f(8 * piece);
  std::vector<editd::protocol::Line> lines;
  LineFramer::Sink sink{[&](editd::protocol::Line l) { lines.push_back(std::move(l)); },
                        [](std::size_t) {}};
  std::string text;
  for (std::size_t i = 0; text.size() < 3 * piece + 17; ++i) text += std::to_string(i) + ",";
  // Fed in odd-sized chunks, the last one ending the line with CRLF.
  for (std::size_t at = 0; at < text.size(); at += 65537)
    f.feed(std::string_view(text).substr(at, 65537), sink);
  CHECK(f.buffered() == text.size());
  f.feed("\r\n", sink);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].pieces.size() == 4);
  for (const std::string& p : lines[0].pieces) CHECK(p.size() <= piece);
  CHECK(lines[0].size() == text.size());
  CHECK(std::move(lines[0]).join() == text);
}

TEST_CASE("a long blank line is skipped like a short one") {
  LineFramer f(8 * LineFramer::kPieceBytes);
  Collect c;
  f.feed(std::string(3 * LineFramer::kPieceBytes, ' ') + "\t\r\n", c.sink());
  f.feed(std::string(3 * LineFramer::kPieceBytes, ' ') + "x\n", c.sink());
  REQUIRE(c.events.size() == 1);
  CHECK(c.events[0]->size() == 3 * LineFramer::kPieceBytes + 1);
}

TEST_CASE("finish drops an oversize line under way without reporting it") {
  LineFramer f(10);
  Collect c;
  f.feed(std::string(25, 'z'), c.sink());
  CHECK(f.finish() == 25);
  CHECK(c.events.empty());
  CHECK(f.finish() == 0);
}

TEST_CASE("a NUL byte is part of its line: only a newline ends one") {
  using namespace std::string_literals;
  LineFramer f(100);
  Collect c;
  f.feed("{\"a\":\0\"b\"}\n\0\nx\0\n"s, c.sink());
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
