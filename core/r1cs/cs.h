/* The constraint-system builder every circuit is written against.
 *
 * One API, several modes chosen at creation (flags may be combined):
 *   CUZK_CS_COUNT    (0)  counts allocations and constraints only; no memory per constraint
 *                         (to confirm production counts such as WindowPoSt's 1.25·10^8).
 *   CUZK_CS_RECORD        records A, B, C (→ cuzk_cs_finish → cuzk_r1cs_t, then PCE file);
 *                         values may be absent (pass NULL).
 *   CUZK_CS_WITNESS       keeps the values of inputs and aux; enforce is a no-op.
 *   CUZK_CS_ANNOTATE      with RECORD: keeps a "ns/sub/name" label per constraint so the
 *                         checker can name a failing constraint. Without it namespaces and
 *                         names cost one branch.
 * RECORD | WITNESS records both (tests, debugging: cuzk_cs_check).
 *
 * The builder allocates input 0 = ONE itself (value 1). Variable handles come from lc.h.
 *
 * Errors are sticky: allocation failure, a missing value in witness mode, or a bad handle sets
 * the builder's error; later calls become no-ops returning CUZK_VAR_ONE, and cuzk_cs_error
 * reports the first failure. Circuits therefore check once at the end.
 *
 * Ownership and threads: the builder is owned by its creator and freed with cuzk_cs_free; it is
 * not thread-safe (one synthesis per thread). LCs passed in are only read.
 */
#ifndef CUZK_R1CS_CS_H
#define CUZK_R1CS_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"
#include "core/r1cs/lc.h"
#include "core/r1cs/r1cs.h"
#include "core/util/err.h"

typedef struct cuzk_cs cuzk_cs_t;

enum {
  CUZK_CS_COUNT = 0,
  CUZK_CS_RECORD = 1u << 0,
  CUZK_CS_WITNESS = 1u << 1,
  CUZK_CS_ANNOTATE = 1u << 2,
};

/* A new builder with ONE allocated. NULL with errstr on bad flags or no memory. */
cuzk_cs_t *cuzk_cs_new(unsigned mode, char *errstr, size_t errstr_size);
void cuzk_cs_free(cuzk_cs_t *cs);

/* Capacity hints (any may be 0) so that large circuits grow their arrays once. */
void cuzk_cs_reserve(cuzk_cs_t *cs, uint64_t inputs, uint64_t aux, uint64_t constraints,
                     uint64_t nnz_per_matrix);

/* WITNESS: store aux values in the caller's buffer of `cap` elements (e.g. pinned memory)
 * instead of the builder's own array. Call before the first aux allocation; allocating more
 * than `cap` aux variables sets CUZK_ERR_TOO_LARGE. The buffer stays the caller's: cuzk_cs_free
 * does not free it and cuzk_cs_take_witness returns it as *aux. CUZK_ERR_INVALID_ARG when not
 * in witness mode or aux variables already exist. */
cuzk_err_t cuzk_cs_set_aux_buffer(cuzk_cs_t *cs, cuzk_fr_t *buf, uint64_t cap);

unsigned cuzk_cs_mode(const cuzk_cs_t *cs);
static inline bool cuzk_cs_has_values(const cuzk_cs_t *cs) {
  return (cuzk_cs_mode(cs) & CUZK_CS_WITNESS) != 0;
}
static inline bool cuzk_cs_is_recording(const cuzk_cs_t *cs) {
  return (cuzk_cs_mode(cs) & CUZK_CS_RECORD) != 0;
}

/* New public input / aux variable. `value` is read in witness mode (NULL there is an error:
 * CUZK_ERR_INVALID_ARG) and ignored otherwise. */
cuzk_var_t cuzk_cs_alloc_input(cuzk_cs_t *cs, const cuzk_fr_t *value);
cuzk_var_t cuzk_cs_alloc_aux(cuzk_cs_t *cs, const cuzk_fr_t *value);

/* Adds the constraint a · b = c. In record mode the LCs are copied with duplicates merged and
 * zero coefficients dropped; in witness mode nothing is stored. */
void cuzk_cs_enforce(cuzk_cs_t *cs, const cuzk_lc_t *a, const cuzk_lc_t *b, const cuzk_lc_t *c);
/* Same, with a label (static or caller-owned; copied only under CUZK_CS_ANNOTATE). */
void cuzk_cs_enforce_named(cuzk_cs_t *cs, const char *name, const cuzk_lc_t *a, const cuzk_lc_t *b,
                           const cuzk_lc_t *c);
/* Namespaces prefix labels ("outer/inner/name"); no-ops without CUZK_CS_ANNOTATE. */
void cuzk_cs_push_namespace(cuzk_cs_t *cs, const char *name);
void cuzk_cs_pop_namespace(cuzk_cs_t *cs);

/* Value of a variable (witness mode; false otherwise or for an unknown handle). */
bool cuzk_cs_value(const cuzk_cs_t *cs, cuzk_var_t v, cuzk_fr_t *out);
/* Value of an LC at the current witness (false without values). */
bool cuzk_cs_lc_value(const cuzk_cs_t *cs, const cuzk_lc_t *lc, cuzk_fr_t *out);

uint64_t cuzk_cs_num_constraints(const cuzk_cs_t *cs);
uint64_t cuzk_cs_num_inputs(const cuzk_cs_t *cs); /* including ONE */
uint64_t cuzk_cs_num_aux(const cuzk_cs_t *cs);

/* The first error (CUZK_OK if none), with its message in errstr. */
cuzk_err_t cuzk_cs_error(const cuzk_cs_t *cs, char *errstr, size_t errstr_size);

/* RECORD | WITNESS: checks every constraint recorded so far against the values. CUZK_OK, or
 * CUZK_ERR_UNSATISFIED with *bad_row and a message naming the first failing constraint (and
 * its label under CUZK_CS_ANNOTATE); CUZK_ERR_INVALID_ARG in other modes. */
cuzk_err_t cuzk_cs_check(const cuzk_cs_t *cs, uint64_t *bad_row, char *errstr, size_t errstr_size);

/* RECORD: moves the recorded matrices into a new cuzk_r1cs_t (caller frees) with columns
 * remapped to inputs-then-aux and densities computed. The builder keeps its counts and values
 * but no longer its constraints; further enforce calls set CUZK_ERR_INVALID_ARG. Returns the
 * builder's sticky error if it has one. */
cuzk_err_t cuzk_cs_finish(cuzk_cs_t *cs, cuzk_r1cs_t **out, char *errstr, size_t errstr_size);

/* WITNESS: the value vectors (borrowed; valid until the next allocation or cuzk_cs_free). */
const cuzk_fr_t *cuzk_cs_inputs(const cuzk_cs_t *cs, uint64_t *n);
const cuzk_fr_t *cuzk_cs_aux(const cuzk_cs_t *cs, uint64_t *n);
/* WITNESS: hands the value vectors to the caller (free() them, except an aux buffer the
 * caller supplied with cuzk_cs_set_aux_buffer); the builder's copies become empty and the
 * builder must not allocate any more. */
cuzk_err_t cuzk_cs_take_witness(cuzk_cs_t *cs, cuzk_fr_t **inputs, uint64_t *n_inputs,
                                cuzk_fr_t **aux, uint64_t *n_aux);

#endif
