#include "server/probe.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "protocol/error.h"
#include "server/server.h"

namespace editd {

namespace {

namespace asio = boost::asio;
using nlohmann::json;

// The most the probe reads of the answer.
constexpr std::size_t kMaxAnswer = 1 << 20;

std::string request(const std::optional<std::string>& token) {
  json params = {{"protocolVersion", 1}, {"clientInfo", {{"name", "editd-probe"}}}};
  if (token) params["authToken"] = *token;
  return json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", params}}.dump() +
         "\n";
}

// Whether `line` is editd's answer to the probe's initialize: "" if so, else why not.
std::string check_answer(const std::string& line) {
  json answer = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded()) return "the answer is not JSON: " + line.substr(0, 200);
  if (!answer.is_object() || answer.value("id", json()) != json(1))
    return "the answer is not a reply to the probe: " + line.substr(0, 200);
  if (auto error = answer.find("error"); error != answer.end())
    return "initialize failed: " + error->value("message", error->dump());
  auto result = answer.find("result");
  if (result == answer.end() || !result->is_object()) return "the answer has no result";
  const json* info = result->contains("agentInfo") ? &(*result)["agentInfo"] : nullptr;
  if (!info || !info->is_object() || info->value("name", json()) != json("editd") ||
      result->value("protocolVersion", json()) != json(1))
    return "the server that answered is not editd: " + line.substr(0, 200);
  return "";
}

template <class Socket>
asio::awaitable<std::string> exchange(Socket& socket, std::string out) {
  auto [wec, written] = co_await asio::async_write(socket, asio::buffer(out),
                                                   asio::as_tuple(asio::use_awaitable));
  if (wec) co_return "cannot send initialize: " + wec.message();
  asio::streambuf in(kMaxAnswer);
  auto [rec, n] = co_await asio::async_read_until(socket, in, '\n', asio::as_tuple(asio::use_awaitable));
  if (rec) co_return "no answer to initialize: " + rec.message();
  std::string line(asio::buffers_begin(in.data()), asio::buffers_begin(in.data()) + n - 1);
  co_return check_answer(line);
}

asio::awaitable<std::string> probe_unix(std::string path, std::string out) {
  asio::local::stream_protocol::socket socket(co_await asio::this_coro::executor);
  auto [ec] = co_await socket.async_connect(asio::local::stream_protocol::endpoint(path),
                                            asio::as_tuple(asio::use_awaitable));
  if (ec) co_return "cannot connect to unix:" + path + ": " + ec.message();
  co_return co_await exchange(socket, std::move(out));
}

asio::awaitable<std::string> probe_tcp(std::string spec, std::string out) {
  using asio::ip::tcp;
  const auto [host, port] = tcp_host_port(spec);
  auto executor = co_await asio::this_coro::executor;
  tcp::resolver resolver(executor);
  auto [rec, results] = co_await resolver.async_resolve(host, port, tcp::resolver::numeric_service,
                                                        asio::as_tuple(asio::use_awaitable));
  if (rec) co_return "cannot resolve tcp:" + spec + ": " + rec.message();
  tcp::socket socket(executor);
  auto [cec, endpoint] =
      co_await asio::async_connect(socket, results, asio::as_tuple(asio::use_awaitable));
  if (cec) co_return "cannot connect to tcp:" + spec + ": " + cec.message();
  co_return co_await exchange(socket, std::move(out));
}

}  // namespace

int run_probe(const ProbeOptions& options) {
  std::optional<std::string> token;
  if (options.token_file) {
    auto t = read_token(*options.token_file);
    if (!t) {
      std::cerr << "editd probe: " << t.error().message << "\n";
      return 1;
    }
    token = *t;
  }
  const std::string& address = options.address;
  std::optional<std::string> failure;
  asio::io_context io(1);
  auto task = address.starts_with("unix:") ? probe_unix(address.substr(5), request(token))
                                           : probe_tcp(address.substr(4), request(token));
  asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, std::string why) {
    failure = e ? "the probe failed" : why;
  });
  io.run_for(options.timeout);
  if (!failure) {
    std::cerr << "editd probe: no answer from " << address << " within "
              << options.timeout.count() << " ms\n";
    return 1;
  }
  if (!failure->empty()) {
    std::cerr << "editd probe: " << *failure << "\n";
    return 1;
  }
  return 0;
}

}  // namespace editd
