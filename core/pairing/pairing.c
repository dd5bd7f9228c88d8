#include "core/pairing/pairing.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

/* |x| = 0xd201000000010000; x itself is negative. */
#define BLS_X_ABS 0xd201000000010000ULL

/* b' = 4(u + 1): 3b' = 12(u + 1) and 9b' = 36(u + 1). */
static void mul_by_3b(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp2_t t, x4;
  cuzk_fp2_mul_by_xi(&t, a);
  cuzk_fp2_dbl(&x4, &t);
  cuzk_fp2_dbl(&x4, &x4); /* 4ξa */
  cuzk_fp2_dbl(&t, &x4);
  cuzk_fp2_add(out, &t, &x4); /* 12ξa */
}

/* Doubling step on T = (X : Y : Z) (homogeneous, on the twist y^2 = x^3 + b'). The tangent
 * line scaled by 2YZ (an Fp2 factor, killed by the final exponentiation) evaluates at P to
 * (Y^2 - 3b'Z^2) + (-3X^2·xP)·v + (2YZ·yP)·vw. Point (scaled by 4):
 * X3 = 2XY(Y^2 - 9b'Z^2), Y3 = (Y^2 + 9b'Z^2)^2 - 108b'^2 Z^4, Z3 = 8Y^3 Z. */
static void dbl_step(cuzk_fp2_t coeff[3], cuzk_fp2_t *X, cuzk_fp2_t *Y, cuzk_fp2_t *Z) {
  cuzk_fp2_t xx, yy, zz, b3zz, b9zz, t, u;
  cuzk_fp2_sqr(&xx, X);
  cuzk_fp2_sqr(&yy, Y);
  cuzk_fp2_sqr(&zz, Z);
  mul_by_3b(&b3zz, &zz);
  cuzk_fp2_dbl(&b9zz, &b3zz);
  cuzk_fp2_add(&b9zz, &b9zz, &b3zz);
  /* line */
  cuzk_fp2_sub(&coeff[0], &yy, &b3zz);
  cuzk_fp2_dbl(&t, &xx);
  cuzk_fp2_add(&t, &t, &xx);
  cuzk_fp2_neg(&coeff[1], &t);
  cuzk_fp2_mul(&t, Y, Z);
  cuzk_fp2_dbl(&coeff[2], &t);
  /* point */
  cuzk_fp2_t x3, y3, z3;
  cuzk_fp2_mul(&t, X, Y);
  cuzk_fp2_dbl(&t, &t);
  cuzk_fp2_sub(&u, &yy, &b9zz);
  cuzk_fp2_mul(&x3, &t, &u);
  cuzk_fp2_add(&u, &yy, &b9zz);
  cuzk_fp2_sqr(&y3, &u);
  cuzk_fp2_sqr(&t, &b3zz); /* 9b'^2 Z^4 */
  cuzk_fp2_dbl(&u, &t);
  cuzk_fp2_dbl(&u, &u);
  cuzk_fp2_dbl(&t, &u);
  cuzk_fp2_add(&u, &u, &t); /* 12 · 9b'^2 Z^4 = 108b'^2 Z^4 */
  cuzk_fp2_sub(&y3, &y3, &u);
  cuzk_fp2_mul(&t, &yy, Y);
  cuzk_fp2_mul(&z3, &t, Z);
  cuzk_fp2_dbl(&z3, &z3);
  cuzk_fp2_dbl(&z3, &z3);
  cuzk_fp2_dbl(&z3, &z3);
  *X = x3;
  *Y = y3;
  *Z = z3;
}

/* Addition step T + Q, Q affine. With θ = Y - yQ·Z and L = X - xQ·Z the chord scaled by L
 * evaluates at P to (θ·xQ - L·yQ) + (-θ·xP)·v + (L·yP)·vw. Point: D = L^2, E = L·D,
 * F = Zθ^2, G = X·D, H = E + F - 2G; X3 = L·H, Y3 = θ(G - H) - E·Y, Z3 = Z·E. */
