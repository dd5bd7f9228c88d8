/* agent/http/metrics.c: the Prometheus text format (compared with hand-written expected text
 * from the exposition format 0.0.4 spec), escaping, validation, and concurrent updates. */
#include "tests/support/testlib.h"
#include "agent/http/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static char *render(cuzk_metrics_t *reg) {
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(cuzk_metrics_render(reg, &text, &len), CUZK_OK);
  assert_non_null(text);
  assert_int_equal(strlen(text), len);
  return text;
}

static void test_exact_text(void **state) {
  (void)state;
  cuzk_metrics_t *reg = cuzk_metrics_new();
  assert_non_null(reg);
  cuzk_metric_family_t *jobs, *temp, *lat, *empty;
  const char *jl[] = {"type", "status"};
  assert_int_equal(cuzk_metrics_family_new(reg, CUZK_METRIC_COUNTER, "cuzk_jobs_total",
                                           "Jobs done.", 2, jl, NULL, 0, &jobs),
                   CUZK_OK);
  assert_int_equal(cuzk_metrics_family_new(reg, CUZK_METRIC_GAUGE, "cuzk_temp_ratio",
                                           "Help with \\ backslash\nand newline \"quoted\".", 0,
                                           NULL, NULL, 0, &temp),
                   CUZK_OK);
  const char *ll[] = {"phase"};
  const double b[] = {0.1, 1, 2.5};
  assert_int_equal(cuzk_metrics_family_new(reg, CUZK_METRIC_HISTOGRAM, "cuzk_lat_seconds", "Lat.",
                                           1, ll, b, 3, &lat),
                   CUZK_OK);
  assert_int_equal(cuzk_metrics_family_new(reg, CUZK_METRIC_GAUGE, "cuzk_empty_bytes", "", 0, NULL,
                                           NULL, 0, &empty),
                   CUZK_OK);

  cuzk_metric_t *ok = cuzk_metrics_with(jobs, (const char *[]){"porep-c2", "ok"});
  cuzk_metrics_inc(ok);
  cuzk_metrics_add(ok, 2);
  assert_ptr_equal(cuzk_metrics_with(jobs, (const char *[]){"porep-c2", "ok"}), ok);
  cuzk_metrics_add(cuzk_metrics_with(jobs, (const char *[]){"a\"b\\c\nd", "failed"}), 0.5);
  cuzk_metrics_set(cuzk_metrics_with(temp, NULL), -1.25e-7);
  cuzk_metric_t *h = cuzk_metrics_with(lat, (const char *[]){"gpu"});
  cuzk_metrics_observe(h, 0.05);
  cuzk_metrics_observe(h, 0.1); /* on the bound: counts in le="0.1" */
  cuzk_metrics_observe(h, 2);
  cuzk_metrics_observe(h, 100);
  cuzk_metrics_observe(h, NAN); /* ignored */

  const char *expected =
      "# HELP cuzk_jobs_total Jobs done.\n"
      "# TYPE cuzk_jobs_total counter\n"
      "cuzk_jobs_total{type=\"porep-c2\",status=\"ok\"} 3\n"
      "cuzk_jobs_total{type=\"a\\\"b\\\\c\\nd\",status=\"failed\"} 0.5\n"
      "# HELP cuzk_temp_ratio Help with \\\\ backslash\\nand newline \"quoted\".\n"
      "# TYPE cuzk_temp_ratio gauge\n"
      "cuzk_temp_ratio -1.25e-07\n"
      "# HELP cuzk_lat_seconds Lat.\n"
      "# TYPE cuzk_lat_seconds histogram\n"
      "cuzk_lat_seconds_bucket{phase=\"gpu\",le=\"0.1\"} 2\n"
      "cuzk_lat_seconds_bucket{phase=\"gpu\",le=\"1\"} 2\n"
      "cuzk_lat_seconds_bucket{phase=\"gpu\",le=\"2.5\"} 3\n"
      "cuzk_lat_seconds_bucket{phase=\"gpu\",le=\"+Inf\"} 4\n"
      "cuzk_lat_seconds_sum{phase=\"gpu\"} 102.15\n"
      "cuzk_lat_seconds_count{phase=\"gpu\"} 4\n"
      "# HELP cuzk_empty_bytes \n"
      "# TYPE cuzk_empty_bytes gauge\n";
  char *text = render(reg);
  assert_string_equal(text, expected);
  free(text);
  assert_int_equal(cuzk_metrics_count(h), 4);
  assert_true(fabs(cuzk_metrics_value(h) - 102.15) < 1e-12);
  cuzk_metrics_free(reg);
}

