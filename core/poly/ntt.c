#include "core/poly/ntt.h"

#include <assert.h>
#include <stdlib.h>

#include "core/poly/par.h"

/* Stages with butterfly span < CUZK__NTT_BLOCK run block by block (a block of 2^11 elements,
 * 64 KiB, stays in L2); the later stages run as whole-array passes split by butterflies. */
#define CUZK__NTT_LOG_BLOCK 11u
#define CUZK__PAR_MIN 2048u

static void cuzk__fr_pow_u64(cuzk_fr_t *out, const cuzk_fr_t *a, uint64_t e) {
  cuzk_fr_pow(out, a, &e, 1);
}

/* ---- elementwise passes ----------------------------------------------------------------- */

typedef struct {
  cuzk_fr_t *a;
  uint64_t n;
  size_t chunks;
  const cuzk_fr_t *base; /* for power scaling: a_i *= scale · base^i */
  cuzk_fr_t scale;
} cuzk__pow_job_t;

static void cuzk__pow_chunk(void *ctx, size_t c) {
  const cuzk__pow_job_t *j = ctx;
  uint64_t lo = j->n * c / j->chunks, hi = j->n * (c + 1) / j->chunks;
  cuzk_fr_t p;
  cuzk__fr_pow_u64(&p, j->base, lo);
  cuzk_fr_mul(&p, &p, &j->scale);
  for (uint64_t i = lo; i < hi; i++) {
    cuzk_fr_mul(&j->a[i], &j->a[i], &p);
    cuzk_fr_mul(&p, &p, j->base);
  }
}

/* a_i *= scale · base^i */
static void cuzk__scale_powers(cuzk_fr_t *a, uint64_t n, const cuzk_fr_t *base,
                               const cuzk_fr_t *scale) {
  cuzk__pow_job_t j = {.a = a, .n = n, .base = base, .scale = *scale};
  j.chunks = cuzk__par_chunks(n, CUZK__PAR_MIN);
  cuzk__par_for(j.chunks, cuzk__pow_chunk, &j);
}

typedef struct {
  cuzk_fr_t *tw;
  uint64_t half;
  size_t chunks;
  cuzk_fr_t omega;
} cuzk__tw_job_t;

static void cuzk__tw_chunk(void *ctx, size_t c) {
  const cuzk__tw_job_t *j = ctx;
  uint64_t lo = j->half * c / j->chunks, hi = j->half * (c + 1) / j->chunks;
  if (lo >= hi) return;
  cuzk_fr_t p;
  cuzk__fr_pow_u64(&p, &j->omega, lo);
  for (uint64_t i = lo; i < hi; i++) {
    j->tw[i] = p;
    cuzk_fr_mul(&p, &p, &j->omega);
  }
}

/* ---- domain ----------------------------------------------------------------------------- */

cuzk_err_t cuzk_domain_new(cuzk_domain_t **out, uint64_t min_size, char *errstr,
                           size_t errstr_size) {
  assert(out);
  *out = NULL;
  unsigned k = 0;
  while (k <= CUZK_FR_TWO_ADICITY && (1ULL << k) < min_size) k++;
  if (k > CUZK_FR_TWO_ADICITY)
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size,
                     "domain: %llu exceeds 2^32 (Fr 2-adicity)", (unsigned long long)min_size);
  cuzk_domain_t *d = calloc(1, sizeof *d);
  uint64_t half = k ? (1ULL << (k - 1)) : 1;
  if (d) d->tw = malloc(half * sizeof(cuzk_fr_t));
  if (!d || !d->tw) {
    free(d);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "domain: out of memory for 2^%u", k);
  }
  d->log_n = k;
  d->n = 1ULL << k;
  cuzk_fr_root_of_unity(&d->omega, k);
  cuzk_fr_inv_vartime(&d->omega_inv, &d->omega);
  cuzk_fr_t nf;
  cuzk_fr_from_u64(&nf, d->n);
  cuzk_fr_inv_vartime(&d->n_inv, &nf);
  cuzk_fr_generator(&d->g);
  cuzk_fr_inv_vartime(&d->g_inv, &d->g);
  cuzk__fr_pow_u64(&d->z_coset, &d->g, d->n);
  cuzk_fr_sub(&d->z_coset, &d->z_coset, &CUZK_FR_ONE);
  cuzk_fr_inv_vartime(&d->z_coset_inv, &d->z_coset);
  cuzk__tw_job_t j = {.tw = d->tw, .half = half, .omega = d->omega};
  j.chunks = cuzk__par_chunks(half, CUZK__PAR_MIN);
  cuzk__par_for(j.chunks, cuzk__tw_chunk, &j);
  *out = d;
  return CUZK_OK;
}

