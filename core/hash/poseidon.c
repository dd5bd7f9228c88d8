#include "core/hash/poseidon.h"

#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Grain LFSR of the Poseidon paper (appendix F): an 80-bit register b_0..b_79 updated by
 * b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i, first 160 outputs
 * discarded, then read in self-shrinking pairs. */
typedef struct {
  uint8_t bits[80];
  unsigned head;
} grain_t;

static unsigned grain_step(grain_t *g) {
  const uint8_t *b = g->bits;
  unsigned h = g->head;
#define B(i) b[(h + (i)) % 80]
  unsigned nb = B(62) ^ B(51) ^ B(38) ^ B(23) ^ B(13) ^ B(0);
#undef B
  g->bits[h] = (uint8_t)nb;
  g->head = (h + 1) % 80;
  return nb;
}

static void grain_push(grain_t *g, unsigned *pos, unsigned nbits, uint64_t v) {
  for (unsigned i = nbits; i-- > 0;) g->bits[(*pos)++] = (uint8_t)((v >> i) & 1);
}

static void grain_init(grain_t *g, unsigned t, unsigned rf, unsigned rp) {
  unsigned pos = 0;
  g->head = 0;
  grain_push(g, &pos, 2, 1);    /* field: prime field */
  grain_push(g, &pos, 4, 1);    /* S-box id as neptune passes it */
  grain_push(g, &pos, 12, 255); /* n = bits of r */
  grain_push(g, &pos, 12, t);
  grain_push(g, &pos, 10, rf);
  grain_push(g, &pos, 10, rp);
  grain_push(g, &pos, 30, (1u << 30) - 1);
  assert(pos == 80);
  for (int i = 0; i < 160; i++) grain_step(g);
}

static unsigned grain_next(grain_t *g) {
  while (!grain_step(g)) grain_step(g);
  return grain_step(g);
}

/* Next round constant: 255 output bits as a big-endian integer, rejected while >= r. */
static void grain_constant(grain_t *g, cuzk_fr_t *out) {
  for (;;) {
    uint8_t be[32];
    memset(be, 0, sizeof be);
    for (unsigned i = 0; i < 255; i++) {
      unsigned bitpos = 255 - 1 - i; /* MSB first */
      if (grain_next(g)) be[31 - bitpos / 8] |= (uint8_t)(1u << (bitpos % 8));
    }
    if (cuzk_fr_from_be(out, be) == CUZK_OK) return;
  }
}

/* The same permutation rearranged for speed (Poseidon paper, appendix B; neptune
 * src/preprocessing.rs and src/mds.rs do the equivalent): constants of the partial rounds are
 * moved forward through the linear layer so that each partial round adds one scalar to
 * element 0, and M is factored per partial round as M = M' M'' with M'' sparse
 * ([[a00, v], [w_hat, I]]) and M' = diag(1, A_hat) pushed into the next round. */
typedef struct {
  cuzk_fr_t *k;      /* partial_rounds scalars added to element 0 */
  cuzk_fr_t *sparse; /* (partial_rounds - 1) x (2t - 1): a00, v[1..t), w_hat[1..t) */
  cuzk_fr_t last[CUZK_POSEIDON_MAX_WIDTH][CUZK_POSEIDON_MAX_WIDTH]; /* dense last partial */
  cuzk_fr_t c_after[CUZK_POSEIDON_MAX_WIDTH]; /* first constants after the partial rounds */
  /* Constants added right after the MDS product of full round r (the next round's, moved back
   * through its S-box-free start): rc of round r + 1, then (k[0], 0, ...) before the partial
   * rounds, zero after the last round. */
  cuzk_fr_t c_next[CUZK_POSEIDON_FULL_ROUNDS][CUZK_POSEIDON_MAX_WIDTH];
} opt_t;

typedef struct {
  unsigned arity, partial_rounds;
  pthread_once_t once;
  cuzk_poseidon_params_t p;
  opt_t opt;
  int ok;
} slot_t;

static void gen_2(void);
static void gen_4(void);
static void gen_8(void);
static void gen_11(void);

/* R_P for t = 3, 5, 9, 12 at 128-bit security (neptune parameters/round_numbers.txt). */
static slot_t slots[4] = {
    {2, 55, PTHREAD_ONCE_INIT, {0}, {0}, 0},
    {4, 56, PTHREAD_ONCE_INIT, {0}, {0}, 0},
    {8, 57, PTHREAD_ONCE_INIT, {0}, {0}, 0},
    {11, 57, PTHREAD_ONCE_INIT, {0}, {0}, 0},
};

