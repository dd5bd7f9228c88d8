#include "agent/http/families.h"

#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/cli.h"

const double cuzk_families_phase_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                              2.5,   5,    10,    25,   50,  100,  250, 600};
const size_t cuzk_families_phase_nbuckets =
    sizeof cuzk_families_phase_buckets / sizeof cuzk_families_phase_buckets[0];

enum { CUZK__STATS_MAX_BYTES = 16 << 20 };

typedef struct {
  size_t offset; /* of the cuzk_metric_family_t * in cuzk_families_t */
  cuzk_metric_type_t type;
  const char *name;
  const char *help;
  const char *labels[3];
} cuzk__family_def_t;

#define CUZK__F(field) offsetof(cuzk_families_t, field)
static const cuzk__family_def_t cuzk__defs[] = {
    {CUZK__F(agent_info),
     CUZK_METRIC_GAUGE,
     "cuzk_agent_info",
     "Agent build and identity; the value is always 1.",
     {"version", "commit", "agent"}},
    {CUZK__F(start_time_seconds),
     CUZK_METRIC_GAUGE,
     "cuzk_agent_start_time_seconds",
     "Unix time at which the agent started.",
     {NULL}},
    {CUZK__F(jobs_total),
     CUZK_METRIC_COUNTER,
     "cuzk_jobs_total",
     "Proof jobs finished, by proof type and outcome.",
     {"type", "status"}},
    {CUZK__F(jobs_queued),
     CUZK_METRIC_GAUGE,
     "cuzk_jobs_queued",
     "Jobs accepted from Kafka and waiting to start.",
     {"type"}},
    {CUZK__F(jobs_in_flight),
     CUZK_METRIC_GAUGE,
     "cuzk_jobs_in_flight",
     "Jobs being proved.",
     {"type"}},
    {CUZK__F(dead_letters_total),
     CUZK_METRIC_COUNTER,
     "cuzk_dead_letters_total",
     "Records written to the dead-letter topic.",
     {"type", "reason"}},
    {CUZK__F(partitions_total),
     CUZK_METRIC_COUNTER,
     "cuzk_partitions_total",
     "Proof partitions finished, by proof type and outcome.",
     {"type", "status"}},
    {CUZK__F(kafka_partitions_assigned),
     CUZK_METRIC_GAUGE,
     "cuzk_kafka_partitions_assigned",
     "Kafka topic-partitions assigned to this agent.",
     {NULL}},
    {CUZK__F(kafka_broker_up),
     CUZK_METRIC_GAUGE,
     "cuzk_kafka_broker_up",
     "1 when at least one Kafka broker is reachable, else 0.",
     {NULL}},
    {CUZK__F(kafka_consumer_lag),
     CUZK_METRIC_GAUGE,
     "cuzk_kafka_consumer_lag_messages",
     "Messages between the committed offset and the high watermark (librdkafka statistics).",
     {"topic", "partition"}},
    {CUZK__F(phase_seconds),
     CUZK_METRIC_HISTOGRAM,
     "cuzk_phase_duration_seconds",
     "Duration of each phase of a proof partition.",
     {"type", "phase"}},
    {CUZK__F(gpu_busy_ratio),
     CUZK_METRIC_GAUGE,
     "cuzk_gpu_busy_ratio",
     "Kernel time over wall time of a GPU during the last status interval (0..1).",
     {"gpu"}},
    {CUZK__F(h2d_bytes_total),
     CUZK_METRIC_COUNTER,
     "cuzk_gpu_h2d_bytes_total",
     "Bytes copied from host to device.",
     {"gpu"}},
    {CUZK__F(pool_hits_total),
     CUZK_METRIC_COUNTER,
     "cuzk_pinned_pool_hits_total",
     "Pinned buffer requests served from the pool.",
     {NULL}},
    {CUZK__F(pool_misses_total),
     CUZK_METRIC_COUNTER,
     "cuzk_pinned_pool_misses_total",
     "Pinned buffer requests that allocated new pinned memory.",
     {NULL}},
    {CUZK__F(pool_fallbacks_total),
     CUZK_METRIC_COUNTER,
     "cuzk_pinned_pool_fallbacks_total",
     "Buffer requests that fell back to pageable memory (pinning failed or pool full).",
     {NULL}},
    {CUZK__F(pool_bytes),
     CUZK_METRIC_GAUGE,
     "cuzk_pinned_pool_bytes",
     "Pinned pool memory by state (allocated, in_use).",
     {"state"}},
    {CUZK__F(budget_used_bytes),
     CUZK_METRIC_GAUGE,
     "cuzk_budget_used_bytes",
     "Host memory budget granted to running work.",
     {NULL}},
    {CUZK__F(budget_total_bytes),
     CUZK_METRIC_GAUGE,
     "cuzk_budget_total_bytes",
     "Host memory budget in total.",
     {NULL}},
    {CUZK__F(budget_waits_total),
     CUZK_METRIC_COUNTER,
     "cuzk_budget_waits_total",
     "Admissions that waited because the memory budget was exhausted.",
     {NULL}},
    {CUZK__F(srs_resident_bytes),
     CUZK_METRIC_GAUGE,
     "cuzk_srs_resident_bytes",
     "Groth16 parameter (SRS) bytes resident per circuit and memory tier.",
     {"circuit", "tier"}},
};
#undef CUZK__F

