#include "core/circuits/synthetic.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/ff/mont.h"

typedef struct {
  uint64_t s;
} cuzk__rng_t;

static uint64_t cuzk__rng_next(cuzk__rng_t *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

typedef struct {
  uint32_t *v;
  size_t n, cap;
} cuzk__stack_t;

typedef struct {
  cuzk_cs_t *cs;
  bool values, rec;
  const cuzk_fr_t *auxv; /* the builder's aux values, refreshed after each allocation */
  cuzk_fr_t pow2[8];     /* 2^0 .. 2^7 */
  cuzk__rng_t st, val;
  uint8_t *is_bit, *no_a; /* bitmaps over aux indices */
  uint64_t naux, cap_bits;
  cuzk__stack_t pend_bits, pend_other;
  uint32_t first_bit;
  bool oom;
} cuzk__synth_t;

static bool cuzk__bit(const uint8_t *b, uint64_t i) {
  return (b[i >> 3] >> (i & 7)) & 1;
}
static void cuzk__bit_set(uint8_t *b, uint64_t i) {
  b[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static void cuzk__push(cuzk__synth_t *s, cuzk__stack_t *st, uint32_t x) {
  if (st->n == st->cap) {
    size_t nc = st->cap ? st->cap * 2 : 1024;
    uint32_t *p = realloc(st->v, nc * sizeof *p);
    if (!p) {
      s->oom = true;
      return;
    }
    st->v = p;
    st->cap = nc;
  }
  st->v[st->n++] = x;
}

/* A new aux variable; `value` is used in witness mode. */
static cuzk_var_t cuzk__new_aux(cuzk__synth_t *s, const cuzk_fr_t *value, bool bit, bool track_a) {
  cuzk_var_t v = cuzk_cs_alloc_aux(s->cs, s->values ? value : NULL);
  uint64_t j = s->naux++;
  if (s->values) {
    uint64_t n;
    s->auxv = cuzk_cs_aux(s->cs, &n);
    if (n != s->naux) s->auxv = NULL; /* builder error: values come out as zero, error is sticky */
  }
  if (s->naux > s->cap_bits) {
    uint64_t nc = s->cap_bits ? s->cap_bits * 2 : 1 << 16;
    uint8_t *a = realloc(s->is_bit, nc / 8), *b = realloc(s->no_a, nc / 8);
    if (a) s->is_bit = a;
    if (b) s->no_a = b;
    if (!a || !b) {
      s->oom = true;
      return v;
    }
    memset(s->is_bit + s->cap_bits / 8, 0, (nc - s->cap_bits) / 8);
    memset(s->no_a + s->cap_bits / 8, 0, (nc - s->cap_bits) / 8);
    s->cap_bits = nc;
  }
  if (bit) cuzk__bit_set(s->is_bit, j);
  if (track_a) {
    /* 1 in 100 is never offered as an A operand */
    if (cuzk__rng_next(&s->st) % 100 == 0)
      cuzk__bit_set(s->no_a, j);
    else
      cuzk__push(s, bit ? &s->pend_bits : &s->pend_other, (uint32_t)j);
  }
  return v;
}

/* An earlier aux variable usable in A: pending first, else random (bits only if want_bit). */
static uint32_t cuzk__operand(cuzk__synth_t *s, bool want_bit) {
  if (s->pend_bits.n) return s->pend_bits.v[--s->pend_bits.n];
  if (!want_bit && s->pend_other.n) return s->pend_other.v[--s->pend_other.n];
  for (int tries = 0; tries < 64; tries++) {
    uint32_t j = (uint32_t)(cuzk__rng_next(&s->st) % s->naux);
    if (cuzk__bit(s->no_a, j)) continue;
    if (want_bit && !cuzk__bit(s->is_bit, j)) continue;
    return j;
  }
  return s->first_bit;
}

static void cuzk__value(const cuzk__synth_t *s, uint32_t j, cuzk_fr_t *out) {
  if (s->auxv && j < s->naux)
    *out = s->auxv[j];
  else
    *out = CUZK_FR_ZERO;
}

/* acc += 2^t · x, with x = 0 and x = 1 taking no multiplication */
static void cuzk__add_pow2(const cuzk__synth_t *s, cuzk_fr_t *acc, unsigned t, const cuzk_fr_t *x) {
  if (cuzk_fr_is_zero(x)) return;
  if (cuzk_fr_is_one(x)) {
    cuzk_fr_add(acc, acc, &s->pow2[t]);
    return;
  }
  cuzk_fr_t y;
  cuzk_fr_mul(&y, x, &s->pow2[t]);
  cuzk_fr_add(acc, acc, &y);
}

static void cuzk__rand_fr(cuzk__rng_t *r, cuzk_fr_t *out) {
  uint8_t b[64];
  for (int i = 0; i < 8; i++) {
    uint64_t v = cuzk__rng_next(r);
    memcpy(b + 8 * i, &v, 8);
  }
  cuzk_fr_from_le_wide(out, b);
}

uint64_t cuzk_synthetic_constraints_for_log(unsigned log_n, uint32_t num_public) {
  assert(log_n < 64);
  uint64_t n = 1ULL << log_n;
  return n > (uint64_t)num_public + 1 ? n - num_public - 1 : 0;
}

cuzk_err_t cuzk_synthetic_build(cuzk_cs_t *cs, const cuzk_synthetic_params_t *p, char *errstr,
                                size_t errstr_size) {
  assert(cs && p);
  if (p->num_constraints < (uint64_t)p->num_public + 1)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "synthetic: %llu constraints cannot hold %u public inputs",
                     (unsigned long long)p->num_constraints, p->num_public);
  if (cuzk_cs_num_inputs(cs) != 1 || cuzk_cs_num_aux(cs) != 0 || cuzk_cs_num_constraints(cs) != 0)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "synthetic: builder not fresh");
  cuzk__synth_t s = {.cs = cs, .values = cuzk_cs_has_values(cs), .rec = cuzk_cs_is_recording(cs)};
  for (unsigned t = 0; t < 8; t++) cuzk_fr_from_u64(&s.pow2[t], 1ULL << t);
  s.st.s = p->seed;
  s.val.s = p->seed ^ 0x5ca1ab1e0ddba11ULL;
  cuzk_cs_reserve(cs, p->num_public + 1, p->num_constraints, p->num_constraints,
                  p->num_constraints * 2);
  cuzk_lc_t a, b, c;
  cuzk_lc_init(&a);
  cuzk_lc_init(&b);
  cuzk_lc_init(&c);
  cuzk_fr_t v, x, y;

  for (uint32_t i = 0; i < p->num_public; i++) {
    cuzk__rand_fr(&s.val, &v);
    cuzk_var_t in = cuzk_cs_alloc_input(cs, s.values ? &v : NULL);
    cuzk_var_t z = cuzk__new_aux(&s, &v, false, true);
    if (s.rec) {
      cuzk_lc_clear(&a), cuzk_lc_clear(&b), cuzk_lc_clear(&c);
      cuzk_lc_add(&a, in);
      cuzk_lc_add(&b, CUZK_VAR_ONE);
      cuzk_lc_add(&c, z);
    }
    cuzk_cs_enforce(cs, &a, &b, &c);
  }
  for (uint64_t row = p->num_public; row < p->num_constraints && !s.oom; row++) {
    uint64_t kind = cuzk__rng_next(&s.st) % 100;
    if (s.pend_bits.n == 0 && s.naux == (uint64_t)p->num_public) kind = 0; /* need one bit */
    if (s.rec) cuzk_lc_clear(&a), cuzk_lc_clear(&b), cuzk_lc_clear(&c);
    if (kind < 25) { /* z·z = z */
      v = (cuzk__rng_next(&s.val) & 1) ? CUZK_FR_ONE : CUZK_FR_ZERO;
      if (s.naux == p->num_public) s.first_bit = (uint32_t)s.naux;
      cuzk_var_t z = cuzk__new_aux(&s, &v, true, false);
      if (s.rec) {
        cuzk_lc_add(&a, z);
        cuzk_lc_add(&b, z);
        cuzk_lc_add(&c, z);
      }
    } else if (kind < 83) { /* (1 - x)·1 = z */
      uint32_t xj = cuzk__operand(&s, true);
      cuzk__value(&s, xj, &x);
      cuzk_fr_sub(&v, &CUZK_FR_ONE, &x);
      cuzk_var_t z = cuzk__new_aux(&s, &v, true, true);
      if (s.rec) {
        cuzk_lc_add(&a, CUZK_VAR_ONE);
        cuzk_lc_sub(&a, cuzk_var_aux(xj));
        cuzk_lc_add(&b, CUZK_VAR_ONE);
        cuzk_lc_add(&c, z);
      }
    } else if (kind < 95) { /* (x + y)·1 = z */
      uint32_t xj = cuzk__operand(&s, false), yj = cuzk__operand(&s, false);
      cuzk__value(&s, xj, &x);
      cuzk__value(&s, yj, &y);
      cuzk_fr_add(&v, &x, &y);
      cuzk_var_t z = cuzk__new_aux(&s, &v, false, true);
      if (s.rec) {
        cuzk_lc_add(&a, cuzk_var_aux(xj));
        cuzk_lc_add(&a, cuzk_var_aux(yj));
        cuzk_lc_add(&b, CUZK_VAR_ONE);
        cuzk_lc_add(&c, z);
      }
    } else { /* (Σ 2^j x_j)·1 = z */
      unsigned k = 2 + (unsigned)(cuzk__rng_next(&s.st) % 7);
      uint32_t used[8];
      v = CUZK_FR_ZERO;
      for (unsigned t = 0; t < k; t++) {
        uint32_t xj = cuzk__operand(&s, false);
        bool dup = false;
        for (unsigned q = 0; q < t; q++) dup |= used[q] == xj;
        used[t] = xj;
        if (dup) continue; /* keeps every coefficient a single power of two */
        cuzk__value(&s, xj, &x);
        cuzk__add_pow2(&s, &v, t, &x);
        if (s.rec) cuzk_lc_add_i64(&a, (int64_t)1 << t, cuzk_var_aux(xj));
      }
      cuzk_var_t z = cuzk__new_aux(&s, &v, false, true);
      if (s.rec) {
        cuzk_lc_add(&b, CUZK_VAR_ONE);
        cuzk_lc_add(&c, z);
      }
    }
    cuzk_cs_enforce(cs, &a, &b, &c);
  }
  cuzk_lc_free(&a);
  cuzk_lc_free(&b);
  cuzk_lc_free(&c);
  free(s.is_bit);
  free(s.no_a);
  free(s.pend_bits.v);
  free(s.pend_other.v);
  if (s.oom) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "synthetic: out of memory");
  return cuzk_cs_error(cs, errstr, errstr_size);
}

