#include "core/ff/fp6.h"

#include "core/ff/ff_internal.h"

const cuzk_fp6_t CUZK_FP6_ZERO = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
/* 1: c0.c0 is R mod p, R = 2^384 */
const cuzk_fp6_t CUZK_FP6_ONE = {{{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                                    0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                                  {{0}}},
                                 {{{0}}, {{0}}},
                                 {{{0}}, {{0}}}};

/* xi^((p^k - 1)/3)·R, k = 0..5: v^(p^k) = xi^((p^k - 1)/3)·v */
const cuzk_fp2_t cuzk__fp6_frob_c1[6] = {
    /* k = 0 */
    {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 1 */
    {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}},
     {{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2, 0x18f0206554638741}}},
    /* k = 2 */
    {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 3 */
    {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}},
     {{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}}},
    /* k = 4 */
    {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2, 0x18f0206554638741}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 5 */
    {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}},
     {{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160}}},
};
/* xi^(2(p^k - 1)/3)·R, k = 0..5: (v^2)^(p^k) = xi^(2(p^k - 1)/3)·v^2 */
const cuzk_fp2_t cuzk__fp6_frob_c2[6] = {
    /* k = 0 */
    {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 1 */
    {{{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 2 */
    {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2, 0x18f0206554638741}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 3 */
    {{{0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, 0xeca8f3318332bb7a, 0xef148d1ea0f4c069, 0x040ab3263eff0206}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 4 */
    {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 5 */
    {{{0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e, 0xd5c13cc6f1ca4721, 0x47222a47bf7b5c04, 0x0110f184e51c5f59}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
};

void cuzk_fp6_add(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp6_t *b) {
  cuzk_fp2_add(&out->c0, &a->c0, &b->c0);
  cuzk_fp2_add(&out->c1, &a->c1, &b->c1);
  cuzk_fp2_add(&out->c2, &a->c2, &b->c2);
}

void cuzk_fp6_sub(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp6_t *b) {
  cuzk_fp2_sub(&out->c0, &a->c0, &b->c0);
  cuzk_fp2_sub(&out->c1, &a->c1, &b->c1);
  cuzk_fp2_sub(&out->c2, &a->c2, &b->c2);
}

void cuzk_fp6_neg(cuzk_fp6_t *out, const cuzk_fp6_t *a) {
  cuzk_fp2_neg(&out->c0, &a->c0);
  cuzk_fp2_neg(&out->c1, &a->c1);
  cuzk_fp2_neg(&out->c2, &a->c2);
}

/* Karatsuba over v^3 = xi (Devegili et al. 2006), six Fp2 products:
 * c0 = a0·b0 + xi·((a1 + a2)(b1 + b2) - a1·b1 - a2·b2)
 * c1 = (a0 + a1)(b0 + b1) - a0·b0 - a1·b1 + xi·a2·b2
 * c2 = (a0 + a2)(b0 + b2) - a0·b0 - a2·b2 + a1·b1 */
void cuzk_fp6_mul(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp6_t *b) {
  cuzk_fp2_t t0, t1, t2, s, u, c0, c1, c2;
  cuzk_fp2_mul(&t0, &a->c0, &b->c0);
  cuzk_fp2_mul(&t1, &a->c1, &b->c1);
  cuzk_fp2_mul(&t2, &a->c2, &b->c2);

  cuzk_fp2_add(&s, &a->c1, &a->c2);
  cuzk_fp2_add(&u, &b->c1, &b->c2);
  cuzk_fp2_mul(&s, &s, &u);
  cuzk_fp2_sub(&s, &s, &t1);
  cuzk_fp2_sub(&s, &s, &t2);
  cuzk_fp2_mul_by_xi(&s, &s);
  cuzk_fp2_add(&c0, &s, &t0);

  cuzk_fp2_add(&s, &a->c0, &a->c1);
  cuzk_fp2_add(&u, &b->c0, &b->c1);
  cuzk_fp2_mul(&s, &s, &u);
  cuzk_fp2_sub(&s, &s, &t0);
  cuzk_fp2_sub(&s, &s, &t1);
  cuzk_fp2_mul_by_xi(&u, &t2);
  cuzk_fp2_add(&c1, &s, &u);

  cuzk_fp2_add(&s, &a->c0, &a->c2);
  cuzk_fp2_add(&u, &b->c0, &b->c2);
  cuzk_fp2_mul(&s, &s, &u);
  cuzk_fp2_sub(&s, &s, &t0);
  cuzk_fp2_sub(&s, &s, &t2);
  cuzk_fp2_add(&c2, &s, &t1);

  out->c0 = c0;
  out->c1 = c1;
  out->c2 = c2;
}

/* Chung–Hasan SQR2: s0 = a0^2, s1 = 2·a0·a1, s2 = (a0 - a1 + a2)^2, s3 = 2·a1·a2, s4 = a2^2;
 * c0 = s0 + xi·s3, c1 = s1 + xi·s4, c2 = s1 + s2 + s3 - s0 - s4. */
void cuzk_fp6_sqr(cuzk_fp6_t *out, const cuzk_fp6_t *a) {
  cuzk_fp2_t s0, s1, s2, s3, s4, t;
  cuzk_fp2_sqr(&s0, &a->c0);
  cuzk_fp2_mul(&s1, &a->c0, &a->c1);
  cuzk_fp2_dbl(&s1, &s1);
  cuzk_fp2_sub(&s2, &a->c0, &a->c1);
  cuzk_fp2_add(&s2, &s2, &a->c2);
  cuzk_fp2_sqr(&s2, &s2);
  cuzk_fp2_mul(&s3, &a->c1, &a->c2);
  cuzk_fp2_dbl(&s3, &s3);
  cuzk_fp2_sqr(&s4, &a->c2);

  cuzk_fp2_add(&t, &s1, &s2);
  cuzk_fp2_add(&t, &t, &s3);
  cuzk_fp2_sub(&t, &t, &s0);
  cuzk_fp2_sub(&out->c2, &t, &s4);
  cuzk_fp2_mul_by_xi(&t, &s3);
  cuzk_fp2_add(&out->c0, &s0, &t);
  cuzk_fp2_mul_by_xi(&t, &s4);
  cuzk_fp2_add(&out->c1, &s1, &t);
}

/* With t0 = a0^2 - xi·a1·a2, t1 = xi·a2^2 - a0·a1, t2 = a1^2 - a0·a2 and
 * d = a0·t0 + xi·(a2·t1 + a1·t2): a^-1 = (t0 + t1·v + t2·v^2)/d. */
void cuzk_fp6_inv(cuzk_fp6_t *out, const cuzk_fp6_t *a) {
  cuzk_fp2_t t0, t1, t2, s, d;
  cuzk_fp2_sqr(&t0, &a->c0);
  cuzk_fp2_mul(&s, &a->c1, &a->c2);
  cuzk_fp2_mul_by_xi(&s, &s);
  cuzk_fp2_sub(&t0, &t0, &s);

  cuzk_fp2_sqr(&t1, &a->c2);
  cuzk_fp2_mul_by_xi(&t1, &t1);
  cuzk_fp2_mul(&s, &a->c0, &a->c1);
  cuzk_fp2_sub(&t1, &t1, &s);

  cuzk_fp2_sqr(&t2, &a->c1);
  cuzk_fp2_mul(&s, &a->c0, &a->c2);
  cuzk_fp2_sub(&t2, &t2, &s);

  cuzk_fp2_mul(&d, &a->c2, &t1);
  cuzk_fp2_mul(&s, &a->c1, &t2);
  cuzk_fp2_add(&d, &d, &s);
  cuzk_fp2_mul_by_xi(&d, &d);
  cuzk_fp2_mul(&s, &a->c0, &t0);
  cuzk_fp2_add(&d, &d, &s);
  cuzk_fp2_inv(&d, &d);

  cuzk_fp2_mul(&out->c0, &t0, &d);
  cuzk_fp2_mul(&out->c1, &t1, &d);
  cuzk_fp2_mul(&out->c2, &t2, &d);
}

/* (a0 + a1·v + a2·v^2)·v = xi·a2 + a0·v + a1·v^2 */
void cuzk_fp6_mul_by_v(cuzk_fp6_t *out, const cuzk_fp6_t *a) {
  cuzk_fp2_t t;
  cuzk_fp2_mul_by_xi(&t, &a->c2);
  out->c2 = a->c1;
  out->c1 = a->c0;
  out->c0 = t;
}

/* cuzk_fp6_mul with b2 = 0: five Fp2 products. */
void cuzk_fp6_mul_by_01(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp2_t *b0, const cuzk_fp2_t *b1) {
  cuzk_fp2_t t0, t1, s, u, c0, c1, c2;
  cuzk_fp2_mul(&t0, &a->c0, b0);
  cuzk_fp2_mul(&t1, &a->c1, b1);

  cuzk_fp2_add(&s, &a->c1, &a->c2);
  cuzk_fp2_mul(&s, &s, b1);
  cuzk_fp2_sub(&s, &s, &t1);
  cuzk_fp2_mul_by_xi(&s, &s);
  cuzk_fp2_add(&c0, &s, &t0);

  cuzk_fp2_add(&s, &a->c0, &a->c1);
  cuzk_fp2_add(&u, b0, b1);
  cuzk_fp2_mul(&s, &s, &u);
  cuzk_fp2_sub(&s, &s, &t0);
  cuzk_fp2_sub(&c1, &s, &t1);

  cuzk_fp2_add(&s, &a->c0, &a->c2);
  cuzk_fp2_mul(&s, &s, b0);
  cuzk_fp2_sub(&s, &s, &t0);
  cuzk_fp2_add(&c2, &s, &t1);

  out->c0 = c0;
  out->c1 = c1;
  out->c2 = c2;
}

/* a·(b1·v) = xi·a2·b1 + a0·b1·v + a1·b1·v^2 */
void cuzk_fp6_mul_by_1(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp2_t *b1) {
  cuzk_fp2_t c0, c1, c2;
  cuzk_fp2_mul(&c0, &a->c2, b1);
  cuzk_fp2_mul_by_xi(&c0, &c0);
  cuzk_fp2_mul(&c1, &a->c0, b1);
  cuzk_fp2_mul(&c2, &a->c1, b1);
  out->c0 = c0;
  out->c1 = c1;
  out->c2 = c2;
}

/* (c0 + c1·v + c2·v^2)^(p^k) = c0^(p^k) + c1^(p^k)·xi^((p^k-1)/3)·v + c2^(p^k)·xi^(2(p^k-1)/3)·v^2 */
void cuzk_fp6_frobenius(cuzk_fp6_t *out, const cuzk_fp6_t *a, unsigned power) {
  unsigned k = power % 6;
  cuzk_fp2_frobenius(&out->c0, &a->c0, k);
  cuzk_fp2_frobenius(&out->c1, &a->c1, k);
  cuzk_fp2_frobenius(&out->c2, &a->c2, k);
  cuzk_fp2_mul(&out->c1, &out->c1, &cuzk__fp6_frob_c1[k]);
  cuzk_fp2_mul(&out->c2, &out->c2, &cuzk__fp6_frob_c2[k]);
}

bool cuzk_fp6_is_zero(const cuzk_fp6_t *a) {
  return cuzk_fp2_is_zero(&a->c0) & cuzk_fp2_is_zero(&a->c1) & cuzk_fp2_is_zero(&a->c2);
}

bool cuzk_fp6_eq(const cuzk_fp6_t *a, const cuzk_fp6_t *b) {
  return cuzk_fp2_eq(&a->c0, &b->c0) & cuzk_fp2_eq(&a->c1, &b->c1) & cuzk_fp2_eq(&a->c2, &b->c2);
}

cuzk_err_t cuzk_fp6_random(cuzk_fp6_t *out) {
  cuzk_err_t e = cuzk_fp2_random(&out->c0);
  if (e == CUZK_OK) e = cuzk_fp2_random(&out->c1);
  if (e == CUZK_OK) e = cuzk_fp2_random(&out->c2);
  return e;
}
