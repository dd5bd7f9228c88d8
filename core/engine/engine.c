/* The engine: admission, SRS manager, dispatcher, synthesis workers, GPU workers, finalizer.
 *
 * Locks (acquire in this order, never the reverse):
 *   e->mu      jobs, the scheduler heap, counters, job state;
 *   e->srs_mu  the SRS entries;
 *   budget / pool locks (inside those modules).
 * The budget calls evictors (pool shrink, SRS eviction) from the acquiring thread without its own
 * lock; the dispatcher never holds e->mu while reserving.
 *
 * A partition is "settled" exactly once (success or drop); settling returns everything it holds
 * (buffers, reservation, witness, pending, SRS reference). When a job's partitions are all
 * settled, its done callback runs on the finalizer thread.
 */
#include "core/engine/engine.h"

#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/engine/backend.h"
#include "core/engine/engine_circuit.h"
#include "core/engine/sched.h"
#include "core/groth16/verify.h"
#include "core/util/clock.h"
#include "core/util/log.h"
#include "core/util/pool.h"
#include "core/util/queue.h"

#define ENG_QUEUE_CAP 65536u
#define ENG_MAX_JOBS 4096u
#define ENG_DISPATCH_WAIT_MS 5
#define ENG_FR_BYTES 32u /* sizeof(cuzk_fr_t): 4 × 64-bit limbs */

/* ---- types -------------------------------------------------------------------------------- */

typedef struct srs_entry {
  struct srs_entry *next;
  cuzk__ecircuit_t circ;
  cuzk_r1cs_t *r1cs; /* recorded once, kept */
  uint64_t n, n_inputs, n_aux;
  cuzk_groth16_params_t *params; /* NULL while not resident */
  cuzk_groth16_pvk_t *pvk;
  cuzk_backend_srs_t *bsrs;
  cuzk_reservation_t *res; /* the parameters' bytes */
  unsigned refs;
  uint64_t last_used_us;
  bool loading;
} srs_entry_t;

typedef struct job job_t;

typedef struct {
  job_t *job;
  uint32_t idx;
  cuzk_reservation_t *res;
  cuzk_buf_t bufs[3];
  bool have_bufs;
  cuzk_fr_t *inputs, *aux;
  uint64_t n_inputs, n_aux;
  cuzk_backend_pending_t *pending;
  cuzk_partition_timing_t t;
  cuzk_backend_timings_t bt;
  bool settled;
} part_t;

struct job {
  job_t *next;
  char id[129];
  uint64_t seq;
  cuzk_proof_type_t type;
  cuzk_priority_t prio;
  uint64_t deadline_ms;
  uint8_t *payload;
  size_t payload_len;
  srs_entry_t *srs;
  uint32_t partitions, settled, queued;
  part_t *parts;
  uint8_t *proof;
  cuzk_err_t status;
  char message[256];
  bool all_verified;
  cuzk_job_done_fn done;
  void *user;
  uint64_t submitted_us;
};

typedef struct {
  cuzk_engine_t *e;
  int device;
} gpu_worker_arg_t;

struct cuzk_engine {
  cuzk_engine_config_t cfg;
  char *params_dir, *pce_dir, *timeline_path;
  cuzk_backend_t *be;
  int ndev;
  bool is_gpu; /* device 0 reports is_gpu (timing records say gpu = -1 otherwise) */
  cuzk_budget_t *budget;
  cuzk_pinned_pool_t *pool;

  pthread_mutex_t mu;
  pthread_cond_t cv_work; /* dispatcher: heap changed or stopping */
  pthread_cond_t cv_idle; /* drain: a job finished */
  cuzk_sched_t *heap;
  job_t *jobs;
  size_t njobs;
  uint64_t next_seq, grant_seq;
  uint64_t jobs_done, jobs_failed, parts_done;
  size_t parts_in_flight;
  bool closed, stopping;
  uint64_t start_us;
  uint64_t kernel_us_total;
  uint64_t verify_counter;

  pthread_mutex_t srs_mu;
  pthread_cond_t srs_cv;
  srs_entry_t *srs;
  uint64_t srs_loads, srs_evictions; /* under srs_mu */

  pthread_mutex_t *dev_mu;

  cuzk_queue_t *synth_q, *gpu_q, *fin_q;
  pthread_t dispatcher, finalizer;
  pthread_t *synth_threads, *gpu_threads;
  gpu_worker_arg_t *gpu_args;
  unsigned nsynth, ngpu;
  cuzk_pool_t *spmv_pool; /* shared by the synthesis workers' SpMV */
  bool dispatcher_started, finalizer_started;

  pthread_mutex_t tl_mu;
  FILE *timeline;
};

static __thread bool eng_on_finalizer;

static uint64_t eng_wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ---- configuration -------------------------------------------------------------------------- */

void cuzk_engine_config_init(cuzk_engine_config_t *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->gpu_workers_per_device = 2;
  cfg->verify = CUZK_VERIFY_ALWAYS;
  cfg->verify_sample_percent = 100;
  cfg->budget_timeout_ms = 30000;
  cfg->prewarm_pace_ms = 100;
  const char *t = getenv("CUZK_TIMING");
  cfg->log_timing = t && strcmp(t, "1") == 0;
}

static char *eng_strdup(const char *s) { return (s && *s) ? strdup(s) : NULL; }

/* ---- SRS manager ---------------------------------------------------------------------------- */

static void srs_unload_locked(cuzk_engine_t *e, srs_entry_t *s) {
  if (s->bsrs) e->be->srs_detach(e->be, s->bsrs);
  cuzk_groth16_pvk_free(s->pvk);
  cuzk_groth16_params_free(s->params);
  cuzk_reservation_release(s->res);
  s->bsrs = NULL, s->pvk = NULL, s->params = NULL, s->res = NULL;
}

/* Budget evictor: unloads refcount-0 parameters, least recently used first. */
static uint64_t srs_evict(void *ctx, uint64_t need) {
  cuzk_engine_t *e = ctx;
  uint64_t freed = 0;
  pthread_mutex_lock(&e->srs_mu);
  while (freed < need) {
    srs_entry_t *lru = NULL;
    for (srs_entry_t *s = e->srs; s; s = s->next)
      if (s->params && !s->loading && s->refs == 0 && (!lru || s->last_used_us < lru->last_used_us)) lru = s;
    if (!lru) break;
    uint64_t bytes = lru->res ? cuzk_reservation_held(lru->res) : 0;
    CUZK_INFO("engine", "srs_evict", "circuit=%s bytes=%" PRIu64, lru->circ.id, bytes);
    srs_unload_locked(e, lru);
    e->srs_evictions++;
    freed += bytes;
  }
  pthread_mutex_unlock(&e->srs_mu);
  return freed;
}