static void test_special_values_and_utf8(void **state) {
  (void)state;
  cuzk_metrics_t *reg = cuzk_metrics_new();
  cuzk_metric_family_t *g;
  const char *l[] = {"k"};
  assert_int_equal(cuzk_metrics_family_new(reg, CUZK_METRIC_GAUGE, "g", "h", 1, l, NULL, 0, &g),
                   CUZK_OK);
  cuzk_metrics_set(cuzk_metrics_with(g, (const char *[]){"inf"}), INFINITY);
  cuzk_metrics_set(cuzk_metrics_with(g, (const char *[]){"ninf"}), -INFINITY);
  cuzk_metrics_set(cuzk_metrics_with(g, (const char *[]){"nan"}), NAN);
  cuzk_metrics_set(cuzk_metrics_with(g, (const char *[]){"big"}), 68719476736.0);
  cuzk_metrics_set(cuzk_metrics_with(g, (const char *[]){"third"}), 1.0 / 3.0);
  /* "é" is valid UTF-8; 0xff and a truncated 0xc3 are not; 0xed 0xa0 0x80 is a surrogate. */
  cuzk_metrics_set(cuzk_metrics_with(g, (const char *[]){"\xc3\xa9-\xff-\xed\xa0\x80-\xc3"}), 1);
  char *text = render(reg);
  assert_string_equal(text,
                      "# HELP g h\n# TYPE g gauge\n"
                      "g{k=\"inf\"} +Inf\n"
                      "g{k=\"ninf\"} -Inf\n"
                      "g{k=\"nan\"} NaN\n"
                      "g{k=\"big\"} 68719476736\n"
                      "g{k=\"third\"} 0.3333333333333333\n"
                      "g{k=\"\xc3\xa9-?-??"
                      "?-?\"} 1\n");
  free(text);
  cuzk_metrics_free(reg);
}

static void test_validation(void **state) {
  (void)state;
  cuzk_metrics_t *reg = cuzk_metrics_new();
  cuzk_metric_family_t *f = (cuzk_metric_family_t *)1;
  const double b[] = {1, 2};
  const double bad_b[] = {2, 1};
  const double inf_b[] = {1, INFINITY};
  const char *le[] = {"le"};
  const char *dunder[] = {"__x"};
  const char *dup[] = {"a", "a"};
  const char *dash[] = {"a-b"};
  struct {
    cuzk_metric_type_t t;
    const char *name;
    size_t nl;
    const char *const *labels;
    const double *b;
    size_t nb;
  } bad[] = {
      {CUZK_METRIC_GAUGE, "", 0, NULL, NULL, 0},
      {CUZK_METRIC_GAUGE, "9abc", 0, NULL, NULL, 0},
      {CUZK_METRIC_GAUGE, "a-b", 0, NULL, NULL, 0},
      {CUZK_METRIC_GAUGE, "ok", 1, dunder, NULL, 0},
      {CUZK_METRIC_GAUGE, "ok", 2, dup, NULL, 0},
      {CUZK_METRIC_GAUGE, "ok", 1, dash, NULL, 0},
      {CUZK_METRIC_GAUGE, "ok", 0, NULL, b, 2},
      {CUZK_METRIC_HISTOGRAM, "ok", 1, le, b, 2},
      {CUZK_METRIC_HISTOGRAM, "ok", 0, NULL, NULL, 0},
      {CUZK_METRIC_HISTOGRAM, "ok", 0, NULL, bad_b, 2},
      {CUZK_METRIC_HISTOGRAM, "ok", 0, NULL, inf_b, 2},
      {(cuzk_metric_type_t)7, "ok", 0, NULL, NULL, 0},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(cuzk_metrics_family_new(reg, bad[i].t, bad[i].name, "h", bad[i].nl,
                                             bad[i].labels, bad[i].b, bad[i].nb, &f),
                     CUZK_ERR_INVALID_ARG);
    assert_null(f);
  }
  assert_int_equal(
      cuzk_metrics_family_new(reg, CUZK_METRIC_COUNTER, "ns:ok_total", "h", 0, NULL, NULL, 0, &f),
      CUZK_OK);
  assert_ptr_equal(cuzk_metrics_family(reg, "ns:ok_total"), f);
  assert_null(cuzk_metrics_family(reg, "nope"));
  cuzk_metric_family_t *g;
  assert_int_equal(
      cuzk_metrics_family_new(reg, CUZK_METRIC_GAUGE, "ns:ok_total", "h", 0, NULL, NULL, 0, &g),
      CUZK_ERR_INVALID_ARG);
  char *text = render(reg);
  assert_string_equal(text, "# HELP ns:ok_total h\n# TYPE ns:ok_total counter\n");
  free(text);
  cuzk_metrics_free(reg);
}

