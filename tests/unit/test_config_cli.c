/* `cuzk agent` configuration flags, run as a separate process ($CUZK_BIN): exit codes, where
 * errors go, and that ops/cuzk.example.cfg is exactly what --print-defaults prints. */
#include "tests/support/testlib.h"

#include <libconfig.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_src[PATH_MAX];
static const char *g_bin;

/* Runs `$CUZK_BIN agent <args>` (with `envs` prepended as VAR=value words); returns stdout
 * (malloc'd), stores the exit code and stderr (malloc'd) when asked. */
static char *run_agent(const char *envs, const char *args, int *rc, char **err) {
  char errpath[] = "/tmp/cuzk-cli-err-XXXXXX";
  int fd = mkstemp(errpath);
  assert_true(fd >= 0);
  close(fd);
  char cmd[4 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "env %s '%s' agent %s 2>'%s'", envs ? envs : "", g_bin, args, errpath);
  char *out = cuzk_test_run_cmd(cmd, "", rc);
  assert_non_null(out);
  if (err) {
    FILE *f = fopen(errpath, "r");
    assert_non_null(f);
    size_t cap = 1 << 16, n = fread(*err = calloc(1, cap + 1), 1, cap, f);
    (*err)[n] = '\0';
    fclose(f);
  }
  unlink(errpath);
  return out;
}

static const char *fx(const char *name) {
  static char buf[2][PATH_MAX + 64];
  static int i;
  i ^= 1;
  snprintf(buf[i], sizeof buf[i], "%s/tests/data/config/%s", g_src, name);
  return buf[i];
}

static void test_check_good_and_bad(void **state) {
  (void)state;
  int rc = -1;
  char *err = NULL, args[PATH_MAX + 128], want[PATH_MAX + 128];
  snprintf(args, sizeof args, "--check-config '%s'", fx("good.cfg"));
  char *out = run_agent(NULL, args, &rc, &err);
  assert_int_equal(rc, 0);
  snprintf(want, sizeof want, "ok: %s\n", fx("good.cfg"));
  assert_string_equal(out, want);
  assert_string_equal(err, "");
  free(out);
  free(err);

  snprintf(args, sizeof args, "--check-config '%s'", fx("unknown_key.cfg"));
  out = run_agent(NULL, args, &rc, &err);
  assert_int_equal(rc, 2);
  assert_string_equal(out, "");
  snprintf(want, sizeof want, "%s:5: unknown key 'engine.gpu_worker_per_device'",
           fx("unknown_key.cfg"));
  if (!strstr(err, want)) fail_msg("stderr lacks \"%s\":\n%s", want, err);
  snprintf(want, sizeof want, "%s:9: unknown key 'agent2'", fx("unknown_key.cfg"));
  assert_non_null(strstr(err, want));
  free(out);
  free(err);

  snprintf(args, sizeof args, "--check-config '%s'", fx("kafka_props.cfg"));
  out = run_agent(NULL, args, &rc, &err);
  assert_int_equal(rc, 2);
  snprintf(want, sizeof want, "%s:5: kafka.properties: librdkafka refuses", fx("kafka_props.cfg"));
  assert_non_null(strstr(err, want));
  free(out);
  free(err);

  /* environment errors name the variable, and they count for --check-config */
  snprintf(args, sizeof args, "--check-config '%s'", fx("good.cfg"));
  out = run_agent("CUZK_ENGINE_MEMORY_BUDGET=lots", args, &rc, &err);
  assert_int_equal(rc, 2);
  assert_non_null(strstr(err, "env CUZK_ENGINE_MEMORY_BUDGET: engine.memory_budget: invalid size"));
  free(out);
  free(err);

  out = run_agent(NULL, "--check-config /nonexistent/cuzk.cfg", &rc, &err);
  assert_int_equal(rc, 2);
  assert_non_null(strstr(err, "/nonexistent/cuzk.cfg: cannot open"));
  free(out);
  free(err);
}

