/* Optimal ate pairing (core/pairing): GT values against @noble/curves (coefficient by
 * coefficient), bilinearity, e^r = 1, non-degeneracy, infinity, product checks (true and false
 * instances, also confirmed by noble), prepared vs unprepared G2, and the sparse line product
 * against a dense Fp12 multiplication. */
#include "core/pairing/pairing.h"

#include "tests/unit/test_ec_support.inc"

static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

static void g1_of(cuzk_g1_affine_t *out, const cuzk_fr_t *k) {
  cuzk_g1_t g, t;
  cuzk_g1_generator(&g);
  cuzk_g1_mul_vartime(&t, &g, k);
  cuzk_g1_to_affine(out, &t);
}

static void g2_of(cuzk_g2_affine_t *out, const cuzk_fr_t *k) {
  cuzk_g2_t g, t;
  cuzk_g2_generator(&g);
  cuzk_g2_mul_vartime(&t, &g, k);
  cuzk_g2_to_affine(out, &t);
}

/* The 12 Fp coefficients in the struct order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 (the
 * order the oracle prints noble's Fp12 in). */
static void fp12_coeffs(const cuzk_fp_t *out[12], const cuzk_fp12_t *f) {
  const cuzk_fp6_t *six[2] = {&f->c0, &f->c1};
  int k = 0;
  for (int i = 0; i < 2; i++) {
    const cuzk_fp2_t *two[3] = {&six[i]->c0, &six[i]->c1, &six[i]->c2};
    for (int j = 0; j < 3; j++) {
      out[k++] = &two[j]->c0;
      out[k++] = &two[j]->c1;
    }
  }
}

static void expect_fp12(const char **line, const cuzk_fp12_t *f, int idx) {
  const cuzk_fp_t *c[12];
  fp12_coeffs(c, f);
  for (int i = 0; i < 12; i++) {
    uint8_t want[48], got[48];
    assert_true(ec_unhex_tok(want, 48, line));
    cuzk_fp_to_be(got, c[i]);
    if (memcmp(want, got, 48))
      fail_msg("pairing case %d: coefficient %d differs from noble", idx, i);
  }
}

static void test_pairing_oracle(void **state) {
  (void)state;
  enum { N = 8 };
  cuzk_fr_t a[N], b[N];
  cuzk_fr_from_u64(&a[0], 1);
  cuzk_fr_from_u64(&b[0], 1);
  cuzk_fr_from_u64(&a[1], 2);
  cuzk_fr_from_u64(&b[1], 3);
  ec_fr_minus(&a[2], 1);
  cuzk_fr_from_u64(&b[2], 1);
  for (int i = 3; i < N; i++) {
    ec_rand_fr(&a[i]);
    ec_rand_fr(&b[i]);
  }
  ec_str_t req;
  ec_str_begin(&req);
  for (int i = 0; i < N; i++) {
    char ha[65], hb[65];
    ec_fr_hex(ha, &a[i]);
    ec_fr_hex(hb, &b[i]);
    ec_str_req(&req, "\"op\":\"pair\",\"a\":\"%s\",\"b\":\"%s\"", ha, hb);
  }
  char *out = ec_oracle(&req);
  if (!out) skip();
  const char *line = out;
  for (int i = 0; i < N; i++) {
    cuzk_g1_affine_t p;
    cuzk_g2_affine_t q;
    cuzk_fp12_t e;
    g1_of(&p, &a[i]);
    g2_of(&q, &b[i]);
    cuzk_pairing(&e, &p, &q);
    expect_fp12(&line, &e, i);
  }
  free(out);
}

static void test_bilinearity(void **state) {
  (void)state;
  cuzk_g1_affine_t g1, pa;
  cuzk_g2_affine_t g2, qb, qa;
  cuzk_g1_affine_generator(&g1);
  cuzk_g2_affine_generator(&g2);
  cuzk_fp12_t e, eab, t, u;
  cuzk_pairing(&e, &g1, &g2);
  assert_false(cuzk_fp12_is_one(&e)); /* non-degenerate */
  uint64_t r[4];
  memcpy(r, R_LIMBS, sizeof r);
  cuzk_fp12_pow(&t, &e, r, 4);
  assert_true(cuzk_fp12_is_one(&t)); /* in the order-r subgroup */
  for (int i = 0; i < 3; i++) {
    cuzk_fr_t a, b, ab;
    uint64_t abr[4];
    ec_rand_fr(&a);
    ec_rand_fr(&b);
    cuzk_fr_mul(&ab, &a, &b);
    cuzk_fr_to_raw(abr, &ab);
    g1_of(&pa, &a);
    g2_of(&qb, &b);
    g2_of(&qa, &a);
    cuzk_pairing(&eab, &pa, &qb);
    cuzk_fp12_pow(&t, &e, abr, 4);
    assert_true(cuzk_fp12_eq(&eab, &t));
    /* e([a]P, Q) == e(P, [a]Q) */
    cuzk_pairing(&t, &pa, &g2);
    cuzk_pairing(&u, &g1, &qa);
    assert_true(cuzk_fp12_eq(&t, &u));
    cuzk_fp12_pow(&u, &t, r, 4);
    assert_true(cuzk_fp12_is_one(&u));
  }
  /* infinity pairs to 1 */
  cuzk_g1_affine_t inf1;
  cuzk_g2_affine_t inf2;
  cuzk_g1_affine_set_infinity(&inf1);
  cuzk_g2_affine_set_infinity(&inf2);
  cuzk_pairing(&t, &inf1, &g2);
  assert_true(cuzk_fp12_is_one(&t));
  cuzk_pairing(&t, &g1, &inf2);
  assert_true(cuzk_fp12_is_one(&t));
}