static void test_gauge_snapshot(void **state) {
  (void)state;
  cuzk_metrics_t *reg = cuzk_metrics_new();
  cuzk_metric_family_t *g, *c;
  const char *l[] = {"topic", "partition"};
  assert_int_equal(cuzk_metrics_family_new(reg, CUZK_METRIC_GAUGE, "lag", "h", 2, l, NULL, 0, &g),
                   CUZK_OK);
  assert_int_equal(
      cuzk_metrics_family_new(reg, CUZK_METRIC_COUNTER, "c", "h", 0, NULL, NULL, 0, &c), CUZK_OK);
  const char *v1[] = {"t", "0", "t", "1"};
  const double x1[] = {5, 7};
  assert_int_equal(cuzk_metrics_gauge_snapshot(g, 2, v1, x1), CUZK_OK);
  char *text = render(reg);
  assert_non_null(
      strstr(text, "lag{topic=\"t\",partition=\"0\"} 5\nlag{topic=\"t\",partition=\"1\"} 7\n"));
  free(text);
  const char *v2[] = {"u", "3"};
  const double x2[] = {9};
  assert_int_equal(cuzk_metrics_gauge_snapshot(g, 1, v2, x2), CUZK_OK);
  text = render(reg);
  assert_string_equal(text,
                      "# HELP lag h\n# TYPE lag gauge\nlag{topic=\"u\",partition=\"3\"} 9\n"
                      "# HELP c h\n# TYPE c counter\n");
  free(text);
  assert_int_equal(cuzk_metrics_gauge_snapshot(c, 0, NULL, NULL), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_metrics_gauge_snapshot(g, 0, NULL, NULL), CUZK_OK);
  text = render(reg);
  assert_null(strstr(text, "lag{"));
  free(text);
  cuzk_metrics_free(reg);
}

/* ---- concurrency: writers on every kind of series while a reader renders ---------------- */

enum { NTHREADS = 4, NITER = 50000 };

typedef struct {
  cuzk_metric_family_t *c, *g, *h;
  int id;
} worker_arg_t;

static void *worker(void *p) {
  worker_arg_t *a = p;
  char lbl[8];
  snprintf(lbl, sizeof lbl, "w%d", a->id % 2);
  cuzk_metric_t *shared = cuzk_metrics_with(a->c, (const char *[]){"shared"});
  cuzk_metric_t *mine = cuzk_metrics_with(a->c, (const char *[]){lbl});
  cuzk_metric_t *g = cuzk_metrics_with(a->g, NULL);
  cuzk_metric_t *h = cuzk_metrics_with(a->h, NULL);
  for (int i = 0; i < NITER; i++) {
    cuzk_metrics_inc(shared);
    cuzk_metrics_add(mine, 0.5);
    cuzk_metrics_add(g, (i & 1) ? -1.0 : 1.0);
    cuzk_metrics_observe(h, (double)(i % 4)); /* 0, 1, 2, 3 */
  }
  return NULL;
}

