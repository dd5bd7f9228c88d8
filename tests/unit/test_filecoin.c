/* Registered PoSt proof facts (numbers from go-state-types abi/sector.go, shapes and counts from
 * filecoin-proofs constants.rs) and sealed-CID decoding (digest checked against python3 base64
 * on the vector's CID; the same comm_r is re-derived from the proof in test_vanilla). */
#include "tests/support/testlib.h"

#include <string.h>

#include "core/filecoin/cid.h"
#include "core/filecoin/post.h"
#include "core/util/hex.h"

static void test_post_table(void **state) {
  (void)state;
  static const struct {
    int id;
    const char *name;
    uint64_t size;
    unsigned sub, top, spp, ch;
  } want[] = {
      {0, "StackedDrgWinning2KiBV1", 2048, 0, 0, 1, 66},
      {1, "StackedDrgWinning8MiBV1", 8 << 20, 0, 0, 1, 66},
      {2, "StackedDrgWinning512MiBV1", 512 << 20, 0, 0, 1, 66},
      {3, "StackedDrgWinning32GiBV1", UINT64_C(32) << 30, 8, 0, 1, 66},
      {4, "StackedDrgWinning64GiBV1", UINT64_C(64) << 30, 8, 2, 1, 66},
      {5, "StackedDrgWindow2KiBV1", 2048, 0, 0, 2, 10},
      {6, "StackedDrgWindow8MiBV1", 8 << 20, 0, 0, 2, 10},
      {7, "StackedDrgWindow512MiBV1", 512 << 20, 0, 0, 2, 10},
      {8, "StackedDrgWindow32GiBV1", UINT64_C(32) << 30, 8, 0, 2349, 10},
      {9, "StackedDrgWindow64GiBV1", UINT64_C(64) << 30, 8, 2, 2300, 10},
      {10, "StackedDrgWindow2KiBV1_1", 2048, 0, 0, 2, 10},
      {11, "StackedDrgWindow8MiBV1_1", 8 << 20, 0, 0, 2, 10},
      {12, "StackedDrgWindow512MiBV1_1", 512 << 20, 0, 0, 2, 10},
      {13, "StackedDrgWindow32GiBV1_1", UINT64_C(32) << 30, 8, 0, 2349, 10},
      {14, "StackedDrgWindow64GiBV1_1", UINT64_C(64) << 30, 8, 2, 2300, 10},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const cuzk_post_proof_info_t *p = cuzk_filecoin_post_info(want[i].id);
    assert_non_null(p);
    assert_int_equal(p->id, want[i].id);
    assert_string_equal(p->name, want[i].name);
    assert_int_equal(p->sector_size, want[i].size);
    assert_int_equal(p->shape.base_arity, 8);
    assert_int_equal(p->shape.sub_arity, want[i].sub);
    assert_int_equal(p->shape.top_arity, want[i].top);
    assert_int_equal(p->sectors_per_partition, want[i].spp);
    assert_int_equal(p->challenges_per_sector, want[i].ch);
    assert_int_equal(p->kind, want[i].id < 5 ? CUZK_POST_WINNING : CUZK_POST_WINDOW);
    assert_int_equal(p->api, want[i].id >= 10 ? CUZK_POST_API_V1_2 : CUZK_POST_API_V1_0);
    /* The shape spans exactly the sector's leaves. */
    uint64_t leaves = 1;
    for (unsigned h = 0; h < p->shape.base_height; h++) leaves *= 8;
    if (p->shape.sub_arity) leaves *= p->shape.sub_arity;
    if (p->shape.top_arity) leaves *= p->shape.top_arity;
    assert_int_equal(leaves, cuzk_filecoin_sector_leaves(p->sector_size));
  }
  assert_null(cuzk_filecoin_post_info(-1));
  assert_null(cuzk_filecoin_post_info(15));
}

static void test_cid_vector(void **state) {
  (void)state;
  /* python3: base64.b32decode of the CID body gives 0182e20381e80220 || digest. */
  const char *digest_hex = "df691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b";
  uint8_t want[32], got[32];
  char err[200];
  assert_int_equal(cuzk_hex_decode_exact(want, 32, digest_hex, 64, 0), CUZK_OK);
  assert_int_equal(cuzk_filecoin_commr_from_cid(
                       got, "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl",
                       err, sizeof err),
                   CUZK_OK);
  assert_memory_equal(got, want, 32);
}

static void test_cid_errors(void **state) {
  (void)state;
  uint8_t d[32];
  char err[200];
  uint64_t codec, mh;
  const char *good = "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl";
  /* Not base32 multibase, bad characters, truncated, extended. */
  assert_int_equal(cuzk_filecoin_commr_from_cid(d, "zagboea", err, sizeof err), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_filecoin_commr_from_cid(d,
                                                "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4ol"
                                                "twuh4q3rcf5tpdodaoj6mtL",
                                                err, sizeof err),
                   CUZK_ERR_PARSE);
  char buf[128];
  strcpy(buf, good);
  buf[strlen(buf) - 8] = 0;
  assert_int_equal(cuzk_filecoin_commr_from_cid(d, buf, err, sizeof err), CUZK_ERR_PARSE);
  snprintf(buf, sizeof buf, "%saaaaaaaa", good);
  assert_int_equal(cuzk_filecoin_commr_from_cid(d, buf, err, sizeof err), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_filecoin_commr_from_cid(d, "b", err, sizeof err), CUZK_ERR_PARSE);
  /* An unsealed CID (fil-commitment-unsealed, sha2-256-trunc254-padded) decodes but is not a
   * comm_r. baga6ea4seaq... is the standard 2KiB zero-piece CommP form. */
  const char *unsealed = "baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy";
  assert_int_equal(cuzk_filecoin_cid_decode(unsealed, &codec, &mh, d, err, sizeof err), CUZK_OK);
  assert_int_equal(codec, CUZK_CID_FIL_UNSEALED);
  assert_int_equal(mh, CUZK_MH_SHA2_256_TRUNC254_PADDED);
  assert_int_equal(cuzk_filecoin_commr_from_cid(d, unsealed, err, sizeof err), CUZK_ERR_PARSE);
  assert_non_null(strstr(err, "fil-commitment-sealed"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_post_table),
      cmocka_unit_test(test_cid_vector),
      cmocka_unit_test(test_cid_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
