#include "agent/agent.h"

#include <assert.h>
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/avro/codec.h"
#include "agent/cli.h"
#include "agent/http/families.h"
#include "agent/http/server.h"
#include "agent/kafka/topics.h"
#include "agent/kafka/watermark.h"
#include "agent/payload.h"
#include "core/util/clock.h"
#include "core/util/log.h"

#define CUZK__DL_VALUE_MAX (64u << 10) /* dead letters carry at most the first 64 KiB */
#define CUZK__MAX_RANGES 256

/* One consumed job message, from take to the delivery report of its result. */
typedef struct cuzk__job {
  struct cuzk__job *next; /* event list / retry list link */
  char topic[CUZK_TOPICS_NAME_MAX + 1];
  int32_t partition;
  int64_t offset;
  uint64_t gen;
  char *job_id;
  cuzk_proof_type_t proof_type;
  int32_t attempt;
  bool critical, in_engine;
  bool id_known; /* job_id came from the record, not the key */
  int64_t started_ms;
  /* the engine's answer (copied in its callback) */
  cuzk_err_t status;
  char *message;
  uint8_t *proof;
  size_t proof_len;
  uint32_t partitions;
  bool verified;
  uint64_t submitted_us, finished_us;
  /* the encoded result, kept until delivered */
  cuzk_result_status_t rstatus;
  char *err_code;
  uint8_t *result;
  size_t result_len;
  uint64_t retry_at_ms;
} cuzk__job_t;

typedef struct cuzk__event {
  struct cuzk__event *next;
  cuzk__job_t *job;           /* a job the engine finished, or */
  cuzk_agent_timing_t timing; /* a timing record (job_id points into id) */
  char id[129];
} cuzk__event_t;

typedef struct {
  char topic[CUZK_TOPICS_NAME_MAX + 1];
  int32_t partition;
  bool critical, paused;
} cuzk__part_t;

struct cuzk_agent {
  cuzk_agent_conf_t conf;
  char *s_agent_id, *s_brokers, *s_prefix, *s_group, *s_instance, *s_assignor;
  char host[256];
  cuzk_topics_t topics;
  rd_kafka_t *consumer, *producer;
  cuzk_avro_codec_t *codec;
  cuzk_watermark_t *wm;
  cuzk__part_t *parts;
  size_t n_parts, cap_parts;
  bool dirty; /* completions since the last commit */
  uint64_t last_commit_ms, last_status_ms, start_ms;
  pthread_mutex_t ev_mu;
  cuzk__event_t *ev_head, **ev_tail;
  cuzk__job_t *retry;                        /* results whose delivery failed */
  size_t inflight_normal, inflight_critical; /* jobs in the engine */
  size_t awaiting_delivery;
  atomic_int stop;
  bool shutting_down;
  cuzk_agent_stats_t st;
  /* HTTP (NULL when agent.http_listen is ""): families are updated on the poll thread; the
   * server thread reads only the atomics below and the snapshot under http_mu. */
  char *s_http;
  cuzk_metrics_t *reg;
  cuzk_families_t fam;
  cuzk_http_t *http;
  _Atomic uint64_t last_tick_ns;
  atomic_int n_assigned, broker_up;
  pthread_mutex_t http_mu;
  cuzk_agent_engine_status_t es_snap;
  size_t inflight_snap;
  uint64_t last_sample_ms;
  int64_t seen_pool_hits, seen_pool_misses;
};

static const char *const cuzk__type_label[5] = {"winning-post", "window-post", "snap-deals",
                                                "porep-c2", "synthetic"};

static const char *cuzk__type_name(int t) {
  return t >= 0 && t < 5 ? cuzk__type_label[t] : "unknown";
}

/* ---- small helpers -------------------------------------------------------------------------- */

static char *cuzk__dup(const char *s) {
  return s ? strdup(s) : NULL;
}

static void cuzk__job_free(cuzk__job_t *j) {
  if (!j) return;
  free(j->job_id);
  free(j->message);
  free(j->proof);
  free(j->err_code);
  free(j->result);
  free(j);
}

static void cuzk__push_event(cuzk_agent_t *a, cuzk__event_t *ev) {
  ev->next = NULL;
  pthread_mutex_lock(&a->ev_mu);
  *a->ev_tail = ev;
  a->ev_tail = &ev->next;
  pthread_mutex_unlock(&a->ev_mu);
}

static cuzk__event_t *cuzk__take_events(cuzk_agent_t *a) {
  pthread_mutex_lock(&a->ev_mu);
  cuzk__event_t *h = a->ev_head;
  a->ev_head = NULL;
  a->ev_tail = &a->ev_head;
  pthread_mutex_unlock(&a->ev_mu);
  return h;
}

void cuzk_agent_conf_init(cuzk_agent_conf_t *c) {
  memset(c, 0, sizeof *c);
  c->topic_prefix = "cuzk";
  c->group_id = "cuzk-provers";
  c->enabled_types = 0xf;
  c->framing = 0;
  for (int i = 0; i < 5; i++) c->confluent_ids[i] = -1;
  c->max_message_bytes = 16u << 20;
  c->max_job_bytes = 64u << 20;
  c->poll_interval_ms = 50;
  c->status_interval_s = 10;
  c->shutdown_grace_s = 120;
  c->payload_fetch_timeout_s = 120;
  c->commit_interval_ms = 1000;
  c->assignor = "range";
  c->reserve_critical = 1;
}

/* ---- librdkafka glue ------------------------------------------------------------------------ */

static void cuzk__rk_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
  cuzk_log_level_t l = level <= 3   ? CUZK_LOG_ERROR
                       : level == 4 ? CUZK_LOG_WARN
                       : level <= 6 ? CUZK_LOG_INFO
                                    : CUZK_LOG_DEBUG;
  CUZK_LOG(l, "rdkafka", "log", "client=%s facility=%s msg=%s", rd_kafka_name(rk), fac, buf);
}

static void cuzk__rk_error(rd_kafka_t *rk, int err, const char *reason, void *opaque) {
  cuzk_agent_t *a = opaque;
  if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) atomic_store(&a->broker_up, 0);
  CUZK_WARN("kafka", "client_error", "client=%s err=%s reason=%s", rd_kafka_name(rk),
            rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}

static bool cuzk__set(rd_kafka_conf_t *kc, const char *k, const char *v, char *errstr, size_t n) {
  char e[512];
  if (rd_kafka_conf_set(kc, k, v, e, sizeof e) != RD_KAFKA_CONF_OK) {
    snprintf(errstr, n, "kafka property %s=%s: %s", k, v, e);
    return false;
  }
  return true;
}

static bool cuzk__set_props(rd_kafka_conf_t *kc, const cuzk_agent_props_t *p, char *errstr,
                            size_t n) {
  for (size_t i = 0; i < p->n; i++)
    if (!cuzk__set(kc, p->name[i], p->value[i], errstr, n)) return false;
  return true;
}

/* Commits every assigned partition's watermark with the completed offsets above it as metadata.
 * Poll thread (also from the rebalance callback). */
