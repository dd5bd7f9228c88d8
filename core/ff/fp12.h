/* Fp12 = Fp6[w]/(w^2 - v): the pairing target field. Same conventions as fp.h. */
#ifndef CUZK_FF_FP12_H
#define CUZK_FF_FP12_H

#include "core/ff/fp6.h"

typedef struct {
  cuzk_fp6_t c0, c1; /* c0 + c1·w */
} cuzk_fp12_t;

extern const cuzk_fp12_t CUZK_FP12_ONE;

void cuzk_fp12_mul(cuzk_fp12_t *out, const cuzk_fp12_t *a, const cuzk_fp12_t *b);
void cuzk_fp12_sqr(cuzk_fp12_t *out, const cuzk_fp12_t *a);
void cuzk_fp12_inv(cuzk_fp12_t *out, const cuzk_fp12_t *a);
/* a^(p^6): the inverse on the cyclotomic subgroup */
void cuzk_fp12_conj(cuzk_fp12_t *out, const cuzk_fp12_t *a);
void cuzk_fp12_frobenius(cuzk_fp12_t *out, const cuzk_fp12_t *a, unsigned power);
/* Squaring valid only for elements of the cyclotomic subgroup (after the easy part of the
 * final exponentiation); Granger–Scott. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12_t *out, const cuzk_fp12_t *a);
/* a · (c0 + c1·v·... ) sparse line multiplication: b = (b0 + b1·v) + (b4·v)·w,
 * i.e. coefficients at positions 0, 1 and 4 in the 6-slot basis (1, v, v^2, w, vw, v^2w). */
void cuzk_fp12_mul_by_014(cuzk_fp12_t *out, const cuzk_fp12_t *a, const cuzk_fp2_t *b0,
                          const cuzk_fp2_t *b1, const cuzk_fp2_t *b4);
/* out = a^e, e as n little-endian limbs; variable time in e. */
void cuzk_fp12_pow(cuzk_fp12_t *out, const cuzk_fp12_t *a, const uint64_t *e, size_t n);
bool cuzk_fp12_eq(const cuzk_fp12_t *a, const cuzk_fp12_t *b);
bool cuzk_fp12_is_one(const cuzk_fp12_t *a);
cuzk_err_t cuzk_fp12_random(cuzk_fp12_t *out);
/* Canonical 576-byte encoding (c0.c0.c0 ... in the order noble/zcash use), for oracle tests:
 * each Fp big-endian, 12 coefficients. */
void cuzk_fp12_to_bytes(uint8_t out[576], const cuzk_fp12_t *a);

#endif
