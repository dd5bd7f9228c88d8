/* Internal to core/ff (and its tests): precomputed constants and the selection between the
 * portable and the x86-64 BMI2/ADX multiplication paths.
 *
 * The path flag is set once at load time from CPUID and changed afterwards only by
 * cuzk_ff_force_portable() (tests and benchmarks, while no other thread computes). */
#ifndef CUZK_FF_INTERNAL_H
#define CUZK_FF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ff/fp2.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CUZK__FF_HAVE_ADX_PATH 1
#else
#define CUZK__FF_HAVE_ADX_PATH 0
#endif

extern bool cuzk__ff_use_adx;

/* Constants (math in fp.c / fr.c next to their values); tests recompute them with GMP. */
#define CUZK__FP_NINV 0x89f3fffcfffcfffdULL /* -p^-1 mod 2^64 */
#define CUZK__FR_NINV 0xfffffffeffffffffULL /* -r^-1 mod 2^64 */
extern const uint64_t cuzk__fp_r2[6], cuzk__fp_r3[6], cuzk__fp_p_minus_2[6], cuzk__fp_p_plus_1_div_4[6],
    cuzk__fp_p_minus_1_div_2[6];
extern const uint64_t cuzk__fr_r2[4], cuzk__fr_r3[4], cuzk__fr_r_minus_2[4], cuzk__fr_r_minus_1_div_2[4],
    cuzk__fr_t_minus_1_div_2[4], cuzk__fr_generator[4], cuzk__fr_root_2_32[4];

/* Frobenius coefficients (Montgomery form), defined in fp6.c and fp12.c. */
extern const cuzk_fp2_t cuzk__fp6_frob_c1[6], cuzk__fp6_frob_c2[6], cuzk__fp12_frob_w[12];

#if CUZK__FF_HAVE_ADX_PATH
void cuzk__fp_mul_adx(uint64_t out[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk__fp_sqr_adx(uint64_t out[6], const uint64_t a[6]);
void cuzk__fr_mul_adx(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk__fr_sqr_adx(uint64_t out[4], const uint64_t a[4]);
#endif

#endif
