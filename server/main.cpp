// editd: the file-editing JSON-RPC server for AI agents and editors.
#include <fcntl.h>
#include <malloc.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "server/apply_patch_command.h"
#include "server/ledger_command.h"
#include "server/checks/launch.h"
#include "server/commit.h"
#include "server/options.h"
#include "server/probe.h"
#include "server/review_command.h"
#include "server/server.h"
#include "server/tools_command.h"

namespace {

// Started with stdin, stdout or stderr closed, editd's first descriptors
// would take their numbers: stdio would read the root directory, and replies
// or log lines would be written into whatever file was opened next (a temp
// file of an atomic write). Each closed one is /dev/null instead: a closed
// stdin reads as the end of input.
void open_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got != fd) std::_Exit(2);  // a lower number was free: cannot happen
  }
}

// What --check and --lsp run is chosen now, before any thread starts
// (server/checks/launch.h): never by the tree.
editd::Result<void> pin_checks(editd::OpsOptions& ops) {
  if (ops.checks.specs.empty()) return {};
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::weakly_canonical(ops.root, ec);
  if (ec) return {};  // run_server refuses the root, and runs nothing
  for (const std::string& removed : editd::launch::pin_environment(root))
    spdlog::warn("checks run without the {}: it is relative or inside the root", removed);
  return editd::launch::pin_programs(ops.checks.specs, root);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace editd;
  open_standard_descriptors();
  // One malloc arena: a file-sized buffer freed by a pool thread is reused by
  // the next request, whichever thread runs it. With an arena per thread each
  // kept its own freed buffers, and peak memory grew with the thread count
  // (8 MiB edits: 53 MiB peak, now 29 MiB; docs/performance.md).
  ::mallopt(M_ARENA_MAX, 1);
  // Blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap,
  // and freeing them does not shrink it: a request's file-sized buffers and
  // per-line tables reuse the last request's pages instead of mapping fresh
  // ones, each page faulted in and zeroed again (an 8 MiB fuzzy miss spent a
  // fifth of its time there: 4,400 page faults each, now none). Pages stay
  // resident until the connection is idle and release_idle_memory() gives
  // them back (memory.h); the peak is unchanged.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // stdout carries the protocol alone: every log line goes to stderr.
  auto logger = spdlog::stderr_color_mt("editd");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  spdlog::set_default_logger(logger);

  auto cl = parse_command_line(argc, argv);
  if (!cl) {
    std::cerr << "editd: " << cl.error().message << "\n";
    return 2;
  }
  spdlog::set_level(spdlog::level::from_str(cl->options.log_level));
  int code = 0;
  switch (cl->mode) {
    case CommandLine::Mode::kHelp:
      std::cout << kUsage;
      return 0;
    case CommandLine::Mode::kVersion:
      std::cout << "editd " << EDITD_VERSION << " (commit " << EDITD_COMMIT << ")\n";
      return 0;
    case CommandLine::Mode::kProbe:
      code = run_probe(cl->probe);
      break;
    case CommandLine::Mode::kApplyPatch:
      code = run_apply_patch(*cl);
      break;
    case CommandLine::Mode::kTools:
      code = run_tools(*cl);
      break;
    case CommandLine::Mode::kChanges:
      code = run_changes(*cl);
      break;
    case CommandLine::Mode::kRevert:
      code = run_revert(*cl);
      break;
    case CommandLine::Mode::kReview:
      code = run_review(*cl);
      break;
    case CommandLine::Mode::kServe:
      if (auto pinned = pin_checks(cl->options.ops); !pinned) {
        std::cerr << "editd: " << pinned.error().message << "\n";
        code = 2;
        break;
      }
      code = run_server(cl->options);
      break;
  }
  spdlog::shutdown();
  std::fflush(nullptr);
  // Threads blocked in read(0) cannot be joined: leave without destructors.
  ::_exit(code);
}
