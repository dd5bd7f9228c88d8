#include "tests/support/testlib.h"
#include "agent/kafka/watermark.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void test_basic_out_of_order(void **state) {
  (void)state;
  cuzk_watermark_t *wm = cuzk_watermark_new();
  assert_non_null(wm);
  uint64_t gen;
  bool skip;
  int64_t commit;
  size_t n;
  cuzk_watermark_range_t r[4];
  assert_int_equal(cuzk_watermark_assign(wm, "t", 0, -1, NULL, &gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_next_commit(wm, "t", 0, &commit, r, 4, &n), CUZK_OK);
  assert_int_equal(commit, -1);
  assert_int_equal(n, 0);
  /* offsets 10, 11, 13, 14, 16: 12 and 15 are transaction markers, never delivered */
  const int64_t offs[] = {10, 11, 13, 14, 16};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(cuzk_watermark_take(wm, "t", 0, offs[i], NULL, &skip), CUZK_OK);
    assert_false(skip);
  }
  assert_int_equal(cuzk_watermark_in_flight(wm, "t", 0), 5);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 13, gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 14, gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 16, gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_next_commit(wm, "t", 0, &commit, r, 4, &n), CUZK_OK);
  assert_int_equal(commit, 10);
  assert_int_equal(n, 1); /* 13..16 as one range: 15 was never delivered */
  assert_int_equal(r[0].lo, 13);
  assert_int_equal(r[0].hi, 16);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 10, gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_next_commit(wm, "t", 0, &commit, r, 4, &n), CUZK_OK);
  assert_int_equal(commit, 11);
  assert_int_equal(n, 1);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 11, gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_next_commit(wm, "t", 0, &commit, r, 4, &n), CUZK_OK);
  assert_int_equal(commit, 17);
  assert_int_equal(n, 0);
  assert_int_equal(cuzk_watermark_in_flight(wm, "t", 0), 0);
  cuzk_watermark_free(wm);
}

static void test_errors(void **state) {
  (void)state;
  cuzk_watermark_t *wm = cuzk_watermark_new();
  uint64_t gen, gen2;
  bool skip;
  int64_t commit;
  size_t n;
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, 1, NULL, &skip), CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 1, 1), CUZK_ERR_CANCELLED);
  assert_int_equal(cuzk_watermark_next_commit(wm, "t", 0, &commit, NULL, 0, &n),
                   CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_watermark_revoke(wm, "t", 0), CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_watermark_assign(wm, "t", -1, -1, NULL, &gen), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_watermark_assign(wm, "t", 0, -2, NULL, &gen), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_watermark_assign(wm, "t", 0, 5, "cuzk-wm1:0", &gen), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_watermark_assign(wm, "t", 0, -1, "cuzk-wm1:3", &gen), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_watermark_assign(wm, "t", 0, 5, "someone else's", &gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_next_commit(wm, "t", 0, &commit, NULL, 0, &n), CUZK_OK);
  assert_int_equal(commit, 5);
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, -1, NULL, &skip), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, INT64_MAX, NULL, &skip), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, 7, NULL, &skip), CUZK_OK);
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, 7, NULL, &skip), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, 6, NULL, &skip), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, 9, NULL, &skip), CUZK_OK);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 8, gen), CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 10, gen), CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 9, gen + 1), CUZK_ERR_CANCELLED);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 9, gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 9, gen), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 7, gen), CUZK_OK);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 7, gen), CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_watermark_complete(wm, "u", 0, 7, gen), CUZK_ERR_CANCELLED);
  /* work taken before a revocation cannot complete into the next assignment */
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, 12, NULL, &skip), CUZK_OK);
  assert_int_equal(cuzk_watermark_assign(wm, "t", 0, 10, NULL, &gen2), CUZK_OK);
  assert_true(gen2 != gen);
  assert_int_equal(cuzk_watermark_take(wm, "t", 0, 12, NULL, &skip), CUZK_OK);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 12, gen), CUZK_ERR_CANCELLED);
  assert_int_equal(cuzk_watermark_revoke(wm, "t", 0), CUZK_OK);
  assert_int_equal(cuzk_watermark_complete(wm, "t", 0, 12, gen2), CUZK_ERR_CANCELLED);
  assert_int_equal(cuzk_watermark_in_flight(wm, "t", 0), 0);
  cuzk_watermark_free(wm);
}