static void cuzk__commit(cuzk_agent_t *a, bool sync) {
  if (a->n_parts == 0) return;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)a->n_parts);
  cuzk_watermark_range_t ranges[CUZK__MAX_RANGES];
  for (size_t i = 0; i < a->n_parts; i++) {
    int64_t commit;
    size_t n_above = 0;
    if (cuzk_watermark_next_commit(a->wm, a->parts[i].topic, a->parts[i].partition, &commit, ranges,
                                   CUZK__MAX_RANGES, &n_above) != CUZK_OK ||
        commit < 0)
      continue;
    if (n_above > CUZK__MAX_RANGES) n_above = CUZK__MAX_RANGES;
    char meta[CUZK_WATERMARK_META_MAX];
    cuzk_watermark_format_metadata(meta, sizeof meta, commit, ranges, n_above);
    rd_kafka_topic_partition_t *tp =
        rd_kafka_topic_partition_list_add(l, a->parts[i].topic, a->parts[i].partition);
    tp->offset = commit;
    tp->metadata = strdup(meta);
    tp->metadata_size = strlen(meta);
  }
  if (l->cnt > 0) {
    rd_kafka_resp_err_t err = rd_kafka_commit(a->consumer, l, sync ? 0 : 1);
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET)
      CUZK_WARN("kafka", "commit_failed", "err=%s", rd_kafka_err2name(err));
    else
      a->st.commits++;
    if (CUZK_LOG_DEBUG >= cuzk_log_get_level())
      for (int i = 0; i < l->cnt; i++)
        CUZK_DEBUG("kafka", "commit", "topic=%s partition=%d offset=%lld metadata=%s",
                   l->elems[i].topic, (int)l->elems[i].partition, (long long)l->elems[i].offset,
                   (const char *)l->elems[i].metadata);
  }
  rd_kafka_topic_partition_list_destroy(l);
  a->dirty = false;
  a->last_commit_ms = cuzk_wall_ms();
}

static void cuzk__rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *parts, void *opaque) {
  cuzk_agent_t *a = opaque;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(parts);
    for (int i = 0; i < c->cnt; i++) c->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
    rd_kafka_resp_err_t cerr = rd_kafka_committed(rk, c, 10000);
    if (cerr) CUZK_WARN("kafka", "committed_failed", "err=%s", rd_kafka_err2name(cerr));
    for (int i = 0; i < c->cnt; i++) {
      rd_kafka_topic_partition_t *tp = &c->elems[i];
      int64_t committed = tp->offset >= 0 ? tp->offset : -1;
      char meta[CUZK_WATERMARK_META_MAX + 1] = "";
      if (tp->metadata && tp->metadata_size > 0) {
        size_t m = tp->metadata_size < CUZK_WATERMARK_META_MAX ? tp->metadata_size
                                                               : CUZK_WATERMARK_META_MAX;
        memcpy(meta, tp->metadata, m);
        meta[m] = 0;
      }
      uint64_t gen;
      cuzk_err_t e = cuzk_watermark_assign(a->wm, tp->topic, tp->partition, committed, meta, &gen);
      if (e == CUZK_ERR_PARSE)
        e = cuzk_watermark_assign(a->wm, tp->topic, tp->partition, committed, NULL, &gen);
      if (e != CUZK_OK)
        CUZK_ERROR("kafka", "watermark_assign_failed", "topic=%s partition=%d err=%s", tp->topic,
                   (int)tp->partition, cuzk_err_name(e));
      if (a->n_parts == a->cap_parts) {
        size_t cap = a->cap_parts ? 2 * a->cap_parts : 16;
        cuzk__part_t *np = realloc(a->parts, cap * sizeof *np);
        if (!np) abort();
        a->parts = np;
        a->cap_parts = cap;
      }
      cuzk__part_t *p = &a->parts[a->n_parts++];
      memset(p, 0, sizeof *p);
      snprintf(p->topic, sizeof p->topic, "%s", tp->topic);
      p->partition = tp->partition;
      p->critical = strcmp(tp->topic, a->topics.names[CUZK_TOPIC_JOBS_WINNING_POST]) == 0;
      CUZK_INFO("kafka", "assigned", "topic=%s partition=%d committed=%lld metadata=%s", tp->topic,
                (int)tp->partition, (long long)committed, meta);
    }
    rd_kafka_topic_partition_list_destroy(c);
    rd_kafka_assign(rk, parts);
    atomic_store(&a->broker_up, 1);
  } else {
    cuzk__commit(a, true);
    for (int i = 0; i < parts->cnt; i++)
      CUZK_INFO("kafka", "revoked", "topic=%s partition=%d", parts->elems[i].topic,
                (int)parts->elems[i].partition);
    cuzk_watermark_revoke_all(a->wm);
    a->n_parts = 0;
    rd_kafka_assign(rk, NULL);
  }
  atomic_store(&a->n_assigned, (int)a->n_parts);
  if (a->reg)
    cuzk_metrics_set(cuzk_metrics_with(a->fam.kafka_partitions_assigned, NULL), (double)a->n_parts);
}

static void cuzk__deliver_job(cuzk_agent_t *a, cuzk__job_t *j, rd_kafka_resp_err_t err);

static void cuzk__dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  cuzk_agent_t *a = opaque;
  if (m->_private) {
    if (a->awaiting_delivery) a->awaiting_delivery--;
    cuzk__deliver_job(a, (cuzk__job_t *)m->_private, m->err);
  } else if (m->err) {
    CUZK_WARN("kafka", "delivery_failed", "topic=%s err=%s", rd_kafka_topic_name(m->rkt),
              rd_kafka_err2name(m->err));
  }
}

static rd_kafka_t *cuzk__new_producer(cuzk_agent_t *a, char *errstr, size_t n) {
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  char id[300];
  snprintf(id, sizeof id, "%s-producer", a->s_agent_id);
  char mmb[32];
  snprintf(mmb, sizeof mmb, "%zu", a->conf.max_message_bytes + (1u << 20));
  if (!cuzk__set(kc, "bootstrap.servers", a->s_brokers, errstr, n) ||
      !cuzk__set(kc, "client.id", id, errstr, n) ||
      !cuzk__set(kc, "enable.idempotence", "true", errstr, n) ||
      !cuzk__set(kc, "linger.ms", "5", errstr, n) ||
      !cuzk__set(kc, "message.max.bytes", mmb, errstr, n) ||
      !cuzk__set_props(kc, &a->conf.props, errstr, n) ||
      !cuzk__set_props(kc, &a->conf.producer_props, errstr, n)) {
    rd_kafka_conf_destroy(kc);
    return NULL;
  }
  rd_kafka_conf_set_opaque(kc, a);
  rd_kafka_conf_set_dr_msg_cb(kc, cuzk__dr);
  rd_kafka_conf_set_log_cb(kc, cuzk__rk_log);
  rd_kafka_conf_set_error_cb(kc, cuzk__rk_error);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, kc, errstr, n);
  if (!rk) rd_kafka_conf_destroy(kc);
  return rk;
}

/* Produces value under key to topic t; opaque j (may be NULL). False when librdkafka refused. */
static bool cuzk__produce(cuzk_agent_t *a, cuzk_topic_t t, const char *key, const uint8_t *val,
                          size_t len, cuzk__job_t *j) {
  for (int tries = 0; tries < 100; tries++) {
    rd_kafka_resp_err_t err = rd_kafka_producev(
        a->producer, RD_KAFKA_V_TOPIC(a->topics.names[t]),
        RD_KAFKA_V_KEY(key, key ? strlen(key) : 0), RD_KAFKA_V_VALUE((void *)val, len),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(j), RD_KAFKA_V_END);
    if (!err) return true;
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      CUZK_ERROR("kafka", "produce_failed", "topic=%s err=%s", a->topics.names[t],
                 rd_kafka_err2name(err));
      return false;
    }
    rd_kafka_poll(a->producer, 10);
  }
  return false;
}

/* ---- records -------------------------------------------------------------------------------- */

static void cuzk__retry_later(cuzk_agent_t *a, cuzk__job_t *j) {
  j->retry_at_ms = cuzk_wall_ms() + 1000;
  j->next = a->retry;
  a->retry = j;
  a->st.produce_retries++;
}

