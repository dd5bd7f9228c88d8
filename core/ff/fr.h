/* Fr: the BLS12-381 scalar field, r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfe
 * ffffffff00000001 (255 bits, 2-adicity 32, multiplicative generator 7).
 *
 * Montgomery form (R = 2^256) in four little-endian 64-bit limbs, always fully reduced.
 * Same conventions as fp.h. Thread-safe.
 */
#ifndef CUZK_FF_FR_H
#define CUZK_FF_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

#define CUZK_FR_LIMBS 4
#define CUZK_FR_BYTES 32
#define CUZK_FR_TWO_ADICITY 32

typedef struct {
  uint64_t l[CUZK_FR_LIMBS];
} cuzk_fr_t;

extern const cuzk_fr_t CUZK_FR_ZERO;
extern const cuzk_fr_t CUZK_FR_ONE;
extern const uint64_t CUZK_FR_MODULUS[CUZK_FR_LIMBS];

void cuzk_fr_add(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b);
void cuzk_fr_sub(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b);
void cuzk_fr_neg(cuzk_fr_t *out, const cuzk_fr_t *a);
void cuzk_fr_dbl(cuzk_fr_t *out, const cuzk_fr_t *a);
void cuzk_fr_mul(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b);
void cuzk_fr_sqr(cuzk_fr_t *out, const cuzk_fr_t *a);
void cuzk_fr_inv(cuzk_fr_t *out, const cuzk_fr_t *a);         /* constant time; inv(0) = 0 */
void cuzk_fr_inv_vartime(cuzk_fr_t *out, const cuzk_fr_t *a); /* public values only */
/* Inverts n elements in place with one inversion (Montgomery's trick); zeros stay zero.
 * `scratch` holds n elements. Variable time. */
void cuzk_fr_batch_inv(cuzk_fr_t *a, size_t n, cuzk_fr_t *scratch);
void cuzk_fr_pow(cuzk_fr_t *out, const cuzk_fr_t *a, const uint64_t *e, size_t n);
bool cuzk_fr_sqrt(cuzk_fr_t *out, const cuzk_fr_t *a);
int cuzk_fr_legendre(const cuzk_fr_t *a);

bool cuzk_fr_is_zero(const cuzk_fr_t *a);
bool cuzk_fr_is_one(const cuzk_fr_t *a);
bool cuzk_fr_eq(const cuzk_fr_t *a, const cuzk_fr_t *b);

void cuzk_fr_from_u64(cuzk_fr_t *out, uint64_t v);
void cuzk_fr_from_raw(cuzk_fr_t *out, const uint64_t raw[CUZK_FR_LIMBS]);
void cuzk_fr_to_raw(uint64_t raw[CUZK_FR_LIMBS], const cuzk_fr_t *a);
cuzk_err_t cuzk_fr_from_be(cuzk_fr_t *out, const uint8_t in[CUZK_FR_BYTES]);
cuzk_err_t cuzk_fr_from_le(cuzk_fr_t *out, const uint8_t in[CUZK_FR_BYTES]);
void cuzk_fr_to_be(uint8_t out[CUZK_FR_BYTES], const cuzk_fr_t *a);
void cuzk_fr_to_le(uint8_t out[CUZK_FR_BYTES], const cuzk_fr_t *a);
/* Reduces 64 little-endian bytes mod r (for hashing to a scalar and uniform random scalars). */
void cuzk_fr_from_le_wide(cuzk_fr_t *out, const uint8_t in[64]);
cuzk_err_t cuzk_fr_random(cuzk_fr_t *out); /* OpenSSL CSPRNG, uniform */

/* The multiplicative generator (7) and a primitive 2^log_n-th root of unity
 * (7^((r-1)/2^log_n)); asserts log_n <= 32. */
void cuzk_fr_generator(cuzk_fr_t *out);
void cuzk_fr_root_of_unity(cuzk_fr_t *out, unsigned log_n);

/* The portable (unsigned __int128) multiplication path; see cuzk_ff_force_portable in fp.h. */
void cuzk_fr_mul_portable(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b);
void cuzk_fr_sqr_portable(cuzk_fr_t *out, const cuzk_fr_t *a);

#endif