void cuzk_domain_free(cuzk_domain_t *d) {
  if (!d) return;
  free(d->tw);
  free(d);
}

/* ---- transform -------------------------------------------------------------------------- */

static inline uint64_t cuzk__bitrev(uint64_t x, unsigned bits) {
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
  x = __builtin_bswap64(x);
  return bits ? x >> (64 - bits) : 0;
}

typedef struct {
  const cuzk_domain_t *d;
  cuzk_fr_t *a;
  size_t chunks;
  uint64_t half_span; /* butterfly span h of the current whole-array stage */
} cuzk__ntt_job_t;

static void cuzk__bitrev_chunk(void *ctx, size_t c) {
  const cuzk__ntt_job_t *j = ctx;
  uint64_t n = j->d->n, lo = n * c / j->chunks, hi = n * (c + 1) / j->chunks;
  for (uint64_t i = lo; i < hi; i++) {
    uint64_t r = cuzk__bitrev(i, j->d->log_n);
    if (i < r) {
      cuzk_fr_t t = j->a[i];
      j->a[i] = j->a[r];
      j->a[r] = t;
    }
  }
}

static inline void cuzk__butterfly(cuzk_fr_t *x, cuzk_fr_t *y, const cuzk_fr_t *w) {
  cuzk_fr_t t;
  cuzk_fr_mul(&t, y, w);
  cuzk_fr_sub(y, x, &t);
  cuzk_fr_add(x, x, &t);
}

/* All stages with span < block on the blocks of chunk c (blocks are independent). */
static void cuzk__block_chunk(void *ctx, size_t c) {
  const cuzk__ntt_job_t *j = ctx;
  const cuzk_domain_t *d = j->d;
  uint64_t n = d->n;
  unsigned lb = d->log_n < CUZK__NTT_LOG_BLOCK ? d->log_n : CUZK__NTT_LOG_BLOCK;
  uint64_t block = 1ULL << lb, nblocks = n >> lb;
  uint64_t b0 = nblocks * c / j->chunks, b1 = nblocks * (c + 1) / j->chunks;
  for (uint64_t blk = b0; blk < b1; blk++) {
    cuzk_fr_t *a = j->a + blk * block;
    for (uint64_t h = 1; h < block; h <<= 1) {
      uint64_t stride = n / (2 * h);
      for (uint64_t k = 0; k < block; k += 2 * h) {
        cuzk_fr_add(&a[k], &a[k], &a[k + h]);
        /* j = 0: w = 1 */
        cuzk_fr_t t;
        cuzk_fr_dbl(&t, &a[k + h]);
        cuzk_fr_sub(&a[k + h], &a[k], &t);
        for (uint64_t i = 1; i < h; i++)
          cuzk__butterfly(&a[k + i], &a[k + h + i], &d->tw[i * stride]);
      }
    }
  }
}

/* One stage with span h >= block, butterflies split evenly over chunks. */
static void cuzk__stage_chunk(void *ctx, size_t c) {
  const cuzk__ntt_job_t *j = ctx;
  const cuzk_domain_t *d = j->d;
  uint64_t h = j->half_span, nb = d->n / 2, stride = d->n / (2 * h);
  uint64_t lo = nb * c / j->chunks, hi = nb * (c + 1) / j->chunks;
  for (uint64_t b = lo; b < hi; b++) {
    uint64_t i = b & (h - 1), k = (b - i) * 2;
    cuzk__butterfly(&j->a[k + i], &j->a[k + h + i], &d->tw[i * stride]);
  }
}

