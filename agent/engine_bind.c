/* cuzk_agent_engine_new: the agent's engine vtable (agent_engine.h) on core/engine with the
 * backend that engine.backend names (cuzk_agent_backend_new: auto = CUDA when built and a device
 * is present, else the CPU). */
#include "agent/agent_engine.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/backend_select.h"
#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/filecoin/post_job.h"
#include "core/util/log.h"

typedef struct {
  cuzk_agent_engine_t base; /* first: the vtable pointer is the struct */
  cuzk_engine_t *engine;
  cuzk_backend_t *backend;
} cuzk__bind_t;

typedef struct {
  cuzk_agent_done_fn done;
  void *user;
} cuzk__bind_job_t;

static void cuzk__bind_done(void *user, const cuzk_job_result_t *r) {
  cuzk__bind_job_t *bj = user;
  cuzk_agent_job_done_t d = {r->job_id,          r->status,     r->message,  r->proof,
                             r->proof_len,       r->partitions, r->verified, r->submitted_wall_us,
                             r->finished_wall_us};
  bj->done(bj->user, &d);
  free(bj);
}

static void cuzk__bind_timing(void *ctx, const cuzk_partition_timing_t *t) {
  cuzk__bind_t *b = ctx;
  cuzk_agent_timing_fn fn = atomic_load(&b->base.on_timing);
  if (!fn) return;
  cuzk_agent_timing_t o = {
      .job_id = t->job_id,
      .type = (int)t->type,
      .partition = t->partition,
      .partitions = t->partitions,
      .gpu = t->gpu,
      .enqueued = t->enqueued,
      .budget_granted = t->budget_granted,
      .synth_start = t->synth_start,
      .synth_end = t->synth_end,
      .gpu_queued = t->gpu_queued,
      .gpu_start = t->gpu_start,
      .gpu_end = t->gpu_end,
      .finish_end = t->finish_end,
      .h2d_bytes = t->h2d_bytes,
      .h2d_us = t->h2d_us,
      .ntt_us = t->ntt_us,
      .msm_h_us = t->msm_h_us,
      .msm_l_us = t->msm_l_us,
      .msm_a_us = t->msm_a_us,
      .msm_b_g1_us = t->msm_b_g1_us,
      .msm_b_g2_us = t->msm_b_g2_us,
      .is_pinned = t->is_pinned,
      .synthetic = t->synthetic,
      .pool_buffers = (int64_t)t->pool.buffers,
      .pool_bytes = (int64_t)t->pool.bytes,
      .pool_hits = (int64_t)t->pool.hits,
      .pool_misses = (int64_t)t->pool.misses,
      .pool_allocations = (int64_t)t->pool.allocations,
      .pool_frees = (int64_t)t->pool.frees,
      .budget_used = (int64_t)t->budget.used,
      .budget_total = (int64_t)t->budget.total,
  };
  fn(atomic_load(&b->base.on_timing_ctx), &o);
}

