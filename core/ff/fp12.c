#include "core/ff/fp12.h"

#include <assert.h>

#include "core/ff/ff_internal.h"

/* 1: c0.c0.c0 is R mod p, R = 2^384 */
const cuzk_fp12_t CUZK_FP12_ONE = {{{{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                                      0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                                    {{0}}},
                                   {{{0}}, {{0}}},
                                   {{{0}}, {{0}}}},
                                  {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

/* xi^((p^k - 1)/6)·R, k = 0..11: w^(p^k) = xi^((p^k - 1)/6)·w, since w^6 = xi */
const cuzk_fp2_t cuzk__fp12_frob_w[12] = {
    /* k = 0 */
    {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 1 */
    {{{0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f, 0xa35baecab2dc29ee, 0x1ce393ea5daace4d, 0x08f2220fb0fb66eb}},
     {{0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394, 0xc11b9cba40a8e8d0, 0x2e3813cbe5a0de89, 0x110eefda88847faf}}},
    /* k = 2 */
    {{{0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e, 0xd5c13cc6f1ca4721, 0x47222a47bf7b5c04, 0x0110f184e51c5f59}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 3 */
    {{{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}},
     {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}}},
    /* k = 4 */
    {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 5 */
    {{{0x3726c30af242c66c, 0x7c2ac1aad1b6fe70, 0xa04007fbba4b14a2, 0xef517c3266341429, 0x0095ba654ed2226b, 0x02e370eccc86f7dd}},
     {{0x82d83cf50dbce43f, 0xa2813e53df9d018f, 0xc6f0caa53c65e181, 0x7525cf528d50fe95, 0x4a85ed50f4798a6b, 0x171da0fd6cf8eebd}}},
    /* k = 6 */
    {{{0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, 0xeca8f3318332bb7a, 0xef148d1ea0f4c069, 0x040ab3263eff0206}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 7 */
    {{{0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394, 0xc11b9cba40a8e8d0, 0x2e3813cbe5a0de89, 0x110eefda88847faf}},
     {{0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f, 0xa35baecab2dc29ee, 0x1ce393ea5daace4d, 0x08f2220fb0fb66eb}}},
    /* k = 8 */
    {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2, 0x18f0206554638741}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 9 */
    {{{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}},
     {{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}}},
    /* k = 10 */
    {{{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}}},
    /* k = 11 */
    {{{0x82d83cf50dbce43f, 0xa2813e53df9d018f, 0xc6f0caa53c65e181, 0x7525cf528d50fe95, 0x4a85ed50f4798a6b, 0x171da0fd6cf8eebd}},
     {{0x3726c30af242c66c, 0x7c2ac1aad1b6fe70, 0xa04007fbba4b14a2, 0xef517c3266341429, 0x0095ba654ed2226b, 0x02e370eccc86f7dd}}},
};

/* Karatsuba over w^2 = v: c0 = a0·b0 + v·a1·b1, c1 = (a0 + a1)(b0 + b1) - a0·b0 - a1·b1 */
void cuzk_fp12_mul(cuzk_fp12_t *out, const cuzk_fp12_t *a, const cuzk_fp12_t *b) {
  cuzk_fp6_t t0, t1, s, u;
  cuzk_fp6_mul(&t0, &a->c0, &b->c0);
  cuzk_fp6_mul(&t1, &a->c1, &b->c1);
  cuzk_fp6_add(&s, &a->c0, &a->c1);
  cuzk_fp6_add(&u, &b->c0, &b->c1);
  cuzk_fp6_mul(&s, &s, &u);
  cuzk_fp6_sub(&s, &s, &t0);
  cuzk_fp6_sub(&out->c1, &s, &t1);
  cuzk_fp6_mul_by_v(&t1, &t1);
  cuzk_fp6_add(&out->c0, &t0, &t1);
}

/* Complex squaring: with m = a0·a1, c0 = (a0 + a1)(a0 + v·a1) - m - v·m, c1 = 2m */
void cuzk_fp12_sqr(cuzk_fp12_t *out, const cuzk_fp12_t *a) {
  cuzk_fp6_t m, s, t;
  cuzk_fp6_mul(&m, &a->c0, &a->c1);
  cuzk_fp6_add(&s, &a->c0, &a->c1);
  cuzk_fp6_mul_by_v(&t, &a->c1);
  cuzk_fp6_add(&t, &t, &a->c0);
  cuzk_fp6_mul(&s, &s, &t);
  cuzk_fp6_sub(&s, &s, &m);
  cuzk_fp6_mul_by_v(&t, &m);
  cuzk_fp6_sub(&out->c0, &s, &t);
  cuzk_fp6_add(&out->c1, &m, &m);
}

/* 1/(a0 + a1·w) = (a0 - a1·w)/(a0^2 - v·a1^2) */
void cuzk_fp12_inv(cuzk_fp12_t *out, const cuzk_fp12_t *a) {
  cuzk_fp6_t d, t;
  cuzk_fp6_sqr(&d, &a->c0);
  cuzk_fp6_sqr(&t, &a->c1);
  cuzk_fp6_mul_by_v(&t, &t);
  cuzk_fp6_sub(&d, &d, &t);
  cuzk_fp6_inv(&d, &d);
  cuzk_fp6_mul(&out->c0, &a->c0, &d);
  cuzk_fp6_mul(&t, &a->c1, &d);
  cuzk_fp6_neg(&out->c1, &t);
}

void cuzk_fp12_conj(cuzk_fp12_t *out, const cuzk_fp12_t *a) {
  out->c0 = a->c0;
  cuzk_fp6_neg(&out->c1, &a->c1);
}

/* (c0 + c1·w)^(p^k) = c0^(p^k) + c1^(p^k)·xi^((p^k-1)/6)·w */
void cuzk_fp12_frobenius(cuzk_fp12_t *out, const cuzk_fp12_t *a, unsigned power) {
  unsigned k = power % 12;
  cuzk_fp6_frobenius(&out->c0, &a->c0, k);
  cuzk_fp6_frobenius(&out->c1, &a->c1, k);
  cuzk_fp2_mul(&out->c1.c0, &out->c1.c0, &cuzk__fp12_frob_w[k]);
  cuzk_fp2_mul(&out->c1.c1, &out->c1.c1, &cuzk__fp12_frob_w[k]);
  cuzk_fp2_mul(&out->c1.c2, &out->c1.c2, &cuzk__fp12_frob_w[k]);
}

/* (x + y·s)^2 in Fp4 = Fp2[s]/(s^2 - xi): x^2 + xi·y^2 + ((x + y)^2 - x^2 - y^2)·s */
static void fp4_sqr(cuzk_fp2_t *rx, cuzk_fp2_t *ry, const cuzk_fp2_t *x, const cuzk_fp2_t *y) {
  cuzk_fp2_t x2, y2, t;
  cuzk_fp2_sqr(&x2, x);
  cuzk_fp2_sqr(&y2, y);
  cuzk_fp2_add(&t, x, y);
  cuzk_fp2_sqr(&t, &t);
  cuzk_fp2_sub(&t, &t, &x2);
  cuzk_fp2_sub(ry, &t, &y2);
  cuzk_fp2_mul_by_xi(&t, &y2);
  cuzk_fp2_add(rx, &x2, &t);
}

/* 3·t - 2·z (sign = -1) or 3·t + 2·z (sign = +1) */
static void gs_combine(cuzk_fp2_t *out, const cuzk_fp2_t *t, const cuzk_fp2_t *z, int sign) {
  cuzk_fp2_t r;
  if (sign < 0)
    cuzk_fp2_sub(&r, t, z);
  else
    cuzk_fp2_add(&r, t, z);
  cuzk_fp2_dbl(&r, &r);
  cuzk_fp2_add(out, &r, t);
}

/* Granger–Scott 2010. With s = w^3 (s^2 = xi), Fp12 = Fp4[w]/(w^3 - s) and
 * f = A + B·w + C·w^2, A = (c0.c0, c1.c1), B = (c1.c0, c0.c2), C = (c0.c1, c1.c2) over (1, s).
 * On the cyclotomic subgroup f^2 = (3A^2 - 2·conj(A)) + (3s·C^2 + 2·conj(B))·w
 * + (3B^2 - 2·conj(C))·w^2, conj negating the s coefficient. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12_t *out, const cuzk_fp12_t *a) {
  cuzk_fp2_t ax, ay, bx, by, cx, cy, t;
  fp4_sqr(&ax, &ay, &a->c0.c0, &a->c1.c1);
  fp4_sqr(&bx, &by, &a->c1.c0, &a->c0.c2);
  fp4_sqr(&cx, &cy, &a->c0.c1, &a->c1.c2);
  cuzk_fp12_t r;
  gs_combine(&r.c0.c0, &ax, &a->c0.c0, -1);
  gs_combine(&r.c1.c1, &ay, &a->c1.c1, +1);
  gs_combine(&r.c0.c1, &bx, &a->c0.c1, -1);
  gs_combine(&r.c1.c2, &by, &a->c1.c2, +1);
  cuzk_fp2_mul_by_xi(&t, &cy);
  gs_combine(&r.c1.c0, &t, &a->c1.c0, +1);
  gs_combine(&r.c0.c2, &cx, &a->c0.c2, -1);
  *out = r;
}

/* b = (b0 + b1·v) + (b4·v)·w: aa = a0·(b0 + b1·v), bb = a1·(b4·v),
 * c1 = (a0 + a1)(b0 + (b1 + b4)·v) - aa - bb, c0 = aa + v·bb. */
void cuzk_fp12_mul_by_014(cuzk_fp12_t *out, const cuzk_fp12_t *a, const cuzk_fp2_t *b0,
                          const cuzk_fp2_t *b1, const cuzk_fp2_t *b4) {
  cuzk_fp6_t aa, bb, s;
  cuzk_fp2_t o;
  cuzk_fp6_mul_by_01(&aa, &a->c0, b0, b1);
  cuzk_fp6_mul_by_1(&bb, &a->c1, b4);
  cuzk_fp2_add(&o, b1, b4);
  cuzk_fp6_add(&s, &a->c0, &a->c1);
  cuzk_fp6_mul_by_01(&s, &s, b0, &o);
  cuzk_fp6_sub(&s, &s, &aa);
  cuzk_fp6_sub(&out->c1, &s, &bb);
  cuzk_fp6_mul_by_v(&bb, &bb);
  cuzk_fp6_add(&out->c0, &aa, &bb);
}

void cuzk_fp12_pow(cuzk_fp12_t *out, const cuzk_fp12_t *a, const uint64_t *e, size_t n) {
  assert(e != NULL || n == 0);
  cuzk_fp12_t base = *a, acc = CUZK_FP12_ONE;
  size_t top = n;
  while (top > 0 && e[top - 1] == 0) top--;
  for (size_t i = top; i-- > 0;)
    for (int b = 63; b >= 0; b--) {
      cuzk_fp12_sqr(&acc, &acc);
      if ((e[i] >> b) & 1) cuzk_fp12_mul(&acc, &acc, &base);
    }
  *out = acc;
}

bool cuzk_fp12_eq(const cuzk_fp12_t *a, const cuzk_fp12_t *b) {
  return cuzk_fp6_eq(&a->c0, &b->c0) & cuzk_fp6_eq(&a->c1, &b->c1);
}

bool cuzk_fp12_is_one(const cuzk_fp12_t *a) { return cuzk_fp12_eq(a, &CUZK_FP12_ONE); }

cuzk_err_t cuzk_fp12_random(cuzk_fp12_t *out) {
  cuzk_err_t e = cuzk_fp6_random(&out->c0);
  return e != CUZK_OK ? e : cuzk_fp6_random(&out->c1);
}

void cuzk_fp12_to_bytes(uint8_t out[576], const cuzk_fp12_t *a) {
  const cuzk_fp6_t *h[2] = {&a->c0, &a->c1};
  for (int i = 0; i < 2; i++) {
    const cuzk_fp2_t *q[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
    for (int j = 0; j < 3; j++) {
      cuzk_fp_to_be(out + (size_t)(i * 6 + j * 2) * CUZK_FP_BYTES, &q[j]->c0);
      cuzk_fp_to_be(out + (size_t)(i * 6 + j * 2 + 1) * CUZK_FP_BYTES, &q[j]->c1);
    }
  }
}
