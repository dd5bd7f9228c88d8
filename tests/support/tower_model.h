/* Header-only GMP model of the BLS12-381 extension fields for tests, deliberately built
 * differently from core/ff: plain schoolbook polynomial arithmetic over Fp (mpz), reduced by
 * u^2 = -1, v^3 = xi and (for Fp12) w^6 = xi with xi = u + 1, where Fp12 is written in the
 * single basis 1, w, ..., w^5 over Fp2 instead of as a tower. Slow and simple. Test code only. */
#ifndef CUZK_TESTS_TOWER_MODEL_H
#define CUZK_TESTS_TOWER_MODEL_H

#include "core/ff/fp12.h"
#include "tests/support/gmp_oracle.h"

static mpz_t tm_p;

typedef struct {
  mpz_t c[2]; /* c0 + c1·u */
} tm2_t;
typedef struct {
  tm2_t c[3]; /* sum c[i]·v^i */
} tm6_t;
typedef struct {
  tm2_t g[6]; /* sum g[i]·w^i, w^6 = xi */
} tm12_t;

static inline void tm_init_p(void) { mpz_init_set_str(tm_p, CUZK_ORACLE_P_HEX, 16); }

static inline void tm2_init(tm2_t *a) { mpz_inits(a->c[0], a->c[1], NULL); }
static inline void tm2_clear(tm2_t *a) { mpz_clears(a->c[0], a->c[1], NULL); }
static inline void tm6_init(tm6_t *a) { for (int i = 0; i < 3; i++) tm2_init(&a->c[i]); }
static inline void tm6_clear(tm6_t *a) { for (int i = 0; i < 3; i++) tm2_clear(&a->c[i]); }
static inline void tm12_init(tm12_t *a) { for (int i = 0; i < 6; i++) tm2_init(&a->g[i]); }
static inline void tm12_clear(tm12_t *a) { for (int i = 0; i < 6; i++) tm2_clear(&a->g[i]); }

static inline void tm2_set(tm2_t *o, const tm2_t *a) {
  mpz_set(o->c[0], a->c[0]);
  mpz_set(o->c[1], a->c[1]);
}
static inline void tm2_set_ui(tm2_t *o, unsigned long c0, unsigned long c1) {
  mpz_set_ui(o->c[0], c0);
  mpz_set_ui(o->c[1], c1);
}
static inline bool tm2_eq(const tm2_t *a, const tm2_t *b) {
  return mpz_cmp(a->c[0], b->c[0]) == 0 && mpz_cmp(a->c[1], b->c[1]) == 0;
}
static inline void tm2_add(tm2_t *o, const tm2_t *a, const tm2_t *b) {
  for (int i = 0; i < 2; i++) {
    mpz_add(o->c[i], a->c[i], b->c[i]);
    mpz_mod(o->c[i], o->c[i], tm_p);
  }
}
static inline void tm2_sub(tm2_t *o, const tm2_t *a, const tm2_t *b) {
  for (int i = 0; i < 2; i++) {
    mpz_sub(o->c[i], a->c[i], b->c[i]);
    mpz_mod(o->c[i], o->c[i], tm_p);
  }
}
/* (a0 + a1·u)(b0 + b1·u) with u^2 = -1, schoolbook */
static inline void tm2_mul(tm2_t *o, const tm2_t *a, const tm2_t *b) {
  mpz_t r0, r1, t;
  mpz_inits(r0, r1, t, NULL);
  mpz_mul(r0, a->c[0], b->c[0]);
  mpz_mul(t, a->c[1], b->c[1]);
  mpz_sub(r0, r0, t);
  mpz_mul(r1, a->c[0], b->c[1]);
  mpz_mul(t, a->c[1], b->c[0]);
  mpz_add(r1, r1, t);
  mpz_mod(o->c[0], r0, tm_p);
  mpz_mod(o->c[1], r1, tm_p);
  mpz_clears(r0, r1, t, NULL);
}
static inline void tm2_mul_xi(tm2_t *o, const tm2_t *a) {
  tm2_t xi;
  tm2_init(&xi);
  tm2_set_ui(&xi, 1, 1);
  tm2_mul(o, a, &xi);
  tm2_clear(&xi);
}
static inline void tm2_random(tm2_t *o, cuzk_test_rng_t *rng) {
  gmpo_random_mod(o->c[0], rng, tm_p);
  gmpo_random_mod(o->c[1], rng, tm_p);
}

/* Conversions from and to core/ff elements go through plain integers (to_raw / from_raw). */
static inline void tm_fp_in(mpz_t o, const cuzk_fp_t *a) {
  uint64_t raw[6];
  cuzk_fp_to_raw(raw, a);
  gmpo_from_limbs(o, raw, 6);
}
static inline void tm_fp_out(cuzk_fp_t *o, const mpz_t a) {
  uint64_t raw[6];
  gmpo_to_limbs(raw, 6, a);
  cuzk_fp_from_raw(o, raw);
}
static inline void tm2_in(tm2_t *o, const cuzk_fp2_t *a) {
  tm_fp_in(o->c[0], &a->c0);
  tm_fp_in(o->c[1], &a->c1);
}
static inline void tm2_out(cuzk_fp2_t *o, const tm2_t *a) {
  tm_fp_out(&o->c0, a->c[0]);
  tm_fp_out(&o->c1, a->c[1]);
}

