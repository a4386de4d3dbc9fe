#include "server/apply_patch_command.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_future.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "backends/local/local_backend.h"
#include "edit/patch/patch.h"
#include "protocol/params.h"
#include "server/ops/operations.h"
#include "support/lock_chain.h"

namespace editd {

namespace {

// Codex's listing: one line per operation of the patch, as written, in patch
// order: added files, then modified ones (a move under its destination), then
// deleted ones. A path the patch touches twice is listed twice, as Codex does.
void print_summary(const patch::Patch& p, std::ostream& out) {
  out << "Success. Updated the following files:\n";
  for (const patch::FilePatch& f : p.files)
    if (f.action == patch::Action::kAdd) out << "A " << f.path << "\n";
  for (const patch::FilePatch& f : p.files)
    if (f.action == patch::Action::kUpdate || f.action == patch::Action::kMove)
      out << "M " << f.move_to.value_or(f.path) << "\n";
  for (const patch::FilePatch& f : p.files)
    if (f.action == patch::Action::kDelete) out << "D " << f.path << "\n";
}

}  // namespace

int run_apply_patch(const CommandLine& cl) {
  const ServerOptions& options = cl.options;
  ops::PatchRequest params;
  params.path_rule = protocol::path_problem;
  if (cl.patch) {
    params.patch = *cl.patch;
  } else if (cl.patch_file && *cl.patch_file != "-") {
    std::ifstream in(*cl.patch_file, std::ios::binary);
    if (!in) {
      std::cerr << cl.command << ": cannot read the patch file " << *cl.patch_file << ": "
                << std::strerror(errno) << "\n";
      return 2;
    }
    params.patch.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    params.patch.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    // Codex's usage error: an empty argument is a patch (and refused), empty stdin is not.
    if (params.patch.empty()) {
      const std::string& c = cl.command;
      std::cerr << c << ": no patch on stdin (usage: " << c << " 'PATCH', or echo 'PATCH' | " << c
                << ")\n";
      return 2;
    }
  }

  boost::asio::io_context io(1);
  boost::asio::thread_pool pool(2);
  auto backend = make_local_backend(local_backend_options(options), pool);
  if (!backend) {
    std::cerr << cl.command << ": " << backend.error().message << "\n";
    return 2;
  }
  // The listing is of the patch as written (parsed again by apply_patch).
  Result<patch::Patch> listed = patch::parse(params.patch, protocol::path_problem);
  LockChains locks;
  Operations ops(options.ops, locks, pool);
  RequestContext ctx{**backend, nullptr};
  // On the ledger's record as the command it was run as.
  ctx.actor.client = cl.command;
  ctx.actor.client_version = EDITD_VERSION;
  ctx.actor.door = "cli";
  ctx.actor.method = "apply_patch";
  auto done = boost::asio::co_spawn(io, ops.apply_patch(ctx, std::move(params)),
                                    boost::asio::use_future);
  io.run();
  // An exception is a bug; it is reported like any failure instead of aborting.
  Result<ops::Patched> result = Error();
  try {
    result = done.get();
  } catch (const std::exception& e) {
    result =
        Error(ErrorKind::kInternal, cl.command + ": internal error: " + e.what());
  }
  pool.join();
  if (!result) {
    Error named = result.error();
    name_inputs(named);
    std::cerr << named.message << "\n";
    return 1;
  }
  if (listed) print_summary(*listed, std::cout);
  return 0;
}

}  // namespace editd