static void test_run_is_honest(void **state) {
  (void)state;
  int rc = -1;
  char *err = NULL, args[PATH_MAX + 64];
  snprintf(args, sizeof args, "--config '%s'", fx("good.cfg"));
  /* the agent really starts: the engine refuses an unwritable timeline file (exit 1) */
  char *out = run_agent("CUZK_ENGINE_TIMELINE_FILE=/nonexistent-dir/timeline.log", args, &rc, &err);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(err, "cuzk agent: engine:"));
  assert_non_null(strstr(err, "/nonexistent-dir/timeline.log"));
  free(out);
  free(err);
  snprintf(args, sizeof args, "--config '%s'", fx("out_of_range.cfg"));
  out = run_agent(NULL, args, &rc, &err);
  assert_int_equal(rc, 2); /* a bad config is reported before anything else */
  assert_non_null(strstr(err, "out_of_range.cfg:2: agent.status_interval_s"));
  free(out);
  free(err);
}

static void test_usage(void **state) {
  (void)state;
  int rc = -1;
  char *err = NULL;
  char *out = run_agent(NULL, "--help", &rc, NULL);
  assert_int_equal(rc, 0);
  static const char *const words[] = {
      "--config",         "--check-config", "--print-config",     "--origins",
      "--print-defaults", "Exit codes",     "CUZK_KAFKA_BROKERS", "SIGHUP"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (!strstr(out, words[i])) fail_msg("--help lacks %s", words[i]);
  free(out);
  out = run_agent(NULL, "--bogus", &rc, &err);
  assert_int_equal(rc, 2);
  assert_non_null(strstr(err, "unknown option '--bogus'"));
  free(out);
  free(err);
  out = run_agent(NULL, "--check-config", &rc, &err);
  assert_int_equal(rc, 2);
  free(out);
  free(err);
  out = run_agent(NULL, "--print-config --print-defaults", &rc, &err);
  assert_int_equal(rc, 2);
  free(out);
  free(err);
}

static void test_print_config(void **state) {
  (void)state;
  int rc = -1;
  char *err = NULL, args[PATH_MAX + 64];
  snprintf(args, sizeof args, "--print-config --origins --config '%s'", fx("good.cfg"));
  char *out = run_agent("CUZK_AGENT_LOG_LEVEL=error", args, &rc, &err);
  assert_int_equal(rc, 0);
  assert_string_equal(err, "");
  assert_non_null(strstr(out, "# set at env CUZK_AGENT_LOG_LEVEL\n  log_level = \"error\";"));
  config_t lc;
  config_init(&lc);
  if (config_read_string(&lc, out) != CONFIG_TRUE)
    fail_msg("libconfig cannot read --print-config output: line %d: %s", config_error_line(&lc),
             config_error_text(&lc));
  const char *s = NULL;
  assert_int_equal(config_lookup_string(&lc, "agent.log_level", &s), CONFIG_TRUE);
  assert_string_equal(s, "error");
  assert_int_equal(config_lookup_string(&lc, "engine.memory_budget", &s), CONFIG_TRUE);
  assert_string_equal(s, "96GiB");
  config_destroy(&lc);
  free(out);
  free(err);
}

static void test_example_is_print_defaults(void **state) {
  (void)state;
  int rc = -1;
  char *out = run_agent(NULL, "--print-defaults", &rc, NULL);
  assert_int_equal(rc, 0);
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/ops/cuzk.example.cfg", g_src);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char ex[1 << 17];
  size_t n = fread(ex, 1, sizeof ex - 1, f);
  fclose(f);
  ex[n] = '\0';
  size_t lo = strlen(out);
  assert_true(n > lo);
  if (strcmp(ex + n - lo, out) != 0)
    fail_msg(
        "ops/cuzk.example.cfg is stale: regenerate its body with `cuzk agent "
        "--print-defaults` (keep the header)");
  free(out);
}

int main(void) {
  const char *src = getenv("CUZK_SOURCE_DIR");
  g_bin = getenv("CUZK_BIN");
  if (!src || !g_bin) {
    fprintf(stderr, "SKIP: CUZK_SOURCE_DIR or CUZK_BIN is not set (run under ctest)\n");
    return CUZK_TEST_SKIP;
  }
  if (!realpath(src, g_src)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check_good_and_bad),
      cmocka_unit_test(test_run_is_honest),
      cmocka_unit_test(test_usage),
      cmocka_unit_test(test_print_config),
      cmocka_unit_test(test_example_is_print_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
