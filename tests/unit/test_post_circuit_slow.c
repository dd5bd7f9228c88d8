// cuzk-test: labels=unit;slow timeout=900
/* The 32GiB WindowPoSt partition circuit in COUNT mode (no matrices, no values): 125,279,217
 * constraints and 25,839 public inputs besides ONE (2349 sectors x (comm_r + 10 leaf indices)),
 * rust-fil-proofs' counts. Prints the time it took. */
#include "tests/support/testlib.h"

#include <stdio.h>
#include <time.h>

#include "core/circuits/post.h"

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_window_32g_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
