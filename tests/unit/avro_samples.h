/* Sample records for the Avro tests (test_avro_codec.c, test_avro_fuzz.c, test_avro_oracle.c).
 * Every builder fills a valid record from the RNG; strings and buffers point into `arena`
 * (static storage of the caller), so the records are never passed to cuzk_avro_record_clear. */
#ifndef CUZK_TESTS_UNIT_AVRO_SAMPLES_H
#define CUZK_TESTS_UNIT_AVRO_SAMPLES_H

#include "agent/avro/codec.h"
#include "tests/support/testlib.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  char strs[32][48];
  uint8_t bufs[8][256];
  int64_t longs[16];
  cuzk_label_t labels[4];
  cuzk_queue_depth_t queues[3];
  cuzk_srs_entry_t srs[2];
  cuzk_gpu_info_t gpus[2];
  int ns, nb;
} sample_arena_t;

static inline char *sample_str(sample_arena_t *a, cuzk_test_rng_t *r, const char *prefix) {
  char *s = a->strs[a->ns++ % 32];
  /* Non-ASCII and JSON-special characters on purpose: UTF-8 must survive both codecs. */
  snprintf(s, 48, "%s-%llu-\xc3\xa9\"\\", prefix, (unsigned long long)(cuzk_test_rng_next(r) % 100000));
  return s;
}

static inline cuzk_bytes_t sample_bytes(sample_arena_t *a, cuzk_test_rng_t *r, size_t len) {
  uint8_t *b = a->bufs[a->nb++ % 8];
  if (len > 256)
    len = 256;
  cuzk_test_rng_bytes(r, b, len);
  return (cuzk_bytes_t){b, len};
}

static inline int64_t sample_long(cuzk_test_rng_t *r) {
  uint64_t v = cuzk_test_rng_next(r);
  switch (v & 3) {
  case 0: return (int64_t)(v >> 2) % 1000;
  case 1: return -(int64_t)((v >> 2) % 1000);
  case 2: return (int64_t)v; /* any 64-bit value */
  default: return (v & 4) ? INT64_MAX : INT64_MIN;
  }
}

static inline void sample_job(cuzk_proof_job_t *j, sample_arena_t *a, cuzk_test_rng_t *r) {
  memset(j, 0, sizeof *j);
  static const int64_t sizes[5] = {2048, 8 << 20, 512 << 20, INT64_C(32) << 30, INT64_C(64) << 30};
  j->job_id = sample_str(a, r, "job");
  j->proof_type = (cuzk_proof_type_t)(cuzk_test_rng_next(r) % CUZK_PROOF_TYPE__COUNT);
  int sz = (int)(cuzk_test_rng_next(r) % 5);
  switch (j->proof_type) {
  case CUZK_PROOF_TYPE_WINNING_POST: j->registered_proof = sz; break;
  case CUZK_PROOF_TYPE_WINDOW_POST: j->registered_proof = 10 + sz; break;
  case CUZK_PROOF_TYPE_SNAP_DEALS: j->registered_proof = sz; break;
  default: j->registered_proof = 5 + sz; break;
  }
  j->sector_size = sizes[sz];
  j->miner_id = (int64_t)(cuzk_test_rng_next(r) % 1000000);
  j->prover_id = sample_bytes(a, r, 32);
  bool post = j->proof_type <= CUZK_PROOF_TYPE_WINDOW_POST;
  j->n_sector_ids = post ? 1 + cuzk_test_rng_next(r) % 16 : 1;
  j->sector_ids = a->longs;
  for (size_t i = 0; i < j->n_sector_ids; i++)
    a->longs[i] = (int64_t)(cuzk_test_rng_next(r) >> 1);
  j->has_randomness = post;
  if (post)
    j->randomness = sample_bytes(a, r, 32);
  j->has_priority = cuzk_test_rng_next(r) & 1;
  j->priority = (int32_t)(cuzk_test_rng_next(r) % 10);
  if (!j->has_priority)
    j->priority = 0;
  j->has_deadline = cuzk_test_rng_next(r) & 1;
  j->deadline_ms = j->has_deadline ? 1767225600000 + (int64_t)(cuzk_test_rng_next(r) % 100000) : 0;
  j->created_at_ms = 1767225600000;
  j->payload_is_ref = cuzk_test_rng_next(r) & 1;
  if (j->payload_is_ref) {
    j->payload_ref.uri = (cuzk_test_rng_next(r) & 1) ? "file:///var/lib/cuzk/c1.json"
                                                      : "https://example.invalid/p?x=1";
    cuzk_test_rng_bytes(r, j->payload_ref.sha256, 32);
    j->payload_ref.size = 1 + (int64_t)(cuzk_test_rng_next(r) % 100000000);
  } else {
    j->payload = sample_bytes(a, r, 1 + cuzk_test_rng_next(r) % 200);
  }
  switch (j->proof_type) {
  case CUZK_PROOF_TYPE_WINNING_POST:
  case CUZK_PROOF_TYPE_WINDOW_POST: j->payload_format = CUZK_PAYLOAD_POST_VANILLA_BINCODE; break;
  case CUZK_PROOF_TYPE_SNAP_DEALS: j->payload_format = CUZK_PAYLOAD_SNAP_VANILLA_JSON; break;
  default: j->payload_format = CUZK_PAYLOAD_POREP_C1_JSON; break;
  }
  j->attempt = (int32_t)(cuzk_test_rng_next(r) % 3);
  j->n_labels = cuzk_test_rng_next(r) % 3;
  j->labels = a->labels;
  for (size_t i = 0; i < j->n_labels; i++) {
    a->labels[i].key = i == 0 ? "traceparent" : "team";
    a->labels[i].value = sample_str(a, r, "v");
  }
}

