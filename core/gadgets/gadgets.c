#include "core/gadgets/gadgets.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash/poseidon.h"

static const cuzk_fr_t fr_zero = {{0}};

/* Enforces a · b = c when recording, counts otherwise (the LCs are ignored then). */
static void enforce(cuzk_cs_t *cs, const cuzk_lc_t *a, const cuzk_lc_t *b, const cuzk_lc_t *c) {
  cuzk_cs_enforce(cs, a, b, c);
}

static void lc1(cuzk_lc_t *lc, cuzk_var_t v) {
  cuzk_lc_init(lc);
  cuzk_lc_add(lc, v);
}

cuzk_num_t cuzk_num_alloc(cuzk_cs_t *cs, const cuzk_fr_t *v) {
  cuzk_num_t r;
  r.val = v ? *v : fr_zero;
  r.var = cuzk_cs_alloc_aux(cs, cuzk_cs_has_values(cs) ? &r.val : NULL);
  return r;
}

/* x · y = z with single-variable LCs. */
static void enforce_vars(cuzk_cs_t *cs, cuzk_var_t x, cuzk_var_t y, cuzk_var_t z) {
  if (!cuzk_cs_is_recording(cs)) {
    cuzk_lc_t e;
    cuzk_lc_init(&e);
    enforce(cs, &e, &e, &e);
    return;
  }
  cuzk_lc_t a, b, c;
  lc1(&a, x);
  lc1(&b, y);
  lc1(&c, z);
  enforce(cs, &a, &b, &c);
}

cuzk_var_t cuzk_num_inputize(cuzk_cs_t *cs, const cuzk_num_t *x) {
  cuzk_var_t in = cuzk_cs_alloc_input(cs, cuzk_cs_has_values(cs) ? &x->val : NULL);
  enforce_vars(cs, in, CUZK_VAR_ONE, x->var);
  return in;
}

void cuzk_num_equal(cuzk_cs_t *cs, const cuzk_num_t *a, const cuzk_num_t *b) {
  enforce_vars(cs, a->var, CUZK_VAR_ONE, b->var);
}

static cuzk_var_t alloc_bool(cuzk_cs_t *cs, bool v) {
  cuzk_fr_t f;
  cuzk_fr_from_u64(&f, v ? 1 : 0);
  return cuzk_cs_alloc_aux(cs, cuzk_cs_has_values(cs) ? &f : NULL);
}

cuzk_bit_t cuzk_bit_alloc(cuzk_cs_t *cs, bool v) {
  cuzk_bit_t r = {alloc_bool(cs, v), v};
  cuzk_lc_t a, b, c;
  cuzk_lc_init(&a);
  cuzk_lc_init(&b);
  cuzk_lc_init(&c);
  if (cuzk_cs_is_recording(cs)) {
    cuzk_lc_add(&a, CUZK_VAR_ONE);
    cuzk_lc_sub(&a, r.var);
    cuzk_lc_add(&b, r.var);
  }
  enforce(cs, &a, &b, &c);
  return r;
}

cuzk_bit_t cuzk_bit_and(cuzk_cs_t *cs, const cuzk_bit_t *a, const cuzk_bit_t *b) {
  cuzk_bit_t r;
  r.val = a->val && b->val;
  r.var = alloc_bool(cs, r.val);
  enforce_vars(cs, a->var, b->var, r.var);
  return r;
}

cuzk_bit_t cuzk_bit_nor(cuzk_cs_t *cs, const cuzk_bit_t *a, const cuzk_bit_t *b) {
  cuzk_bit_t r;
  r.val = !a->val && !b->val;
  r.var = alloc_bool(cs, r.val);
  cuzk_lc_t la, lb, lc;
  cuzk_lc_init(&la);
  cuzk_lc_init(&lb);
  cuzk_lc_init(&lc);
  if (cuzk_cs_is_recording(cs)) {
    cuzk_lc_add(&la, CUZK_VAR_ONE);
    cuzk_lc_sub(&la, a->var);
    cuzk_lc_add(&lb, CUZK_VAR_ONE);
    cuzk_lc_sub(&lb, b->var);
    cuzk_lc_add(&lc, r.var);
  }
  enforce(cs, &la, &lb, &lc);
  return r;
}

cuzk_num_t cuzk_num_pick(cuzk_cs_t *cs, const cuzk_bit_t *cond, const cuzk_num_t *a,
                         const cuzk_num_t *b) {
  cuzk_num_t c = cuzk_num_alloc(cs, cond->val ? &a->val : &b->val);
  cuzk_lc_t la, lb, lc;
  cuzk_lc_init(&la);
  cuzk_lc_init(&lb);
  cuzk_lc_init(&lc);
  if (cuzk_cs_is_recording(cs)) {
    cuzk_lc_add(&la, b->var);
    cuzk_lc_sub(&la, a->var);
    cuzk_lc_add(&lb, cond->var);
    cuzk_lc_add(&lc, b->var);
    cuzk_lc_sub(&lc, c.var);
  }
  enforce(cs, &la, &lb, &lc);
  cuzk_lc_free(&la);
  cuzk_lc_free(&lc);
  return c;
}

