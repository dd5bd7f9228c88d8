#include "core/ff/fp2.h"

#include <assert.h>

#include "core/ff/ff_internal.h"

const cuzk_fp2_t CUZK_FP2_ZERO = {{{0}}, {{0}}};
/* 1 + 0·u; c0 is R mod p, R = 2^384 */
const cuzk_fp2_t CUZK_FP2_ONE = {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                                   0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                                 {{0}}};

/* (p - 3) / 4 (Fp2 square root, p = 3 mod 4) */
static const uint64_t FP_P_MINUS_3_DIV_4[6] = {0xee7fbfffffffeaaa, 0x07aaffffac54ffff,
                                               0xd9cc34a83dac3d89, 0xd91dd2e13ce144af,
                                               0x92c6e9ed90d2eb35, 0x0680447a8e5ff9a6};

void cuzk_fp2_add(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b) {
  cuzk_fp_add(&out->c0, &a->c0, &b->c0);
  cuzk_fp_add(&out->c1, &a->c1, &b->c1);
}

void cuzk_fp2_sub(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b) {
  cuzk_fp_sub(&out->c0, &a->c0, &b->c0);
  cuzk_fp_sub(&out->c1, &a->c1, &b->c1);
}

void cuzk_fp2_neg(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp_neg(&out->c0, &a->c0);
  cuzk_fp_neg(&out->c1, &a->c1);
}

void cuzk_fp2_dbl(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp_dbl(&out->c0, &a->c0);
  cuzk_fp_dbl(&out->c1, &a->c1);
}

void cuzk_fp2_conj(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  out->c0 = a->c0;
  cuzk_fp_neg(&out->c1, &a->c1);
}

/* Karatsuba: (a0 + a1·u)(b0 + b1·u) = (a0·b0 - a1·b1) + ((a0 + a1)(b0 + b1) - a0·b0 - a1·b1)·u */
void cuzk_fp2_mul(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b) {
  cuzk_fp_t t0, t1, s0, s1;
  cuzk_fp_mul(&t0, &a->c0, &b->c0);
  cuzk_fp_mul(&t1, &a->c1, &b->c1);
  cuzk_fp_add(&s0, &a->c0, &a->c1);
  cuzk_fp_add(&s1, &b->c0, &b->c1);
  cuzk_fp_mul(&s0, &s0, &s1);
  cuzk_fp_sub(&s0, &s0, &t0);
  cuzk_fp_sub(&out->c1, &s0, &t1);
  cuzk_fp_sub(&out->c0, &t0, &t1);
}

void cuzk_fp2_mul_fp(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp_t *b) {
  cuzk_fp_mul(&out->c0, &a->c0, b);
  cuzk_fp_mul(&out->c1, &a->c1, b);
}

/* (a0 + a1·u)^2 = (a0 + a1)(a0 - a1) + 2·a0·a1·u */
void cuzk_fp2_sqr(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp_t s, d, m;
  cuzk_fp_add(&s, &a->c0, &a->c1);
  cuzk_fp_sub(&d, &a->c0, &a->c1);
  cuzk_fp_mul(&m, &a->c0, &a->c1);
  cuzk_fp_mul(&out->c0, &s, &d);
  cuzk_fp_dbl(&out->c1, &m);
}

/* (a0 + a1·u)(1 + u) = (a0 - a1) + (a0 + a1)·u */
void cuzk_fp2_mul_by_xi(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp_t t;
  cuzk_fp_sub(&t, &a->c0, &a->c1);
  cuzk_fp_add(&out->c1, &a->c0, &a->c1);
  out->c0 = t;
}

/* 1/(a0 + a1·u) = (a0 - a1·u)/(a0^2 + a1^2) */
void cuzk_fp2_inv(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp_t n, t;
  cuzk_fp_sqr(&n, &a->c0);
  cuzk_fp_sqr(&t, &a->c1);
  cuzk_fp_add(&n, &n, &t);
  cuzk_fp_inv(&n, &n);
  cuzk_fp_mul(&out->c0, &a->c0, &n);
  cuzk_fp_mul(&t, &a->c1, &n);
  cuzk_fp_neg(&out->c1, &t);
}

