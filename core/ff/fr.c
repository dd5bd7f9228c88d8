#include "core/ff/fr.h"

#include <assert.h>
#include <openssl/rand.h>
#include <string.h>

#include "core/ff/ff_internal.h"
#include "core/ff/mont.h"

#define N CUZK_FR_LIMBS

/* r */
const uint64_t CUZK_FR_MODULUS[N] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                     0x73eda753299d7d48};

const cuzk_fr_t CUZK_FR_ZERO = {{0}};
/* R mod r, R = 2^256 */
const cuzk_fr_t CUZK_FR_ONE = {{0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5,
                                0x1824b159acc5056f}};
/* R^2 mod r */
const uint64_t cuzk__fr_r2[N] = {0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f,
                                 0x0748d9d99f59ff11};
/* R^3 mod r */
const uint64_t cuzk__fr_r3[N] = {0xc62c1807439b73af, 0x1b3e0d188cf06990, 0x73d13c71c7b5f418,
                                 0x6e2a5bb9c8db33e9};
/* r - 2 (Fermat inversion exponent) */
const uint64_t cuzk__fr_r_minus_2[N] = {0xfffffffeffffffff, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                         0x73eda753299d7d48};
/* (r - 1) / 2 (Euler's criterion) */
const uint64_t cuzk__fr_r_minus_1_div_2[N] = {0x7fffffff80000000, 0xa9ded2017fff2dff,
                                               0x199cec0404d0ec02, 0x39f6d3a994cebea4};
/* (t - 1) / 2 where r - 1 = 2^32·t, t odd (Tonelli–Shanks) */
const uint64_t cuzk__fr_t_minus_1_div_2[N] = {0x7fff2dff7fffffff, 0x04d0ec02a9ded201,
                                               0x94cebea4199cec04, 0x0000000039f6d3a9};
/* 7·R mod r: the multiplicative generator */
const uint64_t cuzk__fr_generator[N] = {0x0000000efffffff1, 0x17e363d300189c0f, 0xff9c57876f8457b0,
                                        0x351332208fc5a8c4};
/* 7^t·R mod r: a primitive 2^32-th root of unity */
const uint64_t cuzk__fr_root_2_32[N] = {0xb9b58d8c5f0e466a, 0x5b1b4c801819d7ec, 0x0af53ae352a31e64,
                                        0x5bf3adda19e9b27b};

void cuzk_fr_add(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b) {
  cuzk__mont_add(out->l, a->l, b->l, CUZK_FR_MODULUS, N);
}

void cuzk_fr_sub(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b) {
  cuzk__mont_sub(out->l, a->l, b->l, CUZK_FR_MODULUS, N);
}

void cuzk_fr_neg(cuzk_fr_t *out, const cuzk_fr_t *a) { cuzk__mont_neg(out->l, a->l, CUZK_FR_MODULUS, N); }

void cuzk_fr_dbl(cuzk_fr_t *out, const cuzk_fr_t *a) {
  cuzk__mont_add(out->l, a->l, a->l, CUZK_FR_MODULUS, N);
}

void cuzk_fr_mul_portable(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b) {
  cuzk__mont_mul(out->l, a->l, b->l, CUZK_FR_MODULUS, CUZK__FR_NINV, N);
}

void cuzk_fr_sqr_portable(cuzk_fr_t *out, const cuzk_fr_t *a) {
  cuzk__mont_mul(out->l, a->l, a->l, CUZK_FR_MODULUS, CUZK__FR_NINV, N);
}

void cuzk_fr_mul(cuzk_fr_t *out, const cuzk_fr_t *a, const cuzk_fr_t *b) {
#if CUZK__FF_HAVE_ADX_PATH
  if (cuzk__ff_use_adx) {
    cuzk__fr_mul_adx(out->l, a->l, b->l);
    return;
  }
#endif
  cuzk_fr_mul_portable(out, a, b);
}

void cuzk_fr_sqr(cuzk_fr_t *out, const cuzk_fr_t *a) {
#if CUZK__FF_HAVE_ADX_PATH
  if (cuzk__ff_use_adx) {
    cuzk__fr_sqr_adx(out->l, a->l);
    return;
  }
#endif
  cuzk_fr_sqr_portable(out, a);
}

