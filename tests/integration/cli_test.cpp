// The command line around the server: --version and the probe (the container's
// health check), through the real binary.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <regex>
#include <thread>

#include "helpers/process.h"
#include "helpers/socket_client.h"

using namespace editd::test;

namespace {

// A Unix socket server that answers its first line with `answer` and closes.
class FakeServer {
 public:
  FakeServer(const std::string& path, std::string answer) : answer_(std::move(answer)) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof addr.sun_path);
    std::copy(path.begin(), path.end(), addr.sun_path);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 1) == 0);
    thread_ = std::thread([this] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char ch;
      while (::read(c, &ch, 1) == 1 && ch != '\n') {
      }
      (void)!::write(c, answer_.data(), answer_.size());
      ::close(c);
    });
  }
  ~FakeServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }

 private:
  int fd_ = -1;
  std::string answer_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("--version prints the version and the commit the binary was built from") {
  Run r = run_editd({"--version"});
  CHECK(r.code == 0);
  CAPTURE(r.out);
  CHECK(std::regex_match(r.out, std::regex("editd [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit "
                                           "([0-9a-f]{12}(-dirty)?|unknown)\\)\n")));
}

TEST_CASE("probe exits 0 only when editd answers initialize, on a Unix socket and on TCP") {
  TempDir root, run_dir;
  const std::string socket = (run_dir.path() / "editd.sock").string();
  run_dir.write("token", "s3cret\n");
  run_dir.write("wrong", "nope\n");
  const std::string token = (run_dir.path() / "token").string();
  Process server(EDITD_BINARY, {"--root", root.str(), "--listen", "unix:" + socket, "--listen",
                                "tcp:127.0.0.1:0", "--token-file", token});
  const int port = logged_port(server);
  REQUIRE_MESSAGE(port > 0, server.stderr_text());
  REQUIRE(wait_for_path(socket));

  Run unix_ok = run_editd({"probe", "unix:" + socket});
  CHECK(unix_ok.code == 0);
  CHECK(unix_ok.err.empty());
  const std::string tcp = "tcp:127.0.0.1:" + std::to_string(port);
  CHECK(run_editd({"probe", tcp, "--token-file", token}).code == 0);

  Run no_token = run_editd({"probe", tcp});
  CHECK(no_token.code == 1);
  CHECK(no_token.err.find("initialize failed") != std::string::npos);
  CHECK(run_editd({"probe", tcp, "--token-file", (run_dir.path() / "wrong").string()}).code == 1);

  Run gone = run_editd({"probe", "unix:" + (run_dir.path() / "none.sock").string()});
  CHECK(gone.code == 1);
  CHECK(gone.err.find("cannot connect") != std::string::npos);
  CHECK(run_editd({"probe"}).code == 2);
  CHECK(run_editd({"probe", "http://localhost"}).code == 2);
}

TEST_CASE("probe fails when what answers is not editd, or does not answer in time") {
  TempDir dir;
  const std::string other = (dir.path() / "other.sock").string();
  {
    FakeServer fake(other, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":1}}\n");
    Run r = run_editd({"probe", "unix:" + other});
    CHECK(r.code == 1);
    CHECK(r.err.find("not editd") != std::string::npos);
  }
  const std::string garbage = (dir.path() / "garbage.sock").string();
  {
    FakeServer fake(garbage, "HTTP/1.1 400 Bad Request\r\n\r\n");
    Run r = run_editd({"probe", "unix:" + garbage});
    CHECK(r.code == 1);
    CHECK(r.err.find("not JSON") != std::string::npos);
  }
  // A listener that never accepts: the probe gives up at --timeout.
  const std::string silent = (dir.path() / "silent.sock").string();
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::copy(silent.begin(), silent.end(), addr.sun_path);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 1) == 0);
  Run r = run_editd({"probe", "unix:" + silent, "--timeout", "0.3"});
  CHECK(r.code == 1);
  CHECK(r.err.find("no answer") != std::string::npos);
  ::close(fd);
}