static void test_metadata_codec(void **state) {
  (void)state;
  char buf[CUZK_WATERMARK_META_MAX];
  const cuzk_watermark_range_t in[] = {{102, 104}, {110, 110}, {111, 200}};
  assert_int_equal(cuzk_watermark_format_metadata(buf, sizeof buf, 100, in, 3), 3);
  assert_string_equal(buf, "cuzk-wm1:2+2,6,1+89");
  cuzk_watermark_range_t out[4];
  size_t n;
  assert_int_equal(cuzk_watermark_parse_metadata(buf, 100, out, 4, &n), CUZK_OK);
  assert_int_equal(n, 3);
  assert_memory_equal(in, out, sizeof in);
  assert_int_equal(cuzk_watermark_parse_metadata(buf, 100, out, 2, &n), CUZK_ERR_TOO_LARGE);
  assert_int_equal(cuzk_watermark_parse_metadata(NULL, 100, out, 4, &n), CUZK_OK);
  assert_int_equal(n, 0);
  assert_int_equal(cuzk_watermark_parse_metadata("", 100, out, 4, &n), CUZK_OK);
  assert_int_equal(cuzk_watermark_parse_metadata("cuzk-wm1:", 100, out, 4, &n), CUZK_OK);
  assert_int_equal(n, 0);
  assert_int_equal(cuzk_watermark_parse_metadata("cuzk-wm2:1", 100, out, 4, &n), CUZK_OK);
  assert_int_equal(n, 0);
  const char *bad[] = {"cuzk-wm1:0",  "cuzk-wm1:01",   "cuzk-wm1:1,",  "cuzk-wm1:,1",
                       "cuzk-wm1:1+0", "cuzk-wm1:1+",  "cuzk-wm1:+1",  "cuzk-wm1:-1",
                       "cuzk-wm1:1 ",  "cuzk-wm1:1;2", "cuzk-wm1:1+01",
                       "cuzk-wm1:9223372036854775807", "cuzk-wm1:99999999999999999999",
                       "cuzk-wm1:1+9223372036854775806"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    n = 99;
    assert_int_equal(cuzk_watermark_parse_metadata(bad[i], 100, out, 4, &n), CUZK_ERR_PARSE);
  }
  assert_int_equal(cuzk_watermark_parse_metadata("cuzk-wm1:1", -1, out, 4, &n),
                   CUZK_ERR_INVALID_ARG);
  /* the largest offsets: hi stays below INT64_MAX so hi + 1 is still an offset */
  const int64_t big = INT64_MAX - 10;
  const cuzk_watermark_range_t top[] = {{big + 1, INT64_MAX - 1}};
  assert_int_equal(cuzk_watermark_format_metadata(buf, sizeof buf, big, top, 1), 1);
  assert_string_equal(buf, "cuzk-wm1:1+8");
  assert_int_equal(cuzk_watermark_parse_metadata(buf, big, out, 4, &n), CUZK_OK);
  assert_int_equal(out[0].hi, INT64_MAX - 1);
  assert_int_equal(cuzk_watermark_parse_metadata("cuzk-wm1:1+9", big, out, 4, &n), CUZK_ERR_PARSE);
  /* invalid input ranges stop the encoding */
  const cuzk_watermark_range_t unordered[] = {{5, 6}, {6, 7}};
  assert_int_equal(cuzk_watermark_format_metadata(buf, sizeof buf, 1, unordered, 2), 1);
  assert_int_equal(cuzk_watermark_format_metadata(buf, sizeof buf, 5, unordered, 2), 0);
  assert_string_equal(buf, "cuzk-wm1:");
  /* truncation at the size limit keeps a well-formed prefix of the list */
  enum { N = 3000 };
  cuzk_watermark_range_t *many = malloc(N * sizeof *many);
  for (int i = 0; i < N; i++) many[i] = (cuzk_watermark_range_t){1000 + 3 * i, 1000 + 3 * i};
  size_t k = cuzk_watermark_format_metadata(buf, sizeof buf, 10, many, N);
  assert_true(k > 100 && k < N);
  assert_true(strlen(buf) < sizeof buf);
  cuzk_watermark_range_t *back = malloc(N * sizeof *back);
  assert_int_equal(cuzk_watermark_parse_metadata(buf, 10, back, N, &n), CUZK_OK);
  assert_int_equal(n, k);
  assert_memory_equal(back, many, k * sizeof *many);
  free(many);
  free(back);
}

