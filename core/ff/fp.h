/* Fp: the BLS12-381 base field, p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf
 * 6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab (381 bits).
 *
 * Elements are kept in Montgomery form (a·R mod p, R = 2^384) in six little-endian 64-bit limbs
 * and are always fully reduced (< p). blst-style API: output first, inputs const, outputs may
 * alias inputs, no allocation. Functions marked "vartime" may leak their input through timing:
 * never give them secrets. Thread-safe (no global state besides constants).
 */
#ifndef CUZK_FF_FP_H
#define CUZK_FF_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

#define CUZK_FP_LIMBS 6
#define CUZK_FP_BYTES 48

typedef struct {
  uint64_t l[CUZK_FP_LIMBS];
} cuzk_fp_t;

extern const cuzk_fp_t CUZK_FP_ZERO;
extern const cuzk_fp_t CUZK_FP_ONE;     /* R mod p */
extern const uint64_t CUZK_FP_MODULUS[CUZK_FP_LIMBS];

void cuzk_fp_add(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b);
void cuzk_fp_sub(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b);
void cuzk_fp_neg(cuzk_fp_t *out, const cuzk_fp_t *a);
void cuzk_fp_dbl(cuzk_fp_t *out, const cuzk_fp_t *a);
void cuzk_fp_mul(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b);
void cuzk_fp_sqr(cuzk_fp_t *out, const cuzk_fp_t *a);
/* out = a^-1, constant time; inverse of 0 is 0. */
void cuzk_fp_inv(cuzk_fp_t *out, const cuzk_fp_t *a);
/* out = a^-1, variable time (public values only); inverse of 0 is 0. */
void cuzk_fp_inv_vartime(cuzk_fp_t *out, const cuzk_fp_t *a);
/* out = a^e, e given as n little-endian 64-bit limbs (plain integer, not Montgomery). */
void cuzk_fp_pow(cuzk_fp_t *out, const cuzk_fp_t *a, const uint64_t *e, size_t n);
/* out = a square root of a; returns false (out unspecified) when a is a non-residue. */
bool cuzk_fp_sqrt(cuzk_fp_t *out, const cuzk_fp_t *a);
/* Legendre symbol: 1 (nonzero square), -1 (non-residue), 0 (zero). */
int cuzk_fp_legendre(const cuzk_fp_t *a);

bool cuzk_fp_is_zero(const cuzk_fp_t *a);
bool cuzk_fp_is_one(const cuzk_fp_t *a);
bool cuzk_fp_eq(const cuzk_fp_t *a, const cuzk_fp_t *b);
/* True when the canonical value of a is > (p-1)/2 (zcash "lexicographically largest"). */
bool cuzk_fp_is_lexi_largest(const cuzk_fp_t *a);

void cuzk_fp_from_u64(cuzk_fp_t *out, uint64_t v);
/* Raw limbs (plain integer < p) <-> Montgomery. from_raw does not check the range. */
void cuzk_fp_from_raw(cuzk_fp_t *out, const uint64_t raw[CUZK_FP_LIMBS]);
void cuzk_fp_to_raw(uint64_t raw[CUZK_FP_LIMBS], const cuzk_fp_t *a);
/* Canonical 48-byte encodings; decoding rejects values >= p with CUZK_ERR_NON_CANONICAL. */
cuzk_err_t cuzk_fp_from_be(cuzk_fp_t *out, const uint8_t in[CUZK_FP_BYTES]);
cuzk_err_t cuzk_fp_from_le(cuzk_fp_t *out, const uint8_t in[CUZK_FP_BYTES]);
void cuzk_fp_to_be(uint8_t out[CUZK_FP_BYTES], const cuzk_fp_t *a);
void cuzk_fp_to_le(uint8_t out[CUZK_FP_BYTES], const cuzk_fp_t *a);
/* A uniformly random element from OpenSSL's CSPRNG; CUZK_ERR_INTERNAL if RAND_bytes fails. */
cuzk_err_t cuzk_fp_random(cuzk_fp_t *out);

/* Inverts n elements in place with one inversion (Montgomery's trick); zeros stay zero.
 * `scratch` holds n elements. Variable time. */
void cuzk_fp_batch_inv(cuzk_fp_t *a, size_t n, cuzk_fp_t *scratch);

/* The portable (unsigned __int128) multiplication path, whatever the CPU supports. */
void cuzk_fp_mul_portable(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b);
void cuzk_fp_sqr_portable(cuzk_fp_t *out, const cuzk_fp_t *a);

/* Fp and Fr multiply with mulx/adcx/adox when CPUID reports BMI2 and ADX (x86-64), else with
 * the portable code. cuzk_ff_force_portable(true) selects the portable path everywhere (for
 * tests and benchmarks; call it only while no other thread does field arithmetic);
 * cuzk_ff_uses_adx() says which path is active. */
void cuzk_ff_force_portable(bool on);
bool cuzk_ff_uses_adx(void);

#endif
