#include "agent/avro/codec.h"

#include "agent/avro/embedded.h"
#include "agent/avro/fingerprint.h"

#include <assert.h>
#include <avro.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(cuzk_proof_type_t) == sizeof(int), "enums are stored through int *");
_Static_assert(sizeof(cuzk_payload_format_t) == sizeof(int), "enums are stored through int *");
_Static_assert(sizeof(cuzk_result_status_t) == sizeof(int), "enums are stored through int *");
_Static_assert(sizeof(cuzk_srs_tier_t) == sizeof(int), "enums are stored through int *");

/* ---- field descriptors: one table per record mirrors records.h ------------------------------ */

typedef enum {
  K_STRING,       /* char * */
  K_OPT_STRING,   /* char *, NULL = null */
  K_BYTES,        /* cuzk_bytes_t */
  K_OPT_BYTES,    /* bool has (aux) + cuzk_bytes_t */
  K_FIXED32,      /* uint8_t[32] */
  K_INT,          /* int32_t */
  K_OPT_INT,      /* bool has (aux) + int32_t */
  K_LONG,         /* int64_t */
  K_OPT_LONG,     /* bool has (aux) + int64_t */
  K_BOOL,         /* bool */
  K_DOUBLE,       /* double */
  K_ENUM,         /* int-sized C enum, symbols in syms */
  K_RECORD,       /* nested struct, sub */
  K_OPT_RECORD,   /* bool has (aux) + nested struct */
  K_ARRAY_LONG,   /* int64_t * + size_t count (aux) */
  K_ARRAY_RECORD, /* struct * + size_t count (aux) */
  K_MAP_STRING,   /* cuzk_label_t * + size_t count (aux) */
  K_PAYLOAD,      /* union [bytes, PayloadRef]: bool is_ref (aux), bytes (off), ref (aux2) */
} kind_t;

typedef struct rdesc rdesc_t;

typedef struct {
  const char *name;
  kind_t kind;
  size_t off, aux, aux2;
  const rdesc_t *sub;
  const char *const *syms;
  int nsyms;
} fdesc_t;

