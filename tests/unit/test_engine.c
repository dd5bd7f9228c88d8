/* core/engine/engine.c on the CPU backend with real synthetic circuits (2^8, 2^10), parameters
 * from the insecure test setup written into a temporary params_dir.
 *
 * Oracles: every proof is verified again here with the groth16 verifier against the public
 * inputs of an independently synthesized witness; ordering is observed through the dispatcher's
 * grant sequence; budget and pool accounting through their own stats. A wrapper backend gates,
 * fails or refuses allocations on demand where the real backend cannot.
 */
// cuzk-test: labels=unit timeout=300
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/engine/engine_circuit.h"
#include "core/groth16/setup.h"
#include "core/groth16/verify.h"
#include "core/util/clock.h"
#include "tests/support/testlib.h"

/* The backend under test: the CPU backend, or with CUZK_TEST_BACKEND=cuda (a CUDA build on a GPU
 * machine) the CUDA backend, so the same engine tests run on the device. */
static cuzk_backend_t *test_backend_new(char *err, size_t n) {
  const char *b = getenv("CUZK_TEST_BACKEND");
  if (b && strcmp(b, "cuda") == 0) {
#ifdef CUZK_HAVE_CUDA
    cuzk_backend_t *be = cuzk_backend_cuda_new(err, n);
    if (!be) fprintf(stderr, "CUZK_TEST_BACKEND=cuda: %s\n", err);
    return be;
#else
    snprintf(err, n, "CUZK_TEST_BACKEND=cuda in a build without CUDA");
    fprintf(stderr, "%s\n", err);
    return NULL;
#endif
  }
  return cuzk_backend_cpu_new(err, n);
}

static char g_dir[256];
static uint64_t g_srs_bytes[16];

/* ---- fixtures ---------------------------------------------------------------------------------- */

static void make_params(unsigned log_n) {
  char id[32], err[256], path[512];
  snprintf(id, sizeof id, "synthetic-%u", log_n);
  cuzk__ecircuit_t c;
  assert_int_equal(cuzk__ecircuit_resolve(&c, id, err, sizeof err), CUZK_OK);
  cuzk_r1cs_t *r = NULL;
  assert_int_equal(cuzk__ecircuit_record(&c, &r, err, sizeof err), CUZK_OK);
  cuzk_groth16_toxic_t t;
  cuzk_groth16_toxic_from_seed(&t, 1000 + log_n);
  cuzk_groth16_params_t *p = NULL;
  assert_int_equal(cuzk_groth16_setup(&p, r, &t, err, sizeof err), CUZK_OK);
  snprintf(path, sizeof path, "%s/%s.params", g_dir, c.stem);
  assert_int_equal(cuzk_groth16_params_save(p, path, err, sizeof err), CUZK_OK);
  g_srs_bytes[log_n] = cuzk_groth16_params_size(p);
  cuzk_groth16_params_free(p);
  cuzk_r1cs_free(r);
}

static int group_setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/cuzk-test-engine-XXXXXX");
  if (!mkdtemp(g_dir)) return -1;
  make_params(8);
  make_params(10);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static uint64_t abc_bytes(unsigned log_n) { return (1ull << log_n) * 32; }
static uint64_t rest_bytes(unsigned log_n) {
  char err[256];
  cuzk__ecircuit_t c;
  char id[32];
  snprintf(id, sizeof id, "synthetic-%u", log_n);
  cuzk__ecircuit_resolve(&c, id, err, sizeof err);
  cuzk_fr_t *in, *aux;
  uint64_t ni, na;
  assert_int_equal(cuzk__ecircuit_witness(&c, NULL, 0, 0, &in, &ni, &aux, &na, err, sizeof err), CUZK_OK);
  free(in), free(aux);
  return (ni + na) * 32;
}
/* Budget for `k` partitions of 2^log_n in flight plus the parameters. */
static uint64_t budget_for(unsigned log_n, unsigned k) {
  return g_srs_bytes[log_n] + k * (3 * abc_bytes(log_n) + rest_bytes(log_n)) + abc_bytes(log_n) / 2;
}

/* ---- wrapper backend ---------------------------------------------------------------------------- */

typedef struct {
  cuzk_backend_t vt;
  cuzk_backend_t *real;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool gate_closed;
  unsigned at_gate;
  int fail_start; /* fail this many prove_starts (< 0: all) */
  unsigned starts;
  bool fail_alloc;
  uint64_t alloc_us[256];
  unsigned nalloc;
} wrap_t;

