// `editd changes` and `editd revert`: the ledger from a shell, beside any
// server on the same root (the ledger is shared; a revert takes the files'
// cross-process locks like any edit).
//
// changes prints the ledger newest first, as the `changes` method's text (a
// table), or with --json its result as JSON; revert takes back the changes
// (c12) and hunks (c12:3) named, through the same operation the `revert`
// method runs, and prints its diff, or the error on stderr.
#pragma once

#include "server/options.h"

namespace editd {

// Exit status: 0 listed, 1 the ledger cannot be read.
int run_changes(const CommandLine& cl);
// Exit status: 0 reverted (or a dry run), 1 refused (nothing changed).
int run_revert(const CommandLine& cl);

}  // namespace editd
