/* Payload references of ProofJobs (DESIGN §7): {uri file:// or http(s)://, sha256, size}.
 * The bytes are read whole (bounded), their size compared with the reference and their SHA-256
 * always checked before anything uses them.
 *
 * Ownership: *out is malloc'd and owned by the caller. Threads: any thread; curl is initialised
 * once per process on first http(s) use.
 */
#ifndef CUZK_AGENT_PAYLOAD_H
#define CUZK_AGENT_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

/* Fetches `uri` ("file:///abs/path", "http://…", "https://…"). `size` >= 0 must equal the
 * length; `max_bytes` bounds what is read (TOO_LARGE beyond, checked before reading when the
 * size is known); `timeout_s` bounds an HTTP transfer. Errors: INVALID_ARG (bad or relative
 * file URI), UNSUPPORTED (other scheme, or http(s) in a build without libcurl), NOT_FOUND, IO,
 * TOO_LARGE, TRUNCATED (size mismatch), CHECKSUM (hash mismatch), HTTP (status >= 400 or
 * transfer failure), TIMEOUT, NOMEM; the sentence in errstr names the URI. */
cuzk_err_t cuzk_payload_fetch(const char *uri, const uint8_t sha256[32], int64_t size,
                              size_t max_bytes, int timeout_s, uint8_t **out, size_t *out_len,
                              char *errstr, size_t errstr_size);

/* CHECKSUM unless SHA-256(buf) == sha256. */
cuzk_err_t cuzk_payload_check_sha256(const uint8_t *buf, size_t len, const uint8_t sha256[32]);

/* SHA-256 of buf into out. */
void cuzk_payload_sha256(uint8_t out[32], const uint8_t *buf, size_t len);

#endif
