/* Internal: Montgomery arithmetic on N little-endian 64-bit limbs, shared by fp.c and fr.c.
 * Every function is static inline and takes the limb count as a compile-time constant, so
 * each field gets a fully specialised copy. Not a public header.
 *
 * Requirements on the modulus m: odd, m < 2^(64N - 1) (both BLS12-381 moduli have spare top
 * bits), ninv = -m^-1 mod 2^64. Inputs to mul/add/sub are fully reduced (< m); outputs are too.
 * Everything here is constant time except the functions whose name ends in _vartime.
 */
#ifndef CUZK_FF_MONT_H
#define CUZK_FF_MONT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 cuzk__u128;

#define CUZK__INLINE static inline __attribute__((always_inline))

/* out = a + b + carry_in, returns the carry out. */
CUZK__INLINE uint64_t cuzk__adc(uint64_t *out, uint64_t a, uint64_t b, uint64_t c) {
  cuzk__u128 t = (cuzk__u128)a + b + c;
  *out = (uint64_t)t;
  return (uint64_t)(t >> 64);
}

/* out = a - b - borrow_in, returns the borrow out (0 or 1). */
CUZK__INLINE uint64_t cuzk__sbb(uint64_t *out, uint64_t a, uint64_t b, uint64_t borrow) {
  cuzk__u128 t = (cuzk__u128)a - b - borrow;
  *out = (uint64_t)t;
  return (uint64_t)(t >> 64) & 1;
}

/* out = a·b + c + d, returns the high word (never overflows). */
CUZK__INLINE uint64_t cuzk__mac(uint64_t *out, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  cuzk__u128 t = (cuzk__u128)a * b + c + d;
  *out = (uint64_t)t;
  return (uint64_t)(t >> 64);
}

/* out = t - m if t >= m (t given with an extra top word hi), else t. Constant time. */
CUZK__INLINE void cuzk__mont_final_sub(uint64_t *out, const uint64_t *t, uint64_t hi, const uint64_t *m,
                                       int N) {
  uint64_t d[8];
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) borrow = cuzk__sbb(&d[i], t[i], m[i], borrow);
  cuzk__sbb(&hi, hi, 0, borrow);
  /* hi is now all ones when t < m (keep t), zero otherwise (take d). */
  uint64_t keep = hi;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) out[i] = (t[i] & keep) | (d[i] & ~keep);
}

CUZK__INLINE void cuzk__mont_add(uint64_t *out, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                                 int N) {
  uint64_t t[8];
  uint64_t c = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) c = cuzk__adc(&t[i], a[i], b[i], c);
  cuzk__mont_final_sub(out, t, c, m, N);
}

CUZK__INLINE void cuzk__mont_sub(uint64_t *out, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                                 int N) {
  uint64_t t[8];
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) borrow = cuzk__sbb(&t[i], a[i], b[i], borrow);
  uint64_t mask = (uint64_t)0 - borrow;
  uint64_t c = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) c = cuzk__adc(&out[i], t[i], m[i] & mask, c);
}

CUZK__INLINE bool cuzk__limbs_is_zero(const uint64_t *a, int N) {
  uint64_t acc = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) acc |= a[i];
  return acc == 0;
}

CUZK__INLINE bool cuzk__limbs_eq(const uint64_t *a, const uint64_t *b, int N) {
  uint64_t acc = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) acc |= a[i] ^ b[i];
  return acc == 0;
}

/* out = -a mod m (0 stays 0). */
CUZK__INLINE void cuzk__mont_neg(uint64_t *out, const uint64_t *a, const uint64_t *m, int N) {
  uint64_t nz = (uint64_t)0 - (uint64_t)!cuzk__limbs_is_zero(a, N);
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) {
    uint64_t d;
    borrow = cuzk__sbb(&d, m[i], a[i], borrow);
    out[i] = d & nz;
  }
}

/* Montgomery product a·b·2^(-64N) mod m, CIOS (Koç, Acar, Kaliski 1996), fully reduced. */
CUZK__INLINE void cuzk__mont_mul(uint64_t *out, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                                 uint64_t ninv, int N) {
  uint64_t t[8] = {0};
  uint64_t t_hi = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) {
    uint64_t c = 0;
#pragma GCC unroll 8
    for (int j = 0; j < N; j++) c = cuzk__mac(&t[j], a[j], b[i], t[j], c);
    uint64_t top;
    uint64_t top_hi = cuzk__adc(&top, t_hi, c, 0);
    uint64_t q = t[0] * ninv;
    uint64_t lo;
    c = cuzk__mac(&lo, q, m[0], t[0], 0);
#pragma GCC unroll 8
    for (int j = 1; j < N; j++) c = cuzk__mac(&t[j - 1], q, m[j], t[j], c);
    t_hi = top_hi + cuzk__adc(&t[N - 1], top, c, 0);
  }
  cuzk__mont_final_sub(out, t, t_hi, m, N);
}