static cuzk_err_t srs_record(cuzk_engine_t *e, srs_entry_t *s, char *errstr, size_t errstr_size) {
  char path[1024];
  cuzk_err_t err;
  if (e->pce_dir) {
    snprintf(path, sizeof path, "%s/%s.pce", e->pce_dir, s->circ.stem);
    err = cuzk_r1cs_load(&s->r1cs, path, errstr, errstr_size);
    if (err == CUZK_OK) return CUZK_OK;
    if (err != CUZK_ERR_NOT_FOUND)
      CUZK_WARN("engine", "pce_reload", "circuit=%s path=%s err=%s reason=\"%s\"", s->circ.id, path,
                cuzk_err_name(err), errstr ? errstr : "");
  }
  uint64_t t0 = cuzk_now_us();
  err = cuzk__ecircuit_record(&s->circ, &s->r1cs, errstr, errstr_size);
  if (err != CUZK_OK) return err;
  CUZK_INFO("engine", "pce_recorded", "circuit=%s constraints=%" PRIu64 " us=%" PRIu64, s->circ.id,
            cuzk_r1cs_num_constraints(s->r1cs), cuzk_now_us() - t0);
  if (e->pce_dir) {
    char why[256] = "";
    cuzk_err_t se = cuzk_r1cs_save(s->r1cs, path, why, sizeof why);
    if (se != CUZK_OK)
      CUZK_WARN("engine", "pce_save_failed", "path=%s err=%s reason=\"%s\"", path, cuzk_err_name(se), why);
  }
  return CUZK_OK;
}

/* Loads the parameters of `s` (not holding srs_mu; s->loading is set by the caller). */
static cuzk_err_t srs_load(cuzk_engine_t *e, srs_entry_t *s, char *errstr, size_t errstr_size) {
  cuzk_err_t err = CUZK_OK;
  if (!s->r1cs) {
    err = srs_record(e, s, errstr, errstr_size);
    if (err != CUZK_OK) return err;
    s->n = cuzk_r1cs_domain_size(s->r1cs);
    s->n_inputs = cuzk_r1cs_num_inputs(s->r1cs);
    s->n_aux = cuzk_r1cs_num_aux(s->r1cs);
  }
  if (!e->params_dir)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size, "no params_dir configured for circuit %s", s->circ.id);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.params", e->params_dir, s->circ.stem);
  uint64_t t0 = cuzk_now_us();
  /* The trust rule (core/groth16/groth16.h): subgroup checks are skipped only for a file whose
   * Blake2b digest matches its entry in <params_dir>/parameters.json; a mismatch is an error; a
   * file without an entry is fully checked. */
  char json[1024];
  snprintf(json, sizeof json, "%s/parameters.json", e->params_dir);
  cuzk_groth16_params_t *p = NULL;
  bool trusted = false;
  err = cuzk_groth16_params_load_known(&p, path, json, &trusted, errstr, errstr_size);
  if (err != CUZK_OK) return err;
  err = cuzk_groth16_params_check_secure(p, e->cfg.allow_insecure_params);
  if (err != CUZK_OK) {
    cuzk_groth16_params_free(p);
    return cuzk_errf(err, errstr, errstr_size, "%s comes from an insecure test setup (allow_insecure_params is off)",
                     path);
  }
  err = cuzk_groth16_params_match(p, s->r1cs, errstr, errstr_size);
  cuzk_groth16_pvk_t *pvk = NULL;
  cuzk_backend_srs_t *bsrs = NULL;
  cuzk_reservation_t *res = NULL;
  if (err == CUZK_OK) {
    pvk = cuzk_groth16_pvk_new(&p->vk, errstr, errstr_size);
    if (!pvk) err = CUZK_ERR_NOMEM;
  }
  if (err == CUZK_OK) {
    uint64_t bytes = cuzk_groth16_params_size(p);
    err = cuzk_budget_reserve(e->budget, bytes, e->cfg.budget_timeout_ms, s->circ.id, &res, errstr, errstr_size);
    if (err == CUZK_ERR_TIMEOUT || err == CUZK_ERR_TOO_LARGE) err = CUZK_ERR_BUDGET;
  }
  if (err == CUZK_OK) err = e->be->srs_attach(e->be, p, s->r1cs, &bsrs, errstr, errstr_size);
  if (err != CUZK_OK) {
    cuzk_reservation_release(res);
    cuzk_groth16_pvk_free(pvk);
    cuzk_groth16_params_free(p);
    return err;
  }
  s->params = p, s->pvk = pvk, s->bsrs = bsrs, s->res = res;
  CUZK_INFO("engine", "srs_loaded",
            "circuit=%s path=%s bytes=%" PRIu64 " insecure=%d digest_trusted=%d us=%" PRIu64, s->circ.id, path,
            cuzk_reservation_held(res), (int)p->insecure, (int)trusted, cuzk_now_us() - t0);
  return CUZK_OK;
}

/* Makes `id` resident and takes `refs` references. */
static cuzk_err_t srs_acquire(cuzk_engine_t *e, const char *id, unsigned refs, srs_entry_t **out, char *errstr,
                              size_t errstr_size) {
  cuzk__ecircuit_t c;
  cuzk_err_t err = cuzk__ecircuit_resolve(&c, id, errstr, errstr_size);
  if (err != CUZK_OK) return err;
  pthread_mutex_lock(&e->srs_mu);
  srs_entry_t *s = e->srs;
  while (s && strcmp(s->circ.id, c.id) != 0) s = s->next;
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s) {
      pthread_mutex_unlock(&e->srs_mu);
      return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory");
    }
    s->circ = c;
    s->next = e->srs;
    e->srs = s;
  }
  while (s->loading) pthread_cond_wait(&e->srs_cv, &e->srs_mu);
  if (!s->params) {
    s->loading = true;
    pthread_mutex_unlock(&e->srs_mu);
    err = srs_load(e, s, errstr, errstr_size);
    pthread_mutex_lock(&e->srs_mu);
    s->loading = false;
    if (err == CUZK_OK) e->srs_loads++;
    pthread_cond_broadcast(&e->srs_cv);
  }
  if (err == CUZK_OK) {
    s->refs += refs;
    s->last_used_us = cuzk_now_us();
    *out = s;
  }
  pthread_mutex_unlock(&e->srs_mu);
  return err;
}

static void srs_release(cuzk_engine_t *e, srs_entry_t *s, unsigned refs) {
  pthread_mutex_lock(&e->srs_mu);
  assert(s->refs >= refs);
  s->refs -= refs;
  s->last_used_us = cuzk_now_us();
  pthread_mutex_unlock(&e->srs_mu);
}

/* ---- settling --------------------------------------------------------------------------------- */

static uint64_t part_abc_bytes(const job_t *j) { return j->srs->n * ENG_FR_BYTES; }
static uint64_t part_rest_bytes(const job_t *j) { return (j->srs->n_inputs + j->srs->n_aux) * ENG_FR_BYTES; }

static void job_complete(cuzk_engine_t *e, job_t *j);

/* Returns what the partition holds. No lock needed (the partition is owned by the caller). */
static void part_release(cuzk_engine_t *e, part_t *p) {
  if (p->have_bufs) {
    cuzk_pinned_pool_checkin(e->pool, p->bufs, p->res);
    p->have_bufs = false;
  }
  if (p->pending) {
    e->be->pending_free(e->be, p->pending);
    p->pending = NULL;
  }
  free(p->inputs), free(p->aux);
  p->inputs = p->aux = NULL;
  cuzk_reservation_release(p->res);
  p->res = NULL;
}

