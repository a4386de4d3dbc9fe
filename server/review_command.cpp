#include "server/review_command.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/thread_pool.hpp>
#include <iostream>

#include "backends/local/local_backend.h"
#include "server/ops/operations.h"
#include "server/review/server.h"
#include "support/lock_chain.h"

namespace editd {

int run_review(const CommandLine& cl) {
  namespace asio = boost::asio;
  ::signal(SIGPIPE, SIG_IGN);
  const ServerOptions& options = cl.options;
  asio::io_context io(1);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::thread_pool pool(2);
  int code = 0;
  {
    auto backend = make_local_backend(local_backend_options(options), pool);
    if (!backend) {
      std::cerr << "editd review: " << backend.error().message << "\n";
      return 1;
    }
    LockChains locks;
    Operations ops(options.ops, locks, pool);
    auto server = review::ReviewServer::start({*options.review, options.ops.read_only}, ops,
                                              **backend, review::canonical_root(options.ops.root));
    if (!server) {
      std::cerr << "editd review: " << server.error().message << "\n";
      code = 1;
    } else {
      std::cout << "editd review: " << (*server)->url() << std::endl;
      spdlog::info("the review page of {} is served; SIGINT or SIGTERM ends it",
                   review::canonical_root(options.ops.root));
      signals.async_wait([](const boost::system::error_code&, int) {});
      io.run();
    }
  }
  pool.join();
  return code;
}

}  // namespace editd