/* Encodes j's result (from rstatus, the engine answer, err_code/message) and produces it. */
static void cuzk__publish_result(cuzk_agent_t *a, cuzk__job_t *j) {
  if (!j->result) {
    cuzk_proof_result_t r;
    memset(&r, 0, sizeof r);
    r.job_id = j->job_id;
    r.proof_type = j->proof_type;
    r.status = j->rstatus;
    if (j->rstatus == CUZK_RESULT_OK) {
      r.has_proof = true;
      r.proof.data = j->proof;
      r.proof.len = j->proof_len;
    }
    r.partitions = (int32_t)j->partitions;
    if (j->rstatus != CUZK_RESULT_OK) {
      r.has_error = true;
      r.error.code = j->err_code ? j->err_code : (char *)"INTERNAL";
      r.error.message = j->message ? j->message : (char *)"";
      r.error.retriable = j->status != CUZK_OK && cuzk_err_is_retriable(j->status);
    }
    r.agent_id = a->s_agent_id;
    r.started_at_ms = j->started_ms;
    r.finished_at_ms = (int64_t)cuzk_wall_ms();
    r.verified = j->verified;
    if (j->finished_us) {
      r.has_timing = true;
      r.timing.total_us = (int64_t)(j->finished_us - (uint64_t)j->started_ms * 1000);
    }
    r.attempt = j->attempt;
    char err[512];
    cuzk_err_t e = cuzk_avro_encode(a->codec, CUZK_AVRO_PROOF_RESULT, &r, &j->result,
                                    &j->result_len, err, sizeof err);
    if (e != CUZK_OK) {
      CUZK_ERROR("agent", "encode_failed", "record=ProofResult job_id=%s err=%s msg=%s", j->job_id,
                 cuzk_err_name(e), err);
      /* a result that cannot be encoded still has to complete the offset */
      cuzk__deliver_job(a, j, RD_KAFKA_RESP_ERR_NO_ERROR);
      return;
    }
  }
  a->awaiting_delivery++;
  if (!cuzk__produce(a, CUZK_TOPIC_RESULTS, j->job_id, j->result, j->result_len, j)) {
    a->awaiting_delivery--;
    cuzk__retry_later(a, j);
  }
}

static void cuzk__deliver_job(cuzk_agent_t *a, cuzk__job_t *j, rd_kafka_resp_err_t err) {
  if (err) {
    CUZK_WARN("kafka", "result_delivery_failed", "job_id=%s err=%s", j->job_id,
              rd_kafka_err2name(err));
    cuzk__retry_later(a, j);
    return;
  }
  cuzk_err_t e = cuzk_watermark_complete(a->wm, j->topic, j->partition, j->offset, j->gen);
  if (e == CUZK_OK)
    a->dirty = true;
  else
    CUZK_DEBUG("agent", "complete_ignored", "job_id=%s topic=%s partition=%d offset=%lld err=%s",
               j->job_id, j->topic, (int)j->partition, (long long)j->offset, cuzk_err_name(e));
  switch (j->rstatus) {
    case CUZK_RESULT_OK:
      a->st.results_ok++;
      break;
    case CUZK_RESULT_REJECTED:
      a->st.rejected++;
      break;
    case CUZK_RESULT_EXPIRED:
      a->st.expired++;
      break;
    default:
      a->st.failed++;
      break;
  }
  int64_t total_ms = (int64_t)cuzk_wall_ms() - j->started_ms;
  if (a->reg) {
    const char *st = j->rstatus == CUZK_RESULT_OK         ? "ok"
                     : j->rstatus == CUZK_RESULT_REJECTED ? "rejected"
                     : j->rstatus == CUZK_RESULT_EXPIRED  ? "expired"
                     : j->rstatus == CUZK_RESULT_FAILED   ? "failed"
                                                          : "handed_back";
    cuzk_metrics_inc(cuzk_metrics_with(a->fam.jobs_total,
                                       (const char *[]){cuzk__type_name((int)j->proof_type), st}));
  }
  CUZK_INFO("agent", "result_published",
            "job_id=%s status=%s proof_bytes=%zu verified=%s error=%s topic=%s partition=%d "
            "offset=%lld total_ms=%lld",
            j->job_id,
            j->rstatus == CUZK_RESULT_OK         ? "OK"
            : j->rstatus == CUZK_RESULT_REJECTED ? "REJECTED"
            : j->rstatus == CUZK_RESULT_EXPIRED  ? "EXPIRED"
            : j->rstatus == CUZK_RESULT_FAILED   ? "FAILED"
                                                 : "CANCELLED",
            j->proof_len, j->verified ? "true" : "false", j->err_code ? j->err_code : "", j->topic,
            (int)j->partition, (long long)j->offset, (long long)total_ms);
  if (a->conf.on_result) {
    cuzk_agent_result_info_t info = {
        j->job_id,  j->rstatus, j->proof_len, (int32_t)j->partitions, j->verified, j->err_code,
        j->message, total_ms,   j->topic,     j->partition,           j->offset};
    a->conf.on_result(a->conf.cb_ctx, &info);
  }
  cuzk__job_free(j);
}

static void cuzk__dead_letter(cuzk_agent_t *a, const rd_kafka_message_t *m, const char *job_id,
                              cuzk_err_t reason, const char *message) {
  cuzk_dead_letter_t d;
  memset(&d, 0, sizeof d);
  d.job_id = (char *)job_id;
  d.topic = (char *)rd_kafka_topic_name(m->rkt);
  d.partition = m->partition;
  d.offset = m->offset;
  if (m->key) {
    d.has_key = true;
    d.key.data = m->key;
    d.key.len = m->key_len;
  }
  d.reason = (char *)cuzk_err_name(reason);
  d.message = (char *)message;
  d.value.data = m->payload;
  d.value.len = m->len < CUZK__DL_VALUE_MAX ? m->len : CUZK__DL_VALUE_MAX;
  d.value_size = (int64_t)m->len;
  d.agent_id = a->s_agent_id;
  d.time_ms = (int64_t)cuzk_wall_ms();
  uint8_t *buf = NULL;
  size_t len = 0;
  char err[512];
  cuzk_err_t e = cuzk_avro_encode(a->codec, CUZK_AVRO_DEAD_LETTER, &d, &buf, &len, err, sizeof err);
  if (e != CUZK_OK) {
    CUZK_ERROR("agent", "encode_failed", "record=DeadLetter err=%s msg=%s", cuzk_err_name(e), err);
    return;
  }
  if (cuzk__produce(a, CUZK_TOPIC_DEAD_LETTER, job_id, buf, len, NULL)) a->st.dead_letters++;
  if (a->reg) {
    const char *type = "unknown";
    const char *tn = m ? rd_kafka_topic_name(m->rkt) : NULL;
    for (int t = 0; tn && t < 4; t++)
      if (strcmp(tn, a->topics.names[t]) == 0) type = cuzk__type_label[t];
    cuzk_metrics_inc(cuzk_metrics_with(a->fam.dead_letters_total,
                                       (const char *[]){type, cuzk_err_name(reason)}));
  }
  free(buf);
}

/* Ends job j without proving: status, code and message; optionally a DeadLetter of m. */
static void cuzk__finish_early(cuzk_agent_t *a, cuzk__job_t *j, const rd_kafka_message_t *m,
                               cuzk_result_status_t rs, cuzk_err_t code, const char *msg) {
  j->rstatus = rs;
  j->status = code;
  j->err_code = strdup(cuzk_err_name(code));
  j->message = strdup(msg ? msg : cuzk_err_str(code));
  CUZK_WARN("agent", rs == CUZK_RESULT_EXPIRED ? "job_expired" : "job_rejected",
            "job_id=%s topic=%s partition=%d offset=%lld code=%s msg=%s", j->job_id, j->topic,
            (int)j->partition, (long long)j->offset, j->err_code, j->message);
  if (rs == CUZK_RESULT_REJECTED && m)
    cuzk__dead_letter(a, m, j->id_known ? j->job_id : NULL, code, j->message);
  cuzk__publish_result(a, j);
}

/* ---- engine callbacks (engine threads) ------------------------------------------------------ */