/* lc = Σ 2^i bits_i (coefficients built by doubling, as multipack does). */
static void pack_lc(cuzk_lc_t *lc, const cuzk_bit_t *bits, size_t n) {
  cuzk_fr_t coeff;
  cuzk_fr_from_u64(&coeff, 1);
  for (size_t i = 0; i < n; i++) {
    cuzk_lc_add_fr(lc, &coeff, bits[i].var);
    cuzk_fr_dbl(&coeff, &coeff);
  }
}

static void pack_val(cuzk_fr_t *out, const cuzk_bit_t *bits, size_t n) {
  cuzk_fr_t coeff;
  cuzk_fr_from_u64(&coeff, 1);
  *out = fr_zero;
  for (size_t i = 0; i < n; i++) {
    if (bits[i].val) cuzk_fr_add(out, out, &coeff);
    cuzk_fr_dbl(&coeff, &coeff);
  }
}

void cuzk_num_to_bits_le(cuzk_cs_t *cs, cuzk_bit_t bits[CUZK_FR_NUM_BITS], const cuzk_num_t *x) {
  uint64_t raw[CUZK_FR_LIMBS] = {0};
  if (cuzk_cs_has_values(cs)) cuzk_fr_to_raw(raw, &x->val);
  for (unsigned i = 0; i < CUZK_FR_NUM_BITS; i++)
    bits[i] = cuzk_bit_alloc(cs, (raw[i / 64] >> (i % 64)) & 1);
  cuzk_lc_t a, b, c;
  cuzk_lc_init(&a);
  cuzk_lc_init(&b);
  cuzk_lc_init(&c);
  if (cuzk_cs_is_recording(cs)) { /* 0 · 0 = Σ 2^i bits_i - x */
    pack_lc(&c, bits, CUZK_FR_NUM_BITS);
    cuzk_lc_sub(&c, x->var);
  }
  enforce(cs, &a, &b, &c);
  cuzk_lc_free(&c);
}

cuzk_var_t cuzk_pack_into_input(cuzk_cs_t *cs, const cuzk_bit_t *bits, size_t n) {
  assert(n <= 254);
  cuzk_fr_t v = fr_zero;
  if (cuzk_cs_has_values(cs)) pack_val(&v, bits, n);
  cuzk_var_t in = cuzk_cs_alloc_input(cs, cuzk_cs_has_values(cs) ? &v : NULL);
  cuzk_lc_t a, b, c;
  cuzk_lc_init(&a);
  cuzk_lc_init(&b);
  cuzk_lc_init(&c);
  if (cuzk_cs_is_recording(cs)) {
    pack_lc(&a, bits, n);
    cuzk_lc_add(&b, CUZK_VAR_ONE);
    cuzk_lc_add(&c, in);
  }
  enforce(cs, &a, &b, &c);
  cuzk_lc_free(&a);
  return in;
}

/* ---- insertion ------------------------------------------------------------------------ */

