/* CPU Pippenger MSM (core/ec/msm.c) for G1 and G2: against the naive sum of scalar
 * multiplications (sizes 0..2049 for G1, 0..700 for G2, zeros, infinity, repeated and cancelling
 * bases, forced point-range splitting) and against @noble/curves. */
#include "core/ec/msm.h"
#include "core/ec/ec_par.h"

#include "tests/unit/test_ec_support.inc"

/* (chunks, window) overrides each size is tried with: automatic, forced point-range splitting,
 * and the batch-affine bucket path at sizes where the automatic window would not use it
 * (sizes >= 257 only; smaller ones run with the automatic choice). */
static const unsigned msm_conf[][2] = {{0, 0}, {3, 0}, {0, 10}, {2, 10}};
#define MSM_NCONF ((int)(sizeof msm_conf / sizeof msm_conf[0]))

#define PT cuzk_g1_t
#define AT cuzk_g1_affine_t
#define G(name) cuzk_g1_##name
#define TN(name) g1_##name
#define NAME "g1"
#define CB CUZK_G1_COMPRESSED_BYTES
#define MSM_FN cuzk_g1_msm
#define MSM_RAW_FN cuzk_g1_msm_raw
#define MSM_TEST_MAXN 2049
#include "tests/unit/test_msm_curve.inc"
#undef PT
#undef AT
#undef G
#undef TN
#undef NAME
#undef CB
#undef MSM_FN
#undef MSM_RAW_FN
#undef MSM_TEST_MAXN

#define PT cuzk_g2_t
#define AT cuzk_g2_affine_t
#define G(name) cuzk_g2_##name
#define TN(name) g2_##name
#define NAME "g2"
#define CB CUZK_G2_COMPRESSED_BYTES
#define MSM_FN cuzk_g2_msm
#define MSM_RAW_FN cuzk_g2_msm_raw
#define MSM_TEST_MAXN 700
#include "tests/unit/test_msm_curve.inc"

static void test_window_bits(void **state) {
  (void)state;
  unsigned prev = 0;
  for (size_t n = 1; n < ((size_t)1 << 30); n *= 2) {
    unsigned c = cuzk_msm_window_bits(n);
    assert_true(c >= 2 && c <= 16);
    assert_true(c >= prev);
    prev = c;
  }
  assert_int_equal(cuzk_msm_window_bits((size_t)1 << 28), 16);
}

int main(void) {
  cuzk_test_rng_init(&ec_rng, cuzk_test_seed());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_window_bits),     cmocka_unit_test(g1_test_msm_vs_naive),
      cmocka_unit_test(g1_test_msm_raw),      cmocka_unit_test(g1_test_msm_oracle),
      cmocka_unit_test(g2_test_msm_vs_naive), cmocka_unit_test(g2_test_msm_raw),
      cmocka_unit_test(g2_test_msm_oracle),
  };
  return ec_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
