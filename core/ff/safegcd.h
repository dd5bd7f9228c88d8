/* Internal: modular inversion by Bernstein–Yang divsteps ("Fast constant-time gcd computation
 * and modular inversion", 2019), in batches of 62 divsteps on signed 62-bit limbs, following
 * the structure explained in Pieter Wuille's safegcd write-up for libsecp256k1.
 *
 * A number is L signed limbs, value = sum l[i]·2^(62 i); all limbs but the top one are kept in
 * [0, 2^62). Invariants (see the write-up): f, g in [-M, M]; d, e in (-2M, M); after enough
 * divsteps g = 0, f = ±1 and d = ±x^-1 mod M.
 *
 * cuzk__sg_inv runs a fixed number of batches (constant time, for secrets); with vartime set it
 * stops as soon as g = 0. Not a public header.
 */
#ifndef CUZK_FF_SAFEGCD_H
#define CUZK_FF_SAFEGCD_H

#include <stdbool.h>
#include <stdint.h>

typedef __int128 cuzk__i128;

#define CUZK__SG_M62 (((uint64_t)1 << 62) - 1)
#define CUZK__SG_INLINE static inline __attribute__((always_inline))

typedef struct {
  int64_t m[8]; /* modulus in signed-62 form */
  uint64_t mi;  /* m^-1 mod 2^62 */
  int limbs;    /* L: limbs of 62 bits */
  int batches;  /* 62-divstep batches that always suffice (constant-time count) */
} cuzk__sg_mod_t;

/* 62 divsteps on the low 64 bits of f (odd) and g. Returns the new delta and the transition
 * matrix t = (u, v, q, r), scaled by 2^62: 2^62·(f', g') = (u·f + v·g, q·f + r·g). Branch-free. */
CUZK__SG_INLINE int64_t cuzk__sg_divsteps62(int64_t delta, uint64_t f, uint64_t g, int64_t t[4]) {
  uint64_t u = 1, v = 0, q = 0, r = 1;
  for (int i = 0; i < 62; i++) {
    uint64_t g_odd = (uint64_t)0 - (g & 1);
    uint64_t d_pos = (uint64_t)0 - (((uint64_t)0 - (uint64_t)delta) >> 63);
    uint64_t swap = g_odd & d_pos;
    /* if swap: (f, g) = (g, -f), (u, v, q, r) = (q, r, -u, -v), delta = -delta */
    uint64_t x = (f ^ g) & swap;
    f ^= x;
    g ^= x;
    g = (g ^ swap) - swap;
    x = (u ^ q) & swap;
    u ^= x;
    q ^= x;
    q = (q ^ swap) - swap;
    x = (v ^ r) & swap;
    v ^= x;
    r ^= x;
    r = (r ^ swap) - swap;
    delta = (int64_t)(((uint64_t)delta ^ swap) - swap);
    /* if g was odd: g += f, (q, r) += (u, v) */
    g += f & g_odd;
    q += u & g_odd;
    r += v & g_odd;
    /* g is even now: halve it, double (u, v) */
    g >>= 1;
    u <<= 1;
    v <<= 1;
    delta += 1;
  }
  t[0] = (int64_t)u;
  t[1] = (int64_t)v;
  t[2] = (int64_t)q;
  t[3] = (int64_t)r;
  return delta;
}

/* (f, g) = (u·f + v·g, q·f + r·g) / 2^62, exactly. */
CUZK__SG_INLINE void cuzk__sg_update_fg(int64_t *f, int64_t *g, const int64_t t[4], int L) {
  const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
  cuzk__i128 cf = (cuzk__i128)u * f[0] + (cuzk__i128)v * g[0];
  cuzk__i128 cg = (cuzk__i128)q * f[0] + (cuzk__i128)r * g[0];
  cf >>= 62;
  cg >>= 62;
  for (int i = 1; i < L; i++) {
    cf += (cuzk__i128)u * f[i] + (cuzk__i128)v * g[i];
    cg += (cuzk__i128)q * f[i] + (cuzk__i128)r * g[i];
    f[i - 1] = (int64_t)((uint64_t)cf & CUZK__SG_M62);
    g[i - 1] = (int64_t)((uint64_t)cg & CUZK__SG_M62);
    cf >>= 62;
    cg >>= 62;
  }
  f[L - 1] = (int64_t)cf;
  g[L - 1] = (int64_t)cg;
}

/* (d, e) = (u·d + v·e, q·d + r·e) / 2^62 mod M, keeping both in (-2M, M): multiples of M are
 * added so that the low 62 bits vanish (and, for negative inputs, so the range is kept). */
