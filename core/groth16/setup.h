/* Groth16 test setup from known toxic waste (INSECURE: whoever knows the toxic waste can forge
 * proofs; parameters made here are marked insecure, see groth16.h).
 *
 * The QAP is evaluated at τ through the Lagrange basis of the domain (n = 2^k >= rows):
 * L_j(τ) = (τ^n - 1)/n · ω^j/(τ - ω^j); u_i(τ) = Σ_rows A[row][i]·L_row(τ) (plus the input
 * rows: input i has A coefficient 1 in row m + i), v_i from B, w_i from C. Then
 *   IC_i = (β·u_i + α·v_i + w_i)/γ (inputs),  L_j = (β·u_j + α·v_j + w_j)/δ (aux),
 *   H_j = τ^j·(τ^n - 1)/δ for j in 0..n-2,    A_i = u_i·G1, B_i = v_i·G1 and v_i·G2 (density).
 * Every phase runs on the global pool (core/util/pool.h): the Lagrange basis and the powers of τ
 * in blocks, the QAP sums by scattering matrix entries into column blocks that one task each
 * sums, the density gathers by per-block popcounts. Scalar multiplications use one fixed-base
 * table per generator whose window width c (up to 16 bits) minimises ⌈255/c⌉·(points + 4·2^c);
 * each task adds up a chunk of points in affine coordinates with one shared inversion per window
 * (Montgomery's trick). The output does not depend on the window width, the chunk size or the
 * number of threads (the points are unique affine values; tests/unit/test_setup.c pins the
 * bytes). Peak memory at domain n with V variables ≈ 32·(3V + 2n) bytes of scalars, 12 bytes per
 * nonzero matrix entry (transiently), the parameters themselves, and the tables (≤ 96 MiB G1,
 * ≤ 192 MiB G2). Variable time: never use for real ceremonies.
 *
 * Threads: callable from any thread (also from a pool task); blocks until done.
 */
#ifndef CUZK_GROTH16_SETUP_H
#define CUZK_GROTH16_SETUP_H

#include <stdint.h>

#include "core/groth16/groth16.h"
#include "core/r1cs/r1cs.h"

typedef struct {
  cuzk_fr_t tau, alpha, beta, gamma, delta;
} cuzk_groth16_toxic_t;

/* Fresh toxic waste from OpenSSL's CSPRNG (all nonzero). CUZK_ERR_INTERNAL if RAND fails. */
cuzk_err_t cuzk_groth16_toxic_random(cuzk_groth16_toxic_t *t);
/* Reproducible toxic waste: each value is SHA-512("cuzk-insecure-setup" ‖ seed (u64 LE) ‖ name)
 * reduced mod r (replaced by 1 in the negligible case it is 0). */
void cuzk_groth16_toxic_from_seed(cuzk_groth16_toxic_t *t, uint64_t seed);

/* Parameters for `r` from `t`, marked insecure. CUZK_ERR_BAD_PARAMS when τ lies in the domain
 * or a point bellperson forbids to be infinity would be (an unconstrained aux variable, a zero
 * IC), CUZK_ERR_NOMEM, CUZK_ERR_TOO_LARGE (domain over 2^32 or vectors over 2^32 - 1 points).
 * The caller frees *out with cuzk_groth16_params_free. */
cuzk_err_t cuzk_groth16_setup(cuzk_groth16_params_t **out, const cuzk_r1cs_t *r,
                              const cuzk_groth16_toxic_t *t, char *errstr, size_t errstr_size);

/* Fixed-base multiplication, exposed for tests and other setups: out[i] = scalars[i]·P. */
cuzk_err_t cuzk_g1_fixed_base_batch(cuzk_g1_affine_t *out, const cuzk_g1_t *p,
                                    const cuzk_fr_t *scalars, size_t n);
cuzk_err_t cuzk_g2_fixed_base_batch(cuzk_g2_affine_t *out, const cuzk_g2_t *p,
                                    const cuzk_fr_t *scalars, size_t n);

/* Tests only: for every later setup in the process, force the fixed-base window width (2..16
 * bits), the points per fixed-base task, and 2^block_log (6..30) as every block size of the
 * scalar phases (elements, rows, columns per task); 0 = automatic for each. */
void cuzk__setup_force(unsigned window_bits, unsigned chunk, unsigned block_log);

#endif