static void cuzk__engine_done(void *user, const cuzk_agent_job_done_t *res) {
  cuzk__job_t *j = user;
  cuzk_agent_t *a = (cuzk_agent_t *)(void *)j->next; /* stashed at submit */
  j->next = NULL;
  j->status = res->status;
  if (res->message) j->message = strdup(res->message);
  if (res->proof && res->proof_len) {
    j->proof = malloc(res->proof_len);
    if (j->proof) {
      memcpy(j->proof, res->proof, res->proof_len);
      j->proof_len = res->proof_len;
    } else {
      j->status = CUZK_ERR_NOMEM;
    }
  }
  j->partitions = res->partitions;
  j->verified = res->verified;
  j->submitted_us = res->submitted_wall_us;
  j->finished_us = res->finished_wall_us ? res->finished_wall_us : cuzk_wall_ms() * 1000;
  cuzk__event_t *ev = calloc(1, sizeof *ev);
  if (!ev) abort();
  ev->job = j;
  cuzk__push_event(a, ev);
}

static void cuzk__engine_timing(void *ctx, const cuzk_agent_timing_t *t) {
  cuzk_agent_t *a = ctx;
  cuzk__event_t *ev = calloc(1, sizeof *ev);
  if (!ev) return;
  ev->timing = *t;
  snprintf(ev->id, sizeof ev->id, "%s", t->job_id ? t->job_id : "");
  ev->timing.job_id = ev->id;
  cuzk__push_event(a, ev);
}

/* ---- metrics (poll thread) ------------------------------------------------------------------- */

static void cuzk__observe_phase(cuzk_agent_t *a, const char *type, const char *phase,
                                uint64_t from_us, uint64_t to_us) {
  if (from_us == 0 || to_us < from_us) return;
  cuzk_metrics_observe(cuzk_metrics_with(a->fam.phase_seconds, (const char *[]){type, phase}),
                       (double)(to_us - from_us) / 1e6);
}

static void cuzk__observe_timing(cuzk_agent_t *a, const cuzk_agent_timing_t *t) {
  const char *type = cuzk__type_name(t->type);
  cuzk_metrics_inc(cuzk_metrics_with(a->fam.partitions_total, (const char *[]){type, "ok"}));
  cuzk__observe_phase(a, type, CUZK_PHASE_BUDGET_WAIT, t->enqueued, t->budget_granted);
  cuzk__observe_phase(a, type, CUZK_PHASE_SYNTHESIS, t->synth_start, t->synth_end);
  cuzk__observe_phase(a, type, CUZK_PHASE_GPU_QUEUE, t->gpu_queued, t->gpu_start);
  cuzk__observe_phase(a, type, CUZK_PHASE_GPU, t->gpu_start, t->gpu_end);
  cuzk__observe_phase(a, type, CUZK_PHASE_FINISH, t->gpu_end, t->finish_end);
  cuzk__observe_phase(a, type, CUZK_PHASE_TOTAL, t->enqueued, t->finish_end);
  if (!t->is_pinned) cuzk_metrics_inc(cuzk_metrics_with(a->fam.pool_fallbacks_total, NULL));
  if (t->h2d_bytes > 0) {
    char gpu[16];
    snprintf(gpu, sizeof gpu, "%d", t->gpu < 0 ? 0 : t->gpu);
    cuzk_metrics_add(cuzk_metrics_with(a->fam.h2d_bytes_total, (const char *[]){gpu}),
                     (double)t->h2d_bytes);
  }
}

/* Samples the engine status (about once a second) into the gauges and the /status snapshot. */
static void cuzk__sample(cuzk_agent_t *a) {
  uint64_t now = cuzk_wall_ms();
  if (a->last_sample_ms && now - a->last_sample_ms < 1000) return;
  a->last_sample_ms = now;
  cuzk_agent_engine_status_t es;
  memset(&es, 0, sizeof es);
  if (a->conf.engine && a->conf.engine->status) a->conf.engine->status(a->conf.engine, &es);
  size_t inflight = a->inflight_normal + a->inflight_critical;
  pthread_mutex_lock(&a->http_mu);
  a->es_snap = es;
  a->inflight_snap = inflight;
  pthread_mutex_unlock(&a->http_mu);
  cuzk_families_t *f = &a->fam;
  if (es.pool_hits > a->seen_pool_hits) {
    cuzk_metrics_add(cuzk_metrics_with(f->pool_hits_total, NULL),
                     (double)(es.pool_hits - a->seen_pool_hits));
    a->seen_pool_hits = es.pool_hits;
  }
  if (es.pool_misses > a->seen_pool_misses) {
    cuzk_metrics_add(cuzk_metrics_with(f->pool_misses_total, NULL),
                     (double)(es.pool_misses - a->seen_pool_misses));
    a->seen_pool_misses = es.pool_misses;
  }
  cuzk_metrics_set(cuzk_metrics_with(f->pool_bytes, (const char *[]){"allocated"}),
                   (double)es.pool_bytes);
  cuzk_metrics_set(cuzk_metrics_with(f->budget_used_bytes, NULL), (double)es.budget_used);
  cuzk_metrics_set(cuzk_metrics_with(f->budget_total_bytes, NULL), (double)es.budget_total);
  /* The engine reports jobs in flight and queued partitions without their type: "all". */
  cuzk_metrics_set(cuzk_metrics_with(f->jobs_in_flight, (const char *[]){"all"}), (double)inflight);
  cuzk_metrics_set(cuzk_metrics_with(f->jobs_queued, (const char *[]){"all"}),
                   (double)(es.queued[0] + es.queued[1] + es.queued[2]));
  cuzk_metrics_set(cuzk_metrics_with(f->gpu_busy_ratio, (const char *[]){"0"}), es.gpu_busy_ratio);
  cuzk_metrics_set(cuzk_metrics_with(f->kafka_broker_up, NULL), (double)atomic_load(&a->broker_up));
  /* The engine reports SRS residency in total, not per circuit; the CPU backend keeps it on the host. */
  cuzk_metrics_set(cuzk_metrics_with(f->srs_resident_bytes, (const char *[]){"all", "host"}),
                   (double)es.srs_bytes);
}

/* librdkafka statistics (statistics.interval.ms), served by consumer_poll on the poll thread. */
static int cuzk__rk_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque) {
  (void)rk;
  cuzk_agent_t *a = opaque;
  if (!a->reg) return 0;
  cuzk_err_t e = cuzk_families_apply_kafka_stats(&a->fam, json, len);
  if (e != CUZK_OK) CUZK_DEBUG("kafka", "stats_parse_failed", "err=%s", cuzk_err_name(e));
  /* a broker whose connection state is UP (the brokers block of the document) */
  atomic_store(&a->broker_up, strstr(json, "\"state\":\"UP\"") != NULL);
  return 0; /* librdkafka frees json */
}

/* ---- HTTP callbacks (server thread) ---------------------------------------------------------- */

static double cuzk__http_tick_age(void *ctx) {
  cuzk_agent_t *a = ctx;
  uint64_t t = atomic_load(&a->last_tick_ns);
  if (t == 0) return -1;
  return (double)(cuzk_now_ns() - t) / 1e9;
}

/* Ready: partitions assigned and a broker reachable. GPU health is trivially true on the CPU
 * backend; a device check belongs here once the CUDA backend reports one. */
static bool cuzk__http_ready(void *ctx, char *reason, size_t n) {
  cuzk_agent_t *a = ctx;
  if (!atomic_load(&a->broker_up)) {
    snprintf(reason, n, "no broker reachable");
    return false;
  }
  if (atomic_load(&a->n_assigned) <= 0) {
    snprintf(reason, n, "no partitions assigned");
    return false;
  }
  return true;
}