cuzk_err_t cuzk_agent_post_prepare(const cuzk_agent_job_t *job, const char **circuit,
                                   uint8_t **payload, size_t *payload_len, char *errstr,
                                   size_t errstr_size) {
  assert(job && circuit && payload && payload_len);
  assert(job->type == 0 || job->type == 1);
  *circuit = NULL;
  *payload = NULL;
  *payload_len = 0;
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(job->registered_proof);
  const char *tname = job->type == 0 ? "WINNING_POST" : "WINDOW_POST";
  if (!info)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                     "registered_proof %lld is not a RegisteredPoStProof",
                     (long long)job->registered_proof);
  if ((info->kind == CUZK_POST_WINNING) != (job->type == 0))
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "registered_proof %d (%s) in a %s job",
                     info->id, info->name, tname);
  if ((uint64_t)job->sector_size != info->sector_size)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                     "sector_size %lld disagrees with registered_proof %d (%s: %llu bytes)",
                     (long long)job->sector_size, info->id, info->name,
                     (unsigned long long)info->sector_size);
  const char *c = cuzk_post_job_circuit(info);
  if (!c)
    return cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size,
                     "registered_proof %d (%s): no circuit for this sector size in this build",
                     info->id, info->name);
  if (!job->randomness || job->randomness_len != 32)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                     "a %s job needs 32 bytes of randomness (got %zu)", tname,
                     job->randomness ? job->randomness_len : 0);
  if (job->n_sector_ids == 0)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "a %s job needs sector_ids", tname);
  uint8_t prover[32] = {0};
  if (job->prover_id_len == 32) {
    memcpy(prover, job->prover_id, 32);
  } else if (job->prover_id_len == 0) {
    /* filecoin-ffi's prover id: the ID address payload (unsigned LEB128 actor id), zero-padded */
    uint64_t v = (uint64_t)job->miner_id;
    for (int i = 0; i < 10; i++) {
      prover[i] = (uint8_t)(v & 0x7f);
      v >>= 7;
      if (!v) break;
      prover[i] |= 0x80;
    }
  } else {
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "prover_id of %zu bytes (want 32)",
                     job->prover_id_len);
  }
  uint64_t *ids = malloc(job->n_sector_ids * sizeof *ids);
  if (!ids) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "out of memory");
  for (size_t i = 0; i < job->n_sector_ids; i++) {
    if (job->sector_ids[i] < 0) {
      free(ids);
      return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "sector id %lld",
                       (long long)job->sector_ids[i]);
    }
    ids[i] = (uint64_t)job->sector_ids[i];
  }
  cuzk_post_job_spec_t spec = {job->registered_proof, prover,       job->randomness, ids,
                               job->n_sector_ids,     job->payload, job->payload_len};
  cuzk_err_t e = cuzk_post_job_encode(payload, payload_len, &spec);
  free(ids);
  if (e != CUZK_OK) return cuzk_errf(e, errstr, errstr_size, "out of memory");
  *circuit = c;
  return CUZK_OK;
}

static cuzk_err_t cuzk__bind_submit(cuzk_agent_engine_t *e, const cuzk_agent_job_t *job,
                                    cuzk_agent_done_fn done, void *user, char *errstr,
                                    size_t errstr_size) {
  cuzk__bind_t *b = (cuzk__bind_t *)e;
  cuzk__bind_job_t *bj = malloc(sizeof *bj);
  if (!bj) return CUZK_ERR_NOMEM;
  bj->done = done;
  bj->user = user;
  cuzk_job_t j;
  memset(&j, 0, sizeof j);
  j.job_id = job->job_id;
  j.type = job->type >= 0 && job->type < CUZK_PROOF__COUNT ? (cuzk_proof_type_t)job->type
                                                           : CUZK_PROOF_SYNTHETIC;
  j.circuit = job->circuit;
  j.payload = job->payload;
  j.payload_len = job->payload_len;
  j.priority = job->priority;
  j.deadline_wall_ms = job->deadline_wall_ms;
  uint8_t *post_payload = NULL;
  bool synthetic = job->circuit && strncmp(job->circuit, "synthetic", 9) == 0;
  if ((job->type == 0 || job->type == 1) && !synthetic) {
    size_t len = 0;
    cuzk_err_t err =
        cuzk_agent_post_prepare(job, &j.circuit, &post_payload, &len, errstr, errstr_size);
    if (err != CUZK_OK) {
      free(bj);
      return err;
    }
    j.payload = post_payload;
    j.payload_len = len;
  }
  cuzk_err_t err =
      cuzk_engine_submit(b->engine, &j, cuzk__bind_done, bj, NULL, errstr, errstr_size);
  free(post_payload);
  if (err != CUZK_OK) free(bj);
  return err;
}