struct rdesc {
  const char *name; /* short record name in the schema */
  size_t size;
  const fdesc_t *f;
  size_t n;
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define F(T, fld, nm, k) {nm, k, offsetof(T, fld), 0, 0, NULL, NULL, 0}
#define FOPT(T, fld, has, nm, k) {nm, k, offsetof(T, fld), offsetof(T, has), 0, NULL, NULL, 0}
#define FENUM(T, fld, nm, syms) {nm, K_ENUM, offsetof(T, fld), 0, 0, NULL, syms, (int)NELEM(syms)}
#define FREC(T, fld, nm, sub) {nm, K_RECORD, offsetof(T, fld), 0, 0, &sub, NULL, 0}
#define FOPTREC(T, fld, has, nm, sub) {nm, K_OPT_RECORD, offsetof(T, fld), offsetof(T, has), 0, &sub, NULL, 0}
#define FARR(T, fld, cnt, nm, k, sub) {nm, k, offsetof(T, fld), offsetof(T, cnt), 0, sub, NULL, 0}
#define RDESC(var, nm, T, fields) static const rdesc_t var = {nm, sizeof(T), fields, NELEM(fields)}

static const char *const proof_type_syms[] = {"WINNING_POST", "WINDOW_POST", "SNAP_DEALS", "POREP_C2"};
static const char *const payload_format_syms[] = {"POST_VANILLA_BINCODE", "POST_VANILLA_JSON",
                                                  "SNAP_VANILLA_BINCODE", "SNAP_VANILLA_JSON",
                                                  "POREP_C1_JSON", "POREP_C1_BINCODE"};
static const char *const status_syms[] = {"OK", "REJECTED", "EXPIRED", "FAILED", "CANCELLED"};
static const char *const tier_syms[] = {"DEVICE", "HOT", "WARM", "COLD"};
_Static_assert(NELEM(proof_type_syms) == CUZK_PROOF_TYPE__COUNT, "ProofType symbols");
_Static_assert(NELEM(payload_format_syms) == CUZK_PAYLOAD__COUNT, "PayloadFormat symbols");
_Static_assert(NELEM(status_syms) == CUZK_RESULT__COUNT, "ResultStatus symbols");
_Static_assert(NELEM(tier_syms) == CUZK_SRS_TIER__COUNT, "SrsTier symbols");

static const fdesc_t payload_ref_f[] = {
    F(cuzk_payload_ref_t, uri, "uri", K_STRING),
    F(cuzk_payload_ref_t, sha256, "sha256", K_FIXED32),
    F(cuzk_payload_ref_t, size, "size", K_LONG),
};
RDESC(payload_ref_d, "PayloadRef", cuzk_payload_ref_t, payload_ref_f);

static const fdesc_t proof_job_f[] = {
    F(cuzk_proof_job_t, job_id, "job_id", K_STRING),
    FENUM(cuzk_proof_job_t, proof_type, "proof_type", proof_type_syms),
    F(cuzk_proof_job_t, registered_proof, "registered_proof", K_INT),
    F(cuzk_proof_job_t, sector_size, "sector_size", K_LONG),
    F(cuzk_proof_job_t, miner_id, "miner_id", K_LONG),
    F(cuzk_proof_job_t, prover_id, "prover_id", K_BYTES),
    FARR(cuzk_proof_job_t, sector_ids, n_sector_ids, "sector_ids", K_ARRAY_LONG, NULL),
    FOPT(cuzk_proof_job_t, randomness, has_randomness, "randomness", K_OPT_BYTES),
    FOPT(cuzk_proof_job_t, priority, has_priority, "priority", K_OPT_INT),
    FOPT(cuzk_proof_job_t, deadline_ms, has_deadline, "deadline", K_OPT_LONG),
    F(cuzk_proof_job_t, created_at_ms, "created_at", K_LONG),
    {"payload", K_PAYLOAD, offsetof(cuzk_proof_job_t, payload),
     offsetof(cuzk_proof_job_t, payload_is_ref), offsetof(cuzk_proof_job_t, payload_ref),
     &payload_ref_d, NULL, 0},
    FENUM(cuzk_proof_job_t, payload_format, "payload_format", payload_format_syms),
    F(cuzk_proof_job_t, attempt, "attempt", K_INT),
    FARR(cuzk_proof_job_t, labels, n_labels, "labels", K_MAP_STRING, NULL),
};
RDESC(proof_job_d, "ProofJob", cuzk_proof_job_t, proof_job_f);

static const fdesc_t proof_error_f[] = {
    F(cuzk_proof_error_t, code, "code", K_STRING),
    F(cuzk_proof_error_t, message, "message", K_STRING),
    F(cuzk_proof_error_t, retriable, "retriable", K_BOOL),
};
RDESC(proof_error_d, "ProofError", cuzk_proof_error_t, proof_error_f);

static const fdesc_t timing_summary_f[] = {
    F(cuzk_timing_summary_t, queue_us, "queue_us", K_LONG),
    F(cuzk_timing_summary_t, synth_us, "synth_us", K_LONG),
    F(cuzk_timing_summary_t, gpu_us, "gpu_us", K_LONG),
    F(cuzk_timing_summary_t, finish_us, "finish_us", K_LONG),
    F(cuzk_timing_summary_t, total_us, "total_us", K_LONG),
};
RDESC(timing_summary_d, "TimingSummary", cuzk_timing_summary_t, timing_summary_f);

static const fdesc_t proof_result_f[] = {
    F(cuzk_proof_result_t, job_id, "job_id", K_STRING),
    FENUM(cuzk_proof_result_t, proof_type, "proof_type", proof_type_syms),
    FENUM(cuzk_proof_result_t, status, "status", status_syms),
    FOPT(cuzk_proof_result_t, proof, has_proof, "proof", K_OPT_BYTES),
    F(cuzk_proof_result_t, partitions, "partitions", K_INT),
    FOPTREC(cuzk_proof_result_t, error, has_error, "error", proof_error_d),
    F(cuzk_proof_result_t, agent_id, "agent_id", K_STRING),
    F(cuzk_proof_result_t, started_at_ms, "started_at", K_LONG),
    F(cuzk_proof_result_t, finished_at_ms, "finished_at", K_LONG),
    F(cuzk_proof_result_t, verified, "verified", K_BOOL),
    FOPTREC(cuzk_proof_result_t, timing, has_timing, "timing", timing_summary_d),
    F(cuzk_proof_result_t, attempt, "attempt", K_INT),
    FARR(cuzk_proof_result_t, labels, n_labels, "labels", K_MAP_STRING, NULL),
};
RDESC(proof_result_d, "ProofResult", cuzk_proof_result_t, proof_result_f);

static const fdesc_t pool_stats_f[] = {
    F(cuzk_pool_stats_t, buffers, "buffers", K_LONG),
    F(cuzk_pool_stats_t, bytes, "bytes", K_LONG),
    F(cuzk_pool_stats_t, hits, "hits", K_LONG),
    F(cuzk_pool_stats_t, misses, "misses", K_LONG),
    F(cuzk_pool_stats_t, allocations, "allocations", K_LONG),
    F(cuzk_pool_stats_t, frees, "frees", K_LONG),
};
RDESC(pool_stats_d, "PoolStats", cuzk_pool_stats_t, pool_stats_f);

static const fdesc_t budget_stats_f[] = {
    F(cuzk_budget_stats_t, used, "used", K_LONG),
    F(cuzk_budget_stats_t, total, "total", K_LONG),
};
RDESC(budget_stats_d, "BudgetStats", cuzk_budget_stats_t, budget_stats_f);

#define TL(fld, nm) F(cuzk_partition_timing_t, fld, nm, K_LONG)
static const fdesc_t partition_timing_f[] = {
    F(cuzk_partition_timing_t, job_id, "job_id", K_STRING),
    FENUM(cuzk_partition_timing_t, proof_type, "proof_type", proof_type_syms),
    F(cuzk_partition_timing_t, partition, "partition", K_INT),
    F(cuzk_partition_timing_t, agent_id, "agent_id", K_STRING),
    F(cuzk_partition_timing_t, gpu, "gpu", K_INT),
    TL(enqueued_us, "enqueued"),
    TL(budget_granted_us, "budget_granted"),
    TL(synth_start_us, "synth_start"),
    TL(synth_end_us, "synth_end"),
    TL(gpu_queued_us, "gpu_queued"),
    TL(gpu_start_us, "gpu_start"),
    TL(gpu_end_us, "gpu_end"),
    TL(finish_end_us, "finish_end"),
    TL(h2d_bytes, "h2d_bytes"),
    TL(h2d_us, "h2d_us"),
    TL(ntt_us, "ntt_us"),
    TL(msm_h_us, "msm_h_us"),
    TL(msm_l_us, "msm_l_us"),
    TL(msm_a_us, "msm_a_us"),
    TL(msm_b_g1_us, "msm_b_g1_us"),
    TL(msm_b_g2_us, "msm_b_g2_us"),
    F(cuzk_partition_timing_t, is_pinned, "is_pinned", K_BOOL),
    FREC(cuzk_partition_timing_t, pool, "pool", pool_stats_d),
    FREC(cuzk_partition_timing_t, budget, "budget", budget_stats_d),
    F(cuzk_partition_timing_t, synthetic, "synthetic", K_BOOL),
};
#undef TL
RDESC(partition_timing_d, "PartitionTiming", cuzk_partition_timing_t, partition_timing_f);

static const fdesc_t queue_depth_f[] = {
    F(cuzk_queue_depth_t, priority, "priority", K_INT),
    F(cuzk_queue_depth_t, depth, "depth", K_LONG),
};
RDESC(queue_depth_d, "QueueDepth", cuzk_queue_depth_t, queue_depth_f);

static const fdesc_t srs_entry_f[] = {
    F(cuzk_srs_entry_t, circuit, "circuit", K_STRING),
    FENUM(cuzk_srs_entry_t, tier, "tier", tier_syms),
    F(cuzk_srs_entry_t, bytes, "bytes", K_LONG),
    F(cuzk_srs_entry_t, refcount, "refcount", K_INT),
};
RDESC(srs_entry_d, "SrsEntry", cuzk_srs_entry_t, srs_entry_f);

static const fdesc_t gpu_info_f[] = {
    F(cuzk_gpu_info_t, index, "index", K_INT),
    F(cuzk_gpu_info_t, name, "name", K_STRING),
    F(cuzk_gpu_info_t, mem_total, "mem_total", K_LONG),
    F(cuzk_gpu_info_t, mem_free, "mem_free", K_LONG),
    F(cuzk_gpu_info_t, busy_ratio, "busy_ratio", K_DOUBLE),
};
RDESC(gpu_info_d, "GpuInfo", cuzk_gpu_info_t, gpu_info_f);

static const fdesc_t agent_status_f[] = {
    F(cuzk_agent_status_t, agent_id, "agent_id", K_STRING),
    F(cuzk_agent_status_t, host, "host", K_STRING),
    F(cuzk_agent_status_t, version, "version", K_STRING),
    F(cuzk_agent_status_t, git_commit, "git_commit", K_STRING),
    F(cuzk_agent_status_t, time_ms, "time", K_LONG),
    FARR(cuzk_agent_status_t, queues, n_queues, "queues", K_ARRAY_RECORD, &queue_depth_d),
    FREC(cuzk_agent_status_t, pool, "pool", pool_stats_d),
    FREC(cuzk_agent_status_t, budget, "budget", budget_stats_d),
    FARR(cuzk_agent_status_t, srs, n_srs, "srs", K_ARRAY_RECORD, &srs_entry_d),
    FARR(cuzk_agent_status_t, gpus, n_gpus, "gpus", K_ARRAY_RECORD, &gpu_info_d),
    F(cuzk_agent_status_t, jobs_in_flight, "jobs_in_flight", K_INT),
    F(cuzk_agent_status_t, uptime_s, "uptime_s", K_LONG),
};
RDESC(agent_status_d, "AgentStatus", cuzk_agent_status_t, agent_status_f);

static const fdesc_t dead_letter_f[] = {
    F(cuzk_dead_letter_t, job_id, "job_id", K_OPT_STRING),
    F(cuzk_dead_letter_t, topic, "topic", K_STRING),
    F(cuzk_dead_letter_t, partition, "partition", K_INT),
    F(cuzk_dead_letter_t, offset, "offset", K_LONG),
    FOPT(cuzk_dead_letter_t, key, has_key, "key", K_OPT_BYTES),
    F(cuzk_dead_letter_t, reason, "reason", K_STRING),
    F(cuzk_dead_letter_t, message, "message", K_STRING),
    F(cuzk_dead_letter_t, value, "value", K_BYTES),
    F(cuzk_dead_letter_t, value_size, "value_size", K_LONG),
    F(cuzk_dead_letter_t, agent_id, "agent_id", K_STRING),
    F(cuzk_dead_letter_t, time_ms, "time", K_LONG),
};
RDESC(dead_letter_d, "DeadLetter", cuzk_dead_letter_t, dead_letter_f);

static const rdesc_t *const top_desc[CUZK_AVRO__COUNT] = {
    &proof_job_d, &proof_result_d, &partition_timing_d, &agent_status_d, &dead_letter_d,
};

#define AT(p, off, T) ((T *)((char *)(p) + (off)))
#define CAT(p, off, T) ((const T *)((const char *)(p) + (off)))

/* ---- registry --------------------------------------------------------------------------------- */

typedef struct {
  cuzk_avro_type_t type;
  uint64_t fingerprint;
  int32_t confluent_id; /* -1: none */
  avro_schema_t schema;
  avro_value_iface_t *iface;
} entry_t;

struct cuzk_avro_codec {
  cuzk_avro_codec_conf_t conf;
  entry_t *entries; /* entries[0..CUZK_AVRO__COUNT) are ours, indexed by type */
  size_t n_entries, cap_entries;
  json_t *ours[CUZK_AVRO__COUNT]; /* our schemas as JSON, for defaults */
  bool bound;
  pthread_t owner;
};

static const char *const type_names[CUZK_AVRO__COUNT] = {
    "ProofJob", "ProofResult", "PartitionTiming", "AgentStatus", "DeadLetter",
};

const char *cuzk_avro_type_name(cuzk_avro_type_t type) {
  return (unsigned)type < CUZK_AVRO__COUNT ? type_names[type] : NULL;
}

const char *cuzk_avro_schema_json(cuzk_avro_type_t type, size_t *len) {
  const char *name = cuzk_avro_type_name(type);
  for (size_t i = 0; name != NULL && i < cuzk__avro_embedded_count; i++) {
    if (strcmp(cuzk__avro_embedded[i].name, name) == 0) {
      if (len != NULL)
        *len = cuzk__avro_embedded[i].len;
      return cuzk__avro_embedded[i].json;
    }
  }
  return NULL;
}

void cuzk_avro_codec_conf_init(cuzk_avro_codec_conf_t *conf) {
  assert(conf != NULL);
  memset(conf, 0, sizeof *conf);
  conf->framing = CUZK_AVRO_FRAMING_SINGLE_OBJECT;
  for (int i = 0; i < CUZK_AVRO__COUNT; i++)
    conf->confluent_ids[i] = -1;
  conf->max_message_bytes = CUZK_AVRO_DEFAULT_MAX_MESSAGE_BYTES;
}

static void bind_thread(cuzk_avro_codec_t *c) {
  if (!c->bound) {
    c->owner = pthread_self();
    c->bound = true;
  }
  assert(pthread_equal(c->owner, pthread_self()) && "Avro C is used from one thread only");
}

static const entry_t *find_fp(const cuzk_avro_codec_t *c, uint64_t fp) {
  for (size_t i = 0; i < c->n_entries; i++)
    if (c->entries[i].fingerprint == fp)
      return &c->entries[i];
  return NULL;
}

static const entry_t *find_id(const cuzk_avro_codec_t *c, int32_t id) {
  for (size_t i = 0; i < c->n_entries; i++)
    if (c->entries[i].confluent_id >= 0 && c->entries[i].confluent_id == id)
      return &c->entries[i];
  return NULL;
}

static cuzk_err_t add_entry(cuzk_avro_codec_t *c, cuzk_avro_type_t type, const char *json,
                            size_t len, int32_t id, char *errstr, size_t errstr_size) {
  uint64_t fp;
  cuzk_err_t err = cuzk_avro_schema_fingerprint(&fp, json, len, errstr, errstr_size);
  if (err != CUZK_OK)
    return err;
  if (find_fp(c, fp) != NULL)
    return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size,
                     "avro: a schema with fingerprint %016llx is already registered",
                     (unsigned long long)fp);
  if (id >= 0 && find_id(c, id) != NULL)
    return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size,
                     "avro: Confluent schema id %d is already registered", (int)id);
  avro_schema_t schema = NULL;
  if (avro_schema_from_json_length(json, len, &schema) != 0)
    return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size, "avro: schema for %s: %s",
                     type_names[type], avro_strerror());
  if (!is_avro_record(schema) || strcmp(avro_schema_name(schema), type_names[type]) != 0) {
    avro_schema_decref(schema);
    return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size,
                     "avro: schema is not a record named %s", type_names[type]);
  }
  avro_value_iface_t *iface = avro_generic_class_from_schema(schema);
  if (iface == NULL) {
    avro_schema_decref(schema);
    return cuzk_errf(CUZK_ERR_AVRO, errstr, errstr_size, "avro: %s", avro_strerror());
  }
  if (c->n_entries == c->cap_entries) {
    size_t cap = c->cap_entries ? 2 * c->cap_entries : 8;
    entry_t *e = realloc(c->entries, cap * sizeof *e);
    if (e == NULL) {
      avro_value_iface_decref(iface);
      avro_schema_decref(schema);
      return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "avro: out of memory");
    }
    c->entries = e;
    c->cap_entries = cap;
  }
  c->entries[c->n_entries++] = (entry_t){type, fp, id, schema, iface};
  return CUZK_OK;
}

