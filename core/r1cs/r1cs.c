#include "core/r1cs/r1cs.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/ff/mont.h"
#include "core/poly/par.h"
#include "core/util/pool.h"
#include "core/r1cs/r1cs_internal.h"

void cuzk_r1cs_free(cuzk_r1cs_t *r) {
  if (!r) return;
  for (size_t i = 0; i < sizeof r->owned / sizeof r->owned[0]; i++) free(r->owned[i]);
  for (int k = 0; k < 3; k++) free(r->dens[k]);
  free(r->names);
  free(r->name_off);
  cuzk_file_unmap(&r->map);
  free(r);
}

uint64_t cuzk_r1cs_num_constraints(const cuzk_r1cs_t *r) {
  return r->m;
}
uint64_t cuzk_r1cs_num_inputs(const cuzk_r1cs_t *r) {
  return r->ni;
}
uint64_t cuzk_r1cs_num_aux(const cuzk_r1cs_t *r) {
  return r->naux;
}
uint64_t cuzk_r1cs_qap_rows(const cuzk_r1cs_t *r) {
  return r->m + r->ni;
}

uint64_t cuzk_r1cs_domain_size(const cuzk_r1cs_t *r) {
  uint64_t rows = r->m + r->ni, n = 1;
  while (n < rows) n <<= 1;
  return n;
}

const cuzk_r1cs_matrix_t *cuzk_r1cs_matrix(const cuzk_r1cs_t *r, cuzk_r1cs_which_t which) {
  assert(which <= CUZK_R1CS_C);
  return &r->mat[which];
}

const cuzk_fr_t *cuzk_r1cs_coeffs(const cuzk_r1cs_t *r, uint64_t *count) {
  if (count) *count = r->ncoeffs;
  return r->coeffs;
}

const uint64_t *cuzk_r1cs_density(const cuzk_r1cs_t *r, cuzk_r1cs_density_t which,
                                  uint64_t *popcount) {
  assert(which <= CUZK_R1CS_DENSITY_B_AUX);
  if (popcount) *popcount = r->dens_count[which];
  return r->dens[which];
}

const char *cuzk_r1cs_constraint_name(const cuzk_r1cs_t *r, uint64_t row) {
  if (!r->name_off || row >= r->m || r->name_off[row] == UINT64_MAX) return NULL;
  return r->names + r->name_off[row];
}

/* ---- density ---------------------------------------------------------------------------- */

cuzk_err_t cuzk__r1cs_alloc_density(cuzk_r1cs_t *r) {
  uint64_t aw = cuzk__bitmap_words(r->naux), iw = cuzk__bitmap_words(r->ni);
  r->dens[CUZK_R1CS_DENSITY_A_AUX] = calloc(aw ? aw : 1, 8);
  r->dens[CUZK_R1CS_DENSITY_B_INPUT] = calloc(iw ? iw : 1, 8);
  r->dens[CUZK_R1CS_DENSITY_B_AUX] = calloc(aw ? aw : 1, 8);
  for (int k = 0; k < 3; k++)
    if (!r->dens[k]) return CUZK_ERR_NOMEM;
  return CUZK_OK;
}

static inline void cuzk__bit_set_atomic(uint64_t *bits, uint64_t i) {
  uint64_t m = 1ULL << (i & 63);
  if (!(__atomic_load_n(&bits[i >> 6], __ATOMIC_RELAXED) & m))
    __atomic_fetch_or(&bits[i >> 6], m, __ATOMIC_RELAXED);
}

void cuzk__r1cs_mark_density(cuzk_r1cs_t *r, uint64_t r0, uint64_t r1) {
  uint64_t ni = r->ni;
  const cuzk_r1cs_matrix_t *A = &r->mat[0], *B = &r->mat[1];
  for (uint64_t e = A->row_ptr[r0]; e < A->row_ptr[r1]; e++) {
    uint64_t col = A->entries[e].col;
    if (col >= ni) cuzk__bit_set_atomic(r->dens[CUZK_R1CS_DENSITY_A_AUX], col - ni);
  }
  for (uint64_t e = B->row_ptr[r0]; e < B->row_ptr[r1]; e++) {
    uint64_t col = B->entries[e].col;
    if (col >= ni)
      cuzk__bit_set_atomic(r->dens[CUZK_R1CS_DENSITY_B_AUX], col - ni);
    else
      cuzk__bit_set_atomic(r->dens[CUZK_R1CS_DENSITY_B_INPUT], col);
  }
}

