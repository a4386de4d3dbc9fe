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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char* what) {
  fprintf(stderr, "echo_server: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* Grows *buf (of capacity *cap) to hold at least `need` bytes. */
static void reserve(char** buf, size_t* cap, size_t need) {
  if (need <= *cap) return;
  size_t n = *cap ? *cap : 4096;
  while (n < need) n *= 2;
  char* p = realloc(*buf, n);
  if (!p) die("realloc");
  *buf = p;
  *cap = n;
}

/* The id's token in the line [p, end): a string with its quotes, or the run of
 * bytes up to ',', '}' or whitespace. "null" when the line has no "id". */
static void id_token(const char* p, const char* end, const char** tok, size_t* len) {
  static const char kKey[] = "\"id\":";
  const char* at = memmem(p, (size_t)(end - p), kKey, sizeof kKey - 1);
  if (!at) {
    *tok = "null";
    *len = 4;
    return;
  }
  const char* s = at + sizeof kKey - 1;
  while (s < end && (*s == ' ' || *s == '\t')) ++s;
  const char* e = s;
  if (e < end && *e == '"') {
    for (++e; e < end && *e != '"'; ++e)
      if (*e == '\\' && e + 1 < end) ++e;
    if (e < end) ++e;
  } else {
    while (e < end && *e != ',' && *e != '}' && *e != ' ' && *e != '\t' && *e != '\r') ++e;
  }
  *tok = s;
  *len = (size_t)(e - s);
}

static void write_all(const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(1, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) die("write");
    p += w;
    n -= (size_t)w;
  }
}

int main(void) {
  static const char kHead[] = "{\"jsonrpc\":\"2.0\",\"id\":";
  static const char kTail[] = ",\"result\":{}}\n";
  char* in = NULL;
  size_t in_cap = 0, in_len = 0;
  char* out = NULL;
  size_t out_cap = 0;
  for (;;) {
    reserve(&in, &in_cap, in_len + 65536);
    ssize_t n = read(0, in + in_len, in_cap - in_len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read");
    if (n == 0) break;
    in_len += (size_t)n;
    size_t out_len = 0, done = 0;
    for (;;) {
      char* nl = memchr(in + done, '\n', in_len - done);
      if (!nl) break;
      const char* tok;
      size_t len;
      id_token(in + done, nl, &tok, &len);
      reserve(&out, &out_cap, out_len + sizeof kHead + len + sizeof kTail);
      memcpy(out + out_len, kHead, sizeof kHead - 1);
      out_len += sizeof kHead - 1;
      memcpy(out + out_len, tok, len);
      out_len += len;
      memcpy(out + out_len, kTail, sizeof kTail - 1);
      out_len += sizeof kTail - 1;
      done = (size_t)(nl - in) + 1;
    }
    if (out_len) write_all(out, out_len);
    memmove(in, in + done, in_len - done);
    in_len -= done;
  }
  free(in);
  free(out);
  return 0;
}
