#include "core/groth16/setup.h"

#include <assert.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/ff/fp2.h"
#include "core/poly/ntt.h"
#include "core/util/clock.h"
#include "core/util/log.h"
#include "core/util/pool.h"

#define FB_SCALAR_BITS 255 /* scalars are reduced: < r < 2^255 */
#define FB_MAX_BITS 16     /* widest window: 16·(2^16 - 1) table points (96 MiB G1, 192 MiB G2) */
/* one table point (Jacobian add + share of batch-to-affine), in affine chunk additions */
#define FB_TABLE_COST 4
#define FB_CHUNK 1024     /* points per task: one shared inversion per window per chunk */
#define FB_TABLE_SEG 4096 /* table points per build task */
#define BLK_LOG 14        /* 2^14 field elements per task in the scalar phases */
#define QAP_ROWS_LOG 16   /* rows per task in the QAP scatter */
#define QAP_COLS_LOG 14   /* columns per QAP summing task (512 KiB of Fr) */

static _Atomic unsigned force_bits, force_chunk, force_block_log;

void cuzk__setup_force(unsigned window_bits, unsigned chunk, unsigned block_log) {
  assert(window_bits == 0 || (window_bits >= 2 && window_bits <= FB_MAX_BITS));
  assert(block_log == 0 || (block_log >= 6 && block_log <= 30));
  atomic_store(&force_bits, window_bits);
  atomic_store(&force_chunk, chunk);
  atomic_store(&force_block_log, block_log);
}

/* Block sizes (powers of two; the scalar block is a multiple of 64 bits for the gathers). */
static unsigned blk_log(unsigned dflt) {
  unsigned f = atomic_load(&force_block_log);
  return f ? f : dflt;
}

static void phase(uint64_t *t, const char *name) {
  uint64_t now = cuzk_now_us();
  CUZK_DEBUG("groth16", "setup_phase", "phase=%s ms=%.1f", name, (double)(now - *t) / 1e3);
  *t = now;
}

static size_t nblocks(size_t n, size_t b) {
  return (n + b - 1) / b;
}

/* Tables are read at random, one entry per window per point: back large ones with huge pages
 * where the kernel offers them (a 4 KiB-page table of 96 MiB misses the TLB on almost every
 * read). Free with free(). */