static inline void sample_result(cuzk_proof_result_t *x, sample_arena_t *a, cuzk_test_rng_t *r) {
  memset(x, 0, sizeof *x);
  x->job_id = sample_str(a, r, "job");
  x->proof_type = (cuzk_proof_type_t)(cuzk_test_rng_next(r) % CUZK_PROOF_TYPE__COUNT);
  x->status = (cuzk_result_status_t)(cuzk_test_rng_next(r) % CUZK_RESULT__COUNT);
  x->partitions = 1;
  x->has_proof = x->status == CUZK_RESULT_OK;
  if (x->has_proof)
    x->proof = sample_bytes(a, r, 192);
  x->has_error = !x->has_proof;
  if (x->has_error) {
    x->error.code = "CUZK_ERR_BAD_JOB";
    x->error.message = sample_str(a, r, "msg");
    x->error.retriable = cuzk_test_rng_next(r) & 1;
  }
  x->agent_id = sample_str(a, r, "agent");
  x->started_at_ms = sample_long(r);
  x->finished_at_ms = sample_long(r);
  x->verified = cuzk_test_rng_next(r) & 1;
  x->has_timing = cuzk_test_rng_next(r) & 1;
  if (x->has_timing)
    x->timing = (cuzk_timing_summary_t){sample_long(r), sample_long(r), sample_long(r),
                                        sample_long(r), sample_long(r)};
  x->attempt = (int32_t)(cuzk_test_rng_next(r) % 5);
  x->n_labels = 1;
  x->labels = a->labels;
  a->labels[0].key = "k";
  a->labels[0].value = sample_str(a, r, "v");
}

static inline void sample_timing(cuzk_partition_timing_t *t, sample_arena_t *a, cuzk_test_rng_t *r) {
  memset(t, 0, sizeof *t);
  t->job_id = sample_str(a, r, "job");
  t->proof_type = (cuzk_proof_type_t)(cuzk_test_rng_next(r) % CUZK_PROOF_TYPE__COUNT);
  t->partition = (int32_t)(cuzk_test_rng_next(r) % 16);
  t->agent_id = sample_str(a, r, "agent");
  t->gpu = (int32_t)(cuzk_test_rng_next(r) % 9) - 1;
  int64_t *ts[] = {&t->enqueued_us, &t->budget_granted_us, &t->synth_start_us, &t->synth_end_us,
                   &t->gpu_queued_us, &t->gpu_start_us, &t->gpu_end_us, &t->finish_end_us,
                   &t->h2d_bytes, &t->h2d_us, &t->ntt_us, &t->msm_h_us, &t->msm_l_us,
                   &t->msm_a_us, &t->msm_b_g1_us, &t->msm_b_g2_us};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
    *ts[i] = sample_long(r);
  t->is_pinned = cuzk_test_rng_next(r) & 1;
  t->pool = (cuzk_pool_stats_t){sample_long(r), sample_long(r), sample_long(r),
                                sample_long(r), sample_long(r), sample_long(r)};
  t->budget = (cuzk_budget_stats_t){sample_long(r), sample_long(r)};
  t->synthetic = cuzk_test_rng_next(r) & 1;
}