typedef cuzk_fr_t mat_t[CUZK_POSEIDON_MAX_WIDTH][CUZK_POSEIDON_MAX_WIDTH];

/* x = A^-1 b for the n x n matrix A (Gauss-Jordan, variable time; public data). Returns -1
 * when A is singular. */
static int solve(cuzk_fr_t *x, mat_t a_in, const cuzk_fr_t *b, unsigned n) {
  mat_t a;
  cuzk_fr_t y[CUZK_POSEIDON_MAX_WIDTH];
  memcpy(a, a_in, sizeof a);
  memcpy(y, b, n * sizeof *y);
  for (unsigned c = 0; c < n; c++) {
    unsigned piv = c;
    while (piv < n && cuzk_fr_is_zero(&a[piv][c])) piv++;
    if (piv == n) return -1;
    if (piv != c) {
      for (unsigned j = 0; j < n; j++) {
        cuzk_fr_t t = a[c][j];
        a[c][j] = a[piv][j];
        a[piv][j] = t;
      }
      cuzk_fr_t t = y[c];
      y[c] = y[piv];
      y[piv] = t;
    }
    cuzk_fr_t inv, f, tmp;
    cuzk_fr_inv_vartime(&inv, &a[c][c]);
    for (unsigned j = 0; j < n; j++) cuzk_fr_mul(&a[c][j], &a[c][j], &inv);
    cuzk_fr_mul(&y[c], &y[c], &inv);
    for (unsigned r = 0; r < n; r++) {
      if (r == c || cuzk_fr_is_zero(&a[r][c])) continue;
      f = a[r][c];
      for (unsigned j = 0; j < n; j++) {
        cuzk_fr_mul(&tmp, &f, &a[c][j]);
        cuzk_fr_sub(&a[r][j], &a[r][j], &tmp);
      }
      cuzk_fr_mul(&tmp, &f, &y[c]);
      cuzk_fr_sub(&y[r], &y[r], &tmp);
    }
  }
  memcpy(x, y, n * sizeof *y);
  return 0;
}

static int optimize(const cuzk_poseidon_params_t *p, opt_t *o) {
  unsigned t = p->width, half = p->full_rounds / 2, np = p->partial_rounds;
  o->k = malloc(np * sizeof *o->k);
  o->sparse = malloc((size_t)(np - 1) * (2 * t - 1) * sizeof *o->sparse);
  if (!o->k || !o->sparse) return -1;
  /* Constants: carry the non-zero-element part of each partial round's constants forward. */
  cuzk_fr_t carry[CUZK_POSEIDON_MAX_WIDTH], c[CUZK_POSEIDON_MAX_WIDTH], tmp;
  for (unsigned i = 0; i < t; i++) carry[i] = CUZK_FR_ZERO;
  for (unsigned r = 0; r < np; r++) {
    const cuzk_fr_t *rc = &p->rc[(size_t)(half + r) * t];
    for (unsigned i = 0; i < t; i++) cuzk_fr_add(&c[i], &rc[i], &carry[i]);
    o->k[r] = c[0];
    for (unsigned i = 0; i < t; i++) {
      carry[i] = CUZK_FR_ZERO;
      for (unsigned j = 1; j < t; j++) {
        cuzk_fr_mul(&tmp, &p->mds[i][j], &c[j]);
        cuzk_fr_add(&carry[i], &carry[i], &tmp);
      }
    }
  }
  const cuzk_fr_t *rc_after = &p->rc[(size_t)(half + np) * t];
  for (unsigned i = 0; i < t; i++) cuzk_fr_add(&o->c_after[i], &rc_after[i], &carry[i]);
  /* Matrices: A_0 = M; A_r = M' M''; A_{r+1} = M diag(1, A_hat). */
  mat_t a, ahat, next;
  memcpy(a, p->mds, sizeof a);
  for (unsigned r = 0; r + 1 < np; r++) {
    cuzk_fr_t *sp = &o->sparse[(size_t)r * (2 * t - 1)];
    cuzk_fr_t w[CUZK_POSEIDON_MAX_WIDTH];
    sp[0] = a[0][0];
    for (unsigned j = 1; j < t; j++) sp[j] = a[0][j];
    for (unsigned i = 1; i < t; i++) {
      w[i - 1] = a[i][0];
      for (unsigned j = 1; j < t; j++) ahat[i - 1][j - 1] = a[i][j];
    }
    if (solve(&sp[t], ahat, w, t - 1) != 0) return -1;
    for (unsigned i = 0; i < t; i++) {
      next[i][0] = p->mds[i][0];
      for (unsigned j = 1; j < t; j++) {
        cuzk_fr_t acc = CUZK_FR_ZERO;
        for (unsigned k = 1; k < t; k++) {
          cuzk_fr_mul(&tmp, &p->mds[i][k], &ahat[k - 1][j - 1]);
          cuzk_fr_add(&acc, &acc, &tmp);
        }
        next[i][j] = acc;
      }
    }
    memcpy(a, next, sizeof a);
  }
  memcpy(o->last, a, sizeof a);
  for (unsigned r = 0; r < 2 * half; r++)
    for (unsigned i = 0; i < t; i++) {
      cuzk_fr_t *c = &o->c_next[r][i];
      if (r + 1 < half)
        *c = p->rc[(size_t)(r + 1) * t + i];
      else if (r + 1 == half)
        *c = i == 0 ? o->k[0] : CUZK_FR_ZERO;
      else if (r + 1 < 2 * half)
        *c = p->rc[(size_t)(np + r + 1) * t + i];
      else
        *c = CUZK_FR_ZERO;
    }
  return 0;
}