static wrap_t *W(cuzk_backend_t *be) { return be->ctx; }
static int w_count(cuzk_backend_t *be) { return W(be)->real->device_count(W(be)->real); }
static cuzk_err_t w_info(cuzk_backend_t *be, int d, cuzk_backend_device_info_t *o) {
  return W(be)->real->device_info(W(be)->real, d, o);
}
static void *w_alloc(cuzk_backend_t *be, size_t n, char *why, size_t ws) {
  wrap_t *w = W(be);
  pthread_mutex_lock(&w->mu);
  bool fail = w->fail_alloc;
  if (!fail && w->nalloc < 256) w->alloc_us[w->nalloc++] = cuzk_now_us();
  pthread_mutex_unlock(&w->mu);
  if (fail) {
    snprintf(why, ws, "injected: page-locking refused");
    return NULL;
  }
  return w->real->host_alloc(w->real, n, why, ws);
}
static void w_free(cuzk_backend_t *be, void *p, size_t n) { W(be)->real->host_free(W(be)->real, p, n); }
static cuzk_err_t w_attach(cuzk_backend_t *be, const cuzk_groth16_params_t *p, const cuzk_r1cs_t *r,
                           cuzk_backend_srs_t **o, char *es, size_t en) {
  return W(be)->real->srs_attach(W(be)->real, p, r, o, es, en);
}
static void w_detach(cuzk_backend_t *be, cuzk_backend_srs_t *s) { W(be)->real->srs_detach(W(be)->real, s); }
static cuzk_err_t w_start(cuzk_backend_t *be, int d, const cuzk_backend_input_t *in, cuzk_backend_pending_t **o,
                          cuzk_backend_timings_t *t, char *es, size_t en) {
  wrap_t *w = W(be);
  pthread_mutex_lock(&w->mu);
  w->at_gate++;
  pthread_cond_broadcast(&w->cv);
  while (w->gate_closed) pthread_cond_wait(&w->cv, &w->mu);
  w->at_gate--;
  w->starts++;
  bool fail = w->fail_start != 0;
  if (w->fail_start > 0) w->fail_start--;
  pthread_mutex_unlock(&w->mu);
  if (fail) {
    *o = NULL;
    return cuzk_errf(CUZK_ERR_GPU, es, en, "injected device fault");
  }
  return w->real->prove_start(w->real, d, in, o, t, es, en);
}
static cuzk_err_t w_finish(cuzk_backend_t *be, cuzk_backend_pending_t *p, const cuzk_fr_t *r, const cuzk_fr_t *s,
                           uint8_t proof[192], cuzk_backend_timings_t *t, char *es, size_t en) {
  return W(be)->real->prove_finish(W(be)->real, p, r, s, proof, t, es, en);
}
static void w_pfree(cuzk_backend_t *be, cuzk_backend_pending_t *p) { W(be)->real->pending_free(W(be)->real, p); }
static void w_destroy(cuzk_backend_t *be) {
  wrap_t *w = W(be);
  cuzk_backend_free(w->real);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
}

static wrap_t *wrap_new(void) {
  wrap_t *w = calloc(1, sizeof *w);
  char err[128];
  w->real = test_backend_new(err, sizeof err);
  assert_non_null(w->real);
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->vt = (cuzk_backend_t){"wrap-cpu", w, w_count, w_info, w_alloc, w_free, w_attach, w_detach,
                           w_start, w_finish, w_pfree, w_destroy};
  return w;
}

static unsigned nalloc(wrap_t *w) {
  pthread_mutex_lock(&w->mu);
  unsigned n = w->nalloc;
  pthread_mutex_unlock(&w->mu);
  return n;
}

static void set_fail_start(wrap_t *w, int n) {
  pthread_mutex_lock(&w->mu);
  w->fail_start = n;
  pthread_mutex_unlock(&w->mu);
}

