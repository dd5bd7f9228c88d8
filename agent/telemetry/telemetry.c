/* Telemetry record sets, the container file, Kafka reading and per-GPU statistics. */
#include "agent/telemetry/telemetry.h"

#include <assert.h>
#include <librdkafka/rdkafka.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/clock.h"

void cuzk_telemetry_set_init(cuzk_telemetry_set_t *set) {
  memset(set, 0, sizeof *set);
}

void cuzk_telemetry_set_clear(cuzk_telemetry_set_t *set) {
  for (size_t i = 0; i < set->n; i++)
    cuzk_avro_record_clear(CUZK_AVRO_PARTITION_TIMING, &set->recs[i]);
  free(set->recs);
  cuzk_telemetry_set_init(set);
}

cuzk_err_t cuzk_telemetry_set_add_framed(cuzk_telemetry_set_t *set, cuzk_avro_codec_t *codec,
                                         const uint8_t *buf, size_t len, char *errstr,
                                         size_t errstr_size) {
  if (set->n == set->cap) {
    size_t cap = set->cap ? set->cap * 2 : 64;
    cuzk_partition_timing_t *r = realloc(set->recs, cap * sizeof *r);
    if (!r) return CUZK_ERR_NOMEM;
    set->recs = r;
    set->cap = cap;
  }
  cuzk_partition_timing_t *rec = &set->recs[set->n];
  cuzk_err_t e =
      cuzk_avro_decode(codec, CUZK_AVRO_PARTITION_TIMING, rec, buf, len, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  set->n++;
  return CUZK_OK;
}

void cuzk_telemetry_set_filter(cuzk_telemetry_set_t *set, int64_t since_us, int64_t until_us) {
  size_t k = 0;
  for (size_t i = 0; i < set->n; i++) {
    cuzk_partition_timing_t *r = &set->recs[i];
    if (r->finish_end_us >= since_us && r->finish_end_us <= until_us)
      set->recs[k++] = *r;
    else
      cuzk_avro_record_clear(CUZK_AVRO_PARTITION_TIMING, r);
  }
  set->n = k;
}

static const char cuzk__b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t cuzk_telemetry_b64_encode(char *out, size_t out_size, const uint8_t *buf, size_t len) {
  assert(out_size >= (len + 2) / 3 * 4 + 1);
  size_t o = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)buf[i] << 16;
    if (i + 1 < len) v |= (uint32_t)buf[i + 1] << 8;
    if (i + 2 < len) v |= buf[i + 2];
    out[o++] = cuzk__b64[(v >> 18) & 63];
    out[o++] = cuzk__b64[(v >> 12) & 63];
    out[o++] = i + 1 < len ? cuzk__b64[(v >> 6) & 63] : '=';
    out[o++] = i + 2 < len ? cuzk__b64[v & 63] : '=';
  }
  out[o] = 0;
  return o;
}