static void *table_alloc(size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  if (bytes < huge) return malloc(bytes);
  size_t len = (bytes + huge - 1) / huge * huge;
  void *p = NULL;
  if (posix_memalign(&p, huge, len) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  (void)madvise(p, len, MADV_HUGEPAGE);
#endif
  return p;
}

static void pfor(size_t n, void (*fn)(void *, size_t), void *ctx) {
  cuzk_pool_parallel_for(cuzk_pool_global(), n, fn, ctx);
}

static void atomic_min_u64(_Atomic uint64_t *a, uint64_t v) {
  uint64_t cur = atomic_load(a);
  while (v < cur && !atomic_compare_exchange_weak(a, &cur, v)) {
  }
}

/* The window width c minimising the work ⌈255/c⌉·(n + FB_TABLE_COST·2^c) for n scalars. */
static unsigned fb_bits(size_t n) {
  unsigned f = atomic_load(&force_bits);
  if (f) return f;
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned c = 2; c <= FB_MAX_BITS; c++) {
    double w = (double)((FB_SCALAR_BITS + c - 1) / c);
    double cost = w * ((double)n + FB_TABLE_COST * (double)(1u << c));
    if (c == 2 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

static size_t fb_chunk(void) {
  unsigned f = atomic_load(&force_chunk);
  return f ? f : FB_CHUNK;
}

/* Bits [bit, bit + c) of a 256-bit little-endian scalar. */
static inline unsigned fb_digit(const uint64_t s[4], unsigned bit, unsigned c) {
  unsigned limb = bit / 64, off = bit % 64;
  uint64_t v = s[limb] >> off;
  if (off + c > 64 && limb < 3) v |= s[limb + 1] << (64 - off);
  return (unsigned)(v & ((1u << c) - 1));
}

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

/* ---- fixed-base multiplication ------------------------------------------------------- */

/* A table holds, for each c-bit window w < W, the points d·2^(c·w)·P for d = 1 .. 2^c - 1 (affine;
 * none is infinity since r is prime and larger than every d·2^(c·w) factor it could divide). A
 * scalar's point is the sum of one entry per nonzero digit. The sums run in affine coordinates,
 * a chunk of points at a time, window by window: the chunk's slope denominators are inverted
 * together (Montgomery's trick), so an addition costs ≈ 6 field products against ≈ 11 for a
 * mixed Jacobian one and no final conversion is needed. With unsigned digits of a reduced
 * scalar the running sum s·P (s < 2^(c·w)) never equals ±d·2^(c·w)·P, so the exceptional cases
 * (doubling, inverse) cannot occur; they are still handled, through the Jacobian formulas. */
#define FIXED_BASE(G, F, PT, AT, F_SUB, F_MUL, F_SQR, F_INV, F_IS_ZERO, F_ONE)                \
  typedef struct {                                                                            \
    AT *pts;       /* [W][E] */                                                               \
    unsigned c, w; /* window width, number of windows */                                      \
    size_t e;      /* entries per window, 2^c - 1 */                                          \
  } G##_table_t;                                                                              \
                                                                                              \
  typedef struct {                                                                            \
    G##_table_t *t;                                                                           \
    const PT *p;                                                                              \
    size_t nseg;                                                                              \
    _Atomic int nomem;                                                                        \
  } G##_tab_ctx_t;                                                                            \
                                                                                              \
  static void G##_tab_task(void *vctx, size_t k) {                                            \
    G##_tab_ctx_t *x = vctx;                                                                  \
    G##_table_t *t = x->t;                                                                    \
    size_t w = k / x->nseg, lo = (k % x->nseg) * FB_TABLE_SEG + 1;                            \
    size_t hi = lo + FB_TABLE_SEG <= t->e + 1 ? lo + FB_TABLE_SEG : t->e + 1;                 \
    PT *rows = malloc((hi - lo) * sizeof *rows);                                              \
    if (!rows) {                                                                              \
      atomic_store(&x->nomem, 1);                                                             \
      return;                                                                                 \
    }                                                                                         \
    PT base = *x->p;                                                                          \
    for (size_t d = 0; d < (size_t)t->c * w; d++) cuzk_##G##_dbl(&base, &base);               \
    uint64_t lo64 = lo;                                                                       \
    cuzk_##G##_mul_u64_vartime(&rows[0], &base, &lo64, 1);                                    \
    for (size_t d = 1; d < hi - lo; d++) cuzk_##G##_add(&rows[d], &rows[d - 1], &base);       \
    cuzk_##G##_batch_to_affine(t->pts + w * t->e + lo - 1, rows, hi - lo);                    \
    free(rows);                                                                               \
  }                                                                                           \
                                                                                              \
  /* The table of P for about n scalars (window width from fb_bits). */                       \
  static cuzk_err_t G##_table_new(G##_table_t *t, const PT *p, size_t n) {                    \
    t->c = fb_bits(n);                                                                        \
    t->w = (FB_SCALAR_BITS + t->c - 1) / t->c;                                                \
    t->e = ((size_t)1 << t->c) - 1;                                                           \
    t->pts = table_alloc((size_t)t->w * t->e * sizeof *t->pts);                               \
    if (!t->pts) return CUZK_ERR_NOMEM;                                                       \
    G##_tab_ctx_t x = {.t = t, .p = p, .nseg = nblocks(t->e, FB_TABLE_SEG)};                  \
    pfor((size_t)t->w *x.nseg, G##_tab_task, &x);                                             \
    if (atomic_load(&x.nomem)) {                                                              \
      free(t->pts);                                                                           \
      t->pts = NULL;                                                                          \
      return CUZK_ERR_NOMEM;                                                                  \
    }                                                                                         \
    return CUZK_OK;                                                                           \
  }                                                                                           \
                                                                                              \
  typedef struct {                                                                            \
    const G##_table_t *t;                                                                     \
    const cuzk_fr_t *scalars;                                                                 \
    AT *out;                                                                                  \
    size_t n, chunk;                                                                          \
    _Atomic int nomem;                                                                        \
  } G##_fb_ctx_t;                                                                             \
                                                                                              \
  /* acc += q through the Jacobian formulas (every case, including doubling and infinity). */ \
  static void G##_add_slow(AT *acc, const AT *q) {                                            \
    PT j;                                                                                     \
    cuzk_##G##_from_affine(&j, acc);                                                          \
    cuzk_##G##_add_affine(&j, &j, q);                                                         \
    cuzk_##G##_to_affine(acc, &j);                                                            \
  }                                                                                           \
                                                                                              \
  static void G##_fb_task(void *vctx, size_t k) {                                             \
    G##_fb_ctx_t *x = vctx;                                                                   \
    const G##_table_t *t = x->t;                                                              \
    size_t lo = k * x->chunk, n = lo + x->chunk <= x->n ? x->chunk : x->n - lo;               \
    uint8_t *mem = malloc(n * (32 + 4 + 4 + sizeof(void *) + 2 * sizeof(F)));                 \
    if (!mem) {                                                                               \
      atomic_store(&x->nomem, 1);                                                             \
      return;                                                                                 \
    }                                                                                         \
    uint64_t(*raw)[4] = (uint64_t(*)[4])mem;                                                  \
    F *den = (F *)(mem + n * 32), *pre = den + n;                                             \
    const AT **qp = (const AT **)(pre + n);                                                   \
    uint32_t *dg = (uint32_t *)(qp + n), *idx = dg + n;                                       \
    AT *acc = x->out + lo;                                                                    \
    for (size_t i = 0; i < n; i++) {                                                          \
      cuzk_fr_to_raw(raw[i], &x->scalars[lo + i]);                                            \
      cuzk_##G##_affine_set_infinity(&acc[i]);                                                \
    }                                                                                         \
    for (unsigned w = 0; w < t->w; w++) {                                                     \
      const AT *row = t->pts + (size_t)w * t->e;                                              \
      for (size_t i = 0; i < n; i++) {                                                        \
        dg[i] = fb_digit(raw[i], w * t->c, t->c);                                             \
        if (dg[i]) __builtin_prefetch(&row[dg[i] - 1]);                                       \
      }                                                                                       \
      size_t np = 0;                                                                          \
      for (size_t i = 0; i < n; i++) {                                                        \
        if (!dg[i]) continue;                                                                 \
        const AT *q = &row[dg[i] - 1];                                                        \
        if (cuzk_##G##_affine_is_infinity(&acc[i])) {                                         \
          acc[i] = *q;                                                                        \
          continue;                                                                           \
        }                                                                                     \
        F_SUB(&den[np], &q->x, &acc[i].x);                                                    \
        if (F_IS_ZERO(&den[np])) {                                                            \
          G##_add_slow(&acc[i], q);                                                           \
          continue;                                                                           \
        }                                                                                     \
        idx[np] = (uint32_t)i;                                                                \
        qp[np] = q;                                                                           \
        np++;                                                                                 \
      }                                                                                       \
      if (np == 0) continue;                                                                  \
      F inv = F_ONE;                                                                          \
      for (size_t j = 0; j < np; j++) {                                                       \
        pre[j] = inv;                                                                         \
        F_MUL(&inv, &inv, &den[j]);                                                           \
      }                                                                                       \
      F_INV(&inv, &inv);                                                                      \
      for (size_t j = np; j-- > 0;) {                                                         \
        F di, lam, x3, tt;                                                                    \
        F_MUL(&di, &inv, &pre[j]);                                                            \
        F_MUL(&inv, &inv, &den[j]);                                                           \
        AT *s = &acc[idx[j]];                                                                 \
        const AT *q = qp[j];                                                                  \
        F_SUB(&tt, &q->y, &s->y);                                                             \
        F_MUL(&lam, &tt, &di);                                                                \
        F_SQR(&x3, &lam);                                                                     \
        F_SUB(&x3, &x3, &s->x);                                                               \
        F_SUB(&x3, &x3, &q->x);                                                               \
        F_SUB(&tt, &s->x, &x3);                                                               \
        F_MUL(&tt, &tt, &lam);                                                                \
        F_SUB(&s->y, &tt, &s->y);                                                             \
        s->x = x3;                                                                            \
      }                                                                                       \
    }                                                                                         \
    free(mem);                                                                                \
  }                                                                                           \
                                                                                              \
  static cuzk_err_t G##_fb_apply(AT *out, const G##_table_t *t, const cuzk_fr_t *scalars,     \
                                 size_t n) {                                                  \
    G##_fb_ctx_t x = {.t = t, .scalars = scalars, .out = out, .n = n, .chunk = fb_chunk()};   \
    pfor(nblocks(n, x.chunk), G##_fb_task, &x);                                               \
    return atomic_load(&x.nomem) ? CUZK_ERR_NOMEM : CUZK_OK;                                  \
  }                                                                                           \
                                                                                              \
  cuzk_err_t cuzk_##G##_fixed_base_batch(AT *out, const PT *p, const cuzk_fr_t *scalars,      \
                                         size_t n) {                                          \
    if (n == 0) return CUZK_OK;                                                               \
    G##_table_t t;                                                                            \
    cuzk_err_t e = G##_table_new(&t, p, n);                                                   \
    if (e == CUZK_OK) e = G##_fb_apply(out, &t, scalars, n);                                  \
    free(t.pts);                                                                              \
    return e;                                                                                 \
  }

