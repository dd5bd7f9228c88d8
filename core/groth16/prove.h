/* The CPU Groth16 prover (bellperson conventions, DESIGN §5), split like the engine's backend:
 *
 *   cuzk_groth16_prove_start   a, b, c = SpMV(A, B, C; w) → H (coset NTTs) → the MSMs
 *                              H, L, A, B_G1, B_G2 (with the density bitmaps) → msm results;
 *   cuzk_groth16_prove_finish  the epilogue with r and s:
 *     A = α₁ + Σ wᵢAᵢ + r·δ₁,   B = β₂ + Σ wᵢBᵢ(G2) + s·δ₂,   B₁ = β₁ + Σ wᵢBᵢ(G1) + s·δ₁,
 *     C = Σ_aux wᵢLᵢ + Σ hⱼHⱼ + s·A + r·B₁ − r·s·δ₁.
 * A GPU backend that fills cuzk_groth16_msm_t the same way reproduces the CPU proof byte for
 * byte given the same r and s.
 *
 * Threads: callable from any thread; each call blocks until done and uses the worker threads.
 * Memory: prove_start allocates 3·n field elements (n = domain size) plus gathered scalars, all
 * freed before it returns. r and s are secrets: they only go through the constant-time
 * cuzk_g1_mul / cuzk_g2_mul.
 */
#ifndef CUZK_GROTH16_PROVE_H
#define CUZK_GROTH16_PROVE_H

#include <stdint.h>

#include "core/groth16/groth16.h"
#include "core/r1cs/r1cs.h"

/* The MSM results prove_start hands to prove_finish. Plain data. */
typedef struct {
  cuzk_g1_t h;    /* Σ hⱼ·Hⱼ, j < n-1 */
  cuzk_g1_t l;    /* Σ_aux wᵢ·Lᵢ */
  cuzk_g1_t a;    /* Σ wᵢ·Aᵢ over inputs and A-dense aux */
  cuzk_g1_t b_g1; /* Σ wᵢ·Bᵢ over B-dense inputs and aux */
  cuzk_g2_t b_g2;
} cuzk_groth16_msm_t;

/* Per-phase wall times in microseconds (0 for phases not run). */
typedef struct {
  uint64_t synth_us; /* witness generation (filled by callers that synthesize) */
  uint64_t spmv_us;  /* a, b, c = A·w, B·w, C·w */
  uint64_t ntt_us;   /* H: 3 iNTT + 3 coset NTT + division + coset iNTT */
  uint64_t msm_h_us, msm_l_us, msm_a_us, msm_b_g1_us, msm_b_g2_us;
  uint64_t epilogue_us; /* prove_finish */
  uint64_t total_us;    /* start + finish (not synth) */
} cuzk_groth16_timings_t;

/* Everything up to the MSM results for the witness (inputs[0] must be 1). CUZK_ERR_INVALID_ARG
 * for witness lengths that do not match r; CUZK_ERR_BAD_PARAMS when p does not fit r
 * (cuzk_groth16_params_match); CUZK_ERR_UNSATISFIED when the witness does not satisfy r (found
 * through H's top coefficient); CUZK_ERR_NOMEM. timings may be NULL. */
cuzk_err_t cuzk_groth16_prove_start(cuzk_groth16_msm_t *out, const cuzk_groth16_params_t *p,
                                    const cuzk_r1cs_t *r, const cuzk_fr_t *inputs,
                                    uint64_t n_inputs, const cuzk_fr_t *aux, uint64_t n_aux,
                                    cuzk_groth16_timings_t *timings, char *errstr,
                                    size_t errstr_size);

/* prove_start without the SpMV: a, b, c (n = domain size elements each) already hold A·w,
 * B·w, C·w laid out as cuzk_r1cs_spmv writes them (e.g. pinned buffers a synthesis worker
 * filled). They are clobbered (a ends up holding h's coefficients) and may be reused as soon as
 * this returns. CUZK_ERR_INVALID_ARG when n is not the circuit's domain size; otherwise as
 * prove_start. timings->spmv_us, if the caller measured it, is kept and counted in total_us. */
cuzk_err_t cuzk_groth16_prove_start_abc(cuzk_groth16_msm_t *out, const cuzk_groth16_params_t *p,
                                        const cuzk_r1cs_t *r, const cuzk_fr_t *inputs,
                                        uint64_t n_inputs, const cuzk_fr_t *aux, uint64_t n_aux,
                                        cuzk_fr_t *a, cuzk_fr_t *b, cuzk_fr_t *c, uint64_t n,
                                        cuzk_groth16_timings_t *timings, char *errstr,
                                        size_t errstr_size);

/* The epilogue with caller-chosen r and s (any values, including 0). */
void cuzk_groth16_prove_finish(cuzk_groth16_proof_t *proof, const cuzk_groth16_vk_t *vk,
                               const cuzk_groth16_msm_t *msm, const cuzk_fr_t *r,
                               const cuzk_fr_t *s, cuzk_groth16_timings_t *timings);

/* start + finish with r and s from OpenSSL's CSPRNG (rs == NULL) or from rs[0], rs[1]. */
cuzk_err_t cuzk_groth16_prove(cuzk_groth16_proof_t *proof, const cuzk_groth16_params_t *p,
                              const cuzk_r1cs_t *r, const cuzk_fr_t *inputs, uint64_t n_inputs,
                              const cuzk_fr_t *aux, uint64_t n_aux, const cuzk_fr_t rs[2],
                              cuzk_groth16_timings_t *timings, char *errstr, size_t errstr_size);

#endif