void cuzk_avro_codec_free(cuzk_avro_codec_t *c) {
  if (c == NULL)
    return;
  for (size_t i = 0; i < c->n_entries; i++) {
    avro_value_iface_decref(c->entries[i].iface);
    avro_schema_decref(c->entries[i].schema);
  }
  for (int i = 0; i < CUZK_AVRO__COUNT; i++)
    json_decref(c->ours[i]);
  free(c->entries);
  free(c);
}

cuzk_avro_codec_t *cuzk_avro_codec_new(const cuzk_avro_codec_conf_t *conf, char *errstr,
                                       size_t errstr_size) {
  assert(conf != NULL);
  if (conf->max_message_bytes == 0) {
    cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size, "avro: max_message_bytes must be > 0");
    return NULL;
  }
  cuzk_avro_codec_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "avro: out of memory");
    return NULL;
  }
  c->conf = *conf;
  for (int t = 0; t < CUZK_AVRO__COUNT; t++) {
    size_t len = 0;
    const char *json = cuzk_avro_schema_json((cuzk_avro_type_t)t, &len);
    if (json == NULL) {
      cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "avro: schema %s.avsc is not embedded",
                type_names[t]);
      goto fail;
    }
    if (conf->framing == CUZK_AVRO_FRAMING_CONFLUENT && conf->confluent_ids[t] < 0) {
      cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                "avro: Confluent framing needs a schema id for %s", type_names[t]);
      goto fail;
    }
    if (add_entry(c, (cuzk_avro_type_t)t, json, len, conf->confluent_ids[t], errstr,
                  errstr_size) != CUZK_OK)
      goto fail;
    c->ours[t] = json_loadb(json, len, 0, NULL);
    if (c->ours[t] == NULL) {
      cuzk_errf(CUZK_ERR_INTERNAL, errstr, errstr_size, "avro: %s.avsc is not JSON", type_names[t]);
      goto fail;
    }
  }
  return c;
fail:
  cuzk_avro_codec_free(c);
  return NULL;
}

cuzk_err_t cuzk_avro_codec_add_schema(cuzk_avro_codec_t *c, cuzk_avro_type_t type,
                                      const char *json, size_t len, int32_t confluent_id,
                                      char *errstr, size_t errstr_size) {
  assert(c != NULL && json != NULL && (unsigned)type < CUZK_AVRO__COUNT);
  bind_thread(c);
  return add_entry(c, type, json, len, confluent_id < 0 ? -1 : confluent_id, errstr, errstr_size);
}

uint64_t cuzk_avro_codec_fingerprint(const cuzk_avro_codec_t *c, cuzk_avro_type_t type) {
  assert(c != NULL && (unsigned)type < CUZK_AVRO__COUNT);
  return c->entries[type].fingerprint;
}

/* ---- bounds-checking walk of a body against the writer schema --------------------------------
 * Avro C trusts lengths and counts in the input; this pass runs first so that every length is
 * within the body, every enum index and union branch exists, and no element is free of bytes
 * (which would let a forged count spin for 2^63 iterations). */

#define WALK_MAX_DEPTH 32

typedef struct {
  const uint8_t *p, *end;
  char *errstr;
  size_t errstr_size;
} walk_t;

static cuzk_err_t walk_varint(walk_t *w, int64_t *out, int max_bytes) {
  uint64_t v = 0;
  for (int i = 0; i < max_bytes; i++) {
    if (w->p == w->end)
      return cuzk_errf(CUZK_ERR_TRUNCATED, w->errstr, w->errstr_size,
                       "avro body: truncated inside a number");
    uint8_t b = *w->p++;
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
      return CUZK_OK;
    }
  }
  return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size,
                   "avro body: variable-length number longer than %d bytes", max_bytes);
}

static cuzk_err_t walk_need(walk_t *w, int64_t n, const char *what) {
  if (n < 0)
    return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size, "avro body: negative %s length",
                     what);
  if ((uint64_t)n > (uint64_t)(w->end - w->p))
    return cuzk_errf(CUZK_ERR_TRUNCATED, w->errstr, w->errstr_size,
                     "avro body: %s of %lld bytes runs past the end", what, (long long)n);
  w->p += n;
  return CUZK_OK;
}

