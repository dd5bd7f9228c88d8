/* The agent's view of the proving engine: a small vtable so that agent.c need not include
 * core/engine/engine.h (whose cuzk_proof_type_t and cuzk_partition_timing_t clash with the Avro
 * mirrors in agent/avro/records.h). agent/engine_bind.c implements it on the real engine
 * (cuzk_engine_*, CPU backend); tests of the Kafka side may pass a table whose submit always
 * refuses.
 *
 * Ownership: cuzk_agent_engine_t is owned by whoever made it and freed with its free(); the
 * agent never frees it. Threads: submit/status from the poll thread; done and on_timing run on
 * engine threads and must only hand their data over (the agent copies and queues it).
 */
#ifndef CUZK_AGENT_AGENT_ENGINE_H
#define CUZK_AGENT_AGENT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

/* type: 0..3 = winning-post, window-post, snap-deals, porep-c2 (records.h order); 4 = synthetic. */
typedef struct {
  const char *job_id;
  int type;
  const char *circuit; /* circuit id, e.g. "synthetic-10" */
  const uint8_t *payload;
  size_t payload_len;
  int priority;              /* -1: from the type */
  uint64_t deadline_wall_ms; /* 0: none */
  /* The ProofJob's proof context (borrowed). For PoSt types with a non-synthetic circuit the
   * engine binding picks the circuit from registered_proof and hands the engine a PoSt job
   * (core/filecoin/post_job.h) built from these and the vanilla payload. */
  int64_t registered_proof;
  int64_t sector_size;
  int64_t miner_id;
  const uint8_t *prover_id; /* 32 bytes, or 0 bytes: from miner_id */
  size_t prover_id_len;
  const uint8_t *randomness; /* NULL: none */
  size_t randomness_len;
  const int64_t *sector_ids;
  size_t n_sector_ids;
} cuzk_agent_job_t;

typedef struct {
  const char *job_id;
  cuzk_err_t status;
  const char *message;
  const uint8_t *proof;
  size_t proof_len;
  uint32_t partitions;
  bool verified;
  uint64_t submitted_wall_us, finished_wall_us;
} cuzk_agent_job_done_t;

typedef struct {
  const char *job_id;
  int type;
  uint32_t partition, partitions;
  int gpu;
  uint64_t enqueued, budget_granted, synth_start, synth_end, gpu_queued, gpu_start, gpu_end,
      finish_end;
  uint64_t h2d_bytes, h2d_us, ntt_us, msm_h_us, msm_l_us, msm_a_us, msm_b_g1_us, msm_b_g2_us;
  bool is_pinned, synthetic;
  int64_t pool_buffers, pool_bytes, pool_hits, pool_misses, pool_allocations, pool_frees;
  int64_t budget_used, budget_total;
} cuzk_agent_timing_t;

typedef struct {
  size_t queued[3]; /* partitions waiting, by priority normal/high/critical */
  size_t jobs_in_flight, partitions_in_flight;
  int64_t pool_buffers, pool_bytes, pool_hits, pool_misses, pool_allocations, pool_frees;
  int64_t budget_used, budget_total;
  double gpu_busy_ratio;
  int64_t srs_resident, srs_bytes; /* circuits whose parameters are loaded, and their bytes */
} cuzk_agent_engine_status_t;

typedef void (*cuzk_agent_done_fn)(void *user, const cuzk_agent_job_done_t *res);
typedef void (*cuzk_agent_timing_fn)(void *ctx, const cuzk_agent_timing_t *t);

typedef struct cuzk_agent_engine cuzk_agent_engine_t;
struct cuzk_agent_engine {
  void *impl;
  /* Admits a job; done is then called exactly once from an engine thread. An error means not
   * admitted (done not called). */
  cuzk_err_t (*submit)(cuzk_agent_engine_t *e, const cuzk_agent_job_t *job, cuzk_agent_done_fn done,
                       void *user, char *errstr, size_t errstr_size);
  void (*status)(cuzk_agent_engine_t *e, cuzk_agent_engine_status_t *out);
  /* Stops admitting, waits up to timeout_ms for admitted work (TIMEOUT if some is left). */
  cuzk_err_t (*drain)(cuzk_agent_engine_t *e, int timeout_ms);
  void (*free)(cuzk_agent_engine_t *e);
  /* Where timing records go; set by the agent before the first submit. */
  _Atomic(cuzk_agent_timing_fn) on_timing;
  _Atomic(void *) on_timing_ctx;
  bool gpu; /* the backend is a GPU */
};

typedef struct {
  uint64_t memory_budget; /* bytes, > 0 */
  unsigned synthesis_workers;
  unsigned synthesis_threads;
  unsigned gpu_workers_per_device;
  int verify; /* 0 always, 1 sample, 2 never */
  unsigned verify_sample_percent;
  const char *params_dir;
  bool allow_insecure_params;
  const char *timeline_file;
  bool prefer_gpu; /* use the CUDA backend when built and a device is present */
  const char *backend; /* "auto", "cpu" or "cuda" (engine.backend); NULL: from prefer_gpu */
} cuzk_agent_engine_conf_t;

/* For a PoSt job (type 0 or 1) whose circuit is not synthetic: checks the ProofJob's context
 * (registered proof known and of the job's type, sector size agreeing, 32-byte randomness,
 * sector ids, 0 or 32 prover id bytes), picks the registry circuit by registered proof (*circuit
 * points to a static name) and encodes the engine payload (core/filecoin/post_job.h; *payload
 * malloc'd, caller frees). BAD_JOB for a bad context, UNSUPPORTED for a registered proof without
 * a circuit in this build (e.g. 8MiB), NOMEM. The vanilla proofs themselves are checked by the
 * engine at admission. */
cuzk_err_t cuzk_agent_post_prepare(const cuzk_agent_job_t *job, const char **circuit,
                                   uint8_t **payload, size_t *payload_len, char *errstr,
                                   size_t errstr_size);

/* The real engine on the CPU backend (or CUDA when prefer_gpu and available). NULL with errstr
 * when the engine is not part of this build or fails to start. */
cuzk_agent_engine_t *cuzk_agent_engine_new(const cuzk_agent_engine_conf_t *conf, char *errstr,
                                           size_t errstr_size);

#endif
