// cuzk-test: labels=unit;slow timeout=900
/* The 32GiB WindowPoSt partition circuit in COUNT mode (no matrices, no values): 125,279,217
 * constraints and 25,839 public inputs besides ONE (2349 sectors x (comm_r + 10 leaf indices)),
 * rust-fil-proofs' counts. Prints the time it took.
 * Then the real 32GiB sector (../shared/vectors/filecoin) through the whole partition in WITNESS
 * mode, padded to 2349 sectors as the prover pads: the witness has the COUNT mode's shape and
 * the public inputs are comm_r and the derived leaf indices, repeated 2349 times (about 4 GiB of
 * aux values, about a minute). Satisfiability is checked per sector in test_post_circuit. */
#include "tests/support/testlib.h"

#include <stdio.h>
#include <time.h>

#include "core/circuits/post.h"
#include "core/ff/fr.h"
#include "core/filecoin/vanilla.h"
#include "core/util/file.h"

#include <stdlib.h>

static void test_window_32g_count(void **state) {
  (void)state;
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(13);
  assert_non_null(info);
  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_COUNT, err, sizeof err);
  assert_non_null(cs);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (cuzk_post_circuit_build(cs, info, NULL, err, sizeof err) != CUZK_OK) fail_msg("%s", err);
  clock_gettime(CLOCK_MONOTONIC, &b);
  fprintf(stderr, "window-post-32g COUNT: %llu constraints, %llu inputs, %llu aux in %.2f s\n",
          (unsigned long long)cuzk_cs_num_constraints(cs),
          (unsigned long long)cuzk_cs_num_inputs(cs), (unsigned long long)cuzk_cs_num_aux(cs),
          (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
  assert_int_equal(cuzk_cs_num_constraints(cs), 125279217);
  assert_int_equal(cuzk_cs_num_inputs(cs), 25839 + 1);
  cuzk_cs_free(cs);
}

static void test_window_32g_real_witness(void **state) {
  (void)state;
  char path[4096];
  if (!cuzk_test_vector_path(path, sizeof path, "filecoin/window-post-32g-sector1.vproof")) {
    skip();
    return;
  }
  uint8_t *buf;
  size_t len;
  char err[256];
  assert_int_equal(cuzk_file_read(path, 1 << 20, &buf, &len, err, sizeof err), CUZK_OK);
  cuzk_vanilla_post_t *v;
  if (cuzk_vanilla_post_decode(&v, buf, len, err, sizeof err) != CUZK_OK) fail_msg("%s", err);
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(13);
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_WITNESS, err, sizeof err);
  assert_non_null(cs);
  cuzk_cs_reserve(cs, 25840, 126902376, 0, 0);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (cuzk_post_circuit_build(cs, info, v, err, sizeof err) != CUZK_OK) fail_msg("%s", err);
  clock_gettime(CLOCK_MONOTONIC, &b);
  fprintf(stderr, "window-post-32g WITNESS (real sector, padded): %llu aux in %.2f s\n",
          (unsigned long long)cuzk_cs_num_aux(cs),
          (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
  assert_int_equal(cuzk_cs_num_constraints(cs), 125279217);
  assert_int_equal(cuzk_cs_num_aux(cs), 126902376);
  uint64_t n, ch[10];
  const cuzk_fr_t *in = cuzk_cs_inputs(cs, &n);
  assert_int_equal(n, 25840);
  cuzk_fr_t comm_r, want;
  assert_int_equal(cuzk_fr_from_le(&comm_r, v->items[0].comm_r), CUZK_OK);
  uint8_t rnd[32] = {0};
  cuzk_filecoin_sector_challenges(ch, info, rnd, v->items[0].sector_id, 0);
  for (uint64_t s = 0; s < 2349; s++) {
    assert_true(cuzk_fr_eq(&in[1 + 11 * s], &comm_r));
    for (int c = 0; c < 10; c++) {
      cuzk_fr_from_u64(&want, ch[c]);
      assert_true(cuzk_fr_eq(&in[2 + 11 * s + (uint64_t)c], &want));
    }
  }
  cuzk_cs_free(cs);
  cuzk_vanilla_post_free(v);
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_window_32g_count),
      cmocka_unit_test(test_window_32g_real_witness),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