void cuzk_insert(cuzk_cs_t *cs, cuzk_num_t *out, unsigned arity, const cuzk_num_t *element,
                 const cuzk_bit_t *bits, const cuzk_num_t *elements) {
  const cuzk_num_t *a = element;
  switch (arity) {
  case 2:
    out[0] = cuzk_num_pick(cs, &bits[0], &elements[0], a);
    out[1] = cuzk_num_pick(cs, &bits[0], a, &elements[0]);
    return;
  case 4: {
    const cuzk_bit_t *b0 = &bits[0], *b1 = &bits[1];
    const cuzk_num_t *b = &elements[0], *c = &elements[1], *d = &elements[2];
    cuzk_num_t t;
    t = cuzk_num_pick(cs, b0, b, a);
    out[0] = cuzk_num_pick(cs, b1, b, &t);
    t = cuzk_num_pick(cs, b0, a, b);
    out[1] = cuzk_num_pick(cs, b1, c, &t);
    t = cuzk_num_pick(cs, b0, d, a);
    out[2] = cuzk_num_pick(cs, b1, &t, c);
    t = cuzk_num_pick(cs, b0, a, d);
    out[3] = cuzk_num_pick(cs, b1, &t, d);
    return;
  }
  case 8: {
    const cuzk_bit_t *b0 = &bits[0], *b1 = &bits[1], *b2 = &bits[2];
    const cuzk_num_t *b = &elements[0], *c = &elements[1], *d = &elements[2], *e = &elements[3],
                     *f = &elements[4], *g = &elements[5], *h = &elements[6];
    cuzk_bit_t nor01 = cuzk_bit_nor(cs, b0, b1);
    cuzk_bit_t and01 = cuzk_bit_and(cs, b0, b1);
    cuzk_num_t t, u;
    t = cuzk_num_pick(cs, &nor01, a, b);
    out[0] = cuzk_num_pick(cs, b2, b, &t);

    t = cuzk_num_pick(cs, b0, a, b);
    u = cuzk_num_pick(cs, b1, c, &t);
    out[1] = cuzk_num_pick(cs, b2, c, &u);

    t = cuzk_num_pick(cs, b0, d, a);
    u = cuzk_num_pick(cs, b1, &t, c);
    out[2] = cuzk_num_pick(cs, b2, d, &u);

    t = cuzk_num_pick(cs, &and01, a, d);
    out[3] = cuzk_num_pick(cs, b2, e, &t);

    t = cuzk_num_pick(cs, &nor01, a, f);
    out[4] = cuzk_num_pick(cs, b2, &t, e);

    t = cuzk_num_pick(cs, b0, a, f);
    u = cuzk_num_pick(cs, b1, g, &t);
    out[5] = cuzk_num_pick(cs, b2, &u, f);

    t = cuzk_num_pick(cs, b0, h, a);
    u = cuzk_num_pick(cs, b1, &t, g);
    out[6] = cuzk_num_pick(cs, b2, &u, g);

    t = cuzk_num_pick(cs, &and01, a, h);
    out[7] = cuzk_num_pick(cs, b2, &t, h);
    return;
  }
  default:
    assert(!"cuzk_insert: arity must be 2, 4 or 8");
  }
}

/* ---- Poseidon ------------------------------------------------------------------------- */

/* Symbolic state: element i is Σ_k coef[i][k] · basis[k] with basis[0] = ONE. The basis
 * restarts after every full round (all elements are then single S-box outputs) and grows by
 * one S-box output per partial round, so it never exceeds 1 + t + R_P.
 *
 * Every linear combination the gadget enforces has coefficients fixed by the parameters alone,
 * so they are computed once per arity (a symbolic run, "capture") and replayed afterwards: a
 * recorded hash then costs one pass over its terms instead of t² · |basis| multiplications per
 * round. The schedule is the list of rows pg_lc_of produced, in call order. */
#define PG_MAX_BASIS (1 + CUZK_POSEIDON_MAX_WIDTH + 64)

typedef struct {
  size_t n_rows;
  uint32_t *row_nb;   /* basis size of each row */
  size_t *row_off;    /* offset of each row in coef */
  cuzk_fr_t *coef;    /* rows back to back */
  size_t cap_rows, cap_coef;
  bool ok;
} pg_sched_t;

/* neptune's optimized constants (poseidon.rs new_with_strength_and_type, preprocessing.rs
 * compress_round_constants with every partial round preprocessed, mds.rs
 * factor_to_sparse_matrixes), which fix the exact linear combinations of its circuit.
 * Matrices act on row vectors: (v · M)_j = Σ_i v_i M[i][j] (neptune apply_matrix). */
#define PG_T CUZK_POSEIDON_MAX_WIDTH
typedef cuzk_fr_t pg_mat_t[PG_T][PG_T];

typedef struct {
  cuzk_fr_t *crc;   /* compressed round constants: 8t + R_P */
  pg_mat_t pre_sparse;
  pg_mat_t *sparse; /* R_P matrices, dense form of neptune's SparseMatrix */
  bool ok;
} pg_consts_t;

static void mat_mul(pg_mat_t out, pg_mat_t a, pg_mat_t b, unsigned t) {
  pg_mat_t r;
  cuzk_fr_t tmp;
  for (unsigned i = 0; i < t; i++)
    for (unsigned j = 0; j < t; j++) {
      r[i][j] = CUZK_FR_ZERO;
      for (unsigned k = 0; k < t; k++) {
        cuzk_fr_mul(&tmp, &a[i][k], &b[k][j]);
        cuzk_fr_add(&r[i][j], &r[i][j], &tmp);
      }
    }
  memcpy(out, r, sizeof r);
}

/* out = v · M (out may alias v). */
static void vec_mat(cuzk_fr_t *out, const cuzk_fr_t *v, pg_mat_t m, unsigned t) {
  cuzk_fr_t r[PG_T], tmp;
  for (unsigned j = 0; j < t; j++) {
    r[j] = CUZK_FR_ZERO;
    for (unsigned i = 0; i < t; i++) {
      cuzk_fr_mul(&tmp, &m[i][j], &v[i]);
      cuzk_fr_add(&r[j], &r[j], &tmp);
    }
  }
  memcpy(out, r, t * sizeof *r);
}

/* Gauss-Jordan inverse of an n x n matrix (the inverse is unique; MDS minors are invertible).
 * False when singular. */