static void gate(wrap_t *w, bool closed) {
  pthread_mutex_lock(&w->mu);
  w->gate_closed = closed;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

static void wait_at_gate(wrap_t *w, unsigned k) {
  pthread_mutex_lock(&w->mu);
  while (w->at_gate < k) pthread_cond_wait(&w->cv, &w->mu);
  pthread_mutex_unlock(&w->mu);
}

/* ---- results and timing ----------------------------------------------------------------------- */

#define MAXJ 128
typedef struct {
  int calls;
  cuzk_err_t status;
  bool verified;
  uint8_t *proof;
  size_t proof_len;
  char message[256];
} res_t;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static res_t g_res[MAXJ];
static unsigned g_ndone;
static cuzk_partition_timing_t g_tim[1024];
static unsigned g_ntim;

static void reset(void) {
  pthread_mutex_lock(&g_mu);
  for (unsigned i = 0; i < MAXJ; i++) free(g_res[i].proof);
  memset(g_res, 0, sizeof g_res);
  g_ndone = 0;
  g_ntim = 0;
  pthread_mutex_unlock(&g_mu);
}

static void on_done(void *user, const cuzk_job_result_t *r) {
  res_t *s = user;
  pthread_mutex_lock(&g_mu);
  s->calls++;
  s->status = r->status;
  s->verified = r->verified;
  if (r->message) snprintf(s->message, sizeof s->message, "%s", r->message);
  if (r->proof) {
    s->proof = malloc(r->proof_len);
    memcpy(s->proof, r->proof, r->proof_len);
    s->proof_len = r->proof_len;
  }
  g_ndone++;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
}

static void on_timing(void *ctx, const cuzk_partition_timing_t *t) {
  (void)ctx;
  pthread_mutex_lock(&g_mu);
  if (g_ntim < 1024) g_tim[g_ntim++] = *t;
  pthread_mutex_unlock(&g_mu);
}

static void wait_done(unsigned n) {
  pthread_mutex_lock(&g_mu);
  while (g_ndone < n) pthread_cond_wait(&g_cv, &g_mu);
  pthread_mutex_unlock(&g_mu);
}

static cuzk_engine_t *mk(cuzk_backend_t *be, uint64_t budget, void (*tweak)(cuzk_engine_config_t *)) {
  cuzk_engine_config_t cfg;
  cuzk_engine_config_init(&cfg);
  cfg.memory_budget = budget;
  cfg.params_dir = g_dir;
  cfg.allow_insecure_params = true;
  cfg.synthesis_workers = 2;
  cfg.prewarm_pace_ms = 1;
  cfg.on_timing = on_timing;
  if (tweak) tweak(&cfg);
  char err[256] = "";
  cuzk_engine_t *e = cuzk_engine_new(&cfg, be, err, sizeof err);
  if (!e) fail_msg("engine_new: %s", err);
  return e;
}

static uint64_t submit(cuzk_engine_t *e, unsigned slot, const char *circuit, uint32_t parts, int prio) {
  char id[32], err[256] = "";
  snprintf(id, sizeof id, "job-%u", slot);
  cuzk_job_t j = {.job_id = id, .type = CUZK_PROOF_SYNTHETIC, .circuit = circuit, .priority = prio,
                  .partitions = parts};
  uint64_t seq = 0;
  cuzk_err_t rc = cuzk_engine_submit(e, &j, on_done, &g_res[slot], &seq, err, sizeof err);
  if (rc != CUZK_OK) fail_msg("submit %s: %s (%s)", id, cuzk_err_name(rc), err);
  return seq;
}

/* Verifies every 192-byte proof of slot's result with the groth16 verifier. */
static void verify_result(unsigned slot, const char *circuit, uint32_t parts) {
  res_t *r = &g_res[slot];
  if (r->status != CUZK_OK) fail_msg("job %u: %s %s", slot, cuzk_err_name(r->status), r->message);
  assert_int_equal(r->calls, 1);
  assert_int_equal(r->proof_len, (size_t)parts * 192);
  char err[256], path[512];
  cuzk__ecircuit_t c;
  assert_int_equal(cuzk__ecircuit_resolve(&c, circuit, err, sizeof err), CUZK_OK);
  snprintf(path, sizeof path, "%s/%s.params", g_dir, c.stem);
  cuzk_groth16_vk_t vk;
  cuzk_groth16_params_t *p = NULL;
  assert_int_equal(cuzk_groth16_params_load(&p, path, CUZK_GROTH16_TRUSTED, err, sizeof err), CUZK_OK);
  vk = p->vk;
  cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&vk, err, sizeof err);
  cuzk_fr_t *in, *aux;
  uint64_t ni, na;
  assert_int_equal(cuzk__ecircuit_witness(&c, NULL, 0, 0, &in, &ni, &aux, &na, err, sizeof err), CUZK_OK);
  for (uint32_t i = 0; i < parts; i++) {
    cuzk_groth16_proof_t pr;
    assert_int_equal(cuzk_groth16_proof_decode(&pr, r->proof + 192 * i, 0), CUZK_OK);
    assert_int_equal(cuzk_groth16_verify(pvk, &pr, in + 1, ni - 1), CUZK_OK);
    cuzk_fr_t bad = in[1];
    cuzk_fr_add(&bad, &bad, &in[0]);
    cuzk_fr_t in2[16];
    memcpy(in2, in + 1, (ni - 1) * sizeof *in);
    in2[0] = bad;
    assert_int_equal(cuzk_groth16_verify(pvk, &pr, in2, ni - 1), CUZK_ERR_VERIFY_FAILED);
  }
  free(in), free(aux);
  cuzk_groth16_pvk_free(pvk);
  cuzk_groth16_params_free(p);
}

