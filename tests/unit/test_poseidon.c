/* Poseidon (neptune parameters) against independent oracles: the published hash vectors of
 * DESIGN §5 and the reference Grain script's round constants for t = 9 (neptune
 * parameters/round_constants-1-1-255-9-8-57-<r>.txt, produced by hadeshash create_rcs_grain.sage).
 */
#include "tests/support/testlib.h"

#include <pthread.h>
#include <string.h>

#include "core/hash/poseidon.h"
#include "core/util/hex.h"

static void fr_from_hex_be(cuzk_fr_t *out, const char *hex) {
  uint8_t be[32];
  assert_int_equal(cuzk_hex_decode_exact(be, 32, hex, strlen(hex), CUZK_HEX_ALLOW_0X), CUZK_OK);
  assert_int_equal(cuzk_fr_from_be(out, be), CUZK_OK);
}

static void assert_fr_hex(const cuzk_fr_t *a, const char *hex) {
  cuzk_fr_t want;
  fr_from_hex_be(&want, hex);
  if (!cuzk_fr_eq(a, &want)) {
    uint8_t be[32];
    char got[65];
    cuzk_fr_to_be(be, a);
    cuzk_hex_encode(got, sizeof got, be, 32);
    fail_msg("got 0x%s want %s", got, hex);
  }
}

static void test_round_constants_t9(void **state) {
  (void)state;
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(8);
  assert_non_null(p);
  assert_int_equal(p->width, 9);
  assert_int_equal(p->partial_rounds, 57);
  size_t n = (size_t)(p->full_rounds + p->partial_rounds) * p->width;
  assert_int_equal(n, 585);
  assert_fr_hex(&p->rc[0], "0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9");
  assert_fr_hex(&p->rc[1], "0x0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39");
  assert_fr_hex(&p->rc[2], "0x513ad11016ab7bb8c7ce9ae51256040e062487edf7168d206ba1b86dfe963629");
  assert_fr_hex(&p->rc[583], "0x5861985c6ad8159e1a4f056d02df583d9c79c96bae8c3b9313812b4e0b3bda60");
  assert_fr_hex(&p->rc[584], "0x3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c");
}

static void test_mds_is_cauchy(void **state) {
  (void)state;
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(4);
  for (unsigned i = 0; i < p->width; i++)
    for (unsigned j = 0; j < p->width; j++) {
      cuzk_fr_t d, prod;
      cuzk_fr_from_u64(&d, i + j + p->width);
      cuzk_fr_mul(&prod, &d, &p->mds[i][j]);
      assert_true(cuzk_fr_is_one(&prod));
    }
}

static void check_vector(unsigned arity, const char *hex) {
  cuzk_fr_t in[11], out;
  for (unsigned i = 0; i < arity; i++) cuzk_fr_from_u64(&in[i], i);
  cuzk_poseidon_hash(&out, arity, in);
  assert_fr_hex(&out, hex);
}

static void test_vectors(void **state) {
  (void)state;
  check_vector(2, "0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff");
  check_vector(4, "0x58a54b10a9e5848a00db3c6579229399fb6b4605bf1327ec019814ff6662075d");
  check_vector(8, "0x2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6");
  check_vector(11, "0x0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163");
}

static void test_binary_tree(void **state) {
  (void)state;
  cuzk_fr_t l[4], a, b, root, pair[2];
  cuzk_fr_from_u64(&l[0], 1);
  cuzk_fr_from_u64(&l[1], 0);
  cuzk_fr_from_u64(&l[2], 0);
  cuzk_fr_from_u64(&l[3], 1);
  cuzk_poseidon_hash(&a, 2, &l[0]);
  assert_fr_hex(&a, "0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e");
  cuzk_poseidon_hash(&b, 2, &l[2]);
  pair[0] = a;
  pair[1] = b;
  cuzk_poseidon_hash(&root, 2, pair);
  assert_fr_hex(&root, "0x1effebb7b26ad9eb30eb6385ae6b74ae77cc72b8cb2b5ad2efbb8be3e291e671");
}

