#include "core/util/file.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Chunk for files whose st_size says nothing (procfs, sysfs). */
#define CUZK__FILE_UNKNOWN_SIZE_CHUNK 4096

static cuzk_err_t cuzk__errno_code(int e) {
  switch (e) {
    case ENOENT:
    case ENOTDIR:
      return CUZK_ERR_NOT_FOUND;
    case ENOMEM:
      return CUZK_ERR_NOMEM;
    case ENAMETOOLONG:
    case ELOOP:
      return CUZK_ERR_INVALID_ARG;
    default:
      return CUZK_ERR_IO;
  }
}

static cuzk_err_t cuzk__sys_err(char *errstr, size_t n, const char *what, const char *path, int e) {
  return cuzk_errf(cuzk__errno_code(e), errstr, n, "%s %s: %s", what, path, strerror(e));
}

/* Opens path read-only and checks it is a regular file; returns the fd or -1 with *err set. */
static int cuzk__open_regular(const char *path, struct stat *st, cuzk_err_t *err, char *errstr,
                              size_t n) {
  int fd;
  do {
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    *err = cuzk__sys_err(errstr, n, "open", path, errno);
    return -1;
  }
  if (fstat(fd, st) != 0) {
    *err = cuzk__sys_err(errstr, n, "stat", path, errno);
    close(fd);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    *err = cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, n, "%s: not a regular file", path);
    close(fd);
    return -1;
  }
  return fd;
}

cuzk_err_t cuzk_file_read(const char *path, size_t max_bytes, uint8_t **buf, size_t *len,
                          char *errstr, size_t errstr_size) {
  assert(buf && len);
  *buf = NULL;
  *len = 0;
  if (!path || !*path) return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "empty path");
  if (max_bytes > SIZE_MAX / 2) max_bytes = SIZE_MAX / 2;

  struct stat st;
  cuzk_err_t err;
  int fd = cuzk__open_regular(path, &st, &err, errstr, errstr_size);
  if (fd < 0) return err;
  if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)max_bytes) {
    close(fd);
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size, "%s: %lld bytes, limit %zu", path,
                     (long long)st.st_size, max_bytes);
  }

  size_t want = st.st_size > 0 ? (size_t)st.st_size : CUZK__FILE_UNKNOWN_SIZE_CHUNK;
  if (want > max_bytes) want = max_bytes;
  size_t cap = want + 1; /* room for the NUL */
  uint8_t *p = malloc(cap);
  size_t got = 0;
  if (!p) {
    close(fd);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "%s: cannot allocate %zu bytes", path,
                     cap);
  }
  for (;;) {
    if (got == cap - 1) {
      /* Buffer full: probe for one more byte before growing, so a file whose st_size was right
       * costs no extra allocation. */
      uint8_t probe;
      ssize_t r = read(fd, &probe, 1);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) break;
      if (r < 0) {
        err = cuzk__sys_err(errstr, errstr_size, "read", path, errno);
        goto fail;
      }
      if (got >= max_bytes) {
        err = cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size,
                        "%s: grew past the limit of %zu bytes while being read", path, max_bytes);
        goto fail;
      }
      size_t ncap = got * 2 + 1;
      if (ncap - 1 > max_bytes || ncap < got) ncap = max_bytes + 1;
      uint8_t *np = realloc(p, ncap);
      if (!np) {
        err = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "%s: cannot allocate %zu bytes", path,
                        ncap);
        goto fail;
      }
      p = np;
      cap = ncap;
      p[got++] = probe;
      continue;
    }
    ssize_t r = read(fd, p + got, cap - 1 - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      err = cuzk__sys_err(errstr, errstr_size, "read", path, errno);
      goto fail;
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  close(fd);
  p[got] = '\0';
  *buf = p;
  *len = got;
  return CUZK_OK;

fail:
  close(fd);
  free(p);
  return err;
}

