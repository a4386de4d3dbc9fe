#include "protocol/framing.h"

#include <algorithm>

namespace editd::protocol {

std::size_t Line::size() const {
  std::size_t n = 0;
  for (const std::string& p : pieces) n += p.size();
  return n;
}

std::string Line::join() && {
  if (pieces.empty()) return {};
  if (pieces.size() == 1) return std::move(pieces.front());
  std::string out;
  out.reserve(size());
  for (std::string& p : pieces) {
    out.append(p);
    std::string().swap(p);
  }
  return out;
}

void LineFramer::append(std::string_view bytes) {
  if (bytes.empty()) return;
  // A line of JSON whitespace alone is blank.
  if (!nonblank_) nonblank_ = bytes.find_first_not_of(" \t\r") != std::string_view::npos;
  size_ += bytes.size();
  while (!bytes.empty()) {
    if (pieces_.empty() || pieces_.back().size() >= kPieceBytes) pieces_.emplace_back();
    std::string& back = pieces_.back();
    const std::size_t take = std::min(bytes.size(), kPieceBytes - back.size());
    back.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
  }
}

void LineFramer::drop() {
  std::vector<std::string>().swap(pieces_);
  size_ = 0;
  nonblank_ = false;
}

// The trailing "\r" is already dropped.
void LineFramer::emit(const Sink& sink) {
  if (!nonblank_) {
    drop();
    return;
  }
  Line line{std::move(pieces_)};
  pieces_.clear();
  size_ = 0;
  nonblank_ = false;
  sink.line(std::move(line));
}

void LineFramer::feed(std::string_view chunk, const Sink& sink) {
  while (!chunk.empty()) {
    std::size_t nl = chunk.find('\n');
    std::string_view piece = chunk.substr(0, nl);
    line_bytes_ += piece.size();
    if (!discarding_) {
      // One byte of slack for the "\r" of a CRLF (written so that a limit of
      // SIZE_MAX cannot wrap).
      if (size_ + piece.size() > max_ && size_ + piece.size() - max_ > 1) {
        discarding_ = true;
        drop();
      } else {
        append(piece);
      }
    }
    if (nl == std::string_view::npos) return;
    chunk.remove_prefix(nl + 1);
    line_bytes_ = 0;
    if (!discarding_ && size_ > 0 && pieces_.back().back() == '\r') {
      pieces_.back().pop_back();
      --size_;
    }
    if (discarding_ || size_ > max_) {
      discarding_ = false;
      drop();
      sink.oversize(max_);
    } else {
      emit(sink);
    }
  }
}

std::size_t LineFramer::finish() {
  const std::size_t dropped = line_bytes_;
  line_bytes_ = 0;
  discarding_ = false;
  drop();
  return dropped;
}

}  // namespace editd::protocol
