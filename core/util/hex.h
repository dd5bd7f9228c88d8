/* Hexadecimal encoding of byte strings.
 *
 * Encoding writes lowercase digits and a terminating NUL. Decoding accepts upper- and lowercase
 * digits, optionally a leading "0x"/"0X" (only with CUZK_HEX_ALLOW_0X), and rejects odd lengths
 * and any other character with CUZK_ERR_PARSE. Nothing is allocated: callers pass the output
 * buffer and its size; the needed size is always reported so callers can size a second call.
 *
 * Threads: pure functions, safe from any thread.
 */
#ifndef CUZK_UTIL_HEX_H
#define CUZK_UTIL_HEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

enum {
  CUZK_HEX_ALLOW_0X = 1u << 0, /* accept (and skip) a leading "0x" or "0X" */
};

/* Characters needed to encode n bytes, including the NUL: 2n + 1. */
size_t cuzk_hex_encoded_size(size_t n);

/* Writes 2n lowercase hex digits and a NUL into out. CUZK_ERR_TOO_LARGE (out untouched) when
 * out_size < 2n + 1; CUZK_ERR_INVALID_ARG when out is NULL or in is NULL with n > 0. */
cuzk_err_t cuzk_hex_encode(char *out, size_t out_size, const void *in, size_t n);

/* Decodes hex[0..hex_len) into out. *out_len (when non-NULL) receives the decoded length as soon
 * as the input's length is known to be even, also on CUZK_ERR_TOO_LARGE. Errors: CUZK_ERR_PARSE
 * for odd length or a non-hex character (out may be partly written), CUZK_ERR_TOO_LARGE when
 * out_size is smaller than the decoded length (nothing written), CUZK_ERR_INVALID_ARG for NULL
 * pointers with nonzero sizes or unknown flags. An empty input (or a bare "0x") decodes to 0
 * bytes. */
cuzk_err_t cuzk_hex_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *hex,
                           size_t hex_len, unsigned flags);

/* Like cuzk_hex_decode but the input must decode to exactly n bytes (CUZK_ERR_PARSE otherwise);
 * for fixed-size values such as 32-byte digests. */
cuzk_err_t cuzk_hex_decode_exact(uint8_t *out, size_t n, const char *hex, size_t hex_len,
                                 unsigned flags);

#endif