static inline void sample_status(cuzk_agent_status_t *s, sample_arena_t *a, cuzk_test_rng_t *r) {
  memset(s, 0, sizeof *s);
  s->agent_id = sample_str(a, r, "agent");
  s->host = sample_str(a, r, "host");
  s->version = "0.1.0";
  s->git_commit = "0123456789ab";
  s->time_ms = sample_long(r);
  s->n_queues = cuzk_test_rng_next(r) % 4;
  s->queues = a->queues;
  for (size_t i = 0; i < s->n_queues; i++)
    a->queues[i] = (cuzk_queue_depth_t){(int32_t)i, sample_long(r)};
  s->pool = (cuzk_pool_stats_t){1, 2, 3, 4, 5, 6};
  s->budget = (cuzk_budget_stats_t){sample_long(r), sample_long(r)};
  s->n_srs = cuzk_test_rng_next(r) % 3;
  s->srs = a->srs;
  for (size_t i = 0; i < s->n_srs; i++)
    a->srs[i] = (cuzk_srs_entry_t){sample_str(a, r, "circuit"),
                                   (cuzk_srs_tier_t)(cuzk_test_rng_next(r) % CUZK_SRS_TIER__COUNT),
                                   sample_long(r), (int32_t)i};
  s->n_gpus = cuzk_test_rng_next(r) % 3;
  s->gpus = a->gpus;
  for (size_t i = 0; i < s->n_gpus; i++)
    a->gpus[i] = (cuzk_gpu_info_t){(int32_t)i, "NVIDIA H200", INT64_C(150) << 30,
                                   sample_long(r), (double)(cuzk_test_rng_next(r) % 1000) / 1000.0};
  s->jobs_in_flight = (int32_t)(cuzk_test_rng_next(r) % 100);
  s->uptime_s = sample_long(r);
}

static inline void sample_dead(cuzk_dead_letter_t *d, sample_arena_t *a, cuzk_test_rng_t *r) {
  memset(d, 0, sizeof *d);
  d->job_id = (cuzk_test_rng_next(r) & 1) ? sample_str(a, r, "job") : NULL;
  d->topic = "cuzk.jobs.window-post";
  d->partition = (int32_t)(cuzk_test_rng_next(r) % 64);
  d->offset = sample_long(r);
  d->has_key = cuzk_test_rng_next(r) & 1;
  if (d->has_key)
    d->key = sample_bytes(a, r, cuzk_test_rng_next(r) % 40);
  d->reason = "CUZK_ERR_SCHEMA";
  d->message = sample_str(a, r, "unknown schema");
  d->value = sample_bytes(a, r, cuzk_test_rng_next(r) % 256);
  d->value_size = (int64_t)d->value.len + (int64_t)(cuzk_test_rng_next(r) % 1000);
  d->agent_id = sample_str(a, r, "agent");
  d->time_ms = sample_long(r);
}

/* Fills the sample of `type` into rec (a union big enough for any record). */
typedef union {
  cuzk_proof_job_t job;
  cuzk_proof_result_t result;
  cuzk_partition_timing_t timing;
  cuzk_agent_status_t status;
  cuzk_dead_letter_t dead;
} sample_any_t;

static inline void sample_record(cuzk_avro_type_t type, sample_any_t *rec, sample_arena_t *a,
                                 cuzk_test_rng_t *r) {
  switch (type) {
  case CUZK_AVRO_PROOF_JOB: sample_job(&rec->job, a, r); break;
  case CUZK_AVRO_PROOF_RESULT: sample_result(&rec->result, a, r); break;
  case CUZK_AVRO_PARTITION_TIMING: sample_timing(&rec->timing, a, r); break;
  case CUZK_AVRO_AGENT_STATUS: sample_status(&rec->status, a, r); break;
  default: sample_dead(&rec->dead, a, r); break;
  }
}

/* ---- JSON rendering, in the shape tests/oracles/avro_roundtrip.py gives python-avro's datums:
 * bytes and fixed as lowercase hex, enums as symbols, null unions as null. ---- */

static const char *const sj_proof_type[] = {"WINNING_POST", "WINDOW_POST", "SNAP_DEALS", "POREP_C2"};
static const char *const sj_format[] = {"POST_VANILLA_BINCODE", "POST_VANILLA_JSON",
                                        "SNAP_VANILLA_BINCODE", "SNAP_VANILLA_JSON",
                                        "POREP_C1_JSON", "POREP_C1_BINCODE"};
static const char *const sj_status[] = {"OK", "REJECTED", "EXPIRED", "FAILED", "CANCELLED"};
static const char *const sj_tier[] = {"DEVICE", "HOT", "WARM", "COLD"};