static bool mat_inv(pg_mat_t out, pg_mat_t in, unsigned n) {
  pg_mat_t a, r;
  memcpy(a, in, sizeof a);
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++) r[i][j] = i == j ? CUZK_FR_ONE : CUZK_FR_ZERO;
  for (unsigned c = 0; c < n; c++) {
    unsigned piv = c;
    while (piv < n && cuzk_fr_is_zero(&a[piv][c])) piv++;
    if (piv == n) return false;
    if (piv != c)
      for (unsigned j = 0; j < n; j++) {
        cuzk_fr_t x = a[c][j];
        a[c][j] = a[piv][j];
        a[piv][j] = x;
        x = r[c][j];
        r[c][j] = r[piv][j];
        r[piv][j] = x;
      }
    cuzk_fr_t inv, f, tmp;
    cuzk_fr_inv(&inv, &a[c][c]);
    for (unsigned j = 0; j < n; j++) {
      cuzk_fr_mul(&a[c][j], &a[c][j], &inv);
      cuzk_fr_mul(&r[c][j], &r[c][j], &inv);
    }
    for (unsigned i = 0; i < n; i++) {
      if (i == c || cuzk_fr_is_zero(&a[i][c])) continue;
      f = a[i][c];
      for (unsigned j = 0; j < n; j++) {
        cuzk_fr_mul(&tmp, &f, &a[c][j]);
        cuzk_fr_sub(&a[i][j], &a[i][j], &tmp);
        cuzk_fr_mul(&tmp, &f, &r[c][j]);
        cuzk_fr_sub(&r[i][j], &r[i][j], &tmp);
      }
    }
  }
  memcpy(out, r, sizeof r);
  return true;
}

/* neptune derive_mds_matrices: m' and m'' of m (m = m' · m''). */
static bool derive_primes(pg_mat_t mp, pg_mat_t mdp, pg_mat_t m, unsigned t) {
  pg_mat_t hat, hat_inv;
  for (unsigned i = 1; i < t; i++)
    for (unsigned j = 1; j < t; j++) hat[i - 1][j - 1] = m[i][j];
  if (!mat_inv(hat_inv, hat, t - 1)) return false;
  cuzk_fr_t w[PG_T], w_hat[PG_T];
  for (unsigned i = 1; i < t; i++) w[i - 1] = m[i][0];
  vec_mat(w_hat, w, hat_inv, t - 1);
  for (unsigned i = 0; i < t; i++)
    for (unsigned j = 0; j < t; j++) {
      mp[i][j] = CUZK_FR_ZERO;
      mdp[i][j] = CUZK_FR_ZERO;
    }
  mp[0][0] = CUZK_FR_ONE;
  for (unsigned i = 1; i < t; i++)
    for (unsigned j = 1; j < t; j++) mp[i][j] = m[i][j];
  for (unsigned j = 0; j < t; j++) mdp[0][j] = m[0][j];
  for (unsigned i = 1; i < t; i++) {
    mdp[i][0] = w_hat[i - 1];
    mdp[i][i] = CUZK_FR_ONE;
  }
  return true;
}

static pg_consts_t pg_consts[4];
static pthread_once_t pg_consts_once[4] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                           PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};

static int pg_slot(unsigned arity) {
  return arity == 2 ? 0 : arity == 4 ? 1 : arity == 8 ? 2 : 3;
}

static void pg_consts_init(unsigned arity) {
  pg_consts_t *c = &pg_consts[pg_slot(arity)];
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  if (!p) return;
  unsigned t = p->width, half = p->full_rounds / 2, np = p->partial_rounds;
  pg_mat_t m, m_inv;
  for (unsigned i = 0; i < t; i++)
    for (unsigned j = 0; j < t; j++) m[i][j] = p->mds[i][j];
  c->crc = malloc((8 * (size_t)t + np) * sizeof *c->crc);
  c->sparse = malloc(np * sizeof *c->sparse);
  cuzk_fr_t *acc_keys = malloc(np * sizeof *acc_keys);
  if (!c->crc || !c->sparse || !acc_keys || !mat_inv(m_inv, m, t)) {
    free(acc_keys);
    return;
  }
  const cuzk_fr_t *rk = p->rc; /* rk + r * t: round r */
  cuzk_fr_t *w = c->crc;
  memcpy(w, rk, t * sizeof *w);
  w += t;
  for (unsigned i = 0; i + 1 < half; i++, w += t) vec_mat(w, rk + (size_t)(i + 1) * t, m_inv, t);
  unsigned final_round = half + np;
  cuzk_fr_t acc[PG_T], inv[PG_T];
  memcpy(acc, rk + (size_t)final_round * t, t * sizeof *acc);
  for (unsigned i = 0; i < np; i++) {
    const cuzk_fr_t *prev = rk + (size_t)(final_round - i - 1) * t;
    vec_mat(inv, acc, m_inv, t);
    acc_keys[i] = inv[0];
    inv[0] = CUZK_FR_ZERO;
    for (unsigned j = 0; j < t; j++) cuzk_fr_add(&acc[j], &prev[j], &inv[j]);
  }
  vec_mat(w, acc, m_inv, t);
  w += t;
  for (unsigned i = 0; i < np; i++) *w++ = acc_keys[np - 1 - i];
  for (unsigned i = 1; i < half; i++, w += t)
    vec_mat(w, rk + (size_t)(i + final_round) * t, m_inv, t);
  free(acc_keys);

  /* factor_to_sparse_matrices: curr = m; np times: m'' of curr collected, curr = m · m'(curr);
   * pre_sparse = curr; the m'' list reversed. */
  pg_mat_t curr, mp, mdp;
  memcpy(curr, m, sizeof curr);
  for (unsigned k = 0; k < np; k++) {
    if (!derive_primes(mp, mdp, curr, t)) return;
    memcpy(c->sparse[np - 1 - k], mdp, sizeof mdp);
    mat_mul(curr, m, mp, t);
  }
  memcpy(c->pre_sparse, curr, sizeof curr);
  c->ok = true;
}