/* ---- randomized model check ---------------------------------------------------------------- */

/* Reference: a partition's log (existing offsets with gaps), what each assignment took, and the
 * ground truth of which offsets were ever completed, kept in plain arrays and scanned naively. */
enum { LOG_LEN = 600, MAX_R = 1024 };
typedef struct {
  const char *topic;
  int32_t part;
  int64_t log[LOG_LEN];
  size_t pos;           /* next log index to take */
  bool assigned;
  uint64_t gen;
  int64_t committed;
  int64_t taken[LOG_LEN];
  bool done[LOG_LEN];
  size_t n_taken;
  bool ever_done[LOG_LEN]; /* by log index, across assignments */
  cuzk_watermark_range_t restored[MAX_R];
  size_t n_restored;
  bool truncated;
} model_t;

static size_t log_index(const model_t *m, int64_t off) {
  for (size_t i = 0; i < LOG_LEN; i++)
    if (m->log[i] == off) return i;
  fail_msg("offset %" PRId64 " not in the log", off);
  return 0;
}

static bool model_restored_has(const model_t *m, int64_t off) {
  for (size_t i = 0; i < m->n_restored; i++)
    if (m->restored[i].lo <= off && off <= m->restored[i].hi) return true;
  return false;
}

static int64_t model_commit(const model_t *m) {
  for (size_t i = 0; i < m->n_taken; i++)
    if (!m->done[i]) return m->taken[i];
  if (m->n_taken) return m->taken[m->n_taken - 1] + 1;
  return m->committed;
}

static size_t model_above(const model_t *m, cuzk_watermark_range_t *out) {
  int64_t commit = model_commit(m);
  size_t n = 0;
  for (size_t i = 0; i < m->n_taken;) {
    if (m->taken[i] <= commit || !m->done[i]) {
      i++;
      continue;
    }
    out[n].lo = m->taken[i];
    while (i < m->n_taken && m->done[i]) out[n].hi = m->taken[i++];
    n++;
  }
  int64_t last = m->n_taken ? m->taken[m->n_taken - 1] : commit - 1;
  for (size_t r = 0; r < m->n_restored; r++) {
    if (m->restored[r].hi <= last) continue;
    cuzk_watermark_range_t x = {m->restored[r].lo > last ? m->restored[r].lo : last + 1,
                                m->restored[r].hi};
    if (n && out[n - 1].hi + 1 == x.lo)
      out[n - 1].hi = x.hi;
    else
      out[n++] = x;
  }
  return n;
}

static void check_model(cuzk_watermark_t *wm, const model_t *m) {
  if (!m->assigned) {
    assert_int_equal(cuzk_watermark_in_flight(wm, m->topic, m->part), 0);
    return;
  }
  static cuzk_watermark_range_t want[MAX_R + LOG_LEN], got[MAX_R + LOG_LEN];
  int64_t commit;
  size_t n;
  assert_int_equal(cuzk_watermark_next_commit(wm, m->topic, m->part, &commit, got,
                                              MAX_R + LOG_LEN, &n), CUZK_OK);
  assert_int_equal(commit, model_commit(m));
  size_t wn = model_above(m, want);
  assert_int_equal(n, wn);
  assert_memory_equal(got, want, n * sizeof *got);
  size_t fl = 0;
  for (size_t i = 0; i < m->n_taken; i++) fl += m->taken[i] >= commit;
  assert_int_equal(cuzk_watermark_in_flight(wm, m->topic, m->part), fl);
  /* a short buffer still reports the full count and a prefix of the ranges */
  if (wn > 1) {
    cuzk_watermark_range_t one;
    assert_int_equal(cuzk_watermark_next_commit(wm, m->topic, m->part, &commit, &one, 1, &n),
                     CUZK_OK);
    assert_int_equal(n, wn);
    assert_memory_equal(&one, want, sizeof one);
  }
}

