/* Fp6 and Fp12 against the GMP schoolbook model (tests/support/tower_model.h, Fp12 in the
 * w-basis modulo w^6 - xi): mul, sqr, inv, Frobenius = p^k-th power with the coefficients
 * recomputed, sparse products = dense products, cyclotomic squaring = squaring on
 * f^((p^6 - 1)(p^2 + 1)), pow, conj and the byte order. */
#include "tests/support/testlib.h"

#include "core/ff/ff_internal.h"
#include "core/ff/fp12.h"
#include "tests/support/tower_model.h"

static cuzk_test_rng_t rng;

static void random_fp6(cuzk_fp6_t *o, tm6_t *m) {
  for (int i = 0; i < 3; i++) tm2_random(&m->c[i], &rng);
  tm6_out(o, m);
}

static void random_fp12(cuzk_fp12_t *o, tm12_t *m) {
  for (int i = 0; i < 6; i++) tm2_random(&m->g[i], &rng);
  tm12_out(o, m);
}

static void assert_fp6_model(const cuzk_fp6_t *got, const tm6_t *want, const char *what) {
  tm6_t g;
  tm6_init(&g);
  tm6_in(&g, got);
  if (!tm6_eq(&g, want)) {
    fprintf(stderr, "Fp6 %s mismatch\n", what);
    fail();
  }
  tm6_clear(&g);
}

static void assert_fp12_model(const cuzk_fp12_t *got, const tm12_t *want, const char *what) {
  tm12_t g;
  tm12_init(&g);
  tm12_in(&g, got);
  if (!tm12_eq(&g, want)) {
    fprintf(stderr, "Fp12 %s mismatch\n", what);
    fail();
  }
  tm12_clear(&g);
}

static void test_fp6(void **state) {
  (void)state;
  tm6_t a, b, e, t;
  tm6_init(&a), tm6_init(&b), tm6_init(&e), tm6_init(&t);
  for (int i = 0; i < 2000; i++) {
    cuzk_fp6_t x, y, z;
    random_fp6(&x, &a);
    random_fp6(&y, &b);
    if (i == 0) {
      tm6_set_one(&b);
      tm6_out(&y, &b);
      assert_true(cuzk_fp6_eq(&y, &CUZK_FP6_ONE));
    }
    cuzk_fp6_mul(&z, &x, &y);
    tm6_mul(&e, &a, &b);
    assert_fp6_model(&z, &e, "mul");
    z = y;
    cuzk_fp6_mul(&z, &x, &z);
    assert_fp6_model(&z, &e, "mul aliased");
    cuzk_fp6_sqr(&z, &x);
    tm6_mul(&e, &a, &a);
    assert_fp6_model(&z, &e, "sqr");

    cuzk_fp6_t sum, diff, neg;
    cuzk_fp6_add(&sum, &x, &y);
    cuzk_fp6_sub(&diff, &sum, &y);
    assert_true(cuzk_fp6_eq(&diff, &x));
    cuzk_fp6_neg(&neg, &x);
    cuzk_fp6_add(&neg, &neg, &x);
    assert_true(cuzk_fp6_is_zero(&neg));
    for (int k = 0; k < 3; k++) tm2_add(&e.c[k], &a.c[k], &b.c[k]);
    assert_fp6_model(&sum, &e, "add");

    /* v = (0, 1, 0) */
    for (int k = 0; k < 3; k++) tm2_set_ui(&t.c[k], k == 1, 0);
    tm6_mul(&e, &a, &t);
    cuzk_fp6_mul_by_v(&z, &x);
    assert_fp6_model(&z, &e, "mul_by_v");

    /* sparse products equal the dense model product */
    tm2_set_ui(&b.c[2], 0, 0);
    tm6_mul(&e, &a, &b);
    cuzk_fp6_mul_by_01(&z, &x, &y.c0, &y.c1);
    assert_fp6_model(&z, &e, "mul_by_01");
    tm2_set_ui(&b.c[0], 0, 0);
    tm6_mul(&e, &a, &b);
    cuzk_fp6_mul_by_1(&z, &x, &y.c1);
    assert_fp6_model(&z, &e, "mul_by_1");

    cuzk_fp6_inv(&z, &x);
    tm6_in(&t, &z);
    tm6_mul(&e, &a, &t);
    tm6_set_one(&t);
    assert_true(tm6_eq(&e, &t));
  }
  cuzk_fp6_t z;
  cuzk_fp6_inv(&z, &CUZK_FP6_ZERO);
  assert_true(cuzk_fp6_is_zero(&z));
  tm6_clear(&a), tm6_clear(&b), tm6_clear(&e), tm6_clear(&t);
}