/* a^e for a public exponent, fixed 4-bit windows: the operation sequence depends on e only. */
static void fr_pow_public(cuzk_fr_t *out, const cuzk_fr_t *a, const uint64_t *e, size_t n) {
  cuzk_fr_t table[16];
  table[0] = CUZK_FR_ONE;
  table[1] = *a;
  for (int i = 2; i < 16; i++) cuzk_fr_mul(&table[i], &table[i - 1], a);
  size_t top = n;
  while (top > 0 && e[top - 1] == 0) top--;
  cuzk_fr_t acc = CUZK_FR_ONE;
  bool started = false;
  for (size_t i = top; i-- > 0;) {
    for (int nib = 15; nib >= 0; nib--) {
      unsigned w = (unsigned)(e[i] >> (4 * nib)) & 15;
      if (started) {
        for (int k = 0; k < 4; k++) cuzk_fr_sqr(&acc, &acc);
        if (w) cuzk_fr_mul(&acc, &acc, &table[w]);
      } else if (w) {
        acc = table[w];
        started = true;
      }
    }
  }
  *out = acc;
}

void cuzk_fr_pow(cuzk_fr_t *out, const cuzk_fr_t *a, const uint64_t *e, size_t n) {
  assert(e != NULL || n == 0);
  fr_pow_public(out, a, e, n);
}

void cuzk_fr_inv(cuzk_fr_t *out, const cuzk_fr_t *a) { fr_pow_public(out, a, cuzk__fr_r_minus_2, N); }

void cuzk_fr_inv_vartime(cuzk_fr_t *out, const cuzk_fr_t *a) {
  if (cuzk_fr_is_zero(a)) {
    *out = CUZK_FR_ZERO;
    return;
  }
  /* a holds x·R; its plain inverse is x^-1·R^-1; one Montgomery product with R^3 gives x^-1·R. */
  cuzk_fr_t t;
  cuzk__limbs_inv_vartime(t.l, a->l, CUZK_FR_MODULUS, N);
  cuzk_fr_mul(out, &t, (const cuzk_fr_t *)cuzk__fr_r3);
}

void cuzk_fr_batch_inv(cuzk_fr_t *a, size_t n, cuzk_fr_t *scratch) {
  assert(n == 0 || (a != NULL && scratch != NULL));
  cuzk_fr_t acc = CUZK_FR_ONE;
  for (size_t i = 0; i < n; i++) {
    scratch[i] = acc;
    if (!cuzk_fr_is_zero(&a[i])) cuzk_fr_mul(&acc, &acc, &a[i]);
  }
  cuzk_fr_inv_vartime(&acc, &acc);
  for (size_t i = n; i-- > 0;) {
    if (cuzk_fr_is_zero(&a[i])) continue;
    cuzk_fr_t t;
    cuzk_fr_mul(&t, &acc, &scratch[i]);
    cuzk_fr_mul(&acc, &acc, &a[i]);
    a[i] = t;
  }
}

/* Tonelli–Shanks with r - 1 = 2^32·t and c = 7^t (variable time in a). */
bool cuzk_fr_sqrt(cuzk_fr_t *out, const cuzk_fr_t *a) {
  if (cuzk_fr_is_zero(a)) {
    *out = CUZK_FR_ZERO;
    return true;
  }
  cuzk_fr_t w, x, b, c = *(const cuzk_fr_t *)cuzk__fr_root_2_32;
  fr_pow_public(&w, a, cuzk__fr_t_minus_1_div_2, N); /* a^((t-1)/2) */
  cuzk_fr_mul(&x, a, &w);                      /* a^((t+1)/2) */
  cuzk_fr_mul(&b, &x, &w);                     /* a^t */
  unsigned m = CUZK_FR_TWO_ADICITY;
  while (!cuzk_fr_is_one(&b)) {
    unsigned i = 0;
    cuzk_fr_t b2 = b;
    while (!cuzk_fr_is_one(&b2)) {
      cuzk_fr_sqr(&b2, &b2);
      if (++i == m) return false;
    }
    cuzk_fr_t g = c;
    for (unsigned k = 0; k + i + 1 < m; k++) cuzk_fr_sqr(&g, &g);
    cuzk_fr_mul(&x, &x, &g);
    cuzk_fr_sqr(&c, &g);
    cuzk_fr_mul(&b, &b, &c);
    m = i;
  }
  *out = x;
  return true;
}

int cuzk_fr_legendre(const cuzk_fr_t *a) {
  cuzk_fr_t l;
  fr_pow_public(&l, a, cuzk__fr_r_minus_1_div_2, N);
  if (cuzk_fr_is_zero(&l)) return 0;
  return cuzk_fr_is_one(&l) ? 1 : -1;
}

bool cuzk_fr_is_zero(const cuzk_fr_t *a) { return cuzk__limbs_is_zero(a->l, N); }
bool cuzk_fr_is_one(const cuzk_fr_t *a) { return cuzk__limbs_eq(a->l, CUZK_FR_ONE.l, N); }
bool cuzk_fr_eq(const cuzk_fr_t *a, const cuzk_fr_t *b) { return cuzk__limbs_eq(a->l, b->l, N); }

