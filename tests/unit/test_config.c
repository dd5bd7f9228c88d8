/* agent/config.{h,c}: the key table, file loading and its errors, environment overrides, printing
 * and SIGHUP reload. Fixtures live in tests/data/config/. libconfig itself serves as the
 * independent parser for round trips and for checking ops/cuzk.example.cfg. */
#include "tests/support/testlib.h"
#include "agent/config.h"

#include <libconfig.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_src[PATH_MAX];

static const char *fixture(const char *name) {
  static char buf[4][PATH_MAX + 64];
  static int i;
  i = (i + 1) % 4;
  snprintf(buf[i], sizeof buf[i], "%s/tests/data/config/%s", g_src, name);
  return buf[i];
}

static cuzk_config_t *load_ok(const char *path, const char *const *env) {
  cuzk_config_t *cfg = NULL;
  char err[8192] = "";
  cuzk_err_t e = cuzk_config_load(&cfg, path, env, err, sizeof err);
  if (e != CUZK_OK) fprintf(stderr, "unexpected errors:\n%s\n", err);
  assert_int_equal(e, CUZK_OK);
  assert_non_null(cfg);
  return cfg;
}

/* Loads `path` expecting failure; returns the error text (static). */
static const char *load_fail(const char *path, const char *const *env) {
  static char err[16384];
  cuzk_config_t *cfg = (cuzk_config_t *)1;
  err[0] = '\0';
  assert_int_equal(cuzk_config_load(&cfg, path, env, err, sizeof err), CUZK_ERR_CONFIG);
  assert_null(cfg);
  return err;
}

/* The error text holds a line that starts with "<file>:<line>: " and contains `needle`. */
static void expect_line(const char *errs, const char *file, int line, const char *needle) {
  char prefix[PATH_MAX + 32];
  if (line > 0)
    snprintf(prefix, sizeof prefix, "%s:%d: ", file, line);
  else
    snprintf(prefix, sizeof prefix, "%s: ", file);
  const char *p = errs;
  while (p && *p) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char one[4096];
    snprintf(one, sizeof one, "%.*s", (int)len, p);
    if (strncmp(one, prefix, strlen(prefix)) == 0 && strstr(one, needle)) return;
    p = e ? e + 1 : NULL;
  }
  fail_msg("no error line \"%s...%s\" in:\n%s", prefix, needle, errs);
}

