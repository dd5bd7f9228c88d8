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
  if (cuzk_cs_is_recording(cs)) {
    pack_lc(&a, bits, CUZK_FR_NUM_BITS);
    cuzk_lc_add(&b, CUZK_VAR_ONE);
    cuzk_lc_add(&c, x->var);
  }
  enforce(cs, &a, &b, &c);
  cuzk_lc_free(&a);
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

typedef struct {
  cuzk_cs_t *cs;
  const cuzk_poseidon_params_t *p;
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

/* x^5 of element i; returns the single variable holding it and updates the element's value. */
static cuzk_var_t pg_sbox(pg_t *g, unsigned i, bool first_round) {
  cuzk_fr_t x = g->val[i], x2, x4, x5;
  if (g->vals) {
    cuzk_fr_sqr(&x2, &x);
    cuzk_fr_sqr(&x4, &x2);
    cuzk_fr_mul(&x5, &x4, &x);
    g->val[i] = x5;
  }
  if (first_round) {
    /* element = input variable + round constant, kept inside the constraints:
     * (in + rc)² = l2, l2² = l4, (in + rc) · l4 = l5. */
    cuzk_var_t l2 = pg_alloc(g, &x2);
    if (g->rec) {
      pg_lc_of(g, &g->lc[0], i);
      cuzk_lc_copy(&g->lc[1], &g->lc[0]);
      cuzk_lc_clear(&g->lc[2]);
      cuzk_lc_add(&g->lc[2], l2);
    }
    enforce(g->cs, &g->lc[0], &g->lc[1], &g->lc[2]);
    cuzk_var_t l4 = pg_alloc(g, &x4);
    pg_enforce_vars(g, l2, l2, l4);
    cuzk_var_t l5 = pg_alloc(g, &x5);
    if (g->rec) {
      pg_lc_of(g, &g->lc[0], i);
      cuzk_lc_clear(&g->lc[1]);
      cuzk_lc_clear(&g->lc[2]);
      cuzk_lc_add(&g->lc[1], l4);
      cuzk_lc_add(&g->lc[2], l5);
    }
    enforce(g->cs, &g->lc[0], &g->lc[1], &g->lc[2]);
    return l5;
  }
  cuzk_var_t l = pg_ensure_allocated(g, i, &x);
  cuzk_var_t l2 = pg_alloc(g, &x2);
  pg_enforce_vars(g, l, l, l2);
  cuzk_var_t l4 = pg_alloc(g, &x4);
  pg_enforce_vars(g, l2, l2, l4);
  cuzk_var_t l5 = pg_alloc(g, &x5);
  pg_enforce_vars(g, l, l4, l5);
  return l5;
}

static void pg_set_single(pg_t *g, unsigned i, unsigned k) {
  memset(g->coef[i], 0, g->nb * sizeof(cuzk_fr_t));
  cuzk_fr_from_u64(&g->coef[i][k], 1);
}

/* state := state · M (row vector times the MDS matrix, as the native permutation). */
static void pg_mix(pg_t *g) {
  const cuzk_poseidon_params_t *p = g->p;
  unsigned t = p->width;
  cuzk_fr_t tmp;
  if (g->vals) {
    cuzk_fr_t out[CUZK_POSEIDON_MAX_WIDTH];
    for (unsigned j = 0; j < t; j++) {
      out[j] = fr_zero;
      for (unsigned i = 0; i < t; i++) {
        cuzk_fr_mul(&tmp, &g->val[i], &p->mds[i][j]);
        cuzk_fr_add(&out[j], &out[j], &tmp);
      }
    }
    memcpy(g->val, out, t * sizeof *out);
  }
  if (!g->sym) return;
  static _Thread_local cuzk_fr_t nc[CUZK_POSEIDON_MAX_WIDTH][PG_MAX_BASIS];
  for (unsigned j = 0; j < t; j++)
    for (unsigned k = 0; k < g->nb; k++) {
      nc[j][k] = fr_zero;
      for (unsigned i = 0; i < t; i++) {
        if (cuzk_fr_is_zero(&g->coef[i][k])) continue;
        cuzk_fr_mul(&tmp, &g->coef[i][k], &p->mds[i][j]);
        cuzk_fr_add(&nc[j][k], &nc[j][k], &tmp);
      }
    }
  for (unsigned j = 0; j < t; j++) memcpy(g->coef[j], nc[j], g->nb * sizeof(cuzk_fr_t));
}

static void pg_add_rc(pg_t *g, const cuzk_fr_t *rc) {
  for (unsigned i = 0; i < g->p->width; i++) {
    if (g->vals) cuzk_fr_add(&g->val[i], &g->val[i], &rc[i]);
    if (g->sym) cuzk_fr_add(&g->coef[i][0], &g->coef[i][0], &rc[i]);
  }
}

static void pg_run(pg_t *g, const cuzk_num_t *in, cuzk_num_t *res) {
  const cuzk_poseidon_params_t *p = g->p;
  unsigned arity = p->arity, t = p->width, half = p->full_rounds / 2, np = p->partial_rounds;
  assert(1 + t + np <= PG_MAX_BASIS);
  for (int k = 0; k < 3; k++) cuzk_lc_init(&g->lc[k]);
  g->row = 0;
  g->nb = 1 + arity;
  g->basis[0] = CUZK_VAR_ONE;
  for (unsigned i = 0; i < arity; i++) g->basis[1 + i] = in[i].var;
  if (g->vals) {
    g->val[0] = p->merkle_tag;
    for (unsigned i = 0; i < arity; i++) g->val[1 + i] = in[i].val;
  }
  if (g->sym) {
    for (unsigned i = 0; i < t; i++) memset(g->coef[i], 0, g->nb * sizeof(cuzk_fr_t));
    g->coef[0][0] = p->merkle_tag;
    for (unsigned i = 1; i < t; i++) cuzk_fr_from_u64(&g->coef[i][i], 1);
  }
  const cuzk_fr_t *rc = p->rc;
  cuzk_var_t outv[CUZK_POSEIDON_MAX_WIDTH];
  for (unsigned r = 0; r < p->full_rounds + np; r++, rc += t) {
    pg_add_rc(g, rc);
    bool full = r < half || r >= half + np;
    if (full) {
      for (unsigned i = 0; i < t; i++) {
        if (r == 0 && i == 0) { /* the tag: a constant, no constraint */
          if (g->vals) {
            cuzk_fr_t x = g->val[0], x4;
            cuzk_fr_sqr(&x4, &x);
            cuzk_fr_sqr(&x4, &x4);
            cuzk_fr_mul(&g->val[0], &x4, &x);
          }
          outv[0] = CUZK_VAR_ONE;
          continue;
        }
        outv[i] = pg_sbox(g, i, r == 0);
      }
      /* new basis: ONE and the t S-box outputs (slot 1 is unused after the first round: the
       * tag's S-box output is a constant) */
      cuzk_fr_t tag5 = {{0}};
      if (g->sym && r == 0) {
        /* the tag's value after its S-box, as a constant coefficient */
        cuzk_fr_t x = p->merkle_tag, x4;
        cuzk_fr_add(&x, &x, &p->rc[0]);
        cuzk_fr_sqr(&x4, &x);
        cuzk_fr_sqr(&x4, &x4);
        cuzk_fr_mul(&tag5, &x4, &x);
      }
      g->nb = 1 + t;
      for (unsigned i = 0; i < t; i++) {
        g->basis[1 + i] = outv[i];
        if (g->sym) pg_set_single(g, i, 1 + i);
      }
      if (g->sym && r == 0) {
        pg_set_single(g, 0, 0);
        g->coef[0][0] = tag5;
      }
    } else {
      cuzk_var_t o = pg_sbox(g, 0, false);
      assert(g->nb < PG_MAX_BASIS);
      g->basis[g->nb++] = o;
      if (g->sym) {
        for (unsigned i = 1; i < t; i++) g->coef[i][g->nb - 1] = fr_zero;
        pg_set_single(g, 0, g->nb - 1);
      }
    }
    pg_mix(g);
  }
  res->val = g->vals ? g->val[1] : fr_zero;
  res->var = pg_ensure_allocated(g, 1, &res->val);
  for (int k = 0; k < 3; k++) cuzk_lc_free(&g->lc[k]);
}

static pg_sched_t pg_scheds[4];
static pthread_once_t pg_once[4] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                    PTHREAD_ONCE_INIT};

static int pg_slot(unsigned arity) {
  return arity == 2 ? 0 : arity == 4 ? 1 : arity == 8 ? 2 : 3;
}

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
    g->rec = true;
    g->sym = true;
    g->cap = c;
    pg_run(g, in, &res);
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