FIXED_BASE(g1, cuzk_fp_t, cuzk_g1_t, cuzk_g1_affine_t, cuzk_fp_sub, cuzk_fp_mul, cuzk_fp_sqr,
           cuzk_fp_inv_vartime, cuzk_fp_is_zero, CUZK_FP_ONE)
FIXED_BASE(g2, cuzk_fp2_t, cuzk_g2_t, cuzk_g2_affine_t, cuzk_fp2_sub, cuzk_fp2_mul, cuzk_fp2_sqr,
           cuzk_fp2_inv, cuzk_fp2_is_zero, CUZK_FP2_ONE)

/* ---- scalar phases, each split into blocks over the pool ------------------------------- */

/* lag[j] = L_j(τ) = (Z(τ)/n)·ω^j/(τ - ω^j); scratch has n elements. τ is not in the domain. */
typedef struct {
  cuzk_fr_t *lag, *scratch;
  const cuzk_fr_t *tau, *omega, *zn;
  uint64_t n, blk;
} lag_ctx_t;

static void lag_task(void *vctx, size_t b) {
  lag_ctx_t *x = vctx;
  uint64_t lo = b * x->blk, hi = lo + x->blk < x->n ? lo + x->blk : x->n;
  cuzk_fr_t w0, wj;
  cuzk_fr_pow(&w0, x->omega, &lo, 1);
  wj = w0;
  for (uint64_t j = lo; j < hi; j++) {
    cuzk_fr_sub(&x->lag[j], x->tau, &wj);
    cuzk_fr_mul(&wj, &wj, x->omega);
  }
  cuzk_fr_batch_inv(x->lag + lo, hi - lo, x->scratch + lo);
  cuzk_fr_mul(&wj, &w0, x->zn);
  for (uint64_t j = lo; j < hi; j++) {
    cuzk_fr_mul(&x->lag[j], &x->lag[j], &wj);
    cuzk_fr_mul(&wj, &wj, x->omega);
  }
}