CUZK__SG_INLINE void cuzk__sg_update_de(int64_t *d, int64_t *e, const int64_t t[4],
                                        const cuzk__sg_mod_t *M) {
  const int L = M->limbs;
  const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
  const int64_t sd = d[L - 1] >> 63, se = e[L - 1] >> 63;
  int64_t md = (u & sd) + (v & se);
  int64_t me = (q & sd) + (r & se);
  cuzk__i128 cd = (cuzk__i128)u * d[0] + (cuzk__i128)v * e[0];
  cuzk__i128 ce = (cuzk__i128)q * d[0] + (cuzk__i128)r * e[0];
  md -= (int64_t)((M->mi * (uint64_t)cd + (uint64_t)md) & CUZK__SG_M62);
  me -= (int64_t)((M->mi * (uint64_t)ce + (uint64_t)me) & CUZK__SG_M62);
  cd += (cuzk__i128)M->m[0] * md;
  ce += (cuzk__i128)M->m[0] * me;
  cd >>= 62;
  ce >>= 62;
  for (int i = 1; i < L; i++) {
    cd += (cuzk__i128)u * d[i] + (cuzk__i128)v * e[i] + (cuzk__i128)M->m[i] * md;
    ce += (cuzk__i128)q * d[i] + (cuzk__i128)r * e[i] + (cuzk__i128)M->m[i] * me;
    d[i - 1] = (int64_t)((uint64_t)cd & CUZK__SG_M62);
    e[i - 1] = (int64_t)((uint64_t)ce & CUZK__SG_M62);
    cd >>= 62;
    ce >>= 62;
  }
  d[L - 1] = (int64_t)cd;
  e[L - 1] = (int64_t)ce;
}

/* Carry-normalise: limbs 0..L-2 into [0, 2^62), the sign in the top limb. */
CUZK__SG_INLINE void cuzk__sg_carry(int64_t *a, int L) {
  for (int i = 0; i < L - 1; i++) {
    a[i + 1] += a[i] >> 62;
    a[i] &= (int64_t)CUZK__SG_M62;
  }
}

/* a += M when mask is all ones. */
CUZK__SG_INLINE void cuzk__sg_cadd_m(int64_t *a, int64_t mask, const cuzk__sg_mod_t *M) {
  for (int i = 0; i < M->limbs; i++) a[i] += M->m[i] & mask;
  cuzk__sg_carry(a, M->limbs);
}

/* a = -a when mask is all ones. */
CUZK__SG_INLINE void cuzk__sg_cneg(int64_t *a, int64_t mask, int L) {
  for (int i = 0; i < L; i++) a[i] = (a[i] ^ mask) - mask;
  cuzk__sg_carry(a, L);
}

/* out = x^-1 mod M for 0 <= x < M given as L64 64-bit limbs (x = 0 gives 0). */
CUZK__SG_INLINE void cuzk__sg_inv(uint64_t *out, const uint64_t *x, int L64,
                                  const cuzk__sg_mod_t *M, bool vartime) {
  const int L = M->limbs;
  int64_t f[8], g[8], d[8] = {0}, e[8] = {0}, t[4];
  for (int i = 0; i < L; i++) {
    f[i] = M->m[i];
    /* bits 62i .. 62i+61 of x */
    int w = (62 * i) / 64, s = (62 * i) % 64;
    uint64_t lo = w < L64 ? x[w] >> s : 0;
    uint64_t hi = (s > 2 && w + 1 < L64) ? x[w + 1] << (64 - s) : 0;
    g[i] = (int64_t)((lo | hi) & CUZK__SG_M62);
  }
  e[0] = 1;
  int64_t delta = 1;
  for (int b = 0; b < M->batches; b++) {
    if (vartime) {
      int64_t any = 0;
      for (int i = 0; i < L; i++) any |= g[i];
      if (any == 0) break;
    }
    delta = cuzk__sg_divsteps62(delta, (uint64_t)f[0] | ((uint64_t)f[1] << 62),
                                (uint64_t)g[0] | ((uint64_t)g[1] << 62), t);
    cuzk__sg_update_fg(f, g, t, L);
    cuzk__sg_update_de(d, e, t, M);
  }
  /* f = ±1 now (x invertible) and d in (-2M, M): bring d·f into [0, M). */
  cuzk__sg_cadd_m(d, d[L - 1] >> 63, M);
  cuzk__sg_cneg(d, f[L - 1] >> 63, L);
  cuzk__sg_cadd_m(d, d[L - 1] >> 63, M);
  for (int i = 0; i < L64; i++) {
    int w = (64 * i) / 62, s = (64 * i) % 62;
    uint64_t v = (uint64_t)d[w] >> s;
    if (w + 1 < L) v |= (uint64_t)d[w + 1] << (62 - s);
    if (s > 60 && w + 2 < L) v |= (uint64_t)d[w + 2] << (124 - s);
    out[i] = v;
  }
}

#endif