/* Caller holds e->mu. Records the first failure and drops the job's queued partitions. */
static void job_fail_locked(cuzk_engine_t *e, job_t *j, cuzk_err_t err, const char *msg);

/* Settles partition p (resources already released). Caller holds e->mu. Returns the job when it
 * became complete (the caller completes it after unlocking). */
static job_t *part_settle_locked(cuzk_engine_t *e, part_t *p, bool granted) {
  assert(!p->settled);
  p->settled = true;
  job_t *j = p->job;
  if (granted) {
    assert(e->parts_in_flight > 0);
    e->parts_in_flight--;
  }
  j->settled++;
  return j->settled == j->partitions ? j : NULL;
}

static void drop_queued(void *item, void *ctx) {
  part_t *p = item;
  cuzk_engine_t *e = ctx;
  p->job->queued--;
  srs_release(e, p->job->srs, 1);
  job_t *done = part_settle_locked(e, p, false);
  (void)done; /* completion is checked by job_fail_locked's caller */
}

static void job_fail_locked(cuzk_engine_t *e, job_t *j, cuzk_err_t err, const char *msg) {
  if (j->status == CUZK_OK) {
    j->status = err;
    snprintf(j->message, sizeof j->message, "%s", msg && *msg ? msg : cuzk_err_str(err));
  }
  cuzk_sched_remove_job(e->heap, j->seq, drop_queued, e);
  pthread_cond_broadcast(&e->cv_work);
}

/* Releases p and settles it; when err != OK the job fails. Any thread; takes e->mu. */
static void part_finish(cuzk_engine_t *e, part_t *p, cuzk_err_t err, const char *msg) {
  part_release(e, p);
  srs_release(e, p->job->srs, 1);
  pthread_mutex_lock(&e->mu);
  job_t *j = p->job;
  if (err != CUZK_OK) job_fail_locked(e, j, err, msg);
  else e->parts_done++;
  pthread_cond_broadcast(&e->cv_work);
  bool complete = part_settle_locked(e, p, true) != NULL || (j->settled == j->partitions);
  pthread_mutex_unlock(&e->mu);
  if (complete) job_complete(e, j);
}

/* ---- job completion -------------------------------------------------------------------------- */

static void job_free(job_t *j) {
  free(j->payload);
  free(j->parts);
  free(j->proof);
  free(j);
}

static void job_deliver(cuzk_engine_t *e, job_t *j) {
  cuzk_job_result_t r = {
      .job_id = j->id,
      .job_seq = j->seq,
      .status = j->status,
      .message = j->status == CUZK_OK ? NULL : j->message,
      .proof = j->status == CUZK_OK ? j->proof : NULL,
      .proof_len = j->status == CUZK_OK ? (size_t)j->partitions * CUZK_GROTH16_PROOF_BYTES : 0,
      .partitions = j->partitions,
      .verified = j->status == CUZK_OK && j->all_verified,
      .submitted_wall_us = j->submitted_us,
      .finished_wall_us = eng_wall_us(),
  };
  if (j->status == CUZK_OK)
    CUZK_INFO("engine", "job_done", "job_id=%s seq=%" PRIu64 " partitions=%u verified=%d ms=%" PRIu64, j->id, j->seq,
              j->partitions, (int)r.verified, (r.finished_wall_us - r.submitted_wall_us) / 1000);
  else
    CUZK_WARN("engine", "job_failed", "job_id=%s seq=%" PRIu64 " err=%s reason=\"%s\"", j->id, j->seq,
              cuzk_err_name(j->status), j->message);
  j->done(j->user, &r);
  pthread_mutex_lock(&e->mu);
  job_t **pp = &e->jobs;
  while (*pp && *pp != j) pp = &(*pp)->next;
  if (*pp) *pp = j->next;
  e->njobs--;
  if (j->status == CUZK_OK) e->jobs_done++;
  else e->jobs_failed++;
  pthread_cond_broadcast(&e->cv_idle);
  pthread_mutex_unlock(&e->mu);
  job_free(j);
}

/* The job's callback runs on the finalizer thread: from there at once, else through its queue
 * (tagged pointer: low bit set = a finished job). */
static void job_complete(cuzk_engine_t *e, job_t *j) {
  if (eng_on_finalizer) {
    job_deliver(e, j);
    return;
  }
  cuzk_err_t err = cuzk_queue_push(e->fin_q, (void *)((uintptr_t)j | 1u));
  assert(err == CUZK_OK && "finalizer queue closed with a job still in flight");
  (void)err;
}

/* ---- timing ---------------------------------------------------------------------------------- */

static void timeline_emit(cuzk_engine_t *e, const cuzk_partition_timing_t *t) {
  if (!e->timeline) return;
  struct {
    const char *phase;
    uint64_t a, b;
  } ph[] = {
      {"queued", t->enqueued, t->budget_granted}, {"synth", t->synth_start, t->synth_end},
      {"gpu_wait", t->gpu_queued, t->gpu_start},  {"gpu", t->gpu_start, t->gpu_end},
      {"finish", t->gpu_end, t->finish_end},
  };
  pthread_mutex_lock(&e->tl_mu);
  for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++) {
    if (!ph[i].a || !ph[i].b) continue;
    fprintf(e->timeline, "TIMELINE %" PRIu64 " %s %u %s start\n", ph[i].a, t->job_id, t->partition, ph[i].phase);
    fprintf(e->timeline, "TIMELINE %" PRIu64 " %s %u %s end\n", ph[i].b, t->job_id, t->partition, ph[i].phase);
  }
  fflush(e->timeline);
  pthread_mutex_unlock(&e->tl_mu);
}

static void timing_emit(cuzk_engine_t *e, part_t *p) {
  cuzk_partition_timing_t *t = &p->t;
  cuzk_pinned_pool_stats(e->pool, &t->pool);
  cuzk_budget_stats(e->budget, &t->budget);
  if (e->cfg.log_timing)
    CUZK_INFO("engine", "timing",
              "job_id=%s partition=%u/%u gpu=%d wait_us=%" PRIu64 " synth_us=%" PRIu64 " gpu_wait_us=%" PRIu64
              " gpu_us=%" PRIu64 " finish_us=%" PRIu64 " ntt_us=%" PRIu64 " msm_h_us=%" PRIu64 " msm_l_us=%" PRIu64
              " msm_a_us=%" PRIu64 " msm_b_g1_us=%" PRIu64 " msm_b_g2_us=%" PRIu64 " h2d_bytes=%" PRIu64
              " h2d_us=%" PRIu64 " is_pinned=%d pool_hit=%d attempts=%u",
              t->job_id, t->partition, t->partitions, t->gpu, t->budget_granted - t->enqueued,
              t->synth_end - t->synth_start, t->gpu_start - t->gpu_queued, t->gpu_end - t->gpu_start,
              t->finish_end - t->gpu_end, t->ntt_us, t->msm_h_us, t->msm_l_us, t->msm_a_us, t->msm_b_g1_us,
              t->msm_b_g2_us, t->h2d_bytes, t->h2d_us, (int)t->is_pinned, (int)t->pool_hit, t->attempts);
  timeline_emit(e, t);
  if (e->cfg.on_timing) e->cfg.on_timing(e->cfg.on_timing_ctx, t);
}

