/* Whole-file reads, atomic replacement, read-only mappings.
 *
 * Errors: CUZK_ERR_NOT_FOUND (a path component is missing or not a directory), CUZK_ERR_TOO_LARGE
 * (over the caller's limit), CUZK_ERR_INVALID_ARG (not a regular file, bad path), CUZK_ERR_NOMEM,
 * CUZK_ERR_IO (anything else the OS reports: permissions, disk full, read-only file system...).
 * Each failing call writes a sentence naming the path and the OS reason into errstr.
 *
 * Threads: every function is safe from any thread; none keeps global state. Concurrent atomic
 * writes to the same path are each atomic; the last rename wins.
 */
#ifndef CUZK_UTIL_FILE_H
#define CUZK_UTIL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

/* Reads the regular file at `path` into a new buffer. Refuses, before reading, a file whose size
 * is over max_bytes, and stops with CUZK_ERR_TOO_LARGE if a file grows past it while being read
 * (files that report size 0, such as /proc entries, are read to their end under the same limit).
 * FIFOs, devices and directories are refused with CUZK_ERR_INVALID_ARG without blocking.
 * On success *buf is malloc'd (the caller frees it with free()), holds *len bytes and one extra
 * NUL byte after them, so text can be used as a C string. On failure *buf is NULL and *len 0. */
cuzk_err_t cuzk_file_read(const char *path, size_t max_bytes, uint8_t **buf, size_t *len,
                          char *errstr, size_t errstr_size);

/* Replaces `path` with exactly `data[0..len)` so that readers see either the old or the new
 * content, also across a crash: writes a temporary file in the same directory, fsyncs it, renames
 * it over `path` and fsyncs the directory. An existing file's permission bits are kept; a new
 * file gets 0666 minus the umask. On failure the temporary file is removed and `path` keeps its
 * old content. A symlink at `path` is replaced by a regular file (the link target is untouched). */
cuzk_err_t cuzk_file_write_atomic(const char *path, const void *data, size_t len, char *errstr,
                                  size_t errstr_size);

/* A read-only, private mapping of a whole file. `data` is valid (and `len` bytes long) until
 * cuzk_file_unmap; an empty file maps to a non-NULL pointer with len 0. If the file is truncated
 * by someone else while mapped, touching the lost pages raises SIGBUS: map only files this
 * process owns or that are never rewritten in place (cuzk_file_write_atomic never does). */
typedef struct {
  const uint8_t *data;
  size_t len;
  void *cuzk__base; /* private */
} cuzk_file_map_t;

/* Maps the regular file at `path`; on failure *map is zeroed. */
cuzk_err_t cuzk_file_map(const char *path, cuzk_file_map_t *map, char *errstr, size_t errstr_size);

/* Unmaps and zeroes *map; harmless on a zeroed map (so it may be called twice). */
void cuzk_file_unmap(cuzk_file_map_t *map);

#endif