static cuzk_err_t cuzk__write_all(int fd, const uint8_t *p, size_t n, const char *path,
                                  char *errstr, size_t errstr_size) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return cuzk__sys_err(errstr, errstr_size, "write", path, errno);
    }
    if (w == 0) return cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "write %s: no progress", path);
    p += w;
    n -= (size_t)w;
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_file_write_atomic(const char *path, const void *data, size_t len, char *errstr,
                                  size_t errstr_size) {
  static atomic_uint seq;
  if (!path || !*path || (!data && len > 0))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "empty path or no data");
  size_t plen = strlen(path);
  if (path[plen - 1] == '/')
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "%s: names a directory", path);

  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) : 0; /* "/x" gives dlen 0: the root */
  const char *base = slash ? slash + 1 : path;
  char *dir = malloc(dlen + 2);
  char *tmp = malloc(plen + 64);
  if (!dir || !tmp) {
    free(dir);
    free(tmp);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "%s: out of memory", path);
  }
  if (slash) {
    memcpy(dir, path, dlen ? dlen : 1);
    dir[dlen ? dlen : 1] = '\0';
  } else {
    strcpy(dir, ".");
  }

  cuzk_err_t err = CUZK_OK;
  int fd = -1;
  for (int attempt = 0; attempt < 100; attempt++) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(tmp, plen + 64, "%.*s.%s.tmp-%ld-%u-%lx", (int)(base - path), path, base,
             (long)getpid(), atomic_fetch_add(&seq, 1), (unsigned long)ts.tv_nsec);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd >= 0 || errno != EEXIST) break;
  }
  if (fd < 0) {
    err = cuzk__sys_err(errstr, errstr_size, "create temporary file for", path, errno);
    goto out;
  }

  struct stat old;
  if (stat(path, &old) == 0 && S_ISREG(old.st_mode) && fchmod(fd, old.st_mode & 07777) != 0) {
    err = cuzk__sys_err(errstr, errstr_size, "chmod temporary file for", path, errno);
    goto fail;
  }
  err = cuzk__write_all(fd, data, len, path, errstr, errstr_size);
  if (err) goto fail;
  if (fsync(fd) != 0) {
    err = cuzk__sys_err(errstr, errstr_size, "fsync", path, errno);
    goto fail;
  }
  int cr = close(fd);
  fd = -1;
  if (cr != 0) {
    err = cuzk__sys_err(errstr, errstr_size, "close", path, errno);
    goto fail;
  }
  if (rename(tmp, path) != 0) {
    err = cuzk__sys_err(errstr, errstr_size, "rename onto", path, errno);
    goto fail;
  }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    err = cuzk__sys_err(errstr, errstr_size, "open directory of", path, errno);
    goto out;
  }
  /* Some file systems cannot fsync a directory (EINVAL); the rename itself stands. */
  if (fsync(dfd) != 0 && errno != EINVAL)
    err = cuzk__sys_err(errstr, errstr_size, "fsync directory of", path, errno);
  close(dfd);
  goto out;

fail:
  if (fd >= 0) close(fd);
  unlink(tmp);
out:
  free(dir);
  free(tmp);
  return err;
}

static const uint8_t cuzk__empty_map[1];

cuzk_err_t cuzk_file_map(const char *path, cuzk_file_map_t *map, char *errstr, size_t errstr_size) {
  assert(map);
  memset(map, 0, sizeof *map);
  if (!path || !*path) return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "empty path");
  struct stat st;
  cuzk_err_t err;
  int fd = cuzk__open_regular(path, &st, &err, errstr, errstr_size);
  if (fd < 0) return err;
  if (st.st_size == 0) {
    close(fd);
    map->data = cuzk__empty_map;
    return CUZK_OK;
  }
  if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
    close(fd);
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size, "%s: too large to map", path);
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (p == MAP_FAILED) return cuzk__sys_err(errstr, errstr_size, "mmap", path, e);
  map->data = p;
  map->len = (size_t)st.st_size;
  map->cuzk__base = p;
  return CUZK_OK;
}

void cuzk_file_unmap(cuzk_file_map_t *map) {
  if (!map) return;
  if (map->cuzk__base) munmap(map->cuzk__base, map->len);
  memset(map, 0, sizeof *map);
}
