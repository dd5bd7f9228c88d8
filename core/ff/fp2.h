/* Fp2 = Fp[u]/(u^2 + 1), and the sextic non-residue xi = u + 1 used by Fp6 and G2.
 * Encodings write c1 then c0 (zcash). Same conventions as fp.h. */
#ifndef CUZK_FF_FP2_H
#define CUZK_FF_FP2_H

#include "core/ff/fp.h"

typedef struct {
  cuzk_fp_t c0, c1; /* c0 + c1·u */
} cuzk_fp2_t;

extern const cuzk_fp2_t CUZK_FP2_ZERO;
extern const cuzk_fp2_t CUZK_FP2_ONE;

void cuzk_fp2_add(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b);
void cuzk_fp2_sub(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b);
void cuzk_fp2_neg(cuzk_fp2_t *out, const cuzk_fp2_t *a);
void cuzk_fp2_dbl(cuzk_fp2_t *out, const cuzk_fp2_t *a);
void cuzk_fp2_conj(cuzk_fp2_t *out, const cuzk_fp2_t *a);
void cuzk_fp2_mul(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b);
void cuzk_fp2_mul_fp(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp_t *b);
void cuzk_fp2_sqr(cuzk_fp2_t *out, const cuzk_fp2_t *a);
void cuzk_fp2_mul_by_xi(cuzk_fp2_t *out, const cuzk_fp2_t *a); /* a·(u + 1) */
void cuzk_fp2_inv(cuzk_fp2_t *out, const cuzk_fp2_t *a);       /* constant time, inv(0)=0 */
void cuzk_fp2_frobenius(cuzk_fp2_t *out, const cuzk_fp2_t *a, unsigned power); /* a^(p^power) */
/* A square root (for G2 decompression; variable time: public values only); false when a is
 * a non-residue. The root returned is either one; callers pick the sign they need. */
bool cuzk_fp2_sqrt(cuzk_fp2_t *out, const cuzk_fp2_t *a);
/* out = a^e, e as n little-endian limbs; variable time in e. */
void cuzk_fp2_pow(cuzk_fp2_t *out, const cuzk_fp2_t *a, const uint64_t *e, size_t n);
bool cuzk_fp2_is_zero(const cuzk_fp2_t *a);
bool cuzk_fp2_eq(const cuzk_fp2_t *a, const cuzk_fp2_t *b);
/* zcash ordering for compressed G2: compare c1 first, then c0 when c1 == 0. */
bool cuzk_fp2_is_lexi_largest(const cuzk_fp2_t *a);
cuzk_err_t cuzk_fp2_random(cuzk_fp2_t *out);

#endif
