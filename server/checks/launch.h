// How editd starts the programs of --check, --lsp and --format. The tree it serves is
// anyone's (a cloned repository, files a client wrote), so editd alone
// chooses every program it starts and every module those programs load,
// once, at start (docs/deployment.md, "What editd pins"):
// - the environment its children inherit holds no search path into the root
//   or relative to their working directory (PATH, PYTHONPATH, NODE_PATH), no
//   interpreter of the root's (VIRTUAL_ENV, CONDA_PREFIX, PYTHONHOME), and
//   PYTHONSAFEPATH=1 and GOTOOLCHAIN=local, so that neither `python3 -m X` nor
//   `go vet` runs the tree's code or toolchain;
// - each program is looked up on that PATH and named by its absolute path,
//   refused when it lies in the root or where another user may change it;
// - typescript-language-server runs the tsserver installed beside it (its
//   initializationOptions.tsserver.path, so that it never takes one from the
//   root or above it) with no plugins; clangd queries only the compilers its
//   --query-driver names exactly.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "edit/error.h"
#include "server/checks/diagnostics.h"

namespace editd::launch {

// Pins editd's own environment, which every child inherits, as the header
// says. Call once, before any thread starts and before pin_programs. Returns
// what it removed ("PATH entry node_modules/.bin"), for a warning.
std::vector<std::string> pin_environment(const std::filesystem::path& root);

// Resolves each spec's program on the pinned PATH (argv[0] becomes absolute;
// one not found stays as given, and fails when it is run) and pins the
// language servers editd knows (argv, initialization_options). A --format is
// pinned as a --check is; one of diagnostics::kLspFormatter runs no program. An error names
// the option, why it is refused and what to give instead.
Result<void> pin_programs(std::vector<diagnostics::Spec>& specs,
                          const std::filesystem::path& root);

}  // namespace editd::launch
