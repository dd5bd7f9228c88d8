/* Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1. Same conventions as fp.h. */
#ifndef CUZK_FF_FP6_H
#define CUZK_FF_FP6_H

#include "core/ff/fp2.h"

typedef struct {
  cuzk_fp2_t c0, c1, c2; /* c0 + c1·v + c2·v^2 */
} cuzk_fp6_t;

extern const cuzk_fp6_t CUZK_FP6_ZERO;
extern const cuzk_fp6_t CUZK_FP6_ONE;

void cuzk_fp6_add(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp6_t *b);
void cuzk_fp6_sub(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp6_t *b);
void cuzk_fp6_neg(cuzk_fp6_t *out, const cuzk_fp6_t *a);
void cuzk_fp6_mul(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp6_t *b);
void cuzk_fp6_sqr(cuzk_fp6_t *out, const cuzk_fp6_t *a);
void cuzk_fp6_inv(cuzk_fp6_t *out, const cuzk_fp6_t *a);
void cuzk_fp6_mul_by_v(cuzk_fp6_t *out, const cuzk_fp6_t *a); /* a·v */
/* Sparse products used by the Miller loop: b = b0 + b1·v (mul_by_01), b = b1·v (mul_by_1). */
void cuzk_fp6_mul_by_01(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp2_t *b0,
                        const cuzk_fp2_t *b1);
void cuzk_fp6_mul_by_1(cuzk_fp6_t *out, const cuzk_fp6_t *a, const cuzk_fp2_t *b1);
void cuzk_fp6_frobenius(cuzk_fp6_t *out, const cuzk_fp6_t *a, unsigned power);
bool cuzk_fp6_is_zero(const cuzk_fp6_t *a);
bool cuzk_fp6_eq(const cuzk_fp6_t *a, const cuzk_fp6_t *b);
cuzk_err_t cuzk_fp6_random(cuzk_fp6_t *out);

#endif
