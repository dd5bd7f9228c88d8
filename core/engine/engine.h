/* The pinned-pool pipelined proving engine (DESIGN §3, §4).
 *
 * A job (one proof request: a circuit, a payload, a priority) is split into partitions. Each
 * partition flows: queued (scheduler heap keyed priority/job_seq/partition) → budget granted by the
 * single dispatcher, strictly in heap order → synthesis worker (witness + a/b/c into pinned buffers
 * checked out from the pool) → GPU worker (backend prove_start under the device lock; a/b/c buffers
 * and their budget return when it ends) → finalizer (prove_finish, verification, timing record,
 * release). When every partition of a job is done the job's callback gets the concatenated proof.
 *
 * Threads: every public function may be called from any thread except where noted; callbacks run
 * on engine threads (the finalizer) and must not block for long nor call cuzk_engine_free.
 * Ownership: the engine copies everything it needs from a submitted job; results handed to
 * callbacks are valid only during the call.
 */
#ifndef CUZK_ENGINE_ENGINE_H
#define CUZK_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/engine/budget.h"
#include "core/engine/pinned_pool.h"
#include "core/engine/types.h"
#include "core/util/err.h"

typedef struct cuzk_engine cuzk_engine_t;
typedef struct cuzk_backend cuzk_backend_t; /* core/engine/backend.h */

typedef enum {
  CUZK_VERIFY_ALWAYS = 0, /* verify every partition proof before publishing (default) */
  CUZK_VERIFY_SAMPLE = 1, /* verify verify_sample_percent of partitions */
  CUZK_VERIFY_NEVER = 2,
} cuzk_verify_mode_t;

/* One timing record per partition (DESIGN §4.9). Timestamps are wall-clock microseconds since the
 * Unix epoch (0 = phase not reached); durations are microseconds. */
typedef struct {
  char job_id[129];
  cuzk_proof_type_t type;
  uint32_t partition, partitions;
  int gpu; /* device index, -1 for the CPU backend */
  uint64_t enqueued, budget_granted, synth_start, synth_end, gpu_queued, gpu_start, gpu_end, finish_end;
  uint64_t h2d_bytes, h2d_us, ntt_us, msm_h_us, msm_l_us, msm_a_us, msm_b_g1_us, msm_b_g2_us;
  uint64_t kernel_us;   /* backend prove_start time (device busy) */
  uint64_t epilogue_us; /* backend prove_finish time */
  uint64_t verify_us;
  uint64_t grant_seq;   /* 1, 2, ...: the order in which the dispatcher granted budget */
  uint32_t attempts;    /* prove_start calls (2 after a retry) */
  bool pool_hit;        /* a/b/c came from idle pooled buffers (no allocation) */
  bool is_pinned;
  bool synthetic;
  cuzk_pool_stats_t pool;     /* snapshot when the partition finished */
  cuzk_budget_stats_t budget; /* snapshot when the partition finished */
} cuzk_partition_timing_t;

typedef struct {
  uint64_t memory_budget;             /* bytes (> 0) */
  unsigned synthesis_workers;         /* 0: number of CPUs / 2, at least 1 */
  unsigned synthesis_threads;         /* pool threads the workers' SpMV shares (each worker
                                         also works on its own SpMV); 0: CPUs minus
                                         synthesis_workers, at least 1, so workers + pool = CPUs */
  unsigned gpu_workers_per_device;    /* default 2 */
  cuzk_verify_mode_t verify;          /* default ALWAYS */
  unsigned verify_sample_percent;     /* for SAMPLE */
  int budget_timeout_ms;              /* a reservation waits this long before logging and retrying */
  const char *params_dir;             /* where circuit parameters live (copied): <stem>.params as
                                         `cuzk setup` names them; checked against
                                         parameters.json there when it lists the file */
  bool allow_insecure_params;         /* accept parameters from a test setup */
  const char *timeline_file;          /* "" or NULL: none; else TIMELINE events appended (copied):
                                         one line per event,
                                           TIMELINE <wall_us> <job_id> <partition> <phase> start|end
                                         phases queued (enqueued → budget granted), synth,
                                         gpu_wait (queued for a device), gpu (prove_start),
                                         finish (prove_finish + verify); a partition's lines are
                                         written together when it finishes, so sort by wall_us */
  bool log_timing;                    /* also log every timing record (CUZK_TIMING=1 sets it) */
  unsigned prewarm_pace_ms;           /* pinned pool pre-warm pacing */
  const char *pce_cache_dir;          /* NULL or "": matrices cached in memory only (copied) */
  const char *const *preload;         /* circuits to load at start (n_preload; copied) */
  size_t n_preload;
  unsigned prewarm_partitions;        /* per preloaded circuit: pre-warm a/b/c buffers for this
                                         many partitions (3 buffers each) */
  /* Timing records go here (from the finalizer thread). May be NULL. */
  void (*on_timing)(void *ctx, const cuzk_partition_timing_t *t);
  void *on_timing_ctx;
} cuzk_engine_config_t;