static char *cuzk__http_status(void *ctx) {
  cuzk_agent_t *a = ctx;
  pthread_mutex_lock(&a->http_mu);
  cuzk_agent_engine_status_t es = a->es_snap;
  size_t inflight = a->inflight_snap;
  pthread_mutex_unlock(&a->http_mu);
  size_t cap = 1024 + strlen(a->s_agent_id) * 6;
  char *out = malloc(cap);
  if (!out) return NULL;
  char id[6 * 128 + 1];
  size_t k = 0;
  for (const char *p = a->s_agent_id; *p && k + 7 < sizeof id; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\') {
      id[k++] = '\\';
      id[k++] = (char)c;
    } else if (c < 0x20) {
      k += (size_t)snprintf(id + k, sizeof id - k, "\\u%04x", c);
    } else {
      id[k++] = (char)c;
    }
  }
  id[k] = 0;
  snprintf(out, cap,
           "{\"agent_id\":\"%s\",\"version\":\"%s\",\"commit\":\"%s\","
           "\"partitions_assigned\":%d,\"broker_up\":%s,\"jobs_in_flight\":%zu,"
           "\"engine\":{\"jobs_in_flight\":%zu,\"partitions_in_flight\":%zu,"
           "\"queued\":{\"normal\":%zu,\"high\":%zu,\"critical\":%zu},"
           "\"budget\":{\"used\":%lld,\"total\":%lld},"
           "\"pool\":{\"buffers\":%lld,\"bytes\":%lld,\"hits\":%lld,\"misses\":%lld},"
           "\"gpu_busy_ratio\":%.4f}}\n",
           id, cuzk_version_string(), cuzk_git_commit(), atomic_load(&a->n_assigned),
           atomic_load(&a->broker_up) ? "true" : "false", inflight, es.jobs_in_flight,
           es.partitions_in_flight, es.queued[0], es.queued[1], es.queued[2],
           (long long)es.budget_used, (long long)es.budget_total, (long long)es.pool_buffers,
           (long long)es.pool_bytes, (long long)es.pool_hits, (long long)es.pool_misses,
           es.gpu_busy_ratio >= 0 && es.gpu_busy_ratio <= 1 ? es.gpu_busy_ratio : 0.0);
  return out;
}

static void cuzk__publish_timing(cuzk_agent_t *a, const cuzk_agent_timing_t *t) {
  cuzk_partition_timing_t r;
  memset(&r, 0, sizeof r);
  r.job_id = (char *)t->job_id;
  r.proof_type = t->type >= 0 && t->type < CUZK_PROOF_TYPE__COUNT ? (cuzk_proof_type_t)t->type
                                                                  : CUZK_PROOF_TYPE_WINNING_POST;
  r.partition = (int32_t)t->partition;
  r.agent_id = a->s_agent_id;
  r.gpu = t->gpu;
  r.enqueued_us = (int64_t)t->enqueued;
  r.budget_granted_us = (int64_t)t->budget_granted;
  r.synth_start_us = (int64_t)t->synth_start;
  r.synth_end_us = (int64_t)t->synth_end;
  r.gpu_queued_us = (int64_t)t->gpu_queued;
  r.gpu_start_us = (int64_t)t->gpu_start;
  r.gpu_end_us = (int64_t)t->gpu_end;
  r.finish_end_us = (int64_t)t->finish_end;
  r.h2d_bytes = (int64_t)t->h2d_bytes;
  r.h2d_us = (int64_t)t->h2d_us;
  r.ntt_us = (int64_t)t->ntt_us;
  r.msm_h_us = (int64_t)t->msm_h_us;
  r.msm_l_us = (int64_t)t->msm_l_us;
  r.msm_a_us = (int64_t)t->msm_a_us;
  r.msm_b_g1_us = (int64_t)t->msm_b_g1_us;
  r.msm_b_g2_us = (int64_t)t->msm_b_g2_us;
  r.is_pinned = t->is_pinned;
  r.pool = (cuzk_pool_stats_t){t->pool_buffers, t->pool_bytes,       t->pool_hits,
                               t->pool_misses,  t->pool_allocations, t->pool_frees};
  r.budget = (cuzk_budget_stats_t){t->budget_used, t->budget_total};
  r.synthetic = t->synthetic;
  uint8_t *buf = NULL;
  size_t len = 0;
  char err[512];
  cuzk_err_t e =
      cuzk_avro_encode(a->codec, CUZK_AVRO_PARTITION_TIMING, &r, &buf, &len, err, sizeof err);
  if (e != CUZK_OK) {
    CUZK_ERROR("agent", "encode_failed", "record=PartitionTiming err=%s msg=%s", cuzk_err_name(e),
               err);
    return;
  }
  if (cuzk__produce(a, CUZK_TOPIC_TELEMETRY_PARTITIONS, t->job_id, buf, len, NULL)) a->st.timings++;
  free(buf);
  if (a->conf.on_timing) a->conf.on_timing(a->conf.cb_ctx, t);
  if (a->reg) cuzk__observe_timing(a, t);
}

static void cuzk__drain_events(cuzk_agent_t *a) {
  cuzk__event_t *ev = cuzk__take_events(a);
  while (ev) {
    cuzk__event_t *next = ev->next;
    if (ev->job) {
      cuzk__job_t *j = ev->job;
      if (j->critical)
        a->inflight_critical--;
      else
        a->inflight_normal--;
      j->in_engine = false;
      if (j->status == CUZK_OK) {
        j->rstatus = CUZK_RESULT_OK;
      } else {
        j->rstatus = j->status == CUZK_ERR_EXPIRED     ? CUZK_RESULT_EXPIRED
                     : j->status == CUZK_ERR_CANCELLED ? CUZK_RESULT_CANCELLED
                                                       : CUZK_RESULT_FAILED;
        j->err_code = strdup(cuzk_err_name(j->status));
        if (!j->message) j->message = strdup(cuzk_err_str(j->status));
      }
      cuzk__publish_result(a, j);
    } else {
      cuzk__publish_timing(a, &ev->timing);
    }
    free(ev);
    ev = next;
  }
}

/* ---- status --------------------------------------------------------------------------------- */

static void cuzk__publish_status(cuzk_agent_t *a) {
  cuzk_agent_engine_status_t es;
  memset(&es, 0, sizeof es);
  if (a->conf.engine && a->conf.engine->status) a->conf.engine->status(a->conf.engine, &es);
  cuzk_queue_depth_t q[3];
  for (int i = 0; i < 3; i++) q[i] = (cuzk_queue_depth_t){i, (int64_t)es.queued[i]};
  cuzk_agent_status_t s;
  memset(&s, 0, sizeof s);
  s.agent_id = a->s_agent_id;
  s.host = a->host;
  s.version = (char *)cuzk_version_string();
  s.git_commit = (char *)cuzk_git_commit();
  s.time_ms = (int64_t)cuzk_wall_ms();
  s.queues = q;
  s.n_queues = 3;
  s.pool = (cuzk_pool_stats_t){es.pool_buffers, es.pool_bytes,       es.pool_hits,
                               es.pool_misses,  es.pool_allocations, es.pool_frees};
  s.budget = (cuzk_budget_stats_t){es.budget_used, es.budget_total};
  s.jobs_in_flight = (int32_t)(a->inflight_normal + a->inflight_critical);
  s.uptime_s = (int64_t)((cuzk_wall_ms() - a->start_ms) / 1000);
  uint8_t *buf = NULL;
  size_t len = 0;
  char err[512];
  cuzk_err_t e =
      cuzk_avro_encode(a->codec, CUZK_AVRO_AGENT_STATUS, &s, &buf, &len, err, sizeof err);
  if (e != CUZK_OK) {
    CUZK_ERROR("agent", "encode_failed", "record=AgentStatus err=%s msg=%s", cuzk_err_name(e), err);
    return;
  }
  if (cuzk__produce(a, CUZK_TOPIC_TELEMETRY_AGENTS, a->s_agent_id, buf, len, NULL))
    a->st.statuses++;
  free(buf);
  a->last_status_ms = cuzk_wall_ms();
}

/* ---- backpressure --------------------------------------------------------------------------- */

