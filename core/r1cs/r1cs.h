/* A recorded rank-1 constraint system: the matrices A, B, C in CSR form, the products
 * a = A·w, b = B·w, c = C·w that Groth16 needs (SpMV), density bitmaps for the MSMs, a
 * satisfiability check, and the on-disk PCE cache ("pre-compiled constraints").
 *
 * Layout. Rows are the circuit's constraints 0..m-1 in enforce order. Columns are one index
 * space: public input i (input 0 = ONE) is column i, auxiliary variable j is column
 * num_inputs + j. Each matrix is
 *   row_ptr[m + 1]  (u64; row r holds entries row_ptr[r] .. row_ptr[r+1]-1, row_ptr[0] = 0)
 *   entries[nnz]    ({u32 col, u32 coeff}; columns strictly increasing within a row, no zero
 *                    coefficients)
 * and `coeff` indexes one coefficient table shared by A, B and C (Fr in Montgomery form);
 * index 0 is +1 and index 1 is -1 so SpMV can test the common cases by index. Circuits use few
 * distinct coefficients (±1, powers of two), so an entry costs 8 bytes instead of 36.
 *
 * The Groth16 rows `input_i · 0 = 0` are not stored: SpMV generates them (see cuzk_r1cs_spmv).
 *
 * Ownership: a cuzk_r1cs_t comes from cuzk_cs_finish (heap) or cuzk_r1cs_load (read-only file
 * mapping) and is released with cuzk_r1cs_free. It is immutable; any number of threads may
 * use one concurrently. Pointers it returns live until cuzk_r1cs_free.
 */
#ifndef CUZK_R1CS_R1CS_H
#define CUZK_R1CS_R1CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"
#include "core/util/err.h"

typedef struct cuzk_r1cs cuzk_r1cs_t;
struct cuzk_pool; /* core/util/pool.h */

typedef struct {
  uint32_t col;   /* input i: i; aux j: num_inputs + j */
  uint32_t coeff; /* index into the coefficient table; 0 = +1, 1 = -1 */
} cuzk_r1cs_entry_t;

#define CUZK_R1CS_COEFF_ONE 0u
#define CUZK_R1CS_COEFF_NEG_ONE 1u

typedef struct {
  const uint64_t *row_ptr;          /* num_constraints + 1 */
  const cuzk_r1cs_entry_t *entries; /* nnz */
  uint64_t nnz;
} cuzk_r1cs_matrix_t;

typedef enum { CUZK_R1CS_A = 0, CUZK_R1CS_B = 1, CUZK_R1CS_C = 2 } cuzk_r1cs_which_t;

typedef enum {
  CUZK_R1CS_DENSITY_A_AUX = 0, /* aux j has a nonzero coefficient in some row of A */
  CUZK_R1CS_DENSITY_B_INPUT,   /* input i has a nonzero coefficient in some row of B */
  CUZK_R1CS_DENSITY_B_AUX,     /* aux j has a nonzero coefficient in some row of B */
} cuzk_r1cs_density_t;

void cuzk_r1cs_free(cuzk_r1cs_t *r);

uint64_t cuzk_r1cs_num_constraints(const cuzk_r1cs_t *r); /* m, circuit rows only */
uint64_t cuzk_r1cs_num_inputs(const cuzk_r1cs_t *r);      /* including ONE */
uint64_t cuzk_r1cs_num_aux(const cuzk_r1cs_t *r);
/* Rows of the Groth16 QAP: m + num_inputs. */
uint64_t cuzk_r1cs_qap_rows(const cuzk_r1cs_t *r);
/* Groth16 domain size: the least power of two >= m + num_inputs. */
uint64_t cuzk_r1cs_domain_size(const cuzk_r1cs_t *r);

const cuzk_r1cs_matrix_t *cuzk_r1cs_matrix(const cuzk_r1cs_t *r, cuzk_r1cs_which_t which);
const cuzk_fr_t *cuzk_r1cs_coeffs(const cuzk_r1cs_t *r, uint64_t *count);

/* Density bitmap (bit k of word k/64, LSB first) over aux (n_aux bits) or inputs
 * (n_inputs bits); *popcount receives the number of set bits (may be NULL). Bellperson's
 * .params omit the bases of unset bits from a, b_g1 and b_g2; A's inputs are always dense
 * because of the input rows. */
const uint64_t *cuzk_r1cs_density(const cuzk_r1cs_t *r, cuzk_r1cs_density_t which,
                                  uint64_t *popcount);
static inline bool cuzk_bitmap_get(const uint64_t *bits, uint64_t i) {
  return (bits[i >> 6] >> (i & 63)) & 1;
}

/* The annotation of constraint `row` ("ns/sub/name") when the system was recorded with
 * CUZK_CS_ANNOTATE, else NULL. Annotations are not stored in PCE files. */
const char *cuzk_r1cs_constraint_name(const cuzk_r1cs_t *r, uint64_t row);