/* Generic schoolbook product of polynomials with n Fp2 coefficients modulo X^n - xi. */
static inline void tm_polymul(tm2_t *o, const tm2_t *a, const tm2_t *b, int n) {
  tm2_t acc[12], t;
  tm2_init(&t);
  for (int k = 0; k < 2 * n - 1; k++) {
    tm2_init(&acc[k]);
    tm2_set_ui(&acc[k], 0, 0);
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      tm2_mul(&t, &a[i], &b[j]);
      tm2_add(&acc[i + j], &acc[i + j], &t);
    }
  for (int k = 2 * n - 2; k >= n; k--) {
    tm2_mul_xi(&t, &acc[k]);
    tm2_add(&acc[k - n], &acc[k - n], &t);
  }
  for (int k = 0; k < n; k++) tm2_set(&o[k], &acc[k]);
  for (int k = 0; k < 2 * n - 1; k++) tm2_clear(&acc[k]);
  tm2_clear(&t);
}

static inline void tm6_mul(tm6_t *o, const tm6_t *a, const tm6_t *b) { tm_polymul(o->c, a->c, b->c, 3); }
static inline void tm12_mul(tm12_t *o, const tm12_t *a, const tm12_t *b) { tm_polymul(o->g, a->g, b->g, 6); }

static inline void tm6_set_one(tm6_t *o) {
  for (int i = 0; i < 3; i++) tm2_set_ui(&o->c[i], i == 0, 0);
}
static inline void tm12_set_one(tm12_t *o) {
  for (int i = 0; i < 6; i++) tm2_set_ui(&o->g[i], i == 0, 0);
}
static inline bool tm6_eq(const tm6_t *a, const tm6_t *b) {
  for (int i = 0; i < 3; i++)
    if (!tm2_eq(&a->c[i], &b->c[i])) return false;
  return true;
}
static inline bool tm12_eq(const tm12_t *a, const tm12_t *b) {
  for (int i = 0; i < 6; i++)
    if (!tm2_eq(&a->g[i], &b->g[i])) return false;
  return true;
}

/* Square-and-multiply in the model; n is the number of Fp2 coefficients (1, 3 or 6). */
static inline void tm_polypow(tm2_t *o, const tm2_t *a, const mpz_t e, int n) {
  tm2_t acc[6], base[6];
  for (int i = 0; i < n; i++) {
    tm2_init(&acc[i]);
    tm2_init(&base[i]);
    tm2_set_ui(&acc[i], i == 0, 0);
    tm2_set(&base[i], &a[i]);
  }
  for (long b = (long)mpz_sizeinbase(e, 2) - 1; b >= 0 && mpz_sgn(e) != 0; b--) {
    if (n == 1)
      tm2_mul(acc, acc, acc);
    else
      tm_polymul(acc, acc, acc, n);
    if (mpz_tstbit(e, (mp_bitcnt_t)b)) {
      if (n == 1)
        tm2_mul(acc, acc, base);
      else
        tm_polymul(acc, acc, base, n);
    }
  }
  for (int i = 0; i < n; i++) {
    tm2_set(&o[i], &acc[i]);
    tm2_clear(&acc[i]);
    tm2_clear(&base[i]);
  }
}

static inline void tm6_in(tm6_t *o, const cuzk_fp6_t *a) {
  tm2_in(&o->c[0], &a->c0);
  tm2_in(&o->c[1], &a->c1);
  tm2_in(&o->c[2], &a->c2);
}
static inline void tm6_out(cuzk_fp6_t *o, const tm6_t *a) {
  tm2_out(&o->c0, &a->c[0]);
  tm2_out(&o->c1, &a->c[1]);
  tm2_out(&o->c2, &a->c[2]);
}
/* Tower (c0 + c1·w, ci in Fp6 over v = w^2) <-> w basis: g[2i] = c0.ci, g[2i+1] = c1.ci. */
static inline void tm12_in(tm12_t *o, const cuzk_fp12_t *a) {
  const cuzk_fp6_t *h[2] = {&a->c0, &a->c1};
  for (int j = 0; j < 2; j++) {
    tm2_in(&o->g[j + 0], &h[j]->c0);
    tm2_in(&o->g[j + 2], &h[j]->c1);
    tm2_in(&o->g[j + 4], &h[j]->c2);
  }
}
static inline void tm12_out(cuzk_fp12_t *o, const tm12_t *a) {
  cuzk_fp6_t *h[2] = {&o->c0, &o->c1};
  for (int j = 0; j < 2; j++) {
    tm2_out(&h[j]->c0, &a->g[j + 0]);
    tm2_out(&h[j]->c1, &a->g[j + 2]);
    tm2_out(&h[j]->c2, &a->g[j + 4]);
  }
}

#endif