static void *reader(void *p) {
  cuzk_metrics_t *reg = p;
  for (int i = 0; i < 200; i++) {
    char *text;
    size_t len;
    if (cuzk_metrics_render(reg, &text, &len) != CUZK_OK) abort();
    free(text);
  }
  return NULL;
}

static void test_concurrent_updates(void **state) {
  (void)state;
  cuzk_metrics_t *reg = cuzk_metrics_new();
  const char *l[] = {"who"};
  const double b[] = {0.5, 1.5, 2.5};
  worker_arg_t args[NTHREADS];
  cuzk_metric_family_t *c, *g, *h;
  assert_int_equal(
      cuzk_metrics_family_new(reg, CUZK_METRIC_COUNTER, "c_total", "h", 1, l, NULL, 0, &c),
      CUZK_OK);
  assert_int_equal(cuzk_metrics_family_new(reg, CUZK_METRIC_GAUGE, "g", "h", 0, NULL, NULL, 0, &g),
                   CUZK_OK);
  assert_int_equal(
      cuzk_metrics_family_new(reg, CUZK_METRIC_HISTOGRAM, "h_seconds", "h", 0, NULL, b, 3, &h),
      CUZK_OK);
  pthread_t th[NTHREADS + 1];
  for (int i = 0; i < NTHREADS; i++) {
    args[i] = (worker_arg_t){c, g, h, i};
    assert_int_equal(pthread_create(&th[i], NULL, worker, &args[i]), 0);
  }
  assert_int_equal(pthread_create(&th[NTHREADS], NULL, reader, reg), 0);
  for (int i = 0; i <= NTHREADS; i++) pthread_join(th[i], NULL);

  char *text = render(reg);
  char want[512];
  /* Each worker: NITER incs of shared; NITER * 0.5 on its parity series (two workers each);
   * gauge returns to 0; observations 0,1,2,3 equally often: NITER/4 of each per worker. */
  snprintf(want, sizeof want,
           "c_total{who=\"shared\"} %d\nc_total{who=\"w0\"} %d\nc_total{who=\"w1\"} %d\n",
           NTHREADS * NITER, NITER, NITER);
  if (!strstr(text, want)) {
    /* series creation order depends on thread start order: check each line */
    char line[128];
    snprintf(line, sizeof line, "c_total{who=\"shared\"} %d\n", NTHREADS * NITER);
    assert_non_null(strstr(text, line));
    snprintf(line, sizeof line, "c_total{who=\"w0\"} %d\n", NITER);
    assert_non_null(strstr(text, line));
    snprintf(line, sizeof line, "c_total{who=\"w1\"} %d\n", NITER);
    assert_non_null(strstr(text, line));
  }
  assert_non_null(strstr(text, "\ng 0\n"));
  int q = NTHREADS * NITER / 4;
  snprintf(want, sizeof want,
           "h_seconds_bucket{le=\"0.5\"} %d\nh_seconds_bucket{le=\"1.5\"} %d\n"
           "h_seconds_bucket{le=\"2.5\"} %d\nh_seconds_bucket{le=\"+Inf\"} %d\n"
           "h_seconds_sum %d\nh_seconds_count %d\n",
           q, 2 * q, 3 * q, 4 * q, 6 * q, 4 * q);
  assert_non_null(strstr(text, want));
  free(text);
  cuzk_metrics_free(reg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_text),         cmocka_unit_test(test_special_values_and_utf8),
      cmocka_unit_test(test_validation),         cmocka_unit_test(test_gauge_snapshot),
      cmocka_unit_test(test_concurrent_updates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
