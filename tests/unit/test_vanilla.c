/* The PoSt vanilla decoder and path verification against real data produced by Filecoin's own
 * prover (../shared/vectors/filecoin/window-post-32g-sector1.*, README there): every path must
 * hash to comm_r_last, Poseidon2(comm_c, comm_r_last) must equal comm_r and the comm_r of the
 * sealed CID, and the path indices must equal our challenge derivation. Then truncations and
 * bit flips of the same bytes must give typed errors, never a crash. */
#include "tests/support/testlib.h"

#include <stdlib.h>
#include <string.h>

#include "core/filecoin/cid.h"
#include "core/filecoin/post.h"
#include "core/filecoin/vanilla.h"
#include "core/util/file.h"

#define VPROOF "filecoin/window-post-32g-sector1.vproof"
#define SEALED_CID "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl"

static uint8_t *g_buf;
static size_t g_len;

static int setup(void **state) {
  (void)state;
  char path[4096];
  if (!cuzk_test_vector_path(path, sizeof path, VPROOF)) return 0;
  char err[256];
  if (cuzk_file_read(path, 1 << 20, &g_buf, &g_len, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "read %s: %s\n", path, err);
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  free(g_buf);
  return 0;
}

static void test_real_window_post(void **state) {
  (void)state;
  if (!g_buf) skip();
  assert_int_equal(g_len, 24960);
  char err[256] = "";
  cuzk_vanilla_post_t *v = NULL;
  cuzk_err_t e = cuzk_vanilla_post_decode(&v, g_buf, g_len, err, sizeof err);
  if (e != CUZK_OK) fail_msg("decode: %s", err);
  assert_int_equal(v->n_items, 1);
  const cuzk_post_sector_proof_t *p = &v->items[0];
  assert_int_equal(p->sector_id, 1);
  assert_int_equal(p->n_sectors, 1);
  const cuzk_sector_proof_t *s = &p->sectors[0];
  assert_int_equal(s->n_proofs, 10);

  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(8);
  assert_non_null(info);
  uint8_t randomness[32] = {0};
  uint64_t leaves = cuzk_filecoin_sector_leaves(info->sector_size);
  assert_int_equal(leaves, UINT64_C(1) << 30);
  for (unsigned n = 0; n < s->n_proofs; n++) {
    uint64_t idx = 0;
    e = cuzk_vanilla_merkle_verify(&s->proofs[n], &info->shape, s->comm_r_last, &idx, err,
                                   sizeof err);
    if (e != CUZK_OK) fail_msg("challenge %u: %s", n, err);
    uint64_t ci = cuzk_filecoin_challenge_index(info->api, 0, info->challenges_per_sector, n);
    uint64_t want = cuzk_filecoin_leaf_challenge(randomness, p->sector_id, ci, leaves);
    assert_int_equal(idx, want);
    /* The V1_2 rule gives the same index for the first sector. */
    assert_int_equal(cuzk_filecoin_challenge_index(CUZK_POST_API_V1_2, 0, 10, n), ci);
  }

  uint8_t computed[32], cid_commr[32];
  assert_int_equal(cuzk_vanilla_comm_r_check(s->comm_c, s->comm_r_last, p->comm_r, computed),
                   CUZK_OK);
  assert_int_equal(cuzk_filecoin_commr_from_cid(cid_commr, SEALED_CID, err, sizeof err), CUZK_OK);
  assert_memory_equal(cid_commr, computed, 32);

  /* Swapping the inputs or using another tag must not verify (the check can fail). */
  assert_int_equal(cuzk_vanilla_comm_r_check(s->comm_r_last, s->comm_c, p->comm_r, NULL),
                   CUZK_ERR_VERIFY_FAILED);
  /* A wrong expected root, a flipped sibling and a wrong shape fail. */
  uint8_t bad_root[32];
  memcpy(bad_root, s->comm_r_last, 32);
  bad_root[0] ^= 1;
  assert_int_equal(
      cuzk_vanilla_merkle_verify(&s->proofs[0], &info->shape, bad_root, NULL, err, sizeof err),
      CUZK_ERR_VERIFY_FAILED);
  s->proofs[0].base.elems[3].hashes[2][0] ^= 1;
  assert_int_equal(cuzk_vanilla_merkle_verify(&s->proofs[0], &info->shape, s->comm_r_last, NULL,
                                              err, sizeof err),
                   CUZK_ERR_VERIFY_FAILED);
  s->proofs[0].base.elems[3].hashes[2][0] ^= 1;
  assert_int_equal(cuzk_vanilla_merkle_verify(&s->proofs[0], &cuzk_filecoin_post_info(9)->shape,
                                              NULL, NULL, err, sizeof err),
                   CUZK_ERR_BAD_VANILLA);
  assert_int_equal(cuzk_vanilla_merkle_verify(&s->proofs[0], &cuzk_filecoin_post_info(7)->shape,
                                              NULL, NULL, err, sizeof err),
                   CUZK_ERR_BAD_VANILLA);
  cuzk_vanilla_post_free(v);
}

static int typed(cuzk_err_t e) {
  return e == CUZK_ERR_BAD_VANILLA || e == CUZK_ERR_TRUNCATED || e == CUZK_ERR_TOO_LARGE;
}

static void test_truncations(void **state) {
  (void)state;
  if (!g_buf) skip();
  char err[256];
  for (size_t n = 0; n < g_len; n++) {
    cuzk_vanilla_post_t *v = (cuzk_vanilla_post_t *)1;
    cuzk_err_t e = cuzk_vanilla_post_decode(&v, g_buf, n, err, sizeof err);
    if (!typed(e)) fail_msg("length %zu: %s", n, cuzk_err_name(e));
    assert_null(v);
  }
  /* One trailing byte. */
  uint8_t *big = malloc(g_len + 1);
  memcpy(big, g_buf, g_len);
  big[g_len] = 0;
  cuzk_vanilla_post_t *v;
  assert_int_equal(cuzk_vanilla_post_decode(&v, big, g_len + 1, err, sizeof err),
                   CUZK_ERR_BAD_VANILLA);
  assert_non_null(strstr(err, "trailing"));
  free(big);
}

static void test_bit_flips(void **state) {
  (void)state;
  if (!g_buf) skip();
  uint64_t seed = cuzk_test_seed();
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, seed);
  uint8_t *b = malloc(g_len);
  char err[256];
  size_t ok = 0;
  /* Layout of the vector: sector_id 0..8, comm_r 8..40, two counts, then ten 2484-byte
   * MerkleProofs from offset 56, then comm_c and comm_r_last. */
  const size_t first = 56, each = 2484;
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(8);
  for (int it = 0; it < 1000; it++) {
    memcpy(b, g_buf, g_len);
    int flips = 1 + (int)(cuzk_test_rng_next(&rng) % 3);
    size_t pos[3];
    for (int f = 0; f < flips; f++) {
      pos[f] = cuzk_test_rng_next(&rng) % g_len;
      b[pos[f]] ^= (uint8_t)(1u << (cuzk_test_rng_next(&rng) % 8));
    }
    cuzk_vanilla_post_t *v = NULL;
    cuzk_err_t e = cuzk_vanilla_post_decode(&v, b, g_len, err, sizeof err);
    if (e == CUZK_OK) {
      ok++;
      /* A decoded change past sector_id must be caught by verification: the comm_r check
       * covers comm_r, comm_c and comm_r_last; each proof covers its own bytes. */
      const cuzk_post_sector_proof_t *p = &v->items[0];
      const cuzk_sector_proof_t *s = &p->sectors[0];
      int caught = cuzk_vanilla_comm_r_check(s->comm_c, s->comm_r_last, p->comm_r, NULL) != CUZK_OK;
      for (int f = 0; f < flips && !caught; f++) {
        if (pos[f] < first || pos[f] >= first + 10 * each || b[pos[f]] == g_buf[pos[f]]) continue;
        size_t k = (pos[f] - first) / each;
        caught = cuzk_vanilla_merkle_verify(&s->proofs[k], &info->shape, s->comm_r_last, NULL, err,
                                            sizeof err) != CUZK_OK;
      }
      if (!caught && memcmp(b + 8, g_buf + 8, g_len - 8) != 0)
        fail_msg("a modified proof verified (iteration %d)", it);
      cuzk_vanilla_post_free(v);
    } else if (!typed(e)) {
      fail_msg("iteration %d: %s (%s)", it, cuzk_err_name(e), err);
    }
  }
  fprintf(stderr, "bit flips: %zu of 1000 still decoded (all rejected by verification)\n", ok);
  free(b);
}