void cuzk__r1cs_count_density(cuzk_r1cs_t *r) {
  uint64_t nbits[3] = {r->naux, r->ni, r->naux};
  for (int k = 0; k < 3; k++) {
    uint64_t c = 0;
    for (uint64_t w = 0; w < cuzk__bitmap_words(nbits[k]); w++)
      c += (uint64_t)__builtin_popcountll(r->dens[k][w]);
    r->dens_count[k] = c;
  }
}

typedef struct {
  cuzk_r1cs_t *r;
  size_t chunks;
} cuzk__dens_job_t;

static void cuzk__dens_chunk(void *ctx, size_t i) {
  cuzk__dens_job_t *j = ctx;
  uint64_t m = j->r->m;
  cuzk__r1cs_mark_density(j->r, m * i / j->chunks, m * (i + 1) / j->chunks);
}

cuzk_err_t cuzk__r1cs_compute_density(cuzk_r1cs_t *r) {
  cuzk_err_t err = cuzk__r1cs_alloc_density(r);
  if (err != CUZK_OK) return err;
  cuzk__dens_job_t j = {r, cuzk__par_chunks(r->m, 1u << 14)};
  cuzk__par_for(j.chunks, cuzk__dens_chunk, &j);
  cuzk__r1cs_count_density(r);
  return CUZK_OK;
}

/* ---- evaluation ------------------------------------------------------------------------- */

static inline bool cuzk__limbs_zero(const cuzk_fr_t *w) {
  return (w->l[0] | w->l[1] | w->l[2] | w->l[3]) == 0;
}

static inline bool cuzk__limbs_one(const cuzk_fr_t *w) {
  return ((w->l[0] ^ CUZK_FR_ONE.l[0]) | (w->l[1] ^ CUZK_FR_ONE.l[1]) |
          (w->l[2] ^ CUZK_FR_ONE.l[2]) | (w->l[3] ^ CUZK_FR_ONE.l[3])) == 0;
}

/* acc += coeff · w, with the 0/1-witness and ±1-coefficient shortcuts (elements are fully
 * reduced, so 0 and 1 have unique limb patterns). */
static inline void cuzk__r1cs_mac(cuzk_fr_t *acc, uint32_t ci, const cuzk_fr_t *coeffs,
                             const cuzk_fr_t *w) {
  if (cuzk__limbs_zero(w)) return;
  if (ci == CUZK_R1CS_COEFF_ONE) {
    cuzk_fr_add(acc, acc, w);
  } else if (ci == CUZK_R1CS_COEFF_NEG_ONE) {
    cuzk_fr_sub(acc, acc, w);
  } else if (cuzk__limbs_one(w)) {
    cuzk_fr_add(acc, acc, &coeffs[ci]);
  } else {
    cuzk_fr_t t;
    cuzk_fr_mul(&t, w, &coeffs[ci]);
    cuzk_fr_add(acc, acc, &t);
  }
}

void cuzk__r1cs_row_eval(cuzk_fr_t *out, const cuzk_r1cs_matrix_t *mat, uint64_t row,
                         const cuzk_fr_t *coeffs, const cuzk_fr_t *inputs, uint64_t ni,
                         const cuzk_fr_t *aux) {
  cuzk_fr_t acc = CUZK_FR_ZERO;
  const cuzk_r1cs_entry_t *e = mat->entries;
  for (uint64_t k = mat->row_ptr[row], end = mat->row_ptr[row + 1]; k < end; k++) {
    uint64_t col = e[k].col;
    const cuzk_fr_t *w = col < ni ? &inputs[col] : &aux[col - ni];
    cuzk__r1cs_mac(&acc, e[k].coeff, coeffs, w);
  }
  *out = acc;
}

