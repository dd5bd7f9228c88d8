#include "tests/support/testlib.h"
#include "core/util/log.h"

#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- capture sink ---------------------------------------------------------------------------- */

typedef struct {
  char lines[64][20000];
  int n;
  int bad; /* lines whose length or termination was wrong; cmocka must not jump out of a sink */
} capture_t;

static capture_t cap;

static void capture_cb(void *ctx, cuzk_log_level_t level, const char *line, size_t len) {
  (void)level;
  capture_t *c = ctx;
  if (len >= sizeof c->lines[0] || strlen(line) != len || c->n >= 64) {
    c->bad++;
    return;
  }
  memcpy(c->lines[c->n++], line, len + 1);
}

static int setup(void **state) {
  (void)state;
  memset(&cap, 0, sizeof cap);
  cuzk_log_set_level(CUZK_LOG_TRACE);
  cuzk_log_set_format(CUZK_LOG_FORMAT_LOGFMT);
  cuzk_log_set_callback(capture_cb, &cap);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  cuzk_log_set_sink(NULL);
  assert_int_equal(cap.bad, 0);
  cuzk_log_set_level(CUZK_LOG_INFO);
  cuzk_log_set_format(CUZK_LOG_FORMAT_LOGFMT);
  return 0;
}

/* The line after its timestamp field; asserts the timestamp shape. */
static const char *after_ts(const char *line, bool json) {
  regex_t re;
  const char *pat =
      json ? "^\\{\"ts\":\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z\","
           : "^ts=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z ";
  assert_int_equal(regcomp(&re, pat, REG_EXTENDED), 0);
  regmatch_t m;
  int r = regexec(&re, line, 1, &m, 0);
  regfree(&re);
  if (r != 0) fail_msg("bad timestamp prefix: %s", line);
  return line + m.rm_eo;
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_level_parse(void **state) {
  (void)state;
  static const char *names[] = {"trace", "debug", "info", "warn", "error", "off"};
  cuzk_log_level_t l;
  for (int i = 0; i < 6; i++) {
    assert_int_equal(cuzk_log_level_parse(names[i], &l), CUZK_OK);
    assert_int_equal(l, i);
    assert_string_equal(cuzk_log_level_name(l), names[i]);
  }
  assert_int_equal(cuzk_log_level_parse("WARN", &l), CUZK_OK);
  assert_int_equal(l, CUZK_LOG_WARN);
  assert_int_equal(cuzk_log_level_parse("warning", &l), CUZK_OK);
  assert_int_equal(l, CUZK_LOG_WARN);
  l = CUZK_LOG_DEBUG;
  assert_int_equal(cuzk_log_level_parse("verbose", &l), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_log_level_parse("", &l), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_log_level_parse("info ", &l), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_log_level_parse(NULL, &l), CUZK_ERR_PARSE);
  assert_int_equal(l, CUZK_LOG_DEBUG);
  assert_string_equal(cuzk_log_level_name((cuzk_log_level_t)42), "unknown");

  cuzk_log_format_t f;
  assert_int_equal(cuzk_log_format_parse("JSON", &f), CUZK_OK);
  assert_int_equal(f, CUZK_LOG_FORMAT_JSON);
  assert_int_equal(cuzk_log_format_parse("logfmt", &f), CUZK_OK);
  assert_int_equal(f, CUZK_LOG_FORMAT_LOGFMT);
  assert_int_equal(cuzk_log_format_parse("xml", &f), CUZK_ERR_PARSE);
}

static void test_logfmt_basic(void **state) {
  (void)state;
  CUZK_INFO("engine", "job_done", "job_id=%s dur_ms=%d", "abc", 12);
  CUZK_WARN("kafka", "rebalance", NULL);
  assert_int_equal(cap.n, 2);
  assert_string_equal(after_ts(cap.lines[0], false),
                      "level=info component=engine event=job_done job_id=abc dur_ms=12");
  assert_string_equal(after_ts(cap.lines[1], false), "level=warn component=kafka event=rebalance");
}

static void test_logfmt_escaping(void **state) {
  (void)state;
  CUZK_ERROR("c", "e", "a=%s b=%s c=%s d=%s e=%s f=%s g=%s", "two words", "say \"hi\"", "k=v", "",
             "line\nbreak\ttab\x01", "back\\slash", "plain-é");
  assert_int_equal(cap.n, 1);
  assert_string_equal(after_ts(cap.lines[0], false),
                      "level=error component=c event=e a=\"two words\" b=\"say \\\"hi\\\"\" "
                      "c=\"k=v\" d=\"\" e=\"line\\nbreak\\ttab\\u0001\" f=back\\slash g=plain-é");
  /* component and event are escaped like values */
  CUZK_INFO("my comp", "ev\"", NULL);
  assert_string_equal(after_ts(cap.lines[1], false),
                      "level=info component=\"my comp\" event=\"ev\\\"\"");
}

static void test_msg_and_literals(void **state) {
  (void)state;
  CUZK_INFO("c", "e", "hello %s world x=%d pct=50%% y=a b", "big", 7);
  assert_string_equal(
      after_ts(cap.lines[0], false),
      "level=info component=c event=e msg=\"hello big world\" x=7 pct=50% y=\"a b\"");
}

/* A mistake in skipping arguments of one segment shifts every later value. */
static void test_argument_types(void **state) {
  (void)state;
  long double ld = 2.5L;
  CUZK_INFO("c", "e",
            "a=%lld b=%.3f c=%s d=%zu e=%*d f=%.*s g=%c h=%.1Lf i=%hhu j=%jd k=%p l=%lu m=%s", -5LL,
            1.25, "s", (size_t)99, 4, 7, 3, "abcdef", 'Q', ld, (unsigned char)200, (intmax_t)-9,
            (void *)0, 12UL, "end");
  assert_string_equal(after_ts(cap.lines[0], false),
                      "level=info component=c event=e a=-5 b=1.250 c=s d=99 e=\"   7\" f=abc g=Q "
                      "h=2.5 i=200 j=-9 k=(nil) l=12 m=end");
}

static int eval_count;
static int counted(int v) {
  eval_count++;
  return v;
}

static void test_disabled_level_not_evaluated(void **state) {
  (void)state;
  cuzk_log_set_level(CUZK_LOG_WARN);
  eval_count = 0;
  CUZK_DEBUG("c", "e", "x=%d", counted(1));
  CUZK_INFO("c", "e", "x=%d", counted(1));
  CUZK_TRACE("c", "e", "x=%d", counted(1));
  assert_int_equal(eval_count, 0);
  assert_int_equal(cap.n, 0);
  assert_false(cuzk_log_enabled(CUZK_LOG_INFO));
  assert_true(cuzk_log_enabled(CUZK_LOG_WARN));
  CUZK_WARN("c", "e", "x=%d", counted(1));
  CUZK_ERROR("c", "e", "x=%d", counted(2));
  assert_int_equal(eval_count, 2);
  assert_int_equal(cap.n, 2);
  /* the function form checks too */
  cuzk_log_write(CUZK_LOG_DEBUG, "c", "e", "x=%d", 1);
  assert_int_equal(cap.n, 2);

  cuzk_log_set_level(CUZK_LOG_OFF);
  CUZK_ERROR("c", "e", "x=%d", counted(3));
  assert_int_equal(eval_count, 2);
  assert_int_equal(cap.n, 2);
  assert_false(cuzk_log_enabled(CUZK_LOG_ERROR));
  assert_false(cuzk_log_enabled(CUZK_LOG_OFF));
}

static void test_json_numbers_and_shape(void **state) {
  (void)state;
  cuzk_log_set_format(CUZK_LOG_FORMAT_JSON);
  CUZK_INFO("engine", "job_done", "job_id=%s dur_ms=%d ratio=%.2f neg=%+d inf=%f s=%s hx=%x", "abc",
            12, 0.5, 3, INFINITY, "12", 255);
  assert_string_equal(after_ts(cap.lines[0], true),
                      "\"level\":\"info\",\"component\":\"engine\",\"event\":\"job_done\","
                      "\"job_id\":\"abc\",\"dur_ms\":12,\"ratio\":0.50,\"neg\":\"+3\","
                      "\"inf\":\"inf\",\"s\":\"12\",\"hx\":\"ff\"}");
}

/* JSON lines checked by an independent parser (python3's json module). */
static void test_json_escaping_python_oracle(void **state) {
  (void)state;
  cuzk_log_set_format(CUZK_LOG_FORMAT_JSON);
  char ctl[40];
  for (int i = 0; i < 32; i++) ctl[i] = (char)(i + 1);
  ctl[31] = 0x7f;
  ctl[32] = '\0';
  CUZK_INFO("c", "e", "q=%s bs=%s ctl=%s utf=%s bad=%s n=%d", "say \"hi\"", "a\\b", ctl,
            "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "x\xff\xc0\xafy\xed\xa0\x80z\xe2\x82", -7);
  assert_int_equal(cap.n, 1);
  const char *py =
      "python3 -c 'import json,sys\n"
      "d=json.loads(sys.stdin.read())\n"
      "ctl=\"\".join(chr(i) for i in range(1,32))+chr(127)\n"
      "assert d[\"q\"]==\"say \\\"hi\\\"\", d\n"
      "assert d[\"bs\"]==\"a\\\\b\", d\n"
      "assert d[\"ctl\"]==ctl, repr(d[\"ctl\"])\n"
      "assert d[\"utf\"]==\"\\u00e9\\u20ac\\U0001f600\", d\n"
      "assert d[\"bad\"]==\"x\\u00ff\\u00c0\\u00afy\\u00ed\\u00a0\\u0080z\\u00e2\\u0082\", d\n"
      "assert d[\"n\"]==-7 and d[\"level\"]==\"info\" and d[\"event\"]==\"e\"\n"
      "print(\"ok\")'";
  int status = -1;
  char *out = cuzk_test_run_cmd(py, cap.lines[0], &status);
  if (status != 0) fail_msg("python rejected %s\n%s", cap.lines[0], out ? out : "");
  assert_non_null(out);
  assert_string_equal(out, "ok\n");
  free(out);
}

/* logfmt lines re-read by a small independent parser in python (quoted values unescaped). */
static void test_logfmt_python_roundtrip(void **state) {
  (void)state;
  CUZK_INFO("c", "e", "a=%s b=%s c=%s d=%s", "x y=z", "\"q\"\\", "tab\there", "nl\nend");
  const char *py =
      "python3 -c 'import sys,re,json\n"
      "s=sys.stdin.read()\n"
      "d={}\n"
      "for m in re.finditer(r\"([A-Za-z0-9_.-]+)=(\\\"(?:[^\\\"\\\\\\\\]|\\\\\\\\.)*\\\"|[^ ]*)( "
      "|$)\", s):\n"
      "  v=m.group(2)\n"
      "  d[m.group(1)]=json.loads(v) if v.startswith(chr(34)) else v\n"
      "assert d[\"a\"]==\"x y=z\", d\n"
      "assert d[\"b\"]==chr(34)+\"q\"+chr(34)+chr(92), d\n"
      "assert d[\"c\"]==\"tab\\there\", d\n"
      "assert d[\"d\"]==\"nl\\nend\", d\n"
      "print(\"ok\")'";
  int status = -1;
  char *out = cuzk_test_run_cmd(py, cap.lines[0], &status);
  if (status != 0) fail_msg("python rejected %s\n%s", cap.lines[0], out ? out : "");
  assert_string_equal(out, "ok\n");
  free(out);
}

static void test_long_value_truncated(void **state) {
  (void)state;
  size_t n = 40000;
  char *big = malloc(n + 1);
  assert_non_null(big);
  memset(big, 'x', n);
  big[n] = '\0';
  CUZK_INFO("c", "e", "big=%s after=%d", big, 5);
  free(big);
  const char *l = after_ts(cap.lines[0], false);
  const char *v = strstr(l, "big=");
  assert_non_null(v);
  size_t run = strspn(v + 4, "x");
  assert_int_equal(run, 16384);
  assert_string_equal(v + 4 + run, " after=5 truncated=true");
}

static void test_file_sink(void **state) {
  (void)state;
  FILE *f = tmpfile();
  assert_non_null(f);
  cuzk_log_set_sink(f);
  CUZK_INFO("c", "e", "k=%d", 1);
  CUZK_INFO("c", "e", "k=%d", 2);
  cuzk_log_set_sink(NULL);
  CUZK_INFO("c", "e", "k=%d", 3); /* goes to stderr, not to f */
  rewind(f);
  char line[256];
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(after_ts(line, false), "level=info component=c event=e k=1\n");
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(after_ts(line, false), "level=info component=c event=e k=2\n");
  assert_null(fgets(line, sizeof line, f));
  fclose(f);
}

static void test_init_from_env(void **state) {
  (void)state;
  char err[128] = "";
  cuzk_log_set_level(CUZK_LOG_INFO);
  setenv("CUZK_LOG_LEVEL", "Debug", 1);
  setenv("CUZK_LOG_FORMAT", "json", 1);
  assert_int_equal(cuzk_log_init_from_env(err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_log_get_level(), CUZK_LOG_DEBUG);
  assert_int_equal(cuzk_log_get_format(), CUZK_LOG_FORMAT_JSON);

  setenv("CUZK_LOG_LEVEL", "error", 1);
  setenv("CUZK_LOG_FORMAT", "yaml", 1);
  assert_int_equal(cuzk_log_init_from_env(err, sizeof err), CUZK_ERR_CONFIG);
  assert_non_null(strstr(err, "CUZK_LOG_FORMAT=yaml"));
  assert_int_equal(cuzk_log_get_level(), CUZK_LOG_DEBUG); /* nothing applied */

  setenv("CUZK_LOG_LEVEL", "loud", 1);
  unsetenv("CUZK_LOG_FORMAT");
  assert_int_equal(cuzk_log_init_from_env(err, sizeof err), CUZK_ERR_CONFIG);
  assert_non_null(strstr(err, "CUZK_LOG_LEVEL=loud"));

  unsetenv("CUZK_LOG_LEVEL");
  cuzk_log_set_format(CUZK_LOG_FORMAT_LOGFMT);
  assert_int_equal(cuzk_log_init_from_env(err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_log_get_level(), CUZK_LOG_DEBUG);
  assert_int_equal(cuzk_log_get_format(), CUZK_LOG_FORMAT_LOGFMT);
}

/* ---- concurrency ----------------------------------------------------------------------------- */

#define THREADS 4
#define PER_THREAD 3000

static atomic_int inside;
static atomic_int overlaps;
static int seen[THREADS][PER_THREAD];
static atomic_int total;

static void concurrent_cb(void *ctx, cuzk_log_level_t level, const char *line, size_t len) {
  (void)ctx;
  (void)level;
  (void)len;
  if (atomic_fetch_add(&inside, 1) != 0) atomic_fetch_add(&overlaps, 1);
  const char *t = strstr(line, " t=");
  int tid = -1, i = -1;
  if (t && sscanf(t, " t=%d i=%d", &tid, &i) == 2 && tid >= 0 && tid < THREADS && i >= 0 &&
      i < PER_THREAD)
    seen[tid][i]++; /* unsynchronised on purpose: the log mutex is what makes this safe */
  atomic_fetch_add(&total, 1);
  atomic_fetch_sub(&inside, 1);
}

static void *logger_thread(void *arg) {
  int tid = (int)(intptr_t)arg;
  for (int i = 0; i < PER_THREAD; i++) CUZK_INFO("c", "e", "pad=%s t=%d i=%d", "x y z", tid, i);
  return NULL;
}

static void test_threads_whole_lines(void **state) {
  (void)state;
  memset(seen, 0, sizeof seen);
  cuzk_log_set_callback(concurrent_cb, NULL);
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(pthread_create(&th[t], NULL, logger_thread, (void *)(intptr_t)t), 0);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  assert_int_equal(atomic_load(&overlaps), 0);
  assert_int_equal(atomic_load(&total), THREADS * PER_THREAD);
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < PER_THREAD; i++) assert_int_equal(seen[t][i], 1);

  /* FILE sink: every line read back intact */
  FILE *f = tmpfile();
  assert_non_null(f);
  cuzk_log_set_sink(f);
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(pthread_create(&th[t], NULL, logger_thread, (void *)(intptr_t)t), 0);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  cuzk_log_set_sink(NULL);
  rewind(f);
  memset(seen, 0, sizeof seen);
  char line[512];
  int lines = 0;
  while (fgets(line, sizeof line, f)) {
    int tid, i;
    const char *rest = after_ts(line, false);
    assert_int_equal(
        sscanf(rest, "level=info component=c event=e pad=\"x y z\" t=%d i=%d\n", &tid, &i), 2);
    assert_true(tid >= 0 && tid < THREADS && i >= 0 && i < PER_THREAD);
    seen[tid][i]++;
    lines++;
  }
  fclose(f);
  assert_int_equal(lines, THREADS * PER_THREAD);
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < PER_THREAD; i++) assert_int_equal(seen[t][i], 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_level_parse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_logfmt_basic, setup, teardown),
      cmocka_unit_test_setup_teardown(test_logfmt_escaping, setup, teardown),
      cmocka_unit_test_setup_teardown(test_msg_and_literals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_argument_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_disabled_level_not_evaluated, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_numbers_and_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_escaping_python_oracle, setup, teardown),
      cmocka_unit_test_setup_teardown(test_logfmt_python_roundtrip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_value_truncated, setup, teardown),
      cmocka_unit_test_setup_teardown(test_file_sink, setup, teardown),
      cmocka_unit_test_setup_teardown(test_init_from_env, setup, teardown),
      cmocka_unit_test_setup_teardown(test_threads_whole_lines, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