/* ---- dispatcher ------------------------------------------------------------------------------ */

/* Caller holds e->mu. Fails jobs whose deadline passed while they still have queued (not
 * started) partitions. Returns true when any job completed (the caller rescans). */
static job_t *expire_locked(cuzk_engine_t *e) {
  uint64_t now = cuzk_wall_ms();
  for (job_t *j = e->jobs; j; j = j->next) {
    if (j->deadline_ms && now > j->deadline_ms && j->status == CUZK_OK && j->queued > 0) {
      char msg[160];
      snprintf(msg, sizeof msg, "deadline passed %" PRIu64 " ms ago with %u partitions not started",
               now - j->deadline_ms, j->queued);
      job_fail_locked(e, j, CUZK_ERR_EXPIRED, msg);
      if (j->settled == j->partitions) return j;
    }
  }
  return NULL;
}

static void *dispatcher_main(void *arg) {
  cuzk_engine_t *e = arg;
  uint64_t wait_start = 0;
  cuzk_sched_key_t waiting_key = {0};
  bool warned = false;
  for (;;) {
    pthread_mutex_lock(&e->mu);
    job_t *done;
    while ((done = expire_locked(e)) != NULL) {
      /* Release sequence: completion outside the lock. */
      pthread_mutex_unlock(&e->mu);
      job_complete(e, done);
      pthread_mutex_lock(&e->mu);
    }
    while (!e->stopping && cuzk_sched_len(e->heap) == 0) {
      struct timespec ts = cuzk_deadline_ts(100);
      pthread_cond_timedwait(&e->cv_work, &e->mu, &ts);
      if ((done = expire_locked(e)) != NULL) break;
    }
    if (done) {
      pthread_mutex_unlock(&e->mu);
      job_complete(e, done);
      continue;
    }
    if (e->stopping) {
      pthread_mutex_unlock(&e->mu);
      break;
    }
    cuzk_sched_key_t key;
    part_t *p = cuzk_sched_peek(e->heap, &key);
    job_t *j = p->job; /* valid only under e->mu while p is queued */
    uint64_t abc = part_abc_bytes(j), rest = part_rest_bytes(j);
    char jid[sizeof j->id];
    memcpy(jid, j->id, sizeof jid);
    pthread_mutex_unlock(&e->mu);

    if (cuzk_sched_key_cmp(&key, &waiting_key) != 0) {
      waiting_key = key;
      wait_start = cuzk_now_us();
      warned = false;
    }
    /* Pool policy (DESIGN §4.3): idle pooled buffers are already paid for, so reserve only the
     * rest; otherwise reserve a/b/c too and the synthesis worker allocates them (moving those
     * bytes to the pool). Never evict pooled buffers that will serve this partition: the hit path
     * reserves without eviction (idle parameters may still go), and while buffers are lent (they
     * come back at the end of prove_start) the miss path waits for them instead of evicting. */
    cuzk_buf_t bufs[3];
    bool hit = false;
    cuzk_reservation_t *res = NULL;
    char why[256] = "";
    bool never_fits = rest > cuzk_budget_total(e->budget);
    cuzk_err_t err = cuzk_budget_try_reserve(e->budget, rest, &res);
    if (err == CUZK_ERR_BUDGET && srs_evict(e, rest) > 0) err = cuzk_budget_try_reserve(e->budget, rest, &res);
    if (err == CUZK_OK) {
      hit = cuzk_pinned_pool_try_checkout(e->pool, (size_t)abc, bufs);
      if (!hit) {
        cuzk_pool_stats_t ps;
        cuzk_pinned_pool_stats(e->pool, &ps);
        if (ps.buffers > ps.idle_buffers) {
          err = cuzk_reservation_try_grow(res, 3 * abc);
        } else {
          cuzk_reservation_release(res);
          res = NULL;
          never_fits = 3 * abc + rest > cuzk_budget_total(e->budget);
          err = cuzk_budget_reserve(e->budget, 3 * abc + rest, 0, "partition", &res, why, sizeof why);
        }
        if (err != CUZK_OK) {
          cuzk_reservation_release(res);
          res = NULL;
        }
      }
    }
    if (err != CUZK_OK) {
      if (never_fits || err == CUZK_ERR_NOMEM) {
        if (never_fits)
          snprintf(why, sizeof why, "a partition needs %" PRIu64 " bytes, the budget is %" PRIu64,
                   (hit ? rest : 3 * abc + rest), cuzk_budget_total(e->budget));
        pthread_mutex_lock(&e->mu);
        bool complete = false;
        if (cuzk_sched_peek(e->heap, NULL) == p) { /* still queued: the job is alive */
          job_fail_locked(e, j, err == CUZK_ERR_NOMEM ? CUZK_ERR_NOMEM : CUZK_ERR_BUDGET, why);
          complete = j->settled == j->partitions;
        }
        pthread_mutex_unlock(&e->mu);
        if (complete) job_complete(e, j);
        continue;
      }
      if (!warned && e->cfg.budget_timeout_ms >= 0 &&
          cuzk_now_us() - wait_start > (uint64_t)e->cfg.budget_timeout_ms * 1000u) {
        warned = true;
        cuzk_budget_stats_t bs;
        cuzk_budget_stats(e->budget, &bs);
        CUZK_WARN("engine", "budget_wait",
                  "job_id=%s partition=%u waited_ms=%" PRIu64 " need=%" PRIu64 " used=%" PRIu64 " total=%" PRIu64,
                  jid, key.partition, (cuzk_now_us() - wait_start) / 1000, hit ? rest : 3 * abc + rest, bs.used,
                  bs.total);
      }
      /* Wait for a release (buffers or budget come back: the stages kick cv_work). */
      pthread_mutex_lock(&e->mu);
      if (!e->stopping) {
        struct timespec ts = cuzk_deadline_ts(ENG_DISPATCH_WAIT_MS);
        pthread_cond_timedwait(&e->cv_work, &e->mu, &ts);
      }
      pthread_mutex_unlock(&e->mu);
      continue;
    }
    pthread_mutex_lock(&e->mu);
    cuzk_sched_key_t now_key;
    part_t *top = cuzk_sched_peek(e->heap, &now_key);
    if (top != p || e->stopping) {
      /* A more urgent item arrived or the job went away meanwhile: grant strictly in order. */
      pthread_mutex_unlock(&e->mu);
      if (hit) cuzk_pinned_pool_checkin(e->pool, bufs, NULL);
      cuzk_reservation_release(res);
      continue;
    }
    cuzk_sched_pop(e->heap, NULL);
    j->queued--;
    e->parts_in_flight++;
    p->res = res;
    p->have_bufs = hit;
    if (hit) memcpy(p->bufs, bufs, sizeof bufs);
    p->t.pool_hit = hit;
    p->t.budget_granted = eng_wall_us();
    p->t.grant_seq = ++e->grant_seq;
    err = cuzk_queue_push(e->synth_q, p);
    assert(err == CUZK_OK);
    pthread_mutex_unlock(&e->mu);
  }
  return NULL;
}

/* ---- synthesis -------------------------------------------------------------------------------- */