/* acc[col] += Σ_rows M[row][col]·lag[row]: the entries are scattered by column block (rows in
 * chunks, each chunk writing its own slots, so no two tasks touch one slot), then each column
 * block is summed by one task. Field addition is exact, so the order does not matter. */
typedef struct {
  uint32_t col, coeff, row;
} qap_item_t;

typedef struct {
  const cuzk_r1cs_matrix_t *mx;
  const cuzk_fr_t *coeffs, *lag;
  cuzk_fr_t *acc;
  uint64_t m, rows;
  unsigned cols_log;
  size_t nblk;
  uint64_t *slot;  /* [row chunk][column block]: counts, then next free slot */
  uint64_t *start; /* [column block + 1]: first item of each block */
  qap_item_t *items;
} qap_ctx_t;

static void qap_count_task(void *vctx, size_t rc) {
  qap_ctx_t *x = vctx;
  uint64_t lo = rc * x->rows, hi = lo + x->rows < x->m ? lo + x->rows : x->m;
  uint64_t *cnt = x->slot + rc * x->nblk;
  for (uint64_t k = x->mx->row_ptr[lo]; k < x->mx->row_ptr[hi]; k++)
    cnt[x->mx->entries[k].col >> x->cols_log]++;
}

static void qap_scatter_task(void *vctx, size_t rc) {
  qap_ctx_t *x = vctx;
  uint64_t lo = rc * x->rows, hi = lo + x->rows < x->m ? lo + x->rows : x->m;
  uint64_t *next = x->slot + rc * x->nblk;
  for (uint64_t row = lo; row < hi; row++)
    for (uint64_t k = x->mx->row_ptr[row]; k < x->mx->row_ptr[row + 1]; k++) {
      const cuzk_r1cs_entry_t *e = &x->mx->entries[k];
      x->items[next[e->col >> x->cols_log]++] = (qap_item_t){e->col, e->coeff, (uint32_t)row};
    }
}