static void add_step(cuzk_fp2_t coeff[3], cuzk_fp2_t *X, cuzk_fp2_t *Y, cuzk_fp2_t *Z,
                     const cuzk_g2_affine_t *q) {
  cuzk_fp2_t th, l, t, u;
  cuzk_fp2_mul(&t, &q->y, Z);
  cuzk_fp2_sub(&th, Y, &t);
  cuzk_fp2_mul(&t, &q->x, Z);
  cuzk_fp2_sub(&l, X, &t);
  cuzk_fp2_mul(&t, &th, &q->x);
  cuzk_fp2_mul(&u, &l, &q->y);
  cuzk_fp2_sub(&coeff[0], &t, &u);
  cuzk_fp2_neg(&coeff[1], &th);
  coeff[2] = l;
  cuzk_fp2_t d, e, f, g, h;
  cuzk_fp2_sqr(&d, &l);
  cuzk_fp2_mul(&e, &l, &d);
  cuzk_fp2_sqr(&f, &th);
  cuzk_fp2_mul(&f, &f, Z);
  cuzk_fp2_mul(&g, X, &d);
  cuzk_fp2_add(&h, &e, &f);
  cuzk_fp2_sub(&h, &h, &g);
  cuzk_fp2_sub(&h, &h, &g);
  cuzk_fp2_t x3, y3, z3;
  cuzk_fp2_mul(&x3, &l, &h);
  cuzk_fp2_sub(&t, &g, &h);
  cuzk_fp2_mul(&y3, &th, &t);
  cuzk_fp2_mul(&t, &e, Y);
  cuzk_fp2_sub(&y3, &y3, &t);
  cuzk_fp2_mul(&z3, Z, &e);
  *X = x3;
  *Y = y3;
  *Z = z3;
}

void cuzk_pairing_g2_prepare(cuzk_g2_prepared_t *out, const cuzk_g2_affine_t *q) {
  assert(out && q);
  out->infinity = cuzk_g2_affine_is_infinity(q);
  if (out->infinity) return;
  cuzk_fp2_t X = q->x, Y = q->y, Z = CUZK_FP2_ONE;
  unsigned k = 0;
  for (int i = 62; i >= 0; i--) {
    dbl_step(out->coeffs[k++], &X, &Y, &Z);
    if ((BLS_X_ABS >> i) & 1) add_step(out->coeffs[k++], &X, &Y, &Z, q);
  }
  assert(k == CUZK_PAIRING_LINES);
}

static void mul_line(cuzk_fp12_t *f, const cuzk_fp2_t coeff[3], const cuzk_g1_affine_t *p) {
  cuzk_fp2_t b1, b4;
  cuzk_fp2_mul_fp(&b1, &coeff[1], &p->x);
  cuzk_fp2_mul_fp(&b4, &coeff[2], &p->y);
  cuzk_fp12_mul_by_014(f, f, &coeff[0], &b1, &b4);
}

void cuzk_pairing_miller_loop(cuzk_fp12_t *out, const cuzk_g1_affine_t *p,
                              const cuzk_g2_prepared_t *q, size_t n) {
  assert(out && (n == 0 || (p && q)));
  cuzk_fp12_t f = CUZK_FP12_ONE;
  unsigned k = 0;
  for (int i = 62; i >= 0; i--) {
    if (i != 62) cuzk_fp12_sqr(&f, &f);
    for (size_t j = 0; j < n; j++)
      if (!q[j].infinity && !cuzk_g1_affine_is_infinity(&p[j])) mul_line(&f, q[j].coeffs[k], &p[j]);
    k++;
    if ((BLS_X_ABS >> i) & 1) {
      for (size_t j = 0; j < n; j++)
        if (!q[j].infinity && !cuzk_g1_affine_is_infinity(&p[j]))
          mul_line(&f, q[j].coeffs[k], &p[j]);
      k++;
    }
  }
  /* x < 0: f_{x,Q} = 1 / f_{|x|,Q} up to factors the final exponentiation removes, and on
   * the way there conjugation is the cheaper inverse. */
  cuzk_fp12_conj(out, &f);
}

