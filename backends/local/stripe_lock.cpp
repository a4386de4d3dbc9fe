#include "backends/local/stripe_lock.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "backends/local/local_backend.h"

namespace editd {
namespace {

struct flock byte_lock(short type, std::uint32_t stripe) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = stripe;
  fl.l_len = 1;
  return fl;
}

}  // namespace

std::uint32_t StripeLocks::stripe_of(std::string_view name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<std::uint32_t>((h ^ (h >> 32)) % kStripes);
}

Result<bool> StripeLocks::try_locked(std::uint32_t stripe) {
  int& n = holders_[stripe];
  if (n > 0 || !file_.valid()) {
    ++n;
    return true;
  }
  struct flock fl = byte_lock(F_WRLCK, stripe);
  if (::fcntl(file_.get(), F_OFD_SETLK, &fl) == 0) {
    n = 1;
    return true;
  }
  int err = errno;
  holders_.erase(stripe);
  if (err == EAGAIN || err == EACCES) return false;
  return Error(ErrorKind::kIo, "lock " + path_ + ": " + std::strerror(err),
               {{"errno", errno_name(err)}, {"path", path_}});
}

Result<bool> StripeLocks::try_acquire(std::uint32_t stripe) {
  std::lock_guard<std::mutex> lk(mu_);
  return try_locked(stripe);
}

Result<void> StripeLocks::acquire(std::uint32_t stripe) {
  std::unique_lock<std::mutex> lk(mu_);
  while (true) {
    Result<bool> got = try_locked(stripe);
    if (!got) return got.error();
    if (*got) return {};
    lk.unlock();
    struct flock fl = byte_lock(F_WRLCK, stripe);
    while (::fcntl(file_.get(), F_OFD_SETLKW, &fl) != 0) {
      if (errno == EINTR) continue;
      int err = errno;
      return Error(ErrorKind::kIo, "lock " + path_ + ": " + std::strerror(err),
                   {{"errno", errno_name(err)}, {"path", path_}});
    }
    lk.lock();
    // The byte is this process's now, unless a holder here took it too and
    // gave it back meanwhile: try_locked() tells, on the next turn.
  }
}

void StripeLocks::release(std::uint32_t stripe) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = holders_.find(stripe);
  if (it == holders_.end() || --it->second > 0) return;
  holders_.erase(it);
  if (!file_.valid()) return;
  struct flock fl = byte_lock(F_UNLCK, stripe);
  ::fcntl(file_.get(), F_OFD_SETLK, &fl);
}

}  // namespace editd
