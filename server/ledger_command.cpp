#include "server/ledger_command.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_future.hpp>
#include <iostream>

#include "backends/local/local_backend.h"
#include "server/methods/methods.h"
#include "server/ops/operations.h"
#include "support/lock_chain.h"

namespace editd {

namespace {

using nlohmann::json;

// Runs `method` on the root as a server would, for a client named "editd"
// on the command line.
Result<json> run_method(const CommandLine& cl, const Method& method, const json& params) {
  const ServerOptions& options = cl.options;
  boost::asio::io_context io(1);
  boost::asio::thread_pool pool(2);
  auto backend = make_local_backend(local_backend_options(options), pool);
  if (!backend) return backend.error();
  LockChains locks;
  Operations ops(options.ops, locks, pool);
  RequestContext ctx{**backend, nullptr};
  ctx.actor.client = "editd";
  ctx.actor.client_version = EDITD_VERSION;
  ctx.actor.door = "cli";
  ctx.actor.method = method.name;
  auto done = boost::asio::co_spawn(io, method.run(ops, ctx, params), boost::asio::use_future);
  io.run();
  Result<json> result = Error();
  try {
    result = done.get();
  } catch (const std::exception& e) {
    result = Error(ErrorKind::kInternal, std::string("internal error: ") + e.what());
  }
  pool.join();
  return result;
}

}  // namespace

int run_changes(const CommandLine& cl) {
  json params = {{"limit", std::min<std::uint64_t>(cl.limit, 1000)}};
  if (cl.path) params["path"] = *cl.path;
  const Method method = methods::changes();
  Result<json> result = run_method(cl, method, params);
  if (!result) {
    std::cerr << "editd changes: " << result.error().message << "\n";
    return 1;
  }
  if (cl.json)
    std::cout << result->dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  else
    std::cout << method.render(params, *result);
  return 0;
}

int run_revert(const CommandLine& cl) {
  json params = {{"changes", json::array()}, {"hunks", json::array()}, {"dryRun", cl.dry_run}};
  for (const std::string& id : cl.ids)
    params[id.find(':') == std::string::npos ? "changes" : "hunks"].push_back(id);
  const Method method = methods::revert();
  Result<json> result = run_method(cl, method, params);
  if (!result) {
    std::cerr << "editd revert: " << result.error().message << "\n";
    return 1;
  }
  std::cout << method.render(params, *result);
  return 0;
}

}  // namespace editd
