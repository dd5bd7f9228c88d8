#include "core/ff/fp.h"

#include <assert.h>
#include <openssl/rand.h>
#include <string.h>

#include "core/ff/ff_internal.h"
#include "core/ff/mont.h"

#define N CUZK_FP_LIMBS

/* p */
const uint64_t CUZK_FP_MODULUS[N] = {0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                                     0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};

const cuzk_fp_t CUZK_FP_ZERO = {{0}};
/* R mod p, R = 2^384 */
const cuzk_fp_t CUZK_FP_ONE = {{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                                0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}};
/* R^2 mod p */
const uint64_t cuzk__fp_r2[N] = {0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5,
                                 0x67eb88a9939d83c0, 0x9a793e85b519952d, 0x11988fe592cae3aa};
/* R^3 mod p */
const uint64_t cuzk__fp_r3[N] = {0xed48ac6bd94ca1e0, 0x315f831e03a7adf8, 0x9a53352a615e29dd,
                                 0x34c04e5e921e1761, 0x2512d43565724728, 0x0aa6346091755d4d};
/* p - 2 (Fermat inversion exponent) */
const uint64_t cuzk__fp_p_minus_2[N] = {0xb9feffffffffaaa9, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                                         0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
/* (p + 1) / 4 (square root exponent, p = 3 mod 4) */
const uint64_t cuzk__fp_p_plus_1_div_4[N] = {0xee7fbfffffffeaab, 0x07aaffffac54ffff,
                                              0xd9cc34a83dac3d89, 0xd91dd2e13ce144af,
                                              0x92c6e9ed90d2eb35, 0x0680447a8e5ff9a6};
/* (p - 1) / 2 (Euler's criterion; also the "lexicographically largest" threshold) */
const uint64_t cuzk__fp_p_minus_1_div_2[N] = {0xdcff7fffffffd555, 0x0f55ffff58a9ffff,
                                               0xb39869507b587b12, 0xb23ba5c279c2895f,
                                               0x258dd3db21a5d66b, 0x0d0088f51cbff34d};

void cuzk_fp_add(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b) {
  cuzk__mont_add(out->l, a->l, b->l, CUZK_FP_MODULUS, N);
}

void cuzk_fp_sub(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b) {
  cuzk__mont_sub(out->l, a->l, b->l, CUZK_FP_MODULUS, N);
}

void cuzk_fp_neg(cuzk_fp_t *out, const cuzk_fp_t *a) { cuzk__mont_neg(out->l, a->l, CUZK_FP_MODULUS, N); }

void cuzk_fp_dbl(cuzk_fp_t *out, const cuzk_fp_t *a) {
  cuzk__mont_add(out->l, a->l, a->l, CUZK_FP_MODULUS, N);
}

void cuzk_fp_mul_portable(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b) {
  cuzk__mont_mul(out->l, a->l, b->l, CUZK_FP_MODULUS, CUZK__FP_NINV, N);
}

void cuzk_fp_sqr_portable(cuzk_fp_t *out, const cuzk_fp_t *a) {
  cuzk__mont_mul(out->l, a->l, a->l, CUZK_FP_MODULUS, CUZK__FP_NINV, N);
}

void cuzk_fp_mul(cuzk_fp_t *out, const cuzk_fp_t *a, const cuzk_fp_t *b) {
#if CUZK__FF_HAVE_ADX_PATH
  if (cuzk__ff_use_adx) {
    cuzk__fp_mul_adx(out->l, a->l, b->l);
    return;
  }
#endif
  cuzk_fp_mul_portable(out, a, b);
}

void cuzk_fp_sqr(cuzk_fp_t *out, const cuzk_fp_t *a) {
#if CUZK__FF_HAVE_ADX_PATH
  if (cuzk__ff_use_adx) {
    cuzk__fp_sqr_adx(out->l, a->l);
    return;
  }
#endif
  cuzk_fp_sqr_portable(out, a);
}

/* a^e for a public exponent, fixed 4-bit windows: the operation sequence depends on e only. */
static void fp_pow_public(cuzk_fp_t *out, const cuzk_fp_t *a, const uint64_t *e, size_t n) {
  cuzk_fp_t table[16];
  table[0] = CUZK_FP_ONE;
  table[1] = *a;
  for (int i = 2; i < 16; i++) cuzk_fp_mul(&table[i], &table[i - 1], a);
  size_t top = n;
  while (top > 0 && e[top - 1] == 0) top--;
  cuzk_fp_t acc = CUZK_FP_ONE;
  bool started = false;
  for (size_t i = top; i-- > 0;) {
    for (int nib = 15; nib >= 0; nib--) {
      unsigned w = (unsigned)(e[i] >> (4 * nib)) & 15;
      if (started) {
        for (int k = 0; k < 4; k++) cuzk_fp_sqr(&acc, &acc);
        if (w) cuzk_fp_mul(&acc, &acc, &table[w]);
      } else if (w) {
        acc = table[w];
        started = true;
      }
    }
  }
  *out = acc;
}

void cuzk_fp_pow(cuzk_fp_t *out, const cuzk_fp_t *a, const uint64_t *e, size_t n) {
  assert(e != NULL || n == 0);
  fp_pow_public(out, a, e, n);
}

void cuzk_fp_inv(cuzk_fp_t *out, const cuzk_fp_t *a) { fp_pow_public(out, a, cuzk__fp_p_minus_2, N); }

void cuzk_fp_inv_vartime(cuzk_fp_t *out, const cuzk_fp_t *a) {
  if (cuzk_fp_is_zero(a)) {
    *out = CUZK_FP_ZERO;
    return;
  }
  /* a holds x·R; its plain inverse is x^-1·R^-1; one Montgomery product with R^3 gives x^-1·R. */
  cuzk_fp_t t;
  cuzk__limbs_inv_vartime(t.l, a->l, CUZK_FP_MODULUS, N);
  cuzk_fp_mul(out, &t, (const cuzk_fp_t *)cuzk__fp_r3);
}

void cuzk_fp_batch_inv(cuzk_fp_t *a, size_t n, cuzk_fp_t *scratch) {
  assert(n == 0 || (a != NULL && scratch != NULL));
  cuzk_fp_t acc = CUZK_FP_ONE;
  for (size_t i = 0; i < n; i++) {
    scratch[i] = acc;
    if (!cuzk_fp_is_zero(&a[i])) cuzk_fp_mul(&acc, &acc, &a[i]);
  }
  cuzk_fp_inv_vartime(&acc, &acc);
  for (size_t i = n; i-- > 0;) {
    if (cuzk_fp_is_zero(&a[i])) continue;
    cuzk_fp_t t;
    cuzk_fp_mul(&t, &acc, &scratch[i]);
    cuzk_fp_mul(&acc, &acc, &a[i]);
    a[i] = t;
  }
}

bool cuzk_fp_sqrt(cuzk_fp_t *out, const cuzk_fp_t *a) {
  cuzk_fp_t s, s2;
  fp_pow_public(&s, a, cuzk__fp_p_plus_1_div_4, N);
  cuzk_fp_sqr(&s2, &s);
  *out = s;
  return cuzk_fp_eq(&s2, a);
}

int cuzk_fp_legendre(const cuzk_fp_t *a) {
  cuzk_fp_t l;
  fp_pow_public(&l, a, cuzk__fp_p_minus_1_div_2, N);
  if (cuzk_fp_is_zero(&l)) return 0;
  return cuzk_fp_is_one(&l) ? 1 : -1;
}

bool cuzk_fp_is_zero(const cuzk_fp_t *a) { return cuzk__limbs_is_zero(a->l, N); }
bool cuzk_fp_is_one(const cuzk_fp_t *a) { return cuzk__limbs_eq(a->l, CUZK_FP_ONE.l, N); }
bool cuzk_fp_eq(const cuzk_fp_t *a, const cuzk_fp_t *b) { return cuzk__limbs_eq(a->l, b->l, N); }

bool cuzk_fp_is_lexi_largest(const cuzk_fp_t *a) {
  uint64_t raw[N];
  cuzk_fp_to_raw(raw, a);
  return cuzk__limbs_lt(cuzk__fp_p_minus_1_div_2, raw, N);
}

void cuzk_fp_from_u64(cuzk_fp_t *out, uint64_t v) {
  uint64_t raw[N] = {v};
  cuzk_fp_from_raw(out, raw);
}

void cuzk_fp_from_raw(cuzk_fp_t *out, const uint64_t raw[N]) {
  cuzk_fp_t t;
  memcpy(t.l, raw, sizeof t.l);
  cuzk_fp_mul(out, &t, (const cuzk_fp_t *)cuzk__fp_r2);
}

void cuzk_fp_to_raw(uint64_t raw[N], const cuzk_fp_t *a) { cuzk__mont_redc(raw, a->l, CUZK_FP_MODULUS, CUZK__FP_NINV, N); }

static cuzk_err_t fp_from_limbs_checked(cuzk_fp_t *out, const uint64_t raw[N]) {
  if (!cuzk__limbs_lt(raw, CUZK_FP_MODULUS, N)) return CUZK_ERR_NON_CANONICAL;
  cuzk_fp_from_raw(out, raw);
  return CUZK_OK;
}

cuzk_err_t cuzk_fp_from_be(cuzk_fp_t *out, const uint8_t in[CUZK_FP_BYTES]) {
  uint64_t raw[N];
  cuzk__limbs_from_be(raw, in, N);
  return fp_from_limbs_checked(out, raw);
}

cuzk_err_t cuzk_fp_from_le(cuzk_fp_t *out, const uint8_t in[CUZK_FP_BYTES]) {
  uint64_t raw[N];
  cuzk__limbs_from_le(raw, in, N);
  return fp_from_limbs_checked(out, raw);
}

void cuzk_fp_to_be(uint8_t out[CUZK_FP_BYTES], const cuzk_fp_t *a) {
  uint64_t raw[N];
  cuzk_fp_to_raw(raw, a);
  cuzk__limbs_to_be(out, raw, N);
}

void cuzk_fp_to_le(uint8_t out[CUZK_FP_BYTES], const cuzk_fp_t *a) {
  uint64_t raw[N];
  cuzk_fp_to_raw(raw, a);
  cuzk__limbs_to_le(out, raw, N);
}

cuzk_err_t cuzk_fp_random(cuzk_fp_t *out) {
  /* Rejection sampling on 381-bit candidates: accepted with probability p / 2^381 > 0.8. */
  for (;;) {
    uint8_t buf[CUZK_FP_BYTES];
    if (RAND_bytes(buf, sizeof buf) != 1) return CUZK_ERR_INTERNAL;
    uint64_t raw[N];
    cuzk__limbs_from_le(raw, buf, N);
    raw[N - 1] &= ((uint64_t)1 << (381 - 320)) - 1;
    if (cuzk__limbs_lt(raw, CUZK_FP_MODULUS, N)) {
      cuzk_fp_from_raw(out, raw);
      return CUZK_OK;
    }
  }
}