/* Everything returned: only the parameters and the pool's buffers hold budget, all idle. */
static void assert_all_returned(cuzk_engine_t *e) {
  cuzk_engine_status_t st;
  for (int i = 0; i < 200; i++) {
    cuzk_engine_status(e, &st);
    if (st.jobs_in_flight == 0 && st.partitions_in_flight == 0) break;
    cuzk_sleep_ms(5);
  }
  assert_int_equal(st.jobs_in_flight, 0);
  assert_int_equal(st.partitions_in_flight, 0);
  assert_int_equal(st.pool.idle_buffers, st.pool.buffers);
  assert_int_equal(st.pool.idle_bytes, st.pool.bytes);
  assert_int_equal(st.budget.used, st.pool.bytes + st.srs_bytes);
  assert_true(st.budget.reservations <= 3); /* pool + at most two parameter sets */
  assert_true(st.budget.peak <= st.budget.total);
}

/* ---- tests -------------------------------------------------------------------------------------- */

static void test_proofs_verify_and_timing_ordered(void **state) {
  (void)state;
  reset();
  char tl[300];
  snprintf(tl, sizeof tl, "%s/timeline.txt", g_dir);
  unlink(tl);
  static char tlpath[300];
  snprintf(tlpath, sizeof tlpath, "%s", tl);
  char err[128];
  cuzk_backend_t *be = test_backend_new(err, sizeof err);
  assert_non_null(be);
  const int want_gpu = strcmp(be->name, "cpu") == 0 ? -1 : 0; /* the CPU reports gpu -1 */
  cuzk_engine_config_t cfg;
  cuzk_engine_config_init(&cfg);
  cfg.memory_budget = 1ull << 30;
  cfg.params_dir = g_dir;
  cfg.allow_insecure_params = true;
  cfg.timeline_file = tlpath;
  cfg.on_timing = on_timing;
  cfg.log_timing = true;
  cuzk_engine_t *e = cuzk_engine_new(&cfg, be, err, sizeof err);
  assert_non_null(e);
  submit(e, 0, "synthetic-8", 3, -1);
  submit(e, 1, "synthetic-10", 2, -1);
  submit(e, 2, "synthetic-8", 1, CUZK_PRIO_HIGH);
  assert_int_equal(cuzk_engine_drain(e, 120000), CUZK_OK);
  verify_result(0, "synthetic-8", 3);
  verify_result(1, "synthetic-10", 2);
  verify_result(2, "synthetic-8", 1);
  assert_true(g_res[0].verified && g_res[1].verified);
  assert_int_equal(g_ntim, 6);
  for (unsigned i = 0; i < g_ntim; i++) {
    const cuzk_partition_timing_t *t = &g_tim[i];
    uint64_t seq[] = {t->enqueued, t->budget_granted, t->synth_start, t->synth_end,
                      t->gpu_queued, t->gpu_start,      t->gpu_end,     t->finish_end};
    for (unsigned k = 0; k < 8; k++) assert_true(seq[k] > 0);
    for (unsigned k = 1; k < 8; k++) assert_true(seq[k - 1] <= seq[k]);
    assert_true(t->synthetic);
    assert_true(t->is_pinned);
    assert_int_equal(t->gpu, want_gpu);
    assert_int_equal(t->attempts, 1);
    assert_true(t->kernel_us > 0 && t->ntt_us > 0 && t->msm_h_us + t->msm_l_us + t->msm_a_us > 0);
    assert_true(t->grant_seq >= 1 && t->grant_seq <= 6);
    assert_true(t->budget.peak <= t->budget.total);
  }
  cuzk_engine_status_t st;
  cuzk_engine_status(e, &st);
  assert_int_equal(st.jobs_done, 3);
  assert_int_equal(st.partitions_done, 6);
  assert_true(st.gpu_busy_ratio > 0.0 && st.gpu_busy_ratio <= 1.0);
  assert_true(st.draining);
  /* Drained: admission is closed. */
  cuzk_job_t j = {.job_id = "late", .circuit = "synthetic-8", .priority = -1};
  assert_int_equal(cuzk_engine_submit(e, &j, on_done, &g_res[9], NULL, err, sizeof err), CUZK_ERR_CLOSED);
  cuzk_engine_free(e);
  cuzk_backend_free(be);

  /* TIMELINE: 5 phases × start/end per partition, each line well-formed. */
  FILE *f = fopen(tl, "r");
  assert_non_null(f);
  char line[512];
  unsigned n = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long us;
    char job[130], phase[32], se[8];
    unsigned part;
    assert_int_equal(sscanf(line, "TIMELINE %llu %129s %u %31s %7s", &us, job, &part, phase, se), 5);
    assert_true(strcmp(se, "start") == 0 || strcmp(se, "end") == 0);
    n++;
  }
  fclose(f);
  assert_int_equal(n, 6 * 5 * 2);
}

