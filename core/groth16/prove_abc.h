/* prove_start from precomputed QAP evaluations: the engine's synthesis workers compute
 * a = A·w, b = B·w, c = C·w (cuzk_r1cs_spmv) straight into pooled host buffers, so the backend
 * starts at H. Same results as cuzk_groth16_prove_start (which does the SpMV itself) for the same
 * witness; prove_finish is shared.
 *
 * Threads: callable from any thread; blocks until done and uses the global worker pool.
 * Memory: gathers the A/B scalars into one temporary of (n_inputs + n_aux) elements, freed before
 * return; a, b and c are clobbered (used as NTT scratch).
 */
#ifndef CUZK_GROTH16_PROVE_ABC_H
#define CUZK_GROTH16_PROVE_ABC_H

#include <stdint.h>

#include "core/groth16/prove.h"
#include "core/poly/ntt.h"

typedef struct {
  cuzk_fr_t *a, *b, *c; /* n each, as written by cuzk_r1cs_spmv; clobbered */
  uint64_t n;           /* domain size */
  const cuzk_fr_t *inputs;
  uint64_t n_inputs;    /* inputs[0] must be 1 */
  const cuzk_fr_t *aux;
  uint64_t n_aux;
  const uint64_t *density_a_aux, *density_b_input, *density_b_aux; /* cuzk_r1cs_density */
} cuzk_groth16_abc_t;

/* H from a, b, c (on `dom`, whose size must be in->n; NULL: a domain is built and freed here),
 * then the H, L, A, B_G1 and B_G2 MSMs. Errors: CUZK_ERR_BAD_PARAMS when the parameter vectors do
 * not match n, the input/aux counts or the densities; CUZK_ERR_INVALID_ARG when inputs[0] != 1;
 * CUZK_ERR_UNSATISFIED when H's top coefficient is not 0 (the witness does not satisfy the
 * constraints); CUZK_ERR_NOMEM. Fills timings' ntt and msm fields (may be NULL). */
cuzk_err_t cuzk_groth16_prove_start_abc(cuzk_groth16_msm_t *out, const cuzk_groth16_params_t *p,
                                        const cuzk_domain_t *dom, const cuzk_groth16_abc_t *in,
                                        cuzk_groth16_timings_t *timings, char *errstr,
                                        size_t errstr_size);

#endif