static int count_lines(const char *s) {
  int n = *s ? 1 : 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* ---- size strings ------------------------------------------------------------------------ */

static void test_size_parse(void **state) {
  (void)state;
  static const struct {
    const char *s;
    uint64_t v;
  } good[] = {
      {"0", 0},
      {"123", 123},
      {"1B", 1},
      {"1KiB", 1024},
      {"64MiB", 67108864},
      {"96GiB", 103079215104ull},
      {"2TiB", 2199023255552ull},
      {"1KB", 1000},
      {"500MB", 500000000},
      {"3GB", 3000000000ull},
      {"1TB", 1000000000000ull},
      {"1.5GiB", 1610612736},
      {"0.5KiB", 512},
      {"8 GiB", 8589934592ull},
      {"18446744073709551615", UINT64_MAX},
      {"16777215TiB", 16777215ull << 40},
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    uint64_t v = 1;
    char err[256];
    assert_int_equal(cuzk_config_parse_size(good[i].s, &v, err, sizeof err), CUZK_OK);
    assert_true(v == good[i].v);
  }
  static const char *const bad[] = {
      "",
      " ",
      "G",
      "96G",
      "96g",
      "96gib",
      "96GIB",
      "96Gb",
      "96 GiB ",
      "-1",
      "+1",
      "1e9",
      "1.",
      ".5GiB",
      "1.5",
      "1.3B",
      "0x10",
      "1,5GiB",
      "1 2",
      "18446744073709551616",
      "16777216TiB",
      "99999999999999999999999",
      "1.0000000001KiB",
      "1KiB5",
      "GiB1",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t v = 7;
    char err[256] = "";
    if (cuzk_config_parse_size(bad[i], &v, err, sizeof err) == CUZK_OK)
      fail_msg("size \"%s\" was accepted as %llu", bad[i], (unsigned long long)v);
    assert_true(strlen(err) > 0);
    assert_true(v == 7);
  }
}

static void test_size_format_roundtrip(void **state) {
  (void)state;
  char buf[64];
  cuzk_config_format_size(0, buf, sizeof buf);
  assert_string_equal(buf, "0");
  cuzk_config_format_size(1000, buf, sizeof buf);
  assert_string_equal(buf, "1000");
  cuzk_config_format_size(64ull << 20, buf, sizeof buf);
  assert_string_equal(buf, "64MiB");
  cuzk_config_format_size(1536ull << 30, buf, sizeof buf);
  assert_string_equal(buf, "1536GiB");
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  for (int i = 0; i < 2000; i++) {
    uint64_t v = cuzk_test_rng_next(&r) >> (cuzk_test_rng_next(&r) % 64);
    if (i % 3 == 0) v &= ~((1ull << (10 * (1 + i % 4))) - 1);
    cuzk_config_format_size(v, buf, sizeof buf);
    uint64_t back;
    assert_int_equal(cuzk_config_parse_size(buf, &back, NULL, 0), CUZK_OK);
    assert_true(back == v);
  }
}

/* ---- the key table ----------------------------------------------------------------------- */

static void test_key_table(void **state) {
  (void)state;
  size_t n = cuzk_config_key_count();
  assert_true(n >= 40);
  assert_null(cuzk_config_key(n));
  for (size_t i = 0; i < n; i++) {
    const cuzk_config_key_info_t *k = cuzk_config_key(i);
    assert_non_null(k);
    assert_true(strncmp(k->path, "agent.", 6) == 0 || strncmp(k->path, "kafka.", 6) == 0 ||
                strncmp(k->path, "engine.", 7) == 0);
    assert_true(strlen(k->doc) > 10);
    assert_true(strlen(k->default_text) > 0);
    assert_true(strncmp(k->env, "CUZK_", 5) == 0);
    for (size_t j = 0; j < i; j++) {
      const cuzk_config_key_info_t *o = cuzk_config_key(j);
      assert_true(strcmp(k->path, o->path) != 0);
      assert_true(strcmp(k->env, o->env) != 0); /* env names must not collide */
    }
  }
  /* the C enums follow the allowed strings */
  cuzk_config_t *d = cuzk_config_new_defaults();
  assert_non_null(d);
  assert_int_equal(d->agent.log_level, CUZK_LOG_INFO);
  assert_int_equal(d->agent.log_format, CUZK_LOG_FORMAT_LOGFMT);
  assert_int_equal(d->kafka.framing, CUZK_FRAMING_SINGLE_OBJECT);
  assert_int_equal(d->kafka.assignor, CUZK_ASSIGNOR_RANGE);
  assert_int_equal(d->engine.verify_proofs, CUZK_VERIFY_ALWAYS);
  assert_int_equal(d->kafka.enabled_types, CUZK_CONFIG_TYPESET_ALL);
  assert_string_equal(cuzk_config_proof_type_name(CUZK_CONFIG_TYPE_POREP_C2), "porep-c2");
  assert_null(cuzk_config_proof_type_name(CUZK_CONFIG_TYPE__COUNT));
  cuzk_config_free(d);
  const char *env[] = {"CUZK_AGENT_LOG_LEVEL=error", "CUZK_ENGINE_VERIFY_PROOFS=never",
                       "CUZK_KAFKA_ASSIGNOR=roundrobin", NULL};
  cuzk_config_t *c = load_ok(NULL, env);
  assert_int_equal(c->agent.log_level, CUZK_LOG_ERROR);
  assert_int_equal(c->engine.verify_proofs, CUZK_VERIFY_NEVER);
  assert_int_equal(c->kafka.assignor, CUZK_ASSIGNOR_ROUNDROBIN);
  cuzk_config_free(c);
}

static void test_defaults(void **state) {
  (void)state;
  cuzk_config_t *d = cuzk_config_new_defaults();
  assert_non_null(d);
  char host[256];
  assert_int_equal(gethostname(host, sizeof host), 0);
  assert_string_equal(d->agent.id, host);
  assert_string_equal(d->agent.http_listen, "127.0.0.1:9464");
  assert_string_equal(d->agent.params_dir, "/var/lib/cuzk/params");
  assert_int_equal(d->agent.status_interval_s, 10);
  assert_int_equal(d->agent.shutdown_grace_s, 120);
  assert_false(d->agent.allow_insecure_params);
  assert_true(d->agent.max_job_bytes == 64ull << 20);
  assert_string_equal(d->kafka.brokers, "");
  assert_string_equal(d->kafka.topic_prefix, "cuzk");
  assert_string_equal(d->kafka.group_id, "cuzk-provers");
  assert_string_equal(d->kafka.group_instance_id, "");
  assert_true(d->kafka.poll_interval_ms <= 100);
  assert_false(d->kafka.transactional);
  assert_int_equal(d->kafka.properties.n, 0);
  assert_true(d->engine.memory_budget == 0); /* auto */
  assert_true(d->engine.safety_margin == 8ull << 30);
  assert_int_equal(d->engine.synthesis_workers, 0);
  assert_int_equal(d->engine.gpu_workers_per_device, 2);
  assert_int_equal(d->engine.devices.n, 0);
  assert_true(d->engine.srs.device_resident);
  assert_int_equal(d->engine.admission_reserve_critical, 1);
  assert_string_equal(cuzk_config_origin(d, "kafka.brokers"), "default");
  assert_null(cuzk_config_origin(d, "kafka.nope"));
  cuzk_config_t *e = load_ok(NULL, NULL);
  assert_null(cuzk_config_diff(d, e));
  cuzk_config_free(e);
  cuzk_config_free(d);
}

/* ---- the good file ----------------------------------------------------------------------- */

static void test_good_file(void **state) {
  (void)state;
  const char *path = fixture("good.cfg");
  cuzk_config_t *c = load_ok(path, NULL);
  assert_string_equal(c->agent.id, "prover-7");
  assert_int_equal(c->agent.log_level, CUZK_LOG_DEBUG);
  assert_int_equal(c->agent.log_format, CUZK_LOG_FORMAT_JSON);
  assert_string_equal(c->agent.http_listen, "[::1]:9500");
  assert_true(c->agent.max_job_bytes == 128ull << 20);
  assert_string_equal(c->kafka.brokers, "kafka-1:9092,kafka-2:9092");
  assert_string_equal(c->kafka.topic_prefix, "fil.cuzk");
  assert_int_equal(c->kafka.enabled_types,
                   (1u << CUZK_CONFIG_TYPE_POREP_C2) | (1u << CUZK_CONFIG_TYPE_SNAP_DEALS));
  assert_int_equal(c->kafka.framing, CUZK_FRAMING_CONFLUENT);
  assert_int_equal(c->kafka.confluent_schema_ids.proof_job, 0);
  assert_int_equal(c->kafka.confluent_schema_ids.dead_letter, 14);
  assert_true(c->kafka.max_message_bytes == 20000000);
  assert_int_equal(c->kafka.properties.n, 2);
  assert_string_equal(c->kafka.properties.name[1], "client.rack");
  assert_string_equal(c->kafka.properties.value[1], "eu-1a");
  assert_int_equal(c->kafka.producer_properties.n, 2);
  assert_string_equal(c->kafka.producer_properties.value[1], "lz4");
  assert_true(c->engine.memory_budget == 96ull << 30);
  assert_true(c->engine.safety_margin == 4ull << 30);
  assert_int_equal(c->engine.devices.n, 2);
  assert_int_equal(c->engine.devices.v[1], 1);
  assert_int_equal(c->engine.verify_proofs, CUZK_VERIFY_SAMPLE);
  assert_int_equal(c->engine.pinned_pool.prewarm_types, 1u << CUZK_CONFIG_TYPE_POREP_C2);
  assert_true(c->engine.pinned_pool.max_bytes == 1536ull << 30);
  assert_int_equal(c->engine.srs.preload.n, 2);
  assert_string_equal(c->engine.srs.preload.v[1], "snap-deals-32g");
  assert_false(c->engine.srs.device_resident);
  assert_string_equal(c->engine.timeline_file, "/var/log/cuzk/timeline.log");
  char where[PATH_MAX + 96];
  snprintf(where, sizeof where, "%s:22", path);
  assert_string_equal(cuzk_config_origin(c, "engine.memory_budget"), where);
  assert_string_equal(cuzk_config_origin(c, "engine.gpu_workers_per_device"), "default");
  assert_string_equal(c->source_path, path);
  uint64_t budget = 0;
  assert_int_equal(cuzk_config_memory_budget(c, "/nonexistent", &budget, NULL, 0), CUZK_OK);
  assert_true(budget == 96ull << 30);
  cuzk_config_free(c);
}

/* ---- error paths ------------------------------------------------------------------------- */

static void test_parse_errors(void **state) {
  (void)state;
  const char *p = fixture("parse_error.cfg");
  expect_line(load_fail(p, NULL), p, 3, "syntax error");
  p = fixture("duplicate.cfg");
  expect_line(load_fail(p, NULL), p, 3, "duplicate setting");
  p = fixture("mixed_array.cfg");
  expect_line(load_fail(p, NULL), p, 2, "array");
  p = fixture("no-such-file.cfg");
  expect_line(load_fail(p, NULL), p, 0, "cannot open");
  char err[512];
  cuzk_config_t *c = NULL;
  assert_int_equal(
      cuzk_config_load_string(&c, "agent = {\n log_level = ;\n};\n", NULL, err, sizeof err),
      CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 2, "syntax error");
}

static void test_unknown_keys(void **state) {
  (void)state;
  const char *p = fixture("unknown_key.cfg");
  const char *e = load_fail(p, NULL);
  expect_line(e, p, 5,
              "unknown key 'engine.gpu_worker_per_device' (did you mean "
              "'engine.gpu_workers_per_device'?)");
  expect_line(e, p, 6, "unknown key 'engine.foo'");
  expect_line(e, p, 9, "unknown key 'agent2' (did you mean 'agent'?)");
  assert_int_equal(count_lines(e), 3);
  char err[512];
  cuzk_config_t *c = NULL;
  assert_int_equal(
      cuzk_config_load_string(&c, "agent = { brokers = \"x\"; };\n", NULL, err, sizeof err),
      CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 1, "unknown key 'agent.brokers' (did you mean 'kafka.brokers'?)");
}

static void test_wrong_types(void **state) {
  (void)state;
  const char *p = fixture("wrong_type.cfg");
  const char *e = load_fail(p, NULL);
  expect_line(e, p, 3, "engine.gpu_workers_per_device: expected integer, got string");
  expect_line(e, p, 4, "engine.devices[1]: expected integer, got string");
  expect_line(e, p, 5, "engine.srs: expected group, got array");
  expect_line(e, p, 7, "agent.allow_insecure_params: expected boolean, got integer");
  expect_line(e, p, 7, "agent.status_interval_s: expected integer, got float");
  expect_line(e, p, 8, "kafka: expected group, got string");
}

static void test_out_of_range(void **state) {
  (void)state;
  const char *p = fixture("out_of_range.cfg");
  const char *e = load_fail(p, NULL);
  expect_line(e, p, 2, "agent.status_interval_s: 0 is out of range [1, 3600]");
  expect_line(e, p, 3, "agent.shutdown_grace_s: -1 is out of range");
  expect_line(e, p, 6, "kafka.poll_interval_ms: 101 is out of range [1, 100]");
  expect_line(e, p, 7, "kafka.max_message_bytes: 2GiB is out of range");
  expect_line(e, p, 9, "engine.devices: 64 is out of range [0, 63]");
  expect_line(e, p, 9, "engine.admission_reserve_critical: 65 is out of range");
}

static void test_bad_sizes_and_big_ints(void **state) {
  (void)state;
  const char *p = fixture("bad_size.cfg");
  const char *e = load_fail(p, NULL);
  expect_line(e, p, 2, "engine.memory_budget: invalid size \"96G\"");
  expect_line(e, p, 3, "engine.safety_margin: invalid size \"8 gib\"");
  expect_line(e, p, 4, "not a whole number of bytes");
  expect_line(e, p, 6, "agent.max_job_bytes: -5 is negative");
  const char *env[] = {"CUZK_ENGINE_PINNED_POOL_MAX_BYTES=9223372036854775808",
                       "CUZK_ENGINE_MEMORY_BUDGET=1023MiB", NULL};
  e = load_fail(NULL, env);
  expect_line(e, "env CUZK_ENGINE_PINNED_POOL_MAX_BYTES", 0, "too large (at most 2^63 - 1 bytes)");
  expect_line(e, "env CUZK_ENGINE_MEMORY_BUDGET", 0, "1023MiB is too small (at least 1GiB)");
  p = fixture("big_int.cfg");
  e = load_fail(p, NULL);
  expect_line(e, p, 3, "engine.pinned_pool.max_bytes: 68719476736 does not fit in 32 bits");
  expect_line(e, p, 3, "68719476736L");
  expect_line(e, p, 5, "engine.safety_margin: 4294967297 does not fit in 32 bits");
  /* with the L suffix, or as a string, the same values load */
  cuzk_config_t *c = NULL;
  char err[1024];
  assert_int_equal(cuzk_config_load_string(&c,
                                           "engine = { pinned_pool = { max_bytes = 68719476736L; };"
                                           " safety_margin = \"4294967297\"; };",
                                           NULL, err, sizeof err),
                   CUZK_OK);
  assert_true(c->engine.pinned_pool.max_bytes == 64ull << 30);
  assert_true(c->engine.safety_margin == 4294967297ull);
  cuzk_config_free(c);
  /* the check also sees hex literals and other settings on the same line */
  assert_int_equal(
      cuzk_config_load_string(
          &c, "engine = { synthesis_workers = 4; pinned_pool = { max_bytes = 0x1000000000; }; };",
          NULL, err, sizeof err),
      CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 1, "0x1000000000 does not fit in 32 bits");
}

static void test_kafka_properties(void **state) {
  (void)state;
  const char *p = fixture("kafka_props.cfg");
  const char *e = load_fail(p, NULL);
  expect_line(e, p, 5, "kafka.properties: librdkafka refuses (\"no.such.property\", \"1\")");
  expect_line(e, p, 5, "No such configuration property");
  expect_line(e, p, 7, "kafka.consumer_properties: librdkafka refuses (\"session.timeout.ms\"");
  expect_line(e, p, 8, "property 'bootstrap.servers' is set by kafka.brokers");
  expect_line(e, p, 8, "kafka.producer_properties[1]: expected a (\"name\", \"value\") pair");
  assert_int_equal(count_lines(e), 4);
  char err[1024];
  cuzk_config_t *c = NULL;
  assert_int_equal(cuzk_config_load_string(&c,
                                           "kafka = { properties = ( (\"linger.ms\", \"1\"),\n"
                                           " (\"linger.ms\", \"2\"), (\"enable.auto.offset.store\","
                                           " \"true\") ); };",
                                           NULL, err, sizeof err),
                   CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 2, "'linger.ms' is listed twice");
  expect_line(err, "<string>", 2, "'enable.auto.offset.store' is set by the agent");
}

static void test_cross_checks(void **state) {
  (void)state;
  const char *p = fixture("confluent_ids.cfg");
  const char *e = load_fail(p, NULL);
  expect_line(e, p, 3, "confluent_schema_ids.partition_timing is not set");
  expect_line(e, p, 3, "confluent_schema_ids.dead_letter is not set");
  assert_int_equal(count_lines(e), 3); /* proof_result is set, proof_job is optional */
  p = fixture("cross_check.cfg");
  e = load_fail(p, NULL);
  expect_line(e, p, 2, "kafka.transactional needs real brokers");
  expect_line(e, p, 3, "kafka.group_instance_id needs real brokers");
  expect_line(e, p, 4, "exceeds kafka.max_message_bytes");
  char err[1024];
  cuzk_config_t *c = NULL;
  assert_int_equal(cuzk_config_load_string(&c, "kafka = { assignor = \"cooperative-sticky\"; };",
                                           NULL, err, sizeof err),
                   CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 1, "librdkafka 2.0.2");
  assert_int_equal(cuzk_config_load_string(&c,
                                           "engine = { srs = { preload = [\"porep-c2-32g\", "
                                           "\"porep-c2\", \"foo-32g\"]; }; };",
                                           NULL, err, sizeof err),
                   CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 1, "\"porep-c2\": missing the sector size");
  expect_line(err, "<string>", 1, "\"foo-32g\": unknown proof type");
  assert_int_equal(
      cuzk_config_load_string(&c, "kafka = { enabled_types = []; };", NULL, err, sizeof err),
      CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 1, "at least 1 proof type");
  assert_int_equal(cuzk_config_load_string(&c, "agent = { http_listen = \"h:0\"; id = \"a b\"; };",
                                           NULL, err, sizeof err),
                   CUZK_ERR_CONFIG);
  expect_line(err, "<string>", 1, "agent.http_listen: \"h:0\": port must be 1..65535");
  expect_line(err, "<string>", 1, "agent.id: \"a b\"");
}

/* ---- @include ---------------------------------------------------------------------------- */

static void test_include_other_cwd(void **state) {
  (void)state;
  char cwd[PATH_MAX];
  assert_non_null(getcwd(cwd, sizeof cwd));
  /* absolute path, from / */
  assert_int_equal(chdir("/"), 0);
  cuzk_config_t *c = load_ok(fixture("include/main.cfg"), NULL);
  assert_int_equal(c->agent.log_level, CUZK_LOG_WARN);
  assert_string_equal(c->agent.id, "from-include");
  assert_string_equal(c->kafka.brokers, "inc:9092");
  char where[PATH_MAX + 64];
  snprintf(where, sizeof where, "%s/tests/data/config/include/parts/kafka.cfg:2", g_src);
  assert_string_equal(cuzk_config_origin(c, "kafka.brokers"), where);
  cuzk_config_free(c);
  /* relative path, from the directory above */
  char dir[PATH_MAX + 64];
  snprintf(dir, sizeof dir, "%s/tests/data", g_src);
  assert_int_equal(chdir(dir), 0);
  c = load_ok("config/include/main.cfg", NULL);
  assert_string_equal(c->kafka.brokers, "inc:9092");
  assert_string_equal(cuzk_config_origin(c, "agent.id"), "config/include/parts/agent.cfg:2");
  cuzk_config_free(c);
  /* an error inside an included file names that file */
  const char *e = load_fail("config/include/bad_main.cfg", NULL);
  expect_line(e, "config/include/parts/bad.cfg", 2, "unknown key 'engine.nope'");
  e = load_fail("config/include/missing.cfg", NULL);
  expect_line(e, "config/include/missing.cfg", 2,
              "cannot open include file 'parts/missing.cfg' (looked for "
              "config/include/parts/missing.cfg");
  assert_int_equal(chdir(cwd), 0);
}

static void test_include_absolute(void **state) {
  (void)state;
  char dir[] = "/tmp/cuzk-cfg-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char main_path[PATH_MAX], part[PATH_MAX];
  snprintf(main_path, sizeof main_path, "%s/main.cfg", dir);
  snprintf(part, sizeof part, "%s/part.cfg", dir);
  FILE *f = fopen(part, "w");
  fprintf(f, "kafka = { brokers = \"abs:1\"; };\n");
  fclose(f);
  f = fopen(main_path, "w");
  fprintf(f, "agent = { log_level = \"warn\"; };\n@include \"%s\"\n", part);
  fclose(f);
  cuzk_config_t *c = NULL;
  char err[2048] = "";
  cuzk_err_t e = cuzk_config_load(&c, main_path, NULL, err, sizeof err);
#if LIBCONFIG_VER_MAJOR == 1 && LIBCONFIG_VER_MINOR < 7
  /* libconfig 1.5 prepends the include dir even to absolute paths: we say so. */
  assert_int_equal(e, CUZK_ERR_CONFIG);
  expect_line(err, main_path, 2, "cannot @include an absolute path; write it relative to");
#else
  assert_int_equal(e, CUZK_OK);
  assert_string_equal(c->kafka.brokers, "abs:1");
  cuzk_config_free(c);
#endif
  unlink(part);
  unlink(main_path);
  rmdir(dir);
}

/* ---- environment overrides ---------------------------------------------------------------- */

static void test_env_overrides(void **state) {
  (void)state;
  const char *env[] = {
      "PATH=/usr/bin",
      "CUZK_TIMING=1", /* other CUZK_ variables are not configuration */
      "CUZK_KAFKA_BROKERS=env-1:9092,env-2:9092",
      "CUZK_ENGINE_MEMORY_BUDGET=12GiB",
      "CUZK_AGENT_LOG_LEVEL=warn",
      "CUZK_AGENT_ALLOW_INSECURE_PARAMS=yes",
      "CUZK_ENGINE_DEVICES=3, 1",
      "CUZK_KAFKA_ENABLED_TYPES=winning-post",
      "CUZK_ENGINE_SRS_PRELOAD=",
      "CUZK_KAFKA_PRODUCER_PROPERTIES=linger.ms=7,client.id=a\\,b",
      "CUZK_ENGINE_PINNED_POOL_MAX_BYTES=1000000000000",
      NULL,
  };
  const char *p = fixture("good.cfg");
  cuzk_config_t *c = load_ok(p, env);
  assert_string_equal(c->kafka.brokers, "env-1:9092,env-2:9092");
  assert_string_equal(cuzk_config_origin(c, "kafka.brokers"), "env CUZK_KAFKA_BROKERS");
  assert_true(c->engine.memory_budget == 12ull << 30);
  assert_int_equal(c->agent.log_level, CUZK_LOG_WARN);
  assert_true(c->agent.allow_insecure_params);
  assert_int_equal(c->engine.devices.n, 2);
  assert_int_equal(c->engine.devices.v[0], 3);
  assert_int_equal(c->engine.devices.v[1], 1);
  assert_int_equal(c->kafka.enabled_types, 1u << CUZK_CONFIG_TYPE_WINNING_POST);
  assert_int_equal(c->engine.srs.preload.n, 0); /* the file had two; "" empties the list */
  assert_int_equal(c->kafka.producer_properties.n, 2);
  assert_string_equal(c->kafka.producer_properties.name[1], "client.id");
  assert_string_equal(c->kafka.producer_properties.value[1], "a,b");
  assert_true(c->engine.pinned_pool.max_bytes == 1000000000000ull);
  /* untouched keys keep the file's values */
  assert_string_equal(c->agent.id, "prover-7");
  cuzk_config_free(c);
}

static void test_env_errors(void **state) {
  (void)state;
  const char *env[] = {
      "CUZK_KAFKA_BROKER=x",
      "CUZK_ENGINE_MEMORY_BUDGET=96G",
      "CUZK_ENGINE_GPU_WORKERS_PER_DEVICE=two",
      "CUZK_AGENT_ALLOW_INSECURE_PARAMS=maybe",
      "CUZK_ENGINE_DEVICES=0,x",
      "CUZK_KAFKA_PROPERTIES=no.such.thing=1",
      "CUZK_KAFKA_CONSUMER_PROPERTIES=novalue",
      "CUZK_ENGINE_WHATEVER=1",
      NULL,
  };
  const char *e = load_fail(NULL, env);
  expect_line(e, "env CUZK_KAFKA_BROKER", 0, "did you mean CUZK_KAFKA_BROKERS?");
  expect_line(e, "env CUZK_ENGINE_MEMORY_BUDGET", 0, "engine.memory_budget: invalid size \"96G\"");
  expect_line(e, "env CUZK_ENGINE_GPU_WORKERS_PER_DEVICE", 0, "expected an integer");
  expect_line(e, "env CUZK_AGENT_ALLOW_INSECURE_PARAMS", 0, "expected true or false");
  expect_line(e, "env CUZK_ENGINE_DEVICES", 0, "\"x\"");
  expect_line(e, "env CUZK_KAFKA_PROPERTIES", 0, "librdkafka refuses");
  expect_line(e, "env CUZK_KAFKA_CONSUMER_PROPERTIES", 0, "expected name=value");
  expect_line(e, "env CUZK_ENGINE_WHATEVER", 0, "no such setting");
  assert_int_equal(count_lines(e), 8);
}

/* ---- printing ---------------------------------------------------------------------------- */

static char *print_to_string(const cuzk_config_t *c, int flags) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  cuzk_config_print(m, c, flags);
  fclose(m);
  return buf;
}

