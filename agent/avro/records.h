/* C mirrors of the Avro records in schemas/<Name>.avsc (written by hand; keep them in step).
 *
 * Field names follow the schema; timestamps carry their unit in the C name (`_ms` for
 * timestamp-millis, `_us` for timestamp-micros). Nullable fields ("null" first in a union) have a
 * `has_` flag, except nullable strings, which are NULL when null.
 *
 * Ownership: a record filled by cuzk_avro_decode() owns every string, byte buffer and array in
 * it (malloc'd) and is released with cuzk_avro_record_clear(). Records passed to
 * cuzk_avro_encode() are only read; the caller keeps ownership.
 */
#ifndef CUZK_AGENT_AVRO_RECORDS_H
#define CUZK_AGENT_AVRO_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t *data;
  size_t len;
} cuzk_bytes_t;

typedef struct {
  char *key;
  char *value;
} cuzk_label_t;

/* Symbol order is the schema's: values are Avro enum indexes. */
typedef enum {
  CUZK_PROOF_TYPE_WINNING_POST,
  CUZK_PROOF_TYPE_WINDOW_POST,
  CUZK_PROOF_TYPE_SNAP_DEALS,
  CUZK_PROOF_TYPE_POREP_C2,
  CUZK_PROOF_TYPE__COUNT
} cuzk_proof_type_t;

typedef enum {
  CUZK_PAYLOAD_POST_VANILLA_BINCODE,
  CUZK_PAYLOAD_POST_VANILLA_JSON,
  CUZK_PAYLOAD_SNAP_VANILLA_BINCODE,
  CUZK_PAYLOAD_SNAP_VANILLA_JSON,
  CUZK_PAYLOAD_POREP_C1_JSON,
  CUZK_PAYLOAD_POREP_C1_BINCODE,
  CUZK_PAYLOAD__COUNT
} cuzk_payload_format_t;

typedef enum {
  CUZK_RESULT_OK,
  CUZK_RESULT_REJECTED,
  CUZK_RESULT_EXPIRED,
  CUZK_RESULT_FAILED,
  CUZK_RESULT_CANCELLED,
  CUZK_RESULT__COUNT
} cuzk_result_status_t;

typedef enum {
  CUZK_SRS_TIER_DEVICE,
  CUZK_SRS_TIER_HOT,
  CUZK_SRS_TIER_WARM,
  CUZK_SRS_TIER_COLD,
  CUZK_SRS_TIER__COUNT
} cuzk_srs_tier_t;

#define CUZK_SHA256_LEN 32

/* cuzk.PayloadRef */
typedef struct {
  char *uri; /* file://, http:// or https:// */
  uint8_t sha256[CUZK_SHA256_LEN];
  int64_t size;
} cuzk_payload_ref_t;

/* cuzk.ProofJob */
typedef struct {
  char *job_id;
  cuzk_proof_type_t proof_type;
  int32_t registered_proof;
  int64_t sector_size;
  int64_t miner_id;
  cuzk_bytes_t prover_id;
  int64_t *sector_ids;
  size_t n_sector_ids;
  bool has_randomness;
  cuzk_bytes_t randomness;
  bool has_priority;
  int32_t priority;
  bool has_deadline;
  int64_t deadline_ms;
  int64_t created_at_ms;
  bool payload_is_ref;         /* selects payload_ref over payload */
  cuzk_bytes_t payload;        /* inline payload */
  cuzk_payload_ref_t payload_ref;
  cuzk_payload_format_t payload_format;
  int32_t attempt;
  cuzk_label_t *labels;
  size_t n_labels;
} cuzk_proof_job_t;

/* cuzk.ProofError */
typedef struct {
  char *code; /* cuzk_err_name() of the failure */
  char *message;
  bool retriable;
} cuzk_proof_error_t;

/* cuzk.TimingSummary */
typedef struct {
  int64_t queue_us, synth_us, gpu_us, finish_us, total_us;
} cuzk_timing_summary_t;

/* cuzk.ProofResult */
typedef struct {
  char *job_id;
  cuzk_proof_type_t proof_type;
  cuzk_result_status_t status;
  bool has_proof;
  cuzk_bytes_t proof; /* 192 bytes per partition */
  int32_t partitions;
  bool has_error;
  cuzk_proof_error_t error;
  char *agent_id;
  int64_t started_at_ms;
  int64_t finished_at_ms;
  bool verified;
  bool has_timing;
  cuzk_timing_summary_t timing;
  int32_t attempt;
  cuzk_label_t *labels;
  size_t n_labels;
} cuzk_proof_result_t;

/* cuzk.PoolStats */
typedef struct {
  int64_t buffers, bytes, hits, misses, allocations, frees;
} cuzk_pool_stats_t;

/* cuzk.BudgetStats */
typedef struct {
  int64_t used, total;
} cuzk_budget_stats_t;

/* cuzk.PartitionTiming: timestamps are µs since the Unix epoch, durations µs. */
typedef struct {
  char *job_id;
  cuzk_proof_type_t proof_type;
  int32_t partition;
  char *agent_id;
  int32_t gpu; /* -1: CPU backend */
  int64_t enqueued_us, budget_granted_us, synth_start_us, synth_end_us;
  int64_t gpu_queued_us, gpu_start_us, gpu_end_us, finish_end_us;
  int64_t h2d_bytes, h2d_us, ntt_us;
  int64_t msm_h_us, msm_l_us, msm_a_us, msm_b_g1_us, msm_b_g2_us;
  bool is_pinned;
  cuzk_pool_stats_t pool;
  cuzk_budget_stats_t budget;
  bool synthetic;
} cuzk_partition_timing_t;

/* cuzk.QueueDepth */
typedef struct {
  int32_t priority;
  int64_t depth;
} cuzk_queue_depth_t;

/* cuzk.SrsEntry */
typedef struct {
  char *circuit;
  cuzk_srs_tier_t tier;
  int64_t bytes;
  int32_t refcount;
} cuzk_srs_entry_t;

/* cuzk.GpuInfo */
typedef struct {
  int32_t index;
  char *name;
  int64_t mem_total, mem_free;
  double busy_ratio;
} cuzk_gpu_info_t;

/* cuzk.AgentStatus */
typedef struct {
  char *agent_id;
  char *host;
  char *version;
  char *git_commit;
  int64_t time_ms;
  cuzk_queue_depth_t *queues;
  size_t n_queues;
  cuzk_pool_stats_t pool;
  cuzk_budget_stats_t budget;
  cuzk_srs_entry_t *srs;
  size_t n_srs;
  cuzk_gpu_info_t *gpus;
  size_t n_gpus;
  int32_t jobs_in_flight;
  int64_t uptime_s;
} cuzk_agent_status_t;

/* cuzk.DeadLetter */
typedef struct {
  char *job_id; /* NULL when unknown */
  char *topic;
  int32_t partition;
  int64_t offset;
  bool has_key;
  cuzk_bytes_t key;
  char *reason; /* cuzk_err_name() */
  char *message;
  cuzk_bytes_t value; /* possibly truncated */
  int64_t value_size; /* original size */
  char *agent_id;
  int64_t time_ms;
} cuzk_dead_letter_t;

#endif
