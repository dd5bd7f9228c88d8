/* Fr against GMP: every operation on edge values and >= 100,000 random inputs, both
 * multiplication paths, constants recomputed, non-canonical encodings rejected, roots of unity. */
#include "tests/support/testlib.h"

#include "core/ff/ff_internal.h"
#include "core/ff/fr.h"

#define FT_T cuzk_fr_t
#define FT_(name) cuzk_fr_##name
#define FT_LIMBS CUZK_FR_LIMBS
#define FT_BYTES CUZK_FR_BYTES
#define FT_BITS 255
#define FT_MOD_HEX CUZK_ORACLE_R_HEX
#define FT_N_RANDOM 100000
#ifndef FT_N_EXP
#define FT_N_EXP 10000 /* 100,000 in test_fr_full (label slow) */
#endif
#define cuzk_fr_MODULUS CUZK_FR_MODULUS
#define cuzk_fr_ONE CUZK_FR_ONE
#define cuzk_fr_ZERO CUZK_FR_ZERO
#include "tests/support/ff_field_tests.h"

static void test_constants(void **state) {
  (void)state;
  ft_check_constants();
  ft_check_ninv(CUZK__FR_NINV);
  mpz_t x, t, g;
  mpz_inits(x, t, g, NULL);
  mpz_powm_ui(x, ft_R, 2, ft_m);
  ft_check_limbs(cuzk__fr_r2, x, "R^2 mod r");
  mpz_powm_ui(x, ft_R, 3, ft_m);
  ft_check_limbs(cuzk__fr_r3, x, "R^3 mod r");
  mpz_sub_ui(x, ft_m, 2);
  ft_check_limbs(cuzk__fr_r_minus_2, x, "r - 2");
  mpz_sub_ui(x, ft_m, 1);
  mpz_fdiv_q_2exp(x, x, 1);
  ft_check_limbs(cuzk__fr_r_minus_1_div_2, x, "(r - 1) / 2");
  /* r - 1 = 2^32·t with t odd */
  mpz_sub_ui(t, ft_m, 1);
  assert_int_equal(mpz_scan1(t, 0), CUZK_FR_TWO_ADICITY);
  mpz_fdiv_q_2exp(t, t, CUZK_FR_TWO_ADICITY);
  mpz_sub_ui(x, t, 1);
  mpz_fdiv_q_2exp(x, x, 1);
  ft_check_limbs(cuzk__fr_t_minus_1_div_2, x, "(t - 1) / 2");
  /* generator 7 in Montgomery form; it is a non-residue (so 7^t has order 2^32) */
  mpz_set_ui(g, 7);
  assert_int_equal(mpz_legendre(g, ft_m), -1);
  mpz_mul(x, g, ft_R);
  mpz_mod(x, x, ft_m);
  ft_check_limbs(cuzk__fr_generator, x, "7·R mod r");
  mpz_powm(x, g, t, ft_m);
  mpz_mul(x, x, ft_R);
  mpz_mod(x, x, ft_m);
  ft_check_limbs(cuzk__fr_root_2_32, x, "7^t·R mod r");
  assert_int_equal(mpz_sizeinbase(ft_m, 2), FT_BITS);
  mpz_clears(x, t, g, NULL);
}

/* 7 generates the whole multiplicative group: 7^((r-1)/q) != 1 for each prime q | r - 1. */
static void test_generator_order(void **state) {
  (void)state;
  static const unsigned long small[] = {2,      3,       11,      19,       10177,    125527,
                                        859267, 906349, 2508409, 2529403, 52437899, 254760293};
  mpz_t rm1, rest, e, x;
  mpz_inits(rm1, rest, e, x, NULL);
  mpz_sub_ui(rm1, ft_m, 1);
  mpz_set(rest, rm1);
  mpz_t g;
  mpz_init_set_ui(g, 7);
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    if (mpz_divisible_ui_p(rm1, small[i])) {
      while (mpz_divisible_ui_p(rest, small[i])) mpz_divexact_ui(rest, rest, small[i]);
      mpz_divexact_ui(e, rm1, small[i]);
      mpz_powm(x, g, e, ft_m);
      assert_true(mpz_cmp_ui(x, 1) != 0);
    }
  }
  /* Whatever cofactor is left must be prime for this check to be complete. */
  if (mpz_cmp_ui(rest, 1) != 0) {
    assert_true(mpz_probab_prime_p(rest, 30) > 0);
    mpz_divexact(e, rm1, rest);
    mpz_powm(x, g, e, ft_m);
    assert_true(mpz_cmp_ui(x, 1) != 0);
  }
  cuzk_fr_t gen;
  cuzk_fr_generator(&gen);
  ft_assert_eq_mpz(&gen, g, "generator");
  mpz_clears(rm1, rest, e, x, g, NULL);
}

static void test_roots_of_unity(void **state) {
  (void)state;
  mpz_t e, g, x;
  mpz_inits(e, g, x, NULL);
  mpz_set_ui(g, 7);
  for (unsigned k = 0; k <= CUZK_FR_TWO_ADICITY; k++) {
    cuzk_fr_t w, t;
    cuzk_fr_root_of_unity(&w, k);
    mpz_sub_ui(e, ft_m, 1);
    mpz_fdiv_q_2exp(e, e, k);
    mpz_powm(x, g, e, ft_m);
    ft_assert_eq_mpz(&w, x, "root_of_unity");
    /* primitive: w^(2^k) = 1 and w^(2^(k-1)) = -1 */
    t = w;
    for (unsigned i = 0; i + 1 < k; i++) cuzk_fr_sqr(&t, &t);
    if (k > 0) {
      cuzk_fr_t m1;
      cuzk_fr_neg(&m1, &CUZK_FR_ONE);
      assert_true(cuzk_fr_eq(&t, &m1));
      cuzk_fr_sqr(&t, &t);
    }
    assert_true(cuzk_fr_is_one(&t));
  }
  mpz_clears(e, g, x, NULL);
}

static void test_from_le_wide(void **state) {
  (void)state;
  mpz_t a, e;
  mpz_inits(a, e, NULL);
  for (int i = 0; i < 100000; i++) {
    uint8_t b[64];
    cuzk_test_rng_bytes(&ft_rng, b, sizeof b);
    if (i == 0) memset(b, 0xff, sizeof b);
    if (i == 1) memset(b, 0, sizeof b);
    if (i == 2) { /* r exactly, and r in the high half */
      memset(b, 0, sizeof b);
      gmpo_to_le_bytes(b, 32, ft_m);
      gmpo_to_le_bytes(b + 32, 32, ft_m);
    }
    if (i % 5 == 3) memset(b + 32, 0xff, 32);
    gmpo_from_le_bytes(a, b, 64);
    mpz_mod(e, a, ft_m);
    cuzk_fr_t z;
    cuzk_fr_from_le_wide(&z, b);
    ft_assert_eq_mpz(&z, e, "from_le_wide");
  }
  mpz_clears(a, e, NULL);
}

int main(void) {
  ft_setup_globals();
  ft_init_edges();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constants), FT_COMMON_TESTS, cmocka_unit_test(test_generator_order),
      cmocka_unit_test(test_roots_of_unity), cmocka_unit_test(test_from_le_wide),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
