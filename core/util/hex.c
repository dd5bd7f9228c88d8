#include "core/util/hex.h"

#include <string.h>

static const char cuzk__hex_digits[] = "0123456789abcdef";

size_t cuzk_hex_encoded_size(size_t n) {
  return n > (SIZE_MAX - 1) / 2 ? SIZE_MAX : 2 * n + 1;
}

cuzk_err_t cuzk_hex_encode(char *out, size_t out_size, const void *in, size_t n) {
  if (!out || (!in && n > 0)) return CUZK_ERR_INVALID_ARG;
  if (n > (SIZE_MAX - 1) / 2 || out_size < 2 * n + 1) return CUZK_ERR_TOO_LARGE;
  const uint8_t *p = in;
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = cuzk__hex_digits[p[i] >> 4];
    out[2 * i + 1] = cuzk__hex_digits[p[i] & 15];
  }
  out[2 * n] = '\0';
  return CUZK_OK;
}

static int cuzk__hex_nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

cuzk_err_t cuzk_hex_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *hex,
                           size_t hex_len, unsigned flags) {
  if ((!hex && hex_len > 0) || (!out && out_size > 0) || (flags & ~(unsigned)CUZK_HEX_ALLOW_0X))
    return CUZK_ERR_INVALID_ARG;
  if ((flags & CUZK_HEX_ALLOW_0X) && hex_len >= 2 && hex[0] == '0' && (hex[1] | 0x20) == 'x') {
    hex += 2;
    hex_len -= 2;
  }
  if (hex_len % 2) return CUZK_ERR_PARSE;
  size_t n = hex_len / 2;
  if (out_len) *out_len = n;
  if (n > out_size) return CUZK_ERR_TOO_LARGE;
  for (size_t i = 0; i < n; i++) {
    int hi = cuzk__hex_nibble(hex[2 * i]), lo = cuzk__hex_nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return CUZK_ERR_PARSE;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_hex_decode_exact(uint8_t *out, size_t n, const char *hex, size_t hex_len,
                                 unsigned flags) {
  size_t got = 0;
  cuzk_err_t e = cuzk_hex_decode(out, n, &got, hex, hex_len, flags);
  if (e == CUZK_ERR_TOO_LARGE || (e == CUZK_OK && got != n)) return CUZK_ERR_PARSE;
  return e;
}
