/* The optimal ate pairing on BLS12-381: e: G1 × G2 → GT ⊂ Fp12^*.
 *
 * Miller loop over the BLS parameter x = -0xd201000000010000 with G2 in homogeneous projective
 * coordinates on the M-type twist; each line is the sparse Fp12 element c0 + (c1·xP)·v +
 * (c4·yP)·v·w. Final exponentiation to the power 3·(p^12 - 1)/r (the same normalisation as
 * blst, zkcrypto's bls12_381 and @noble/curves, so GT values compare byte for byte): easy part
 * (p^6 - 1)(p^2 + 1), then the hard part as (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3 with
 * cyclotomic squarings.
 *
 * Points at infinity pair to 1. Inputs are not subgroup-checked here: decode them with the
 * checked decoders of core/ec. All functions are variable time (inputs are public), allocate
 * nothing, and are thread-safe.
 */
#ifndef CUZK_PAIRING_PAIRING_H
#define CUZK_PAIRING_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ec/g1.h"
#include "core/ec/g2.h"
#include "core/ff/fp12.h"

/* 63 doubling steps and 5 addition steps (|x| has 64 bits, 6 of them set). */
#define CUZK_PAIRING_LINES 68

/* A G2 point with its Miller-loop line coefficients precomputed (about 19.6 KB): reuse it for
 * every pairing with the same Q (verifying keys). Plain data: copy or free as you like. */
typedef struct {
  cuzk_fp2_t coeffs[CUZK_PAIRING_LINES][3];
  bool infinity;
} cuzk_g2_prepared_t;

void cuzk_pairing_g2_prepare(cuzk_g2_prepared_t *out, const cuzk_g2_affine_t *q);

/* f = prod_i f_{x,Q_i}(P_i), the Miller loop of n pairs sharing one accumulator (no final
 * exponentiation). n may be 0 (f = 1). */
void cuzk_pairing_miller_loop(cuzk_fp12_t *out, const cuzk_g1_affine_t *p,
                              const cuzk_g2_prepared_t *q, size_t n);

/* out = f^(3·(p^12 - 1)/r). */
void cuzk_pairing_final_exp(cuzk_fp12_t *out, const cuzk_fp12_t *f);

/* out = e(P, Q). */
void cuzk_pairing(cuzk_fp12_t *out, const cuzk_g1_affine_t *p, const cuzk_g2_affine_t *q);

/* True when prod_i e(P_i, Q_i) == 1 (one shared final exponentiation). n may be 0 (true). */
bool cuzk_pairing_check(const cuzk_g1_affine_t *p, const cuzk_g2_affine_t *q, size_t n);
bool cuzk_pairing_check_prepared(const cuzk_g1_affine_t *p, const cuzk_g2_prepared_t *q, size_t n);

#endif
