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
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char* what) {
  fprintf(stderr, "read_floor: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void reserve(char** buf, size_t* cap, size_t need) {
  if (need <= *cap) return;
  size_t n = *cap ? *cap : 4096;
  while (n < need) n *= 2;
  char* p = realloc(*buf, n);
  if (!p) die("realloc");
  *buf = p;
  *cap = n;
}

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

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: read_floor FILE\n");
    return 2;
  }
  static const char kHead[] = "{\"jsonrpc\":\"2.0\",\"id\":";
  static const char kMid[] = ",\"result\":{\"text\":\"";
  static const char kTail[] = "\"}}\n";
  char* in = NULL;
  size_t in_cap = 0, in_len = 0;
  char* out = NULL;
  size_t out_cap = 0;
  unsigned char* file = NULL;
  size_t file_cap = 0;
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

      int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
      struct stat st;
      if (fd < 0 || fstat(fd, &st) != 0) die(argv[1]);
      size_t size = (size_t)st.st_size, got = 0;
      reserve((char**)&file, &file_cap, size + 1);
      while (got < size) {
        ssize_t r = read(fd, file + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) die("read the file");
        if (r == 0) break;
        got += (size_t)r;
      }
      close(fd);

      reserve(&out, &out_cap, out_len + sizeof kHead + len + sizeof kMid + 6 * got + sizeof kTail);
      memcpy(out + out_len, kHead, sizeof kHead - 1);
      out_len += sizeof kHead - 1;
      memcpy(out + out_len, tok, len);
      out_len += len;
      memcpy(out + out_len, kMid, sizeof kMid - 1);
      out_len += sizeof kMid - 1;
      escape(file, got, out, &out_len);
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
  free(file);
  return 0;
}