static cuzk_err_t walk(walk_t *w, avro_schema_t s, int depth) {
  if (depth > WALK_MAX_DEPTH)
    return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size, "avro body: nested too deep");
  int64_t v = 0;
  cuzk_err_t err;
  switch (avro_typeof(s)) {
  case AVRO_NULL:
    return CUZK_OK;
  case AVRO_BOOLEAN:
    if (w->p == w->end)
      return cuzk_errf(CUZK_ERR_TRUNCATED, w->errstr, w->errstr_size, "avro body: truncated");
    if (*w->p > 1)
      return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size, "avro body: boolean byte %u",
                       *w->p);
    w->p++;
    return CUZK_OK;
  case AVRO_INT32:
    if ((err = walk_varint(w, &v, 5)) != CUZK_OK)
      return err;
    if (v < INT32_MIN || v > INT32_MAX)
      return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size, "avro body: int out of range");
    return CUZK_OK;
  case AVRO_INT64:
    return walk_varint(w, &v, 10);
  case AVRO_FLOAT:
    return walk_need(w, 4, "float");
  case AVRO_DOUBLE:
    return walk_need(w, 8, "double");
  case AVRO_STRING:
  case AVRO_BYTES:
    if ((err = walk_varint(w, &v, 10)) != CUZK_OK)
      return err;
    return walk_need(w, v, avro_typeof(s) == AVRO_STRING ? "string" : "bytes");
  case AVRO_FIXED:
    return walk_need(w, avro_schema_fixed_size(s), "fixed");
  case AVRO_ENUM:
    if ((err = walk_varint(w, &v, 5)) != CUZK_OK)
      return err;
    if (v < 0 || v >= avro_schema_enum_number_of_symbols(s))
      return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size,
                       "avro body: enum index %lld out of range", (long long)v);
    return CUZK_OK;
  case AVRO_UNION:
    if ((err = walk_varint(w, &v, 10)) != CUZK_OK)
      return err;
    if (v < 0 || (uint64_t)v >= avro_schema_union_size(s))
      return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size,
                       "avro body: union branch %lld out of range", (long long)v);
    return walk(w, avro_schema_union_branch(s, (int)v), depth + 1);
  case AVRO_RECORD:
    for (size_t i = 0; i < avro_schema_record_size(s); i++)
      if ((err = walk(w, avro_schema_record_field_get_by_index(s, (int)i), depth + 1)) != CUZK_OK)
        return err;
    return CUZK_OK;
  case AVRO_ARRAY:
  case AVRO_MAP: {
    bool map = avro_typeof(s) == AVRO_MAP;
    avro_schema_t item = map ? avro_schema_map_values(s) : avro_schema_array_items(s);
    for (;;) {
      int64_t count = 0;
      if ((err = walk_varint(w, &count, 10)) != CUZK_OK)
        return err;
      if (count == 0)
        return CUZK_OK;
      if (count < 0) {
        if (count == INT64_MIN)
          return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size, "avro body: bad block count");
        count = -count;
        int64_t block_bytes = 0;
        if ((err = walk_varint(w, &block_bytes, 10)) != CUZK_OK)
          return err;
        if (block_bytes < 0 || (uint64_t)block_bytes > (uint64_t)(w->end - w->p))
          return cuzk_errf(CUZK_ERR_TRUNCATED, w->errstr, w->errstr_size,
                           "avro body: block size past the end");
      }
      if ((uint64_t)count > (uint64_t)(w->end - w->p))
        return cuzk_errf(CUZK_ERR_TRUNCATED, w->errstr, w->errstr_size,
                         "avro body: %lld items cannot fit in the bytes left", (long long)count);
      for (int64_t i = 0; i < count; i++) {
        const uint8_t *before = w->p;
        if (map) {
          if ((err = walk_varint(w, &v, 10)) != CUZK_OK || (err = walk_need(w, v, "map key")))
            return err;
        }
        if ((err = walk(w, item, depth + 1)) != CUZK_OK)
          return err;
        if (w->p == before)
          return cuzk_errf(CUZK_ERR_PARSE, w->errstr, w->errstr_size,
                           "avro body: zero-size array items are not accepted");
      }
    }
  }
  case AVRO_LINK:
    return walk(w, avro_schema_link_target(s), depth + 1);
  }
  return cuzk_errf(CUZK_ERR_SCHEMA, w->errstr, w->errstr_size, "avro body: unknown schema type");
}

/* ---- encode ------------------------------------------------------------------------------------ */

typedef struct {
  char *errstr;
  size_t errstr_size;
  const cuzk_avro_codec_t *codec;
  cuzk_avro_type_t type;
} ctx_t;

static cuzk_err_t avro_fail(ctx_t *x, const char *what, const char *field) {
  return cuzk_errf(CUZK_ERR_AVRO, x->errstr, x->errstr_size, "avro: %s %s: %s", what, field,
                   avro_strerror());
}

static cuzk_err_t enc_record(ctx_t *x, const rdesc_t *d, const void *p, avro_value_t *rec);

static cuzk_err_t enc_set(ctx_t *x, const fdesc_t *f, kind_t k, const void *p, avro_value_t *v) {
  int rc = 0;
  switch (k) {
  case K_STRING:
  case K_OPT_STRING: {
    const char *s = *CAT(p, f->off, char *const);
    if (s == NULL)
      return cuzk_errf(CUZK_ERR_INVALID_ARG, x->errstr, x->errstr_size,
                       "avro: %s.%s is NULL", type_names[x->type], f->name);
    rc = avro_value_set_string(v, s);
    break;
  }
  case K_BYTES:
  case K_OPT_BYTES: {
    const cuzk_bytes_t *b = CAT(p, f->off, cuzk_bytes_t);
    if (b->data == NULL && b->len != 0)
      return cuzk_errf(CUZK_ERR_INVALID_ARG, x->errstr, x->errstr_size,
                       "avro: %s.%s has a length but no data", type_names[x->type], f->name);
    rc = avro_value_set_bytes(v, b->data ? (void *)b->data : (void *)"", b->len);
    break;
  }
  case K_FIXED32:
    rc = avro_value_set_fixed(v, (void *)CAT(p, f->off, uint8_t), 32);
    break;
  case K_INT:
  case K_OPT_INT:
    rc = avro_value_set_int(v, *CAT(p, f->off, int32_t));
    break;
  case K_LONG:
  case K_OPT_LONG:
    rc = avro_value_set_long(v, *CAT(p, f->off, int64_t));
    break;
  case K_BOOL:
    rc = avro_value_set_boolean(v, *CAT(p, f->off, bool));
    break;
  case K_DOUBLE:
    rc = avro_value_set_double(v, *CAT(p, f->off, double));
    break;
  case K_ENUM: {
    int e = *CAT(p, f->off, int);
    if (e < 0 || e >= f->nsyms)
      return cuzk_errf(CUZK_ERR_INVALID_ARG, x->errstr, x->errstr_size,
                       "avro: %s.%s = %d is not an enum value", type_names[x->type], f->name, e);
    rc = avro_value_set_enum(v, e);
    break;
  }
  case K_RECORD:
  case K_OPT_RECORD:
    return enc_record(x, f->sub, CAT(p, f->off, char), v);
  case K_ARRAY_LONG:
  case K_ARRAY_RECORD: {
    size_t n = *CAT(p, f->aux, size_t);
    const char *items = *CAT(p, f->off, char *const);
    if (items == NULL && n != 0)
      return cuzk_errf(CUZK_ERR_INVALID_ARG, x->errstr, x->errstr_size,
                       "avro: %s.%s has a count but no items", type_names[x->type], f->name);
    for (size_t i = 0; i < n && rc == 0; i++) {
      avro_value_t e;
      if ((rc = avro_value_append(v, &e, NULL)) != 0)
        break;
      if (k == K_ARRAY_LONG) {
        rc = avro_value_set_long(&e, ((const int64_t *)items)[i]);
      } else {
        cuzk_err_t err = enc_record(x, f->sub, items + i * f->sub->size, &e);
        if (err != CUZK_OK)
          return err;
      }
    }
    break;
  }
  case K_MAP_STRING: {
    size_t n = *CAT(p, f->aux, size_t);
    const cuzk_label_t *kv = *CAT(p, f->off, cuzk_label_t *const);
    if (kv == NULL && n != 0)
      return cuzk_errf(CUZK_ERR_INVALID_ARG, x->errstr, x->errstr_size,
                       "avro: %s.%s has a count but no entries", type_names[x->type], f->name);
    for (size_t i = 0; i < n && rc == 0; i++) {
      if (kv[i].key == NULL || kv[i].value == NULL)
        return cuzk_errf(CUZK_ERR_INVALID_ARG, x->errstr, x->errstr_size,
                         "avro: %s.%s has a NULL key or value", type_names[x->type], f->name);
      avro_value_t e;
      if ((rc = avro_value_add(v, kv[i].key, &e, NULL, NULL)) == 0)
        rc = avro_value_set_string(&e, kv[i].value);
    }
    break;
  }
  case K_PAYLOAD:
    assert(0 && "handled by enc_field");
  }
  return rc == 0 ? CUZK_OK : avro_fail(x, "encoding", f->name);
}

