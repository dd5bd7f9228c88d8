/* Size strings for the configuration: see cuzk_config_parse_size() in agent/config.h. */
#include "agent/config.h"

#include <assert.h>
#include <string.h>

static const struct {
  const char *unit;
  uint64_t mult;
} cuzk__units[] = {
    {"B", 1},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
    {"KB", 1000ull},
    {"MB", 1000000ull},
    {"GB", 1000000000ull},
    {"TB", 1000000000000ull},
};
#define CUZK__NUNITS (sizeof(cuzk__units) / sizeof(cuzk__units[0]))

cuzk_err_t cuzk_config_parse_size(const char *s, uint64_t *out, char *errstr, size_t errstr_size) {
  assert(s && out);
  const char *p = s;
  unsigned __int128 ip = 0, frac = 0, scale = 1;
  size_t ndig = 0, nfrac = 0;
  while (*p >= '0' && *p <= '9') {
    ip = ip * 10 + (unsigned)(*p++ - '0');
    if (ip > UINT64_MAX) goto too_big;
    ndig++;
  }
  if (*p == '.') {
    p++;
    while (*p >= '0' && *p <= '9') {
      if (nfrac == 18) goto bad; /* more precision than any unit needs */
      frac = frac * 10 + (unsigned)(*p++ - '0');
      scale *= 10;
      nfrac++;
    }
    if (nfrac == 0) goto bad;
  }
  if (ndig == 0) goto bad;
  if (*p == ' ') p++;
  uint64_t mult = 0;
  if (*p == '\0') {
    if (nfrac) goto bad; /* bytes have no fraction */
    mult = 1;
  } else {
    for (size_t i = 0; i < CUZK__NUNITS; i++)
      if (strcmp(p, cuzk__units[i].unit) == 0) mult = cuzk__units[i].mult;
    if (!mult) goto bad;
  }
  if (ip * mult > UINT64_MAX) goto too_big; /* ip < 2^64, mult <= 2^40: no overflow here */
  /* (ip * scale + frac) * mult <= (2^64 + 1) * 10^18 < 2^125 once ip * mult < 2^64 */
  unsigned __int128 num = (ip * scale + frac) * mult;
  if (num % scale != 0)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                     "size \"%s\" is not a whole number of bytes", s);
  num /= scale;
  if (num > UINT64_MAX) goto too_big;
  *out = (uint64_t)num;
  return CUZK_OK;
bad:
  return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                   "invalid size \"%s\": expected a number of bytes or a number with a unit "
                   "B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB, TB (powers of 1000)",
                   s);
too_big:
  return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size, "size \"%s\" does not fit in 64 bits", s);
}

void cuzk_config_format_size(uint64_t bytes, char *buf, size_t n) {
  assert(buf && n > 0);
  static const char *const names[] = {"TiB", "GiB", "MiB", "KiB"};
  static const unsigned shifts[] = {40, 30, 20, 10};
  for (size_t i = 0; i < 4 && bytes; i++) {
    uint64_t m = 1ull << shifts[i];
    if (bytes % m == 0) {
      snprintf(buf, n, "%llu%s", (unsigned long long)(bytes / m), names[i]);
      return;
    }
  }
  snprintf(buf, n, "%llu", (unsigned long long)bytes);
}