static bool job_alive(cuzk_engine_t *e, job_t *j) {
  pthread_mutex_lock(&e->mu);
  bool ok = j->status == CUZK_OK;
  pthread_mutex_unlock(&e->mu);
  return ok;
}

static cuzk_err_t part_spmv(cuzk_engine_t *e, part_t *p) {
  return cuzk_r1cs_spmv_on(e->spmv_pool, p->job->srs->r1cs, p->inputs, p->n_inputs, p->aux, p->n_aux, p->bufs[0].ptr, p->bufs[1].ptr,
                        p->bufs[2].ptr, p->job->srs->n);
}

static void *synth_main(void *arg) {
  cuzk_engine_t *e = arg;
  void *item;
  while (cuzk_queue_pop(e->synth_q, &item) == CUZK_OK) {
    part_t *p = item;
    job_t *j = p->job;
    if (!job_alive(e, j)) {
      part_finish(e, p, CUZK_ERR_CANCELLED, NULL);
      continue;
    }
    p->t.synth_start = eng_wall_us();
    char why[256] = "";
    cuzk_err_t err = CUZK_OK;
    if (!p->have_bufs) {
      err = cuzk_pinned_pool_checkout_alloc(e->pool, (size_t)part_abc_bytes(j), p->res, p->bufs, why, sizeof why);
      if (err != CUZK_OK) {
        part_finish(e, p, CUZK_ERR_NOMEM, why);
        continue;
      }
      p->have_bufs = true;
    }
    p->t.is_pinned = p->bufs[0].pinned && p->bufs[1].pinned && p->bufs[2].pinned;
    if (!p->t.is_pinned)
      CUZK_WARN("engine", "pinned_fallback", "job_id=%s partition=%u bytes=%" PRIu64 " reason=\"%s\"", j->id, p->idx,
                3 * part_abc_bytes(j), why[0] ? why : "pinned allocation failed");
    err = cuzk__ecircuit_witness_pce(&j->srs->circ, j->srs->r1cs, j->payload, j->payload_len, p->idx, &p->inputs,
                                     &p->n_inputs, &p->aux, &p->n_aux, why, sizeof why);
    if (err == CUZK_OK) {
      err = part_spmv(e, p);
      if (err != CUZK_OK) snprintf(why, sizeof why, "SpMV failed: %s", cuzk_err_str(err));
    }
    if (err != CUZK_OK) {
      part_finish(e, p, err, why);
      continue;
    }
    p->t.synth_end = eng_wall_us();
    p->t.gpu_queued = eng_wall_us();
    err = cuzk_queue_push(e->gpu_q, p);
    assert(err == CUZK_OK);
  }
  return NULL;
}

/* ---- GPU workers ------------------------------------------------------------------------------- */

static cuzk_err_t gpu_attempt(cuzk_engine_t *e, int dev, part_t *p, char *why, size_t why_size) {
  job_t *j = p->job;
  cuzk_backend_input_t in = {
      .a = p->bufs[0].ptr, .b = p->bufs[1].ptr, .c = p->bufs[2].ptr, .n = j->srs->n,
      .inputs = p->inputs, .n_inputs = p->n_inputs, .aux = p->aux, .n_aux = p->n_aux,
      .density_a_aux = cuzk_r1cs_density(j->srs->r1cs, CUZK_R1CS_DENSITY_A_AUX, NULL),
      .density_b_input = cuzk_r1cs_density(j->srs->r1cs, CUZK_R1CS_DENSITY_B_INPUT, NULL),
      .density_b_aux = cuzk_r1cs_density(j->srs->r1cs, CUZK_R1CS_DENSITY_B_AUX, NULL),
      .srs = j->srs->bsrs, .inputs_pinned = p->t.is_pinned,
  };
  pthread_mutex_lock(&e->dev_mu[dev]);
  uint64_t t0 = cuzk_now_us();
  if (!p->t.gpu_start) p->t.gpu_start = eng_wall_us();
  cuzk_err_t err = e->be->prove_start(e->be, dev, &in, &p->pending, &p->bt, why, why_size);
  uint64_t dt = cuzk_now_us() - t0;
  pthread_mutex_unlock(&e->dev_mu[dev]);
  p->t.attempts++;
  pthread_mutex_lock(&e->mu);
  e->kernel_us_total += dt;
  pthread_mutex_unlock(&e->mu);
  return err;
}

static void *gpu_main(void *arg) {
  gpu_worker_arg_t *ga = arg;
  cuzk_engine_t *e = ga->e;
  int dev = ga->device;
  void *item;
  while (cuzk_queue_pop(e->gpu_q, &item) == CUZK_OK) {
    part_t *p = item;
    job_t *j = p->job;
    if (!job_alive(e, j)) {
      part_finish(e, p, CUZK_ERR_CANCELLED, NULL);
      continue;
    }
    p->t.gpu = e->is_gpu ? dev : -1;
    char why[256] = "";
    cuzk_err_t err = gpu_attempt(e, dev, p, why, sizeof why);
    if (err != CUZK_OK && err != CUZK_ERR_UNSATISFIED && job_alive(e, j)) {
      CUZK_WARN("engine", "prove_start_retry", "job_id=%s partition=%u device=%d err=%s reason=\"%s\"", j->id, p->idx,
                dev, cuzk_err_name(err), why);
      /* prove_start clobbers a/b/c: evaluate them again before the retry. */
      cuzk_err_t se = part_spmv(e, p);
      if (se == CUZK_OK) err = gpu_attempt(e, dev, p, why, sizeof why);
    }
    p->t.gpu_end = eng_wall_us();
    /* The a/b/c buffers go back at once (heap fallbacks release their bytes too). */
    cuzk_pinned_pool_checkin(e->pool, p->bufs, p->res);
    p->have_bufs = false;
    pthread_mutex_lock(&e->mu);
    pthread_cond_broadcast(&e->cv_work);
    pthread_mutex_unlock(&e->mu);
    if (err != CUZK_OK) {
      char msg[320];
      snprintf(msg, sizeof msg, "prove_start failed on device %d after %u attempts: %s", dev, p->t.attempts, why);
      part_finish(e, p, err, msg);
      continue;
    }
    uint64_t aux_bytes = p->n_aux * ENG_FR_BYTES;
    free(p->aux);
    p->aux = NULL;
    if (aux_bytes <= cuzk_reservation_held(p->res)) cuzk_reservation_release_part(p->res, aux_bytes);
    err = cuzk_queue_push(e->fin_q, p);
    assert(err == CUZK_OK);
  }
  return NULL;
}

/* ---- finalizer --------------------------------------------------------------------------------- */