static bool opt_present(const fdesc_t *f, const void *p) {
  if (f->kind == K_OPT_STRING)
    return *CAT(p, f->off, char *const) != NULL;
  return *CAT(p, f->aux, bool);
}

static cuzk_err_t enc_field(ctx_t *x, const fdesc_t *f, const void *p, avro_value_t *v) {
  avro_value_t b;
  switch (f->kind) {
  case K_OPT_STRING:
  case K_OPT_BYTES:
  case K_OPT_INT:
  case K_OPT_LONG:
  case K_OPT_RECORD: {
    bool present = opt_present(f, p);
    if (avro_value_set_branch(v, present ? 1 : 0, &b) != 0)
      return avro_fail(x, "encoding", f->name);
    if (!present)
      return avro_value_set_null(&b) == 0 ? CUZK_OK : avro_fail(x, "encoding", f->name);
    return enc_set(x, f, f->kind, p, &b);
  }
  case K_PAYLOAD: {
    bool is_ref = *CAT(p, f->aux, bool);
    if (avro_value_set_branch(v, is_ref ? 1 : 0, &b) != 0)
      return avro_fail(x, "encoding", f->name);
    if (is_ref)
      return enc_record(x, f->sub, CAT(p, f->aux2, char), &b);
    return enc_set(x, f, K_BYTES, p, &b);
  }
  default:
    return enc_set(x, f, f->kind, p, v);
  }
}