static inline json_t *sj_hex(const uint8_t *p, size_t n) {
  char *h = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++)
    snprintf(h + 2 * i, 3, "%02x", p[i]);
  h[2 * n] = '\0';
  json_t *j = json_string(h);
  free(h);
  return j;
}
static inline json_t *sj_bytes(cuzk_bytes_t b) { return sj_hex(b.data, b.len); }
static inline json_t *sj_str(const char *s) { return s ? json_string(s) : json_null(); }
static inline json_t *sj_int(int64_t v) { return json_integer((json_int_t)v); }
static inline json_t *sj_labels(const cuzk_label_t *l, size_t n) {
  json_t *o = json_object();
  for (size_t i = 0; i < n; i++)
    json_object_set_new(o, l[i].key, json_string(l[i].value));
  return o;
}
static inline json_t *sj_pool(const cuzk_pool_stats_t *p) {
  return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "buffers", sj_int(p->buffers), "bytes",
                   sj_int(p->bytes), "hits", sj_int(p->hits), "misses", sj_int(p->misses),
                   "allocations", sj_int(p->allocations), "frees", sj_int(p->frees));
}
static inline json_t *sj_budget(const cuzk_budget_stats_t *b) {
  return json_pack("{s:o,s:o}", "used", sj_int(b->used), "total", sj_int(b->total));
}

