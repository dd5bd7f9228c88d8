/* GMP reference arithmetic for the GPU tests (Fr, Fp, affine G1), independent of cuda/ and
 * core/. Elements cross to the GPU as little-endian u64 limbs in Montgomery form. */
#ifndef CUZK_TESTS_GPU_REF_H
#define CUZK_TESTS_GPU_REF_H

#include <gmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuzk_gpu.h"
#include "tests/support/testlib.h"

static mpz_t REF_P, REF_R, REF_RP_MONT, REF_RR_MONT; /* p, r, 2^384 mod p, 2^256 mod r */
static mpz_t REF_RP_INV, REF_RR_INV;                  /* their inverses */
static int ref_failures;

#define REF_CHECK(cond, ...)                                  \
  do {                                                        \
    if (!(cond)) {                                            \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);    \
      fprintf(stderr, __VA_ARGS__);                           \
      fprintf(stderr, "\n");                                  \
      ref_failures++;                                         \
    }                                                         \
  } while (0)

#define REF_GPU_OK(call)                                                              \
  do {                                                                                \
    cuzk_gpu_status_t ref__s = (call);                                                \
    if (ref__s.code != 0) {                                                           \
      fprintf(stderr, "FAIL %s:%d: %s -> %d %s\n", __FILE__, __LINE__, #call,         \
              ref__s.code, ref__s.message);                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static inline void ref_init(void) {
  mpz_init_set_str(REF_P,
                   "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16);
  mpz_init_set_str(REF_R, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
  mpz_init(REF_RP_MONT);
  mpz_init(REF_RR_MONT);
  mpz_setbit(REF_RP_MONT, 384);
  mpz_mod(REF_RP_MONT, REF_RP_MONT, REF_P);
  mpz_setbit(REF_RR_MONT, 256);
  mpz_mod(REF_RR_MONT, REF_RR_MONT, REF_R);
  mpz_init(REF_RP_INV);
  mpz_init(REF_RR_INV);
  mpz_invert(REF_RP_INV, REF_RP_MONT, REF_P);
  mpz_invert(REF_RR_INV, REF_RR_MONT, REF_R);
}

/* Exits 77 (SKIP) when no device is usable; returns device 0 otherwise. */
static inline int ref_need_device(void) {
  int n = 0;
  cuzk_gpu_status_t s = cuzk_gpu_device_count(&n);
  if (s.code != 0 || n == 0) {
    printf("SKIP: no CUDA device (%s)\n", s.message[0] ? s.message : "count is 0");
    exit(CUZK_TEST_SKIP);
  }
  cuzk_gpu_info_t info;
  if (cuzk_gpu_device_info(0, &info).code == 0)
    printf("device 0: %s, %d SMs, cc %d.%d\n", info.name, info.sm_count, info.cc_major, info.cc_minor);
  return 0;
}

static inline void ref_to_limbs(uint64_t *out, int nl, const mpz_t x) {
  memset(out, 0, (size_t)nl * 8);
  size_t cnt = 0;
  mpz_export(out, &cnt, -1, 8, 0, 0, x);
}

static inline void ref_from_limbs(mpz_t out, const uint64_t *in, int nl) { mpz_import(out, (size_t)nl, -1, 8, 0, 0, in); }

/* Montgomery limbs <-> canonical values. m is REF_P (6 limbs) or REF_R (4 limbs). */
static inline void ref_to_mont(uint64_t *out, const mpz_t x, int is_p) {
  mpz_t t;
  mpz_init(t);
  mpz_mul(t, x, is_p ? REF_RP_MONT : REF_RR_MONT);
  mpz_mod(t, t, is_p ? REF_P : REF_R);
  ref_to_limbs(out, is_p ? 6 : 4, t);
  mpz_clear(t);
}

static inline void ref_from_mont(mpz_t out, const uint64_t *in, int is_p) {
  ref_from_limbs(out, in, is_p ? 6 : 4);
  mpz_mul(out, out, is_p ? REF_RP_INV : REF_RR_INV);
  mpz_mod(out, out, is_p ? REF_P : REF_R);
}

static inline void ref_random_mod(mpz_t out, cuzk_test_rng_t *rng, const mpz_t m) {
  uint64_t w[8];
  for (int i = 0; i < 8; i++) w[i] = cuzk_test_rng_next(rng);
  mpz_import(out, 8, -1, 8, 0, 0, w);
  mpz_mod(out, out, m);
}

/* ---- affine G1 over GMP ---- */
typedef struct {
  mpz_t x, y;
  bool inf;
} ref_g1;

static inline void ref_g1_init(ref_g1 *p) {
  mpz_init(p->x);
  mpz_init(p->y);
  p->inf = true;
}
static inline void ref_g1_clear(ref_g1 *p) {
  mpz_clear(p->x);
  mpz_clear(p->y);
}
static inline void ref_g1_set(ref_g1 *o, const ref_g1 *p) {
  mpz_set(o->x, p->x);
  mpz_set(o->y, p->y);
  o->inf = p->inf;
}
static inline void ref_g1_gen(ref_g1 *g) {
  mpz_set_str(g->x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb", 16);
  mpz_set_str(g->y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1", 16);
  g->inf = false;
}
static inline bool ref_g1_on_curve(const ref_g1 *p) {
  if (p->inf) return true;
  mpz_t l, r;
  mpz_inits(l, r, NULL);
  mpz_mul(l, p->y, p->y);
  mpz_mod(l, l, REF_P);
  mpz_powm_ui(r, p->x, 3, REF_P);
  mpz_add_ui(r, r, 4);
  mpz_mod(r, r, REF_P);
  bool ok = mpz_cmp(l, r) == 0;
  mpz_clears(l, r, NULL);
  return ok;
}
static inline bool ref_g1_eq(const ref_g1 *a, const ref_g1 *b) {
  if (a->inf || b->inf) return a->inf == b->inf;
  return mpz_cmp(a->x, b->x) == 0 && mpz_cmp(a->y, b->y) == 0;
}
/* o = a + b (o may alias a or b) */
static inline void ref_g1_add(ref_g1 *o, const ref_g1 *a, const ref_g1 *b) {
  if (a->inf) {
    ref_g1_set(o, b);
    return;
  }
  if (b->inf) {
    ref_g1_set(o, a);
    return;
  }
  mpz_t lam, t, x3, y3;
  mpz_inits(lam, t, x3, y3, NULL);
  if (mpz_cmp(a->x, b->x) == 0) {
    mpz_add(t, a->y, b->y);
    mpz_mod(t, t, REF_P);
    if (mpz_sgn(t) == 0) {
      o->inf = true;
      mpz_clears(lam, t, x3, y3, NULL);
      return;
    }
    mpz_mul(lam, a->x, a->x); /* 3x^2 / 2y */
    mpz_mul_ui(lam, lam, 3);
    mpz_mul_ui(t, a->y, 2);
    mpz_invert(t, t, REF_P);
    mpz_mul(lam, lam, t);
  } else {
    mpz_sub(lam, b->y, a->y);
    mpz_sub(t, b->x, a->x);
    mpz_mod(t, t, REF_P);
    mpz_invert(t, t, REF_P);
    mpz_mul(lam, lam, t);
  }
  mpz_mod(lam, lam, REF_P);
  mpz_mul(x3, lam, lam);
  mpz_sub(x3, x3, a->x);
  mpz_sub(x3, x3, b->x);
  mpz_mod(x3, x3, REF_P);
  mpz_sub(y3, a->x, x3);
  mpz_mul(y3, y3, lam);
  mpz_sub(y3, y3, a->y);
  mpz_mod(y3, y3, REF_P);
  mpz_set(o->x, x3);
  mpz_set(o->y, y3);
  o->inf = false;
  mpz_clears(lam, t, x3, y3, NULL);
}
static inline void ref_g1_mul(ref_g1 *o, const ref_g1 *p, const mpz_t k) {
  ref_g1 acc, base;
  ref_g1_init(&acc);
  ref_g1_init(&base);
  ref_g1_set(&base, p);
  for (long i = (long)mpz_sizeinbase(k, 2) - 1; i >= 0; i--) {
    ref_g1_add(&acc, &acc, &acc);
    if (mpz_tstbit(k, (mp_bitcnt_t)i)) ref_g1_add(&acc, &acc, &base);
  }
  if (mpz_sgn(k) == 0) acc.inf = true;
  ref_g1_set(o, &acc);
  ref_g1_clear(&acc);
  ref_g1_clear(&base);
}
static inline void ref_g1_to_gpu(cuzk_gpu_g1_affine_t *o, const ref_g1 *p) {
  if (p->inf) {
    memset(o, 0, sizeof(*o));
    return;
  }
  ref_to_mont(o->x, p->x, 1);
  ref_to_mont(o->y, p->y, 1);
}
static inline void ref_g1_from_jac(ref_g1 *o, const cuzk_gpu_g1_jac_t *j) {
  mpz_t X, Y, Z, t;
  mpz_inits(X, Y, Z, t, NULL);
  ref_from_mont(X, j->x, 1);
  ref_from_mont(Y, j->y, 1);
  ref_from_mont(Z, j->z, 1);
  if (mpz_sgn(Z) == 0) {
    o->inf = true;
  } else {
    mpz_invert(Z, Z, REF_P);
    mpz_mul(t, Z, Z);
    mpz_mod(t, t, REF_P);
    mpz_mul(o->x, X, t);
    mpz_mod(o->x, o->x, REF_P);
    mpz_mul(t, t, Z);
    mpz_mul(o->y, Y, t);
    mpz_mod(o->y, o->y, REF_P);
    o->inf = false;
  }
  mpz_clears(X, Y, Z, t, NULL);
}

#endif
