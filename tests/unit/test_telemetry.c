/* agent/telemetry: base64 (RFC 4648 vectors), escaping, nearest-rank percentiles, busy/idle-gap
 * statistics on hand-made records, the container reader on the recorded session file and on
 * broken files (typed errors), and the rendered report's escaping of untrusted job ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/telemetry/telemetry.h"
#include "tests/support/testlib.h"

static void test_b64_rfc4648(void **state) {
  (void)state;
  static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  static const char *const out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; i++) {
    char buf[16];
    cuzk_telemetry_b64_encode(buf, sizeof buf, (const uint8_t *)in[i], strlen(in[i]));
    assert_string_equal(buf, out[i]);
    uint8_t dec[16];
    size_t n;
    assert_int_equal(cuzk_telemetry_b64_decode(dec, sizeof dec, &n, out[i], strlen(out[i])),
                     CUZK_OK);
    assert_int_equal(n, strlen(in[i]));
    assert_memory_equal(dec, in[i], n);
  }
  uint8_t dec[16];
  size_t n;
  assert_int_equal(cuzk_telemetry_b64_decode(dec, sizeof dec, &n, "Zm9", 3), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_telemetry_b64_decode(dec, sizeof dec, &n, "Zm=v", 4), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_telemetry_b64_decode(dec, sizeof dec, &n, "Zm9*", 4), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_telemetry_b64_decode(dec, sizeof dec, &n, "Zg==Zg==", 8), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_telemetry_b64_decode(dec, 2, &n, "Zm9vYmFy", 8), CUZK_ERR_TOO_LARGE);
}

static char *escape(const char *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cuzk_telemetry_html_escape(f, s);
  fclose(f);
  return buf;
}

static void test_escape(void **state) {
  (void)state;
  char *e = escape("<script>alert('x')</script>&\"\x01");
  assert_string_equal(e, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;&#xFFFD;");
  free(e);
}

static void test_percentile(void **state) {
  (void)state;
  /* nearest rank: the smallest value with at least q*n values at or below it */
  int64_t v[10];
  for (int i = 0; i < 10; i++) v[i] = (i + 1) * 10;
  assert_int_equal(cuzk_telemetry_percentile(v, 10, 0.5), 50);
  assert_int_equal(cuzk_telemetry_percentile(v, 10, 0.9), 90);
  assert_int_equal(cuzk_telemetry_percentile(v, 10, 0.99), 100);
  assert_int_equal(cuzk_telemetry_percentile(v, 10, 0.91), 100);
  assert_int_equal(cuzk_telemetry_percentile(v, 1, 0.5), 10);
  assert_int_equal(cuzk_telemetry_percentile(v, 3, 0.5), 20);
}

static void add(cuzk_telemetry_set_t *s, const char *agent, int gpu, const char *job, int64_t enq,
                int64_t gs, int64_t ge, int64_t fin) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 8;
    s->recs = realloc(s->recs, s->cap * sizeof *s->recs);
    assert_non_null(s->recs);
  }
  cuzk_partition_timing_t *r = &s->recs[s->n++];
  memset(r, 0, sizeof *r);
  r->job_id = strdup(job);
  r->agent_id = strdup(agent);
  r->gpu = gpu;
  r->enqueued_us = r->budget_granted_us = r->synth_start_us = enq;
  r->synth_end_us = r->gpu_queued_us = gs - 1;
  r->gpu_start_us = gs;
  r->gpu_end_us = ge;
  r->finish_end_us = fin;
  r->is_pinned = gpu == 0;
}

static void test_stats(void **state) {
  (void)state;
  cuzk_telemetry_set_t s;
  cuzk_telemetry_set_init(&s);
  /* window 0..10 s; gpu 0 busy [1,3) ∪ [2,4) ∪ [6,7) = 4 s; gpu 1 busy [5,9) = 4 s */
  add(&s, "a", 0, "j1", 0, 1000000, 3000000, 3500000);
  add(&s, "a", 1, "j2", 100, 5000000, 9000000, 10000000);
  add(&s, "a", 0, "j1", 200, 2000000, 4000000, 4200000);
  add(&s, "a", 0, "j3", 300, 6000000, 7000000, 7100000);
  cuzk_telemetry_stats_t st;
  assert_int_equal(cuzk_telemetry_stats(&st, &s), CUZK_OK);
  assert_int_equal(st.t0_us, 0);
  assert_int_equal(st.t1_us, 10000000);
  assert_int_equal(st.n_gpus, 2);
  assert_int_equal(st.gpus[0].gpu, 0);
  assert_int_equal(st.gpus[0].busy_us, 4000000);
  assert_int_equal(st.gpus[0].partitions, 3);
  assert_int_equal(st.gpus[0].jobs, 2);
  assert_int_equal(st.gpus[0].pinned, 3);
  /* gaps: [0,1) [4,6) [7,10) */
  assert_int_equal(st.gpus[0].n_gaps, 3);
  assert_int_equal(st.gpus[0].gaps_us[0], 1000000);
  assert_int_equal(st.gpus[0].gaps_us[1], 2000000);
  assert_int_equal(st.gpus[0].gaps_us[2], 3000000);
  assert_int_equal(st.gpus[1].busy_us, 4000000);
  assert_int_equal(st.gpus[1].n_gaps, 2);
  cuzk_telemetry_stats_free(&st);
  cuzk_telemetry_set_filter(&s, 4000000, 8000000);
  assert_int_equal(s.n, 2);
  cuzk_telemetry_set_clear(&s);
}