/* A new JSON object for `rec` (caller json_decref's it). */
static inline json_t *sample_json(cuzk_avro_type_t type, const void *rec) {
  json_t *o = json_object();
#define SET(k, v) json_object_set_new(o, k, v)
  switch (type) {
  case CUZK_AVRO_PROOF_JOB: {
    const cuzk_proof_job_t *j = rec;
    SET("job_id", sj_str(j->job_id));
    SET("proof_type", json_string(sj_proof_type[j->proof_type]));
    SET("registered_proof", sj_int(j->registered_proof));
    SET("sector_size", sj_int(j->sector_size));
    SET("miner_id", sj_int(j->miner_id));
    SET("prover_id", sj_bytes(j->prover_id));
    json_t *ids = json_array();
    for (size_t i = 0; i < j->n_sector_ids; i++)
      json_array_append_new(ids, sj_int(j->sector_ids[i]));
    SET("sector_ids", ids);
    SET("randomness", j->has_randomness ? sj_bytes(j->randomness) : json_null());
    SET("priority", j->has_priority ? sj_int(j->priority) : json_null());
    SET("deadline", j->has_deadline ? sj_int(j->deadline_ms) : json_null());
    SET("created_at", sj_int(j->created_at_ms));
    if (j->payload_is_ref)
      SET("payload", json_pack("{s:o,s:o,s:o}", "uri", sj_str(j->payload_ref.uri), "sha256",
                               sj_hex(j->payload_ref.sha256, 32), "size",
                               sj_int(j->payload_ref.size)));
    else
      SET("payload", sj_bytes(j->payload));
    SET("payload_format", json_string(sj_format[j->payload_format]));
    SET("attempt", sj_int(j->attempt));
    SET("labels", sj_labels(j->labels, j->n_labels));
    break;
  }
  case CUZK_AVRO_PROOF_RESULT: {
    const cuzk_proof_result_t *x = rec;
    SET("job_id", sj_str(x->job_id));
    SET("proof_type", json_string(sj_proof_type[x->proof_type]));
    SET("status", json_string(sj_status[x->status]));
    SET("proof", x->has_proof ? sj_bytes(x->proof) : json_null());
    SET("partitions", sj_int(x->partitions));
    SET("error", x->has_error ? json_pack("{s:o,s:o,s:b}", "code", sj_str(x->error.code), "message",
                                          sj_str(x->error.message), "retriable", x->error.retriable)
                              : json_null());
    SET("agent_id", sj_str(x->agent_id));
    SET("started_at", sj_int(x->started_at_ms));
    SET("finished_at", sj_int(x->finished_at_ms));
    SET("verified", json_boolean(x->verified));
    SET("timing", x->has_timing
                      ? json_pack("{s:o,s:o,s:o,s:o,s:o}", "queue_us", sj_int(x->timing.queue_us),
                                  "synth_us", sj_int(x->timing.synth_us), "gpu_us",
                                  sj_int(x->timing.gpu_us), "finish_us", sj_int(x->timing.finish_us),
                                  "total_us", sj_int(x->timing.total_us))
                      : json_null());
    SET("attempt", sj_int(x->attempt));
    SET("labels", sj_labels(x->labels, x->n_labels));
    break;
  }
  case CUZK_AVRO_PARTITION_TIMING: {
    const cuzk_partition_timing_t *t = rec;
    SET("job_id", sj_str(t->job_id));
    SET("proof_type", json_string(sj_proof_type[t->proof_type]));
    SET("partition", sj_int(t->partition));
    SET("agent_id", sj_str(t->agent_id));
    SET("gpu", sj_int(t->gpu));
    SET("enqueued", sj_int(t->enqueued_us));
    SET("budget_granted", sj_int(t->budget_granted_us));
    SET("synth_start", sj_int(t->synth_start_us));
    SET("synth_end", sj_int(t->synth_end_us));
    SET("gpu_queued", sj_int(t->gpu_queued_us));
    SET("gpu_start", sj_int(t->gpu_start_us));
    SET("gpu_end", sj_int(t->gpu_end_us));
    SET("finish_end", sj_int(t->finish_end_us));
    SET("h2d_bytes", sj_int(t->h2d_bytes));
    SET("h2d_us", sj_int(t->h2d_us));
    SET("ntt_us", sj_int(t->ntt_us));
    SET("msm_h_us", sj_int(t->msm_h_us));
    SET("msm_l_us", sj_int(t->msm_l_us));
    SET("msm_a_us", sj_int(t->msm_a_us));
    SET("msm_b_g1_us", sj_int(t->msm_b_g1_us));
    SET("msm_b_g2_us", sj_int(t->msm_b_g2_us));
    SET("is_pinned", json_boolean(t->is_pinned));
    SET("pool", sj_pool(&t->pool));
    SET("budget", sj_budget(&t->budget));
    SET("synthetic", json_boolean(t->synthetic));
    break;
  }
  case CUZK_AVRO_AGENT_STATUS: {
    const cuzk_agent_status_t *s = rec;
    SET("agent_id", sj_str(s->agent_id));
    SET("host", sj_str(s->host));
    SET("version", sj_str(s->version));
    SET("git_commit", sj_str(s->git_commit));
    SET("time", sj_int(s->time_ms));
    json_t *q = json_array(), *srs = json_array(), *g = json_array();
    for (size_t i = 0; i < s->n_queues; i++)
      json_array_append_new(q, json_pack("{s:o,s:o}", "priority", sj_int(s->queues[i].priority),
                                         "depth", sj_int(s->queues[i].depth)));
    for (size_t i = 0; i < s->n_srs; i++)
      json_array_append_new(srs, json_pack("{s:o,s:s,s:o,s:o}", "circuit", sj_str(s->srs[i].circuit),
                                           "tier", sj_tier[s->srs[i].tier], "bytes",
                                           sj_int(s->srs[i].bytes), "refcount",
                                           sj_int(s->srs[i].refcount)));
    for (size_t i = 0; i < s->n_gpus; i++)
      json_array_append_new(g, json_pack("{s:o,s:o,s:o,s:o,s:f}", "index", sj_int(s->gpus[i].index),
                                         "name", sj_str(s->gpus[i].name), "mem_total",
                                         sj_int(s->gpus[i].mem_total), "mem_free",
                                         sj_int(s->gpus[i].mem_free), "busy_ratio",
                                         s->gpus[i].busy_ratio));
    SET("queues", q);
    SET("pool", sj_pool(&s->pool));
    SET("budget", sj_budget(&s->budget));
    SET("srs", srs);
    SET("gpus", g);
    SET("jobs_in_flight", sj_int(s->jobs_in_flight));
    SET("uptime_s", sj_int(s->uptime_s));
    break;
  }
  default: {
    const cuzk_dead_letter_t *d = rec;
    SET("job_id", sj_str(d->job_id));
    SET("topic", sj_str(d->topic));
    SET("partition", sj_int(d->partition));
    SET("offset", sj_int(d->offset));
    SET("key", d->has_key ? sj_bytes(d->key) : json_null());
    SET("reason", sj_str(d->reason));
    SET("message", sj_str(d->message));
    SET("value", sj_bytes(d->value));
    SET("value_size", sj_int(d->value_size));
    SET("agent_id", sj_str(d->agent_id));
    SET("time", sj_int(d->time_ms));
    break;
  }
  }
#undef SET
  return o;
}

/* Asserts a == b as JSON, printing both when they differ. */
static inline void assert_json_equal(json_t *a, json_t *b, const char *what) {
  if (!json_equal(a, b)) {
    char *sa = json_dumps(a, JSON_SORT_KEYS), *sb = json_dumps(b, JSON_SORT_KEYS);
    fail_msg("%s differs:\n  got  %s\n  want %s", what, sa, sb);
  }
}

#endif
