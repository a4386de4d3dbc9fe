#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>

#include "backends/offload.h"
#include "server/stream.h"

namespace editd {
namespace {

class StdioStream final : public Stream {
 public:
  StdioStream() : reader_(1), writer_(1) {}
  ~StdioStream() override {
    // A blocked read(0) cannot be interrupted: the process exits around it.
    reader_.stop();
    writer_.join();
  }

  boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                boost::system::error_code& ec) override {
    auto r = co_await offload(reader_, [buf]() -> Result<std::size_t> {
      while (true) {
        ssize_t n = ::read(0, buf.data(), buf.size());
        if (n >= 0) return static_cast<std::size_t>(n);
        if (errno != EINTR) return Error(ErrorKind::kIo, "read stdin", {{"errno", errno}});
      }
    });
    if (!r) {
      ec = boost::system::error_code(r.error().data["errno"].get<int>(), boost::system::system_category());
      co_return 0;
    }
    if (*r == 0) ec = boost::asio::error::eof;
    co_return *r;
  }

  boost::asio::awaitable<void> write_all(std::string_view data,
                                         boost::system::error_code& ec) override {
    auto r = co_await offload(writer_, [data]() -> Result<int> {
      std::size_t done = 0;
      while (done < data.size()) {
        ssize_t n = ::write(1, data.data() + done, data.size() - done);
        if (n < 0) {
          if (errno == EINTR) continue;
          return errno;
        }
        done += static_cast<std::size_t>(n);
      }
      return 0;
    });
    if (!r || *r != 0)
      ec = boost::system::error_code(r ? *r : EIO, boost::system::system_category());
  }

  void close() override {}
  std::string peer() const override { return "stdio"; }

 private:
  boost::asio::thread_pool reader_;
  boost::asio::thread_pool writer_;
};

// stdin/stdout as non-blocking descriptors on the I/O thread: no thread hops.
// Only for pipes and sockets, which are not shared with an interactive
// terminal (non-blocking mode is a property of the shared file description).
class PipeStdioStream final : public Stream {
 public:
  explicit PipeStdioStream(boost::asio::any_io_executor ex)
      : in_(ex, ::dup(0)), out_(ex, ::dup(1)) {}

  boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                boost::system::error_code& ec) override {
    co_return co_await in_.async_read_some(boost::asio::buffer(buf.data(), buf.size()),
                                           boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }

  boost::asio::awaitable<void> write_all(std::string_view data,
                                         boost::system::error_code& ec) override {
    co_await boost::asio::async_write(out_, boost::asio::buffer(data.data(), data.size()),
                                      boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }

  void close() override {
    boost::system::error_code ignored;
    in_.cancel(ignored);
  }
  std::string peer() const override { return "stdio"; }

 private:
  boost::asio::posix::stream_descriptor in_;
  boost::asio::posix::stream_descriptor out_;
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
