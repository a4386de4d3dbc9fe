#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>

#include "server/session/stream.h"
#include "support/fd.h"
#include "support/offload.h"

namespace editd {
namespace {

// The read under way was cancelled (a byte arrived on the wake pipe).
constexpr int kWoken = -1;

class StdioStream final : public Stream {
 public:
  StdioStream() : reader_(1), writer_(1) {
    if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
  }
  ~StdioStream() override {
    // A read blocked in poll() is woken; one blocked on a terminal that
    // ignores poll cannot be, and the process exits around it.
    cancel_read();
    reader_.stop();
    writer_.join();
    if (wake_[0] >= 0) ::close(wake_[0]);
    if (wake_[1] >= 0) ::close(wake_[1]);
  }

  boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                boost::system::error_code& ec) override {
    // Wakes meant for earlier reads are dropped here, on the I/O thread, where
    // cancel_read() runs too: a cancel from now on ends this read.
    char drop[64];
    while (wake_[0] >= 0 && ::read(wake_[0], drop, sizeof drop) > 0) {
    }
    const int wake = wake_[0];
    auto r = co_await offload(reader_, [buf, wake]() -> Result<std::size_t> {
      while (true) {
        pollfd fds[2] = {{0, POLLIN, 0}, {wake, POLLIN, 0}};
        if (::poll(fds, wake >= 0 ? 2 : 1, -1) < 0) {
          if (errno == EINTR) continue;
          return Error(ErrorKind::kIo, "poll stdin", {{"errno", errno}});
        }
        if (fds[1].revents & POLLIN) return Error(ErrorKind::kIo, "woken", {{"errno", kWoken}});
        ssize_t n = ::read(0, buf.data(), buf.size());
        if (n >= 0) return static_cast<std::size_t>(n);
        if (errno != EINTR && errno != EAGAIN)
          return Error(ErrorKind::kIo, "read stdin", {{"errno", errno}});
      }
    });
    if (!r) {
      int code = r.error().data.value("errno", EIO);
      ec = code == kWoken ? boost::system::error_code(boost::asio::error::operation_aborted)
                          : boost::system::error_code(code, boost::system::system_category());
      co_return 0;
    }
    if (*r == 0) ec = boost::asio::error::eof;
    co_return *r;
  }

  boost::asio::awaitable<void> write_all(std::string_view data,
                                         boost::system::error_code& ec) override {
    auto r =
        co_await offload(writer_, [data]() -> Result<int> { return editd::write_all(1, data); });
    if (!r || *r != 0)
      ec = boost::system::error_code(r ? *r : EIO, boost::system::system_category());
  }

  void cancel_read() override {
    // A full pipe (EAGAIN) already holds a wake.
    if (wake_[1] >= 0 && ::write(wake_[1], "x", 1) < 0) return;
  }
  void abort() override { cancel_read(); }
  boost::asio::awaitable<void> finish(std::chrono::steady_clock::duration) override { co_return; }
  std::string peer() const override { return "stdio"; }

 private:
  boost::asio::thread_pool reader_;
  boost::asio::thread_pool writer_;
  int wake_[2];
};

// stdin/stdout as non-blocking descriptors on the I/O thread: no thread hops.
// Only for pipes and sockets, which are not shared with an interactive
// terminal (non-blocking mode is a property of the shared file description).
class PipeStdioStream final : public Stream {
 public:
  explicit PipeStdioStream(boost::asio::any_io_executor ex)
      : in_(ex, ::fcntl(0, F_DUPFD_CLOEXEC, 0)), out_(ex, ::fcntl(1, F_DUPFD_CLOEXEC, 0)) {}

  boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                boost::system::error_code& ec) override {
    co_return co_await in_.async_read_some(
        boost::asio::buffer(buf.data(), buf.size()),
        boost::asio::bind_cancellation_slot(
            read_cancel_.slot(), boost::asio::redirect_error(boost::asio::use_awaitable, ec)));
  }

  boost::asio::awaitable<void> write_all(std::string_view data,
                                         boost::system::error_code& ec) override {
    co_await boost::asio::async_write(out_, boost::asio::buffer(data.data(), data.size()),
                                      boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }

  void cancel_read() override { read_cancel_.emit(boost::asio::cancellation_type::terminal); }
  void abort() override {
    boost::system::error_code ignored;
    in_.cancel(ignored);
    out_.cancel(ignored);
  }
  boost::asio::awaitable<void> finish(std::chrono::steady_clock::duration) override { co_return; }
  std::string peer() const override { return "stdio"; }

 private:
  boost::asio::posix::stream_descriptor in_;
  boost::asio::posix::stream_descriptor out_;
  boost::asio::cancellation_signal read_cancel_;
};

bool pollable(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

}  // namespace

std::unique_ptr<Stream> make_stdio_stream(boost::asio::any_io_executor ex) {
  if (pollable(0) && pollable(1)) return std::make_unique<PipeStdioStream>(std::move(ex));
  return std::make_unique<StdioStream>();
}

}  // namespace editd