cuzk_err_t cuzk_families_init(cuzk_families_t *f, cuzk_metrics_t *reg, const char *agent_id) {
  assert(f && reg);
  memset(f, 0, sizeof *f);
  f->reg = reg;
  for (size_t i = 0; i < sizeof cuzk__defs / sizeof cuzk__defs[0]; i++) {
    const cuzk__family_def_t *d = &cuzk__defs[i];
    size_t nl = 0;
    while (nl < 3 && d->labels[nl]) nl++;
    int hist = d->type == CUZK_METRIC_HISTOGRAM;
    cuzk_metric_family_t **slot = (cuzk_metric_family_t **)((char *)f + d->offset);
    cuzk_err_t err = cuzk_metrics_family_new(
        reg, d->type, d->name, d->help, nl, nl ? d->labels : NULL,
        hist ? cuzk_families_phase_buckets : NULL, hist ? cuzk_families_phase_nbuckets : 0, slot);
    if (err != CUZK_OK) return err;
  }
  const char *info[] = {cuzk_version_string(), cuzk_git_commit(), agent_id ? agent_id : ""};
  cuzk_metric_t *m = cuzk_metrics_with(f->agent_info, info);
  if (!m) return CUZK_ERR_NOMEM;
  cuzk_metrics_set(m, 1);
  m = cuzk_metrics_with(f->start_time_seconds, NULL);
  if (!m) return CUZK_ERR_NOMEM;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  cuzk_metrics_set(m, (double)ts.tv_sec + ts.tv_nsec / 1e9);
  return CUZK_OK;
}

void cuzk_kafka_lag_free(cuzk_kafka_lag_t *lags, size_t n) {
  if (!lags) return;
  for (size_t i = 0; i < n; i++) free(lags[i].topic);
  free(lags);
}

static int cuzk__lag_cmp(const void *a, const void *b) {
  const cuzk_kafka_lag_t *x = a, *y = b;
  int c = strcmp(x->topic, y->topic);
  if (c) return c;
  return (x->partition > y->partition) - (x->partition < y->partition);
}