cuzk_err_t cuzk_r1cs_check(const cuzk_r1cs_t *r, const cuzk_fr_t *inputs, uint64_t n_inputs,
                           const cuzk_fr_t *aux, uint64_t n_aux, uint64_t *bad_row, char *errstr,
                           size_t errstr_size) {
  if (n_inputs != r->ni || n_aux != r->naux)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "r1cs_check: witness has %llu inputs / %llu aux, system %llu / %llu",
                     (unsigned long long)n_inputs, (unsigned long long)n_aux,
                     (unsigned long long)r->ni, (unsigned long long)r->naux);
  if (n_inputs == 0 || !cuzk_fr_is_one(&inputs[0]))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "r1cs_check: input 0 is not 1");
  for (uint64_t row = 0; row < r->m; row++) {
    cuzk_fr_t a, b, c;
    cuzk__r1cs_row_eval(&a, &r->mat[0], row, r->coeffs, inputs, r->ni, aux);
    cuzk__r1cs_row_eval(&b, &r->mat[1], row, r->coeffs, inputs, r->ni, aux);
    cuzk__r1cs_row_eval(&c, &r->mat[2], row, r->coeffs, inputs, r->ni, aux);
    cuzk_fr_mul(&a, &a, &b);
    if (!cuzk_fr_eq(&a, &c)) {
      if (bad_row) *bad_row = row;
      const char *name = cuzk_r1cs_constraint_name(r, row);
      return cuzk_errf(CUZK_ERR_UNSATISFIED, errstr, errstr_size,
                       "constraint %llu%s%s%s is not satisfied", (unsigned long long)row,
                       name ? " (" : "", name ? name : "", name ? ")" : "");
    }
  }
  return CUZK_OK;
}

/* ---- SpMV ------------------------------------------------------------------------------- */

/* Row blocks are multiples of CUZK__SPMV_ALIGN rows (64 · 32 B = 2 KiB, whole cache lines in every
 * output), so no two threads write the same line; rows CUZK__SPMV_PREFETCH ahead have their A
 * operands prefetched (A is where the circuit reads far-away variables). */
#define CUZK__SPMV_ALIGN 64u
#define CUZK__SPMV_MIN_ROWS 4096u
#define CUZK__SPMV_PREFETCH 8u
#define CUZK__SPMV_SUB 512u /* rows per A/B/C round: 16 KiB of each output */

typedef struct {
  const cuzk_r1cs_t *r;
  const cuzk_fr_t *inputs, *aux;
  cuzk_fr_t *out[3];
  uint64_t n, blocks_rows;
  size_t chunks;
} cuzk__spmv_job_t;

static inline const cuzk_fr_t *cuzk__wit(const cuzk_fr_t *inputs, const cuzk_fr_t *aux,
                                         uint64_t ni, uint32_t col) {
  return col < ni ? &inputs[col] : &aux[col - ni];
}

/* One row of one matrix, the fast way: inlined add/sub, ±1 coefficients by index, witness 0
 * skipped and 1 turned into an add of the coefficient. Same field results as cuzk__r1cs_mac. */
