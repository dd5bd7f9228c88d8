/* G2 (core/ec/g2.c) against @noble/curves: scalar multiples, additions, encodings (Fp2 written
 * c1 then c0), decoding errors, subgroup membership. */
#include "core/ec/g2.h"

#include "tests/unit/test_ec_support.inc"

#define PT cuzk_g2_t
#define AT cuzk_g2_affine_t
#define G(name) cuzk_g2_##name
#define NAME "g2"
#define CB CUZK_G2_COMPRESSED_BYTES
#define UB CUZK_G2_UNCOMPRESSED_BYTES
#define FT cuzk_fp2_t
#define FT_MUL cuzk_fp2_mul
#define FT_SQR cuzk_fp2_sqr
#define FT_ADD cuzk_fp2_add
#define FT_SQRT cuzk_fp2_sqrt
/* x = i + u */
#define FT_SET_X(out, i) (cuzk_fp_from_u64(&(out)->c0, (i)), (out)->c1 = CUZK_FP_ONE)

/* noble is slow in G2: fewer random cases per oracle call */
#define NRAND 8

static cuzk_fp2_t FT_CURVE_B;

#include "tests/unit/test_ec_curve.inc"

static void test_generator_bytes(void **state) {
  (void)state;
  static const char want[] =
      "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d04"
      "2b7e"
      "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121"
      "bdb8";
  cuzk_g2_affine_t g;
  uint8_t c[96];
  char h[193];
  cuzk_g2_affine_generator(&g);
  cuzk_g2_to_compressed(c, &g);
  ec_hex(h, c, 96);
  assert_string_equal(h, want);
}

int main(void) {
  cuzk_test_rng_init(&ec_rng, cuzk_test_seed());
  cuzk_fp_from_u64(&FT_CURVE_B.c0, 4);
  cuzk_fp_from_u64(&FT_CURVE_B.c1, 4);
  const struct CMUnitTest tests[] = {EC_CURVE_TESTS, cmocka_unit_test(test_generator_bytes)};
  return ec_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