static void cuzk__pause_one(cuzk_agent_t *a, cuzk__part_t *p, bool pause) {
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, p->topic, p->partition);
  rd_kafka_resp_err_t err = pause ? rd_kafka_pause_partitions(a->consumer, l)
                                  : rd_kafka_resume_partitions(a->consumer, l);
  rd_kafka_topic_partition_list_destroy(l);
  if (err) {
    CUZK_WARN("kafka", pause ? "pause_failed" : "resume_failed", "topic=%s partition=%d err=%s",
              p->topic, (int)p->partition, rd_kafka_err2name(err));
    return;
  }
  p->paused = pause;
  if (pause)
    a->st.pauses++;
  else
    a->st.resumes++;
  CUZK_DEBUG("kafka", pause ? "paused" : "resumed", "topic=%s partition=%d", p->topic,
             (int)p->partition);
}

static void cuzk__backpressure(cuzk_agent_t *a) {
  size_t lim = a->conf.max_jobs_in_flight ? a->conf.max_jobs_in_flight : 4;
  size_t total = a->inflight_normal + a->inflight_critical;
  bool pause_normal = a->shutting_down || a->inflight_normal >= lim;
  bool pause_critical = a->shutting_down || total >= lim + a->conf.reserve_critical;
  for (size_t i = 0; i < a->n_parts; i++) {
    cuzk__part_t *p = &a->parts[i];
    bool want = p->critical ? pause_critical : pause_normal;
    if (want != p->paused) cuzk__pause_one(a, p, want);
  }
}

/* ---- message handling ----------------------------------------------------------------------- */

static const char *cuzk__label(const cuzk_proof_job_t *job, const char *key) {
  for (size_t i = 0; i < job->n_labels; i++)
    if (job->labels[i].key && strcmp(job->labels[i].key, key) == 0) return job->labels[i].value;
  return NULL;
}

static void cuzk__sector_size_name(int64_t ss, char *buf, size_t n) {
  static const char *u[] = {"", "k", "m", "g"};
  int i = 0;
  while (ss >= 1024 && ss % 1024 == 0 && i < 3) {
    ss /= 1024;
    i++;
  }
  snprintf(buf, n, "%lld%s", (long long)ss, u[i]);
}

static void cuzk__handle(cuzk_agent_t *a, const rd_kafka_message_t *m) {
  if (m->err) {
    if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
      CUZK_WARN("kafka", "consume_error", "err=%s msg=%s", rd_kafka_err2name(m->err),
                rd_kafka_message_errstr(m));
    return;
  }
  const char *topic = rd_kafka_topic_name(m->rkt);
  if (a->shutting_down) return; /* not taken: the next owner of the partition gets it */
  a->st.messages++;
  uint64_t gen = 0;
  bool skip = false;
  cuzk_err_t e = cuzk_watermark_take(a->wm, topic, m->partition, m->offset, &gen, &skip);
  if (e != CUZK_OK) {
    CUZK_WARN("agent", "take_failed", "topic=%s partition=%d offset=%lld err=%s", topic,
              (int)m->partition, (long long)m->offset, cuzk_err_name(e));
    return;
  }
  if (skip) {
    a->st.skipped++;
    a->dirty = true;
    CUZK_INFO("agent", "skip_completed", "topic=%s partition=%d offset=%lld", topic,
              (int)m->partition, (long long)m->offset);
    return;
  }
  cuzk__job_t *j = calloc(1, sizeof *j);
  if (!j) abort();
  snprintf(j->topic, sizeof j->topic, "%s", topic);
  j->partition = m->partition;
  j->offset = m->offset;
  j->gen = gen;
  j->started_ms = (int64_t)cuzk_wall_ms();
  cuzk_topic_t tt = CUZK_TOPIC_JOBS_WINNING_POST;
  cuzk_topics_lookup(&a->topics, topic, &tt);
  j->proof_type = (cuzk_proof_type_t)tt;

  char err[1024] = "";
  cuzk_proof_job_t job;
  memset(&job, 0, sizeof job);
  if (m->len > a->conf.max_message_bytes) {
    e = CUZK_ERR_TOO_LARGE;
    snprintf(err, sizeof err, "message of %zu bytes exceeds kafka.max_message_bytes (%zu)", m->len,
             a->conf.max_message_bytes);
  } else {
    e = cuzk_avro_decode(a->codec, CUZK_AVRO_PROOF_JOB, &job, m->payload, m->len, err, sizeof err);
  }
  if (e == CUZK_OK || e == CUZK_ERR_BAD_JOB) {
    if (job.job_id && *job.job_id) {
      j->job_id = strdup(job.job_id);
      j->id_known = true;
    }
    j->attempt = job.attempt;
    if (e == CUZK_OK) j->proof_type = job.proof_type;
  }
  if (!j->job_id) {
    if (m->key && m->key_len > 0 && m->key_len <= 128) {
      j->job_id = strndup(m->key, m->key_len);
    } else {
      char id[CUZK_TOPICS_NAME_MAX + 64];
      snprintf(id, sizeof id, "unknown@%s/%d/%lld", topic, (int)m->partition, (long long)m->offset);
      j->job_id = strdup(id);
    }
  }
  if (e != CUZK_OK) {
    cuzk__finish_early(a, j, m, CUZK_RESULT_REJECTED, e, err);
    cuzk_avro_record_clear(CUZK_AVRO_PROOF_JOB, &job);
    return;
  }
  if ((int)job.proof_type != (int)tt) {
    snprintf(err, sizeof err, "a %s job on topic %s",
             cuzk_topics_proof_type((cuzk_topic_t)job.proof_type), topic);
    cuzk__finish_early(a, j, m, CUZK_RESULT_REJECTED, CUZK_ERR_BAD_JOB, err);
    cuzk_avro_record_clear(CUZK_AVRO_PROOF_JOB, &job);
    return;
  }
  j->critical = job.proof_type == CUZK_PROOF_TYPE_WINNING_POST;
  int64_t now = (int64_t)cuzk_wall_ms();
  if (job.has_deadline && job.deadline_ms <= now) {
    snprintf(err, sizeof err, "deadline %lld ms passed %lld ms before the job was taken",
             (long long)job.deadline_ms, (long long)(now - job.deadline_ms));
    cuzk__finish_early(a, j, m, CUZK_RESULT_EXPIRED, CUZK_ERR_EXPIRED, err);
    cuzk_avro_record_clear(CUZK_AVRO_PROOF_JOB, &job);
    return;
  }
  const uint8_t *payload = job.payload.data;
  size_t payload_len = job.payload.len;
  uint8_t *fetched = NULL;
  if (job.payload_is_ref) {
    e = cuzk_payload_fetch(job.payload_ref.uri, job.payload_ref.sha256, job.payload_ref.size,
                           a->conf.max_job_bytes, a->conf.payload_fetch_timeout_s, &fetched,
                           &payload_len, err, sizeof err);
    if (e != CUZK_OK) {
      cuzk__finish_early(
          a, j, m, cuzk_err_is_retriable(e) ? CUZK_RESULT_FAILED : CUZK_RESULT_REJECTED, e, err);
      cuzk_avro_record_clear(CUZK_AVRO_PROOF_JOB, &job);
      return;
    }
    payload = fetched;
  } else if (payload_len > a->conf.max_job_bytes) {
    snprintf(err, sizeof err, "inline payload of %zu bytes exceeds agent.max_job_bytes (%zu)",
             payload_len, a->conf.max_job_bytes);
    cuzk__finish_early(a, j, m, CUZK_RESULT_REJECTED, CUZK_ERR_TOO_LARGE, err);
    cuzk_avro_record_clear(CUZK_AVRO_PROOF_JOB, &job);
    return;
  }
  char circuit[160];
  const char *lc = cuzk__label(&job, "circuit");
  if (lc) {
    snprintf(circuit, sizeof circuit, "%s", lc);
  } else {
    char ss[32];
    cuzk__sector_size_name(job.sector_size, ss, sizeof ss);
    snprintf(circuit, sizeof circuit, "%s-%s", cuzk_topics_proof_type(tt), ss);
  }
  cuzk_agent_job_t ej = {
      .job_id = j->job_id,
      .type = (int)job.proof_type, /* priority follows it; synthetic-ness follows the circuit */
      .circuit = circuit,
      /* synthetic circuits take no payload (ProofJob requires one: it is ignored) */
      .payload = strncmp(circuit, "synthetic", 9) == 0 ? NULL : payload,
      .payload_len = strncmp(circuit, "synthetic", 9) == 0 ? 0 : payload_len,
      .priority = -1, /* from the proof type: WinningPoSt critical, WindowPoSt high */
      .deadline_wall_ms = job.has_deadline ? (uint64_t)job.deadline_ms : 0,
      .registered_proof = job.registered_proof,
      .sector_size = job.sector_size,
      .miner_id = job.miner_id,
      .prover_id = job.prover_id.data,
      .prover_id_len = job.prover_id.len,
      .randomness = job.has_randomness ? job.randomness.data : NULL,
      .randomness_len = job.has_randomness ? job.randomness.len : 0,
      .sector_ids = job.sector_ids,
      .n_sector_ids = job.n_sector_ids,
  };
  if (!a->conf.engine) {
    e = CUZK_ERR_UNSUPPORTED;
    snprintf(err, sizeof err, "no proving engine in this agent");
  } else {
    j->next = (cuzk__job_t *)(void *)a; /* read back by the done callback */
    j->in_engine = true;
    if (j->critical)
      a->inflight_critical++;
    else
      a->inflight_normal++;
    e = a->conf.engine->submit(a->conf.engine, &ej, cuzk__engine_done, j, err, sizeof err);
    if (e != CUZK_OK) {
      j->in_engine = false;
      j->next = NULL;
      if (j->critical)
        a->inflight_critical--;
      else
        a->inflight_normal--;
    }
  }
  free(fetched);
  cuzk_avro_record_clear(CUZK_AVRO_PROOF_JOB, &job);
  if (e != CUZK_OK) {
    cuzk__finish_early(
        a, j, m, cuzk_err_is_retriable(e) ? CUZK_RESULT_FAILED : CUZK_RESULT_REJECTED, e, err);
    return;
  }
  a->st.submitted++;
  CUZK_INFO("agent", "job_submitted", "job_id=%s circuit=%s topic=%s partition=%d offset=%lld",
            j->job_id, circuit, j->topic, (int)j->partition, (long long)j->offset);
}