static void test_grant_order_priority_then_oldest(void **state) {
  (void)state;
  reset();
  wrap_t *w = wrap_new();
  gate(w, true);
  /* Room for one partition in flight. */
  cuzk_engine_t *e = mk(&w->vt, budget_for(8, 1), NULL);
  submit(e, 0, "synthetic-8", 1, CUZK_PRIO_NORMAL); /* the blocker: holds the budget at the gate */
  wait_at_gate(w, 1);
  submit(e, 1, "synthetic-8", 2, CUZK_PRIO_NORMAL);
  submit(e, 2, "synthetic-8", 2, CUZK_PRIO_NORMAL);
  submit(e, 3, "synthetic-8", 1, CUZK_PRIO_HIGH);
  submit(e, 4, "synthetic-8", 2, CUZK_PRIO_CRITICAL);
  submit(e, 5, "synthetic-8", 1, CUZK_PRIO_HIGH);
  cuzk_engine_status_t st;
  cuzk_engine_status(e, &st);
  assert_int_equal(st.queued[CUZK_PRIO_NORMAL], 4);
  assert_int_equal(st.queued[CUZK_PRIO_HIGH], 2);
  assert_int_equal(st.queued[CUZK_PRIO_CRITICAL], 2);
  gate(w, false);
  wait_done(6);
  /* Expected grant order: blocker, CRITICAL (job 4: 0, 1), HIGH oldest first (3, 5), NORMAL
   * oldest first (1: 0, 1; 2: 0, 1). */
  const char *want[] = {"job-0/0", "job-4/0", "job-4/1", "job-3/0", "job-5/0",
                        "job-1/0", "job-1/1", "job-2/0", "job-2/1"};
  assert_int_equal(g_ntim, 9);
  for (unsigned k = 0; k < 9; k++) {
    const cuzk_partition_timing_t *t = NULL;
    for (unsigned i = 0; i < g_ntim; i++)
      if (g_tim[i].grant_seq == k + 1) t = &g_tim[i];
    assert_non_null(t);
    char got[160];
    snprintf(got, sizeof got, "%s/%u", t->job_id, t->partition);
    assert_string_equal(got, want[k]);
  }
  for (unsigned s = 0; s < 6; s++) assert_int_equal(g_res[s].status, CUZK_OK);
  cuzk_engine_status(e, &st);
  assert_true(st.budget.peak <= st.budget.total);
  assert_all_returned(e);
  cuzk_engine_free(e);
  cuzk_backend_free(&w->vt);
}

/* DESIGN §4.3: 5 jobs × 16 partitions filling the budget; with the pool pre-warmed for the
 * shape every checkout is pinned and served from the pool (no fallback, no allocation). */
static void test_double_count_regression(void **state) {
  (void)state;
  reset();
  wrap_t *w = wrap_new();
  const unsigned sets = 4;
  cuzk_engine_t *e = mk(&w->vt, budget_for(8, sets), NULL);
  char err[256];
  assert_int_equal(cuzk_engine_prewarm(e, "synthetic-8", sets, true, err, sizeof err), CUZK_OK);
  cuzk_engine_status_t st;
  cuzk_engine_status(e, &st);
  assert_int_equal(st.pool.buffers, 3 * sets);
  for (unsigned j = 0; j < 5; j++) submit(e, j, "synthetic-8", 16, -1);
  wait_done(5);
  for (unsigned j = 0; j < 5; j++) assert_int_equal(g_res[j].status, CUZK_OK);
  verify_result(4, "synthetic-8", 16);
  assert_int_equal(g_ntim, 80);
  for (unsigned i = 0; i < g_ntim; i++) {
    assert_true(g_tim[i].is_pinned);
    assert_true(g_tim[i].pool_hit);
  }
  cuzk_engine_status(e, &st);
  assert_int_equal(st.pool.fallbacks, 0);
  assert_int_equal(st.pool.misses, 0);
  assert_int_equal(st.pool.hits, 80);
  assert_int_equal(st.pool.allocations, 3 * sets);
  assert_true(st.budget.peak <= st.budget.total);
  /* The budget was the limit: at some point it was nearly full. */
  assert_true(st.budget.peak + rest_bytes(8) > st.budget.total - abc_bytes(8) / 2);
  assert_all_returned(e);
  cuzk_engine_free(e);
  cuzk_backend_free(&w->vt);
}

