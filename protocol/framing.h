// Newline-delimited framing (as ACP uses): one JSON message per line.
//
// LineFramer turns arbitrary chunks of bytes into complete lines. One trailing
// "\r" is dropped (CRLF tolerated) and blank lines (spaces, tabs and CRs only)
// are skipped. A line longer
// than the limit is never buffered whole: once it passes the limit the framer
// discards bytes until the next newline and reports one oversize event, so a
// hostile or broken client cannot make the server allocate without bound.
// Lines are bytes: a NUL or any other byte is passed on as it is (the message
// layer decides what it means), only "\n" ends a line.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace editd::protocol {

class LineFramer {
 public:
  explicit LineFramer(std::size_t max_line_bytes) : max_(max_line_bytes) {}

  struct Sink {
    std::function<void(std::string line)> line;
    // Called once per discarded line, with the limit that it exceeded.
    std::function<void(std::size_t limit)> oversize;
  };

  // Feeds a chunk; calls the sink for each complete line in order.
  void feed(std::string_view chunk, const Sink& sink);
  // At end of input: a final line without "\n" is delivered too.
  void finish(const Sink& sink);
  // Bytes buffered for the current partial line.
  std::size_t buffered() const { return partial_.size(); }

 private:
  void emit(const Sink& sink);

  std::size_t max_;
  std::string partial_;
  bool discarding_ = false;
};

}  // namespace editd::protocol