/* ---- lifecycle ------------------------------------------------------------------------------ */

cuzk_agent_t *cuzk_agent_new(const cuzk_agent_conf_t *conf, char *errstr, size_t errstr_size) {
  assert(conf);
  if (!conf->brokers || !*conf->brokers) {
    snprintf(errstr, errstr_size, "no brokers configured (kafka.brokers)");
    return NULL;
  }
  cuzk_agent_t *a = calloc(1, sizeof *a);
  if (!a) {
    snprintf(errstr, errstr_size, "out of memory");
    return NULL;
  }
  a->conf = *conf;
  pthread_mutex_init(&a->ev_mu, NULL);
  pthread_mutex_init(&a->http_mu, NULL);
  a->s_http = cuzk__dup(conf->http_listen ? conf->http_listen : "");
  a->ev_tail = &a->ev_head;
  a->s_agent_id = cuzk__dup(conf->agent_id && *conf->agent_id ? conf->agent_id : "cuzk-agent");
  a->s_brokers = cuzk__dup(conf->brokers);
  a->s_prefix = cuzk__dup(conf->topic_prefix ? conf->topic_prefix : "cuzk");
  a->s_group = cuzk__dup(conf->group_id ? conf->group_id : "cuzk-provers");
  a->s_instance = cuzk__dup(conf->group_instance_id ? conf->group_instance_id : "");
  a->s_assignor = cuzk__dup(conf->assignor ? conf->assignor : "range");
  if (gethostname(a->host, sizeof a->host - 1) != 0) snprintf(a->host, sizeof a->host, "unknown");
  if (a->conf.poll_interval_ms <= 0 || a->conf.poll_interval_ms > 100)
    a->conf.poll_interval_ms = 50;
  if (a->conf.commit_interval_ms <= 0) a->conf.commit_interval_ms = 1000;
  if (a->conf.status_interval_s <= 0) a->conf.status_interval_s = 10;
  if (cuzk_topics_init(&a->topics, a->s_prefix, errstr, errstr_size) != CUZK_OK) goto fail;
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  cc.framing = conf->framing ? CUZK_AVRO_FRAMING_CONFLUENT : CUZK_AVRO_FRAMING_SINGLE_OBJECT;
  for (int i = 0; i < CUZK_AVRO__COUNT; i++) cc.confluent_ids[i] = conf->confluent_ids[i];
  cc.max_message_bytes = conf->max_message_bytes;
  a->codec = cuzk_avro_codec_new(&cc, errstr, errstr_size);
  if (!a->codec) goto fail;
  a->wm = cuzk_watermark_new();
  if (!a->wm) {
    snprintf(errstr, errstr_size, "out of memory");
    goto fail;
  }

  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  const char *assignor = strcmp(a->s_assignor, "roundrobin") == 0 ? "roundrobin" : "range";
  char cid[300];
  snprintf(cid, sizeof cid, "%s-consumer", a->s_agent_id);
  if (!cuzk__set(kc, "bootstrap.servers", a->s_brokers, errstr, errstr_size) ||
      !cuzk__set(kc, "group.id", a->s_group, errstr, errstr_size) ||
      !cuzk__set(kc, "client.id", cid, errstr, errstr_size) ||
      !cuzk__set(kc, "enable.auto.commit", "false", errstr, errstr_size) ||
      !cuzk__set(kc, "enable.auto.offset.store", "false", errstr, errstr_size) ||
      !cuzk__set(kc, "auto.offset.reset", "earliest", errstr, errstr_size) ||
      !cuzk__set(kc, "partition.assignment.strategy", assignor, errstr, errstr_size) ||
      (*a->s_http && !cuzk__set(kc, "statistics.interval.ms", "5000", errstr, errstr_size)) ||
      (*a->s_instance && !cuzk__set(kc, "group.instance.id", a->s_instance, errstr, errstr_size)) ||
      !cuzk__set_props(kc, &conf->props, errstr, errstr_size) ||
      !cuzk__set_props(kc, &conf->consumer_props, errstr, errstr_size)) {
    rd_kafka_conf_destroy(kc);
    goto fail;
  }
  rd_kafka_conf_set_opaque(kc, a);
  rd_kafka_conf_set_rebalance_cb(kc, cuzk__rebalance);
  rd_kafka_conf_set_stats_cb(kc, cuzk__rk_stats);
  rd_kafka_conf_set_log_cb(kc, cuzk__rk_log);
  rd_kafka_conf_set_error_cb(kc, cuzk__rk_error);
  a->consumer = rd_kafka_new(RD_KAFKA_CONSUMER, kc, errstr, errstr_size);
  if (!a->consumer) {
    rd_kafka_conf_destroy(kc);
    goto fail;
  }
  rd_kafka_poll_set_consumer(a->consumer);
  a->producer = cuzk__new_producer(a, errstr, errstr_size);
  if (!a->producer) goto fail;
  if (*a->s_http) {
    a->reg = cuzk_metrics_new();
    if (!a->reg || cuzk_families_init(&a->fam, a->reg, a->s_agent_id) != CUZK_OK) {
      snprintf(errstr, errstr_size, "cannot register the metric families");
      goto fail;
    }
    cuzk_http_callbacks_t cb = {
        .ctx = a,
        .metrics = a->reg,
        .liveness_max_s = 30,
        .tick_age_s = cuzk__http_tick_age,
        .ready = cuzk__http_ready,
        .status_json = cuzk__http_status,
    };
    char herr[256];
    a->http = cuzk_http_new(a->s_http, &cb, herr, sizeof herr);
    if (!a->http) {
      snprintf(errstr, errstr_size, "agent.http_listen %s: %s", a->s_http, herr);
      goto fail;
    }
    CUZK_INFO("agent", "http_listening", "listen=%s port=%u", a->s_http, cuzk_http_port(a->http));
  }
  if (conf->engine) {
    atomic_store(&conf->engine->on_timing_ctx, (void *)a);
    atomic_store(&conf->engine->on_timing, cuzk__engine_timing);
  }
  return a;
fail:
  cuzk_agent_free(a);
  return NULL;
}

