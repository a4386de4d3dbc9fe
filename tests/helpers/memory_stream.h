// Test support: a Stream in memory, so that a whole connection runs in-process
// with no binary and no socket. Header-only.
//
// The test holds the Pipe; the connection owns the MemoryStream over it. The
// test feeds input (feed, close_input) and reads what the connection wrote
// (lines, messages). Everything runs on the one io_context, like a connection.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/session/stream.h"

namespace editd::test {

struct Pipe {
  explicit Pipe(boost::asio::io_context& io) : io(io), signal(io) {
    signal.expires_at(std::chrono::steady_clock::time_point::max());
  }

  void feed(const std::string& bytes) {
    input += bytes;
    signal.cancel();
  }
  void feed(const nlohmann::json& message) { feed(message.dump() + "\n"); }
  void close_input() {
    eof = true;
    signal.cancel();
  }

  // Every whole line written so far, parsed.
  std::vector<nlohmann::json> messages() const {
    std::vector<nlohmann::json> out;
    std::size_t start = 0;
    for (std::size_t end; (end = output.find('\n', start)) != std::string::npos; start = end + 1)
      out.push_back(nlohmann::json::parse(output.substr(start, end - start)));
    return out;
  }
  // The messages written with this id (replies, or editd's calls).
  std::vector<nlohmann::json> with_id(const nlohmann::json& id) const {
    std::vector<nlohmann::json> out;
    for (auto& m : messages())
      if (m.contains("id") && m["id"] == id) out.push_back(m);
    return out;
  }

  // Runs the context until `done` holds or `limit` passes; whether it holds.
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io.restart();
      io.run_for(std::chrono::milliseconds(2));
    }
    return done();
  }

  boost::asio::io_context& io;
  boost::asio::steady_timer signal;
  std::string input;
  bool eof = false;
  bool reading = false;
  bool cancelled = false;  // cancel_read() during a read
  bool aborted = false;
  bool finished = false;
  std::string output;
};

class MemoryStream : public Stream {
 public:
  explicit MemoryStream(std::shared_ptr<Pipe> pipe) : pipe_(std::move(pipe)) {}

  boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                boost::system::error_code& ec) override {
    auto pipe = pipe_;
    pipe->reading = true;
    while (pipe->input.empty() && !pipe->eof && !pipe->cancelled && !pipe->aborted) {
      pipe->signal.expires_at(std::chrono::steady_clock::time_point::max());
      co_await pipe->signal.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    pipe->reading = false;
    if (pipe->cancelled || pipe->aborted) {
      pipe->cancelled = false;
      ec = boost::asio::error::operation_aborted;
      co_return 0;
    }
    if (pipe->input.empty()) {
      ec = boost::asio::error::eof;
      co_return 0;
    }
    const std::size_t n = std::min(buf.size(), pipe->input.size());
    std::memcpy(buf.data(), pipe->input.data(), n);
    pipe->input.erase(0, n);
    ec = {};
    co_return n;
  }

  boost::asio::awaitable<void> write_all(std::string_view data,
                                         boost::system::error_code& ec) override {
    if (pipe_->aborted) {
      ec = boost::asio::error::connection_reset;
      co_return;
    }
    pipe_->output.append(data);
    ec = {};
    co_return;
  }

  void cancel_read() override {
    if (!pipe_->reading) return;
    pipe_->cancelled = true;
    pipe_->signal.cancel();
  }
  void abort() override {
    pipe_->aborted = true;
    pipe_->signal.cancel();
  }
  boost::asio::awaitable<void> finish(std::chrono::steady_clock::duration) override {
    pipe_->finished = true;
    co_return;
  }
  std::string peer() const override { return "memory"; }

 private:
  std::shared_ptr<Pipe> pipe_;
};

// A JSON-RPC request, as a client sends it.
inline nlohmann::json request(nlohmann::json id, std::string method,
                              nlohmann::json params = nlohmann::json::object()) {
  return nlohmann::json{{"jsonrpc", "2.0"},
                        {"id", std::move(id)},
                        {"method", std::move(method)},
                        {"params", std::move(params)}};
}

}  // namespace editd::test
