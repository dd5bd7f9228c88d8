/* NTTs and the evaluation domain (core/poly/ntt.c). Oracles: the O(n^2) DFT and Horner
 * evaluation written here, and GMP for the roots of unity and domain constants. */
#include "tests/support/testlib.h"

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "core/poly/ntt.h"
#include "tests/support/gmp_oracle.h"

static void rand_fr(cuzk_test_rng_t *g, cuzk_fr_t *x) {
  uint8_t b[64];
  cuzk_test_rng_bytes(g, b, sizeof b);
  cuzk_fr_from_le_wide(x, b);
}

static void fr_to_mpz(mpz_t out, const cuzk_fr_t *x) {
  uint8_t b[32];
  cuzk_fr_to_le(b, x);
  gmpo_from_le_bytes(out, b, 32);
}

static void pow_u64(cuzk_fr_t *out, const cuzk_fr_t *a, uint64_t e) {
  cuzk_fr_t acc = CUZK_FR_ONE, base = *a;
  while (e) {
    if (e & 1) cuzk_fr_mul(&acc, &acc, &base);
    cuzk_fr_sqr(&base, &base);
    e >>= 1;
  }
  *out = acc;
}

/* p(x) for coefficients p[0..n) */
static void horner(cuzk_fr_t *out, const cuzk_fr_t *p, uint64_t n, const cuzk_fr_t *x) {
  cuzk_fr_t acc = CUZK_FR_ZERO;
  for (uint64_t i = n; i-- > 0;) {
    cuzk_fr_mul(&acc, &acc, x);
    cuzk_fr_add(&acc, &acc, &p[i]);
  }
  *out = acc;
}

static cuzk_domain_t *domain(uint64_t n) {
  cuzk_domain_t *d;
  assert_int_equal(cuzk_domain_new(&d, n, NULL, 0), CUZK_OK);
  return d;
}

static void test_domain_constants(void **state) {
  (void)state;
  mpz_t r, e, w, got, t;
  mpz_inits(r, e, w, got, t, NULL);
  mpz_set_str(r, CUZK_ORACLE_R_HEX, 16);
  unsigned ks[] = {0, 1, 2, 5, 10, 16, 20};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
    unsigned k = ks[i];
    cuzk_domain_t *d = domain((1ULL << k) - (k > 1 ? 1 : 0));
    assert_int_equal(d->n, 1ULL << k);
    assert_int_equal(d->log_n, k);
    /* ω = 7^((r-1)/n) mod r */
    mpz_sub_ui(e, r, 1);
    mpz_fdiv_q_2exp(e, e, k);
    mpz_set_ui(t, 7);
    mpz_powm(w, t, e, r);
    fr_to_mpz(got, &d->omega);
    assert_int_equal(mpz_cmp(w, got), 0);
    if (k > 0) { /* primitive: ω^(n/2) = -1 */
      mpz_set_ui(e, 1ULL << (k - 1));
      mpz_powm(t, w, e, r);
      mpz_add_ui(t, t, 1);
      assert_int_equal(mpz_cmp(t, r), 0);
    }
    cuzk_fr_t x;
    cuzk_fr_mul(&x, &d->omega, &d->omega_inv);
    assert_true(cuzk_fr_is_one(&x));
    cuzk_fr_mul(&x, &d->g, &d->g_inv);
    assert_true(cuzk_fr_is_one(&x));
    fr_to_mpz(got, &d->g);
    assert_int_equal(mpz_cmp_ui(got, 7), 0);
    /* n^-1 and g^n - 1 */
    fr_to_mpz(got, &d->n_inv);
    mpz_mul_ui(got, got, 1ULL << k);
    mpz_mod(got, got, r);
    assert_int_equal(mpz_cmp_ui(got, 1), 0);
    mpz_set_ui(t, 7);
    mpz_set_ui(e, 1ULL << k);
    mpz_powm(t, t, e, r);
    mpz_sub_ui(t, t, 1);
    fr_to_mpz(got, &d->z_coset);
    assert_int_equal(mpz_cmp(t, got), 0);
    cuzk_fr_mul(&x, &d->z_coset, &d->z_coset_inv);
    assert_true(cuzk_fr_is_one(&x));
    /* twiddles */
    uint64_t half = k ? d->n / 2 : 1;
    for (uint64_t j = 0; j < half; j += 1 + half / 7) {
      mpz_set_ui(e, j);
      mpz_powm(t, w, e, r);
      fr_to_mpz(got, &d->tw[j]);
      assert_int_equal(mpz_cmp(t, got), 0);
    }
    cuzk_domain_free(d);
  }
  cuzk_domain_t *d;
  assert_int_equal(cuzk_domain_new(&d, (1ULL << 32) + 1, NULL, 0), CUZK_ERR_TOO_LARGE);
  mpz_clears(r, e, w, got, t, NULL);
}

