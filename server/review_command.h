// `editd review`: the review page of the root's ledger (server/review/), on
// its own, beside any server of the same root (the ledger is shared; a revert
// takes the files' cross-process locks like any edit). Prints the page's URL,
// token included, as the one line on stdout, and serves until SIGINT or
// SIGTERM.
#pragma once

#include "server/options.h"

namespace editd {

// Exit status: 0 after a signal, 1 when it cannot serve (the address, the
// ledger).
int run_review(const CommandLine& cl);

}  // namespace editd
