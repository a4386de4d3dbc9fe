// Authentication of a TCP connection: the token check, the deadline, the
// three-failures rule and the unauthenticated admission.
//
// A TCP connection (Settings::needs_auth) must send initialize with a valid
// authToken as its first request, within --auth-timeout. Until it does, its
// lines are limited to kUnauthenticatedLineBytes (line_limit()) and every line
// that is not a successful initialize is a failure; at kMaxAuthFailures the
// connection closes (the caller closes it when fail() says so). Meanwhile it
// holds one of the server's unauthenticated admissions
// (ServerContext::admit_unauthenticated), released once it authenticates or
// ends. Unix socket and stdio connections are authenticated from the start.
//
// Threading: the connection's I/O thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "protocol/error.h"
#include "server/session/connection_limits.h"

namespace editd {

class ServerContext;

// Constant-time comparison of a token with the expected one: the time taken
// does not depend on where they differ. An empty `expected` matches nothing.
bool same_token(const std::string& token, const std::string& expected);

class Auth {
 public:
  // `needs_auth`: the connection holds an admission already taken for it, and
  // must authenticate; otherwise it is authenticated from the start.
  Auth(ServerContext& server, boost::asio::io_context& io, bool needs_auth);
  // Releases the admission if still held.
  ~Auth();
  Auth(const Auth&) = delete;
  Auth& operator=(const Auth&) = delete;

  bool authenticated() const { return authenticated_; }
  int failures() const { return failures_; }

  // Authenticated already, or `token` is the server's token: from now on the
  // connection is authenticated, the deadline is off and the admission
  // released. Otherwise one failure more and unauthenticated().
  Result<void> check(const std::optional<std::string>& token);
  // One failure more; whether it is the last allowed (the connection must
  // close now).
  bool fail() { return ++failures_ >= kMaxAuthFailures; }
  // The failures have reached kMaxAuthFailures: the connection must close.
  bool exhausted() const { return failures_ >= kMaxAuthFailures; }
  // The error answering a request refused for want of authentication.
  Error unauthenticated() const;
  // The longest line the connection may send now.
  std::uint64_t line_limit(std::uint64_t max_message_bytes) const;

  // Waits --auth-timeout (or until cancel_deadline()); whether the connection
  // has still not authenticated then.
  boost::asio::awaitable<bool> deadline_passed();
  void cancel_deadline() { timer_.cancel(); }
  // The connection ends: its admission goes back to the server.
  void release_admission();

 private:
  ServerContext& server_;
  boost::asio::steady_timer timer_;
  bool authenticated_;
  bool admitted_;
  int failures_ = 0;
};

}  // namespace editd