static void pg_consts_2(void) { pg_consts_init(2); }
static void pg_consts_4(void) { pg_consts_init(4); }
static void pg_consts_8(void) { pg_consts_init(8); }
static void pg_consts_11(void) { pg_consts_init(11); }

static const pg_consts_t *pg_consts_of(unsigned arity) {
  static void (*const init[4])(void) = {pg_consts_2, pg_consts_4, pg_consts_8, pg_consts_11};
  int k = pg_slot(arity);
  pthread_once(&pg_consts_once[k], init[k]);
  return pg_consts[k].ok ? &pg_consts[k] : NULL;
}

typedef struct {
  cuzk_cs_t *cs;
  const cuzk_poseidon_params_t *p;
  const pg_consts_t *k;
  bool rec, vals, sym;
  pg_sched_t *cap; /* capture: rows are appended here */
  const pg_sched_t *rep; /* replay: rows are read from here */
  size_t row;
  unsigned nb;
  cuzk_var_t basis[PG_MAX_BASIS];
  cuzk_fr_t coef[CUZK_POSEIDON_MAX_WIDTH][PG_MAX_BASIS];
  cuzk_fr_t val[CUZK_POSEIDON_MAX_WIDTH];
  cuzk_lc_t lc[3];
} pg_t;

static void pg_cap_row(pg_t *g, unsigned i) {
  pg_sched_t *c = g->cap;
  if (!c->ok) return;
  if (c->n_rows == c->cap_rows) {
    size_t nc = c->cap_rows ? 2 * c->cap_rows : 256;
    uint32_t *a = realloc(c->row_nb, nc * sizeof *a);
    if (a) c->row_nb = a;
    size_t *b = realloc(c->row_off, nc * sizeof *b);
    if (b) c->row_off = b;
    if (!a || !b) {
      c->ok = false;
      return;
    }
    c->cap_rows = nc;
  }
  size_t off = c->n_rows ? c->row_off[c->n_rows - 1] + c->row_nb[c->n_rows - 1] : 0;
  if (off + g->nb > c->cap_coef) {
    size_t nc = c->cap_coef ? 2 * c->cap_coef : 4096;
    while (nc < off + g->nb) nc *= 2;
    cuzk_fr_t *q = realloc(c->coef, nc * sizeof *q);
    if (!q) {
      c->ok = false;
      return;
    }
    c->coef = q;
    c->cap_coef = nc;
  }
  memcpy(c->coef + off, g->coef[i], g->nb * sizeof(cuzk_fr_t));
  c->row_nb[c->n_rows] = g->nb;
  c->row_off[c->n_rows] = off;
  c->n_rows++;
}

/* lc := element i's linear combination (recording only). */
static void pg_lc_of(pg_t *g, cuzk_lc_t *lc, unsigned i) {
  cuzk_lc_clear(lc);
  if (g->sym) {
    if (g->cap) pg_cap_row(g, i);
    for (unsigned k = 0; k < g->nb; k++) cuzk_lc_add_fr(lc, &g->coef[i][k], g->basis[k]);
    return;
  }
  const pg_sched_t *r = g->rep;
  assert(g->row < r->n_rows);
  const cuzk_fr_t *c = r->coef + r->row_off[g->row];
  unsigned nb = r->row_nb[g->row];
  g->row++;
  assert(nb <= g->nb);
  for (unsigned k = 0; k < nb; k++) cuzk_lc_add_fr(lc, &c[k], g->basis[k]);
}