/* The stored coefficients equal xi^((p^k - 1)/3), xi^(2(p^k - 1)/3), xi^((p^k - 1)/6). */
static void test_frobenius_constants(void **state) {
  (void)state;
  tm2_t xi, e;
  tm2_init(&xi), tm2_init(&e);
  tm2_set_ui(&xi, 1, 1);
  mpz_t k, pk;
  mpz_inits(k, pk, NULL);
  for (unsigned j = 0; j < 12; j++) {
    mpz_pow_ui(pk, tm_p, j);
    mpz_sub_ui(pk, pk, 1);
    assert_true(mpz_divisible_ui_p(pk, 6));
    if (j < 6) {
      mpz_divexact_ui(k, pk, 3);
      tm_polypow(&e, &xi, k, 1);
      tm2_t g;
      tm2_init(&g);
      tm2_in(&g, &cuzk__fp6_frob_c1[j]);
      assert_true(tm2_eq(&g, &e));
      mpz_mul_ui(k, k, 2);
      tm_polypow(&e, &xi, k, 1);
      tm2_in(&g, &cuzk__fp6_frob_c2[j]);
      assert_true(tm2_eq(&g, &e));
      tm2_clear(&g);
    }
    mpz_divexact_ui(k, pk, 6);
    tm_polypow(&e, &xi, k, 1);
    tm2_t g;
    tm2_init(&g);
    tm2_in(&g, &cuzk__fp12_frob_w[j]);
    assert_true(tm2_eq(&g, &e));
    tm2_clear(&g);
  }
  mpz_clears(k, pk, NULL);
  tm2_clear(&xi), tm2_clear(&e);
}

static void test_fp6_frobenius(void **state) {
  (void)state;
  tm6_t a, e;
  tm6_init(&a), tm6_init(&e);
  for (int i = 0; i < 3; i++) {
    cuzk_fp6_t x, z;
    random_fp6(&x, &a);
    tm6_set_one(&e);
    for (int k = 0; k < 3; k++) tm2_set(&e.c[k], &a.c[k]);
    for (unsigned pw = 0; pw < 7; pw++) { /* e = a^(p^pw), by repeated p-th powers */
      cuzk_fp6_frobenius(&z, &x, pw);
      assert_fp6_model(&z, &e, "frobenius");
      tm_polypow(e.c, e.c, tm_p, 3);
    }
  }
  tm6_clear(&a), tm6_clear(&e);
}

static void test_fp12(void **state) {
  (void)state;
  tm12_t a, b, e, t;
  tm12_init(&a), tm12_init(&b), tm12_init(&e), tm12_init(&t);
  for (int i = 0; i < 500; i++) {
    cuzk_fp12_t x, y, z;
    random_fp12(&x, &a);
    random_fp12(&y, &b);
    cuzk_fp12_mul(&z, &x, &y);
    tm12_mul(&e, &a, &b);
    assert_fp12_model(&z, &e, "mul");
    z = x;
    cuzk_fp12_mul(&z, &z, &y);
    assert_fp12_model(&z, &e, "mul aliased");
    cuzk_fp12_sqr(&z, &x);
    tm12_mul(&e, &a, &a);
    assert_fp12_model(&z, &e, "sqr");

    cuzk_fp12_inv(&z, &x);
    tm12_in(&t, &z);
    tm12_mul(&e, &a, &t);
    tm12_set_one(&t);
    assert_true(tm12_eq(&e, &t));
    cuzk_fp12_mul(&z, &z, &x);
    assert_true(cuzk_fp12_is_one(&z));

    /* conj negates the odd powers of w */
    cuzk_fp12_conj(&z, &x);
    for (int k = 0; k < 6; k++) {
      tm2_set(&e.g[k], &a.g[k]);
      if (k & 1) {
        tm2_set_ui(&t.g[0], 0, 0);
        tm2_sub(&e.g[k], &t.g[0], &a.g[k]);
      }
    }
    assert_fp12_model(&z, &e, "conj");

    /* mul_by_014: b = b0 + b1·v + b4·v·w = b0 + b1·w^2 + b4·w^3 */
    for (int k = 0; k < 6; k++)
      if (k != 0 && k != 2 && k != 3) tm2_set_ui(&b.g[k], 0, 0);
    tm12_out(&y, &b);
    tm12_mul(&e, &a, &b);
    cuzk_fp2_t b0 = y.c0.c0, b1 = y.c0.c1, b4 = y.c1.c1;
    cuzk_fp12_mul_by_014(&z, &x, &b0, &b1, &b4);
    assert_fp12_model(&z, &e, "mul_by_014");
    cuzk_fp12_t d;
    cuzk_fp12_mul(&d, &x, &y);
    assert_true(cuzk_fp12_eq(&d, &z));
    z = x;
    cuzk_fp12_mul_by_014(&z, &z, &b0, &b1, &b4);
    assert_true(cuzk_fp12_eq(&d, &z));
  }
  cuzk_fp12_t z;
  cuzk_fp12_inv(&z, &CUZK_FP12_ONE);
  assert_true(cuzk_fp12_is_one(&z));
  tm12_clear(&a), tm12_clear(&b), tm12_clear(&e), tm12_clear(&t);
}