static void model_assign(cuzk_watermark_t *wm, model_t *m, int64_t committed, const char *meta) {
  assert_int_equal(cuzk_watermark_assign(wm, m->topic, m->part, committed, meta, &m->gen), CUZK_OK);
  m->assigned = true;
  m->committed = committed;
  m->n_taken = 0;
  m->pos = 0;
  if (committed >= 0)
    while (m->pos < LOG_LEN && m->log[m->pos] < committed) m->pos++;
}

static void model_restart(cuzk_watermark_t *wm, model_t *m, size_t meta_size) {
  static cuzk_watermark_range_t above[MAX_R + LOG_LEN];
  int64_t commit;
  size_t n;
  assert_int_equal(cuzk_watermark_next_commit(wm, m->topic, m->part, &commit, above,
                                              MAX_R + LOG_LEN, &n), CUZK_OK);
  char meta[CUZK_WATERMARK_META_MAX];
  size_t k = cuzk_watermark_format_metadata(meta, meta_size, commit, above, n);
  assert_true(k <= n);
  assert_int_equal(cuzk_watermark_revoke(wm, m->topic, m->part), CUZK_OK);
  m->assigned = false;
  check_model(wm, m);
  model_assign(wm, m, commit, meta);
  m->n_restored = k;
  memcpy(m->restored, above, k * sizeof *above);
  m->truncated |= k < n; /* lost once, the knowledge stays lost */
}

static void test_model_random(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  static model_t models[3];
  const char *topics[3] = {"cuzk.jobs.porep-c2", "cuzk.jobs.porep-c2", "cuzk.jobs.window-post"};
  const int64_t bases[3] = {0, (int64_t)1 << 40, INT64_MAX - 4 * LOG_LEN};
  cuzk_watermark_t *wm = cuzk_watermark_new();
  for (int p = 0; p < 3; p++) {
    model_t *m = &models[p];
    memset(m, 0, sizeof *m);
    m->topic = topics[p];
    m->part = p;
    int64_t off = bases[p];
    for (size_t i = 0; i < LOG_LEN; i++) {
      m->log[i] = off;
      off += 1 + (cuzk_test_rng_next(&rng) % 4 == 0 ? (int64_t)(cuzk_test_rng_next(&rng) % 3) : 0);
    }
    model_assign(wm, m, -1, NULL);
  }
  for (int step = 0; step < 40000; step++) {
    model_t *m = &models[cuzk_test_rng_next(&rng) % 3];
    uint64_t op = cuzk_test_rng_next(&rng) % 100;
    bool skip;
    uint64_t gen;
    if (!m->assigned) {
      model_assign(wm, m, m->committed, NULL);
      m->n_restored = 0;
    } else if (op < 40) {
      if (m->pos == LOG_LEN) continue;
      int64_t off = m->log[m->pos++];
      assert_int_equal(cuzk_watermark_take(wm, m->topic, m->part, off, &gen, &skip), CUZK_OK);
      assert_int_equal(gen, m->gen);
      assert_int_equal(skip, model_restored_has(m, off));
      size_t li = log_index(m, off);
      if (skip) assert_true(m->ever_done[li]);              /* never skip unfinished work */
      if (m->ever_done[li] && !m->truncated && off > m->committed) assert_true(skip);
      m->taken[m->n_taken] = off;
      m->done[m->n_taken++] = skip;
    } else if (op < 75) {
      size_t cand[LOG_LEN], nc = 0;
      for (size_t i = 0; i < m->n_taken; i++)
        if (!m->done[i]) cand[nc++] = i;
      if (!nc) continue;
      size_t i = cand[cuzk_test_rng_next(&rng) % nc];
      assert_int_equal(cuzk_watermark_complete(wm, m->topic, m->part, m->taken[i], m->gen),
                       CUZK_OK);
      m->done[i] = true;
      m->ever_done[log_index(m, m->taken[i])] = true;
    } else if (op < 90) {
      /* a bogus completion: the typed error follows from the model */
      int64_t off = m->log[cuzk_test_rng_next(&rng) % LOG_LEN] + (int64_t)(cuzk_test_rng_next(&rng) % 2);
      cuzk_err_t want = CUZK_ERR_NOT_FOUND;
      int64_t commit = model_commit(m);
      for (size_t i = 0; i < m->n_taken; i++)
        if (m->taken[i] == off && off >= commit) want = m->done[i] ? CUZK_ERR_INVALID_ARG : CUZK_OK;
      if (want == CUZK_OK) continue;
      assert_int_equal(cuzk_watermark_complete(wm, m->topic, m->part, off, m->gen), want);
      assert_int_equal(cuzk_watermark_complete(wm, m->topic, m->part, off, m->gen + 100),
                       CUZK_ERR_CANCELLED);
    } else if (op < 93) {
      model_restart(wm, m, (cuzk_test_rng_next(&rng) % 4 == 0) ? 64 : CUZK_WATERMARK_META_MAX);
    } else if (op < 94) {
      assert_int_equal(cuzk_watermark_revoke(wm, m->topic, m->part), CUZK_OK);
      m->assigned = false;
      m->committed = -1;
      for (size_t i = 0; i < LOG_LEN; i++) m->ever_done[i] = false;
      m->truncated = false;
    } else if (op < 95 && m->pos == LOG_LEN) {
      /* the log is exhausted: start it over under a fresh assignment */
      assert_int_equal(cuzk_watermark_revoke(wm, m->topic, m->part), CUZK_OK);
      m->assigned = false;
      m->committed = -1;
      for (size_t i = 0; i < LOG_LEN; i++) m->ever_done[i] = false;
      m->truncated = false;
    }
    check_model(wm, m);
  }
  cuzk_watermark_free(wm);
}

