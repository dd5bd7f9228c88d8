/* Fp2 against the GMP schoolbook model (tests/support/tower_model.h): arithmetic, inverse,
 * Frobenius = p-th power, pow, sqrt and the zcash lexicographic order. */
#include "tests/support/testlib.h"

#include "core/ff/fp2.h"
#include "tests/support/tower_model.h"

static cuzk_test_rng_t rng;

static void assert_fp2_model(const cuzk_fp2_t *got, const tm2_t *want, const char *what) {
  tm2_t g;
  tm2_init(&g);
  tm2_in(&g, got);
  if (!tm2_eq(&g, want)) {
    gmp_fprintf(stderr, "%s mismatch: got (%Zx, %Zx) expected (%Zx, %Zx)\n", what, g.c[0], g.c[1], want->c[0],
                want->c[1]);
    fail();
  }
  tm2_clear(&g);
}

/* Random model element; every 8th has a zero or special coordinate. */
static void random_tm2(tm2_t *a, int i) {
  tm2_random(a, &rng);
  switch (i & 15) {
  case 1: mpz_set_ui(a->c[1], 0); break;
  case 3: mpz_set_ui(a->c[0], 0); break;
  case 5: mpz_sub_ui(a->c[0], tm_p, 1); break;
  case 7: mpz_sub_ui(a->c[1], tm_p, 1); break;
  default: break;
  }
}

static void test_arith(void **state) {
  (void)state;
  tm2_t a, b, e, t;
  tm2_init(&a), tm2_init(&b), tm2_init(&e), tm2_init(&t);
  for (int i = 0; i < 20000; i++) {
    random_tm2(&a, i);
    random_tm2(&b, i >> 4);
    cuzk_fp2_t x, y, z;
    tm2_out(&x, &a);
    tm2_out(&y, &b);

    cuzk_fp2_add(&z, &x, &y);
    tm2_add(&e, &a, &b);
    assert_fp2_model(&z, &e, "add");
    cuzk_fp2_sub(&z, &x, &y);
    tm2_sub(&e, &a, &b);
    assert_fp2_model(&z, &e, "sub");
    cuzk_fp2_neg(&z, &x);
    tm2_set_ui(&t, 0, 0);
    tm2_sub(&e, &t, &a);
    assert_fp2_model(&z, &e, "neg");
    cuzk_fp2_dbl(&z, &x);
    tm2_add(&e, &a, &a);
    assert_fp2_model(&z, &e, "dbl");
    cuzk_fp2_mul(&z, &x, &y);
    tm2_mul(&e, &a, &b);
    assert_fp2_model(&z, &e, "mul");
    z = x;
    cuzk_fp2_mul(&z, &z, &y);
    assert_fp2_model(&z, &e, "mul aliased");
    cuzk_fp2_sqr(&z, &x);
    tm2_mul(&e, &a, &a);
    assert_fp2_model(&z, &e, "sqr");
    cuzk_fp2_mul_by_xi(&z, &x);
    tm2_mul_xi(&e, &a);
    assert_fp2_model(&z, &e, "mul_by_xi");
    cuzk_fp2_mul_fp(&z, &x, &y.c0);
    tm2_set_ui(&t, 0, 0);
    mpz_set(t.c[0], b.c[0]);
    tm2_mul(&e, &a, &t);
    assert_fp2_model(&z, &e, "mul_fp");
    cuzk_fp2_conj(&z, &x);
    mpz_neg(e.c[1], a.c[1]);
    mpz_mod(e.c[1], e.c[1], tm_p);
    mpz_set(e.c[0], a.c[0]);
    assert_fp2_model(&z, &e, "conj");

    /* inverse: a·inv(a) = 1 in the model; inv(0) = 0 */
    cuzk_fp2_inv(&z, &x);
    tm2_in(&t, &z);
    tm2_mul(&e, &a, &t);
    if (cuzk_fp2_is_zero(&x)) {
      assert_true(cuzk_fp2_is_zero(&z));
    } else {
      tm2_set_ui(&t, 1, 0);
      assert_true(tm2_eq(&e, &t));
    }
    assert_int_equal(cuzk_fp2_eq(&x, &y), tm2_eq(&a, &b));
  }
  cuzk_fp2_t z;
  cuzk_fp2_inv(&z, &CUZK_FP2_ZERO);
  assert_true(cuzk_fp2_is_zero(&z));
  tm2_clear(&a), tm2_clear(&b), tm2_clear(&e), tm2_clear(&t);
}