/* Checks (A·w)∘(B·w) = C·w row by row for w = inputs ‖ aux. CUZK_OK when satisfied;
 * CUZK_ERR_UNSATISFIED with *bad_row (if non-NULL) = the first failing row and errstr naming
 * it (with its annotation when present); CUZK_ERR_INVALID_ARG when the vector lengths do not
 * match or inputs[0] != 1. Single-threaded; for tests and debugging. */
cuzk_err_t cuzk_r1cs_check(const cuzk_r1cs_t *r, const cuzk_fr_t *inputs, uint64_t n_inputs,
                           const cuzk_fr_t *aux, uint64_t n_aux, uint64_t *bad_row, char *errstr,
                           size_t errstr_size);

/* a = A·w, b = B·w, c = C·w over the Groth16 domain of n rows (n >= m + num_inputs):
 *   rows 0 .. m-1           the circuit's constraints;
 *   rows m .. m+num_inputs-1 one row per public input i (ONE included), in input order:
 *                            a = inputs[i], b = 0, c = 0 (the constraint input_i · 0 = 0);
 *   rows m+num_inputs .. n-1 zero.
 * This is bellperson's order: its prover synthesizes the circuit and then, for i in
 * 0..num_inputs, enforces (input_i) · (0) = (0), so those rows follow the circuit rows (the
 * parameter generator does the same, which is what makes the IC and the A query agree).
 * The outputs (n elements each, e.g. pinned buffers) are written fully; they must not overlap
 * each other or the witness. Work is spread over the worker threads by rows; ±1 coefficients
 * and witness values 0 / 1 skip the multiplication. Returns CUZK_ERR_INVALID_ARG on length
 * mismatch or n too small. Called from any thread; blocks until done. */
cuzk_err_t cuzk_r1cs_spmv(const cuzk_r1cs_t *r, const cuzk_fr_t *inputs, uint64_t n_inputs,
                          const cuzk_fr_t *aux, uint64_t n_aux, cuzk_fr_t *a, cuzk_fr_t *b,
                          cuzk_fr_t *c, uint64_t n);
/* cuzk_r1cs_spmv on `pool` (its workers plus the calling thread; NULL: the calling thread
 * alone) instead of the global pool, so a caller can bound the threads SpMV occupies. Row blocks
 * are whole multiples of 64 rows (2 KiB of each output), so no two threads share a cache line. */
cuzk_err_t cuzk_r1cs_spmv_on(struct cuzk_pool *pool, const cuzk_r1cs_t *r, const cuzk_fr_t *inputs,
                             uint64_t n_inputs, const cuzk_fr_t *aux, uint64_t n_aux, cuzk_fr_t *a,
                             cuzk_fr_t *b, cuzk_fr_t *c, uint64_t n);

/* ---- PCE files ----------------------------------------------------------------------------
 * Little-endian, no padding, every section 8-byte aligned:
 *   header (128 bytes):
 *     0  magic "CUZKPCE\0"          8  u32 version (1)        12 u32 header size (128)
 *     16 u64 flags (0)              24 u64 num_constraints    32 u64 num_inputs (with ONE)
 *     40 u64 num_aux                48 u64 nnz A  56 nnz B  64 nnz C
 *     72 u64 num_coeffs             80 u64 file size          88 u8[32] digest
 *     120 u64 reserved (0)
 *   body: coeffs[num_coeffs] (32 B each, Montgomery limbs), then for A, B, C in turn
 *         row_ptr[m + 1] (u64) and entries[nnz] (u32 col, u32 coeff).
 * digest = SHA-256(header bytes 0..87 ‖ SHA-256(chunk 0) ‖ SHA-256(chunk 1) ‖ …) where the
 * chunks are consecutive 64 MiB pieces of the body. SHA-256 (OpenSSL, SHA-NI) rather than a CRC
 * because the chunk hashes run in parallel at several GB/s per core, so a 10 GB matrix file
 * verifies in about a second on the proving host, and a cryptographic digest also catches a
 * file that was swapped or rewritten by mistake, not only bit rot. */

#define CUZK_PCE_VERSION 1u
#define CUZK_PCE_HEADER_SIZE 128u

/* Writes `r` to `path` atomically (temporary file in the same directory, fsync, rename,
 * fsync of the directory). CUZK_ERR_IO on failure (the temporary is removed). */
cuzk_err_t cuzk_r1cs_save(const cuzk_r1cs_t *r, const char *path, char *errstr, size_t errstr_size);

/* Maps `path` read-only (no copy) and validates it: CUZK_ERR_NOT_FOUND / CUZK_ERR_IO for open
 * failures, CUZK_ERR_TRUNCATED when shorter than its header says, CUZK_ERR_PARSE for a bad
 * magic, header, trailing bytes or out-of-range structure (row pointers, column or coefficient
 * indices, non-canonical coefficients), CUZK_ERR_VERSION for another version,
 * CUZK_ERR_CHECKSUM on digest mismatch. Densities are computed during validation. */
cuzk_err_t cuzk_r1cs_load(cuzk_r1cs_t **out, const char *path, char *errstr, size_t errstr_size);

#endif
