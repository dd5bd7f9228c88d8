/* Variables and linear combinations for the constraint-system builder (cs.h).
 *
 * A variable is a tagged 32-bit handle: public input i (input 0 is the constant ONE) or
 * auxiliary (private witness) variable j. A linear combination (LC) is a list of
 * (variable, coefficient) terms; coefficients +1 and -1 are kept as a tag without an Fr value
 * so the common cases cost no field arithmetic. Terms are not merged while building; the
 * builder merges duplicates and drops zero coefficients when it records a constraint.
 *
 * Ownership: an LC stores up to CUZK_LC_INLINE terms inside the struct and spills to the heap
 * beyond that; cuzk_lc_free releases the spill (always call it, or use cuzk_lc_clear to reuse).
 * Plain struct assignment of an LC is not allowed (use cuzk_lc_copy). Not thread-safe: one
 * LC belongs to one thread.
 */
#ifndef CUZK_R1CS_LC_H
#define CUZK_R1CS_LC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"

/* bit 31 set: auxiliary variable; clear: public input. The index is in bits 0..30. */
typedef struct {
  uint32_t v;
} cuzk_var_t;

#define CUZK_VAR_AUX_BIT 0x80000000u
#define CUZK_VAR_MAX_INDEX 0x7fffffffu
#define CUZK_VAR_ONE ((cuzk_var_t){0})

static inline bool cuzk_var_is_aux(cuzk_var_t x) {
  return (x.v & CUZK_VAR_AUX_BIT) != 0;
}
static inline uint32_t cuzk_var_index(cuzk_var_t x) {
  return x.v & CUZK_VAR_MAX_INDEX;
}
static inline cuzk_var_t cuzk_var_input(uint32_t i) {
  return (cuzk_var_t){i};
}
static inline cuzk_var_t cuzk_var_aux(uint32_t j) {
  return (cuzk_var_t){j | CUZK_VAR_AUX_BIT};
}

typedef enum {
  CUZK_LC_COEFF_ONE = 0, /* coefficient +1 */
  CUZK_LC_COEFF_NEG_ONE, /* coefficient -1 */
  CUZK_LC_COEFF_FR,      /* coefficient in `c` */
} cuzk_lc_coeff_kind_t;

typedef struct {
  cuzk_var_t var;
  uint32_t kind; /* cuzk_lc_coeff_kind_t */
  cuzk_fr_t c;   /* valid when kind == CUZK_LC_COEFF_FR */
} cuzk_lc_term_t;

#define CUZK_LC_INLINE 6

typedef struct {
  uint32_t n;           /* number of terms */
  uint32_t cap;         /* capacity of `heap` (0 while inline) */
  cuzk_lc_term_t *heap; /* NULL while the terms fit in `buf` */
  cuzk_lc_term_t buf[CUZK_LC_INLINE];
  bool oom; /* a spill allocation failed; the builder reports CUZK_ERR_NOMEM */
} cuzk_lc_t;

/* The empty LC (value 0). */
static inline void cuzk_lc_init(cuzk_lc_t *lc) {
  lc->n = 0;
  lc->cap = 0;
  lc->heap = NULL;
  lc->oom = false;
}
static inline cuzk_lc_term_t *cuzk_lc_terms(cuzk_lc_t *lc) {
  return lc->heap ? lc->heap : lc->buf;
}
static inline const cuzk_lc_term_t *cuzk_lc_terms_const(const cuzk_lc_t *lc) {
  return lc->heap ? lc->heap : lc->buf;
}

/* Frees the spill (if any) and leaves the LC empty. */
void cuzk_lc_free(cuzk_lc_t *lc);
/* Empties the LC but keeps its spill capacity. */
static inline void cuzk_lc_clear(cuzk_lc_t *lc) {
  lc->n = 0;
  lc->oom = false;
}
/* dst := src (dst must be initialised; its old terms are discarded). */
void cuzk_lc_copy(cuzk_lc_t *dst, const cuzk_lc_t *src);

/* Appends one term. The *_fr form classifies +1 / -1 coefficients itself and drops zeros. */
void cuzk__lc_push(cuzk_lc_t *lc, cuzk_var_t var, cuzk_lc_coeff_kind_t kind, const cuzk_fr_t *c);
static inline void cuzk_lc_add(cuzk_lc_t *lc, cuzk_var_t var) {
  cuzk__lc_push(lc, var, CUZK_LC_COEFF_ONE, NULL);
}
static inline void cuzk_lc_sub(cuzk_lc_t *lc, cuzk_var_t var) {
  cuzk__lc_push(lc, var, CUZK_LC_COEFF_NEG_ONE, NULL);
}
void cuzk_lc_add_fr(cuzk_lc_t *lc, const cuzk_fr_t *coeff, cuzk_var_t var);
/* coefficient as a small signed integer (e.g. 2^i for bit packing). */
void cuzk_lc_add_i64(cuzk_lc_t *lc, int64_t coeff, cuzk_var_t var);
/* lc += coeff · other (coeff NULL means 1). */
void cuzk_lc_add_lc(cuzk_lc_t *lc, const cuzk_fr_t *coeff, const cuzk_lc_t *other);
/* lc -= other. */
void cuzk_lc_sub_lc(cuzk_lc_t *lc, const cuzk_lc_t *other);

/* The coefficient of one term as an Fr element. */
void cuzk_lc_term_coeff(cuzk_fr_t *out, const cuzk_lc_term_t *t);

/* Sorts terms by variable, merges duplicates and drops zero coefficients (in place). Uses
 * Fr arithmetic only for merged terms. */
void cuzk_lc_normalize(cuzk_lc_t *lc);

#endif