static inline void cuzk__spmv_row(cuzk_fr_t *out, const cuzk_r1cs_entry_t *e, uint64_t k,
                                  uint64_t end, const cuzk_fr_t *coeffs, const cuzk_fr_t *inputs,
                                  const cuzk_fr_t *aux, uint64_t ni) {
  if (end - k == 1 && e[k].coeff == CUZK_R1CS_COEFF_ONE) {
    *out = *cuzk__wit(inputs, aux, ni, e[k].col);
    return;
  }
  cuzk_fr_t acc = CUZK_FR_ZERO;
  for (; k < end; k++) {
    const cuzk_fr_t *w = cuzk__wit(inputs, aux, ni, e[k].col);
    uint32_t ci = e[k].coeff;
    if (cuzk__limbs_zero(w)) continue;
    if (ci == CUZK_R1CS_COEFF_ONE) {
      cuzk__mont_add(acc.l, acc.l, w->l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
    } else if (ci == CUZK_R1CS_COEFF_NEG_ONE) {
      cuzk__mont_sub(acc.l, acc.l, w->l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
    } else if (cuzk__limbs_one(w)) {
      cuzk__mont_add(acc.l, acc.l, coeffs[ci].l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
    } else {
      cuzk_fr_t t;
      cuzk_fr_mul(&t, w, &coeffs[ci]);
      cuzk__mont_add(acc.l, acc.l, t.l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
    }
  }
  *out = acc;
}

static void cuzk__spmv_chunk(void *ctx, size_t i) {
  const cuzk__spmv_job_t *j = ctx;
  const cuzk_r1cs_t *r = j->r;
  uint64_t n = j->n, m = r->m, ni = r->ni;
  uint64_t lo = j->blocks_rows * i, hi = lo + j->blocks_rows;
  if (hi > n) hi = n;
  uint64_t c_hi = hi < m ? hi : m;
  const cuzk_fr_t *in = j->inputs, *aux = j->aux, *cf = r->coeffs;
  /* A, B and C of one sub-block in turn, so the witness values a sub-block touches are still in
   * L1/L2 when B and C read them again */
  for (uint64_t s0 = lo; s0 < c_hi; s0 += CUZK__SPMV_SUB) {
    uint64_t s1 = s0 + CUZK__SPMV_SUB < c_hi ? s0 + CUZK__SPMV_SUB : c_hi;
    for (int k = 0; k < 3; k++) {
      const cuzk_r1cs_matrix_t *mat = &r->mat[k];
      const uint64_t *rp = mat->row_ptr;
      const cuzk_r1cs_entry_t *e = mat->entries;
      cuzk_fr_t *out = j->out[k];
      for (uint64_t row = s0; row < s1; row++) {
        if (k == 0 && row + CUZK__SPMV_PREFETCH < c_hi) {
          uint64_t pr = row + CUZK__SPMV_PREFETCH;
          for (uint64_t q = rp[pr]; q < rp[pr + 1]; q++)
            __builtin_prefetch(cuzk__wit(in, aux, ni, e[q].col));
        }
        cuzk__spmv_row(&out[row], e, rp[row], rp[row + 1], cf, in, aux, ni);
      }
    }
  }
  for (int k = 0; k < 3; k++) {
    cuzk_fr_t *out = j->out[k];
    for (uint64_t row = lo > m ? lo : m; row < hi; row++) {
      uint64_t q = row - m;
      out[row] = (k == 0 && q < ni) ? in[q] : CUZK_FR_ZERO;
    }
  }
}

static cuzk_err_t cuzk__spmv(cuzk_pool_t *pool, unsigned threads, const cuzk_r1cs_t *r,
                             const cuzk_fr_t *inputs, uint64_t n_inputs, const cuzk_fr_t *aux,
                             uint64_t n_aux, cuzk_fr_t *a, cuzk_fr_t *b, cuzk_fr_t *c, uint64_t n) {
  assert(r && a && b && c);
  if (n_inputs != r->ni || n_aux != r->naux || n < r->m + r->ni || (!aux && n_aux) || !inputs)
    return CUZK_ERR_INVALID_ARG;
  cuzk__spmv_job_t j = {.r = r, .inputs = inputs, .aux = aux, .out = {a, b, c}, .n = n};
  uint64_t chunks = (uint64_t)threads * 4, most = n / CUZK__SPMV_MIN_ROWS;
  if (chunks > most) chunks = most;
  if (chunks == 0) chunks = 1;
  uint64_t per = (n + chunks - 1) / chunks;
  per = (per + CUZK__SPMV_ALIGN - 1) / CUZK__SPMV_ALIGN * CUZK__SPMV_ALIGN;
  j.blocks_rows = per;
  j.chunks = (size_t)((n + per - 1) / per);
  cuzk_pool_parallel_for(pool, j.chunks, cuzk__spmv_chunk, &j);
  return CUZK_OK;
}

cuzk_err_t cuzk_r1cs_spmv(const cuzk_r1cs_t *r, const cuzk_fr_t *inputs, uint64_t n_inputs,
                          const cuzk_fr_t *aux, uint64_t n_aux, cuzk_fr_t *a, cuzk_fr_t *b,
                          cuzk_fr_t *c, uint64_t n) {
  cuzk_pool_t *pool = cuzk_pool_global();
  return cuzk__spmv(pool, pool ? cuzk_pool_size(pool) + 1 : 1, r, inputs, n_inputs, aux, n_aux, a,
                    b, c, n);
}

cuzk_err_t cuzk_r1cs_spmv_on(cuzk_pool_t *pool, const cuzk_r1cs_t *r, const cuzk_fr_t *inputs,
                             uint64_t n_inputs, const cuzk_fr_t *aux, uint64_t n_aux, cuzk_fr_t *a,
                             cuzk_fr_t *b, cuzk_fr_t *c, uint64_t n) {
  return cuzk__spmv(pool, pool ? cuzk_pool_size(pool) + 1 : 1, r, inputs, n_inputs, aux, n_aux, a,
                    b, c, n);
}