static cuzk_var_t pg_alloc(pg_t *g, const cuzk_fr_t *v) {
  return cuzk_cs_alloc_aux(g->cs, g->vals ? v : NULL);
}

static void pg_enforce_vars(pg_t *g, cuzk_var_t x, cuzk_var_t y, cuzk_var_t z) {
  if (g->rec) {
    cuzk_lc_clear(&g->lc[0]);
    cuzk_lc_clear(&g->lc[1]);
    cuzk_lc_clear(&g->lc[2]);
    cuzk_lc_add(&g->lc[0], x);
    cuzk_lc_add(&g->lc[1], y);
    cuzk_lc_add(&g->lc[2], z);
  }
  enforce(g->cs, &g->lc[0], &g->lc[1], &g->lc[2]);
}

/* Allocates element i's linear combination v with lc · 1 = v; `x` is its value. */
static cuzk_var_t pg_ensure_allocated(pg_t *g, unsigned i, const cuzk_fr_t *x) {
  cuzk_var_t v = pg_alloc(g, x);
  if (g->rec) {
    pg_lc_of(g, &g->lc[0], i);
    cuzk_lc_clear(&g->lc[1]);
    cuzk_lc_clear(&g->lc[2]);
    cuzk_lc_add(&g->lc[1], CUZK_VAR_ONE);
    cuzk_lc_add(&g->lc[2], v);
  }
  enforce(g->cs, &g->lc[0], &g->lc[1], &g->lc[2]);
  return v;
}

/* y^5 + post with one constraint each for y², y⁴ and the product (neptune quintic_s_box and,
 * in the first round, quintic_s_box_pre_add): in the first round element i is the input
 * variable and y = input + pre inside the constraints; later y is element i's linear
 * combination, allocated first (one more constraint). `post` may be NULL (terminal round).
 * Returns the variable holding the result and sets the element's value to it. */
static cuzk_var_t pg_sbox(pg_t *g, unsigned i, const cuzk_fr_t *pre, const cuzk_fr_t *post) {
  cuzk_fr_t y = g->val[i], y2, y4, y5;
  if (g->vals) {
    if (pre) cuzk_fr_add(&y, &y, pre);
    cuzk_fr_sqr(&y2, &y);
    cuzk_fr_sqr(&y4, &y2);
    cuzk_fr_mul(&y5, &y4, &y);
    if (post) cuzk_fr_add(&y5, &y5, post);
    g->val[i] = y5;
  }
  cuzk_var_t l, l2;
  if (pre) {
    l = g->basis[i]; /* first round: basis slot i holds input i - 1 */
    l2 = pg_alloc(g, &y2);
    if (g->rec) {
      cuzk_lc_clear(&g->lc[0]);
      cuzk_lc_add(&g->lc[0], l);
      cuzk_lc_add_fr(&g->lc[0], pre, CUZK_VAR_ONE);
      cuzk_lc_copy(&g->lc[1], &g->lc[0]);
      cuzk_lc_clear(&g->lc[2]);
      cuzk_lc_add(&g->lc[2], l2);
    }
    enforce(g->cs, &g->lc[0], &g->lc[1], &g->lc[2]);
  } else {
    l = pg_ensure_allocated(g, i, &y);
    l2 = pg_alloc(g, &y2);
    pg_enforce_vars(g, l, l, l2);
  }
  cuzk_var_t l4 = pg_alloc(g, &y4);
  pg_enforce_vars(g, l2, l2, l4);
  cuzk_var_t l5 = pg_alloc(g, &y5);
  if (g->rec) {
    cuzk_lc_clear(&g->lc[0]);
    cuzk_lc_clear(&g->lc[1]);
    cuzk_lc_clear(&g->lc[2]);
    cuzk_lc_add(&g->lc[0], l);
    if (pre) cuzk_lc_add_fr(&g->lc[0], pre, CUZK_VAR_ONE);
    cuzk_lc_add(&g->lc[1], l4);
    cuzk_lc_add(&g->lc[2], l5);
    if (post) {
      cuzk_fr_t neg;
      cuzk_fr_neg(&neg, post);
      cuzk_lc_add_fr(&g->lc[2], &neg, CUZK_VAR_ONE);
    }
  }
  enforce(g->cs, &g->lc[0], &g->lc[1], &g->lc[2]);
  return l5;
}

static void pg_set_single(pg_t *g, unsigned i, unsigned k) {
  memset(g->coef[i], 0, g->nb * sizeof(cuzk_fr_t));
  cuzk_fr_from_u64(&g->coef[i][k], 1);
}