static void finalize_part(cuzk_engine_t *e, part_t *p) {
  job_t *j = p->job;
  if (!job_alive(e, j)) {
    part_finish(e, p, CUZK_ERR_CANCELLED, NULL);
    return;
  }
  char why[256] = "";
  cuzk_fr_t r, s;
  cuzk_err_t err = cuzk_fr_random(&r);
  if (err == CUZK_OK) err = cuzk_fr_random(&s);
  if (err != CUZK_OK) {
    part_finish(e, p, CUZK_ERR_INTERNAL, "CSPRNG failed");
    return;
  }
  uint8_t *out = j->proof + (size_t)p->idx * CUZK_GROTH16_PROOF_BYTES;
  cuzk_backend_pending_t *pend = p->pending;
  p->pending = NULL;
  err = e->be->prove_finish(e->be, pend, &r, &s, out, &p->bt, why, sizeof why);
  memset(&r, 0, sizeof r);
  memset(&s, 0, sizeof s);
  if (err != CUZK_OK) {
    part_finish(e, p, err, why);
    return;
  }
  bool verify = e->cfg.verify == CUZK_VERIFY_ALWAYS;
  if (e->cfg.verify == CUZK_VERIFY_SAMPLE) {
    pthread_mutex_lock(&e->mu);
    uint64_t k = e->verify_counter++;
    pthread_mutex_unlock(&e->mu);
    verify = (k % 100) < e->cfg.verify_sample_percent;
  }
  if (verify) {
    uint64_t t0 = cuzk_now_us();
    cuzk_groth16_proof_t pr;
    err = cuzk_groth16_proof_decode(&pr, out, 0);
    if (err == CUZK_OK) err = cuzk_groth16_verify(j->srs->pvk, &pr, p->inputs + 1, p->n_inputs - 1);
    p->t.verify_us = cuzk_now_us() - t0;
    if (err != CUZK_OK) {
      snprintf(why, sizeof why, "partition %u proof did not verify (%s)", p->idx, cuzk_err_name(err));
      part_finish(e, p, CUZK_ERR_VERIFY_FAILED, why);
      return;
    }
  } else {
    pthread_mutex_lock(&e->mu);
    j->all_verified = false;
    pthread_mutex_unlock(&e->mu);
  }
  cuzk_partition_timing_t *t = &p->t;
  t->h2d_bytes = p->bt.h2d_bytes, t->h2d_us = p->bt.h2d_us, t->ntt_us = p->bt.ntt_us;
  t->msm_h_us = p->bt.msm_h_us, t->msm_l_us = p->bt.msm_l_us, t->msm_a_us = p->bt.msm_a_us;
  t->msm_b_g1_us = p->bt.msm_b_g1_us, t->msm_b_g2_us = p->bt.msm_b_g2_us;
  t->kernel_us = p->bt.kernel_us, t->epilogue_us = p->bt.epilogue_us;
  part_release(e, p); /* before the snapshot: the record shows the budget after this partition */
  t->finish_end = eng_wall_us();
  timing_emit(e, p);
  part_finish(e, p, CUZK_OK, NULL);
}

static void *finalizer_main(void *arg) {
  cuzk_engine_t *e = arg;
  eng_on_finalizer = true;
  void *item;
  while (cuzk_queue_pop(e->fin_q, &item) == CUZK_OK) {
    if ((uintptr_t)item & 1u) job_deliver(e, (job_t *)((uintptr_t)item & ~(uintptr_t)1u));
    else finalize_part(e, item);
  }
  return NULL;
}

/* ---- public API ------------------------------------------------------------------------------- */

static void engine_teardown(cuzk_engine_t *e);

cuzk_engine_t *cuzk_engine_new(const cuzk_engine_config_t *cfg, cuzk_backend_t *backend, char *errstr,
                               size_t errstr_size) {
  assert(cfg && backend);
  if (cfg->memory_budget == 0) {
    cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size, "engine: memory_budget must be set");
    return NULL;
  }
  cuzk_engine_t *e = calloc(1, sizeof *e);
  if (!e) {
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "engine: no memory");
    return NULL;
  }
  e->cfg = *cfg;
  e->be = backend;
  e->params_dir = eng_strdup(cfg->params_dir);
  e->pce_dir = eng_strdup(cfg->pce_cache_dir);
  e->timeline_path = eng_strdup(cfg->timeline_file);
  e->cfg.params_dir = e->params_dir;
  e->cfg.pce_cache_dir = e->pce_dir;
  e->cfg.timeline_file = e->timeline_path;
  e->cfg.preload = NULL, e->cfg.n_preload = 0;
  if (e->cfg.gpu_workers_per_device == 0) e->cfg.gpu_workers_per_device = 2;
  if (e->cfg.verify_sample_percent > 100) e->cfg.verify_sample_percent = 100;
  e->ndev = backend->device_count(backend);
  e->start_us = cuzk_now_us();
  e->next_seq = 1;
  pthread_mutex_init(&e->mu, NULL);
  pthread_mutex_init(&e->srs_mu, NULL);
  pthread_mutex_init(&e->tl_mu, NULL);
  cuzk_cond_init_monotonic(&e->cv_work);
  cuzk_cond_init_monotonic(&e->cv_idle);
  pthread_cond_init(&e->srs_cv, NULL);
  if (e->ndev <= 0) {
    cuzk_errf(CUZK_ERR_NO_DEVICE, errstr, errstr_size, "engine: backend %s has no device", backend->name);
    goto fail;
  }
  cuzk_backend_device_info_t info;
  e->is_gpu = backend->device_info(backend, 0, &info) == CUZK_OK && info.is_gpu;
  e->budget = cuzk_budget_new(cfg->memory_budget);
  e->heap = cuzk_sched_new();
  e->synth_q = cuzk_queue_new(ENG_QUEUE_CAP);
  e->gpu_q = cuzk_queue_new(ENG_QUEUE_CAP);
  e->fin_q = cuzk_queue_new(ENG_QUEUE_CAP);
  e->dev_mu = calloc((size_t)e->ndev, sizeof *e->dev_mu);
  if (!e->budget || !e->heap || !e->synth_q || !e->gpu_q || !e->fin_q || !e->dev_mu) {
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "engine: no memory");
    goto fail;
  }
  for (int d = 0; d < e->ndev; d++) pthread_mutex_init(&e->dev_mu[d], NULL);
  cuzk_host_allocator_t ha = {
      .alloc = (void *(*)(void *, size_t, char *, size_t))backend->host_alloc,
      .free = (void (*)(void *, void *, size_t))backend->host_free,
      .ctx = backend,
  };
  e->pool = cuzk_pinned_pool_new(&ha, e->budget, errstr, errstr_size);
  if (!e->pool) goto fail;
  cuzk_budget_add_evictor(e->budget, "srs", srs_evict, e);
  if (e->timeline_path) {
    e->timeline = fopen(e->timeline_path, "a");
    if (!e->timeline) {
      cuzk_errf(CUZK_ERR_IO, errstr, errstr_size, "engine: cannot open timeline file %s", e->timeline_path);
      goto fail;
    }
  }
  for (size_t i = 0; i < cfg->n_preload; i++) {
    char why[256] = "";
    cuzk_err_t err = cuzk_engine_prewarm(e, cfg->preload[i], cfg->prewarm_partitions, false, why, sizeof why);
    if (err != CUZK_OK) {
      cuzk_errf(err, errstr, errstr_size, "engine: preload %s: %s", cfg->preload[i], why);
      goto fail;
    }
  }
  e->nsynth = cfg->synthesis_workers;
  if (e->nsynth == 0) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    e->nsynth = ncpu > 1 ? (unsigned)(ncpu / 2) : 1;
  }
  {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned nthr = cfg->synthesis_threads;
    if (nthr == 0) nthr = ncpu > (long)e->nsynth ? (unsigned)(ncpu - (long)e->nsynth) : 1;
    e->spmv_pool = cuzk_pool_new(nthr, errstr, errstr_size);
    if (!e->spmv_pool) goto fail;
  }
  e->ngpu = e->cfg.gpu_workers_per_device * (unsigned)e->ndev;
  e->synth_threads = calloc(e->nsynth, sizeof *e->synth_threads);
  e->gpu_threads = calloc(e->ngpu, sizeof *e->gpu_threads);
  e->gpu_args = calloc(e->ngpu, sizeof *e->gpu_args);
  if (!e->synth_threads || !e->gpu_threads || !e->gpu_args) {
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "engine: no memory");
    goto fail;
  }
  unsigned want_synth = e->nsynth, want_gpu = e->ngpu;
  e->nsynth = e->ngpu = 0;
  if (pthread_create(&e->finalizer, NULL, finalizer_main, e) != 0) goto thread_fail;
  e->finalizer_started = true;
  for (unsigned i = 0; i < want_gpu; i++) {
    e->gpu_args[i] = (gpu_worker_arg_t){e, (int)(i % (unsigned)e->ndev)};
    if (pthread_create(&e->gpu_threads[i], NULL, gpu_main, &e->gpu_args[i]) != 0) goto thread_fail;
    e->ngpu++;
  }
  for (unsigned i = 0; i < want_synth; i++) {
    if (pthread_create(&e->synth_threads[i], NULL, synth_main, e) != 0) goto thread_fail;
    e->nsynth++;
  }
  if (pthread_create(&e->dispatcher, NULL, dispatcher_main, e) != 0) goto thread_fail;
  e->dispatcher_started = true;
  CUZK_INFO("engine", "started",
            "backend=%s devices=%d synthesis_workers=%u synthesis_threads=%u gpu_workers=%u budget=%" PRIu64
            " verify=%d",
            backend->name, e->ndev, e->nsynth, cuzk_pool_size(e->spmv_pool), e->ngpu, cfg->memory_budget, (int)cfg->verify);
  return e;
