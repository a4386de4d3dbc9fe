// Newline-delimited framing (as ACP uses): one JSON message per line.
//
// LineFramer turns arbitrary chunks of bytes into complete lines. One trailing
// "\r" is dropped (CRLF tolerated) and blank lines (spaces, tabs and CRs only)
// are skipped. A line longer
// than the limit is never buffered whole: once it passes the limit the framer
// discards bytes until the next newline and reports one oversize event, so a
// hostile or broken client cannot make the server allocate without bound.
// Lines are bytes: a NUL or any other byte is passed on as it is (the message
// layer decides what it means), only "\n" ends a line. A line without its
// "\n" when the input ends is no message: finish() drops it unread.
//
// Cost: each byte is looked at once as it arrives, and a line under way is
// kept in pieces of at most kPieceBytes, so that no chunk fed costs more than
// its own size, however long the line grows: a long line is never copied or
// reallocated whole while it arrives (Line::join copies it once, where the
// caller chooses).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace editd::protocol {

// A complete line, without its "\n" (nor the "\r" before it): its bytes in
// order, in one piece or several.
struct Line {
  std::vector<std::string> pieces;

  std::size_t size() const;
  // The bytes as one string: a move for a line of one piece, else one copy.
  std::string join() &&;
};

class LineFramer {
 public:
  // The most bytes a piece of a line holds.
  static constexpr std::size_t kPieceBytes = std::size_t{1} << 20;

  explicit LineFramer(std::size_t max_line_bytes) : max_(max_line_bytes) {}

  struct Sink {
    std::function<void(Line line)> line;
    // Called once per discarded line, with the limit that it exceeded.
    std::function<void(std::size_t limit)> oversize;
  };

  // Feeds a chunk; calls the sink for each complete line in order.
  void feed(std::string_view chunk, const Sink& sink);
  // At end of input: drops the line under way, whose sender will not finish
  // it, and frees its buffer; its length so far in bytes (discarded bytes of
  // an oversize line included), 0 if none.
  std::size_t finish();
  // The limit from now on; a line under way past it is discarded as it grows.
  void set_limit(std::size_t max_line_bytes) { max_ = max_line_bytes; }
  std::size_t limit() const { return max_; }
  // Bytes buffered for the current partial line.
  std::size_t buffered() const { return size_; }

 private:
  void append(std::string_view bytes);
  void emit(const Sink& sink);
  // Forgets the line under way and frees its pieces.
  void drop();

  std::size_t max_;
  std::vector<std::string> pieces_;  // of the line under way; none empty
  std::size_t size_ = 0;             // bytes in pieces_
  bool nonblank_ = false;            // pieces_ hold a byte other than " \t\r"
  std::size_t line_bytes_ = 0;       // of the line under way, discarded ones included
  bool discarding_ = false;
};

}  // namespace editd::protocol