static void test_le_api_and_errors(void **state) {
  (void)state;
  uint8_t in[8 * 32], out[32], be[32];
  memset(in, 0, sizeof in);
  for (unsigned i = 0; i < 8; i++) in[32 * i] = (uint8_t)i;
  assert_int_equal(cuzk_poseidon_hash_le(out, 8, in), CUZK_OK);
  for (int i = 0; i < 32; i++) be[i] = out[31 - i];
  char hex[65];
  cuzk_hex_encode(hex, sizeof hex, be, 32);
  assert_string_equal(hex, "2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6");
  assert_int_equal(cuzk_poseidon_hash_le(out, 3, in), CUZK_ERR_INVALID_ARG);
  memset(in + 32, 0xff, 32);
  assert_int_equal(cuzk_poseidon_hash_le(out, 8, in), CUZK_ERR_NON_CANONICAL);
  assert_null(cuzk_poseidon_params(16));
}

static void test_custom_tag(void **state) {
  (void)state;
  cuzk_fr_t tag, two, want;
  cuzk_fr_from_u64(&two, 2);
  uint64_t e = 40;
  cuzk_fr_pow(&want, &two, &e, 1);
  cuzk_poseidon_custom_tag(&tag, 1);
  assert_true(cuzk_fr_eq(&tag, &want));
  cuzk_fr_t three;
  cuzk_fr_from_u64(&three, 3);
  cuzk_fr_mul(&want, &want, &three);
  cuzk_poseidon_custom_tag(&tag, 3);
  assert_true(cuzk_fr_eq(&tag, &want));
  /* A different tag gives a different hash of the same inputs. */
  cuzk_fr_t in[2], h1, h2;
  cuzk_fr_from_u64(&in[0], 0);
  cuzk_fr_from_u64(&in[1], 1);
  cuzk_poseidon_custom_tag(&tag, 1);
  cuzk_poseidon_hash_tagged(&h1, 2, &tag, in);
  cuzk_poseidon_hash(&h2, 2, in);
  assert_false(cuzk_fr_eq(&h1, &h2));
}

static void test_fast_equals_reference(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  const unsigned arities[] = {2, 4, 8, 11};
  for (int a = 0; a < 4; a++) {
    const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arities[a]);
    for (int it = 0; it < 20; it++) {
      cuzk_fr_t x[CUZK_POSEIDON_MAX_WIDTH], y[CUZK_POSEIDON_MAX_WIDTH];
      for (unsigned i = 0; i < p->width; i++) {
        uint8_t w[64];
        cuzk_test_rng_bytes(&rng, w, sizeof w);
        cuzk_fr_from_le_wide(&x[i], w);
        y[i] = x[i];
      }
      cuzk_poseidon_permute(p, x);
      cuzk_poseidon_permute_fast(p, y);
      for (unsigned i = 0; i < p->width; i++) assert_true(cuzk_fr_eq(&x[i], &y[i]));
    }
  }
}

static void test_reference_vectors(void **state) {
  (void)state;
  /* The reference permutation alone also gives the published arity-8 vector. */
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(8);
  cuzk_fr_t st[9];
  st[0] = p->merkle_tag;
  for (unsigned i = 0; i < 8; i++) cuzk_fr_from_u64(&st[i + 1], i);
  cuzk_poseidon_permute(p, st);
  assert_fr_hex(&st[1], "0x2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6");
}

static void *thread_hash(void *arg) {
  cuzk_fr_t *out = arg, in[11];
  for (unsigned i = 0; i < 11; i++) cuzk_fr_from_u64(&in[i], i);
  cuzk_poseidon_hash(out, 11, in);
  return NULL;
}

static void test_concurrent_first_use(void **state) {
  (void)state;
  pthread_t th[4];
  cuzk_fr_t out[4];
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, thread_hash, &out[i]);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++)
    assert_fr_hex(&out[i], "0x0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_first_use), cmocka_unit_test(test_round_constants_t9),
      cmocka_unit_test(test_mds_is_cauchy),        cmocka_unit_test(test_vectors),
      cmocka_unit_test(test_binary_tree),          cmocka_unit_test(test_le_api_and_errors),
      cmocka_unit_test(test_custom_tag),           cmocka_unit_test(test_fast_equals_reference),
      cmocka_unit_test(test_reference_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