static void qap_sum_task(void *vctx, size_t blk) {
  qap_ctx_t *x = vctx;
  for (uint64_t k = x->start[blk]; k < x->start[blk + 1]; k++) {
    const qap_item_t *it = &x->items[k];
    cuzk_fr_t *a = &x->acc[it->col];
    const cuzk_fr_t *l = &x->lag[it->row];
    if (it->coeff == CUZK_R1CS_COEFF_ONE) {
      cuzk_fr_add(a, a, l);
    } else if (it->coeff == CUZK_R1CS_COEFF_NEG_ONE) {
      cuzk_fr_sub(a, a, l);
    } else {
      cuzk_fr_t t;
      cuzk_fr_mul(&t, &x->coeffs[it->coeff], l);
      cuzk_fr_add(a, a, &t);
    }
  }
}

/* acc (nv elements, zeroed) += the QAP polynomials of matrix `which` at τ. */
static cuzk_err_t qap_eval(cuzk_fr_t *acc, const cuzk_r1cs_t *r, cuzk_r1cs_which_t which,
                           const cuzk_fr_t *lag, uint64_t m, uint64_t nv) {
  qap_ctx_t x = {.mx = cuzk_r1cs_matrix(r, which),
                 .lag = lag,
                 .acc = acc,
                 .m = m,
                 .rows = (uint64_t)1 << blk_log(QAP_ROWS_LOG),
                 .cols_log = blk_log(QAP_COLS_LOG)};
  uint64_t nc;
  x.coeffs = cuzk_r1cs_coeffs(r, &nc);
  uint64_t nnz = x.mx->row_ptr[m];
  size_t nrc = nblocks(m, x.rows);
  x.nblk = nblocks(nv, (size_t)1 << x.cols_log);
  if (nnz == 0) return CUZK_OK;
  x.slot = calloc(nrc * x.nblk, sizeof *x.slot);
  x.start = malloc((x.nblk + 1) * sizeof *x.start);
  x.items = malloc(nnz * sizeof *x.items);
  if (!x.slot || !x.start || !x.items) {
    free(x.slot), free(x.start), free(x.items);
    return CUZK_ERR_NOMEM;
  }
  pfor(nrc, qap_count_task, &x);
  uint64_t run = 0;
  for (size_t b = 0; b < x.nblk; b++) {
    x.start[b] = run;
    for (size_t rc = 0; rc < nrc; rc++) {
      uint64_t c = x.slot[rc * x.nblk + b];
      x.slot[rc * x.nblk + b] = run;
      run += c;
    }
  }
  x.start[x.nblk] = run;
  assert(run == nnz);
  pfor(nrc, qap_scatter_task, &x);
  pfor(x.nblk, qap_sum_task, &x);
  free(x.slot), free(x.start), free(x.items);
  return CUZK_OK;
}

/* sc[i] = (β·u_i + α·v_i + w_i)·(i < ni ? 1/γ : 1/δ); the lowest i where it is zero goes to zero.
 */
typedef struct {
  cuzk_fr_t *sc;
  const cuzk_fr_t *u, *v, *w, *alpha, *beta, *gamma_inv, *delta_inv;
  uint64_t ni, nv, blk;
  _Atomic uint64_t zero;
} lc_ctx_t;