thread_fail:
  cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "engine: cannot start threads");
fail:
  engine_teardown(e);
  return NULL;
}

cuzk_err_t cuzk_engine_prewarm(cuzk_engine_t *e, const char *circuit, unsigned partitions, bool wait, char *errstr,
                               size_t errstr_size) {
  srs_entry_t *s = NULL;
  cuzk_err_t err = srs_acquire(e, circuit, 0, &s, errstr, errstr_size);
  if (err != CUZK_OK) return err;
  if (partitions > 0) {
    err = cuzk_pinned_pool_prewarm(e->pool, (size_t)(s->n * ENG_FR_BYTES), 3 * partitions, e->cfg.prewarm_pace_ms);
    if (err != CUZK_OK) return cuzk_errf(err, errstr, errstr_size, "pre-warm failed");
    if (wait) cuzk_pinned_pool_prewarm_wait(e->pool);
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_engine_submit(cuzk_engine_t *e, const cuzk_job_t *job, cuzk_job_done_fn done, void *user,
                              uint64_t *job_seq, char *errstr, size_t errstr_size) {
  assert(e && job && done);
  if (!job->job_id || strlen(job->job_id) > 128)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "job id missing or longer than 128 bytes");
  if (job->payload_len && !job->payload)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "payload length without payload");
  pthread_mutex_lock(&e->mu);
  bool closed = e->closed || e->stopping;
  bool full = e->njobs >= ENG_MAX_JOBS;
  pthread_mutex_unlock(&e->mu);
  if (closed) return cuzk_errf(CUZK_ERR_CLOSED, errstr, errstr_size, "engine is draining");
  if (full) return cuzk_errf(CUZK_ERR_BUSY, errstr, errstr_size, "%u jobs in flight", ENG_MAX_JOBS);

  cuzk__ecircuit_t c;
  cuzk_err_t err = cuzk__ecircuit_resolve(&c, job->circuit, errstr, errstr_size);
  if (err != CUZK_OK) return err;
  uint32_t parts = job->partitions ? job->partitions : c.default_partitions;
  bool validated = false;
  if (!job->partitions && job->payload_len && c.circuit->partitions) {
    validated = true;
    /* the payload decides (PoSt: sectors / sectors per partition) and is validated in full */
    err = cuzk__ecircuit_partitions(&c, job->payload, job->payload_len, &parts, errstr, errstr_size);
    if (err != CUZK_OK) return err;
  }
  if (parts == 0 || parts > 1u << 20)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "%u partitions", parts);

  job_t *j = calloc(1, sizeof *j);
  if (!j) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory");
  snprintf(j->id, sizeof j->id, "%s", job->job_id);
  j->type = job->type;
  j->prio = job->priority < 0 ? cuzk_proof_type_priority(job->type)
            : job->priority >= CUZK_PRIO__COUNT ? CUZK_PRIO_CRITICAL
                                                : (cuzk_priority_t)job->priority;
  j->deadline_ms = job->deadline_wall_ms;
  j->partitions = parts;
  j->done = done;
  j->user = user;
  j->all_verified = true;
  j->submitted_us = eng_wall_us();
  j->parts = calloc(parts, sizeof *j->parts);
  j->proof = calloc(parts, CUZK_GROTH16_PROOF_BYTES);
  if (job->payload_len) {
    j->payload = malloc(job->payload_len);
    if (j->payload) memcpy(j->payload, job->payload, job->payload_len);
    j->payload_len = job->payload_len;
  }
  if (!j->parts || !j->proof || (job->payload_len && !j->payload)) {
    job_free(j);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory");
  }
  if (job->payload_len && !validated) {
    /* Validate the payload now (a bad job is refused, never admitted). */
    cuzk_fr_t *in = NULL, *aux = NULL;
    uint64_t ni, na;
    err = cuzk__ecircuit_witness(&c, j->payload, j->payload_len, 0, &in, &ni, &aux, &na, errstr, errstr_size);
    free(in), free(aux);
    if (err != CUZK_OK) {
      job_free(j);
      return err == CUZK_ERR_NOMEM ? err : CUZK_ERR_BAD_JOB;
    }
  }
  err = srs_acquire(e, job->circuit, parts, &j->srs, errstr, errstr_size);
  if (err != CUZK_OK) {
    job_free(j);
    if (err == CUZK_ERR_INSECURE_PARAMS || err == CUZK_ERR_NOMEM) return err;
    return err;
  }
  uint64_t now = eng_wall_us();
  pthread_mutex_lock(&e->mu);
  if (e->closed || e->stopping) {
    pthread_mutex_unlock(&e->mu);
    srs_release(e, j->srs, parts);
    job_free(j);
    return cuzk_errf(CUZK_ERR_CLOSED, errstr, errstr_size, "engine is draining");
  }
  j->seq = e->next_seq++;
  for (uint32_t i = 0; i < parts; i++) {
    part_t *p = &j->parts[i];
    p->job = j;
    p->idx = i;
    snprintf(p->t.job_id, sizeof p->t.job_id, "%s", j->id);
    p->t.type = j->type;
    p->t.partition = i;
    p->t.partitions = parts;
    p->t.gpu = -1;
    p->t.synthetic = c.type == CUZK_PROOF_SYNTHETIC;
    p->t.enqueued = now;
    cuzk_sched_key_t key = {j->prio, j->seq, i};
    err = cuzk_sched_push(e->heap, key, p);
    if (err != CUZK_OK) {
      cuzk_sched_remove_job(e->heap, j->seq, NULL, NULL);
      pthread_mutex_unlock(&e->mu);
      srs_release(e, j->srs, parts);
      job_free(j);
      return cuzk_errf(err, errstr, errstr_size, "cannot queue partition %u", i);
    }
  }
  j->queued = parts;
  j->next = e->jobs;
  e->jobs = j;
  e->njobs++;
  if (job_seq) *job_seq = j->seq;
  pthread_cond_broadcast(&e->cv_work);
  pthread_mutex_unlock(&e->mu);
  CUZK_DEBUG("engine", "job_admitted", "job_id=%s seq=%" PRIu64 " circuit=%s partitions=%u priority=%s", j->id, j->seq,
             c.id, parts, cuzk_priority_name(j->prio));
  return CUZK_OK;
}