static void cuzk__bind_status(cuzk_agent_engine_t *e, cuzk_agent_engine_status_t *out) {
  cuzk__bind_t *b = (cuzk__bind_t *)e;
  cuzk_engine_status_t s;
  cuzk_engine_status(b->engine, &s);
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 3 && i < CUZK_PRIO__COUNT; i++) out->queued[i] = s.queued[i];
  out->jobs_in_flight = s.jobs_in_flight;
  out->partitions_in_flight = s.partitions_in_flight;
  out->pool_buffers = (int64_t)s.pool.buffers;
  out->pool_bytes = (int64_t)s.pool.bytes;
  out->pool_hits = (int64_t)s.pool.hits;
  out->pool_misses = (int64_t)s.pool.misses;
  out->pool_allocations = (int64_t)s.pool.allocations;
  out->pool_frees = (int64_t)s.pool.frees;
  out->budget_used = (int64_t)s.budget.used;
  out->budget_total = (int64_t)s.budget.total;
  out->gpu_busy_ratio = s.gpu_busy_ratio;
  out->srs_resident = (int64_t)s.srs_resident;
  out->srs_bytes = (int64_t)s.srs_bytes;
}

static cuzk_err_t cuzk__bind_drain(cuzk_agent_engine_t *e, int timeout_ms) {
  return cuzk_engine_drain(((cuzk__bind_t *)e)->engine, timeout_ms);
}

static void cuzk__bind_free(cuzk_agent_engine_t *e) {
  cuzk__bind_t *b = (cuzk__bind_t *)e;
  if (!b) return;
  if (b->engine) cuzk_engine_free(b->engine);
  cuzk_backend_free(b->backend);
  free(b);
}

cuzk_agent_engine_t *cuzk_agent_engine_new(const cuzk_agent_engine_conf_t *conf, char *errstr,
                                           size_t errstr_size) {
  cuzk__bind_t *b = calloc(1, sizeof *b);
  if (!b) {
    snprintf(errstr, errstr_size, "out of memory");
    return NULL;
  }
  const char *bname = conf->backend ? conf->backend : conf->prefer_gpu ? "auto" : "cpu";
  b->backend = cuzk_agent_backend_new(bname, NULL, errstr, errstr_size);
  if (b->backend) CUZK_INFO("agent", "backend", "kind=%s requested=%s", b->backend->name, bname);
  if (!b->backend) {
    free(b);
    return NULL;
  }
  cuzk_engine_config_t ec;
  cuzk_engine_config_init(&ec);
  ec.memory_budget = conf->memory_budget;
  ec.synthesis_workers = conf->synthesis_workers;
  ec.synthesis_threads = conf->synthesis_threads;
  if (conf->gpu_workers_per_device) ec.gpu_workers_per_device = conf->gpu_workers_per_device;
  ec.verify = conf->verify == 1   ? CUZK_VERIFY_SAMPLE
              : conf->verify == 2 ? CUZK_VERIFY_NEVER
                                  : CUZK_VERIFY_ALWAYS;
  ec.verify_sample_percent = conf->verify_sample_percent;
  ec.params_dir = conf->params_dir;
  ec.allow_insecure_params = conf->allow_insecure_params;
  ec.timeline_file = conf->timeline_file;
  const char *lt = getenv("CUZK_TIMING");
  ec.log_timing = lt && strcmp(lt, "1") == 0;
  ec.on_timing = cuzk__bind_timing;
  ec.on_timing_ctx = b;
  b->base.impl = b;
  b->base.submit = cuzk__bind_submit;
  b->base.status = cuzk__bind_status;
  b->base.drain = cuzk__bind_drain;
  b->base.free = cuzk__bind_free;
  b->base.gpu = strcmp(b->backend->name, "cpu") != 0;
  b->engine = cuzk_engine_new(&ec, b->backend, errstr, errstr_size);
  if (!b->engine) {
    cuzk_backend_free(b->backend);
    free(b);
    return NULL;
  }
  return &b->base;
}