/* state := state · M (values always when kept; symbolic coefficients when capturing). */
static void pg_mix(pg_t *g, pg_mat_t m, bool sparse) {
  unsigned t = g->p->width;
  if (g->vals && sparse) { /* m = [[d, v], [w, I]]: 2t - 1 products instead of t² */
    cuzk_fr_t y0 = CUZK_FR_ZERO, tmp;
    for (unsigned i = 0; i < t; i++) {
      cuzk_fr_mul(&tmp, &g->val[i], &m[i][0]);
      cuzk_fr_add(&y0, &y0, &tmp);
    }
    for (unsigned j = 1; j < t; j++) {
      cuzk_fr_mul(&tmp, &g->val[0], &m[0][j]);
      cuzk_fr_add(&g->val[j], &g->val[j], &tmp);
    }
    g->val[0] = y0;
  } else if (g->vals) {
    vec_mat(g->val, g->val, m, t);
  }
  if (!g->sym) return;
  static _Thread_local cuzk_fr_t nc[CUZK_POSEIDON_MAX_WIDTH][PG_MAX_BASIS];
  cuzk_fr_t tmp;
  for (unsigned j = 0; j < t; j++)
    for (unsigned k = 0; k < g->nb; k++) {
      nc[j][k] = fr_zero;
      for (unsigned i = 0; i < t; i++) {
        if (cuzk_fr_is_zero(&g->coef[i][k]) || cuzk_fr_is_zero(&m[i][j])) continue;
        cuzk_fr_mul(&tmp, &g->coef[i][k], &m[i][j]);
        cuzk_fr_add(&nc[j][k], &nc[j][k], &tmp);
      }
    }
  for (unsigned j = 0; j < t; j++) memcpy(g->coef[j], nc[j], g->nb * sizeof(cuzk_fr_t));
}

/* The S-boxes of a full round (all elements allocated afterwards: basis restarts). */
static void pg_full_round(pg_t *g, const cuzk_fr_t *post) {
  unsigned t = g->p->width;
  cuzk_var_t outv[CUZK_POSEIDON_MAX_WIDTH];
  for (unsigned i = 0; i < t; i++) outv[i] = pg_sbox(g, i, NULL, post ? &post[i] : NULL);
  g->nb = 1 + t;
  for (unsigned i = 0; i < t; i++) {
    g->basis[1 + i] = outv[i];
    if (g->sym) pg_set_single(g, i, 1 + i);
  }
}

static void pg_run(pg_t *g, const cuzk_num_t *in, cuzk_num_t *res) {
  const cuzk_poseidon_params_t *p = g->p;
  const pg_consts_t *k = g->k;
  unsigned t = p->width, half = p->full_rounds / 2, np = p->partial_rounds;
  assert(1 + t + np <= PG_MAX_BASIS);
  pg_mat_t m;
  for (unsigned i = 0; i < t; i++)
    for (unsigned j = 0; j < t; j++) m[i][j] = p->mds[i][j];
  for (int q = 0; q < 3; q++) cuzk_lc_init(&g->lc[q]);
  g->row = 0;
  const cuzk_fr_t *crc = k->crc;

  /* first round: pre-add keys crc[0..t), post-add keys crc[t..2t); the tag is a constant */
  const cuzk_fr_t *pre = crc, *post = crc + t;
  crc += 2 * t;
  g->nb = t; /* basis: ONE, then input i - 1 in slot i */
  g->basis[0] = CUZK_VAR_ONE;
  for (unsigned i = 1; i < t; i++) {
    g->basis[i] = in[i - 1].var;
    if (g->vals) g->val[i] = in[i - 1].val;
  }
  cuzk_fr_t tag5 = p->merkle_tag, x4;
  cuzk_fr_add(&tag5, &tag5, &pre[0]);
  cuzk_fr_sqr(&x4, &tag5);
  cuzk_fr_sqr(&x4, &x4);
  cuzk_fr_mul(&tag5, &tag5, &x4);
  cuzk_fr_add(&tag5, &tag5, &post[0]);
  g->val[0] = tag5;
  for (unsigned i = 1; i < t; i++) g->basis[i] = pg_sbox(g, i, &pre[i], &post[i]);
  if (g->sym) {
    for (unsigned i = 1; i < t; i++) pg_set_single(g, i, i);
    memset(g->coef[0], 0, g->nb * sizeof(cuzk_fr_t));
    g->coef[0][0] = tag5;
  }
  unsigned cr = 0; /* neptune's current_round, which picks the matrix */
#define PG_MIX()                                                                                 \
  do {                                                                                           \
    if (cr == half - 1)                                                                          \
      pg_mix(g, (cuzk_fr_t(*)[PG_T])k->pre_sparse, false);                                       \
    else if (cr > half - 1 && cr < half + np)                                                    \
      pg_mix(g, k->sparse[cr - half], true);                                                     \
    else                                                                                         \
      pg_mix(g, m, false);                                                                       \
    cr++;                                                                                        \
  } while (0)
  PG_MIX();
  for (unsigned r = 1; r < half; r++, crc += t) {
    pg_full_round(g, crc);
    PG_MIX();
  }
  for (unsigned r = 0; r < np; r++, crc++) {
    cuzk_var_t o = pg_sbox(g, 0, NULL, crc);
    assert(g->nb < PG_MAX_BASIS);
    g->basis[g->nb++] = o;
    if (g->sym) {
      for (unsigned i = 1; i < t; i++) g->coef[i][g->nb - 1] = fr_zero;
      pg_set_single(g, 0, g->nb - 1);
    }
    PG_MIX();
  }
  for (unsigned r = 0; r + 1 < half; r++, crc += t) {
    pg_full_round(g, crc);
    PG_MIX();
  }
  pg_full_round(g, NULL);
  PG_MIX();
#undef PG_MIX
  res->val = g->vals ? g->val[1] : fr_zero;
  res->var = pg_ensure_allocated(g, 1, &res->val);
  for (int q = 0; q < 3; q++) cuzk_lc_free(&g->lc[q]);
}

