/* PoSt challenge derivation against an independent SHA-256 (python3 hashlib) on random inputs,
 * and the challenge-index rules of ApiVersion 1.0/1.1 and 1.2. */
#include "tests/support/testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/filecoin/post.h"
#include "core/util/hex.h"

#define N 200

static const char *PY =
    "python3 -c 'import sys,hashlib\n"
    "for line in sys.stdin:\n"
    "    r,s,c,n=line.split()\n"
    "    h=hashlib.sha256(bytes.fromhex(r)+int(s).to_bytes(8,\"little\")+int(c).to_bytes(8,"
    "\"little\")).digest()\n"
    "    print(int.from_bytes(h[:8],\"little\")%int(n))\n'";

static void test_against_python(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  static char input[N * 160];
  uint64_t ours[N];
  size_t off = 0;
  const uint64_t leaves_opts[] = {
      64, UINT64_C(1) << 18, UINT64_C(1) << 24, UINT64_C(1) << 30, UINT64_C(1) << 31, 1000003};
  for (int i = 0; i < N; i++) {
    uint8_t r[32];
    cuzk_test_rng_bytes(&rng, r, 32);
    cuzk_filecoin_randomness_mask(r);
    uint64_t sid = cuzk_test_rng_next(&rng) >> (cuzk_test_rng_next(&rng) % 64);
    uint64_t ci = cuzk_test_rng_next(&rng) % 100000;
    uint64_t leaves = leaves_opts[i % 6];
    ours[i] = cuzk_filecoin_leaf_challenge(r, sid, ci, leaves);
    char hex[65];
    cuzk_hex_encode(hex, sizeof hex, r, 32);
    off += (size_t)snprintf(input + off, sizeof input - off,
                            "%s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", hex, sid, ci, leaves);
  }
  int status = -1;
  char *out = cuzk_test_run_cmd(PY, input, &status);
  if (!out || status != 0) {
    free(out);
    fprintf(stderr, "SKIP: python3 not available\n");
    skip();
  }
  char *p = out;
  for (int i = 0; i < N; i++) {
    char *end;
    uint64_t want = strtoull(p, &end, 10);
    assert_true(end != p);
    assert_int_equal(ours[i], want);
    p = end;
  }
  free(out);
}

static void test_known_zero_randomness(void **state) {
  (void)state;
  /* The ten challenged leaves of sector 1 with zero randomness and 2^30 leaves (the real 32GiB
   * WindowPoSt vector), computed with python3 hashlib; test_vanilla checks them against the
   * path indices of the proof itself. */
  static const uint64_t want[10] = {707914199, 439148358,  967788220, 548708700,  1061661429,
                                    6202012,   1055504637, 389535735, 1000069704, 600088878};
  uint8_t r[32] = {0};
  for (unsigned n = 0; n < 10; n++)
    assert_int_equal(cuzk_filecoin_leaf_challenge(r, 1, n, UINT64_C(1) << 30), want[n]);
  assert_int_equal(cuzk_filecoin_leaf_challenge(r, 1, 0, 1), 0);
  uint64_t all[10];
  cuzk_filecoin_sector_challenges(all, cuzk_filecoin_post_info(8), r, 1, 0);
  assert_memory_equal(all, want, sizeof want);
  cuzk_filecoin_sector_challenges(all, cuzk_filecoin_post_info(13), r, 1, 0);
  assert_memory_equal(all, want, sizeof want);
  /* Second sector of the proof: V1 shifts the indices by 10, V1_1 (api 1.2) does not. */
  cuzk_filecoin_sector_challenges(all, cuzk_filecoin_post_info(13), r, 1, 1);
  assert_memory_equal(all, want, sizeof want);
  cuzk_filecoin_sector_challenges(all, cuzk_filecoin_post_info(8), r, 1, 1);
  for (unsigned n = 0; n < 10; n++)
    assert_int_equal(all[n], cuzk_filecoin_leaf_challenge(r, 1, 10 + n, UINT64_C(1) << 30));
  assert_true(all[0] != want[0]);
}

static void test_challenge_index_rules(void **state) {
  (void)state;
  /* V1_0/V1_1: sector_index * challenges + n; V1_2: n (storage-proofs-post fallback/utils.rs). */
  assert_int_equal(cuzk_filecoin_challenge_index(CUZK_POST_API_V1_0, 0, 10, 7), 7);
  assert_int_equal(cuzk_filecoin_challenge_index(CUZK_POST_API_V1_0, 3, 10, 7), 37);
  assert_int_equal(cuzk_filecoin_challenge_index(CUZK_POST_API_V1_0, 2349, 10, 9), 23499);
  assert_int_equal(cuzk_filecoin_challenge_index(CUZK_POST_API_V1_2, 3, 10, 7), 7);
  assert_int_equal(cuzk_filecoin_challenge_index(CUZK_POST_API_V1_2, 2349, 10, 9), 9);
  assert_int_equal(cuzk_filecoin_challenge_index(CUZK_POST_API_V1_0, 0, 66, 65), 65);
}

static void test_randomness_mask(void **state) {
  (void)state;
  uint8_t r[32];
  memset(r, 0xff, 32);
  cuzk_filecoin_randomness_mask(r);
  assert_int_equal(r[31], 0x3f);
  assert_int_equal(r[30], 0xff);
  assert_int_equal(r[0], 0xff);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_python),
      cmocka_unit_test(test_known_zero_randomness),
      cmocka_unit_test(test_challenge_index_rules),
      cmocka_unit_test(test_randomness_mask),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
