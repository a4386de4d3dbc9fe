// The serving process: its threads, listeners, connections and graceful
// shutdown; what the connections share is server/session/server_context.h.
//
// I/O threads (--io-threads) each run an io_context; a connection lives wholly
// on one of them, with its requests' coroutines: the one serving the fewest
// connections when it was accepted. The first context, on the main thread, also holds the
// listeners, the signals, the shutdown and the checks' language servers. The
// lock chains and the undo history are shared under mutexes; a thread pool
// (sized to the CPUs editd may use, server/cpus.h) runs blocking file work. stdio is served unless
// --listen is given, by the main thread alone; then each Unix or TCP
// connection is its own session. Accepting backs off while descriptors or
// memory run out. A TCP connection has --auth-timeout to authenticate and at
// most --max-unauthenticated (and a quarter of the descriptor limit) are
// served at once before they do; one accepted beyond that is closed at once.
//
// At the end of stdin (stdio mode) every request received is answered, then
// editd exits 0. SIGTERM/SIGINT: stop accepting and remove the Unix socket
// files; requests not started yet answer `cancelled`; requests that have begun
// run to completion, with no time limit once they have begun writing (the
// others are cancelled after --shutdown-grace); every reply is written whole;
// exit 0. SIGHUP is ignored.
#pragma once

#include <string>

#include "protocol/error.h"
#include "server/options.h"

namespace editd {

// Runs the server until it is told to stop; returns the process exit code.
int run_server(const ServerOptions& options);

// The host and port of a TCP address's "HOST:PORT" (after "tcp:"): a bare
// port, or an empty host, is 127.0.0.1; an IPv6 host loses its brackets.
struct HostPort {
  std::string host;
  std::string port;
};
HostPort tcp_host_port(const std::string& spec);

// The contents of a --token-file, without its final line break; not empty.
Result<std::string> read_token(const std::string& path);

}  // namespace editd