static void generate(slot_t *s) {
  cuzk_poseidon_params_t *p = &s->p;
  p->arity = s->arity;
  p->width = s->arity + 1;
  p->full_rounds = CUZK_POSEIDON_FULL_ROUNDS;
  p->partial_rounds = s->partial_rounds;
  unsigned t = p->width;
  size_t n = (size_t)(p->full_rounds + p->partial_rounds) * t;
  cuzk_fr_t *rc = malloc(n * sizeof *rc);
  if (!rc) return;
  grain_t g;
  grain_init(&g, t, p->full_rounds, p->partial_rounds);
  for (size_t i = 0; i < n; i++) grain_constant(&g, &rc[i]);
  p->rc = rc;
  for (unsigned i = 0; i < t; i++)
    for (unsigned j = 0; j < t; j++) {
      cuzk_fr_t d;
      cuzk_fr_from_u64(&d, (uint64_t)i + t + j);
      cuzk_fr_inv_vartime(&p->mds[i][j], &d);
    }
  cuzk_fr_from_u64(&p->merkle_tag, (UINT64_C(1) << p->arity) - 1);
  if (optimize(p, &s->opt) != 0) return;
  s->ok = 1;
}

static void gen_2(void) {
  generate(&slots[0]);
}
static void gen_4(void) {
  generate(&slots[1]);
}
static void gen_8(void) {
  generate(&slots[2]);
}
static void gen_11(void) {
  generate(&slots[3]);
}

int cuzk_poseidon_arity_supported(unsigned arity) {
  return arity == 2 || arity == 4 || arity == 8 || arity == 11;
}

const cuzk_poseidon_params_t *cuzk_poseidon_params(unsigned arity) {
  slot_t *s;
  switch (arity) {
    case 2:
      s = &slots[0];
      pthread_once(&s->once, gen_2);
      break;
    case 4:
      s = &slots[1];
      pthread_once(&s->once, gen_4);
      break;
    case 8:
      s = &slots[2];
      pthread_once(&s->once, gen_8);
      break;
    case 11:
      s = &slots[3];
      pthread_once(&s->once, gen_11);
      break;
    default:
      return NULL;
  }
  return s->ok ? &s->p : NULL;
}

static inline void sbox(cuzk_fr_t *x) {
  cuzk_fr_t x2, x4;
  cuzk_fr_sqr(&x2, x);
  cuzk_fr_sqr(&x4, &x2);
  cuzk_fr_mul(x, x, &x4);
}

static void mix(const cuzk_poseidon_params_t *p, cuzk_fr_t *state) {
  unsigned t = p->width;
  cuzk_fr_t out[CUZK_POSEIDON_MAX_WIDTH];
  for (unsigned j = 0; j < t; j++) {
    cuzk_fr_t acc = CUZK_FR_ZERO, tmp;
    for (unsigned i = 0; i < t; i++) {
      cuzk_fr_mul(&tmp, &state[i], &p->mds[i][j]);
      cuzk_fr_add(&acc, &acc, &tmp);
    }
    out[j] = acc;
  }
  memcpy(state, out, t * sizeof *state);
}

