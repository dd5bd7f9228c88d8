#include "core/groth16/setup.h"

#include <assert.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "core/poly/ntt.h"
#include "core/util/clock.h"
#include "core/util/log.h"
#include "core/util/pool.h"

static void phase(uint64_t *t, const char *name) {
  uint64_t now = cuzk_now_us();
  CUZK_DEBUG("groth16", "setup_phase", "phase=%s ms=%.1f", name, (double)(now - *t) / 1e3);
  *t = now;
}

#define FB_BITS 8                       /* window width */
#define FB_WINDOWS (256 / FB_BITS)      /* scalars < r < 2^255 */
#define FB_DIGITS ((1u << FB_BITS) - 1) /* nonzero digits per window */
#define FB_CHUNK 256                    /* points per task */

cuzk_err_t cuzk_groth16_toxic_random(cuzk_groth16_toxic_t *t) {
  cuzk_fr_t *v[5] = {&t->tau, &t->alpha, &t->beta, &t->gamma, &t->delta};
  for (int i = 0; i < 5; i++) {
    do {
      cuzk_err_t e = cuzk_fr_random(v[i]);
      if (e != CUZK_OK) return e;
    } while (cuzk_fr_is_zero(v[i]));
  }
  return CUZK_OK;
}

void cuzk_groth16_toxic_from_seed(cuzk_groth16_toxic_t *t, uint64_t seed) {
  static const char *const names[5] = {"tau", "alpha", "beta", "gamma", "delta"};
  cuzk_fr_t *v[5] = {&t->tau, &t->alpha, &t->beta, &t->gamma, &t->delta};
  for (int i = 0; i < 5; i++) {
    uint8_t msg[64], md[64];
    size_t len = 0;
    memcpy(msg, "cuzk-insecure-setup", 19);
    len = 19;
    for (int k = 0; k < 8; k++) msg[len++] = (uint8_t)(seed >> (8 * k));
    memcpy(msg + len, names[i], strlen(names[i]));
    len += strlen(names[i]);
    unsigned mlen = 0;
    EVP_Digest(msg, len, md, &mlen, EVP_sha512(), NULL);
    cuzk_fr_from_le_wide(v[i], md);
    if (cuzk_fr_is_zero(v[i])) *v[i] = CUZK_FR_ONE;
  }
}

/* ---- fixed-base tables ---------------------------------------------------------------- */