/* ---- witness from the recorded matrices ---------------------------------------------------- */

/* Rows ahead of the current one whose A operands are prefetched. */
#define CUZK__SYNTH_PREFETCH 16u

static bool cuzk__entry_is(const cuzk_r1cs_matrix_t *mat, uint64_t row, uint64_t col) {
  uint64_t k = mat->row_ptr[row];
  return mat->row_ptr[row + 1] == k + 1 && mat->entries[k].col == col &&
         mat->entries[k].coeff == CUZK_R1CS_COEFF_ONE;
}

cuzk_err_t cuzk_synthetic_witness_r1cs(const cuzk_r1cs_t *r, const cuzk_synthetic_params_t *p,
                                       cuzk_fr_t *inputs, cuzk_fr_t *aux, char *errstr,
                                       size_t errstr_size) {
  assert(r && p && inputs && aux);
  uint64_t m = p->num_constraints, ni = (uint64_t)p->num_public + 1;
  if (m < ni || cuzk_r1cs_num_constraints(r) != m || cuzk_r1cs_num_inputs(r) != ni ||
      cuzk_r1cs_num_aux(r) != m)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "synthetic: matrices of %llu x (%llu + %llu) are not this circuit's",
                     (unsigned long long)cuzk_r1cs_num_constraints(r),
                     (unsigned long long)cuzk_r1cs_num_inputs(r),
                     (unsigned long long)cuzk_r1cs_num_aux(r));
  const cuzk_r1cs_matrix_t *A = cuzk_r1cs_matrix(r, CUZK_R1CS_A);
  const cuzk_r1cs_matrix_t *B = cuzk_r1cs_matrix(r, CUZK_R1CS_B);
  const cuzk_r1cs_matrix_t *C = cuzk_r1cs_matrix(r, CUZK_R1CS_C);
  const cuzk_fr_t *coeffs = cuzk_r1cs_coeffs(r, NULL);
  cuzk__rng_t val = {p->seed ^ 0x5ca1ab1e0ddba11ULL};
  inputs[0] = CUZK_FR_ONE;
  for (uint64_t i = 1; i < ni; i++) cuzk__rand_fr(&val, &inputs[i]);
  const cuzk_r1cs_entry_t *ae = A->entries;
  for (uint64_t row = 0; row < m; row++) {
    uint64_t z = ni + row; /* row `row` defines aux `row` (column ni + row) */
    if (row + CUZK__SYNTH_PREFETCH < m) {
      uint64_t pr = row + CUZK__SYNTH_PREFETCH;
      for (uint64_t k = A->row_ptr[pr]; k < A->row_ptr[pr + 1]; k++)
        if (ae[k].col >= ni) __builtin_prefetch(&aux[ae[k].col - ni]);
    }
    if (!cuzk__entry_is(C, row, z)) goto shape;
    if (cuzk__entry_is(B, row, z)) { /* z·z = z: the next bit of the value stream */
      if (row < ni - 1 || !cuzk__entry_is(A, row, z)) goto shape;
      aux[row] = (cuzk__rng_next(&val) & 1) ? CUZK_FR_ONE : CUZK_FR_ZERO;
      continue;
    }
    if (!cuzk__entry_is(B, row, 0)) goto shape;
    cuzk_fr_t acc = CUZK_FR_ZERO, t;
    for (uint64_t k = A->row_ptr[row]; k < A->row_ptr[row + 1]; k++) {
      uint64_t col = ae[k].col;
      if (col >= z) goto shape;
      const cuzk_fr_t *w = col < ni ? &inputs[col] : &aux[col - ni];
      uint32_t ci = ae[k].coeff;
      if (ci == CUZK_R1CS_COEFF_ONE) {
        cuzk__mont_add(acc.l, acc.l, w->l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
      } else if (ci == CUZK_R1CS_COEFF_NEG_ONE) {
        cuzk__mont_sub(acc.l, acc.l, w->l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
      } else if ((w->l[0] | w->l[1] | w->l[2] | w->l[3]) == 0) {
      } else if (cuzk_fr_is_one(w)) {
        cuzk__mont_add(acc.l, acc.l, coeffs[ci].l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
      } else {
        cuzk_fr_mul(&t, w, &coeffs[ci]);
        cuzk__mont_add(acc.l, acc.l, t.l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
      }
    }
    aux[row] = acc;
  }
  return CUZK_OK;
shape:
  return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                   "synthetic: the matrices do not have this circuit's row shapes");
}