cuzk_err_t cuzk_engine_cancel(cuzk_engine_t *e, uint64_t job_seq) {
  pthread_mutex_lock(&e->mu);
  job_t *j = e->jobs;
  while (j && j->seq != job_seq) j = j->next;
  if (!j || j->status != CUZK_OK || j->settled == j->partitions) {
    pthread_mutex_unlock(&e->mu);
    return CUZK_ERR_NOT_FOUND;
  }
  job_fail_locked(e, j, CUZK_ERR_CANCELLED, "cancelled");
  bool complete = j->settled == j->partitions;
  pthread_mutex_unlock(&e->mu);
  if (complete) job_complete(e, j);
  return CUZK_OK;
}

void cuzk_engine_status(cuzk_engine_t *e, cuzk_engine_status_t *out) {
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&e->mu);
  cuzk_sched_depths(e->heap, out->queued);
  out->jobs_in_flight = e->njobs;
  out->partitions_in_flight = e->parts_in_flight;
  out->jobs_done = e->jobs_done;
  out->jobs_failed = e->jobs_failed;
  out->partitions_done = e->parts_done;
  out->draining = e->closed;
  uint64_t wall = cuzk_now_us() - e->start_us;
  out->gpu_busy_ratio = wall ? (double)e->kernel_us_total / ((double)wall * (double)e->ndev) : 0.0;
  pthread_mutex_unlock(&e->mu);
  cuzk_budget_stats(e->budget, &out->budget);
  cuzk_pinned_pool_stats(e->pool, &out->pool);
  pthread_mutex_lock(&e->srs_mu);
  for (srs_entry_t *s = e->srs; s; s = s->next)
    if (s->params) {
      out->srs_resident++;
      out->srs_bytes += s->res ? cuzk_reservation_held(s->res) : 0;
    }
  out->srs_loads = e->srs_loads;
  out->srs_evictions = e->srs_evictions;
  pthread_mutex_unlock(&e->srs_mu);
}

cuzk_err_t cuzk_engine_drain(cuzk_engine_t *e, int timeout_ms) {
  pthread_mutex_lock(&e->mu);
  e->closed = true;
  uint64_t deadline = timeout_ms >= 0 ? cuzk_now_us() + (uint64_t)timeout_ms * 1000u : 0;
  cuzk_err_t err = CUZK_OK;
  while (e->njobs > 0) {
    if (timeout_ms < 0) {
      pthread_cond_wait(&e->cv_idle, &e->mu);
      continue;
    }
    uint64_t now = cuzk_now_us();
    if (now >= deadline) {
      err = CUZK_ERR_TIMEOUT;
      break;
    }
    struct timespec ts = cuzk_deadline_ts((deadline - now + 999) / 1000);
    pthread_cond_timedwait(&e->cv_idle, &e->mu, &ts);
  }
  pthread_mutex_unlock(&e->mu);
  return err;
}

static void engine_teardown(cuzk_engine_t *e) {
  pthread_mutex_lock(&e->mu);
  e->closed = true;
  e->stopping = true;
  job_t *complete[ENG_MAX_JOBS];
  size_t ncomplete = 0;
  for (job_t *j = e->jobs; j; j = j->next) {
    if (j->settled == j->partitions) continue; /* already on its way to the finalizer */
    job_fail_locked(e, j, CUZK_ERR_CANCELLED, "engine shut down");
    if (j->settled == j->partitions && ncomplete < ENG_MAX_JOBS) complete[ncomplete++] = j;
  }
  pthread_cond_broadcast(&e->cv_work);
  pthread_mutex_unlock(&e->mu);
  for (size_t i = 0; i < ncomplete; i++) job_complete(e, complete[i]);
  if (e->dispatcher_started) pthread_join(e->dispatcher, NULL);
  if (e->synth_q) cuzk_queue_close(e->synth_q);
  for (unsigned i = 0; i < e->nsynth; i++) pthread_join(e->synth_threads[i], NULL);
  if (e->gpu_q) cuzk_queue_close(e->gpu_q);
  for (unsigned i = 0; i < e->ngpu; i++) pthread_join(e->gpu_threads[i], NULL);
  cuzk_pool_free(e->spmv_pool); /* after the workers that use it */
  e->spmv_pool = NULL;
  if (e->fin_q) cuzk_queue_close(e->fin_q);
  if (e->finalizer_started) pthread_join(e->finalizer, NULL);
  assert(e->jobs == NULL);

  if (e->pool) cuzk_pinned_pool_free(e->pool);
  for (srs_entry_t *s = e->srs, *nx; s; s = nx) {
    nx = s->next;
    srs_unload_locked(e, s);
    cuzk_r1cs_free(s->r1cs);
    free(s);
  }
  if (e->budget) cuzk_budget_free(e->budget);
  cuzk_sched_free(e->heap);
  cuzk_queue_free(e->synth_q);
  cuzk_queue_free(e->gpu_q);
  cuzk_queue_free(e->fin_q);
  if (e->dev_mu)
    for (int d = 0; d < e->ndev; d++) pthread_mutex_destroy(&e->dev_mu[d]);
  free(e->dev_mu);
  free(e->synth_threads);
  free(e->gpu_threads);
  free(e->gpu_args);
  if (e->timeline) fclose(e->timeline);
  free(e->params_dir);
  free(e->pce_dir);
  free(e->timeline_path);
  pthread_mutex_destroy(&e->mu);
  pthread_mutex_destroy(&e->srs_mu);
  pthread_mutex_destroy(&e->tl_mu);
  pthread_cond_destroy(&e->cv_work);
  pthread_cond_destroy(&e->cv_idle);
  pthread_cond_destroy(&e->srs_cv);
  free(e);
}

void cuzk_engine_free(cuzk_engine_t *e) {
  if (!e) return;
  assert(!eng_on_finalizer && "cuzk_engine_free from a callback");
  engine_teardown(e);
  CUZK_INFO("engine", "stopped", "%s", "");
}