void cuzk_poseidon_permute(const cuzk_poseidon_params_t *p, cuzk_fr_t *state) {
  assert(p && state);
  unsigned t = p->width, half = p->full_rounds / 2;
  unsigned rounds = p->full_rounds + p->partial_rounds;
  const cuzk_fr_t *rc = p->rc;
  for (unsigned r = 0; r < rounds; r++, rc += t) {
    for (unsigned i = 0; i < t; i++) cuzk_fr_add(&state[i], &state[i], &rc[i]);
    if (r < half || r >= half + p->partial_rounds)
      for (unsigned i = 0; i < t; i++) sbox(&state[i]);
    else
      sbox(&state[0]);
    mix(p, state);
  }
}

static const opt_t *opt_of(const cuzk_poseidon_params_t *p) {
  return &((const slot_t *)((const char *)p - offsetof(slot_t, p)))->opt;
}

/* out = sum_k a[k]·x[k] + c (c may be NULL), k < n. A lazily reduced form (one Montgomery
 * reduction per sum, products kept as 9-limb integers in C) was tried and measured no faster
 * than the hand-written ADX product per term (docs/PERF.md), so each term is a full product. */
static inline __attribute__((always_inline)) void dot(cuzk_fr_t *out, const cuzk_fr_t *a,
                                                      const cuzk_fr_t *x, unsigned n,
                                                      const cuzk_fr_t *c) {
  cuzk_fr_t acc, tmp;
  cuzk_fr_mul(&acc, &a[0], &x[0]);
  for (unsigned k = 1; k < n; k++) {
    cuzk_fr_mul(&tmp, &a[k], &x[k]);
    cuzk_fr_add(&acc, &acc, &tmp);
  }
  if (c) cuzk_fr_add(&acc, &acc, c);
  *out = acc;
}

/* the ff module's product (ADX assembly where the CPU has it) */
static inline __attribute__((always_inline)) void fmul(cuzk_fr_t *out, const cuzk_fr_t *a,
                                                       const cuzk_fr_t *b) {
  cuzk_fr_mul(out, a, b);
}

/* x^5 as square, square, multiply */
static inline __attribute__((always_inline)) void sbox_f(cuzk_fr_t *x) {
  cuzk_fr_t x2, x4;
  fmul(&x2, x, x);
  fmul(&x4, &x2, &x2);
  fmul(x, x, &x4);
}

/* x = A x + c (c may be NULL). */
static inline void dense_affine(const cuzk_fr_t a[][CUZK_POSEIDON_MAX_WIDTH], cuzk_fr_t *x,
                                const cuzk_fr_t *c, unsigned t) {
  cuzk_fr_t out[CUZK_POSEIDON_MAX_WIDTH];
  for (unsigned i = 0; i < t; i++) dot(&out[i], a[i], x, t, c ? &c[i] : NULL);
  memcpy(x, out, t * sizeof *x);
}

/* Full round r of 2·half, entered with its constants already added: S-boxes, then the MDS
 * product plus the next round's constants. */
static inline void full_round(const cuzk_poseidon_params_t *p, const opt_t *o, cuzk_fr_t *x,
                              unsigned r) {
  unsigned t = p->width;
  for (unsigned i = 0; i < t; i++) sbox_f(&x[i]);
  dense_affine((const cuzk_fr_t(*)[CUZK_POSEIDON_MAX_WIDTH])p->mds, x, o->c_next[r], t);
}

/* The R_P partial rounds, entered with k[0] already added to x[0]; leaves the constants of the
 * first full round after them added. */
static inline void partial_rounds(const opt_t *o, cuzk_fr_t *x, unsigned t, unsigned np) {
  const cuzk_fr_t *sp = o->sparse;
  for (unsigned r = 0; r + 1 < np; r++, sp += 2 * t - 1) {
    sbox_f(&x[0]);
    cuzk_fr_t y0;
    dot(&y0, sp, x, t, &o->k[r + 1]);
    for (unsigned i = 1; i < t; i++) {
      cuzk_fr_t tmp;
      cuzk_fr_mul(&tmp, &sp[t + i - 1], &x[0]);
      cuzk_fr_add(&x[i], &x[i], &tmp);
    }
    x[0] = y0;
  }
  sbox_f(&x[0]);
  dense_affine((const cuzk_fr_t(*)[CUZK_POSEIDON_MAX_WIDTH])o->last, x, o->c_after, t);
}