/* u^p = -u (p = 3 mod 4), so the p-power Frobenius is conjugation and has order 2. */
void cuzk_fp2_frobenius(cuzk_fp2_t *out, const cuzk_fp2_t *a, unsigned power) {
  if (power & 1)
    cuzk_fp2_conj(out, a);
  else
    *out = *a;
}

void cuzk_fp2_pow(cuzk_fp2_t *out, const cuzk_fp2_t *a, const uint64_t *e, size_t n) {
  assert(e != NULL || n == 0);
  cuzk_fp2_t base = *a, acc = CUZK_FP2_ONE;
  size_t top = n;
  while (top > 0 && e[top - 1] == 0) top--;
  for (size_t i = top; i-- > 0;)
    for (int b = 63; b >= 0; b--) {
      cuzk_fp2_sqr(&acc, &acc);
      if ((e[i] >> b) & 1) cuzk_fp2_mul(&acc, &acc, &base);
    }
  *out = acc;
}

/* Square root for p = 3 mod 4 (Adj and Rodríguez-Henríquez 2012, Alg. 9):
 * a1 = a^((p-3)/4), alpha = a1^2·a, x0 = a1·a; alpha^(p+1) = -1 means a is a non-residue;
 * alpha = -1 gives x = u·x0, otherwise x = (1 + alpha)^((p-1)/2)·x0. */
bool cuzk_fp2_sqrt(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp2_t a1, alpha, x0, t, minus_one;
  cuzk_fp2_neg(&minus_one, &CUZK_FP2_ONE);
  cuzk_fp2_pow(&a1, a, FP_P_MINUS_3_DIV_4, 6);
  cuzk_fp2_sqr(&alpha, &a1);
  cuzk_fp2_mul(&alpha, &alpha, a);
  cuzk_fp2_mul(&x0, &a1, a);
  cuzk_fp2_conj(&t, &alpha);
  cuzk_fp2_mul(&t, &t, &alpha);
  if (cuzk_fp2_eq(&t, &minus_one)) return false;
  if (cuzk_fp2_eq(&alpha, &minus_one)) {
    /* u·(c0 + c1·u) = -c1 + c0·u */
    cuzk_fp_neg(&t.c0, &x0.c1);
    t.c1 = x0.c0;
  } else {
    cuzk_fp2_add(&t, &alpha, &CUZK_FP2_ONE);
    cuzk_fp2_pow(&t, &t, cuzk__fp_p_minus_1_div_2, 6);
    cuzk_fp2_mul(&t, &t, &x0);
  }
  cuzk_fp2_t check;
  cuzk_fp2_sqr(&check, &t);
  *out = t;
  return cuzk_fp2_eq(&check, a);
}

bool cuzk_fp2_is_zero(const cuzk_fp2_t *a) { return cuzk_fp_is_zero(&a->c0) & cuzk_fp_is_zero(&a->c1); }

bool cuzk_fp2_eq(const cuzk_fp2_t *a, const cuzk_fp2_t *b) {
  return cuzk_fp_eq(&a->c0, &b->c0) & cuzk_fp_eq(&a->c1, &b->c1);
}

bool cuzk_fp2_is_lexi_largest(const cuzk_fp2_t *a) {
  return cuzk_fp_is_lexi_largest(&a->c1) || (cuzk_fp_is_zero(&a->c1) && cuzk_fp_is_lexi_largest(&a->c0));
}

cuzk_err_t cuzk_fp2_random(cuzk_fp2_t *out) {
  cuzk_err_t e = cuzk_fp_random(&out->c0);
  return e != CUZK_OK ? e : cuzk_fp_random(&out->c1);
}
