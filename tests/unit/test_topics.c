#include "tests/support/testlib.h"
#include "agent/kafka/topics.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* Kafka's rule for a legal topic name (org.apache.kafka.common.internals.Topic), checked with
 * POSIX regex rather than our own scanner. */
static bool kafka_legal(const char *name) {
  regex_t re;
  assert_int_equal(regcomp(&re, "^[a-zA-Z0-9._-]+$", REG_EXTENDED | REG_NOSUB), 0);
  bool ok = regexec(&re, name, 0, NULL, 0) == 0 && strlen(name) <= 249 && strcmp(name, ".") &&
            strcmp(name, "..");
  regfree(&re);
  return ok;
}

static void test_default_names(void **state) {
  (void)state;
  cuzk_topics_t t;
  char err[128];
  assert_int_equal(cuzk_topics_init(&t, NULL, err, sizeof err), CUZK_OK);
  const char *want[] = {"cuzk.jobs.winning-post", "cuzk.jobs.window-post",
                        "cuzk.jobs.snap-deals",   "cuzk.jobs.porep-c2",
                        "cuzk.results",           "cuzk.telemetry.partitions",
                        "cuzk.telemetry.agents",  "cuzk.jobs.dead-letter"};
  for (int i = 0; i < CUZK_TOPIC__COUNT; i++) {
    assert_string_equal(cuzk_topics_name(&t, (cuzk_topic_t)i), want[i]);
    cuzk_topic_t back;
    assert_true(cuzk_topics_lookup(&t, want[i], &back));
    assert_int_equal(back, i);
  }
  assert_null(cuzk_topics_name(&t, CUZK_TOPIC__COUNT));
  assert_null(cuzk_topics_name(&t, (cuzk_topic_t)-1));
  assert_null(cuzk_topics_suffix(CUZK_TOPIC__COUNT));
  cuzk_topic_t x;
  assert_false(cuzk_topics_lookup(&t, "cuzk.jobs", &x));
  assert_false(cuzk_topics_lookup(&t, "other.results", &x));
  assert_false(cuzk_topics_lookup(&t, NULL, &x));
}

static void test_proof_types(void **state) {
  (void)state;
  const char *names[] = {"winning-post", "window-post", "snap-deals", "porep-c2"};
  for (int i = 0; i < 4; i++) {
    cuzk_topic_t t;
    assert_true(cuzk_topics_for_proof_type(names[i], &t));
    assert_int_equal(t, i); /* same values as cuzk_proof_type_t */
    assert_true(cuzk_topics_is_job(t));
    assert_string_equal(cuzk_topics_proof_type(t), names[i]);
  }
  cuzk_topic_t t;
  assert_false(cuzk_topics_for_proof_type("synthetic", &t));
  assert_false(cuzk_topics_for_proof_type("dead-letter", &t));
  assert_false(cuzk_topics_for_proof_type("porep_c2", &t));
  assert_false(cuzk_topics_for_proof_type("", &t));
  assert_false(cuzk_topics_for_proof_type(NULL, &t));
  for (int i = 4; i < CUZK_TOPIC__COUNT; i++) {
    assert_false(cuzk_topics_is_job((cuzk_topic_t)i));
    assert_null(cuzk_topics_proof_type((cuzk_topic_t)i));
  }
  assert_null(cuzk_topics_proof_type(CUZK_TOPIC__COUNT));
}

static void test_prefixes(void **state) {
  (void)state;
  cuzk_topics_t t;
  char err[160];
  const char *good[] = {"cuzk", "prod.eu-1", "A_b-C.9", "x", "-", "."};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    assert_int_equal(cuzk_topics_init(&t, good[i], err, sizeof err), CUZK_OK);
    for (int k = 0; k < CUZK_TOPIC__COUNT; k++) {
      const char *n = cuzk_topics_name(&t, (cuzk_topic_t)k);
      assert_true(kafka_legal(n));
      assert_int_equal(strncmp(n, good[i], strlen(good[i])), 0);
    }
  }
  assert_string_equal(cuzk_topics_name(&t, CUZK_TOPIC_RESULTS), "..results");

  const char *bad[] = {"", "cu zk", "cuzk/x", "cuzk:1", "cüzk", "a\tb", "a,b", "a*"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err[0] = 0;
    assert_int_equal(cuzk_topics_init(&t, bad[i], err, sizeof err), CUZK_ERR_CONFIG);
    assert_true(strlen(err) > 0);
    assert_int_equal(t.names[0][0], 0);
  }
  assert_int_equal(cuzk_topics_validate_prefix(NULL, err, sizeof err), CUZK_ERR_CONFIG);
  assert_int_equal(cuzk_topics_validate_prefix("cu zk", err, sizeof err), CUZK_ERR_CONFIG);
  assert_non_null(strstr(err, "' ' at byte 2"));
  assert_int_equal(cuzk_topics_validate_prefix("cu\xc3\xbczk", err, sizeof err), CUZK_ERR_CONFIG);
  assert_non_null(strstr(err, "0xc3"));

  /* length: the longest topic is exactly Kafka's limit at the longest accepted prefix */
  char p[CUZK_TOPICS_PREFIX_MAX + 2];
  memset(p, 'p', sizeof p);
  p[CUZK_TOPICS_PREFIX_MAX] = 0;
  assert_int_equal(cuzk_topics_init(&t, p, err, sizeof err), CUZK_OK);
  size_t longest = 0;
  for (int k = 0; k < CUZK_TOPIC__COUNT; k++) {
    size_t n = strlen(cuzk_topics_name(&t, (cuzk_topic_t)k));
    if (n > longest) longest = n;
    assert_true(kafka_legal(cuzk_topics_name(&t, (cuzk_topic_t)k)));
  }
  assert_int_equal(longest, 249);
  p[CUZK_TOPICS_PREFIX_MAX] = 'p';
  p[CUZK_TOPICS_PREFIX_MAX + 1] = 0;
  assert_int_equal(cuzk_topics_init(&t, p, err, sizeof err), CUZK_ERR_CONFIG);
  assert_non_null(strstr(err, "228"));
}

/* ops/kafka/topics --cuzk creates the same suffixes on the test broker. */
static void test_ops_script_agrees(void **state) {
  (void)state;
  const char *src = getenv("CUZK_SOURCE_DIR");
  if (!src) {
    fprintf(stderr, "SKIP part: CUZK_SOURCE_DIR unset\n");
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/ops/kafka/topics", src);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char text[16384];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  for (int k = 0; k < CUZK_TOPIC__COUNT; k++) {
    char word[64];
    snprintf(word, sizeof word, " %s", cuzk_topics_suffix((cuzk_topic_t)k));
    assert_non_null(strstr(text, word));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_names),
      cmocka_unit_test(test_proof_types),
      cmocka_unit_test(test_prefixes),
      cmocka_unit_test(test_ops_script_agrees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