#define FIXED_BASE(G, PT, AT)                                                                    \
  typedef struct {                                                                               \
    const AT *table; /* [FB_WINDOWS][FB_DIGITS]: table[w][d-1] = d·2^(8w)·P */                 \
    const cuzk_fr_t *scalars;                                                                    \
    AT *out;                                                                                     \
    size_t n;                                                                                    \
  } G##_fb_ctx_t;                                                                                \
                                                                                                 \
  static void G##_fb_task(void *vctx, size_t t) {                                                \
    G##_fb_ctx_t *c = vctx;                                                                      \
    size_t lo = t * FB_CHUNK, hi = lo + FB_CHUNK;                                                \
    if (hi > c->n) hi = c->n;                                                                    \
    PT acc[FB_CHUNK];                                                                            \
    for (size_t i = lo; i < hi; i++) {                                                           \
      uint64_t raw[4];                                                                           \
      cuzk_fr_to_raw(raw, &c->scalars[i]);                                                       \
      PT *a = &acc[i - lo];                                                                      \
      cuzk_##G##_set_infinity(a);                                                                \
      for (unsigned w = 0; w < FB_WINDOWS; w++) {                                                \
        unsigned d = (unsigned)(raw[w / 8] >> (8 * (w % 8))) & 0xff;                             \
        if (d) cuzk_##G##_add_affine(a, a, &c->table[(size_t)w * FB_DIGITS + d - 1]);            \
      }                                                                                          \
    }                                                                                            \
    cuzk_##G##_batch_to_affine(c->out + lo, acc, hi - lo);                                       \
  }                                                                                              \
                                                                                                 \
  typedef struct {                                                                               \
    AT *table;                                                                                   \
    PT *rows; /* scratch, FB_WINDOWS · FB_DIGITS */                                              \
    const PT *p;                                                                                 \
  } G##_tab_ctx_t;                                                                               \
                                                                                                 \
  static void G##_tab_task(void *vctx, size_t w) {                                               \
    G##_tab_ctx_t *c = vctx;                                                                     \
    PT base = *c->p, *row = c->rows + w * FB_DIGITS;                                             \
    for (unsigned k = 0; k < FB_BITS * w; k++) cuzk_##G##_dbl(&base, &base);                     \
    row[0] = base;                                                                               \
    for (unsigned d = 1; d < FB_DIGITS; d++) cuzk_##G##_add(&row[d], &row[d - 1], &base);        \
    cuzk_##G##_batch_to_affine(c->table + w * FB_DIGITS, row, FB_DIGITS);                        \
  }                                                                                              \
                                                                                                 \
  static AT *G##_fb_table_new(const PT *p) {                                                     \
    AT *table = malloc((size_t)FB_WINDOWS * FB_DIGITS * sizeof *table);                          \
    PT *rows = malloc((size_t)FB_WINDOWS * FB_DIGITS * sizeof *rows);                            \
    if (table && rows) {                                                                         \
      G##_tab_ctx_t tc = {table, rows, p};                                                       \
      cuzk_pool_parallel_for(cuzk_pool_global(), FB_WINDOWS, G##_tab_task, &tc);                 \
    } else {                                                                                     \
      free(table);                                                                               \
      table = NULL;                                                                              \
    }                                                                                            \
    free(rows);                                                                                  \
    return table;                                                                                \
  }                                                                                              \
                                                                                                 \
  static void G##_fb_apply(AT *out, const AT *table, const cuzk_fr_t *scalars, size_t n) {       \
    G##_fb_ctx_t fc = {table, scalars, out, n};                                                  \
    cuzk_pool_parallel_for(cuzk_pool_global(), (n + FB_CHUNK - 1) / FB_CHUNK, G##_fb_task, &fc); \
  }                                                                                              \
                                                                                                 \
  cuzk_err_t cuzk_##G##_fixed_base_batch(AT *out, const PT *p, const cuzk_fr_t *scalars,         \
                                         size_t n) {                                             \
    if (n == 0) return CUZK_OK;                                                                  \
    AT *table = G##_fb_table_new(p);                                                             \
    if (!table) return CUZK_ERR_NOMEM;                                                           \
    G##_fb_apply(out, table, scalars, n);                                                        \
    free(table);                                                                                 \
    return CUZK_OK;                                                                              \
  }

FIXED_BASE(g1, cuzk_g1_t, cuzk_g1_affine_t)
FIXED_BASE(g2, cuzk_g2_t, cuzk_g2_affine_t)

/* ---- setup ---------------------------------------------------------------------------- */

static void accumulate(cuzk_fr_t *acc, const cuzk_r1cs_t *r, cuzk_r1cs_which_t which,
                       const cuzk_fr_t *lag, uint64_t m) {
  const cuzk_r1cs_matrix_t *mx = cuzk_r1cs_matrix(r, which);
  uint64_t nc;
  const cuzk_fr_t *coeffs = cuzk_r1cs_coeffs(r, &nc);
  for (uint64_t row = 0; row < m; row++) {
    for (uint64_t k = mx->row_ptr[row]; k < mx->row_ptr[row + 1]; k++) {
      const cuzk_r1cs_entry_t *e = &mx->entries[k];
      cuzk_fr_t t;
      if (e->coeff == CUZK_R1CS_COEFF_ONE)
        cuzk_fr_add(&acc[e->col], &acc[e->col], &lag[row]);
      else if (e->coeff == CUZK_R1CS_COEFF_NEG_ONE)
        cuzk_fr_sub(&acc[e->col], &acc[e->col], &lag[row]);
      else {
        cuzk_fr_mul(&t, &coeffs[e->coeff], &lag[row]);
        cuzk_fr_add(&acc[e->col], &acc[e->col], &t);
      }
    }
  }
}