static void test_print_roundtrip(void **state) {
  (void)state;
  const char *env[] = {"CUZK_AGENT_WORK_DIR=/odd \"dir\"\\\ttab",
                       "CUZK_ENGINE_SAFETY_MARGIN=5000000001", NULL};
  cuzk_config_t *c = load_ok(fixture("good.cfg"), env);
  char *text = print_to_string(c, CUZK_CONFIG_PRINT_ORIGINS);
  assert_non_null(strstr(text, "# set at env CUZK_AGENT_WORK_DIR"));
  /* libconfig reads it back as an independent parser ... */
  config_t lc;
  config_init(&lc);
  assert_int_equal(config_read_string(&lc, text), CONFIG_TRUE);
  const char *s = NULL;
  assert_int_equal(config_lookup_string(&lc, "agent.work_dir", &s), CONFIG_TRUE);
  assert_string_equal(s, "/odd \"dir\"\\\ttab");
  long long ll = 0;
  assert_int_equal(config_lookup_int64(&lc, "engine.safety_margin", &ll), CONFIG_TRUE);
  assert_true(ll == 5000000001LL);
  config_destroy(&lc);
  /* ... and our loader gives back the same configuration */
  cuzk_config_t *back = NULL;
  char err[4096];
  assert_int_equal(cuzk_config_load_string(&back, text, NULL, err, sizeof err), CUZK_OK);
  assert_null(cuzk_config_diff(c, back));
  cuzk_config_free(back);
  free(text);
  cuzk_config_free(c);
}

