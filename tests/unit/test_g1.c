/* G1 (core/ec/g1.c) against @noble/curves: scalar multiples, additions, encodings, decoding
 * errors, subgroup membership. */
#include "core/ec/g1.h"

#include "tests/unit/test_ec_support.inc"

#define PT cuzk_g1_t
#define AT cuzk_g1_affine_t
#define G(name) cuzk_g1_##name
#define NAME "g1"
#define CB CUZK_G1_COMPRESSED_BYTES
#define UB CUZK_G1_UNCOMPRESSED_BYTES
#define FT cuzk_fp_t
#define FT_MUL cuzk_fp_mul
#define FT_SQR cuzk_fp_sqr
#define FT_ADD cuzk_fp_add
#define FT_SQRT cuzk_fp_sqrt
#define FT_SET_X(out, i) cuzk_fp_from_u64((out), (i))

static cuzk_fp_t FT_CURVE_B;

#include "tests/unit/test_ec_curve.inc"

/* The compressed generator is the published constant. */
static void test_generator_bytes(void **state) {
  (void)state;
  static const char want[] = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff"
                             "97a1aeffb3af00adb22c6bb";
  cuzk_g1_affine_t g;
  uint8_t c[48];
  char h[97];
  cuzk_g1_affine_generator(&g);
  cuzk_g1_to_compressed(c, &g);
  ec_hex(h, c, 48);
  assert_string_equal(h, want);
}

int main(void) {
  cuzk_test_rng_init(&ec_rng, cuzk_test_seed());
  cuzk_fp_from_u64(&FT_CURVE_B, 4);
  const struct CMUnitTest tests[] = {EC_CURVE_TESTS, cmocka_unit_test(test_generator_bytes)};
  return ec_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
