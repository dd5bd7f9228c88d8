/* Internal: inline Fp and Fp2 additive operations for the tower code (fp2.c, fp6.c, fp12.c),
 * where call overhead dominates these few-instruction functions. Same semantics as the
 * public cuzk_fp_* / cuzk_fp2_* functions. Not a public header. */
#ifndef CUZK_FF_INLINE_H
#define CUZK_FF_INLINE_H

#include "core/ff/ff_internal.h"
#include "core/ff/fp2.h"
#include "core/ff/mont.h"

/* cuzk_fp_mul without the extra call level: straight to the selected product. */
CUZK__INLINE void cuzk__fp_mul_i(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b) {
#if CUZK__FF_HAVE_ADX_PATH
  if (cuzk__ff_use_adx) {
    cuzk__fp_mul_adx(out->l, a->l, b->l);
    return;
  }
#endif
  cuzk_fp_mul_portable(out, a, b);
}

CUZK__INLINE void cuzk__fp_add_i(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b) {
  cuzk__mont_add(out->l, a->l, b->l, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
}
CUZK__INLINE void cuzk__fp_sub_i(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b) {
  cuzk__mont_sub(out->l, a->l, b->l, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
}
CUZK__INLINE void cuzk__fp_neg_i(cuzk_fp_t *out, const cuzk_fp_t *a) {
  cuzk__mont_neg(out->l, a->l, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
}

CUZK__INLINE void cuzk__fp2_add_i(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b) {
  cuzk__fp_add_i(&out->c0, &a->c0, &b->c0);
  cuzk__fp_add_i(&out->c1, &a->c1, &b->c1);
}
CUZK__INLINE void cuzk__fp2_sub_i(cuzk_fp2_t *out, const cuzk_fp2_t *a, const cuzk_fp2_t *b) {
  cuzk__fp_sub_i(&out->c0, &a->c0, &b->c0);
  cuzk__fp_sub_i(&out->c1, &a->c1, &b->c1);
}
CUZK__INLINE void cuzk__fp2_dbl_i(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk__fp_add_i(&out->c0, &a->c0, &a->c0);
  cuzk__fp_add_i(&out->c1, &a->c1, &a->c1);
}
CUZK__INLINE void cuzk__fp2_neg_i(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk__fp_neg_i(&out->c0, &a->c0);
  cuzk__fp_neg_i(&out->c1, &a->c1);
}
/* a·(u + 1) = (a0 - a1) + (a0 + a1)·u */
CUZK__INLINE void cuzk__fp2_mul_by_xi_i(cuzk_fp2_t *out, const cuzk_fp2_t *a) {
  cuzk_fp_t t;
  cuzk__fp_sub_i(&t, &a->c0, &a->c1);
  cuzk__fp_add_i(&out->c1, &a->c0, &a->c1);
  out->c0 = t;
}

#endif