static void test_print_random_roundtrip(void **state) {
  (void)state;
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  static const char *const types[] = {"winning-post", "window-post", "snap-deals", "porep-c2"};
  for (int it = 0; it < 200; it++) {
    char e[8][128];
    const char *env[9];
    int n = 0;
    snprintf(e[n], sizeof e[n], "CUZK_ENGINE_MEMORY_BUDGET=%llu",
             (unsigned long long)((1ull << 30) + (cuzk_test_rng_next(&r) >> 20)));
    env[n] = e[n], n++;
    snprintf(e[n], sizeof e[n], "CUZK_AGENT_STATUS_INTERVAL_S=%llu",
             (unsigned long long)(1 + cuzk_test_rng_next(&r) % 3600));
    env[n] = e[n], n++;
    unsigned set = 1 + (unsigned)(cuzk_test_rng_next(&r) % 15);
    int j = snprintf(e[n], sizeof e[n], "CUZK_KAFKA_ENABLED_TYPES=");
    for (int t = 0; t < 4; t++)
      if (set & (1u << t)) j += snprintf(e[n] + j, sizeof e[n] - j, "%s,", types[t]);
    e[n][j - 1] = '\0';
    env[n] = e[n], n++;
    snprintf(e[n], sizeof e[n], "CUZK_ENGINE_DEVICES=%d,%d", (int)(cuzk_test_rng_next(&r) % 32),
             32 + (int)(cuzk_test_rng_next(&r) % 32));
    env[n] = e[n], n++;
    snprintf(e[n], sizeof e[n], "CUZK_ENGINE_PINNED_POOL_MAX_BYTES=%llu",
             (unsigned long long)(cuzk_test_rng_next(&r) >> (1 + cuzk_test_rng_next(&r) % 63)));
    env[n] = e[n], n++;
    snprintf(e[n], sizeof e[n], "CUZK_KAFKA_PROPERTIES=socket.timeout.ms=%d",
             10 + (int)(cuzk_test_rng_next(&r) % 100000));
    env[n] = e[n], n++;
    env[n] = NULL;
    cuzk_config_t *c = load_ok(NULL, env);
    assert_int_equal(c->kafka.enabled_types, set);
    char *text = print_to_string(c, 0);
    cuzk_config_t *back = NULL;
    char err[4096];
    assert_int_equal(cuzk_config_load_string(&back, text, NULL, err, sizeof err), CUZK_OK);
    const char *d = cuzk_config_diff(c, back);
    if (d) fail_msg("key %s differs after print/load:\n%s", d, text);
    cuzk_config_free(back);
    free(text);
    cuzk_config_free(c);
  }
}