static void test_many_in_flight(void **state) {
  (void)state;
  enum { N = 100000 };
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  int64_t *order = malloc(N * sizeof *order);
  for (int i = 0; i < N; i++) order[i] = 1000000 + 2 * (int64_t)i;
  for (int i = N - 1; i > 0; i--) {
    int j = (int)(cuzk_test_rng_next(&rng) % (uint64_t)(i + 1));
    int64_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  cuzk_watermark_t *wm = cuzk_watermark_new();
  uint64_t gen;
  bool skip;
  assert_int_equal(cuzk_watermark_assign(wm, "t", 3, -1, NULL, &gen), CUZK_OK);
  clock_t t0 = clock();
  for (int i = 0; i < N; i++)
    assert_int_equal(cuzk_watermark_take(wm, "t", 3, 1000000 + 2 * (int64_t)i, NULL, &skip), CUZK_OK);
  int64_t commit, prev = 0;
  size_t n;
  for (int i = 0; i < N; i++) {
    assert_int_equal(cuzk_watermark_complete(wm, "t", 3, order[i], gen), CUZK_OK);
    if (i % 1000 == 0) {
      assert_int_equal(cuzk_watermark_next_commit(wm, "t", 3, &commit, NULL, 0, &n), CUZK_OK);
      assert_true(commit >= prev);
      prev = commit;
    }
  }
  double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
  assert_int_equal(cuzk_watermark_next_commit(wm, "t", 3, &commit, NULL, 0, &n), CUZK_OK);
  assert_int_equal(commit, 1000000 + 2 * (int64_t)(N - 1) + 1);
  assert_int_equal(n, 0);
  fprintf(stderr, "watermark: %d takes + shuffled completions in %.3f s\n", N, s);
  assert_true(s < 10.0); /* CPU time; O(n^2) bookkeeping would need minutes here */
  cuzk_watermark_free(wm);
  free(order);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basic_out_of_order), cmocka_unit_test(test_errors),
      cmocka_unit_test(test_metadata_codec),     cmocka_unit_test(test_model_random),
      cmocka_unit_test(test_many_in_flight),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