static int cuzk__b64_val(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

cuzk_err_t cuzk_telemetry_b64_decode(uint8_t *out, size_t out_size, size_t *out_len, const char *s,
                                     size_t n) {
  *out_len = 0;
  if (n % 4) return CUZK_ERR_PARSE;
  size_t o = 0;
  for (size_t i = 0; i < n; i += 4) {
    int v[4], pad = 0;
    for (int j = 0; j < 4; j++) {
      if (s[i + j] == '=' && i + 4 == n && j >= 2) {
        v[j] = 0;
        pad++;
        continue;
      }
      if (pad) return CUZK_ERR_PARSE;
      v[j] = cuzk__b64_val(s[i + j]);
      if (v[j] < 0) return CUZK_ERR_PARSE;
    }
    uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    size_t k = 3 - (size_t)pad;
    if (o + k > out_size) return CUZK_ERR_TOO_LARGE;
    out[o++] = (uint8_t)(w >> 16);
    if (k > 1) out[o++] = (uint8_t)(w >> 8);
    if (k > 2) out[o++] = (uint8_t)w;
  }
  *out_len = o;
  return CUZK_OK;
}

cuzk_err_t cuzk_telemetry_write_line(FILE *f, const uint8_t *buf, size_t len) {
  size_t cap = (len + 2) / 3 * 4 + 1;
  char *s = malloc(cap);
  if (!s) return CUZK_ERR_NOMEM;
  size_t n = cuzk_telemetry_b64_encode(s, cap, buf, len);
  int ok = fwrite(s, 1, n, f) == n && fputc('\n', f) != EOF;
  free(s);
  return ok ? CUZK_OK : CUZK_ERR_IO;
}

cuzk_err_t cuzk_telemetry_read_file(cuzk_telemetry_set_t *set, cuzk_avro_codec_t *codec,
                                    const char *path, char *errstr, size_t errstr_size) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(errstr, errstr_size, "%s: cannot open", path);
    return CUZK_ERR_IO;
  }
  char *line = malloc(CUZK_TELEMETRY_MAX_LINE + 2);
  uint8_t *bin = malloc(CUZK_TELEMETRY_MAX_LINE);
  cuzk_err_t e = line && bin ? CUZK_OK : CUZK_ERR_NOMEM;
  long lineno = 0;
  while (e == CUZK_OK && fgets(line, CUZK_TELEMETRY_MAX_LINE + 2, f)) {
    lineno++;
    size_t n = strlen(line);
    if (n > CUZK_TELEMETRY_MAX_LINE) {
      snprintf(errstr, errstr_size, "%s:%ld: line too long", path, lineno);
      e = CUZK_ERR_PARSE;
      break;
    }
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (lineno == 1) {
      if (strcmp(line, CUZK_TELEMETRY_HEADER) != 0) {
        snprintf(errstr, errstr_size, "%s:1: not a cuzk telemetry file (want '%s')", path,
                 CUZK_TELEMETRY_HEADER);
        e = CUZK_ERR_PARSE;
      }
      continue;
    }
    if (n == 0 || line[0] == '#') continue;
    size_t blen;
    if (cuzk_telemetry_b64_decode(bin, CUZK_TELEMETRY_MAX_LINE, &blen, line, n) != CUZK_OK) {
      snprintf(errstr, errstr_size, "%s:%ld: bad base64", path, lineno);
      e = CUZK_ERR_PARSE;
      break;
    }
    char derr[512];
    if (cuzk_telemetry_set_add_framed(set, codec, bin, blen, derr, sizeof derr) != CUZK_OK) {
      snprintf(errstr, errstr_size, "%s:%ld: %s", path, lineno, derr);
      e = CUZK_ERR_PARSE;
    }
  }
  if (e == CUZK_OK && ferror(f)) {
    snprintf(errstr, errstr_size, "%s: read error", path);
    e = CUZK_ERR_IO;
  }
  if (e == CUZK_OK && lineno == 0) {
    snprintf(errstr, errstr_size, "%s: empty file", path);
    e = CUZK_ERR_PARSE;
  }
  if (e == CUZK_ERR_NOMEM) snprintf(errstr, errstr_size, "out of memory");
  free(line);
  free(bin);
  fclose(f);
  return e;
}