static void lc_task(void *vctx, size_t b) {
  lc_ctx_t *x = vctx;
  uint64_t lo = b * x->blk, hi = lo + x->blk < x->nv ? lo + x->blk : x->nv;
  for (uint64_t i = lo; i < hi; i++) {
    cuzk_fr_t s, t;
    cuzk_fr_mul(&s, x->beta, &x->u[i]);
    cuzk_fr_mul(&t, x->alpha, &x->v[i]);
    cuzk_fr_add(&s, &s, &t);
    cuzk_fr_add(&s, &s, &x->w[i]);
    cuzk_fr_mul(&x->sc[i], &s, i < x->ni ? x->gamma_inv : x->delta_inv);
    if (cuzk_fr_is_zero(&x->sc[i])) {
      atomic_min_u64(&x->zero, i);
      return;
    }
  }
}

/* sc[j] = h0·τ^j for j < count. */
typedef struct {
  cuzk_fr_t *sc;
  const cuzk_fr_t *h0, *tau;
  uint64_t count, blk;
} pow_ctx_t;

static void pow_task(void *vctx, size_t b) {
  pow_ctx_t *x = vctx;
  uint64_t lo = b * x->blk, hi = lo + x->blk < x->count ? lo + x->blk : x->count;
  cuzk_fr_t t;
  cuzk_fr_pow(&t, x->tau, &lo, 1);
  cuzk_fr_mul(&t, &t, x->h0);
  for (uint64_t j = lo; j < hi; j++) {
    x->sc[j] = t;
    cuzk_fr_mul(&t, &t, x->tau);
  }
}

/* dst[k] = src[j] for the set bits j < nbits of bm, in order; the lowest k with a zero value goes
 * to zero. Blocks of blk bits (a multiple of 64). */
typedef struct {
  cuzk_fr_t *dst;
  const cuzk_fr_t *src;
  const uint64_t *bm;
  uint64_t nbits, blk;
  uint64_t *off; /* per block: ones before it */
  _Atomic uint64_t zero;
} gather_ctx_t;

static uint64_t word_mask(const gather_ctx_t *x, uint64_t word) {
  uint64_t end = x->nbits - word * 64;
  return end >= 64 ? ~0ull : ((1ull << end) - 1);
}

static void gather_count_task(void *vctx, size_t b) {
  gather_ctx_t *x = vctx;
  uint64_t w0 = b * (x->blk / 64), w1 = w0 + x->blk / 64, nw = (x->nbits + 63) / 64, c = 0;
  if (w1 > nw) w1 = nw;
  for (uint64_t w = w0; w < w1; w++)
    c += (uint64_t)__builtin_popcountll(x->bm[w] & word_mask(x, w));
  x->off[b] = c;
}

static void gather_fill_task(void *vctx, size_t b) {
  gather_ctx_t *x = vctx;
  uint64_t w0 = b * (x->blk / 64), w1 = w0 + x->blk / 64, nw = (x->nbits + 63) / 64, k = x->off[b];
  if (w1 > nw) w1 = nw;
  for (uint64_t w = w0; w < w1; w++)
    for (uint64_t bits = x->bm[w] & word_mask(x, w); bits; bits &= bits - 1) {
      uint64_t j = w * 64 + (uint64_t)__builtin_ctzll(bits);
      x->dst[k] = x->src[j];
      if (cuzk_fr_is_zero(&x->dst[k])) atomic_min_u64(&x->zero, k);
      k++;
    }
}

/* Returns the number gathered, or UINT64_MAX when out of memory; *zero gets the lowest zero
 * position (UINT64_MAX when none). */
static uint64_t gather(cuzk_fr_t *dst, const cuzk_fr_t *src, const uint64_t *bm, uint64_t nbits,
                       uint64_t *zero) {
  uint64_t blk = (uint64_t)1 << blk_log(BLK_LOG);
  size_t nb = nblocks(nbits, blk);
  gather_ctx_t x = {
      .dst = dst, .src = src, .bm = bm, .nbits = nbits, .blk = blk, .zero = UINT64_MAX};
  *zero = UINT64_MAX;
  if (nb == 0) return 0;
  x.off = malloc(nb * sizeof *x.off);
  if (!x.off) return UINT64_MAX;
  pfor(nb, gather_count_task, &x);
  uint64_t run = 0;
  for (size_t b = 0; b < nb; b++) {
    uint64_t c = x.off[b];
    x.off[b] = run;
    run += c;
  }
  pfor(nb, gather_fill_task, &x);
  free(x.off);
  *zero = atomic_load(&x.zero);
  return run;
}