static void test_fp12_frobenius(void **state) {
  (void)state;
  tm12_t a, e;
  tm12_init(&a), tm12_init(&e);
  for (int i = 0; i < 2; i++) {
    cuzk_fp12_t x, z;
    random_fp12(&x, &a);
    for (int k = 0; k < 6; k++) tm2_set(&e.g[k], &a.g[k]);
    for (unsigned pw = 0; pw < 13; pw++) {
      cuzk_fp12_frobenius(&z, &x, pw);
      assert_fp12_model(&z, &e, "frobenius");
      tm_polypow(e.g, e.g, tm_p, 6);
    }
  }
  tm12_clear(&a), tm12_clear(&e);
}

static void test_cyclotomic(void **state) {
  (void)state;
  tm12_t a, g, e;
  tm12_init(&a), tm12_init(&g), tm12_init(&e);
  mpz_t k, t;
  mpz_inits(k, t, NULL);
  mpz_pow_ui(k, tm_p, 6); /* (p^6 - 1)(p^2 + 1) */
  mpz_sub_ui(k, k, 1);
  mpz_pow_ui(t, tm_p, 2);
  mpz_add_ui(t, t, 1);
  mpz_mul(k, k, t);
  for (int i = 0; i < 2; i++) {
    cuzk_fp12_t x, y, z, s;
    random_fp12(&x, &a);
    tm_polypow(g.g, a.g, k, 6);
    tm12_out(&y, &g);
    /* y is in the cyclotomic subgroup: y^(p^6) = y^-1, i.e. conj(y)·y = 1 */
    cuzk_fp12_conj(&z, &y);
    cuzk_fp12_mul(&z, &z, &y);
    assert_true(cuzk_fp12_is_one(&z));
    for (int r = 0; r < 8; r++) {
      cuzk_fp12_cyclotomic_sqr(&z, &y);
      tm12_mul(&e, &g, &g);
      assert_fp12_model(&z, &e, "cyclotomic_sqr");
      cuzk_fp12_sqr(&s, &y);
      assert_true(cuzk_fp12_eq(&s, &z));
      cuzk_fp12_cyclotomic_sqr(&y, &y); /* aliased */
      assert_true(cuzk_fp12_eq(&y, &z));
      for (int j = 0; j < 6; j++) tm2_set(&g.g[j], &e.g[j]);
    }
  }
  mpz_clears(k, t, NULL);
  tm12_clear(&a), tm12_clear(&g), tm12_clear(&e);
}

static void test_fp12_pow_bytes(void **state) {
  (void)state;
  tm12_t a, e;
  tm12_init(&a), tm12_init(&e);
  mpz_t k;
  mpz_init(k);
  for (int i = 0; i < 4; i++) {
    cuzk_fp12_t x, z;
    random_fp12(&x, &a);
    uint64_t ex[6];
    size_t n = 1 + (size_t)i;
    cuzk_test_rng_bytes(&rng, ex, sizeof ex);
    gmpo_from_limbs(k, ex, n);
    tm_polypow(e.g, a.g, k, 6);
    cuzk_fp12_pow(&z, &x, ex, n);
    assert_fp12_model(&z, &e, "pow");

    /* bytes: 12 big-endian Fp in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 */
    uint8_t got[576], want[576];
    cuzk_fp12_to_bytes(got, &x);
    static const int w_index[6] = {0, 2, 4, 1, 3, 5}; /* tower slot -> power of w */
    for (int s = 0; s < 6; s++)
      for (int c = 0; c < 2; c++) gmpo_to_be_bytes(want + (s * 2 + c) * 48, 48, a.g[w_index[s]].c[c]);
    assert_memory_equal(got, want, 576);
  }
  cuzk_fp12_t r1, r2;
  assert_int_equal(cuzk_fp12_random(&r1), CUZK_OK);
  assert_int_equal(cuzk_fp12_random(&r2), CUZK_OK);
  assert_false(cuzk_fp12_eq(&r1, &r2));
  mpz_clear(k);
  tm12_clear(&a), tm12_clear(&e);
}

int main(void) {
  tm_init_p();
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fp6),
      cmocka_unit_test(test_frobenius_constants),
      cmocka_unit_test(test_fp6_frobenius),
      cmocka_unit_test(test_fp12),
      cmocka_unit_test(test_fp12_frobenius),
      cmocka_unit_test(test_cyclotomic),
      cmocka_unit_test(test_fp12_pow_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