/* prod e(P_i, Q_i) == 1 for e([a]G, [b]H)·e([c]G, [d]H)·e([-(ab+cd)]G, H)·e(O, H), and not after
 * changing one scalar; noble judges the same two instances. */
static void test_pairing_check(void **state) {
  (void)state;
  cuzk_fr_t a, b, c, d, s, t;
  ec_rand_fr(&a);
  ec_rand_fr(&b);
  ec_rand_fr(&c);
  ec_rand_fr(&d);
  cuzk_fr_mul(&s, &a, &b);
  cuzk_fr_mul(&t, &c, &d);
  cuzk_fr_add(&s, &s, &t);
  cuzk_fr_neg(&s, &s);
  cuzk_fr_t one = CUZK_FR_ONE, zero = CUZK_FR_ZERO;
  cuzk_fr_t as[4] = {a, c, s, zero}, bs[4] = {b, d, one, one};
  cuzk_g1_affine_t P[4];
  cuzk_g2_affine_t Q[4];
  for (int i = 0; i < 4; i++) {
    g1_of(&P[i], &as[i]);
    g2_of(&Q[i], &bs[i]);
  }
  assert_true(cuzk_pairing_check(P, Q, 4));
  assert_true(cuzk_pairing_check(P, Q, 0));
  {
    /* a pair with Q at infinity changes nothing */
    cuzk_g1_affine_t P5[5];
    cuzk_g2_affine_t Q5[5];
    memcpy(P5, P, sizeof P);
    memcpy(Q5, Q, sizeof Q);
    cuzk_g1_affine_generator(&P5[4]);
    cuzk_g2_affine_set_infinity(&Q5[4]);
    assert_true(cuzk_pairing_check(P5, Q5, 5));
    cuzk_g2_affine_generator(&Q5[4]);
    assert_false(cuzk_pairing_check(P5, Q5, 5));
  }
  cuzk_g2_prepared_t *prep = malloc(4 * sizeof *prep);
  for (int i = 0; i < 4; i++) cuzk_pairing_g2_prepare(&prep[i], &Q[i]);
  assert_true(cuzk_pairing_check_prepared(P, prep, 4));
  /* the shared Miller loop equals the product of single ones */
  cuzk_fp12_t f, fi, prod = CUZK_FP12_ONE;
  cuzk_pairing_miller_loop(&f, P, prep, 2);
  for (int i = 0; i < 2; i++) {
    cuzk_pairing_miller_loop(&fi, &P[i], &prep[i], 1);
    cuzk_fp12_mul(&prod, &prod, &fi);
  }
  assert_true(cuzk_fp12_eq(&f, &prod));
  /* false instance */
  cuzk_fr_t d1;
  cuzk_fr_add(&d1, &d, &one);
  cuzk_fr_t bs2[4] = {b, d1, one, one};
  g2_of(&Q[1], &d1);
  assert_false(cuzk_pairing_check(P, Q, 4));
  cuzk_pairing_g2_prepare(&prep[1], &Q[1]);
  assert_false(cuzk_pairing_check_prepared(P, prep, 4));
  assert_false(cuzk_pairing_check(P, Q, 1));
  free(prep);

  ec_str_t req;
  ec_str_begin(&req);
  const cuzk_fr_t *bsets[2] = {bs, bs2};
  for (int k = 0; k < 2; k++) {
    char h[4][2][65];
    for (int i = 0; i < 4; i++) {
      ec_fr_hex(h[i][0], &as[i]);
      ec_fr_hex(h[i][1], &bsets[k][i]);
    }
    ec_str_req(&req,
               "\"op\":\"pairprod\",\"as\":[\"%s\",\"%s\",\"%s\",\"%s\"],\"bs\":[\"%s\",\"%s\",\"%"
               "s\",\"%s\"]",
               h[0][0], h[1][0], h[2][0], h[3][0], h[0][1], h[1][1], h[2][1], h[3][1]);
  }
  char *out = ec_oracle(&req);
  if (!out) skip();
  const char *line = out;
  int v0, v1;
  assert_true(ec_int_tok(&v0, &line));
  assert_true(ec_int_tok(&v1, &line));
  assert_int_equal(v0, 1);
  assert_int_equal(v1, 0);
  free(out);
}

/* The sparse product the Miller loop relies on equals a dense multiplication by
 * b0 + b1·v + b4·v·w. */
static void test_mul_by_014(void **state) {
  (void)state;
  for (int i = 0; i < 8; i++) {
    cuzk_fp12_t a, b, want, got;
    cuzk_fp2_t b0, b1, b4;
    assert_int_equal(cuzk_fp12_random(&a), CUZK_OK);
    assert_int_equal(cuzk_fp2_random(&b0), CUZK_OK);
    assert_int_equal(cuzk_fp2_random(&b1), CUZK_OK);
    assert_int_equal(cuzk_fp2_random(&b4), CUZK_OK);
    b = (cuzk_fp12_t){0};
    b.c0.c0 = b0;
    b.c0.c1 = b1;
    b.c1.c1 = b4;
    cuzk_fp12_mul(&want, &a, &b);
    cuzk_fp12_mul_by_014(&got, &a, &b0, &b1, &b4);
    assert_true(cuzk_fp12_eq(&want, &got));
  }
}

int main(void) {
  cuzk_test_rng_init(&ec_rng, cuzk_test_seed());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mul_by_014),
      cmocka_unit_test(test_pairing_oracle),
      cmocka_unit_test(test_bilinearity),
      cmocka_unit_test(test_pairing_check),
  };
  return ec_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
