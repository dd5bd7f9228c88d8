/* The Kafka proving agent (DESIGN §3, §7): one consumer subscribed to the enabled job topics, an
 * idempotent producer for results, telemetry, status and dead letters, and the poll loop that
 * ties them to the engine.
 *
 * The poll loop runs on the thread that calls cuzk_agent_run() (the poll thread). It calls
 * rd_kafka_consumer_poll every poll_interval_ms, never waits for proving, and does all Avro work
 * (the codec is single-threaded). Engine callbacks only copy their data into a locked event list
 * that the poll thread drains. An input offset is marked complete in the watermark only after the
 * delivery report of its result; watermarks (with the completed offsets above them as commit
 * metadata) are committed periodically, on revocation and at shutdown, and a restarted agent skips
 * the offsets that metadata lists.
 *
 * Ownership: cuzk_agent_new copies every string of the conf; the engine table is borrowed and must
 * outlive the agent, and the caller frees the engine BEFORE cuzk_agent_free (engine callbacks may
 * still arrive until the engine is freed). Threads: cuzk_agent_stop is async-signal-safe and may be
 * called from any thread; everything else from the thread that runs the agent.
 */
#ifndef CUZK_AGENT_AGENT_H
#define CUZK_AGENT_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent_engine.h"
#include "agent/avro/records.h"
#include "core/util/err.h"

typedef struct cuzk_agent cuzk_agent_t;

typedef struct {
  size_t n;
  char **name;
  char **value;
} cuzk_agent_props_t;

/* What the poll thread tells the embedding program about each published result. */
typedef struct {
  const char *job_id;
  cuzk_result_status_t status;
  size_t proof_len;
  int32_t partitions;
  bool verified;
  const char *error_code; /* NULL when OK */
  const char *error_message;
  int64_t total_ms; /* from taking the message to the engine's answer */
  const char *topic;
  int32_t partition;
  int64_t offset;
} cuzk_agent_result_info_t;

typedef struct {
  const char *agent_id;
  const char *brokers; /* bootstrap list, never empty (the demo passes its mock cluster's) */
  const char *topic_prefix;
  const char *group_id;
  const char *group_instance_id; /* "" or NULL: dynamic membership */
  unsigned enabled_types;        /* bits 0..3: winning-post, window-post, snap-deals, porep-c2 */
  int framing;                   /* 0 single-object, 1 Confluent */
  int32_t confluent_ids[5];      /* per cuzk_avro_type_t, -1 = none */
  size_t max_message_bytes;      /* a job message above this is rejected unread */
  size_t max_job_bytes;          /* payload limit, inline or fetched */
  int poll_interval_ms;          /* <= 100 */
  int status_interval_s;
  int shutdown_grace_s;
  int payload_fetch_timeout_s;
  int commit_interval_ms; /* 0: 1000 */
  const char *assignor;   /* "range" or "roundrobin" */
  cuzk_agent_props_t props, consumer_props, producer_props;
  /* Backpressure: non-critical jobs in the engine at which the non-WinningPoSt partitions are
   * paused (0: 4); WinningPoSt partitions pause only at that plus reserve_critical. */
  unsigned max_jobs_in_flight;
  unsigned reserve_critical;
  cuzk_agent_engine_t *engine; /* borrowed */
  /* "host:port" of the HTTP server (/metrics, /healthz, /readyz, /status); NULL or "": none.
   * cuzk_agent_new fails when it cannot be bound. */
  const char *http_listen;
  /* Called on the poll thread once per loop; returning false stops the agent (as
   * cuzk_agent_stop). May be NULL. */
  bool (*tick)(void *ctx, cuzk_agent_t *agent);
  void *tick_ctx;
  /* Called on the poll thread after each result's delivery report. May be NULL. */
  void (*on_result)(void *ctx, const cuzk_agent_result_info_t *info);
  /* Called on the poll thread for each partition timing record. May be NULL. */
  void (*on_timing)(void *ctx, const cuzk_agent_timing_t *t);
  void *cb_ctx;
} cuzk_agent_conf_t;

typedef struct {
  uint64_t messages, skipped, submitted, results_ok, rejected, expired, failed, dead_letters;
  uint64_t timings, statuses, commits, pauses, resumes, produce_retries;
  size_t jobs_in_flight;
} cuzk_agent_stats_t;

/* Fills defaults (everything zero/NULL except: prefix "cuzk", group "cuzk-provers", all types,
 * 16 MiB message and 64 MiB job limits, poll 50 ms, status 10 s, grace 120 s, fetch 120 s,
 * assignor "range", reserve 1, no Confluent ids). */
void cuzk_agent_conf_init(cuzk_agent_conf_t *conf);

/* Creates the clients (nothing is contacted yet). NULL with the reason in errstr. */
cuzk_agent_t *cuzk_agent_new(const cuzk_agent_conf_t *conf, char *errstr, size_t errstr_size);

/* Runs the poll loop on the calling thread until stopped, then shuts down gracefully: stops
 * admitting, waits up to shutdown_grace_s for in-flight jobs, commits, closes the consumer and
 * flushes the producer. CUZK_OK, or CUZK_ERR_KAFKA when the clients fail fatally. */
cuzk_err_t cuzk_agent_run(cuzk_agent_t *agent);

/* Asks the loop to stop (async-signal-safe). */
void cuzk_agent_stop(cuzk_agent_t *agent);

void cuzk_agent_stats(const cuzk_agent_t *agent, cuzk_agent_stats_t *out);

/* Applies the reloadable settings (SIGHUP). Poll thread only (e.g. from the tick callback). */
void cuzk_agent_reconfigure(cuzk_agent_t *agent, int status_interval_s, int shutdown_grace_s,
                            unsigned reserve_critical);

void cuzk_agent_free(cuzk_agent_t *agent);

/* Applies logging settings given as core/util/log.h values (level: cuzk_log_level_t, format:
 * cuzk_log_format_t), for callers that cannot include log.h next to agent/config.h. Any thread. */
void cuzk_agent_apply_log(int level, int format);

#endif