/* ---- the example file ---------------------------------------------------------------------- */

static void test_example_file(void **state) {
  (void)state;
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/ops/cuzk.example.cfg", g_src);
  /* it loads, and equals the defaults */
  cuzk_config_t *c = load_ok(path, NULL);
  cuzk_config_t *d = cuzk_config_new_defaults();
  const char *diff = cuzk_config_diff(c, d);
  if (diff) fail_msg("ops/cuzk.example.cfg: %s differs from the default", diff);
  cuzk_config_free(c);
  cuzk_config_free(d);
  /* every key is present as a setting, preceded by a comment stating its default */
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char *lines[2048];
  size_t nl = 0;
  char buf[1024];
  while (nl < 2048 && fgets(buf, sizeof buf, f)) lines[nl++] = strdup(buf);
  fclose(f);
  config_t lc;
  config_init(&lc);
  assert_int_equal(config_read_file(&lc, path), CONFIG_TRUE);
  for (size_t i = 0; i < cuzk_config_key_count(); i++) {
    const cuzk_config_key_info_t *k = cuzk_config_key(i);
    config_setting_t *s = config_lookup(&lc, k->path);
    if (!s) fail_msg("ops/cuzk.example.cfg does not set %s", k->path);
    unsigned line = config_setting_source_line(s);
    assert_true(line >= 2 && line <= nl);
    char want[512];
    snprintf(want, sizeof want, "# default: %s\n", k->default_text);
    bool documented = false, has_env = false;
    for (size_t j = line - 1; j-- > 0;) {
      const char *l = lines[j] + strspn(lines[j], " ");
      if (l[0] != '#') break;
      if (strcmp(l, want) == 0) documented = true;
      if (strstr(l, k->env)) has_env = true;
    }
    if (!documented || !has_env)
      fail_msg("ops/cuzk.example.cfg:%u: %s lacks \"%.*s\" or its env name %s above it", line,
               k->path, (int)strlen(want) - 1, want, k->env);
  }
  config_destroy(&lc);
  for (size_t j = 0; j < nl; j++) free(lines[j]);
}