static void test_vs_naive_dft(void **state) {
  (void)state;
  cuzk_test_rng_t g;
  cuzk_test_rng_init(&g, cuzk_test_seed());
  for (unsigned k = 0; k <= 7; k++) {
    cuzk_domain_t *d = domain(1ULL << k);
    uint64_t n = d->n;
    cuzk_fr_t *p = malloc(n * sizeof *p), *a = malloc(n * sizeof *a), x, y;
    for (uint64_t i = 0; i < n; i++) rand_fr(&g, &p[i]);
    /* forward = evaluations at ω^i */
    memcpy(a, p, n * sizeof *a);
    cuzk_ntt_forward(d, a);
    for (uint64_t i = 0; i < n; i++) {
      pow_u64(&x, &d->omega, i);
      horner(&y, p, n, &x);
      assert_true(cuzk_fr_eq(&y, &a[i]));
    }
    /* inverse of values = coefficients, via the naive inverse DFT */
    memcpy(a, p, n * sizeof *a);
    cuzk_ntt_inverse(d, a);
    for (uint64_t i = 0; i < n; i++) {
      cuzk_fr_t acc = CUZK_FR_ZERO, t;
      for (uint64_t j = 0; j < n; j++) {
        pow_u64(&x, &d->omega_inv, (i * j) % n);
        cuzk_fr_mul(&t, &p[j], &x);
        cuzk_fr_add(&acc, &acc, &t);
      }
      cuzk_fr_mul(&acc, &acc, &d->n_inv);
      assert_true(cuzk_fr_eq(&acc, &a[i]));
    }
    /* coset forward = evaluations at g ω^i; coset inverse undoes it */
    memcpy(a, p, n * sizeof *a);
    cuzk_ntt_coset_forward(d, a);
    for (uint64_t i = 0; i < n; i++) {
      pow_u64(&x, &d->omega, i);
      cuzk_fr_mul(&x, &x, &d->g);
      horner(&y, p, n, &x);
      assert_true(cuzk_fr_eq(&y, &a[i]));
    }
    cuzk_ntt_coset_inverse(d, a);
    assert_memory_equal(a, p, n * sizeof *a);
    free(p);
    free(a);
    cuzk_domain_free(d);
  }
}

