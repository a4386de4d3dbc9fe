/* The floor for per-request protocol overhead: a server that speaks editd's
 * framing (newline-delimited JSON-RPC 2.0 over stdio) and does nothing else.
 * For each complete request line it answers
 *   {"jsonrpc":"2.0","id":ID,"result":{}}
 * where ID is the request's id token copied byte for byte. Every complete line
 * of one read(2) is answered by one write(2). The id is the text after the
 * first `"id":`, which is the request's own id when, as in the benchmarks'
 * requests (nlohmann's dump sorts keys), "id" is the first member. No JSON is
 * parsed or checked: whatever a real server does beyond this is its cost.
 * Arguments are ignored, so that it can be spawned like editd. Exits 0 at the
 * end of stdin. */
#define _GNU_SOURCE
#define FLOOR_NAME "echo_server"
#include "floor_io.h"

/* {"jsonrpc":"2.0","id":ID,"result":{}} */
static void answer(const char* line, const char* end, struct floor_out* out, void* ctx) {
  (void)ctx;
  static const char kHead[] = "{\"jsonrpc\":\"2.0\",\"id\":";
  static const char kTail[] = ",\"result\":{}}\n";
  const char* tok;
  size_t len;
  id_token(line, end, &tok, &len);
  append(out, kHead, sizeof kHead - 1);
  append(out, tok, len);
  append(out, kTail, sizeof kTail - 1);
}

int main(void) {
  serve(answer, NULL);
  return 0;
}
