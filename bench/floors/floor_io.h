/* What the floor servers share: editd's framing (newline-delimited requests
 * on stdin, every complete line of one read(2) answered by one write(2) to
 * stdout) and the id token copied from a request line. Included by one .c
 * file each, which defines FLOOR_NAME (for messages) and _GNU_SOURCE (memmem)
 * first. */
#ifndef EDITD_BENCH_FLOORS_FLOOR_IO_H_
#define EDITD_BENCH_FLOORS_FLOOR_IO_H_

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char* what) {
  fprintf(stderr, "%s: %s: %s\n", FLOOR_NAME, what, strerror(errno));
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

/* The replies to the lines of one read(2). */
struct floor_out {
  char* buf;
  size_t cap, len;
};

static void append(struct floor_out* out, const char* p, size_t n) {
  reserve(&out->buf, &out->cap, out->len + n);
  memcpy(out->buf + out->len, p, n);
  out->len += n;
}

/* Serves stdin until its end: answer() appends the reply to the request line
 * [line, end) to `out`. */
static void serve(void (*answer)(const char* line, const char* end, struct floor_out* out,
                                 void* ctx),
                  void* ctx) {
  char* in = NULL;
  size_t in_cap = 0, in_len = 0;
  struct floor_out out = {NULL, 0, 0};
  for (;;) {
    reserve(&in, &in_cap, in_len + 65536);
    ssize_t n = read(0, in + in_len, in_cap - in_len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read");
    if (n == 0) break;
    in_len += (size_t)n;
    size_t done = 0;
    out.len = 0;
    for (;;) {
      char* nl = memchr(in + done, '\n', in_len - done);
      if (!nl) break;
      answer(in + done, nl, &out, ctx);
      done = (size_t)(nl - in) + 1;
    }
    if (out.len) write_all(out.buf, out.len);
    memmove(in, in + done, in_len - done);
    in_len -= done;
  }
  free(in);
  free(out.buf);
}

#endif /* EDITD_BENCH_FLOORS_FLOOR_IO_H_ */
