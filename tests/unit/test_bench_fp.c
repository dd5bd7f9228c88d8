/* `cuzk bench fp --json --quick` (agent/bench_fp.c) prints one JSON object with every key and
 * a positive number for each. */
#include <stdlib.h>
#include <string.h>

#include "tests/support/testlib.h"

static void test_bench_fp_json(void **state) {
  (void)state;
  const char *bin = getenv("CUZK_BIN");
  if (!bin) {
    fprintf(stderr, "SKIP: CUZK_BIN is not set (run under ctest)\n");
    skip();
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' bench fp --json --quick", bin);
  int st = -1;
  char *out = cuzk_test_run_cmd(cmd, "", &st);
  assert_non_null(out);
  fprintf(stderr, "%s", out);
  assert_int_equal(st, 0);
  /* one line, one object */
  assert_int_equal(out[0], '{');
  char *nl = strchr(out, '\n');
  assert_non_null(nl);
  assert_int_equal(nl[-1], '}');
  assert_int_equal(nl[1], '\0');
  static const char *keys[] = {"fp_mul_ns",  "fp_sqr_ns",     "fp_inv_ns", "fr_mul_ns",
                               "g1_add_ns",  "g1_madd_ns",    "g1_dbl_ns", "g2_add_ns",
                               "pairing_ns", "g1_msm_2_16_ms"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", keys[i]);
    char *at = strstr(out, pat);
    if (!at) fail_msg("key %s missing", keys[i]);
    char *end;
    double v = strtod(at + strlen(pat), &end);
    assert_true(end != at + strlen(pat));
    if (!(v > 0)) fail_msg("key %s is not positive: %g", keys[i], v);
  }
  free(out);
  /* unknown options are usage errors */
  snprintf(cmd, sizeof cmd, "'%s' bench fp --nope 2>/dev/null", bin);
  out = cuzk_test_run_cmd(cmd, "", &st);
  assert_non_null(out);
  assert_int_equal(st, 2);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bench_fp_json)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
