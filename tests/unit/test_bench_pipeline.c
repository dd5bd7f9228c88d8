/* `cuzk bench pipeline --json` (agent/bench_pipeline.c): one JSON object with every key; the
 * counts add up (jobs × partitions pinned checkouts, none falling back), ratios are in range. */
#include <stdlib.h>
#include <string.h>

#include "tests/support/testlib.h"

static double key(const char *out, const char *k) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", k);
  const char *at = strstr(out, pat);
  if (!at) fail_msg("key %s missing", k);
  char *end;
  double v = strtod(at + strlen(pat), &end);
  if (end == at + strlen(pat)) fail_msg("key %s is not a number", k);
  return v;
}

static void test_bench_pipeline_json(void **state) {
  (void)state;
  const char *bin = getenv("CUZK_BIN");
  if (!bin) {
    fprintf(stderr, "SKIP: CUZK_BIN is not set (run under ctest)\n");
    skip();
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' bench pipeline --backend cpu --type synthetic --log-n 8 --jobs 3 --partitions 2 --json 2>/dev/null", bin);
  int st = -1;
  char *out = cuzk_test_run_cmd(cmd, "", &st);
  assert_non_null(out);
  fprintf(stderr, "%s", out);
  assert_int_equal(st, 0);
  assert_int_equal(out[0], '{');
  char *nl = strchr(out, '\n');
  assert_non_null(nl);
  assert_int_equal(nl[-1], '}');
  assert_int_equal(nl[1], '\0');
  assert_true(strstr(out, "\"synthetic\":true") != NULL);
  assert_true(strstr(out, "\"verified\":true") != NULL);
  assert_true(key(out, "proofs_per_min") > 0);
  double ppm = key(out, "proofs_per_min"), parts = key(out, "partitions_per_min");
  assert_true(parts > 1.99 * ppm && parts < 2.01 * ppm);
  double busy = key(out, "gpu_busy_ratio");
  assert_true(busy > 0 && busy <= 1.0);
  assert_int_equal((int)key(out, "pinned_hits") + (int)key(out, "pinned_misses"), 6);
  assert_int_equal((int)key(out, "pinned_fallbacks"), 0);
  assert_true(key(out, "h2d_gb_per_s") == 0);
  assert_true(key(out, "budget_peak_bytes") <= key(out, "budget_bytes"));
  assert_true(key(out, "peak_rss_kib") > 0);
  static const char *phases[] = {"queue_wait", "synth", "gpu_wait", "gpu", "ntt", "msm_h", "msm_l",
                                 "msm_a", "msm_b_g1", "msm_b_g2", "finish", "total"};
  for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
    char k50[64], k99[64];
    snprintf(k50, sizeof k50, "%s_p50_ms", phases[i]);
    snprintf(k99, sizeof k99, "%s_p99_ms", phases[i]);
    assert_true(key(out, k50) <= key(out, k99));
  }
  assert_true(key(out, "gpu_p50_ms") > 0 && key(out, "total_p99_ms") >= key(out, "gpu_p50_ms"));
  key(out, "idle_gap_p50_ms"), key(out, "idle_gap_p99_ms"), key(out, "idle_gap_max_ms");
  free(out);
  snprintf(cmd, sizeof cmd, "'%s' bench pipeline --jobs 0 2>/dev/null", bin);
  out = cuzk_test_run_cmd(cmd, "", &st);
  assert_non_null(out);
  assert_int_equal(st, 2);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bench_pipeline_json)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