/* Fills the defaults above (memory_budget 0 means "must be set"). */
void cuzk_engine_config_init(cuzk_engine_config_t *cfg);

/* A proof request. Everything is copied by cuzk_engine_submit. */
typedef struct {
  const char *job_id;        /* caller's id, at most 128 bytes; echoed in results and timing */
  cuzk_proof_type_t type;
  const char *circuit;       /* circuit id in the circuit registry, e.g. "synthetic-14" */
  const uint8_t *payload;    /* vanilla proof / witness source, circuit-specific */
  size_t payload_len;
  int priority;              /* -1: from the type (WinningPoSt CRITICAL, WindowPoSt HIGH, else NORMAL) */
  uint64_t deadline_wall_ms; /* 0: none; work not started by then ends as CUZK_ERR_EXPIRED */
  uint32_t partitions;       /* 0: the circuit's count (from the payload; synthetic: 1) */
} cuzk_job_t;

typedef struct {
  const char *job_id;
  uint64_t job_seq;
  cuzk_err_t status;    /* CUZK_OK, or why the job failed (typed) */
  const char *message;  /* human detail when status != OK */
  const uint8_t *proof; /* 192 bytes per partition, concatenated; NULL unless OK */
  size_t proof_len;
  uint32_t partitions;
  bool verified;        /* every partition proof was verified */
  uint64_t submitted_wall_us, finished_wall_us;
} cuzk_job_result_t;

typedef void (*cuzk_job_done_fn)(void *user, const cuzk_job_result_t *res);

typedef struct {
  size_t queued[CUZK_PRIO__COUNT]; /* partitions waiting for budget, by priority */
  size_t jobs_in_flight, partitions_in_flight;
  uint64_t jobs_done, jobs_failed, partitions_done;
  cuzk_budget_stats_t budget;
  cuzk_pool_stats_t pool;
  double gpu_busy_ratio;           /* kernel time over wall time since start */
  size_t srs_resident;             /* circuits whose parameters are loaded */
  uint64_t srs_bytes;              /* their budget */
  uint64_t srs_loads, srs_evictions;
  bool draining;
} cuzk_engine_status_t;

/* Starts the engine's threads on `backend` (not owned; must outlive the engine). NULL on error
 * with the reason in errstr. */
cuzk_engine_t *cuzk_engine_new(const cuzk_engine_config_t *cfg, cuzk_backend_t *backend, char *errstr,
                               size_t errstr_size);

/* Admits a job; `done(user, result)` is called exactly once, later, from an engine thread (also
 * for failures after admission). Errors here mean the job was NOT admitted and done is not called:
 * CUZK_ERR_CLOSED (draining), CUZK_ERR_BAD_JOB (unknown circuit, bad payload: message in errstr),
 * CUZK_ERR_INSECURE_PARAMS, CUZK_ERR_NOMEM. job_seq (optional) receives the engine's sequence. */
cuzk_err_t cuzk_engine_submit(cuzk_engine_t *e, const cuzk_job_t *job, cuzk_job_done_fn done, void *user,
                              uint64_t *job_seq, char *errstr, size_t errstr_size);

/* Cancels a job: queued partitions are dropped, running ones finish their current phase; done is
 * called with CUZK_ERR_CANCELLED. CUZK_ERR_NOT_FOUND if the job is unknown or already done. */
cuzk_err_t cuzk_engine_cancel(cuzk_engine_t *e, uint64_t job_seq);

void cuzk_engine_status(cuzk_engine_t *e, cuzk_engine_status_t *out);

/* Stops admitting and waits until every admitted job is done (timeout_ms < 0: forever).
 * CUZK_ERR_TIMEOUT if work remains. Admission stays closed afterwards. */
cuzk_err_t cuzk_engine_drain(cuzk_engine_t *e, int timeout_ms);

/* Pre-warms the pinned pool with a/b/c buffers for `partitions` partitions of `circuit` (loading
 * it, like a preload), paced by prewarm_pace_ms; waits for the allocations when `wait`. */
cuzk_err_t cuzk_engine_prewarm(cuzk_engine_t *e, const char *circuit, unsigned partitions, bool wait,
                               char *errstr, size_t errstr_size);

/* Cancels what is left, joins every thread, frees everything. Not from a callback. */
void cuzk_engine_free(cuzk_engine_t *e);

#endif