/* Montgomery reduction of a plain N-limb value: a·2^(-64N) mod m (for leaving Montgomery form). */
CUZK__INLINE void cuzk__mont_redc(uint64_t *out, const uint64_t *a, const uint64_t *m, uint64_t ninv, int N) {
  uint64_t one[8] = {1};
  cuzk__mont_mul(out, a, one, m, ninv, N);
}

/* Big-integer helpers on plain values (not Montgomery), used by encodings and the binary GCD. */
CUZK__INLINE bool cuzk__limbs_lt(const uint64_t *a, const uint64_t *b, int N) {
  uint64_t borrow = 0, d;
#pragma GCC unroll 8
  for (int i = 0; i < N; i++) borrow = cuzk__sbb(&d, a[i], b[i], borrow);
  return borrow != 0;
}

CUZK__INLINE void cuzk__limbs_from_be(uint64_t *out, const uint8_t *in, int N) {
  for (int i = 0; i < N; i++) {
    uint64_t w = 0;
    for (int k = 0; k < 8; k++) w = (w << 8) | in[(N - 1 - i) * 8 + k];
    out[i] = w;
  }
}

CUZK__INLINE void cuzk__limbs_from_le(uint64_t *out, const uint8_t *in, int N) {
  for (int i = 0; i < N; i++) {
    uint64_t w = 0;
    for (int k = 7; k >= 0; k--) w = (w << 8) | in[i * 8 + k];
    out[i] = w;
  }
}

CUZK__INLINE void cuzk__limbs_to_be(uint8_t *out, const uint64_t *a, int N) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 8; k++) out[(N - 1 - i) * 8 + k] = (uint8_t)(a[i] >> (56 - 8 * k));
}

CUZK__INLINE void cuzk__limbs_to_le(uint8_t *out, const uint64_t *a, int N) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 8; k++) out[i * 8 + k] = (uint8_t)(a[i] >> (8 * k));
}

CUZK__INLINE void cuzk__limbs_shr1(uint64_t *a, uint64_t top, int N) {
  for (int i = 0; i < N - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
  a[N - 1] = (a[N - 1] >> 1) | (top << 63);
}

/* Plain inverse a^-1 mod m of a plain value 0 < a < m, binary extended Euclid (Guide to ECC,
 * Alg. 2.22). Variable time. */
CUZK__INLINE void cuzk__limbs_inv_vartime(uint64_t *out, const uint64_t *a, const uint64_t *m, int N) {
  uint64_t u[8], v[8], x1[8] = {1}, x2[8] = {0}, one[8] = {1};
  memcpy(u, a, (size_t)N * 8);
  memcpy(v, m, (size_t)N * 8);
  for (;;) {
    bool u1 = cuzk__limbs_eq(u, one, N), v1 = cuzk__limbs_eq(v, one, N);
    if (u1 || v1) {
      memcpy(out, u1 ? x1 : x2, (size_t)N * 8);
      return;
    }
    while ((u[0] & 1) == 0) {
      cuzk__limbs_shr1(u, 0, N);
      uint64_t c = 0;
      if (x1[0] & 1)
        for (int i = 0; i < N; i++) c = cuzk__adc(&x1[i], x1[i], m[i], c);
      cuzk__limbs_shr1(x1, c, N);
    }
    while ((v[0] & 1) == 0) {
      cuzk__limbs_shr1(v, 0, N);
      uint64_t c = 0;
      if (x2[0] & 1)
        for (int i = 0; i < N; i++) c = cuzk__adc(&x2[i], x2[i], m[i], c);
      cuzk__limbs_shr1(x2, c, N);
    }
    uint64_t borrow = 0;
    if (!cuzk__limbs_lt(u, v, N)) {
      for (int i = 0; i < N; i++) borrow = cuzk__sbb(&u[i], u[i], v[i], borrow);
      cuzk__mont_sub(x1, x1, x2, m, N);
    } else {
      for (int i = 0; i < N; i++) borrow = cuzk__sbb(&v[i], v[i], u[i], borrow);
      cuzk__mont_sub(x2, x2, x1, m, N);
    }
  }
}

#endif