void cuzk_poseidon_permute_fast(const cuzk_poseidon_params_t *p, cuzk_fr_t *x) {
  assert(p && x);
  const opt_t *o = opt_of(p);
  unsigned t = p->width, half = p->full_rounds / 2, np = p->partial_rounds;
  for (unsigned i = 0; i < t; i++) cuzk_fr_add(&x[i], &x[i], &p->rc[i]);
  for (unsigned r = 0; r < half; r++) full_round(p, o, x, r);
  partial_rounds(o, x, t, np);
  for (unsigned r = half; r < 2 * half; r++) full_round(p, o, x, r);
}

void cuzk_poseidon_hash_tagged(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *tag,
                               const cuzk_fr_t *in) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert(p && out && tag && in);
  cuzk_fr_t st[CUZK_POSEIDON_MAX_WIDTH];
  st[0] = *tag;
  memcpy(&st[1], in, arity * sizeof *in);
  cuzk_poseidon_permute_fast(p, st);
  *out = st[1];
}

void cuzk_poseidon_hash(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *in) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert(p);
  cuzk_poseidon_hash_tagged(out, arity, &p->merkle_tag, in);
}

void cuzk_poseidon_custom_tag(cuzk_fr_t *out, uint64_t id) {
  uint64_t raw[CUZK_FR_LIMBS] = {id << 40, id >> 24, 0, 0}; /* id * 2^40 < 2^104 < r */
  cuzk_fr_from_raw(out, raw);
}

cuzk_err_t cuzk_poseidon_hash_le(uint8_t out[32], unsigned arity, const uint8_t *in) {
  if (!out || !in || !cuzk_poseidon_arity_supported(arity)) return CUZK_ERR_INVALID_ARG;
  if (!cuzk_poseidon_params(arity)) return CUZK_ERR_NOMEM;
  cuzk_fr_t x[CUZK_POSEIDON_MAX_WIDTH], h;
  for (unsigned i = 0; i < arity; i++) {
    cuzk_err_t e = cuzk_fr_from_le(&x[i], in + 32 * i);
    if (e != CUZK_OK) return e;
  }
  cuzk_poseidon_hash(&h, arity, x);
  cuzk_fr_to_le(out, &h);
  return CUZK_OK;
}

static volatile uint64_t parts_sink;

void cuzk_poseidon_hash_many(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *in, size_t n) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert(p && (n == 0 || (out && in)));
  for (size_t i = 0; i < n; i++) {
    cuzk_fr_t st[CUZK_POSEIDON_MAX_WIDTH];
    st[0] = p->merkle_tag;
    memcpy(&st[1], in + i * arity, arity * sizeof *in);
    cuzk_poseidon_permute_fast(p, st);
    out[i] = st[1];
  }
}

unsigned cuzk_poseidon_mul_count(const cuzk_poseidon_params_t *p, int ref) {
  unsigned t = p->width, rf = p->full_rounds, rp = p->partial_rounds;
  if (ref) return rf * 3 * t + rp * 3 + (rf + rp) * t * t;
  return rf * (3 * t + t * t) + (rp - 1) * (3 + 2 * t - 1) + 3 + t * t;
}

static double parts_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void cuzk__poseidon_parts(cuzk_poseidon_parts_t *out, unsigned arity, long iters) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  assert(p && out && iters > 0);
  const opt_t *o = opt_of(p);
  unsigned t = p->width, half = p->full_rounds / 2, np = p->partial_rounds;
  cuzk_fr_t x[CUZK_POSEIDON_MAX_WIDTH];
  for (unsigned i = 0; i < t; i++) cuzk_fr_from_u64(&x[i], 17 + i);
  double t0 = parts_now_ns();
  for (long it = 0; it < iters; it++)
    for (unsigned r = 0; r < 2 * half; r++) full_round(p, o, x, r);
  out->full_rounds_ns = (parts_now_ns() - t0) / iters;
  t0 = parts_now_ns();
  for (long it = 0; it < iters; it++) partial_rounds(o, x, t, np);
  out->partial_rounds_ns = (parts_now_ns() - t0) / iters;
  t0 = parts_now_ns();
  for (long it = 0; it < iters; it++)
    dense_affine((const cuzk_fr_t(*)[CUZK_POSEIDON_MAX_WIDTH])p->mds, x, NULL, t);
  out->mds_ns = (parts_now_ns() - t0) / iters;
  t0 = parts_now_ns();
  for (long it = 0; it < iters; it++) sbox_f(&x[it % t]);
  out->sbox_ns = (parts_now_ns() - t0) / iters;
  parts_sink ^= x[0].l[0];
}