/* ---- setup ---------------------------------------------------------------------------- */

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

  uint64_t tph = cuzk_now_us(), blk = (uint64_t)1 << blk_log(BLK_LOG);
  g1_table_t tab1 = {0};
  g2_table_t tab2 = {0};
  cuzk_groth16_params_t *p = calloc(1, sizeof *p);
  cuzk_fr_t *lag = malloc(n * sizeof *lag), *scratch = malloc(n * sizeof *scratch);
  cuzk_fr_t *u = calloc(nv, sizeof *u), *v = calloc(nv, sizeof *v), *w = calloc(nv, sizeof *w);
  cuzk_fr_t *sc = malloc((nv > n ? nv : n) * sizeof *sc);
  if (!p || !lag || !scratch || !u || !v || !w || !sc) goto nomem;
  p->insecure = true;

  /* Z(τ) = τ^n - 1 and the Lagrange basis at τ. */
  cuzk_fr_t zt, zn;
  uint64_t ne[1] = {n};
  cuzk_fr_pow(&zt, &t->tau, ne, 1);
  cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
  if (cuzk_fr_is_zero(&zt)) {
    e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size, "setup: tau lies in the domain");
    goto done;
  }
  cuzk_fr_mul(&zn, &zt, &dom->n_inv);
  {
    lag_ctx_t x = {lag, scratch, &t->tau, &dom->omega, &zn, n, blk};
    pfor(nblocks(n, blk), lag_task, &x);
  }
  free(scratch);
  scratch = NULL;
  phase(&tph, "lagrange");

  if (qap_eval(u, r, CUZK_R1CS_A, lag, m, nv) != CUZK_OK ||
      qap_eval(v, r, CUZK_R1CS_B, lag, m, nv) != CUZK_OK ||
      qap_eval(w, r, CUZK_R1CS_C, lag, m, nv) != CUZK_OK)
    goto nomem;
  for (uint64_t i = 0; i < ni; i++) cuzk_fr_add(&u[i], &u[i], &lag[m + i]);
  free(lag);
  lag = NULL;
  phase(&tph, "qap");

  cuzk_fr_t gamma_inv, delta_inv;
  cuzk_fr_inv(&gamma_inv, &t->gamma);
  cuzk_fr_inv(&delta_inv, &t->delta);

  uint64_t da, dbi, dba;
  const uint64_t *bm_a = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_A_AUX, &da);
  const uint64_t *bm_bi = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_INPUT, &dbi);
  const uint64_t *bm_ba = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_AUX, &dba);

  cuzk_g1_t g1;
  cuzk_g2_t g2;
  cuzk_g1_generator(&g1);
  cuzk_g2_generator(&g2);
  if (g1_table_new(&tab1, &g1, nv + (n - 1) + (ni + da) + (dbi + dba)) != CUZK_OK) goto nomem;
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
  {
    lc_ctx_t x = {.sc = sc,
                  .u = u,
                  .v = v,
                  .w = w,
                  .alpha = &t->alpha,
                  .beta = &t->beta,
                  .gamma_inv = &gamma_inv,
                  .delta_inv = &delta_inv,
                  .ni = ni,
                  .nv = nv,
                  .blk = blk,
                  .zero = UINT64_MAX};
    pfor(nblocks(nv, blk), lc_task, &x);
    uint64_t i = atomic_load(&x.zero);
    if (i != UINT64_MAX) {
      e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                    "setup: %s %llu is unconstrained (its %s point would be infinity)",
                    i < ni ? "input" : "aux variable", (unsigned long long)(i < ni ? i : i - ni),
                    i < ni ? "IC" : "L");
      goto done;
    }
  }
  free(w);
  w = NULL;
  phase(&tph, "vk_and_l_scalars");
  p->vk.n_ic = ni;
  p->n_l = na;
  p->vk.ic = malloc(ni * sizeof *p->vk.ic);
  p->l = malloc((na ? na : 1) * sizeof *p->l);
  if (!p->vk.ic || !p->l) goto nomem;
  if (g1_fb_apply(p->vk.ic, &tab1, sc, ni) != CUZK_OK ||
      g1_fb_apply(p->l, &tab1, sc + ni, na) != CUZK_OK)
    goto nomem;
  phase(&tph, "g1_ic_l");

  /* H_j = τ^j·Z(τ)/δ */
  p->n_h = n - 1;
  p->h = malloc((n - 1 ? n - 1 : 1) * sizeof *p->h);
  if (!p->h) goto nomem;
  {
    cuzk_fr_t h0;
    cuzk_fr_mul(&h0, &zt, &delta_inv);
    pow_ctx_t x = {sc, &h0, &t->tau, n - 1, blk};
    pfor(nblocks(n - 1, blk), pow_task, &x);
  }
  phase(&tph, "h_scalars");
  if (g1_fb_apply(p->h, &tab1, sc, n - 1) != CUZK_OK) goto nomem;
  phase(&tph, "g1_h");

  /* A: all inputs, then aux in A's density */
  uint64_t zero = UINT64_MAX, za, k;
  memcpy(sc, u, ni * sizeof *sc);
  for (uint64_t i = 0; i < ni && zero == UINT64_MAX; i++)
    if (cuzk_fr_is_zero(&sc[i])) zero = i;
  k = gather(sc + ni, u + ni, bm_a, na, &za);
  if (k == UINT64_MAX) goto nomem;
  assert(k == da);
  k += ni;
  if (zero == UINT64_MAX && za != UINT64_MAX) zero = ni + za;
  if (zero != UINT64_MAX) {
    e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                  "setup: A polynomial %llu vanishes at tau", (unsigned long long)zero);
    goto done;
  }
  p->n_a = k;
  p->a = malloc((k ? k : 1) * sizeof *p->a);
  if (!p->a) goto nomem;
  phase(&tph, "a_scalars");
  if (g1_fb_apply(p->a, &tab1, sc, k) != CUZK_OK) goto nomem;
  phase(&tph, "g1_a");

  /* B: inputs and aux in B's densities, in G1 and G2 */
  uint64_t zi;
  uint64_t kb = gather(sc, v, bm_bi, ni, &zi);
  uint64_t ka = kb == UINT64_MAX ? UINT64_MAX : gather(sc + kb, v + ni, bm_ba, na, &za);
  if (ka == UINT64_MAX) goto nomem;
  assert(kb == dbi && ka == dba);
  k = kb + ka;
  zero = zi != UINT64_MAX ? zi : za != UINT64_MAX ? kb + za : UINT64_MAX;
  if (zero != UINT64_MAX) {
    e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                  "setup: B polynomial %llu vanishes at tau", (unsigned long long)zero);
    goto done;
  }
  p->n_b_g1 = p->n_b_g2 = k;
  p->b_g1 = malloc((k ? k : 1) * sizeof *p->b_g1);
  p->b_g2 = malloc((k ? k : 1) * sizeof *p->b_g2);
  if (!p->b_g1 || !p->b_g2) goto nomem;
  phase(&tph, "b_scalars");
  if (g1_fb_apply(p->b_g1, &tab1, sc, k) != CUZK_OK) goto nomem;
  free(tab1.pts);
  tab1.pts = NULL;
  phase(&tph, "g1_b");
  if (k &&
      (g2_table_new(&tab2, &g2, k) != CUZK_OK || g2_fb_apply(p->b_g2, &tab2, sc, k) != CUZK_OK))
    goto nomem;
  phase(&tph, "g2_b");

  *out = p;
  p = NULL;
  e = CUZK_OK;
  goto done;
nomem:
  e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "setup: no memory");
done:
  cuzk_groth16_params_free(p);
  free(tab1.pts);
  free(tab2.pts);
  free(lag);
  free(scratch);
  free(u);
  free(v);
  free(w);
  free(sc);
  cuzk_domain_free(dom);
  return e;
}