static cuzk_err_t enc_record(ctx_t *x, const rdesc_t *d, const void *p, avro_value_t *rec) {
  for (size_t i = 0; i < d->n; i++) {
    avro_value_t fv;
    if (avro_value_get_by_name(rec, d->f[i].name, &fv, NULL) != 0)
      return cuzk_errf(CUZK_ERR_INTERNAL, x->errstr, x->errstr_size,
                       "avro: schema %s has no field %s", d->name, d->f[i].name);
    cuzk_err_t err = enc_field(x, &d->f[i], p, &fv);
    if (err != CUZK_OK)
      return err;
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_avro_encode(cuzk_avro_codec_t *c, cuzk_avro_type_t type, const void *rec,
                            uint8_t **out, size_t *out_len, char *errstr, size_t errstr_size) {
  assert(c != NULL && rec != NULL && out != NULL && out_len != NULL);
  assert((unsigned)type < CUZK_AVRO__COUNT);
  bind_thread(c);
  const entry_t *e = &c->entries[type];
  ctx_t x = {errstr, errstr_size, c, type};
  avro_value_t v;
  if (avro_generic_value_new(e->iface, &v) != 0)
    return avro_fail(&x, "allocating", type_names[type]);
  cuzk_err_t err = enc_record(&x, top_desc[type], rec, &v);
  size_t body = 0;
  uint8_t *buf = NULL;
  if (err == CUZK_OK && avro_value_sizeof(&v, &body) != 0)
    err = avro_fail(&x, "sizing", type_names[type]);
  size_t hdr = cuzk_avro_frame_header_len(c->conf.framing);
  if (err == CUZK_OK && (buf = malloc(hdr + body + 1)) == NULL)
    err = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "avro: out of memory");
  if (err == CUZK_OK) {
    uint64_t key = c->conf.framing == CUZK_AVRO_FRAMING_CONFLUENT ? (uint64_t)e->confluent_id
                                                                   : e->fingerprint;
    size_t h = cuzk_avro_frame_put_header(buf, hdr, c->conf.framing, key);
    assert(h == hdr);
    (void)h;
    avro_writer_t w = avro_writer_memory((char *)buf + hdr, (int64_t)body);
    if (w == NULL || avro_value_write(w, &v) != 0)
      err = avro_fail(&x, "writing", type_names[type]);
    if (w != NULL)
      avro_writer_free(w);
  }
  avro_value_decref(&v);
  if (err != CUZK_OK) {
    free(buf);
    return err;
  }
  *out = buf;
  *out_len = hdr + body;
  return CUZK_OK;
}

/* ---- decode ------------------------------------------------------------------------------------ */

static const char *avro_type_str(avro_type_t t) {
  static const char *const n[] = {"string", "bytes", "int", "long", "float", "double", "boolean",
                                  "null", "record", "enum", "fixed", "map", "array", "union",
                                  "link"};
  return (unsigned)t < NELEM(n) ? n[t] : "?";
}

static cuzk_err_t mismatch(ctx_t *x, const fdesc_t *f, avro_type_t got) {
  return cuzk_errf(CUZK_ERR_SCHEMA, x->errstr, x->errstr_size,
                   "avro: field %s.%s has writer type %s, which this agent cannot read",
                   type_names[x->type], f->name, avro_type_str(got));
}

static cuzk_err_t nomem(ctx_t *x) {
  return cuzk_errf(CUZK_ERR_NOMEM, x->errstr, x->errstr_size, "avro: out of memory");
}

static cuzk_err_t dec_record(ctx_t *x, const rdesc_t *d, avro_value_t *rec, void *p);

static cuzk_err_t dec_string(ctx_t *x, const fdesc_t *f, avro_value_t *v, char **out) {
  if (avro_value_get_type(v) != AVRO_STRING)
    return mismatch(x, f, avro_value_get_type(v));
  const char *s = NULL;
  size_t size = 0;
  if (avro_value_get_string(v, &s, &size) != 0)
    return avro_fail(x, "decoding", f->name);
  size_t n = size ? size - 1 : 0;
  if (s == NULL)
    s = "";
  if (strlen(s) != n)
    return cuzk_errf(CUZK_ERR_PARSE, x->errstr, x->errstr_size,
                     "avro: string %s.%s contains a NUL byte", type_names[x->type], f->name);
  char *c = malloc(n + 1);
  if (c == NULL)
    return nomem(x);
  memcpy(c, s, n);
  c[n] = '\0';
  *out = c;
  return CUZK_OK;
}

/* Reads `v` (already out of its union, not null) as kind `k` into the field at p + f->off. */
static cuzk_err_t dec_value(ctx_t *x, const fdesc_t *f, kind_t k, avro_value_t *v, void *p) {
  avro_type_t t = avro_value_get_type(v);
  int rc = 0;
  switch (k) {
  case K_STRING:
  case K_OPT_STRING:
    return dec_string(x, f, v, AT(p, f->off, char *));
  case K_BYTES:
  case K_OPT_BYTES: {
    if (t != AVRO_BYTES)
      return mismatch(x, f, t);
    const void *b = NULL;
    size_t size = 0;
    if (avro_value_get_bytes(v, &b, &size) != 0)
      return avro_fail(x, "decoding", f->name);
    cuzk_bytes_t *out = AT(p, f->off, cuzk_bytes_t);
    if ((out->data = malloc(size ? size : 1)) == NULL)
      return nomem(x);
    if (size)
      memcpy(out->data, b, size);
    out->len = size;
    return CUZK_OK;
  }
  case K_FIXED32: {
    const void *b = NULL;
    size_t size = 0;
    if (t != AVRO_FIXED)
      return mismatch(x, f, t);
    if (avro_value_get_fixed(v, &b, &size) != 0)
      return avro_fail(x, "decoding", f->name);
    if (size != 32)
      return cuzk_errf(CUZK_ERR_SCHEMA, x->errstr, x->errstr_size,
                       "avro: field %s is fixed(%zu), want fixed(32)", f->name, size);
    memcpy(AT(p, f->off, uint8_t), b, 32);
    return CUZK_OK;
  }
  case K_INT:
  case K_OPT_INT:
    if (t != AVRO_INT32)
      return mismatch(x, f, t);
    rc = avro_value_get_int(v, AT(p, f->off, int32_t));
    break;
  case K_LONG:
  case K_OPT_LONG:
    if (t == AVRO_INT64) {
      rc = avro_value_get_long(v, AT(p, f->off, int64_t));
    } else if (t == AVRO_INT32) {
      int32_t i = 0;
      rc = avro_value_get_int(v, &i);
      *AT(p, f->off, int64_t) = i;
    } else {
      return mismatch(x, f, t);
    }
    break;
  case K_BOOL: {
    int b = 0;
    if (t != AVRO_BOOLEAN)
      return mismatch(x, f, t);
    rc = avro_value_get_boolean(v, &b);
    *AT(p, f->off, bool) = b != 0;
    break;
  }
  case K_DOUBLE: {
    double *d = AT(p, f->off, double);
    if (t == AVRO_DOUBLE) {
      rc = avro_value_get_double(v, d);
    } else if (t == AVRO_FLOAT) {
      float fl = 0;
      rc = avro_value_get_float(v, &fl);
      *d = fl;
    } else if (t == AVRO_INT64) {
      int64_t l = 0;
      rc = avro_value_get_long(v, &l);
      *d = (double)l;
    } else if (t == AVRO_INT32) {
      int32_t i = 0;
      rc = avro_value_get_int(v, &i);
      *d = i;
    } else {
      return mismatch(x, f, t);
    }
    break;
  }
  case K_ENUM: {
    int idx = 0;
    if (t != AVRO_ENUM)
      return mismatch(x, f, t);
    if (avro_value_get_enum(v, &idx) != 0)
      return avro_fail(x, "decoding", f->name);
    const char *sym = avro_schema_enum_get(avro_value_get_schema(v), idx);
    for (int i = 0; sym != NULL && i < f->nsyms; i++) {
      if (strcmp(sym, f->syms[i]) == 0) {
        *AT(p, f->off, int) = i;
        return CUZK_OK;
      }
    }
    return cuzk_errf(CUZK_ERR_SCHEMA, x->errstr, x->errstr_size,
                     "avro: %s.%s has symbol %s, unknown to this agent", type_names[x->type],
                     f->name, sym ? sym : "?");
  }
  case K_RECORD:
  case K_OPT_RECORD:
    if (t != AVRO_RECORD)
      return mismatch(x, f, t);
    return dec_record(x, f->sub, v, AT(p, f->off, char));
  case K_ARRAY_LONG:
  case K_ARRAY_RECORD: {
    size_t n = 0;
    if (t != AVRO_ARRAY)
      return mismatch(x, f, t);
    if (avro_value_get_size(v, &n) != 0)
      return avro_fail(x, "decoding", f->name);
    size_t isz = k == K_ARRAY_LONG ? sizeof(int64_t) : f->sub->size;
    char *items = calloc(n ? n : 1, isz);
    if (items == NULL)
      return nomem(x);
    *AT(p, f->off, char *) = items;
    *AT(p, f->aux, size_t) = n;
    for (size_t i = 0; i < n; i++) {
      avro_value_t e;
      if (avro_value_get_by_index(v, i, &e, NULL) != 0)
        return avro_fail(x, "decoding", f->name);
      cuzk_err_t err;
      if (k == K_ARRAY_LONG) {
        fdesc_t ef = {f->name, K_LONG, 0, 0, 0, NULL, NULL, 0};
        err = dec_value(x, &ef, K_LONG, &e, items + i * isz);
      } else {
        if (avro_value_get_type(&e) != AVRO_RECORD)
          return mismatch(x, f, avro_value_get_type(&e));
        err = dec_record(x, f->sub, &e, items + i * isz);
      }
      if (err != CUZK_OK)
        return err;
    }
    return CUZK_OK;
  }
  case K_MAP_STRING: {
    size_t n = 0;
    if (t != AVRO_MAP)
      return mismatch(x, f, t);
    if (avro_value_get_size(v, &n) != 0)
      return avro_fail(x, "decoding", f->name);
    cuzk_label_t *kv = calloc(n ? n : 1, sizeof *kv);
    if (kv == NULL)
      return nomem(x);
    *AT(p, f->off, cuzk_label_t *) = kv;
    *AT(p, f->aux, size_t) = n;
    for (size_t i = 0; i < n; i++) {
      avro_value_t e;
      const char *key = NULL;
      if (avro_value_get_by_index(v, i, &e, &key) != 0 || key == NULL)
        return avro_fail(x, "decoding", f->name);
      if ((kv[i].key = strdup(key)) == NULL)
        return nomem(x);
      fdesc_t ef = {f->name, K_STRING, offsetof(cuzk_label_t, value), 0, 0, NULL, NULL, 0};
      cuzk_err_t err = dec_value(x, &ef, K_STRING, &e, &kv[i]);
      if (err != CUZK_OK)
        return err;
    }
    return CUZK_OK;
  }
  case K_PAYLOAD:
    assert(0 && "handled by dec_field");
  }
  return rc == 0 ? CUZK_OK : avro_fail(x, "decoding", f->name);
}

static cuzk_err_t dec_field(ctx_t *x, const fdesc_t *f, avro_value_t *fv, void *p) {
  avro_value_t b = *fv;
  if (avro_value_get_type(fv) == AVRO_UNION && avro_value_get_current_branch(fv, &b) != 0)
    return avro_fail(x, "decoding", f->name);
  avro_type_t t = avro_value_get_type(&b);
  switch (f->kind) {
  case K_OPT_STRING:
  case K_OPT_BYTES:
  case K_OPT_INT:
  case K_OPT_LONG:
  case K_OPT_RECORD:
    if (t == AVRO_NULL)
      return CUZK_OK;
    if (f->kind != K_OPT_STRING)
      *AT(p, f->aux, bool) = true;
    return dec_value(x, f, f->kind, &b, p);
  case K_PAYLOAD:
    if (t == AVRO_BYTES)
      return dec_value(x, f, K_BYTES, &b, p);
    if (t != AVRO_RECORD)
      return mismatch(x, f, t);
    *AT(p, f->aux, bool) = true;
    return dec_record(x, f->sub, &b, AT(p, f->aux2, char));
  default:
    if (t == AVRO_NULL)
      return cuzk_errf(CUZK_ERR_SCHEMA, x->errstr, x->errstr_size,
                       "avro: required field %s.%s is null", type_names[x->type], f->name);
    return dec_value(x, f, f->kind, &b, p);
  }
}

/* The definition of record `name` inside our schema JSON. */
static json_t *find_record_json(json_t *node, const char *name, int depth) {
  if (depth > WALK_MAX_DEPTH)
    return NULL;
  if (json_is_object(node)) {
    json_t *t = json_object_get(node, "type"), *n = json_object_get(node, "name");
    if (json_is_string(t) && strcmp(json_string_value(t), "record") == 0 && json_is_string(n) &&
        strcmp(json_string_value(n), name) == 0)
      return node;
    const char *k;
    json_t *v;
    json_object_foreach(node, k, v) {
      json_t *r = find_record_json(v, name, depth + 1);
      if (r != NULL)
        return r;
    }
  } else if (json_is_array(node)) {
    size_t i;
    json_t *v;
    json_array_foreach(node, i, v) {
      json_t *r = find_record_json(v, name, depth + 1);
      if (r != NULL)
        return r;
    }
  }
  return NULL;
}

static cuzk_err_t bad_default(ctx_t *x, const rdesc_t *d, const fdesc_t *f) {
  return cuzk_errf(CUZK_ERR_SCHEMA, x->errstr, x->errstr_size,
                   "avro: the writer's %s lacks field %s and our schema has no usable default",
                   d->name, f->name);
}

/* Fills a field the writer's schema lacks with the default in our schema (JSON encoding of
 * defaults per the Avro spec: bytes as a string of code points 0..255). */
static cuzk_err_t apply_default(ctx_t *x, const rdesc_t *d, const fdesc_t *f, void *p) {
  json_t *rec = find_record_json(x->codec->ours[x->type], d->name, 0);
  json_t *def = NULL;
  size_t i;
  json_t *fl;
  json_array_foreach(json_object_get(rec, "fields"), i, fl) {
    json_t *n = json_object_get(fl, "name");
    if (json_is_string(n) && strcmp(json_string_value(n), f->name) == 0)
      def = json_object_get(fl, "default");
  }
  if (def == NULL)
    return bad_default(x, d, f);
  kind_t k = f->kind;
  if (json_is_null(def))
    return (k == K_OPT_STRING || k == K_OPT_BYTES || k == K_OPT_INT || k == K_OPT_LONG ||
            k == K_OPT_RECORD) ? CUZK_OK : bad_default(x, d, f);
  switch (k) {
  case K_OPT_STRING:
  case K_STRING:
    if (!json_is_string(def))
      return bad_default(x, d, f);
    if ((*AT(p, f->off, char *) = strdup(json_string_value(def))) == NULL)
      return nomem(x);
    return CUZK_OK;
  case K_OPT_BYTES:
  case K_BYTES: {
    if (!json_is_string(def))
      return bad_default(x, d, f);
    const unsigned char *s = (const unsigned char *)json_string_value(def);
    size_t sl = json_string_length(def), n = 0;
    uint8_t *out = malloc(sl + 1);
    if (out == NULL)
      return nomem(x);
    for (size_t j = 0; j < sl; j++) {
      if (s[j] < 0x80) {
        out[n++] = s[j];
      } else if ((s[j] == 0xC2 || s[j] == 0xC3) && j + 1 < sl) {
        out[n++] = (uint8_t)(((s[j] & 0x03) << 6) | (s[j + 1] & 0x3f));
        j++;
      } else {
        free(out);
        return bad_default(x, d, f);
      }
    }
    *AT(p, f->off, cuzk_bytes_t) = (cuzk_bytes_t){out, n};
    break;
  }
  case K_OPT_INT:
  case K_INT:
    if (!json_is_integer(def) || json_integer_value(def) < INT32_MIN ||
        json_integer_value(def) > INT32_MAX)
      return bad_default(x, d, f);
    *AT(p, f->off, int32_t) = (int32_t)json_integer_value(def);
    break;
  case K_OPT_LONG:
  case K_LONG:
    if (!json_is_integer(def))
      return bad_default(x, d, f);
    *AT(p, f->off, int64_t) = json_integer_value(def);
    break;
  case K_BOOL:
    if (!json_is_boolean(def))
      return bad_default(x, d, f);
    *AT(p, f->off, bool) = json_is_true(def);
    return CUZK_OK;
  case K_DOUBLE:
    if (!json_is_number(def))
      return bad_default(x, d, f);
    *AT(p, f->off, double) = json_number_value(def);
    return CUZK_OK;
  case K_ENUM:
    for (int s = 0; json_is_string(def) && s < f->nsyms; s++) {
      if (strcmp(json_string_value(def), f->syms[s]) == 0) {
        *AT(p, f->off, int) = s;
        return CUZK_OK;
      }
    }
    return bad_default(x, d, f);
  case K_ARRAY_LONG:
  case K_ARRAY_RECORD:
    return json_is_array(def) && json_array_size(def) == 0 ? CUZK_OK : bad_default(x, d, f);
  case K_MAP_STRING:
    return json_is_object(def) && json_object_size(def) == 0 ? CUZK_OK : bad_default(x, d, f);
  default:
    return bad_default(x, d, f);
  }
  if (k == K_OPT_BYTES || k == K_OPT_INT || k == K_OPT_LONG)
    *AT(p, f->aux, bool) = true;
  return CUZK_OK;
}

static cuzk_err_t dec_record(ctx_t *x, const rdesc_t *d, avro_value_t *rec, void *p) {
  for (size_t i = 0; i < d->n; i++) {
    avro_value_t fv;
    cuzk_err_t err;
    if (avro_value_get_by_name(rec, d->f[i].name, &fv, NULL) != 0)
      err = apply_default(x, d, &d->f[i], p);
    else
      err = dec_field(x, &d->f[i], &fv, p);
    if (err != CUZK_OK)
      return err;
  }
  return CUZK_OK;
}

static void clear_record(const rdesc_t *d, void *p);

static void clear_field(const fdesc_t *f, void *p) {
  switch (f->kind) {
  case K_STRING:
  case K_OPT_STRING:
    free(*AT(p, f->off, char *));
    break;
  case K_BYTES:
  case K_OPT_BYTES:
    free(AT(p, f->off, cuzk_bytes_t)->data);
    break;
  case K_RECORD:
  case K_OPT_RECORD:
    clear_record(f->sub, AT(p, f->off, char));
    break;
  case K_ARRAY_LONG:
    free(*AT(p, f->off, int64_t *));
    break;
  case K_ARRAY_RECORD: {
    char *items = *AT(p, f->off, char *);
    size_t n = *AT(p, f->aux, size_t);
    for (size_t i = 0; items != NULL && i < n; i++)
      clear_record(f->sub, items + i * f->sub->size);
    free(items);
    break;
  }
  case K_MAP_STRING: {
    cuzk_label_t *kv = *AT(p, f->off, cuzk_label_t *);
    size_t n = *AT(p, f->aux, size_t);
    for (size_t i = 0; kv != NULL && i < n; i++) {
      free(kv[i].key);
      free(kv[i].value);
    }
    free(kv);
    break;
  }
  case K_PAYLOAD:
    free(AT(p, f->off, cuzk_bytes_t)->data);
    clear_record(f->sub, AT(p, f->aux2, char));
    break;
  default:
    break;
  }
}

static void clear_record(const rdesc_t *d, void *p) {
  for (size_t i = 0; i < d->n; i++)
    clear_field(&d->f[i], p);
}

void cuzk_avro_record_clear(cuzk_avro_type_t type, void *rec) {
  assert((unsigned)type < CUZK_AVRO__COUNT);
  if (rec == NULL)
    return;
  clear_record(top_desc[type], rec);
  memset(rec, 0, top_desc[type]->size);
}

cuzk_err_t cuzk_avro_decode(cuzk_avro_codec_t *c, cuzk_avro_type_t type, void *rec,
                            const uint8_t *buf, size_t len, char *errstr, size_t errstr_size) {
  assert(c != NULL && rec != NULL && (buf != NULL || len == 0));
  assert((unsigned)type < CUZK_AVRO__COUNT);
  bind_thread(c);
  memset(rec, 0, top_desc[type]->size);
  cuzk_avro_frame_t fr;
  cuzk_err_t err = cuzk_avro_frame_parse(&fr, buf, len, c->conf.max_message_bytes, errstr,
                                         errstr_size);
  if (err != CUZK_OK)
    return err;
  const entry_t *e = fr.framing == CUZK_AVRO_FRAMING_CONFLUENT ? find_id(c, fr.schema_id)
                                                              : find_fp(c, fr.fingerprint);
  if (e == NULL) {
    if (fr.framing == CUZK_AVRO_FRAMING_CONFLUENT)
      return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size,
                       "avro: unknown Confluent schema id %d", (int)fr.schema_id);
    return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size,
                     "avro: unknown schema fingerprint %016llx", (unsigned long long)fr.fingerprint);
  }
  if (e->type != type)
    return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size,
                     "avro: message is a %s, expected a %s", type_names[e->type], type_names[type]);
  walk_t w = {fr.body, fr.body + fr.body_len, errstr, errstr_size};
  if ((err = walk(&w, e->schema, 0)) != CUZK_OK)
    return err;
  if (w.p != w.end)
    return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                     "avro: %zu bytes after the end of the %s", (size_t)(w.end - w.p),
                     type_names[type]);
  ctx_t x = {errstr, errstr_size, c, type};
  avro_value_t v;
  if (avro_generic_value_new(e->iface, &v) != 0)
    return avro_fail(&x, "allocating", type_names[type]);
  avro_reader_t r = avro_reader_memory((const char *)fr.body, (int64_t)fr.body_len);
  if (r == NULL)
    err = nomem(&x);
  else if (avro_value_read(r, &v) != 0)
    err = cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size, "avro: reading %s: %s",
                    type_names[type], avro_strerror());
  else
    err = dec_record(&x, top_desc[type], &v, rec);
  if (r != NULL)
    avro_reader_free(r);
  avro_value_decref(&v);
  if (err != CUZK_OK) {
    cuzk_avro_record_clear(type, rec);
    return err;
  }
  if (type == CUZK_AVRO_PROOF_JOB)
    return cuzk_proof_job_validate(rec, errstr, errstr_size);
  return CUZK_OK;
}

