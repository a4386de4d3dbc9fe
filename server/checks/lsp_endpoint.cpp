// The LSP client's endpoint: how messages are framed (Content-Length), written
// in order, and read, each parsed in one pass (lsp::parse_message), a large
// one on the pool, so that a server's answer of many megabytes never holds up
// the I/O thread the checks share with editd's clients (server/checks/lsp_state.h).
#include <signal.h>

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "server/checks/lsp_state.h"
#include "support/offload.h"

namespace editd {

namespace asio = boost::asio;
using json = nlohmann::json;

namespace {

// A header block or a message bigger than these is a broken server.
constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
constexpr std::size_t kMaxMessageBytes = 256ull << 20;
// The deepest nesting kept of a server's message.
constexpr int kMaxMessageDepth = 256;
// What editd lets wait for a server that does not read: more than this (on
// top of the one message being written) and it is stopped as broken. A
// checked file's text is sent whole with each change, so a server that stops
// reading would otherwise hold a copy of every edit's file.
constexpr std::size_t kMaxQueuedBytes = 64ull << 20;
// A message larger than this is parsed on the pool (about a millisecond's work).
constexpr std::size_t kInlineParseBytes = 64 * 1024;
// What one documentSymbol answer may hold in memory, beside kMaxSymbols.
constexpr std::size_t kMaxAnswerBytes = 64ull << 20;

std::optional<std::size_t> content_length(std::string_view headers) {
  std::size_t pos = 0;
  while (pos < headers.size()) {
    std::size_t eol = headers.find("\r\n", pos);
    if (eol == std::string_view::npos) eol = headers.size();
    std::string_view line = headers.substr(pos, eol - pos);
    pos = eol + 2;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name != "content-length") continue;
    std::string_view v = line.substr(colon + 1);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    std::size_t n = 0;
    if (v.empty()) return std::nullopt;
    for (char c : v) {
      if (c < '0' || c > '9' || n > kMaxMessageBytes) return std::nullopt;
      n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    return n;
  }
  return std::nullopt;
}

asio::awaitable<void> write_loop(StatePtr s) {
  while (s->alive && !s->out.empty()) {
    std::string msg = std::move(s->out.front());
    s->out.pop_front();
    auto [ec, n] = co_await asio::async_write(s->child->in(), asio::buffer(msg),
                                              asio::as_tuple(asio::use_awaitable));
    if (ec) s->fail("the language server stopped reading: " + ec.message());
    s->queued_bytes -= msg.size();
  }
  s->writing = false;
}

lsp::Message parse(std::string_view body, const std::vector<std::int64_t>& json_results) {
  return lsp::parse_message(body, kMaxMessageDepth, LspClient::kMaxSymbols, kMaxAnswerBytes,
                            json_results);
}

}  // namespace

void LspClient::State::fail(std::string why) {
  if (!alive) return;
  alive = false;
  failure = std::move(why);
  if (child) {
    ::kill(-child->pid(), SIGKILL);
    boost::system::error_code ignored;
    child->in().close(ignored);
    child->out().close(ignored);
  }
  notify();
}

void send(const StatePtr& s, const json& msg) {
  if (!s->alive) return;
  std::string body = msg.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string framed = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  if (s->queued_bytes > 0 && s->queued_bytes + framed.size() > kMaxQueuedBytes) {
    s->fail("the language server stopped reading (" + std::to_string(s->queued_bytes) +
            " bytes sent to it were still waiting); it was stopped");
    return;
  }
  s->queued_bytes += framed.size();
  s->out.push_back(std::move(framed));
  if (!s->writing) {
    s->writing = true;
    asio::co_spawn(s->child->in().get_executor(), write_loop(s), asio::detached);
  }
}

asio::awaitable<void> read_loop(StatePtr s) {
  std::string buf;
  std::size_t used = 0;  // of `buf`, by the messages handled
  std::array<char, 65536> chunk;
  while (s->alive) {
    for (;;) {
      const std::string_view rest = std::string_view(buf).substr(used);
      auto end = rest.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (rest.size() > kMaxHeaderBytes) s->fail("the language server sent a malformed header");
        break;
      }
      auto length = content_length(rest.substr(0, end));
      if (!length || *length > kMaxMessageBytes) {
        s->fail("the language server sent a message without a valid Content-Length");
        break;
      }
      if (rest.size() < end + 4 + *length) break;
      const std::string_view body = rest.substr(end + 4, *length);
      lsp::Message msg;
      if (body.size() <= kInlineParseBytes || !s->pool) {
        msg = parse(body, s->json_results);
      } else {
        // `buf` is not touched until the parse is back: this loop waits for it.
        auto parsed = co_await offload(
            *s->pool,
            [body, ids = s->json_results]() -> Result<lsp::Message> { return parse(body, ids); });
        if (parsed) msg = std::move(*parsed);
        else msg.json = json(json::value_t::discarded);
      }
      used += end + 4 + *length;
      if (!msg.json.is_discarded()) handle(s, std::move(msg));
      if (!s->alive) break;
    }
    // What was handled goes at once, not message by message.
    buf.erase(0, used);
    used = 0;
    if (!s->alive) break;
    auto [ec, n] = co_await s->child->out().async_read_some(asio::buffer(chunk),
                                                            asio::as_tuple(asio::use_awaitable));
    if (ec) {
      s->fail("the language server exited");
      break;
    }
    buf.append(chunk.data(), n);
  }
}

asio::awaitable<bool> wait_until(StatePtr s, std::chrono::steady_clock::time_point deadline,
                                 std::function<bool()> ready) {
  auto ex = co_await asio::this_coro::executor;
  while (!ready()) {
    if (!s->alive || std::chrono::steady_clock::now() >= deadline) co_return false;
    asio::steady_timer t(ex);
    t.expires_at(deadline);
    s->waiters.push_back(&t);
    auto [ec] = co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
    s->waiters.erase(std::find(s->waiters.begin(), s->waiters.end(), &t));
  }
  co_return true;
}

}  // namespace editd
