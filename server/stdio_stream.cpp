#include <unistd.h>

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

}  // namespace

std::unique_ptr<Stream> make_stdio_stream() { return std::make_unique<StdioStream>(); }

}  // namespace editd