void cuzk_agent_stop(cuzk_agent_t *a) {
  atomic_store(&a->stop, 1);
}

void cuzk_agent_stats(const cuzk_agent_t *a, cuzk_agent_stats_t *out) {
  *out = a->st;
  out->jobs_in_flight = a->inflight_normal + a->inflight_critical;
}

void cuzk_agent_reconfigure(cuzk_agent_t *a, int status_interval_s, int shutdown_grace_s,
                            unsigned reserve_critical) {
  if (status_interval_s > 0) a->conf.status_interval_s = status_interval_s;
  if (shutdown_grace_s >= 0) a->conf.shutdown_grace_s = shutdown_grace_s;
  a->conf.reserve_critical = reserve_critical;
  CUZK_INFO("agent", "reconfigured", "status_interval_s=%d shutdown_grace_s=%d reserve_critical=%u",
            a->conf.status_interval_s, a->conf.shutdown_grace_s, a->conf.reserve_critical);
}

static void cuzk__retry_due(cuzk_agent_t *a) {
  uint64_t now = cuzk_wall_ms();
  cuzk__job_t **pp = &a->retry;
  while (*pp) {
    cuzk__job_t *j = *pp;
    if (j->retry_at_ms <= now) {
      *pp = j->next;
      j->next = NULL;
      cuzk__publish_result(a, j);
    } else {
      pp = &j->next;
    }
  }
}

static void cuzk__poll_producer(cuzk_agent_t *a) {
  rd_kafka_poll(a->producer, 0);
  char e[512];
  rd_kafka_resp_err_t fe = rd_kafka_fatal_error(a->producer, e, sizeof e);
  if (fe) {
    CUZK_ERROR("kafka", "producer_fatal", "err=%s reason=%s action=recreate", rd_kafka_err2name(fe),
               e);
    rd_kafka_purge(a->producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll(a->producer, 0); /* failed deliveries go to the retry list */
    rd_kafka_destroy(a->producer);
    char err[512];
    a->producer = cuzk__new_producer(a, err, sizeof err);
    if (!a->producer) {
      CUZK_ERROR("kafka", "producer_recreate_failed", "msg=%s", err);
      abort();
    }
  }
}

static void cuzk__loop_once(cuzk_agent_t *a) {
  rd_kafka_message_t *m = rd_kafka_consumer_poll(a->consumer, a->conf.poll_interval_ms);
  if (m) {
    cuzk__handle(a, m);
    rd_kafka_message_destroy(m);
  }
  cuzk__drain_events(a);
  cuzk__poll_producer(a);
  cuzk__retry_due(a);
  cuzk__backpressure(a);
  if (a->reg) cuzk__sample(a);
  atomic_store(&a->last_tick_ns, cuzk_now_ns());
  uint64_t now = cuzk_wall_ms();
  if (a->dirty && now - a->last_commit_ms >= (uint64_t)a->conf.commit_interval_ms)
    cuzk__commit(a, false);
  if (now - a->last_status_ms >= (uint64_t)a->conf.status_interval_s * 1000)
    cuzk__publish_status(a);
}

cuzk_err_t cuzk_agent_run(cuzk_agent_t *a) {
  rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(4);
  for (int t = 0; t < 4; t++)
    if (a->conf.enabled_types & (1u << t))
      rd_kafka_topic_partition_list_add(sub, a->topics.names[t], RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t err = rd_kafka_subscribe(a->consumer, sub);
  rd_kafka_topic_partition_list_destroy(sub);
  if (err) {
    CUZK_ERROR("kafka", "subscribe_failed", "err=%s", rd_kafka_err2name(err));
    return CUZK_ERR_KAFKA;
  }
  a->start_ms = cuzk_wall_ms();
  a->last_commit_ms = a->start_ms;
  a->last_status_ms = 0;
  CUZK_INFO("agent", "started", "agent_id=%s brokers=%s group=%s instance=%s prefix=%s",
            a->s_agent_id, a->s_brokers, a->s_group, a->s_instance, a->s_prefix);
  while (!atomic_load(&a->stop)) {
    cuzk__loop_once(a);
    if (a->conf.tick && !a->conf.tick(a->conf.tick_ctx, a)) break;
  }
  /* graceful shutdown: stop admitting, let in-flight jobs finish within the grace */
  a->shutting_down = true;
  cuzk__backpressure(a);
  uint64_t deadline = cuzk_wall_ms() + (uint64_t)a->conf.shutdown_grace_s * 1000;
  CUZK_INFO("agent", "stopping", "jobs_in_flight=%zu grace_s=%d",
            a->inflight_normal + a->inflight_critical, a->conf.shutdown_grace_s);
  while ((a->inflight_normal + a->inflight_critical > 0 || a->awaiting_delivery > 0 || a->retry) &&
         cuzk_wall_ms() < deadline)
    cuzk__loop_once(a);
  if (a->inflight_normal + a->inflight_critical > 0)
    CUZK_WARN("agent", "grace_expired", "jobs_in_flight=%zu action=hand_back",
              a->inflight_normal + a->inflight_critical);
  rd_kafka_flush(a->producer, 10000);
  cuzk__drain_events(a);
  rd_kafka_poll(a->producer, 0);
  cuzk__commit(a, true);
  rd_kafka_consumer_close(a->consumer);
  rd_kafka_flush(a->producer, 10000);
  CUZK_INFO("agent", "stopped", "messages=%llu results_ok=%llu rejected=%llu expired=%llu",
            (unsigned long long)a->st.messages, (unsigned long long)a->st.results_ok,
            (unsigned long long)a->st.rejected, (unsigned long long)a->st.expired);
  return CUZK_OK;
}

void cuzk_agent_free(cuzk_agent_t *a) {
  if (!a) return;
  /* the engine is already freed (agent.h): its table is not touched here */
  cuzk_http_free(a->http);
  if (a->consumer) rd_kafka_destroy(a->consumer);
  if (a->producer) {
    rd_kafka_purge(a->producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll(a->producer, 0);
    rd_kafka_destroy(a->producer);
  }
  cuzk__event_t *ev = cuzk__take_events(a);
  while (ev) {
    cuzk__event_t *n = ev->next;
    cuzk__job_free(ev->job);
    free(ev);
    ev = n;
  }
  while (a->retry) {
    cuzk__job_t *n = a->retry->next;
    cuzk__job_free(a->retry);
    a->retry = n;
  }
  cuzk_watermark_free(a->wm);
  cuzk_avro_codec_free(a->codec);
  free(a->parts);
  free(a->s_agent_id);
  free(a->s_brokers);
  free(a->s_prefix);
  free(a->s_group);
  free(a->s_instance);
  free(a->s_assignor);
  free(a->s_http);
  cuzk_metrics_free(a->reg);
  pthread_mutex_destroy(&a->http_mu);
  pthread_mutex_destroy(&a->ev_mu);
  free(a);
}

void cuzk_agent_apply_log(int level, int format) {
  if (level >= CUZK_LOG_TRACE && level <= CUZK_LOG_OFF) cuzk_log_set_level((cuzk_log_level_t)level);
  if (format == CUZK_LOG_FORMAT_LOGFMT || format == CUZK_LOG_FORMAT_JSON)
    cuzk_log_set_format((cuzk_log_format_t)format);
}