static void test_prewarm_is_paced(void **state) {
  (void)state;
  reset();
  wrap_t *w = wrap_new();
  cuzk_engine_t *e;
  static const char *pre[] = {"synthetic-8"};
  cuzk_engine_config_t cfg;
  cuzk_engine_config_init(&cfg);
  cfg.memory_budget = budget_for(8, 8);
  cfg.params_dir = g_dir;
  cfg.allow_insecure_params = true;
  cfg.preload = pre;
  cfg.n_preload = 1;
  cfg.prewarm_partitions = 2;
  cfg.prewarm_pace_ms = 25;
  char err[256];
  uint64_t t0 = cuzk_now_us();
  e = cuzk_engine_new(&cfg, &w->vt, err, sizeof err);
  assert_non_null(e);
  (void)t0;
  assert_true(nalloc(w) < 6); /* start does not wait for the pre-warm */
  assert_int_equal(cuzk_engine_prewarm(e, "synthetic-8", 0, true, err, sizeof err), CUZK_OK);
  for (int i = 0; i < 400 && nalloc(w) < 6; i++) cuzk_sleep_ms(5);
  assert_int_equal(nalloc(w), 6);
  for (unsigned i = 1; i < w->nalloc; i++) assert_true(w->alloc_us[i] - w->alloc_us[i - 1] >= 20000);
  cuzk_engine_free(e);
  cuzk_backend_free(&w->vt);
}

static void test_cancel_mid_flight(void **state) {
  (void)state;
  reset();
  wrap_t *w = wrap_new();
  gate(w, true);
  cuzk_engine_t *e = mk(&w->vt, budget_for(8, 2), NULL);
  uint64_t a = submit(e, 0, "synthetic-8", 6, -1);
  uint64_t b = submit(e, 1, "synthetic-8", 2, -1);
  wait_at_gate(w, 1);
  assert_int_equal(cuzk_engine_cancel(e, a), CUZK_OK);
  assert_int_equal(cuzk_engine_cancel(e, a), CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_engine_cancel(e, 9999), CUZK_ERR_NOT_FOUND);
  gate(w, false);
  wait_done(2);
  assert_int_equal(g_res[0].status, CUZK_ERR_CANCELLED);
  assert_int_equal(g_res[0].calls, 1);
  assert_null(g_res[0].proof);
  verify_result(1, "synthetic-8", 2);
  assert_int_equal(cuzk_engine_cancel(e, b), CUZK_ERR_NOT_FOUND);
  cuzk_sleep_ms(20);
  assert_int_equal(g_res[0].calls, 1);
  assert_all_returned(e);
  cuzk_engine_free(e);
  cuzk_backend_free(&w->vt);
}

static void test_prove_start_failure_retry_then_fail(void **state) {
  (void)state;
  reset();
  wrap_t *w = wrap_new();
  cuzk_engine_t *e = mk(&w->vt, budget_for(8, 2), NULL);
  /* One fault: retried once, the job succeeds. */
  set_fail_start(w, 1);
  submit(e, 0, "synthetic-8", 1, -1);
  wait_done(1);
  verify_result(0, "synthetic-8", 1);
  assert_int_equal(g_ntim, 1);
  assert_int_equal(g_tim[0].attempts, 2);
  /* Persistent faults: the job fails with the backend's typed error, everything comes back. */
  set_fail_start(w, -1);
  submit(e, 1, "synthetic-8", 3, -1);
  wait_done(2);
  assert_int_equal(g_res[1].status, CUZK_ERR_GPU);
  assert_int_equal(g_res[1].calls, 1);
  assert_non_null(strstr(g_res[1].message, "injected device fault"));
  assert_all_returned(e);
  /* The engine is still healthy. */
  set_fail_start(w, 0);
  submit(e, 2, "synthetic-8", 2, -1);
  wait_done(3);
  verify_result(2, "synthetic-8", 2);
  assert_all_returned(e);
  cuzk_engine_status_t st;
  cuzk_engine_status(e, &st);
  assert_int_equal(st.jobs_failed, 1);
  assert_int_equal(st.jobs_done, 2);
  cuzk_engine_free(e);
  cuzk_backend_free(&w->vt);
}

