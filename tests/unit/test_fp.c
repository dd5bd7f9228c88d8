/* Fp against GMP: every operation on edge values and >= 100,000 random inputs, both
 * multiplication paths, constants recomputed, non-canonical encodings rejected. */
#include "tests/support/testlib.h"

#include "core/ff/ff_internal.h"
#include "core/ff/fp.h"

#define FT_T cuzk_fp_t
#define FT_(name) cuzk_fp_##name
#define FT_LIMBS CUZK_FP_LIMBS
#define FT_BYTES CUZK_FP_BYTES
#define FT_BITS 381
#define FT_MOD_HEX CUZK_ORACLE_P_HEX
#define FT_N_RANDOM 100000
#ifndef FT_N_EXP
#define FT_N_EXP 10000 /* 100,000 in test_fp_full (label slow) */
#endif
/* FT_(MODULUS) etc. expand to cuzk_fp_MODULUS; map the upper-case public constants. */
#define cuzk_fp_MODULUS CUZK_FP_MODULUS
#define cuzk_fp_ONE CUZK_FP_ONE
#define cuzk_fp_ZERO CUZK_FP_ZERO
#include "tests/support/ff_field_tests.h"

static void test_constants(void **state) {
  (void)state;
  ft_check_constants();
  ft_check_ninv(CUZK__FP_NINV);
  mpz_t x;
  mpz_init(x);
  mpz_powm_ui(x, ft_R, 2, ft_m);
  ft_check_limbs(cuzk__fp_r2, x, "R^2 mod p");
  mpz_powm_ui(x, ft_R, 3, ft_m);
  ft_check_limbs(cuzk__fp_r3, x, "R^3 mod p");
  mpz_sub_ui(x, ft_m, 2);
  ft_check_limbs(cuzk__fp_p_minus_2, x, "p - 2");
  mpz_add_ui(x, ft_m, 1);
  assert_int_equal(mpz_fdiv_ui(x, 4), 0); /* p = 3 mod 4 */
  mpz_fdiv_q_2exp(x, x, 2);
  ft_check_limbs(cuzk__fp_p_plus_1_div_4, x, "(p + 1) / 4");
  mpz_sub_ui(x, ft_m, 1);
  mpz_fdiv_q_2exp(x, x, 1);
  ft_check_limbs(cuzk__fp_p_minus_1_div_2, x, "(p - 1) / 2");
  assert_int_equal(mpz_sizeinbase(ft_m, 2), FT_BITS);
  mpz_clear(x);
}

static void test_lexi_largest(void **state) {
  (void)state;
  mpz_t a, half;
  mpz_inits(a, half, NULL);
  mpz_sub_ui(half, ft_m, 1);
  mpz_fdiv_q_2exp(half, half, 1);
  for (size_t i = 0; i < ft_nedge + 20000; i++) {
    ft_input(a, i);
    cuzk_fp_t x;
    ft_from_mpz(&x, a);
    assert_int_equal(cuzk_fp_is_lexi_largest(&x), mpz_cmp(a, half) > 0);
  }
  mpz_clears(a, half, NULL);
}

int main(void) {
  ft_setup_globals();
  ft_init_edges();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constants),
      FT_COMMON_TESTS,
      cmocka_unit_test(test_lexi_largest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
