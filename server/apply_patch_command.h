// `editd apply-patch [--root DIR] [PATCH | -- PATCH | -f FILE | -]`:
// apply_patch without a server.
//
// A stand-in for Codex's `apply_patch` command for agents that shell out to
// it: the patch comes from the argument, a file or stdin, is applied to DIR (default
// the current directory) through the same operation the server runs (all or
// nothing), and the output is Codex's: "Success. Updated the following files:"
// then one "A path", "M path" or "D path" line per file on stdout, or the error
// on stderr with exit status 1. Run through a link named `apply_patch` (or
// `applypatch`), editd is this command with Codex's command line: the patch is
// the one argument, or stdin (server/options.cpp).
#pragma once

#include <optional>
#include <string>

#include "server/options.h"

namespace editd {

// Returns the process exit status: 0 applied, 1 refused (nothing changed),
// 2 a usage error (no patch on stdin, a patch file that cannot be read).
int run_apply_patch(const CommandLine& cl);

}  // namespace editd
