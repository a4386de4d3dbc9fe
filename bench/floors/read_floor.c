/* The floor for a read: a server that speaks editd's framing and, for each
 * complete request line, reads one file and sends its bytes as a JSON string:
 *   {"jsonrpc":"2.0","id":ID,"result":{"text":"..."}}
 * ID is copied as echo_server.c does. The file is named by the one argument and
 * is opened, fstat'ed, read whole and closed for every request, as any server
 * that does not cache must. The bytes are escaped for JSON ('"', '\\' and the
 * control characters; eight bytes at a time where none needs it) and nothing
 * else is done: no parsing of the request, no UTF-8 check, no fingerprint, no
 * path resolution. What editd does beyond this is its cost. Every complete line
 * of one read(2) is answered by one write(2). Exits 0 at the end of stdin.
 *
 * usage: read_floor FILE */
#define _GNU_SOURCE
#define FLOOR_NAME "read_floor"
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include "floor_io.h"

/* Whether any of the eight bytes of `v` is below 0x20, '"' or '\\'. */
static int needs_escape(uint64_t v) {
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  const uint64_t quote = v ^ (ones * '"'), backslash = v ^ (ones * '\\');
  return ((((v - ones * 0x20) & ~v) | ((quote - ones) & ~quote) |
           ((backslash - ones) & ~backslash)) &
          high) != 0;
}

/* Appends the JSON escape of [p, p + n) at out + *len (room for 6n bytes). */
static void escape(const unsigned char* p, size_t n, char* out, size_t* len) {
  static const char kHex[] = "0123456789abcdef";
  char* o = out + *len;
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t v;
      memcpy(&v, p + i, 8);
      if (!needs_escape(v)) {
        memcpy(o, p + i, 8);
        o += 8;
        i += 8;
        continue;
      }
    }
    const unsigned char c = p[i++];
    if (c == '"' || c == '\\') {
      *o++ = '\\';
      *o++ = (char)c;
    } else if (c == '\n') {
      *o++ = '\\';
      *o++ = 'n';
    } else if (c == '\t') {
      *o++ = '\\';
      *o++ = 't';
    } else if (c == '\r') {
      *o++ = '\\';
      *o++ = 'r';
    } else if (c < 0x20) {
      memcpy(o, "\\u00", 4);
      o[4] = kHex[c >> 4];
      o[5] = kHex[c & 15];
      o += 6;
    } else {
      *o++ = (char)c;
    }
  }
  *len = (size_t)(o - out);
}

/* The file named on the command line, and the buffer it is read into. */
struct source {
  const char* path;
  unsigned char* bytes;
  size_t cap;
};

/* {"jsonrpc":"2.0","id":ID,"result":{"text":"..."}}, the file read anew. */
static void answer(const char* line, const char* end, struct floor_out* out, void* ctx) {
  static const char kHead[] = "{\"jsonrpc\":\"2.0\",\"id\":";
  static const char kMid[] = ",\"result\":{\"text\":\"";
  static const char kTail[] = "\"}}\n";
  struct source* src = ctx;
  const char* tok;
  size_t len;
  id_token(line, end, &tok, &len);

  int fd = open(src->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) die(src->path);
  size_t size = (size_t)st.st_size, got = 0;
  reserve((char**)&src->bytes, &src->cap, size + 1);
  while (got < size) {
    ssize_t r = read(fd, src->bytes + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) die("read the file");
    if (r == 0) break;
    got += (size_t)r;
  }
  close(fd);

  append(out, kHead, sizeof kHead - 1);
  append(out, tok, len);
  append(out, kMid, sizeof kMid - 1);
  reserve(&out->buf, &out->cap, out->len + 6 * got);
  escape(src->bytes, got, out->buf, &out->len);
  append(out, kTail, sizeof kTail - 1);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: read_floor FILE\n");
    return 2;
  }
  struct source src = {argv[1], NULL, 0};
  serve(answer, &src);
  free(src.bytes);
  return 0;
}
