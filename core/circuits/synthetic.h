/* A random satisfiable R1CS with a Filecoin-like profile, for benchmarks and tests at any
 * size before (and besides) the real circuits. Results produced with it are labelled synthetic.
 *
 * Shape, fixed by the seed alone (the same in every builder mode):
 *   - num_public public inputs (plus ONE), each copied into an aux variable by a constraint;
 *   - then constraints that each allocate one aux variable, drawn as
 *       25%  z·z = z            a fresh random bit (the only constraints with an aux B term)
 *       58%  (1 - x)·1 = z      NOT of an earlier bit
 *       12%  (x + y)·1 = z      sum of two earlier variables
 *        5%  (Σ 2^j x_j)·1 = z  packing of 2..8 earlier variables
 *     where operands are taken first from variables not yet used in A, so about 99% of aux
 *     variables appear in A (1% are deliberately never used there), about 25% in B, about 83%
 *     of aux values are 0/1, and every row has an A term. Coefficients are ±1 and 2^j.
 * Values are drawn from a second stream seeded from the seed, only in witness mode.
 */
#ifndef CUZK_CIRCUITS_SYNTHETIC_H
#define CUZK_CIRCUITS_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "core/r1cs/cs.h"
#include "core/util/err.h"

typedef struct {
  uint64_t num_constraints; /* circuit rows m (>= num_public + 1) */
  uint32_t num_public;      /* public inputs besides ONE */
  uint64_t seed;
} cuzk_synthetic_params_t;

/* m such that m + num_public + 1 = 2^log_n, i.e. the Groth16 domain is exactly 2^log_n. */
uint64_t cuzk_synthetic_constraints_for_log(unsigned log_n, uint32_t num_public);

/* Synthesizes the circuit into `cs` (a fresh builder in any mode). CUZK_ERR_INVALID_ARG for
 * too few constraints; otherwise the builder's sticky error, if any. Single-threaded. */
cuzk_err_t cuzk_synthetic_build(cuzk_cs_t *cs, const cuzk_synthetic_params_t *p, char *errstr,
                                size_t errstr_size);

/* The witness straight from the circuit's recorded matrices `r` (built with the same params),
 * without running the builder: inputs (num_public + 1 elements, ONE first) and aux
 * (num_constraints elements), equal element for element to what witness mode produces. Row j
 * defines aux j: a bit row (B = C = aux j) takes the next bit of the value stream, every other
 * row has B = ONE and z = A_row · w over earlier variables, evaluated in row order with the
 * operands of rows ahead prefetched. Sequential by construction (values depend on earlier values);
 * callers get parallelism from several partitions at once. CUZK_ERR_INVALID_ARG (nothing
 * promised about the outputs) when `r` does not have this circuit's shape. Reads `r` only; any
 * number of threads may call it on one system with their own outputs. `r` must come from the same
 * params (the engine's PCE does: its file name hashes them); other matrices of this family pass
 * the shape checks and give a witness that satisfies `r` but is not this seed's. */
cuzk_err_t cuzk_synthetic_witness_r1cs(const cuzk_r1cs_t *r, const cuzk_synthetic_params_t *p,
                                       cuzk_fr_t *inputs, cuzk_fr_t *aux, char *errstr,
                                       size_t errstr_size);

#endif
