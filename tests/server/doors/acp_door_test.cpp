// The ACP door on its own: a request's session and context from prepare(),
// and the announcements of report(), with a client that answers nothing.
#include "server/doors/acp_door.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <filesystem>

#include "backends/local/local_backend.h"

using namespace editd;
using nlohmann::json;

namespace {

struct SilentClient : ClientChannel {
  boost::asio::awaitable<Result<json>> call(std::string, json, std::chrono::milliseconds) override {
    co_return Error(ErrorKind::kDelegateFailed, "the client connection closed");
  }
};

struct AcpFixture {
  AcpFixture() {
    char dir[] = "/tmp/editd-acp-door-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    root = std::filesystem::canonical(dir);
    LocalBackendOptions o;
    o.root = root.string();
    o.runtime_dir = (root / ".run").string();
    o.durable = false;
    auto made = make_local_backend(o, pool);
    REQUIRE(made.has_value());
    local = std::move(*made);
    acp.emplace(doors, ops, *local, registry, client, [this](std::string method, json params) {
      notified.push_back({{"method", method}, {"params", params}});
    });
  }
  ~AcpFixture() {
    acp.reset();
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }

  boost::asio::thread_pool pool{1};
  OpsOptions options;
  DoorOptions doors;
  LockChains locks;
  Operations ops{options, locks, pool};
  Registry registry{ops};
  std::filesystem::path root;
  std::unique_ptr<FsBackend> local;
  SilentClient client;
  std::vector<json> notified;
  std::optional<AcpDoor> acp;
};

}  // namespace

TEST_CASE("without a session nothing is announced, and an unknown session is not_found") {
  AcpFixture f;
  const Method& write = *f.registry.find("write_text");
  auto call = f.acp->prepare(write, {{"path", "a.txt"}, {"content", "x"}},
                             std::make_shared<CancelState>(), nullptr, nullptr);
  REQUIRE(call.has_value());
  CHECK_FALSE((*call)->announce);
  CHECK((*call)->context->scope.local());
  f.acp->report(**call, write, json::object());
  CHECK(f.notified.empty());
  REQUIRE(f.acp->new_session({{"cwd", f.root.string()}}).has_value());
  auto unknown = f.acp->prepare(write, {{"path", "a.txt"}, {"sessionId", "nope"}},
                                std::make_shared<CancelState>(), nullptr, nullptr);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().kind == ErrorKind::kNotFound);
}

TEST_CASE("a provider-native result that reports a failure is announced as a failed tool call") {
  AcpFixture f;
  auto session = f.acp->new_session({{"cwd", f.root.string()}});
  REQUIRE(session.has_value());
  const Method& editor = *f.registry.find("anthropic_text_editor");
  const json params = {
      {"command", "str_replace"}, {"path", "a.txt"}, {"old_str", "a"}, {"new_str", "b"}};
  auto call = f.acp->prepare(editor, params, std::make_shared<CancelState>(), nullptr, nullptr);
  REQUIRE(call.has_value());
  CHECK((*call)->announce);
  REQUIRE(f.notified.size() == 1);
  CHECK(f.notified[0]["params"]["update"]["status"] == "pending");
  const json failed = {{"is_error", true}, {"content", "Error: no such file"}};
  f.acp->report(**call, editor, failed);
  REQUIRE(f.notified.size() == 2);
  const json& update = f.notified[1]["params"]["update"];
  CHECK(update["sessionUpdate"] == "tool_call_update");
  CHECK(update["status"] == "failed");
  CHECK(update["content"][0]["content"]["text"] == "Error: no such file");
  CHECK(update["rawOutput"] == failed);
  // A result that reports no failure completes.
  auto next = f.acp->prepare(editor, params, std::make_shared<CancelState>(), nullptr, nullptr);
  REQUIRE(next.has_value());
  f.acp->report(**next, editor, json{{"is_error", false}, {"content", "ok"}});
  CHECK(f.notified.back()["params"]["update"]["status"] == "completed");
}