void cuzk_ntt_forward(const cuzk_domain_t *d, cuzk_fr_t *a) {
  assert(d && a);
  if (d->n == 1) return;
  cuzk__ntt_job_t j = {.d = d, .a = a};
  j.chunks = cuzk__par_chunks(d->n, CUZK__PAR_MIN);
  cuzk__par_for(j.chunks, cuzk__bitrev_chunk, &j);
  unsigned lb = d->log_n < CUZK__NTT_LOG_BLOCK ? d->log_n : CUZK__NTT_LOG_BLOCK;
  uint64_t nblocks = d->n >> lb;
  j.chunks = cuzk__par_chunks(nblocks, 1);
  cuzk__par_for(j.chunks, cuzk__block_chunk, &j);
  j.chunks = cuzk__par_chunks(d->n / 2, CUZK__PAR_MIN);
  for (uint64_t h = 1ULL << lb; h < d->n; h <<= 1) {
    j.half_span = h;
    cuzk__par_for(j.chunks, cuzk__stage_chunk, &j);
  }
}

typedef struct {
  cuzk_fr_t *a;
  uint64_t n;
  size_t chunks;
  const cuzk_fr_t *s;
} cuzk__rev_job_t;

/* a_i, a_(n-i) <- s·a_(n-i), s·a_i for 0 < i < n/2; a_0, a_(n/2) scaled in place. */
static void cuzk__rev_scale_chunk(void *ctx, size_t c) {
  const cuzk__rev_job_t *j = ctx;
  uint64_t half = j->n / 2, lo = (half + 1) * c / j->chunks, hi = (half + 1) * (c + 1) / j->chunks;
  for (uint64_t i = lo; i < hi; i++) {
    uint64_t r = (j->n - i) & (j->n - 1);
    if (r == i) {
      cuzk_fr_mul(&j->a[i], &j->a[i], j->s);
    } else {
      cuzk_fr_t t;
      cuzk_fr_mul(&t, &j->a[i], j->s);
      cuzk_fr_mul(&j->a[i], &j->a[r], j->s);
      j->a[r] = t;
    }
  }
}

/* inverse(a) = n^-1 · forward(a) read at index (n - i) mod n */
void cuzk_ntt_inverse(const cuzk_domain_t *d, cuzk_fr_t *a) {
  assert(d && a);
  if (d->n == 1) return;
  cuzk_ntt_forward(d, a);
  cuzk__rev_job_t j = {.a = a, .n = d->n, .s = &d->n_inv};
  j.chunks = cuzk__par_chunks(d->n / 2 + 1, CUZK__PAR_MIN);
  cuzk__par_for(j.chunks, cuzk__rev_scale_chunk, &j);
}

void cuzk_ntt_coset_forward(const cuzk_domain_t *d, cuzk_fr_t *a) {
  assert(d && a);
  cuzk__scale_powers(a, d->n, &d->g, &CUZK_FR_ONE);
  cuzk_ntt_forward(d, a);
}

void cuzk_ntt_coset_inverse(const cuzk_domain_t *d, cuzk_fr_t *a) {
  assert(d && a);
  cuzk_ntt_inverse(d, a);
  cuzk__scale_powers(a, d->n, &d->g_inv, &CUZK_FR_ONE);
}

typedef struct {
  cuzk_fr_t *a;
  const cuzk_fr_t *b, *c, *zinv;
  uint64_t n;
  size_t chunks;
} cuzk__h_job_t;

static void cuzk__h_chunk(void *ctx, size_t k) {
  const cuzk__h_job_t *j = ctx;
  uint64_t lo = j->n * k / j->chunks, hi = j->n * (k + 1) / j->chunks;
  for (uint64_t i = lo; i < hi; i++) {
    cuzk_fr_mul(&j->a[i], &j->a[i], &j->b[i]);
    cuzk_fr_sub(&j->a[i], &j->a[i], &j->c[i]);
    cuzk_fr_mul(&j->a[i], &j->a[i], j->zinv);
  }
}

cuzk_err_t cuzk_poly_groth16_h(const cuzk_domain_t *d, cuzk_fr_t *a, cuzk_fr_t *b, cuzk_fr_t *c) {
  assert(d && a && b && c);
  cuzk_fr_t *v[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    cuzk_ntt_inverse(d, v[k]);
    cuzk_ntt_coset_forward(d, v[k]);
  }
  cuzk__h_job_t j = {.a = a, .b = b, .c = c, .zinv = &d->z_coset_inv, .n = d->n};
  j.chunks = cuzk__par_chunks(d->n, CUZK__PAR_MIN);
  cuzk__par_for(j.chunks, cuzk__h_chunk, &j);
  cuzk_ntt_coset_inverse(d, a);
  return cuzk_fr_is_zero(&a[d->n - 1]) ? CUZK_OK : CUZK_ERR_UNSATISFIED;
}
