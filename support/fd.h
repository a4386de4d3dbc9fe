// Fd: a file descriptor owned by one object and closed with it, or borrowed
// from an owner that outlives it. The local backend holds every descriptor it
// opens in one (backends/local/beneath.h), as do the undo history's spill
// files and the stdio stream; it is here, on the floor, because all of them
// need it and none is the others' owner. So is write_all, which the journal
// and the stdio stream's writer both use.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string_view>
#include <utility>

namespace editd {

// An open file descriptor, closed with its owner; or one borrowed from an
// owner that outlives it, left open.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  // `fd` itself, not a duplicate (no fcntl, no close): for the root's
  // descriptor, which the backend holds for as long as any of its calls runs.
  static Fd borrowed(int fd) {
    Fd f(fd);
    f.owned_ = false;
    return f;
  }
  Fd(Fd&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), owned_(std::exchange(other.owned_, true)) {}
  Fd& operator=(Fd&& other) noexcept {
    const bool owned = std::exchange(other.owned_, true);
    reset(std::exchange(other.fd_, -1));
    owned_ = owned;
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // The descriptor, now the caller's to close (a duplicate of a borrowed one).
  int release() {
    const int fd = std::exchange(fd_, -1);
    if (owned_ || fd < 0) return fd;
    owned_ = true;
    return ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  }
  void reset(int fd = -1) {
    if (fd_ >= 0 && owned_) ::close(fd_);
    fd_ = fd;
    owned_ = true;
  }

 private:
  int fd_ = -1;
  bool owned_ = true;
};

// Writes every byte of `bytes` to `fd`, again after EINTR: 0, or the errno of
// the write that failed.
int write_all(int fd, std::string_view bytes);

}  // namespace editd
