#include "server/session/auth.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "server/session/server_context.h"

namespace editd {

namespace asio = boost::asio;

bool same_token(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i % (b.empty() ? 1 : b.size())]);
  return b.size() > 0 && diff == 0;
}

Auth::Auth(ServerContext& server, asio::io_context& io, bool needs_auth)
    : server_(server), timer_(io), authenticated_(!needs_auth), admitted_(needs_auth) {}

Auth::~Auth() { release_admission(); }

void Auth::release_admission() {
  if (!admitted_) return;
  admitted_ = false;
  server_.release_unauthenticated();
}

Error Auth::unauthenticated() const {
  return Error(ErrorKind::kUnauthenticated,
               "unauthenticated: the first request must be initialize with a valid authToken",
               {{"failures", failures_}, {"maxFailures", kMaxAuthFailures}});
}

Result<void> Auth::check(const std::optional<std::string>& token) {
  if (authenticated_) return {};
  const auto& expected = server_.token();
  if (!expected || !token || !same_token(*token, *expected)) {
    fail();
    return unauthenticated();
  }
  authenticated_ = true;
  timer_.cancel();
  release_admission();
  return {};
}

std::uint64_t Auth::line_limit(std::uint64_t max_message_bytes) const {
  return authenticated_ ? max_message_bytes
                        : std::min<std::uint64_t>(max_message_bytes, kUnauthenticatedLineBytes);
}

asio::awaitable<bool> Auth::deadline_passed() {
  timer_.expires_after(server_.session_options().auth_timeout);
  co_await timer_.async_wait(asio::as_tuple(asio::use_awaitable));
  co_return !authenticated_;
}

}  // namespace editd