void cuzk_fr_from_u64(cuzk_fr_t *out, uint64_t v) {
  uint64_t raw[N] = {v};
  cuzk_fr_from_raw(out, raw);
}

void cuzk_fr_from_raw(cuzk_fr_t *out, const uint64_t raw[N]) {
  cuzk_fr_t t;
  memcpy(t.l, raw, sizeof t.l);
  cuzk_fr_mul(out, &t, (const cuzk_fr_t *)cuzk__fr_r2);
}

void cuzk_fr_to_raw(uint64_t raw[N], const cuzk_fr_t *a) { cuzk__mont_redc(raw, a->l, CUZK_FR_MODULUS, CUZK__FR_NINV, N); }

static cuzk_err_t fr_from_limbs_checked(cuzk_fr_t *out, const uint64_t raw[N]) {
  if (!cuzk__limbs_lt(raw, CUZK_FR_MODULUS, N)) return CUZK_ERR_NON_CANONICAL;
  cuzk_fr_from_raw(out, raw);
  return CUZK_OK;
}

cuzk_err_t cuzk_fr_from_be(cuzk_fr_t *out, const uint8_t in[CUZK_FR_BYTES]) {
  uint64_t raw[N];
  cuzk__limbs_from_be(raw, in, N);
  return fr_from_limbs_checked(out, raw);
}

cuzk_err_t cuzk_fr_from_le(cuzk_fr_t *out, const uint8_t in[CUZK_FR_BYTES]) {
  uint64_t raw[N];
  cuzk__limbs_from_le(raw, in, N);
  return fr_from_limbs_checked(out, raw);
}

void cuzk_fr_to_be(uint8_t out[CUZK_FR_BYTES], const cuzk_fr_t *a) {
  uint64_t raw[N];
  cuzk_fr_to_raw(raw, a);
  cuzk__limbs_to_be(out, raw, N);
}

void cuzk_fr_to_le(uint8_t out[CUZK_FR_BYTES], const cuzk_fr_t *a) {
  uint64_t raw[N];
  cuzk_fr_to_raw(raw, a);
  cuzk__limbs_to_le(out, raw, N);
}

/* x < 2^256 < 3r: two conditional subtractions bring it below r. */
static void fr_reduce_256(uint64_t x[N]) {
  for (int k = 0; k < 2; k++) {
    uint64_t d[N], borrow = 0;
    for (int i = 0; i < N; i++) borrow = cuzk__sbb(&d[i], x[i], CUZK_FR_MODULUS[i], borrow);
    uint64_t keep = (uint64_t)0 - borrow;
    for (int i = 0; i < N; i++) x[i] = (x[i] & keep) | (d[i] & ~keep);
  }
}

void cuzk_fr_from_le_wide(cuzk_fr_t *out, const uint8_t in[64]) {
  /* v = lo + hi·2^256; in Montgomery form v·R = mont(lo, R^2) + mont(hi, R^3), R = 2^256. */
  cuzk_fr_t lo, hi;
  cuzk__limbs_from_le(lo.l, in, N);
  cuzk__limbs_from_le(hi.l, in + 32, N);
  fr_reduce_256(lo.l);
  fr_reduce_256(hi.l);
  cuzk_fr_mul(&lo, &lo, (const cuzk_fr_t *)cuzk__fr_r2);
  cuzk_fr_mul(&hi, &hi, (const cuzk_fr_t *)cuzk__fr_r3);
  cuzk_fr_add(out, &lo, &hi);
}

cuzk_err_t cuzk_fr_random(cuzk_fr_t *out) {
  /* Rejection sampling on 255-bit candidates: accepted with probability r / 2^255 > 0.9. */
  for (;;) {
    uint8_t buf[CUZK_FR_BYTES];
    if (RAND_bytes(buf, sizeof buf) != 1) return CUZK_ERR_INTERNAL;
    uint64_t raw[N];
    cuzk__limbs_from_le(raw, buf, N);
    raw[N - 1] &= ((uint64_t)1 << 63) - 1;
    if (cuzk__limbs_lt(raw, CUZK_FR_MODULUS, N)) {
      cuzk_fr_from_raw(out, raw);
      return CUZK_OK;
    }
  }
}

void cuzk_fr_generator(cuzk_fr_t *out) { *out = *(const cuzk_fr_t *)cuzk__fr_generator; }

void cuzk_fr_root_of_unity(cuzk_fr_t *out, unsigned log_n) {
  assert(log_n <= CUZK_FR_TWO_ADICITY);
  cuzk_fr_t w = *(const cuzk_fr_t *)cuzk__fr_root_2_32;
  for (unsigned k = log_n; k < CUZK_FR_TWO_ADICITY; k++) cuzk_fr_sqr(&w, &w);
  *out = w;
}
