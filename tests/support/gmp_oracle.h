/* Header-only GMP helpers for the field tests (GMP is the independent oracle).
 * Little-endian 64-bit limb arrays <-> mpz_t, and seeded random values. Test code only. */
#ifndef CUZK_TESTS_GMP_ORACLE_H
#define CUZK_TESTS_GMP_ORACLE_H

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tests/support/testlib.h"

/* BLS12-381 moduli, typed in from DESIGN §5 (not taken from core/ff). */
#define CUZK_ORACLE_P_HEX                                                                          \
  "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"
#define CUZK_ORACLE_R_HEX "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"

static inline void gmpo_from_limbs(mpz_t out, const uint64_t *l, size_t n) {
  mpz_import(out, n, -1, sizeof(uint64_t), 0, 0, l);
}

/* Writes |x| into n limbs; asserts that it fits. */
static inline void gmpo_to_limbs(uint64_t *l, size_t n, const mpz_t x) {
  memset(l, 0, n * sizeof(uint64_t));
  size_t count = 0;
  assert_true(mpz_sizeinbase(x, 2) <= n * 64);
  mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, x);
  assert_true(count <= n);
}

static inline void gmpo_from_le_bytes(mpz_t out, const uint8_t *b, size_t n) { mpz_import(out, n, -1, 1, 0, 0, b); }

static inline void gmpo_to_le_bytes(uint8_t *b, size_t n, const mpz_t x) {
  memset(b, 0, n);
  size_t count = 0;
  assert_true(mpz_sizeinbase(x, 2) <= n * 8);
  mpz_export(b, &count, -1, 1, 0, 0, x);
}

static inline void gmpo_to_be_bytes(uint8_t *b, size_t n, const mpz_t x) {
  uint8_t le[128];
  assert_true(n <= sizeof le);
  gmpo_to_le_bytes(le, n, x);
  for (size_t i = 0; i < n; i++) b[i] = le[n - 1 - i];
}

/* A random value below 2^bits from the seeded test RNG. */
static inline void gmpo_random_bits(mpz_t out, cuzk_test_rng_t *rng, unsigned bits) {
  uint8_t buf[128];
  size_t n = (bits + 7) / 8;
  assert_true(n <= sizeof buf);
  cuzk_test_rng_bytes(rng, buf, n);
  gmpo_from_le_bytes(out, buf, n);
  mpz_fdiv_r_2exp(out, out, bits);
}

/* A random value below m, uniform enough for testing (reduces 64 extra bits). */
static inline void gmpo_random_mod(mpz_t out, cuzk_test_rng_t *rng, const mpz_t m) {
  gmpo_random_bits(out, rng, (unsigned)mpz_sizeinbase(m, 2) + 64);
  mpz_mod(out, out, m);
}

/* Edge values below m: 0, 1, 2, m-1, m-2, 2^k, 2^k ± 1, m - 2^k for every k with 2^k < m,
 * and (m-1)/2, (m+1)/2. Fills up to cap entries (mpz_init'ed by the caller) and returns the count. */
static inline size_t gmpo_edge_values(mpz_t *v, size_t cap, const mpz_t m) {
  size_t n = 0;
  unsigned bits = (unsigned)mpz_sizeinbase(m, 2);
#define GMPO_PUSH(expr)                                                                            \
  do {                                                                                             \
    if (n < cap) {                                                                                 \
      expr;                                                                                        \
      mpz_mod(v[n], v[n], m);                                                                      \
      n++;                                                                                         \
    }                                                                                              \
  } while (0)
  GMPO_PUSH(mpz_set_ui(v[n], 0));
  GMPO_PUSH(mpz_set_ui(v[n], 1));
  GMPO_PUSH(mpz_set_ui(v[n], 2));
  GMPO_PUSH(mpz_sub_ui(v[n], m, 1));
  GMPO_PUSH(mpz_sub_ui(v[n], m, 2));
  GMPO_PUSH((mpz_sub_ui(v[n], m, 1), mpz_fdiv_q_2exp(v[n], v[n], 1)));
  GMPO_PUSH((mpz_add_ui(v[n], m, 1), mpz_fdiv_q_2exp(v[n], v[n], 1)));
  for (unsigned k = 1; k < bits; k++) {
    GMPO_PUSH((mpz_set_ui(v[n], 0), mpz_setbit(v[n], k)));
    GMPO_PUSH((mpz_set_ui(v[n], 0), mpz_setbit(v[n], k), mpz_sub_ui(v[n], v[n], 1)));
    GMPO_PUSH((mpz_set_ui(v[n], 1), mpz_setbit(v[n], k)));
    GMPO_PUSH((mpz_set_ui(v[n], 0), mpz_setbit(v[n], k), mpz_sub(v[n], m, v[n])));
  }
#undef GMPO_PUSH
  return n;
}

#endif