/* ---- job validation ---------------------------------------------------------------------------- */

#define JOB_ID_MAX 128
#define URI_MAX 4096
#define SECTOR_IDS_MAX 100000
#define LABELS_MAX 256

/* Filecoin sector sizes by (registered proof number mod 5), the order used by every
 * RegisteredSealProof / RegisteredPoStProof / RegisteredUpdateProof family. */
static const int64_t sector_sizes[5] = {
    2048, INT64_C(8) << 20, INT64_C(512) << 20, INT64_C(32) << 30, INT64_C(64) << 30,
};

static bool printable(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return false;
  return true;
}

static bool has_prefix_ci(const char *s, const char *prefix) {
  return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

cuzk_err_t cuzk_proof_job_validate(const cuzk_proof_job_t *j, char *errstr, size_t errstr_size) {
  assert(j != NULL);
#define BAD(...) return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, __VA_ARGS__)
  if (j->job_id == NULL || j->job_id[0] == '\0')
    BAD("job: empty job_id");
  if (strlen(j->job_id) > JOB_ID_MAX || !printable(j->job_id))
    BAD("job: job_id must be 1..%d printable bytes", JOB_ID_MAX);
  if ((unsigned)j->proof_type >= CUZK_PROOF_TYPE__COUNT)
    BAD("job %s: proof_type %d out of range", j->job_id, (int)j->proof_type);
  if ((unsigned)j->payload_format >= CUZK_PAYLOAD__COUNT)
    BAD("job %s: payload_format %d out of range", j->job_id, (int)j->payload_format);
  int lo, hi;
  const char *family;
  switch (j->proof_type) {
  case CUZK_PROOF_TYPE_WINNING_POST: lo = 0, hi = 4, family = "RegisteredPoStProof (winning)"; break;
  case CUZK_PROOF_TYPE_WINDOW_POST: lo = 5, hi = 14, family = "RegisteredPoStProof (window)"; break;
  case CUZK_PROOF_TYPE_SNAP_DEALS: lo = 0, hi = 4, family = "RegisteredUpdateProof"; break;
  default: lo = 0, hi = 19, family = "RegisteredSealProof"; break;
  }
  if (j->registered_proof < lo || j->registered_proof > hi)
    BAD("job %s: registered_proof %d is not a %s (%d..%d)", j->job_id, (int)j->registered_proof,
        family, lo, hi);
  if (j->sector_size != sector_sizes[j->registered_proof % 5])
    BAD("job %s: sector_size %lld does not match registered_proof %d (%lld)", j->job_id,
        (long long)j->sector_size, (int)j->registered_proof,
        (long long)sector_sizes[j->registered_proof % 5]);
  bool post = j->proof_type == CUZK_PROOF_TYPE_WINNING_POST ||
              j->proof_type == CUZK_PROOF_TYPE_WINDOW_POST;
  if (j->miner_id < 0)
    BAD("job %s: negative miner_id", j->job_id);
  if (j->prover_id.len != 0 && j->prover_id.len != 32)
    BAD("job %s: prover_id is %zu bytes, want 32", j->job_id, j->prover_id.len);
  if (j->prover_id.len == 0 && j->proof_type != CUZK_PROOF_TYPE_SNAP_DEALS)
    BAD("job %s: prover_id (32 bytes) is required for this proof type", j->job_id);
  if (j->has_randomness && j->randomness.len != 32)
    BAD("job %s: randomness is %zu bytes, want 32", j->job_id, j->randomness.len);
  if (post && !j->has_randomness)
    BAD("job %s: PoSt jobs need 32 bytes of challenge randomness", j->job_id);
  if (j->n_sector_ids > SECTOR_IDS_MAX)
    BAD("job %s: %zu sector ids, at most %d", j->job_id, j->n_sector_ids, SECTOR_IDS_MAX);
  if (post && j->n_sector_ids == 0)
    BAD("job %s: PoSt jobs need the challenged sector ids", j->job_id);
  if (j->proof_type == CUZK_PROOF_TYPE_POREP_C2 && j->n_sector_ids != 1)
    BAD("job %s: POREP_C2 needs exactly one sector id, got %zu", j->job_id, j->n_sector_ids);
  if (j->proof_type == CUZK_PROOF_TYPE_SNAP_DEALS && j->n_sector_ids > 1)
    BAD("job %s: SNAP_DEALS takes at most one sector id, got %zu", j->job_id, j->n_sector_ids);
  for (size_t i = 0; i < j->n_sector_ids; i++)
    if (j->sector_ids[i] < 0)
      BAD("job %s: negative sector id", j->job_id);
  if (j->has_priority && j->priority < 0)
    BAD("job %s: negative priority %d", j->job_id, (int)j->priority);
  if (j->has_deadline && j->deadline_ms < 0)
    BAD("job %s: negative deadline", j->job_id);
  if (j->created_at_ms < 0)
    BAD("job %s: negative created_at", j->job_id);
  if (j->attempt < 0)
    BAD("job %s: negative attempt", j->job_id);
  if (j->payload_is_ref) {
    const cuzk_payload_ref_t *r = &j->payload_ref;
    if (r->uri == NULL || strlen(r->uri) > URI_MAX || !printable(r->uri))
      BAD("job %s: payload uri must be 1..%d printable bytes", j->job_id, URI_MAX);
    if (!has_prefix_ci(r->uri, "file://") && !has_prefix_ci(r->uri, "http://") &&
        !has_prefix_ci(r->uri, "https://"))
      BAD("job %s: payload uri scheme must be file://, http:// or https://", j->job_id);
    if (r->size <= 0)
      BAD("job %s: payload reference size %lld must be positive", j->job_id, (long long)r->size);
  } else if (j->payload.len == 0) {
    BAD("job %s: empty inline payload", j->job_id);
  }
  bool fmt_ok;
  switch (j->payload_format) {
  case CUZK_PAYLOAD_POST_VANILLA_BINCODE:
  case CUZK_PAYLOAD_POST_VANILLA_JSON: fmt_ok = post; break;
  case CUZK_PAYLOAD_SNAP_VANILLA_BINCODE:
  case CUZK_PAYLOAD_SNAP_VANILLA_JSON: fmt_ok = j->proof_type == CUZK_PROOF_TYPE_SNAP_DEALS; break;
  default: fmt_ok = j->proof_type == CUZK_PROOF_TYPE_POREP_C2; break;
  }
  if (!fmt_ok)
    BAD("job %s: payload_format %s does not fit proof_type %s", j->job_id,
        payload_format_syms[j->payload_format], proof_type_syms[j->proof_type]);
  if (j->n_labels > LABELS_MAX)
    BAD("job %s: %zu labels, at most %d", j->job_id, j->n_labels, LABELS_MAX);
  for (size_t i = 0; i < j->n_labels; i++)
    if (j->labels[i].key == NULL || j->labels[i].key[0] == '\0' || j->labels[i].value == NULL)
      BAD("job %s: label %zu has an empty key", j->job_id, i);
#undef BAD
  return CUZK_OK;
}