cuzk_err_t cuzk_kafka_stats_parse_lag(const char *json, size_t len, cuzk_kafka_lag_t **out,
                                      size_t *n) {
  assert(out && n);
  *out = NULL;
  *n = 0;
  if (!json) return CUZK_ERR_PARSE;
  if (len > CUZK__STATS_MAX_BYTES) return CUZK_ERR_TOO_LARGE;
  json_error_t jerr;
  json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) return CUZK_ERR_PARSE;
  cuzk_err_t err = CUZK_OK;
  cuzk_kafka_lag_t *lags = NULL;
  size_t count = 0, cap = 0;
  json_t *topics = json_is_object(root) ? json_object_get(root, "topics") : NULL;
  if (!json_is_object(root) || (topics && !json_is_object(topics))) {
    err = CUZK_ERR_PARSE;
    goto done;
  }
  const char *tname;
  json_t *topic;
  json_object_foreach(topics, tname, topic) {
    json_t *parts = json_is_object(topic) ? json_object_get(topic, "partitions") : NULL;
    if (!json_is_object(topic) || (parts && !json_is_object(parts))) {
      err = CUZK_ERR_PARSE;
      goto done;
    }
    const char *pkey;
    json_t *p;
    json_object_foreach(parts, pkey, p) {
      if (!json_is_object(p)) {
        err = CUZK_ERR_PARSE;
        goto done;
      }
      json_t *jid = json_object_get(p, "partition");
      json_t *jlag = json_object_get(p, "consumer_lag");
      json_t *jstored = json_object_get(p, "consumer_lag_stored");
      if (!json_is_integer(jid) || (jlag && !json_is_integer(jlag)) ||
          (jstored && !json_is_integer(jstored))) {
        err = CUZK_ERR_PARSE;
        goto done;
      }
      json_int_t id = json_integer_value(jid);
      if (id < -1 || id > INT32_MAX) {
        err = CUZK_ERR_PARSE;
        goto done;
      }
      if (id < 0 || !jlag || json_integer_value(jlag) < 0) continue;
      if (count == cap) {
        size_t ncap = cap ? cap * 2 : 16;
        cuzk_kafka_lag_t *nl = realloc(lags, ncap * sizeof *nl);
        if (!nl) {
          err = CUZK_ERR_NOMEM;
          goto done;
        }
        lags = nl;
        cap = ncap;
      }
      size_t tl = strlen(tname) + 1;
      char *t = malloc(tl);
      if (!t) {
        err = CUZK_ERR_NOMEM;
        goto done;
      }
      memcpy(t, tname, tl);
      lags[count].topic = t;
      lags[count].partition = (int32_t)id;
      lags[count].lag = json_integer_value(jlag);
      lags[count].lag_stored = jstored ? json_integer_value(jstored) : -1;
      count++;
    }
  }
done:
  json_decref(root);
  if (err != CUZK_OK) {
    cuzk_kafka_lag_free(lags, count);
    return err;
  }
  if (count) qsort(lags, count, sizeof *lags, cuzk__lag_cmp);
  *out = lags;
  *n = count;
  return CUZK_OK;
}

cuzk_err_t cuzk_families_apply_kafka_stats(cuzk_families_t *f, const char *json, size_t len) {
  assert(f && f->kafka_consumer_lag);
  cuzk_kafka_lag_t *lags;
  size_t n;
  cuzk_err_t err = cuzk_kafka_stats_parse_lag(json, len, &lags, &n);
  if (err != CUZK_OK) return err;
  const char **labels = n ? malloc(2 * n * sizeof *labels) : NULL;
  double *values = n ? malloc(n * sizeof *values) : NULL;
  char(*pnum)[12] = n ? malloc(n * sizeof *pnum) : NULL;
  if (n && (!labels || !values || !pnum)) {
    err = CUZK_ERR_NOMEM;
  } else {
    for (size_t i = 0; i < n; i++) {
      snprintf(pnum[i], sizeof pnum[i], "%d", (int)lags[i].partition);
      labels[2 * i] = lags[i].topic;
      labels[2 * i + 1] = pnum[i];
      values[i] = (double)lags[i].lag;
    }
    err = cuzk_metrics_gauge_snapshot(f->kafka_consumer_lag, n, labels, values);
  }
  free(labels);
  free(values);
  free(pnum);
  cuzk_kafka_lag_free(lags, n);
  return err;
}