static pg_sched_t pg_scheds[4];
static pthread_once_t pg_once[4] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                    PTHREAD_ONCE_INIT};

static void pg_capture(unsigned arity) {
  pg_sched_t *c = &pg_scheds[pg_slot(arity)];
  c->ok = true;
  char err[64];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD, err, sizeof err);
  pg_t *g = calloc(1, sizeof *g);
  if (!cs || !g) {
    c->ok = false;
  } else {
    cuzk_num_t in[CUZK_POSEIDON_MAX_WIDTH], res;
    for (unsigned i = 0; i < arity; i++) in[i] = cuzk_num_alloc(cs, NULL);
    g->cs = cs;
    g->p = cuzk_poseidon_params(arity);
    g->k = pg_consts_of(arity);
    if (!g->k) c->ok = false;
    g->rec = true;
    g->sym = true;
    g->cap = c;
    if (c->ok) pg_run(g, in, &res);
    if (cuzk_cs_error(cs, err, sizeof err) != CUZK_OK) c->ok = false;
  }
  free(g);
  cuzk_cs_free(cs);
}

static void pg_capture_2(void) { pg_capture(2); }
static void pg_capture_4(void) { pg_capture(4); }
static void pg_capture_8(void) { pg_capture(8); }
static void pg_capture_11(void) { pg_capture(11); }

cuzk_num_t cuzk_poseidon_gadget(cuzk_cs_t *cs, unsigned arity, const cuzk_num_t *in) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert(p);
  static _Thread_local pg_t g_store;
  pg_t *g = &g_store;
  g->cs = cs;
  g->p = p;
  g->k = pg_consts_of(arity);
  assert(g->k); /* only fails without memory at first use */
  g->rec = cuzk_cs_is_recording(cs);
  g->vals = cuzk_cs_has_values(cs);
  g->sym = false;
  g->cap = NULL;
  g->rep = NULL;
  if (g->rec) {
    static void (*const init[4])(void) = {pg_capture_2, pg_capture_4, pg_capture_8,
                                          pg_capture_11};
    int k = pg_slot(arity);
    pthread_once(&pg_once[k], init[k]);
    if (pg_scheds[k].ok)
      g->rep = &pg_scheds[k];
    else
      g->sym = true; /* no memory for the schedule: compute the combinations directly */
  }
  cuzk_num_t res;
  pg_run(g, in, &res);
  return res;
}

/* ---- Merkle inclusion ----------------------------------------------------------------- */

void cuzk_por_gadget(cuzk_cs_t *cs, const cuzk_fr_t *leaf, const unsigned *arities, size_t levels,
                     const uint32_t *indices, const cuzk_fr_t *siblings, const cuzk_num_t *root) {
  assert(levels <= CUZK_POR_MAX_LEVELS);
  cuzk_bit_t bits[254];
  size_t nbits = 0;
  cuzk_num_t cur = cuzk_num_alloc(cs, leaf);
  for (size_t l = 0; l < levels; l++) {
    unsigned arity = arities[l], lg = 0;
    while ((1u << lg) < arity) lg++;
    assert((1u << lg) == arity && arity >= 2 && arity <= 8 && nbits + lg <= 254);
    cuzk_bit_t *ib = &bits[nbits];
    for (unsigned i = 0; i < lg; i++) ib[i] = cuzk_bit_alloc(cs, (indices[l] >> i) & 1);
    nbits += lg;
    cuzk_num_t sib[7], ins[8];
    for (unsigned i = 0; i + 1 < arity; i++) sib[i] = cuzk_num_alloc(cs, &siblings[i]);
    siblings += arity - 1;
    cuzk_insert(cs, ins, arity, &cur, ib, sib);
    cur = cuzk_poseidon_gadget(cs, arity, ins);
  }
  cuzk_pack_into_input(cs, bits, nbits);
  cuzk_num_equal(cs, &cur, root);
}