cuzk_err_t cuzk_groth16_setup(cuzk_groth16_params_t **out, const cuzk_r1cs_t *r,
                              const cuzk_groth16_toxic_t *t, char *errstr, size_t errstr_size) {
  assert(out && r && t);
  *out = NULL;
  uint64_t m = cuzk_r1cs_num_constraints(r), ni = cuzk_r1cs_num_inputs(r),
           na = cuzk_r1cs_num_aux(r), nv = ni + na;
  cuzk_domain_t *dom = NULL;
  cuzk_err_t e = cuzk_domain_new(&dom, cuzk_r1cs_qap_rows(r), errstr, errstr_size);
  if (e != CUZK_OK) return e;
  uint64_t n = dom->n;
  if (n - 1 > UINT32_MAX || nv > UINT32_MAX) {
    cuzk_domain_free(dom);
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size, "circuit too large for .params");
  }

  uint64_t tph = cuzk_now_us();
  cuzk_g1_affine_t *tab1 = NULL;
  cuzk_groth16_params_t *p = calloc(1, sizeof *p);
  cuzk_fr_t *lag = malloc(n * sizeof *lag), *scratch = malloc(n * sizeof *scratch);
  cuzk_fr_t *u = calloc(nv, sizeof *u), *v = calloc(nv, sizeof *v), *w = calloc(nv, sizeof *w);
  cuzk_fr_t *sc = malloc((nv > n ? nv : n) * sizeof *sc);
  if (!p || !lag || !scratch || !u || !v || !w || !sc) {
    e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "setup: no memory");
    goto done;
  }
  p->insecure = true;

  /* Z(τ) = τ^n - 1 and the Lagrange basis at τ. */
  cuzk_fr_t zt, tmp, wj = CUZK_FR_ONE;
  uint64_t ne[1] = {n};
  cuzk_fr_pow(&zt, &t->tau, ne, 1);
  cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
  if (cuzk_fr_is_zero(&zt)) {
    e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size, "setup: tau lies in the domain");
    goto done;
  }
  for (uint64_t j = 0; j < n; j++) {
    cuzk_fr_sub(&lag[j], &t->tau, &wj);
    cuzk_fr_mul(&wj, &wj, &dom->omega);
  }
  cuzk_fr_batch_inv(lag, n, scratch);
  cuzk_fr_t zn; /* Z(τ)/n */
  cuzk_fr_mul(&zn, &zt, &dom->n_inv);
  wj = CUZK_FR_ONE;
  for (uint64_t j = 0; j < n; j++) {
    cuzk_fr_mul(&tmp, &zn, &wj);
    cuzk_fr_mul(&lag[j], &lag[j], &tmp);
    cuzk_fr_mul(&wj, &wj, &dom->omega);
  }
  phase(&tph, "lagrange");

  accumulate(u, r, CUZK_R1CS_A, lag, m);
  accumulate(v, r, CUZK_R1CS_B, lag, m);
  accumulate(w, r, CUZK_R1CS_C, lag, m);
  for (uint64_t i = 0; i < ni; i++) cuzk_fr_add(&u[i], &u[i], &lag[m + i]);

  cuzk_fr_t gamma_inv, delta_inv;
  cuzk_fr_inv(&gamma_inv, &t->gamma);
  cuzk_fr_inv(&delta_inv, &t->delta);
  phase(&tph, "qap");

  cuzk_g1_t g1;
  cuzk_g2_t g2;
  cuzk_g1_generator(&g1);
  cuzk_g2_generator(&g2);
  tab1 = g1_fb_table_new(&g1);
  if (!tab1) goto nomem;
  phase(&tph, "g1_table");

  /* vk */
  {
    cuzk_g1_t q1;
    cuzk_g2_t q2;
    cuzk_g1_mul(&q1, &g1, &t->alpha), cuzk_g1_to_affine(&p->vk.alpha_g1, &q1);
    cuzk_g1_mul(&q1, &g1, &t->beta), cuzk_g1_to_affine(&p->vk.beta_g1, &q1);
    cuzk_g1_mul(&q1, &g1, &t->delta), cuzk_g1_to_affine(&p->vk.delta_g1, &q1);
    cuzk_g2_mul(&q2, &g2, &t->beta), cuzk_g2_to_affine(&p->vk.beta_g2, &q2);
    cuzk_g2_mul(&q2, &g2, &t->gamma), cuzk_g2_to_affine(&p->vk.gamma_g2, &q2);
    cuzk_g2_mul(&q2, &g2, &t->delta), cuzk_g2_to_affine(&p->vk.delta_g2, &q2);
  }

  /* (β·u + α·v + w) for every variable, /γ for inputs and /δ for aux */
  for (uint64_t i = 0; i < nv; i++) {
    cuzk_fr_t x, y;
    cuzk_fr_mul(&x, &t->beta, &u[i]);
    cuzk_fr_mul(&y, &t->alpha, &v[i]);
    cuzk_fr_add(&x, &x, &y);
    cuzk_fr_add(&x, &x, &w[i]);
    cuzk_fr_mul(&sc[i], &x, i < ni ? &gamma_inv : &delta_inv);
    if (cuzk_fr_is_zero(&sc[i])) {
      e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                    "setup: %s %llu is unconstrained (its %s point would be infinity)",
                    i < ni ? "input" : "aux variable", (unsigned long long)(i < ni ? i : i - ni),
                    i < ni ? "IC" : "L");
      goto done;
    }
  }
  phase(&tph, "vk_and_l_scalars");
  p->vk.n_ic = ni;
  p->n_l = na;
  p->vk.ic = malloc(ni * sizeof *p->vk.ic);
  p->l = malloc((na ? na : 1) * sizeof *p->l);
  if (!p->vk.ic || !p->l) goto nomem;
  g1_fb_apply(p->vk.ic, tab1, sc, ni);
  g1_fb_apply(p->l, tab1, sc + ni, na);
  phase(&tph, "g1_ic_l");

  /* H_j = τ^j·Z(τ)/δ */
  p->n_h = n - 1;
  p->h = malloc((n - 1 ? n - 1 : 1) * sizeof *p->h);
  if (!p->h) goto nomem;
  cuzk_fr_mul(&tmp, &zt, &delta_inv);
  for (uint64_t j = 0; j + 1 < n; j++) {
    sc[j] = tmp;
    cuzk_fr_mul(&tmp, &tmp, &t->tau);
  }
  phase(&tph, "h_scalars");
  g1_fb_apply(p->h, tab1, sc, n - 1);
  phase(&tph, "g1_h");

  /* A: all inputs, then aux in A's density */
  uint64_t da, dbi, dba;
  const uint64_t *bm_a = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_A_AUX, &da);
  const uint64_t *bm_bi = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_INPUT, &dbi);
  const uint64_t *bm_ba = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_AUX, &dba);
  size_t k = 0;
  for (uint64_t i = 0; i < ni; i++) sc[k++] = u[i];
  for (uint64_t j = 0; j < na; j++)
    if (cuzk_bitmap_get(bm_a, j)) sc[k++] = u[ni + j];
  assert(k == ni + da);
  p->n_a = k;
  for (size_t i = 0; i < k; i++)
    if (cuzk_fr_is_zero(&sc[i])) {
      e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                    "setup: A polynomial %zu vanishes at tau", i);
      goto done;
    }
  p->a = malloc((k ? k : 1) * sizeof *p->a);
  if (!p->a) goto nomem;
  phase(&tph, "a_scalars");
  g1_fb_apply(p->a, tab1, sc, k);
  phase(&tph, "g1_a");

  /* B: inputs and aux in B's densities, in G1 and G2 */
  k = 0;
  for (uint64_t i = 0; i < ni; i++)
    if (cuzk_bitmap_get(bm_bi, i)) sc[k++] = v[i];
  for (uint64_t j = 0; j < na; j++)
    if (cuzk_bitmap_get(bm_ba, j)) sc[k++] = v[ni + j];
  assert(k == dbi + dba);
  for (size_t i = 0; i < k; i++)
    if (cuzk_fr_is_zero(&sc[i])) {
      e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                    "setup: B polynomial %zu vanishes at tau", i);
      goto done;
    }
  p->n_b_g1 = p->n_b_g2 = k;
  p->b_g1 = malloc((k ? k : 1) * sizeof *p->b_g1);
  p->b_g2 = malloc((k ? k : 1) * sizeof *p->b_g2);
  if (!p->b_g1 || !p->b_g2) goto nomem;
  phase(&tph, "b_scalars");
  g1_fb_apply(p->b_g1, tab1, sc, k);
  phase(&tph, "g1_b");
  if ((e = cuzk_g2_fixed_base_batch(p->b_g2, &g2, sc, k)) != CUZK_OK) goto nomem;
  phase(&tph, "g2_b");

  *out = p;
  p = NULL;
  e = CUZK_OK;
  goto done;
nomem:
  e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "setup: no memory");
done:
  cuzk_groth16_params_free(p);
  free(tab1);
  free(lag);
  free(scratch);
  free(u);
  free(v);
  free(w);
  free(sc);
  cuzk_domain_free(dom);
  return e;
}
