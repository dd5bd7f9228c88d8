/* G1: the prime-order subgroup of E(Fp): y^2 = x^3 + 4 over the BLS12-381 base field.
 *
 * Types: cuzk_g1_affine_t (x, y), where the point at infinity is (0, 0) (not on the curve, so
 * unambiguous), and cuzk_g1_t in Jacobian coordinates (x = X/Z^2, y = Y/Z^3), infinity when Z = 0.
 * Coordinates are Montgomery-form Fp elements (core/ff/fp.h).
 *
 * Conventions: blst style, output first; outputs may alias inputs unless a function says
 * otherwise; no allocation; thread-safe (no global state). Functions named *_vartime may leak
 * their inputs through timing: never pass them secret scalars. cuzk_g1_mul is constant time in
 * the scalar (fixed 4-bit windows, masked table lookups, branch-free complete addition).
 *
 * Encodings follow zcash/blst: big-endian x (and y), top-byte flags 0x80 compressed,
 * 0x40 infinity, 0x20 "y is lexicographically largest" (compressed only).
 */
#ifndef CUZK_EC_G1_H
#define CUZK_EC_G1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ff/fp.h"
#include "core/ff/fr.h"
#include "core/util/err.h"

#define CUZK_G1_COMPRESSED_BYTES 48
#define CUZK_G1_UNCOMPRESSED_BYTES 96

typedef struct {
  cuzk_fp_t x, y; /* (0, 0) is the point at infinity */
} cuzk_g1_affine_t;

typedef struct {
  cuzk_fp_t x, y, z; /* Jacobian; z == 0 is the point at infinity */
} cuzk_g1_t;

/* The standard generator (zcash/IETF). */
void cuzk_g1_generator(cuzk_g1_t *out);
void cuzk_g1_affine_generator(cuzk_g1_affine_t *out);

void cuzk_g1_set_infinity(cuzk_g1_t *out);
void cuzk_g1_affine_set_infinity(cuzk_g1_affine_t *out);
bool cuzk_g1_is_infinity(const cuzk_g1_t *p);
bool cuzk_g1_affine_is_infinity(const cuzk_g1_affine_t *p);

void cuzk_g1_from_affine(cuzk_g1_t *out, const cuzk_g1_affine_t *p);
/* One inversion (constant time). */
void cuzk_g1_to_affine(cuzk_g1_affine_t *out, const cuzk_g1_t *p);
/* Converts n points with a single inversion (Montgomery's trick); `out` must not overlap `in`.
 * Variable time in which points are at infinity. */
void cuzk_g1_batch_to_affine(cuzk_g1_affine_t *out, const cuzk_g1_t *in, size_t n);

/* Group law. add/add_affine/dbl are variable time in the exceptional cases (P == Q,
 * P == -Q, infinity) and so must not see secret-dependent points; cuzk_g1_mul uses its own
 * branch-free addition. */
void cuzk_g1_add(cuzk_g1_t *out, const cuzk_g1_t *a, const cuzk_g1_t *b);
void cuzk_g1_add_affine(cuzk_g1_t *out, const cuzk_g1_t *a, const cuzk_g1_affine_t *b);
void cuzk_g1_dbl(cuzk_g1_t *out, const cuzk_g1_t *a);
void cuzk_g1_neg(cuzk_g1_t *out, const cuzk_g1_t *a);
void cuzk_g1_affine_neg(cuzk_g1_affine_t *out, const cuzk_g1_affine_t *a);
void cuzk_g1_sub(cuzk_g1_t *out, const cuzk_g1_t *a, const cuzk_g1_t *b);
bool cuzk_g1_eq(const cuzk_g1_t *a, const cuzk_g1_t *b);
bool cuzk_g1_affine_eq(const cuzk_g1_affine_t *a, const cuzk_g1_affine_t *b);

/* out = [k]P, constant time in k (for secrets such as the Groth16 r and s). */
void cuzk_g1_mul(cuzk_g1_t *out, const cuzk_g1_t *p, const cuzk_fr_t *k);
/* out = [k]P for a public scalar (width-5 wNAF). */
void cuzk_g1_mul_vartime(cuzk_g1_t *out, const cuzk_g1_t *p, const cuzk_fr_t *k);
/* out = [e]P for a public plain integer e of n little-endian 64-bit limbs (not reduced mod r). */
void cuzk_g1_mul_u64_vartime(cuzk_g1_t *out, const cuzk_g1_t *p, const uint64_t *e, size_t n);

/* True when the point satisfies the curve equation; infinity counts as on the curve. */
bool cuzk_g1_affine_is_on_curve(const cuzk_g1_affine_t *p);
bool cuzk_g1_is_on_curve(const cuzk_g1_t *p);
/* True when the (on-curve) point lies in the order-r subgroup: [r]P == O. */
bool cuzk_g1_affine_in_subgroup(const cuzk_g1_affine_t *p);
bool cuzk_g1_in_subgroup(const cuzk_g1_t *p);

void cuzk_g1_to_compressed(uint8_t out[CUZK_G1_COMPRESSED_BYTES], const cuzk_g1_affine_t *p);
void cuzk_g1_to_uncompressed(uint8_t out[CUZK_G1_UNCOMPRESSED_BYTES], const cuzk_g1_affine_t *p);
/* Decoders. Errors: CUZK_ERR_BAD_FLAGS (compression flag disagrees with the length, sort flag
 * on an uncompressed or infinity encoding, infinity with other bits set), CUZK_ERR_NON_CANONICAL
 * (a coordinate >= p), CUZK_ERR_NOT_ON_CURVE (no such point), CUZK_ERR_NOT_IN_SUBGROUP. On error
 * *out is left unspecified. The _unchecked variants skip only the subgroup check (trusted bulk
 * loads; the caller checks later). */
cuzk_err_t cuzk_g1_from_compressed(cuzk_g1_affine_t *out, const uint8_t in[CUZK_G1_COMPRESSED_BYTES]);
cuzk_err_t cuzk_g1_from_uncompressed(cuzk_g1_affine_t *out,
                                     const uint8_t in[CUZK_G1_UNCOMPRESSED_BYTES]);
cuzk_err_t cuzk_g1_from_compressed_unchecked(cuzk_g1_affine_t *out,
                                             const uint8_t in[CUZK_G1_COMPRESSED_BYTES]);
cuzk_err_t cuzk_g1_from_uncompressed_unchecked(cuzk_g1_affine_t *out,
                                               const uint8_t in[CUZK_G1_UNCOMPRESSED_BYTES]);

#endif