static void test_vec_and_limits(void **state) {
  (void)state;
  char err[256];
  cuzk_vanilla_post_t *v;
  /* Empty Vec. */
  uint8_t zero[8] = {0};
  assert_int_equal(cuzk_vanilla_post_decode_vec(&v, zero, 8, err, sizeof err), CUZK_OK);
  assert_int_equal(v->n_items, 0);
  cuzk_vanilla_post_free(v);
  /* A huge declared count fails before allocating. */
  uint8_t huge[8];
  memset(huge, 0xff, 8);
  assert_int_equal(cuzk_vanilla_post_decode_vec(&v, huge, 8, err, sizeof err), CUZK_ERR_TOO_LARGE);
  assert_non_null(strstr(err, "offset 0"));
  if (!g_buf) return;
  /* A Vec of two copies of the real proof. */
  size_t n = 8 + 2 * g_len;
  uint8_t *b = malloc(n);
  memset(b, 0, 8);
  b[0] = 2;
  memcpy(b + 8, g_buf, g_len);
  memcpy(b + 8 + g_len, g_buf, g_len);
  assert_int_equal(cuzk_vanilla_post_decode_vec(&v, b, n, err, sizeof err), CUZK_OK);
  assert_int_equal(v->n_items, 2);
  assert_int_equal(v->items[1].sectors[0].n_proofs, 10);
  cuzk_vanilla_post_free(v);
  /* A bad enum tag names its offset: the first MerkleProof tag is at 8 + 32 + 8 + 8 = 56. */
  memcpy(b, g_buf, g_len);
  b[56] = 3;
  assert_int_equal(cuzk_vanilla_post_decode(&v, b, g_len, err, sizeof err), CUZK_ERR_BAD_VANILLA);
  assert_non_null(strstr(err, "offset 56"));
  /* A non-canonical comm_r. */
  memcpy(b, g_buf, g_len);
  memset(b + 8, 0xff, 32);
  assert_int_equal(cuzk_vanilla_post_decode(&v, b, g_len, err, sizeof err), CUZK_ERR_BAD_VANILLA);
  assert_non_null(strstr(err, "comm_r"));
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_window_post),
      cmocka_unit_test(test_truncations),
      cmocka_unit_test(test_bit_flips),
      cmocka_unit_test(test_vec_and_limits),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
