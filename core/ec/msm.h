/* Multi-scalar multiplication on the CPU: out = sum_i scalars[i]·bases[i] over G1 or G2.
 *
 * Pippenger's bucket method with signed (Booth) window digits: each c-bit window of a scalar
 * becomes a digit in [-2^(c-1), 2^(c-1)], so only 2^(c-1) buckets per window are needed and a
 * negative digit adds the negated base. c is chosen from n by a cost model (capped at 16).
 * Work is split into (window, point range) tasks run on the worker threads; each task owns its
 * buckets. Bases are affine with (0, 0) for infinity (allowed, as are zero scalars and repeated
 * bases). Variable time: scalars are treated as public (Groth16's witness MSMs are a known
 * accepted leak of the CPU backend; r and s go through cuzk_g1_mul instead).
 *
 * Threads: callable from any thread, also from inside a pool task; blocks until done; runs its
 * tasks on cuzk_pool_global() (core/util/pool.h, sized by $CUZK_THREADS) and the calling thread.
 * Memory: allocates n·32 bytes of plain scalars plus per-task buckets, all freed before return;
 * CUZK_ERR_NOMEM if that fails (out is then untouched).
 */
#ifndef CUZK_EC_MSM_H
#define CUZK_EC_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "core/ec/g1.h"
#include "core/ec/g2.h"
#include "core/ff/fr.h"
#include "core/util/err.h"

/* Scalars in Fr (Montgomery form, as everywhere in core). n may be 0 (out = infinity). */
cuzk_err_t cuzk_g1_msm(cuzk_g1_t *out, const cuzk_g1_affine_t *bases, const cuzk_fr_t *scalars,
                       size_t n);
cuzk_err_t cuzk_g2_msm(cuzk_g2_t *out, const cuzk_g2_affine_t *bases, const cuzk_fr_t *scalars,
                       size_t n);

/* Scalars already as plain integers: 4 little-endian 64-bit limbs each, any value < 2^256. */
cuzk_err_t cuzk_g1_msm_raw(cuzk_g1_t *out, const cuzk_g1_affine_t *bases,
                           const uint64_t (*scalars)[4], size_t n);
cuzk_err_t cuzk_g2_msm_raw(cuzk_g2_t *out, const cuzk_g2_affine_t *bases,
                           const uint64_t (*scalars)[4], size_t n);

/* The window size the MSM uses for n points (exposed for tests and benchmarks). */
unsigned cuzk_msm_window_bits(size_t n);

#endif