/* out = g^x for g in the cyclotomic subgroup (x negative: conjugate g^|x|). */
static void cyclotomic_exp_x(cuzk_fp12_t *out, const cuzk_fp12_t *g) {
  cuzk_fp12_t acc = *g;
  for (int i = 62; i >= 0; i--) {
    cuzk_fp12_cyclotomic_sqr(&acc, &acc);
    if ((BLS_X_ABS >> i) & 1) cuzk_fp12_mul(&acc, &acc, g);
  }
  cuzk_fp12_conj(out, &acc);
}

void cuzk_pairing_final_exp(cuzk_fp12_t *out, const cuzk_fp12_t *f) {
  cuzk_fp12_t t, u, a, b, c;
  /* easy part: t = f^((p^6 - 1)(p^2 + 1)) */
  cuzk_fp12_inv(&u, f);
  cuzk_fp12_conj(&t, f);
  cuzk_fp12_mul(&t, &t, &u);
  cuzk_fp12_frobenius(&u, &t, 2);
  cuzk_fp12_mul(&t, &u, &t);
  /* hard part: t^((x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3) */
  cyclotomic_exp_x(&a, &t);
  cuzk_fp12_conj(&u, &t);
  cuzk_fp12_mul(&a, &a, &u); /* t^(x - 1) */
  cyclotomic_exp_x(&b, &a);
  cuzk_fp12_conj(&u, &a);
  cuzk_fp12_mul(&a, &b, &u); /* t^((x - 1)^2) */
  cyclotomic_exp_x(&b, &a);
  cuzk_fp12_frobenius(&u, &a, 1);
  cuzk_fp12_mul(&b, &b, &u); /* a^(x + p) */
  cyclotomic_exp_x(&c, &b);
  cyclotomic_exp_x(&c, &c);
  cuzk_fp12_frobenius(&u, &b, 2);
  cuzk_fp12_mul(&c, &c, &u);
  cuzk_fp12_conj(&u, &b);
  cuzk_fp12_mul(&c, &c, &u); /* b^(x^2 + p^2 - 1) */
  cuzk_fp12_cyclotomic_sqr(&u, &t);
  cuzk_fp12_mul(&u, &u, &t);
  cuzk_fp12_mul(out, &c, &u);
}

void cuzk_pairing(cuzk_fp12_t *out, const cuzk_g1_affine_t *p, const cuzk_g2_affine_t *q) {
  cuzk_g2_prepared_t prep;
  cuzk_pairing_g2_prepare(&prep, q);
  cuzk_fp12_t f;
  cuzk_pairing_miller_loop(&f, p, &prep, 1);
  cuzk_pairing_final_exp(out, &f);
}

bool cuzk_pairing_check_prepared(const cuzk_g1_affine_t *p, const cuzk_g2_prepared_t *q, size_t n) {
  cuzk_fp12_t f, e;
  cuzk_pairing_miller_loop(&f, p, q, n);
  cuzk_pairing_final_exp(&e, &f);
  return cuzk_fp12_is_one(&e);
}

bool cuzk_pairing_check(const cuzk_g1_affine_t *p, const cuzk_g2_affine_t *q, size_t n) {
  assert(n == 0 || (p && q));
  cuzk_fp12_t f = CUZK_FP12_ONE, e;
  cuzk_g2_prepared_t *prep =
      n > 1 && n <= SIZE_MAX / sizeof *prep ? malloc(n * sizeof *prep) : NULL;
  if (prep) {
    for (size_t i = 0; i < n; i++) cuzk_pairing_g2_prepare(&prep[i], &q[i]);
    cuzk_pairing_miller_loop(&f, p, prep, n);
    free(prep);
  } else {
    /* one pair at a time (n <= 1, or no memory for all the prepared points) */
    cuzk_g2_prepared_t one;
    for (size_t i = 0; i < n; i++) {
      cuzk_fp12_t fi;
      cuzk_pairing_g2_prepare(&one, &q[i]);
      cuzk_pairing_miller_loop(&fi, &p[i], &one, 1);
      cuzk_fp12_mul(&f, &f, &fi);
    }
  }
  cuzk_pairing_final_exp(&e, &f);
  return cuzk_fp12_is_one(&e);
}
