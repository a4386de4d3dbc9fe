#include "protocol/framing.h"

namespace editd::protocol {

// The trailing "\r" is already dropped. A line of JSON whitespace alone is blank.
void LineFramer::emit(const Sink& sink) {
  std::string line = std::move(partial_);
  partial_.clear();
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  sink.line(std::move(line));
}

void LineFramer::feed(std::string_view chunk, const Sink& sink) {
  while (!chunk.empty()) {
    std::size_t nl = chunk.find('\n');
    std::string_view piece = chunk.substr(0, nl);
    if (!discarding_) {
      // One byte of slack for the "\r" of a CRLF (written so that a limit of
      // SIZE_MAX cannot wrap).
      if (partial_.size() + piece.size() > max_ && partial_.size() + piece.size() - max_ > 1) {
        discarding_ = true;
        std::string().swap(partial_);
      } else {
        partial_.append(piece);
      }
    }
    if (nl == std::string_view::npos) return;
    chunk.remove_prefix(nl + 1);
    if (!discarding_ && !partial_.empty() && partial_.back() == '\r') partial_.pop_back();
    if (discarding_ || partial_.size() > max_) {
      discarding_ = false;
      std::string().swap(partial_);
      sink.oversize(max_);
    } else {
      emit(sink);
    }
  }
}

void LineFramer::finish(const Sink& sink) {
  if (!discarding_ && !partial_.empty() && partial_.back() == '\r') partial_.pop_back();
  if (discarding_ || partial_.size() > max_) {
    discarding_ = false;
    std::string().swap(partial_);
    sink.oversize(max_);
  } else if (!partial_.empty()) {
    emit(sink);
  }
}

}  // namespace editd::protocol