/* Sizes past the cache block (2^11) exercise the whole-array stages: spot-check points. */
static void test_large_spot_and_round_trip(void **state) {
  (void)state;
  cuzk_test_rng_t g;
  cuzk_test_rng_init(&g, cuzk_test_seed() ^ 2);
  unsigned ks[] = {8, 11, 12, 13, 16};
  for (size_t s = 0; s < sizeof ks / sizeof ks[0]; s++) {
    cuzk_domain_t *d = domain(1ULL << ks[s]);
    uint64_t n = d->n;
    cuzk_fr_t *p = malloc(n * sizeof *p), *a = malloc(n * sizeof *a), x, y;
    for (uint64_t i = 0; i < n; i++) rand_fr(&g, &p[i]);
    memcpy(a, p, n * sizeof *a);
    cuzk_ntt_forward(d, a);
    for (int t = 0; t < 6; t++) {
      uint64_t i = t == 0 ? 0 : t == 1 ? n - 1 : cuzk_test_rng_next(&g) % n;
      pow_u64(&x, &d->omega, i);
      horner(&y, p, n, &x);
      assert_true(cuzk_fr_eq(&y, &a[i]));
    }
    cuzk_ntt_inverse(d, a);
    assert_memory_equal(a, p, n * sizeof *a);
    cuzk_ntt_coset_forward(d, a);
    for (int t = 0; t < 4; t++) {
      uint64_t i = cuzk_test_rng_next(&g) % n;
      pow_u64(&x, &d->omega, i);
      cuzk_fr_mul(&x, &x, &d->g);
      horner(&y, p, n, &x);
      assert_true(cuzk_fr_eq(&y, &a[i]));
    }
    cuzk_ntt_coset_inverse(d, a);
    assert_memory_equal(a, p, n * sizeof *a);
    free(p);
    free(a);
    cuzk_domain_free(d);
  }
}

/* H from random A, B (degree < n) and C = A·B on the subgroup: A(x)B(x) - C(x) = h(x)(x^n - 1)
 * at a random x, h[n-1] = 0; a wrong C is reported. */
static void test_h_identity(void **state) {
  (void)state;
  cuzk_test_rng_t g;
  cuzk_test_rng_init(&g, cuzk_test_seed() ^ 3);
  unsigned ks[] = {1, 4, 10, 13};
  for (size_t s = 0; s < sizeof ks / sizeof ks[0]; s++) {
    cuzk_domain_t *d = domain(1ULL << ks[s]);
    uint64_t n = d->n;
    cuzk_fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    cuzk_fr_t *pa = malloc(n * sizeof *a), *pb = malloc(n * sizeof *a), *pc = malloc(n * sizeof *a);
    for (uint64_t i = 0; i < n; i++) {
      rand_fr(&g, &a[i]);
      rand_fr(&g, &b[i]);
      cuzk_fr_mul(&c[i], &a[i], &b[i]);
    }
    memcpy(pa, a, n * sizeof *a);
    memcpy(pb, b, n * sizeof *a);
    memcpy(pc, c, n * sizeof *a);
    cuzk_ntt_inverse(d, pa);
    cuzk_ntt_inverse(d, pb);
    cuzk_ntt_inverse(d, pc);
    assert_int_equal(cuzk_poly_groth16_h(d, a, b, c), CUZK_OK);
    assert_true(cuzk_fr_is_zero(&a[n - 1]));
    for (int t = 0; t < 3; t++) {
      cuzk_fr_t x, va, vb, vc, vh, z;
      rand_fr(&g, &x);
      horner(&va, pa, n, &x);
      horner(&vb, pb, n, &x);
      horner(&vc, pc, n, &x);
      horner(&vh, a, n, &x);
      pow_u64(&z, &x, n);
      cuzk_fr_sub(&z, &z, &CUZK_FR_ONE);
      cuzk_fr_mul(&va, &va, &vb);
      cuzk_fr_sub(&va, &va, &vc);
      cuzk_fr_mul(&vh, &vh, &z);
      assert_true(cuzk_fr_eq(&va, &vh));
    }
    /* break one evaluation of C: not divisible any more */
    memcpy(a, pa, n * sizeof *a);
    memcpy(b, pb, n * sizeof *a);
    memcpy(c, pc, n * sizeof *a);
    cuzk_ntt_forward(d, a);
    cuzk_ntt_forward(d, b);
    cuzk_ntt_forward(d, c);
    cuzk_fr_add(&c[n / 2], &c[n / 2], &CUZK_FR_ONE);
    assert_int_equal(cuzk_poly_groth16_h(d, a, b, c), CUZK_ERR_UNSATISFIED);
    free(a), free(b), free(c), free(pa), free(pb), free(pc);
    cuzk_domain_free(d);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_domain_constants),
      cmocka_unit_test(test_vs_naive_dft),
      cmocka_unit_test(test_large_spot_and_round_trip),
      cmocka_unit_test(test_h_identity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
