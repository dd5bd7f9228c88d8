/* agent/http/families.c: the agent's metric families and the librdkafka statistics lag parser.
 *
 * tests/unit/data/kafka_stats_consumer.json is one stats_cb document of a real librdkafka 2.0.2
 * consumer (group member, subscribed to two topics on the mock cluster), recorded with
 * tests/unit/data/record_kafka_stats.c. It produced 10 + 5 messages to cuzk.jobs.porep-c2
 * partitions 0 and 1 and 3 to cuzk.jobs.snap-deals, committed offsets 4, 5 and 1 and stored
 * offset 7 on porep-c2/0, so by construction the lags are 6, 0 and 2 and porep-c2/0's
 * stored lag is 3. */
#include "tests/support/testlib.h"
#include "agent/http/families.h"

#include <stdlib.h>
#include <string.h>

static char *read_sample(size_t *len) {
  char path[1024];
  const char *src = getenv("CUZK_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/tests/unit/data/kafka_stats_consumer.json", src ? src : ".");
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void test_parse_recorded_sample(void **state) {
  (void)state;
  size_t len;
  char *json = read_sample(&len);
  cuzk_kafka_lag_t *lags;
  size_t n;
  assert_int_equal(cuzk_kafka_stats_parse_lag(json, len, &lags, &n), CUZK_OK);
  assert_int_equal(n, 3);
  assert_string_equal(lags[0].topic, "cuzk.jobs.porep-c2");
  assert_int_equal(lags[0].partition, 0);
  assert_int_equal(lags[0].lag, 6);
  assert_int_equal(lags[0].lag_stored, 3);
  assert_string_equal(lags[1].topic, "cuzk.jobs.porep-c2");
  assert_int_equal(lags[1].partition, 1);
  assert_int_equal(lags[1].lag, 0);
  assert_string_equal(lags[2].topic, "cuzk.jobs.snap-deals");
  assert_int_equal(lags[2].partition, 0);
  assert_int_equal(lags[2].lag, 2);
  cuzk_kafka_lag_free(lags, n);

  /* Every strict prefix is malformed JSON: a typed error, never a crash. */
  for (size_t cut = 0; cut < len; cut += 97) {
    assert_int_equal(cuzk_kafka_stats_parse_lag(json, cut, &lags, &n), CUZK_ERR_PARSE);
    assert_null(lags);
    assert_int_equal(n, 0);
  }
  free(json);
}

static void test_parse_edge_cases(void **state) {
  (void)state;
  cuzk_kafka_lag_t *lags;
  size_t n;
  struct {
    const char *json;
    cuzk_err_t err;
    size_t n;
  } cases[] = {
      {"{}", CUZK_OK, 0},
      {"{\"topics\":{}}", CUZK_OK, 0},
      {"[]", CUZK_ERR_PARSE, 0},
      {"{\"topics\":[]}", CUZK_ERR_PARSE, 0},
      {"{\"topics\":{\"t\":5}}", CUZK_ERR_PARSE, 0},
      {"{\"topics\":{\"t\":{\"partitions\":{\"0\":{\"partition\":\"0\",\"consumer_lag\":1}}}}}",
       CUZK_ERR_PARSE, 0},
      {"{\"topics\":{\"t\":{\"partitions\":{\"0\":{\"partition\":0,\"consumer_lag\":1.5}}}}}",
       CUZK_ERR_PARSE, 0},
      {"{\"topics\":{\"t\":{\"partitions\":{\"0\":{\"partition\":-7,\"consumer_lag\":1}}}}}",
       CUZK_ERR_PARSE, 0},
      {"{\"topics\":{\"t\":{\"partitions\":{\"0\":{\"partition\":0,\"consumer_lag\":-1},"
       "\"-1\":{\"partition\":-1,\"consumer_lag\":4},"
       "\"2\":{\"partition\":2,\"consumer_lag\":9007199254740993}}}}}",
       CUZK_OK, 1},
      {"{\"topics\":{\"t\":{}},\"topics\":{}}", CUZK_ERR_PARSE, 0}, /* duplicate key */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cuzk_err_t err = cuzk_kafka_stats_parse_lag(cases[i].json, strlen(cases[i].json), &lags, &n);
    if (err != cases[i].err) fail_msg("case %zu: %s", i, cases[i].json);
    assert_int_equal(n, cases[i].n);
    if (n == 1) {
      assert_int_equal(lags[0].partition, 2);
      assert_int_equal(lags[0].lag, 9007199254740993LL);
      assert_int_equal(lags[0].lag_stored, -1);
    }
    cuzk_kafka_lag_free(lags, n);
  }
  assert_int_equal(cuzk_kafka_stats_parse_lag(NULL, 0, &lags, &n), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_kafka_stats_parse_lag("{}", (size_t)17 << 20, &lags, &n),
                   CUZK_ERR_TOO_LARGE);
}

static void test_families_register_and_render(void **state) {
  (void)state;
  cuzk_metrics_t *reg = cuzk_metrics_new();
  cuzk_families_t f;
  assert_int_equal(cuzk_families_init(&f, reg, "gpu-host-1"), CUZK_OK);
  /* every pointer set */
  for (cuzk_metric_family_t **p = &f.agent_info; p <= &f.srs_resident_bytes; p++)
    assert_non_null(*p);
  /* a second init on the same registry collides */
  cuzk_families_t f2;
  assert_int_equal(cuzk_families_init(&f2, reg, "x"), CUZK_ERR_INVALID_ARG);

  size_t len;
  char *json = read_sample(&len);
  assert_int_equal(cuzk_families_apply_kafka_stats(&f, json, len), CUZK_OK);
  assert_int_equal(cuzk_families_apply_kafka_stats(&f, "{", 1), CUZK_ERR_PARSE);
  free(json);
  cuzk_metrics_observe(
      cuzk_metrics_with(f.phase_seconds, (const char *[]){"porep-c2", CUZK_PHASE_GPU}), 42);

  char *text;
  assert_int_equal(cuzk_metrics_render(reg, &text, &len), CUZK_OK);
  const char *want[] = {
      "# TYPE cuzk_jobs_total counter\n",
      "# TYPE cuzk_phase_duration_seconds histogram\n",
      "cuzk_kafka_consumer_lag_messages{topic=\"cuzk.jobs.porep-c2\",partition=\"0\"} 6\n"
      "cuzk_kafka_consumer_lag_messages{topic=\"cuzk.jobs.porep-c2\",partition=\"1\"} 0\n"
      "cuzk_kafka_consumer_lag_messages{topic=\"cuzk.jobs.snap-deals\",partition=\"0\"} 2\n",
      "cuzk_phase_duration_seconds_bucket{type=\"porep-c2\",phase=\"gpu\",le=\"25\"} 0\n"
      "cuzk_phase_duration_seconds_bucket{type=\"porep-c2\",phase=\"gpu\",le=\"50\"} 1\n",
      ",agent=\"gpu-host-1\"} 1\n",
      "# TYPE cuzk_gpu_busy_ratio gauge\n",
      "# TYPE cuzk_pinned_pool_fallbacks_total counter\n",
      "# TYPE cuzk_srs_resident_bytes gauge\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(text, want[i])) fail_msg("missing: %s", want[i]);
  free(text);
  cuzk_metrics_free(reg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_recorded_sample),
      cmocka_unit_test(test_parse_edge_cases),
      cmocka_unit_test(test_families_register_and_render),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
