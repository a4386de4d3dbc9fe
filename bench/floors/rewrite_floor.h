/* The floor for one edit: what any editor that replaces a file atomically must
 * pay, with none of editd's protocol, matching or bookkeeping. A function, not
 * a program, so that the benchmark times the file work alone and no process
 * spawn. Usable from C and C++. */
#ifndef EDITD_BENCH_FLOORS_REWRITE_FLOOR_H
#define EDITD_BENCH_FLOORS_REWRITE_FLOOR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Replaces the first occurrence of `search` in the file at `path` with
 * `replacement`: open, fstat, read exactly st_size bytes, memmem, build the new
 * content in a second buffer, write it to a new temporary file beside `path`
 * (O_CREAT | O_EXCL), fsync it if `durable`, rename it over `path`, and fsync
 * the directory if `durable`.
 * Returns 0 when the file was rewritten, 1 when `search` does not occur (then
 * nothing is written: the read and the search are the floor of a miss), and -1
 * on an error, with errno set and the temporary file removed. */
int rewrite_floor(const char* path, const char* search, size_t search_len, const char* replacement,
                  size_t replacement_len, int durable);

#ifdef __cplusplus
}
#endif

#endif