/* ---- reload ------------------------------------------------------------------------------ */

static void test_reload(void **state) {
  (void)state;
  const char *env[] = {"CUZK_ENGINE_SYNTHESIS_WORKERS=3", NULL};
  cuzk_config_t *old = load_ok(fixture("reload/base.cfg"), env);
  assert_int_equal(old->engine.synthesis_workers, 3);
  cuzk_config_t *fresh = (cuzk_config_t *)1;
  char err[4096] = "";
  /* reloadable keys change */
  assert_int_equal(
      cuzk_config_reload(old, fixture("reload/reloadable.cfg"), &fresh, err, sizeof err), CUZK_OK);
  assert_int_equal(fresh->agent.log_level, CUZK_LOG_DEBUG);
  assert_int_equal(fresh->engine.verify_proofs, CUZK_VERIFY_NEVER);
  assert_int_equal(fresh->engine.synthesis_workers, 3); /* env overrides are kept */
  /* the same file again: no change at all */
  cuzk_config_t *same = NULL;
  assert_int_equal(
      cuzk_config_reload(fresh, fixture("reload/reloadable.cfg"), &same, err, sizeof err), CUZK_OK);
  assert_null(cuzk_config_diff(fresh, same));
  cuzk_config_free(same);
  cuzk_config_free(fresh);
  /* keys that need a restart are refused, each named */
  fresh = (cuzk_config_t *)1;
  assert_int_equal(cuzk_config_reload(old, fixture("reload/restart.cfg"), &fresh, err, sizeof err),
                   CUZK_ERR_UNSUPPORTED);
  assert_null(fresh);
  assert_non_null(strstr(err,
                         "agent.params_dir: changed from \"/p\" to \"/q\", but it is not "
                         "reloadable; restart the agent"));
  assert_non_null(strstr(err, "kafka.brokers: changed from \"a:9092\" to \"b:9092\""));
  assert_null(strstr(err, "log_level"));
  assert_int_equal(count_lines(err), 2);
  /* an invalid file is a configuration error, named by file:line */
  const char *bad = fixture("reload/invalid.cfg");
  assert_int_equal(cuzk_config_reload(old, bad, &fresh, err, sizeof err), CUZK_ERR_CONFIG);
  assert_null(fresh);
  expect_line(err, bad, 2, "syntax error");
  cuzk_config_free(old);
}