static void test_frobenius_pow(void **state) {
  (void)state;
  tm2_t a, e;
  tm2_init(&a), tm2_init(&e);
  mpz_t k;
  mpz_init(k);
  for (int i = 0; i < 200; i++) {
    random_tm2(&a, i);
    cuzk_fp2_t x, z;
    tm2_out(&x, &a);
    for (unsigned pw = 0; pw < 4; pw++) {
      mpz_pow_ui(k, tm_p, pw);
      tm_polypow(&e, &a, k, 1);
      cuzk_fp2_frobenius(&z, &x, pw);
      assert_fp2_model(&z, &e, "frobenius");
    }
    uint64_t ex[7];
    size_t n = 1 + (size_t)(i % 7);
    cuzk_test_rng_bytes(&rng, ex, sizeof ex);
    gmpo_from_limbs(k, ex, n);
    tm_polypow(&e, &a, k, 1);
    cuzk_fp2_pow(&z, &x, ex, n);
    assert_fp2_model(&z, &e, "pow");
  }
  mpz_clear(k);
  tm2_clear(&a), tm2_clear(&e);
}

/* a is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp (or a = 0). */
static int model_is_square(const tm2_t *a) {
  mpz_t n, t;
  mpz_inits(n, t, NULL);
  mpz_mul(n, a->c[0], a->c[0]);
  mpz_mul(t, a->c[1], a->c[1]);
  mpz_add(n, n, t);
  mpz_mod(n, n, tm_p);
  int r = mpz_legendre(n, tm_p) >= 0;
  mpz_clears(n, t, NULL);
  return r;
}

static void test_sqrt(void **state) {
  (void)state;
  tm2_t a, e, s;
  tm2_init(&a), tm2_init(&e), tm2_init(&s);
  int squares = 0, nonsquares = 0;
  for (int i = 0; i < 3000; i++) {
    random_tm2(&a, i);
    if (i % 3 == 0) tm2_mul(&a, &a, &a);
    if (i == 1) tm2_set_ui(&a, 0, 0);
    if (i == 2) { /* -1 */
      tm2_set_ui(&a, 0, 0);
      mpz_sub_ui(a.c[0], tm_p, 1);
    }
    if (i == 4) tm2_set_ui(&a, 0, 1); /* u */
    if (i == 5) tm2_set_ui(&a, 1, 1); /* xi: not a square (it defines the sextic twist) */
    cuzk_fp2_t x, z;
    tm2_out(&x, &a);
    int sq = model_is_square(&a);
    bool ok = cuzk_fp2_sqrt(&z, &x);
    assert_int_equal(ok, sq);
    if (ok) {
      squares++;
      tm2_in(&s, &z);
      tm2_mul(&e, &s, &s);
      assert_true(tm2_eq(&e, &a));
    } else {
      nonsquares++;
    }
  }
  assert_true(squares > 1000 && nonsquares > 500);
  tm2_clear(&a), tm2_clear(&e), tm2_clear(&s);
}

static void test_lexi_largest(void **state) {
  (void)state;
  tm2_t a;
  tm2_init(&a);
  mpz_t half;
  mpz_init(half);
  mpz_sub_ui(half, tm_p, 1);
  mpz_fdiv_q_2exp(half, half, 1);
  for (int i = 0; i < 20000; i++) {
    random_tm2(&a, i);
    if (i % 4 == 0) mpz_set_ui(a.c[1], 0);
    if (i % 8 == 0) mpz_set(a.c[0], half);
    if (i % 16 == 0) mpz_add_ui(a.c[0], half, 1);
    cuzk_fp2_t x;
    tm2_out(&x, &a);
    bool want = mpz_cmp(a.c[1], half) > 0 || (mpz_sgn(a.c[1]) == 0 && mpz_cmp(a.c[0], half) > 0);
    assert_int_equal(cuzk_fp2_is_lexi_largest(&x), want);
  }
  mpz_clear(half);
  tm2_clear(&a);
}

static void test_random(void **state) {
  (void)state;
  cuzk_fp2_t a, b;
  assert_int_equal(cuzk_fp2_random(&a), CUZK_OK);
  assert_int_equal(cuzk_fp2_random(&b), CUZK_OK);
  assert_false(cuzk_fp2_eq(&a, &b));
  assert_false(cuzk_fp_eq(&a.c0, &a.c1));
}

int main(void) {
  tm_init_p();
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arith),     cmocka_unit_test(test_frobenius_pow), cmocka_unit_test(test_sqrt),
      cmocka_unit_test(test_lexi_largest), cmocka_unit_test(test_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
