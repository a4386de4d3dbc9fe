/* See rewrite_floor.h. */
#define _GNU_SOURCE
#include "rewrite_floor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_exact(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) {
      errno = EIO; /* the file shrank under us */
      return -1;
    }
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

static int write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int fsync_dir(const char* dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  int saved = errno;
  close(fd);
  errno = saved;
  return rc;
}

int rewrite_floor(const char* path, const char* search, size_t search_len, const char* replacement,
                  size_t replacement_len, int durable) {
  int rc = -1, fd = -1, tmp_fd = -1, saved;
  char *old = NULL, *new_content = NULL;
  char tmp[PATH_MAX], dir[PATH_MAX];

  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) goto out;
  struct stat st;
  if (fstat(fd, &st) != 0) goto out;
  const size_t size = (size_t)st.st_size;
  old = malloc(size ? size : 1);
  if (!old || read_exact(fd, old, size) != 0) goto out;
  close(fd);
  fd = -1;

  const char* hit = memmem(old, size, search, search_len);
  if (!hit) {
    rc = 1;
    goto out;
  }
  const size_t before = (size_t)(hit - old);
  const size_t after = size - before - search_len;
  const size_t new_size = before + replacement_len + after;
  new_content = malloc(new_size ? new_size : 1);
  if (!new_content) goto out;
  memcpy(new_content, old, before);
  memcpy(new_content + before, replacement, replacement_len);
  memcpy(new_content + before + replacement_len, hit + search_len, after);

  const char* slash = strrchr(path, '/');
  if (slash) {
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (dir[0] == '\0') snprintf(dir, sizeof dir, "/");
  } else {
    snprintf(dir, sizeof dir, ".");
  }
  if (snprintf(tmp, sizeof tmp, "%s.floor-tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    goto out;
  }
  tmp_fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (tmp_fd < 0) goto out;
  if (write_all(tmp_fd, new_content, new_size) != 0) goto fail_tmp;
  if (durable && fsync(tmp_fd) != 0) goto fail_tmp;
  if (close(tmp_fd) != 0) {
    tmp_fd = -1;
    goto fail_tmp;
  }
  tmp_fd = -1;
  if (rename(tmp, path) != 0) goto fail_tmp;
  if (durable && fsync_dir(dir) != 0) goto out;
  rc = 0;
  goto out;

fail_tmp:
  saved = errno;
  if (tmp_fd >= 0) close(tmp_fd);
  tmp_fd = -1;
  unlink(tmp);
  errno = saved;
out:
  saved = errno;
  if (fd >= 0) close(fd);
  free(old);
  free(new_content);
  errno = saved;
  return rc;
}