cuzk_err_t cuzk_telemetry_consume(const char *brokers, const char *topic, int follow, long max,
                                  long timeout_ms, volatile int *stop, cuzk_telemetry_msg_fn fn,
                                  void (*tick)(void *ctx), void *ctx, char *errstr,
                                  size_t errstr_size) {
  char err[512];
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  if (rd_kafka_conf_set(kc, "bootstrap.servers", brokers, err, sizeof err) ||
      rd_kafka_conf_set(kc, "group.id", "cuzk-telemetry-reader", err, sizeof err) ||
      rd_kafka_conf_set(kc, "enable.auto.commit", "false", err, sizeof err)) {
    rd_kafka_conf_destroy(kc);
    snprintf(errstr, errstr_size, "%s", err);
    return CUZK_ERR_CONFIG;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, err, sizeof err);
  if (!rk) {
    snprintf(errstr, errstr_size, "%s", err);
    return CUZK_ERR_KAFKA;
  }
  cuzk_err_t rc = CUZK_OK;
  const struct rd_kafka_metadata *md = NULL;
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
  rd_kafka_resp_err_t ke = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
  rd_kafka_topic_destroy(rkt);
  if (ke || md->topic_cnt != 1 || md->topics[0].err) {
    snprintf(errstr, errstr_size, "topic %s: %s", topic,
             rd_kafka_err2str(ke              ? ke
                              : md->topic_cnt ? md->topics[0].err
                                              : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_destroy(rk);
    return CUZK_ERR_KAFKA;
  }
  int nparts = md->topics[0].partition_cnt;
  int64_t *high = calloc((size_t)nparts + 1, sizeof *high);
  int32_t *pid = calloc((size_t)nparts + 1, sizeof *pid);
  int remaining = 0;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(nparts);
  for (int p = 0; p < nparts && high && pid; p++) {
    int64_t lo = 0, hi = 0;
    pid[p] = md->topics[0].partitions[p].id;
    ke = rd_kafka_query_watermark_offsets(rk, topic, pid[p], &lo, &hi, 10000);
    if (ke) {
      snprintf(errstr, errstr_size, "watermarks of %s/%d: %s", topic, (int)pid[p],
               rd_kafka_err2str(ke));
      rc = CUZK_ERR_KAFKA;
      break;
    }
    high[p] = hi;
    if (hi > lo) remaining++;
    rd_kafka_topic_partition_list_add(l, topic, pid[p])->offset = RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_metadata_destroy(md);
  if (!high || !pid) rc = CUZK_ERR_NOMEM;
  if (rc == CUZK_OK) rd_kafka_assign(rk, l);
  rd_kafka_topic_partition_list_destroy(l);
  uint64_t end = timeout_ms > 0 ? cuzk_wall_ms() + (uint64_t)timeout_ms : UINT64_MAX;
  uint64_t next_tick = cuzk_wall_ms() + 1000;
  long got = 0;
  while (rc == CUZK_OK && !(stop && *stop) && (follow || remaining > 0) &&
         (max <= 0 || got < max)) {
    if (cuzk_wall_ms() >= end) {
      if (!follow) {
        snprintf(errstr, errstr_size, "timed out before the end of %s", topic);
        rc = CUZK_ERR_TIMEOUT;
      }
      break;
    }
    if (tick && cuzk_wall_ms() >= next_tick) {
      tick(ctx);
      next_tick = cuzk_wall_ms() + 1000;
    }
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (m->err) {
      if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
        fprintf(stderr, "cuzk telemetry: %s\n", rd_kafka_message_errstr(m));
      rd_kafka_message_destroy(m);
      continue;
    }
    got++;
    int halt = fn(ctx, m->payload, m->len);
    for (int p = 0; p < nparts; p++)
      if (pid[p] == m->partition && high[p] > 0 && m->offset + 1 >= high[p]) {
        high[p] = 0;
        remaining--;
      }
    rd_kafka_message_destroy(m);
    if (halt) break;
  }
  free(high);
  free(pid);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return rc;
}

static int cuzk__cmp_rec(const void *a, const void *b) {
  const cuzk_partition_timing_t *x = a, *y = b;
  int c = strcmp(x->agent_id, y->agent_id);
  if (c) return c;
  if (x->gpu != y->gpu) return x->gpu < y->gpu ? -1 : 1;
  if (x->gpu_start_us != y->gpu_start_us) return x->gpu_start_us < y->gpu_start_us ? -1 : 1;
  return x->enqueued_us < y->enqueued_us ? -1 : x->enqueued_us > y->enqueued_us;
}

static int cuzk__cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int64_t cuzk__clip(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

cuzk_err_t cuzk_telemetry_stats(cuzk_telemetry_stats_t *st, cuzk_telemetry_set_t *set) {
  memset(st, 0, sizeof *st);
  if (set->n == 0) return CUZK_OK;
  qsort(set->recs, set->n, sizeof set->recs[0], cuzk__cmp_rec);
  st->t0_us = INT64_MAX;
  st->t1_us = INT64_MIN;
  for (size_t i = 0; i < set->n; i++) {
    if (set->recs[i].enqueued_us < st->t0_us) st->t0_us = set->recs[i].enqueued_us;
    if (set->recs[i].finish_end_us > st->t1_us) st->t1_us = set->recs[i].finish_end_us;
  }
  if (st->t1_us < st->t0_us) st->t1_us = st->t0_us;
  st->gpus = calloc(set->n, sizeof *st->gpus);
  const char **jobs = calloc(set->n, sizeof *jobs);
  if (!st->gpus || !jobs) {
    free(jobs);
    free(st->gpus);
    st->gpus = NULL;
    return CUZK_ERR_NOMEM;
  }
  for (size_t i = 0; i < set->n;) {
    size_t j = i;
    while (j < set->n && strcmp(set->recs[j].agent_id, set->recs[i].agent_id) == 0 &&
           set->recs[j].gpu == set->recs[i].gpu)
      j++;
    cuzk_telemetry_gpu_t *g = &st->gpus[st->n_gpus++];
    g->agent_id = strdup(set->recs[i].agent_id);
    g->gpu = set->recs[i].gpu;
    g->partitions = j - i;
    g->gaps_us = calloc(j - i + 1, sizeof *g->gaps_us);
    if (!g->agent_id || !g->gaps_us) {
      free(jobs);
      return CUZK_ERR_NOMEM;
    }
    int64_t cur_s = 0, cur_e = 0, idle_from = st->t0_us;
    int open = 0;
    for (size_t k = i; k < j; k++) {
      const cuzk_partition_timing_t *r = &set->recs[k];
      jobs[k - i] = r->job_id;
      g->pinned += r->is_pinned;
      g->synth_us += r->synth_end_us - r->synth_start_us;
      g->gpu_us += r->gpu_end_us - r->gpu_start_us;
      g->h2d_bytes += r->h2d_bytes;
      g->h2d_us += r->h2d_us;
      int64_t s = cuzk__clip(r->gpu_start_us, st->t0_us, st->t1_us);
      int64_t e = cuzk__clip(r->gpu_end_us, st->t0_us, st->t1_us);
      if (e <= s) continue;
      if (open && s <= cur_e) {
        if (e > cur_e) cur_e = e;
        continue;
      }
      if (open) {
        g->busy_us += cur_e - cur_s;
        idle_from = cur_e;
      }
      if (s > idle_from) g->gaps_us[g->n_gaps++] = s - idle_from;
      cur_s = s;
      cur_e = e;
      open = 1;
    }
    if (open) {
      g->busy_us += cur_e - cur_s;
      idle_from = cur_e;
    }
    if (st->t1_us > idle_from) g->gaps_us[g->n_gaps++] = st->t1_us - idle_from;
    qsort(jobs, j - i, sizeof *jobs, cuzk__cmp_str);
    for (size_t k = 0; k < j - i; k++)
      if (k == 0 || strcmp(jobs[k], jobs[k - 1]) != 0) g->jobs++;
    i = j;
  }
  free(jobs);
  return CUZK_OK;
}

void cuzk_telemetry_stats_free(cuzk_telemetry_stats_t *st) {
  for (size_t i = 0; i < st->n_gpus; i++) {
    free(st->gpus[i].agent_id);
    free(st->gpus[i].gaps_us);
  }
  free(st->gpus);
  memset(st, 0, sizeof *st);
}

int64_t cuzk_telemetry_percentile(const int64_t *sorted, size_t n, double q) {
  assert(n > 0 && q > 0 && q <= 1);
  double r = q * (double)n;
  size_t k = (size_t)r;
  if ((double)k < r - 1e-9) k++;
  if (k < 1) k = 1;
  if (k > n) k = n;
  return sorted[k - 1];
}