static const char *session_path(char *buf, size_t n) {
  const char *src = getenv("CUZK_SOURCE_DIR");
  snprintf(buf, n, "%s/tests/data/telemetry/session.tel", src ? src : ".");
  return buf;
}

static cuzk_avro_codec_t *codec(void) {
  char err[256];
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  cuzk_avro_codec_t *c = cuzk_avro_codec_new(&cc, err, sizeof err);
  assert_non_null(c);
  return c;
}

static void test_read_and_report(void **state) {
  (void)state;
  char path[1024], err[512];
  cuzk_avro_codec_t *c = codec();
  cuzk_telemetry_set_t s;
  cuzk_telemetry_set_init(&s);
  assert_int_equal(
      cuzk_telemetry_read_file(&s, c, session_path(path, sizeof path), err, sizeof err), CUZK_OK);
  assert_true(s.n >= 10);
  int evil = 0;
  for (size_t i = 0; i < s.n; i++) evil += strstr(s.recs[i].job_id, "<script>") != NULL;
  assert_int_equal(evil, 1);
  char *html = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&html, &len);
  cuzk_telemetry_report_opts_t o = {0, NULL};
  assert_int_equal(cuzk_telemetry_report_html(f, &s, &o, err, sizeof err), CUZK_OK);
  fclose(f);
  assert_null(strstr(html, "<script"));
  assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;x"));
  assert_non_null(strstr(html, "timeline resolution 200 ms"));
  free(html);
  /* a 1 µs resolution over a multi-second window is refused, not rendered */
  f = open_memstream(&html, &len);
  o.resolution_us = 1;
  assert_int_equal(cuzk_telemetry_report_html(f, &s, &o, err, sizeof err), CUZK_ERR_INVALID_ARG);
  fclose(f);
  free(html);
  cuzk_telemetry_set_clear(&s);
  cuzk_avro_codec_free(c);
}

static cuzk_err_t read_text(cuzk_avro_codec_t *c, const char *text, size_t *n) {
  char path[] = "/tmp/cuzk-test-telemetry-XXXXXX", err[512];
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  cuzk_telemetry_set_t s;
  cuzk_telemetry_set_init(&s);
  cuzk_err_t e = cuzk_telemetry_read_file(&s, c, path, err, sizeof err);
  *n = s.n;
  cuzk_telemetry_set_clear(&s);
  unlink(path);
  return e;
}

static void test_bad_files(void **state) {
  (void)state;
  cuzk_avro_codec_t *c = codec();
  size_t n;
  char err[256];
  cuzk_telemetry_set_t s;
  cuzk_telemetry_set_init(&s);
  assert_int_equal(cuzk_telemetry_read_file(&s, c, "/nonexistent/x.tel", err, sizeof err),
                   CUZK_ERR_IO);
  assert_int_equal(read_text(c, "", &n), CUZK_ERR_PARSE);
  assert_int_equal(read_text(c, "hello\n", &n), CUZK_ERR_PARSE);
  assert_int_equal(read_text(c, CUZK_TELEMETRY_HEADER "\n# c\n\n", &n), CUZK_OK);
  assert_int_equal(n, 0);
  assert_int_equal(read_text(c, CUZK_TELEMETRY_HEADER "\nnot base64!\n", &n), CUZK_ERR_PARSE);
  /* valid base64 of bytes that are no framed record */
  assert_int_equal(read_text(c, CUZK_TELEMETRY_HEADER "\nZm9vYmFy\n", &n), CUZK_ERR_PARSE);
  /* a truncated real record */
  cuzk_telemetry_set_t one;
  cuzk_telemetry_set_init(&one);
  cuzk_telemetry_set_t *sp = &one;
  add(sp, "a", 0, "j", 1, 2, 3, 4);
  uint8_t *buf;
  size_t blen;
  assert_int_equal(
      cuzk_avro_encode(c, CUZK_AVRO_PARTITION_TIMING, &one.recs[0], &buf, &blen, err, sizeof err),
      CUZK_OK);
  char line[1024];
  size_t ll = cuzk_telemetry_b64_encode(line, sizeof line, buf, blen);
  char text[2048];
  snprintf(text, sizeof text, "%s\n%s\n", CUZK_TELEMETRY_HEADER, line);
  assert_int_equal(read_text(c, text, &n), CUZK_OK);
  assert_int_equal(n, 1);
  cuzk_telemetry_b64_encode(line, sizeof line, buf, blen - 3);
  (void)ll;
  snprintf(text, sizeof text, "%s\n%s\n", CUZK_TELEMETRY_HEADER, line);
  assert_int_equal(read_text(c, text, &n), CUZK_ERR_PARSE);
  free(buf);
  cuzk_telemetry_set_clear(&one);
  cuzk_avro_codec_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_b64_rfc4648),     cmocka_unit_test(test_escape),
      cmocka_unit_test(test_percentile),      cmocka_unit_test(test_stats),
      cmocka_unit_test(test_read_and_report), cmocka_unit_test(test_bad_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