static void test_pinned_fallback_visible(void **state) {
  (void)state;
  reset();
  wrap_t *w = wrap_new();
  w->fail_alloc = true;
  cuzk_engine_t *e = mk(&w->vt, budget_for(8, 2), NULL);
  submit(e, 0, "synthetic-8", 2, -1);
  wait_done(1);
  verify_result(0, "synthetic-8", 2);
  for (unsigned i = 0; i < g_ntim; i++) assert_false(g_tim[i].is_pinned);
  cuzk_engine_status_t st;
  cuzk_engine_status(e, &st);
  assert_int_equal(st.pool.fallbacks, 2);
  assert_int_equal(st.pool.buffers, 0);
  assert_int_equal(st.budget.used, g_srs_bytes[8]);
  assert_all_returned(e);
  cuzk_engine_free(e);
  cuzk_backend_free(&w->vt);
}

static void verify_never(cuzk_engine_config_t *cfg) { cfg->verify = CUZK_VERIFY_NEVER; }

static void test_verify_never_reports_unverified(void **state) {
  (void)state;
  reset();
  char err[128];
  cuzk_backend_t *be = test_backend_new(err, sizeof err);
  cuzk_engine_t *e = mk(be, budget_for(8, 2), verify_never);
  submit(e, 0, "synthetic-8", 2, -1);
  wait_done(1);
  verify_result(0, "synthetic-8", 2); /* still valid, checked here */
  assert_false(g_res[0].verified);
  for (unsigned i = 0; i < g_ntim; i++) assert_int_equal(g_tim[i].verify_us, 0);
  cuzk_engine_free(e);
  cuzk_backend_free(be);
}

static void test_deadline_expires_queued_work(void **state) {
  (void)state;
  reset();
  wrap_t *w = wrap_new();
  gate(w, true);
  cuzk_engine_t *e = mk(&w->vt, budget_for(8, 1), NULL);
  submit(e, 0, "synthetic-8", 1, -1);
  wait_at_gate(w, 1);
  char err[256];
  cuzk_job_t j = {.job_id = "late", .circuit = "synthetic-8", .priority = -1,
                  .deadline_wall_ms = cuzk_wall_ms() + 50, .partitions = 2};
  assert_int_equal(cuzk_engine_submit(e, &j, on_done, &g_res[1], NULL, err, sizeof err), CUZK_OK);
  wait_done(1); /* expires while the blocker holds the budget */
  assert_int_equal(g_res[1].status, CUZK_ERR_EXPIRED);
  gate(w, false);
  wait_done(2);
  verify_result(0, "synthetic-8", 1);
  assert_all_returned(e);
  cuzk_engine_free(e);
  cuzk_backend_free(&w->vt);
}

static void test_admission_errors(void **state) {
  (void)state;
  reset();
  char err[256];
  cuzk_backend_t *be = test_backend_new(err, sizeof err);
  cuzk_engine_config_t cfg;
  cuzk_engine_config_init(&cfg);
  cuzk_engine_t *e = cuzk_engine_new(&cfg, be, err, sizeof err); /* no budget */
  assert_null(e);
  cfg.memory_budget = 1ull << 30;
  cfg.params_dir = g_dir;
  cfg.allow_insecure_params = false;
  e = cuzk_engine_new(&cfg, be, err, sizeof err);
  assert_non_null(e);
  cuzk_job_t j = {.job_id = "x", .circuit = "synthetic-8", .priority = -1};
  assert_int_equal(cuzk_engine_submit(e, &j, on_done, &g_res[0], NULL, err, sizeof err), CUZK_ERR_INSECURE_PARAMS);
  j.circuit = "nonesuch-8";
  assert_int_equal(cuzk_engine_submit(e, &j, on_done, &g_res[0], NULL, err, sizeof err), CUZK_ERR_BAD_JOB);
  j.circuit = "synthetic-99";
  assert_int_equal(cuzk_engine_submit(e, &j, on_done, &g_res[0], NULL, err, sizeof err), CUZK_ERR_BAD_JOB);
  j.circuit = "synthetic-12"; /* no parameters on disk */
  assert_int_not_equal(cuzk_engine_submit(e, &j, on_done, &g_res[0], NULL, err, sizeof err), CUZK_OK);
  uint8_t junk[4] = {1, 2, 3, 4};
  j.circuit = "synthetic-8";
  j.payload = junk;
  j.payload_len = sizeof junk;
  assert_int_equal(cuzk_engine_submit(e, &j, on_done, &g_res[0], NULL, err, sizeof err), CUZK_ERR_BAD_JOB);
  assert_int_equal(cuzk_engine_drain(e, 0), CUZK_OK);
  cuzk_engine_free(e);
  assert_int_equal(g_ndone, 0);

  /* parameters.json listing the file with another digest: refused. */
  cfg.allow_insecure_params = true;
  cuzk__ecircuit_t c;
  assert_int_equal(cuzk__ecircuit_resolve(&c, "synthetic-8", err, sizeof err), CUZK_OK);
  char json[400];
  snprintf(json, sizeof json, "%s/parameters.json", g_dir);
  FILE *f = fopen(json, "w");
  assert_non_null(f);
  fprintf(f, "{\"%s.params\": {\"cid\": \"x\", \"digest\": \"00000000000000000000000000000000\", "
             "\"sector_size\": 2048}}\n", c.stem);
  fclose(f);
  e = cuzk_engine_new(&cfg, be, err, sizeof err);
  assert_non_null(e);
  j = (cuzk_job_t){.job_id = "x", .circuit = "synthetic-8", .priority = -1};
  assert_int_equal(cuzk_engine_submit(e, &j, on_done, &g_res[0], NULL, err, sizeof err), CUZK_ERR_CHECKSUM);
  cuzk_engine_free(e);
  unlink(json);
  cuzk_backend_free(be);
}

