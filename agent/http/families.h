/* The metric families the agent exports, in one place, plus the parser of librdkafka's
 * statistics JSON (stats_cb) for consumer lag.
 *
 * Names are `cuzk_*` in base units (seconds, bytes, ratio 0..1); counters end in `_total`.
 * Label values used by the agent:
 *   type    proof type: winning-post, window-post, snap-deals, porep-c2
 *   status  jobs: ok, rejected, failed, expired, handed_back; partitions: ok, failed
 *   phase   budget_wait, synthesis, gpu_queue, gpu, finish, total (CUZK_PHASE_* below)
 *   gpu     device ordinal as text ("0")
 *   tier    SRS residency: device, pinned, host
 *
 * Threads: cuzk_families_init on the main thread before the server starts; updates through
 * the registry (agent/http/metrics.h) from any thread; cuzk_families_apply_kafka_stats from the
 * thread of librdkafka's stats_cb (the poll thread).
 * Ownership: the families belong to the registry passed to init; cuzk_families_t is a plain
 * struct of borrowed pointers, valid while that registry lives.
 */
#ifndef CUZK_AGENT_HTTP_FAMILIES_H
#define CUZK_AGENT_HTTP_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

#include "agent/http/metrics.h"
#include "core/util/err.h"

typedef struct {
  cuzk_metrics_t *reg;
  cuzk_metric_family_t *agent_info;                /* gauge {version,commit,agent} = 1 */
  cuzk_metric_family_t *start_time_seconds;        /* gauge: Unix time of start */
  cuzk_metric_family_t *jobs_total;                /* counter {type,status} */
  cuzk_metric_family_t *jobs_queued;               /* gauge {type}: accepted, not yet started */
  cuzk_metric_family_t *jobs_in_flight;            /* gauge {type}: started, not finished */
  cuzk_metric_family_t *dead_letters_total;        /* counter {type,reason} */
  cuzk_metric_family_t *partitions_total;          /* counter {type,status}: proof partitions */
  cuzk_metric_family_t *kafka_partitions_assigned; /* gauge: topic-partitions assigned */
  cuzk_metric_family_t *kafka_broker_up;           /* gauge: 1 when a broker is reachable */
  cuzk_metric_family_t *kafka_consumer_lag;        /* gauge {topic,partition}: messages */
  cuzk_metric_family_t *phase_seconds;             /* histogram {type,phase} */
  cuzk_metric_family_t *gpu_busy_ratio;            /* gauge {gpu}: kernel time / wall, 0..1 */
  cuzk_metric_family_t *h2d_bytes_total;           /* counter {gpu} */
  cuzk_metric_family_t *pool_hits_total;           /* counter: pinned pool reuse */
  cuzk_metric_family_t *pool_misses_total;         /* counter: pinned pool new allocations */
  cuzk_metric_family_t *pool_fallbacks_total;      /* counter: pageable fallbacks (no pinned) */
  cuzk_metric_family_t *pool_bytes;                /* gauge {state}: allocated, in_use */
  cuzk_metric_family_t *budget_used_bytes;         /* gauge */
  cuzk_metric_family_t *budget_total_bytes;        /* gauge */
  cuzk_metric_family_t *budget_waits_total;        /* counter: admissions that had to wait */
  cuzk_metric_family_t *srs_resident_bytes;        /* gauge {circuit,tier} */
} cuzk_families_t;

/* Phase label values of cuzk_phase_duration_seconds. */
#define CUZK_PHASE_BUDGET_WAIT "budget_wait"
#define CUZK_PHASE_SYNTHESIS "synthesis"
#define CUZK_PHASE_GPU_QUEUE "gpu_queue"
#define CUZK_PHASE_GPU "gpu"
#define CUZK_PHASE_FINISH "finish"
#define CUZK_PHASE_TOTAL "total"

/* Upper bounds (seconds) of the phase histogram: 5 ms .. 10 min, about ×2.5 apart, covering
 * WinningPoSt partitions (sub-second) to PoRep C2 partitions (minutes). */
extern const double cuzk_families_phase_buckets[];
extern const size_t cuzk_families_phase_nbuckets;

/* Registers every family in `reg` and sets agent_info{version,commit,agent=agent_id} = 1 and
 * the start time. CUZK_ERR_INVALID_ARG when a family is already registered; CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_families_init(cuzk_families_t *f, cuzk_metrics_t *reg, const char *agent_id);

/* One topic-partition's lag from a statistics document. */
typedef struct {
  char *topic; /* malloc'd */
  int32_t partition;
  int64_t lag;        /* consumer_lag: high watermark - committed offset */
  int64_t lag_stored; /* consumer_lag_stored: high watermark - stored offset (-1 unknown) */
} cuzk_kafka_lag_t;

/* Parses librdkafka's statistics JSON (STATISTICS.md: topics.<name>.partitions.<id>) and
 * returns the partitions with a known lag (consumer_lag >= 0; the internal partition -1 is
 * skipped), sorted by topic then partition, in a malloc'd array *out of *n entries (free with
 * cuzk_kafka_lag_free). Errors: CUZK_ERR_PARSE (not JSON, or fields of the wrong type),
 * CUZK_ERR_TOO_LARGE (over 16 MiB), CUZK_ERR_NOMEM. A document without "topics" gives n = 0. */
cuzk_err_t cuzk_kafka_stats_parse_lag(const char *json, size_t len, cuzk_kafka_lag_t **out,
                                      size_t *n);
void cuzk_kafka_lag_free(cuzk_kafka_lag_t *lags, size_t n);

/* Parses a statistics document and replaces the series of kafka_consumer_lag with its lags
 * (a partition no longer assigned disappears). On a parse error the gauges stay as they were. */
cuzk_err_t cuzk_families_apply_kafka_stats(cuzk_families_t *f, const char *json, size_t len);

#endif