/* ---- memory budget ----------------------------------------------------------------------- */

static void test_memory_budget_auto(void **state) {
  (void)state;
  char path[] = "/tmp/cuzk-meminfo-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *txt = "MemTotal:       263929856 kB\nMemFree:        1000 kB\n";
  assert_int_equal(write(fd, txt, strlen(txt)), (ssize_t)strlen(txt));
  close(fd);
  cuzk_config_t *d = cuzk_config_new_defaults();
  uint64_t b = 0;
  assert_int_equal(cuzk_config_memory_budget(d, path, &b, NULL, 0), CUZK_OK);
  assert_true(b == 263929856ull * 1024 - (8ull << 30));
  cuzk_config_free(d);
  const char *env[] = {"CUZK_ENGINE_SAFETY_MARGIN=252GiB", NULL};
  d = load_ok(NULL, env);
  char err[512];
  assert_int_equal(cuzk_config_memory_budget(d, path, &b, err, sizeof err), CUZK_ERR_CONFIG);
  assert_non_null(strstr(err, "less than 1GiB"));
  assert_int_equal(cuzk_config_memory_budget(d, "/nonexistent/meminfo", &b, err, sizeof err),
                   CUZK_ERR_CONFIG);
  cuzk_config_free(d);
  unlink(path);
}

int main(void) {
  const char *src = getenv("CUZK_SOURCE_DIR");
  if (!src) {
    fprintf(stderr, "SKIP: CUZK_SOURCE_DIR is not set (run under ctest)\n");
    return CUZK_TEST_SKIP;
  }
  if (!realpath(src, g_src)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_size_parse),         cmocka_unit_test(test_size_format_roundtrip),
      cmocka_unit_test(test_key_table),          cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_good_file),          cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_unknown_keys),       cmocka_unit_test(test_wrong_types),
      cmocka_unit_test(test_out_of_range),       cmocka_unit_test(test_bad_sizes_and_big_ints),
      cmocka_unit_test(test_kafka_properties),   cmocka_unit_test(test_cross_checks),
      cmocka_unit_test(test_include_other_cwd),  cmocka_unit_test(test_include_absolute),
      cmocka_unit_test(test_env_overrides),      cmocka_unit_test(test_env_errors),
      cmocka_unit_test(test_print_roundtrip),    cmocka_unit_test(test_print_random_roundtrip),
      cmocka_unit_test(test_example_file),       cmocka_unit_test(test_reload),
      cmocka_unit_test(test_memory_budget_auto),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