static void test_srs_eviction_and_pce_cache(void **state) {
  (void)state;
  reset();
  char err[256], pce[300];
  snprintf(pce, sizeof pce, "%s/pce", g_dir);
  mkdir(pce, 0755);
  static char pce_path[300];
  snprintf(pce_path, sizeof pce_path, "%s", pce);
  cuzk_backend_t *be = test_backend_new(err, sizeof err);
  cuzk_engine_config_t cfg;
  cuzk_engine_config_init(&cfg);
  /* Room for the 2^10 parameters and partition, not for both parameter sets at once. */
  cfg.memory_budget = budget_for(10, 1);
  assert_true(cfg.memory_budget < g_srs_bytes[10] + g_srs_bytes[8] + 3 * abc_bytes(10) + rest_bytes(10));
  cfg.params_dir = g_dir;
  cfg.pce_cache_dir = pce_path;
  cfg.allow_insecure_params = true;
  cfg.on_timing = on_timing;
  for (int round = 0; round < 2; round++) {
    reset();
    cuzk_engine_t *e = cuzk_engine_new(&cfg, be, err, sizeof err);
    assert_non_null(e);
    submit(e, 0, "synthetic-8", 1, -1);
    wait_done(1);
    submit(e, 1, "synthetic-10", 1, -1); /* loading it evicts the idle 2^8 parameters */
    wait_done(2);
    verify_result(0, "synthetic-8", 1);
    verify_result(1, "synthetic-10", 1);
    cuzk_engine_status_t st;
    cuzk_engine_status(e, &st);
    assert_int_equal(st.srs_loads, 2);
    assert_int_equal(st.srs_evictions, 1);
    assert_int_equal(st.srs_resident, 1);
    assert_int_equal(st.srs_bytes, g_srs_bytes[10]);
    cuzk_engine_free(e);
    cuzk__ecircuit_t c;
    cuzk__ecircuit_resolve(&c, "synthetic-10", err, sizeof err);
    char path[600];
    snprintf(path, sizeof path, "%s/%s.pce", pce, c.stem);
    assert_int_equal(access(path, R_OK), 0); /* written in round 0, loaded in round 1 */
  }
  cuzk_backend_free(be);
}

static void test_shutdown_while_busy(void **state) {
  (void)state;
  reset();
  uint64_t seed = cuzk_test_seed();
  char err[128];
  cuzk_backend_t *be = test_backend_new(err, sizeof err);
  cuzk_engine_t *e = mk(be, budget_for(10, 3), NULL);
  for (unsigned j = 0; j < 6; j++) submit(e, j, j % 2 ? "synthetic-10" : "synthetic-8", 4, -1);
  cuzk_sleep_ms(20 + seed % 80);
  cuzk_engine_free(e);
  assert_int_equal(g_ndone, 6);
  for (unsigned j = 0; j < 6; j++) {
    assert_int_equal(g_res[j].calls, 1);
    assert_true(g_res[j].status == CUZK_OK || g_res[j].status == CUZK_ERR_CANCELLED);
  }
  cuzk_backend_free(be);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_proofs_verify_and_timing_ordered),
      cmocka_unit_test(test_grant_order_priority_then_oldest),
      cmocka_unit_test(test_double_count_regression),
      cmocka_unit_test(test_prewarm_is_paced),
      cmocka_unit_test(test_cancel_mid_flight),
      cmocka_unit_test(test_prove_start_failure_retry_then_fail),
      cmocka_unit_test(test_pinned_fallback_visible),
      cmocka_unit_test(test_verify_never_reports_unverified),
      cmocka_unit_test(test_deadline_expires_queued_work),
      cmocka_unit_test(test_admission_errors),
      cmocka_unit_test(test_srs_eviction_and_pce_cache),
      cmocka_unit_test(test_shutdown_while_busy),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
