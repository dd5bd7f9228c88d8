// cuzk-test: labels=unit timeout=180
/* The agent's Kafka side on librdkafka's mock cluster: poison messages (random bytes, unknown
 * fingerprint, invalid fields, oversized, wrong topic, bad payload hash) each end as a REJECTED
 * result plus a DeadLetter and the agent continues; expired jobs end EXPIRED without proving;
 * payload references are fetched and hash-checked; offsets complete only after the result's
 * delivery; the committed watermark carries the completed offsets above it and a second agent
 * skips them; backpressure pauses and resumes partitions.
 *
 * The engine here is a stand-in that proves nothing: it answers every admitted job with a typed
 * failure (CUZK_ERR_BACKEND), so results of admitted jobs are FAILED. End-to-end proving with the
 * real engine is covered by tests/integration/agent_*.sh. Results and dead letters are read back
 * with a separate consumer and decoded with our codec here; the integration tests decode them
 * with python3-avro. */
#include "tests/support/testlib.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/avro/codec.h"
#include "agent/jobspec.h"
#include "agent/kafka/topics.h"
#include "core/util/clock.h"

static cuzk_test_rng_t rng;

/* ---- stand-in engine ------------------------------------------------------------------------ */

typedef struct stub_job {
  struct stub_job *next;
  char id[130];
  cuzk_agent_done_fn done;
  void *user;
} stub_job_t;

typedef struct {
  cuzk_agent_engine_t base;
  pthread_mutex_t mu;
  stub_job_t *jobs;
  atomic_int hold; /* 1: keep every job; 2: keep jobs whose id starts with "hold-" */
  atomic_int quit;
  atomic_int submitted;
  pthread_t th;
} stub_t;

static void stub_answer(stub_job_t *j, cuzk_err_t st) {
  cuzk_agent_job_done_t r = {
      j->id, st, "stand-in engine: no prover in this test", NULL, 0, 1, false, 0, 0};
  j->done(j->user, &r);
  free(j);
}

static void *stub_thread(void *arg) {
  stub_t *s = arg;
  while (!atomic_load(&s->quit)) {
    cuzk_sleep_ms(10);
    pthread_mutex_lock(&s->mu);
    stub_job_t **pp = &s->jobs;
    while (*pp) {
      stub_job_t *j = *pp;
      int h = atomic_load(&s->hold);
      if (h == 1 || (h == 2 && strncmp(j->id, "hold-", 5) == 0)) {
        pp = &j->next;
        continue;
      }
      *pp = j->next;
      stub_answer(j, CUZK_ERR_BACKEND);
    }
    pthread_mutex_unlock(&s->mu);
  }
  return NULL;
}

static cuzk_err_t stub_submit(cuzk_agent_engine_t *e, const cuzk_agent_job_t *job,
                              cuzk_agent_done_fn done, void *user, char *errstr, size_t n) {
  (void)errstr, (void)n;
  stub_t *s = (stub_t *)e;
  stub_job_t *j = calloc(1, sizeof *j);
  snprintf(j->id, sizeof j->id, "%s", job->job_id);
  j->done = done;
  j->user = user;
  pthread_mutex_lock(&s->mu);
  j->next = s->jobs;
  s->jobs = j;
  pthread_mutex_unlock(&s->mu);
  atomic_fetch_add(&s->submitted, 1);
  return CUZK_OK;
}

static void stub_status(cuzk_agent_engine_t *e, cuzk_agent_engine_status_t *out) {
  (void)e;
  memset(out, 0, sizeof *out);
}

/* Frees the stand-in; jobs still held get CANCELLED (as the real engine's free does). */
static void stub_free(cuzk_agent_engine_t *e) {
  stub_t *s = (stub_t *)e;
  atomic_store(&s->quit, 1);
  pthread_join(s->th, NULL);
  while (s->jobs) {
    stub_job_t *n = s->jobs->next;
    stub_answer(s->jobs, CUZK_ERR_CANCELLED);
    s->jobs = n;
  }
  pthread_mutex_destroy(&s->mu);
  free(s);
}

static stub_t *stub_new(int hold) {
  stub_t *s = calloc(1, sizeof *s);
  s->base.submit = stub_submit;
  s->base.status = stub_status;
  s->base.free = stub_free;
  pthread_mutex_init(&s->mu, NULL);
  atomic_store(&s->hold, hold);
  pthread_create(&s->th, NULL, stub_thread, s);
  return s;
}

/* ---- cluster helpers ------------------------------------------------------------------------ */

typedef struct {
  rd_kafka_t *rk;
  rd_kafka_mock_cluster_t *mc;
  const char *brokers;
  char prefix[64];
  cuzk_topics_t topics;
} cluster_t;

static void cluster_new(cluster_t *c, int job_partitions) {
  char err[512];
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  rd_kafka_conf_set(kc, "bootstrap.servers", "", err, sizeof err);
  c->rk = rd_kafka_new(RD_KAFKA_PRODUCER, kc, err, sizeof err);
  assert_non_null(c->rk);
  c->mc = rd_kafka_mock_cluster_new(c->rk, 1);
  assert_non_null(c->mc);
  c->brokers = rd_kafka_mock_cluster_bootstraps(c->mc);
  snprintf(c->prefix, sizeof c->prefix, "t%llx", (unsigned long long)cuzk_test_rng_next(&rng));
  assert_int_equal(cuzk_topics_init(&c->topics, c->prefix, err, sizeof err), CUZK_OK);
  for (int t = 0; t < CUZK_TOPIC__COUNT; t++)
    assert_int_equal(
        rd_kafka_mock_topic_create(c->mc, c->topics.names[t], t < 4 ? job_partitions : 1, 1), 0);
}

static void cluster_free(cluster_t *c) {
  rd_kafka_mock_cluster_destroy(c->mc);
  rd_kafka_destroy(c->rk);
}

static void produce_raw(cluster_t *c, cuzk_topic_t t, int32_t part, const char *key,
                        const void *val, size_t len) {
  char err[512];
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  rd_kafka_conf_set(kc, "bootstrap.servers", c->brokers, err, sizeof err);
  rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, kc, err, sizeof err);
  assert_non_null(p);
  assert_int_equal(
      rd_kafka_producev(p, RD_KAFKA_V_TOPIC(c->topics.names[t]), RD_KAFKA_V_PARTITION(part),
                        RD_KAFKA_V_KEY(key, key ? strlen(key) : 0),
                        RD_KAFKA_V_VALUE((void *)val, len),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
      0);
  assert_int_equal(rd_kafka_flush(p, 10000), 0);
  rd_kafka_destroy(p);
}

static void produce_job(cluster_t *c, cuzk_avro_codec_t *codec, cuzk_topic_t t, int32_t part,
                        const cuzk_proof_job_t *job) {
  uint8_t *buf;
  size_t len;
  char err[512];
  assert_int_equal(cuzk_avro_encode(codec, CUZK_AVRO_PROOF_JOB, job, &buf, &len, err, sizeof err),
                   CUZK_OK);
  produce_raw(c, t, part, job->job_id, buf, len);
  free(buf);
}

typedef struct {
  void *key, *payload;
  size_t key_len, len;
} msg_t;

static void msg_free(msg_t *m) {
  free(m->key);
  free(m->payload);
}

/* Reads every message of topic t (partition 0) until `want` or 15 s; copies them (librdkafka's
 * destroy waits for every message the application still holds). */
static size_t read_all(cluster_t *c, cuzk_topic_t t, msg_t *out, size_t want, int timeout_ms) {
  char err[512];
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  rd_kafka_conf_set(kc, "bootstrap.servers", c->brokers, err, sizeof err);
  rd_kafka_conf_set(kc, "group.id", "reader", err, sizeof err);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, err, sizeof err);
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, c->topics.names[t], 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, l);
  rd_kafka_topic_partition_list_destroy(l);
  size_t n = 0;
  uint64_t end = cuzk_wall_ms() + (uint64_t)timeout_ms;
  while (n < want && cuzk_wall_ms() < end) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (m->err) {
      rd_kafka_message_destroy(m);
      continue;
    }
    out[n].key = malloc(m->key_len + 1);
    memcpy(out[n].key, m->key ? m->key : "", m->key_len);
    out[n].key_len = m->key_len;
    out[n].payload = malloc(m->len + 1);
    memcpy(out[n].payload, m->payload, m->len);
    out[n].len = m->len;
    n++;
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return n;
}

static int64_t committed(cluster_t *c, const char *group, cuzk_topic_t t, int32_t part, char *meta,
                         size_t meta_n) {
  char err[512];
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  rd_kafka_conf_set(kc, "bootstrap.servers", c->brokers, err, sizeof err);
  rd_kafka_conf_set(kc, "group.id", group, err, sizeof err);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, err, sizeof err);
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(l, c->topics.names[t], part);
  assert_int_equal(rd_kafka_committed(rk, l, 10000), 0);
  int64_t off = l->elems[0].offset;
  if (meta) {
    size_t m = l->elems[0].metadata_size < meta_n - 1 ? l->elems[0].metadata_size : meta_n - 1;
    if (l->elems[0].metadata) memcpy(meta, l->elems[0].metadata, m);
    meta[m] = 0;
  }
  rd_kafka_topic_partition_list_destroy(l);
  rd_kafka_destroy(rk);
  return off;
}

/* the mock cluster holds a group until the session of a closed member times out */
static char *test_prop_names[] = {"session.timeout.ms", "heartbeat.interval.ms"};
static char *test_prop_values[] = {"6000", "500"};
static const cuzk_agent_props_t test_props = {2, test_prop_names, test_prop_values};

/* ---- running the agent ---------------------------------------------------------------------- */

typedef struct {
  cuzk_agent_t *agent;
  atomic_int results;
  int stop_at;
  int by_status[5];
} run_ctx_t;

static void on_result(void *ctx, const cuzk_agent_result_info_t *info) {
  run_ctx_t *r = ctx;
  r->by_status[info->status]++;
  if (atomic_fetch_add(&r->results, 1) + 1 >= r->stop_at) cuzk_agent_stop(r->agent);
}

static void *run_thread(void *arg) {
  run_ctx_t *r = arg;
  assert_int_equal(cuzk_agent_run(r->agent), CUZK_OK);
  return NULL;
}

static cuzk_agent_t *agent_new(cluster_t *c, stub_t *s, run_ctx_t *r, const char *group) {
  cuzk_agent_conf_t ac;
  cuzk_agent_conf_init(&ac);
  ac.agent_id = "test-agent";
  ac.brokers = c->brokers;
  ac.topic_prefix = c->prefix;
  ac.group_id = group;
  ac.max_message_bytes = 64 << 10;
  ac.max_job_bytes = 1 << 20;
  ac.shutdown_grace_s = 0;
  ac.status_interval_s = 1;
  ac.commit_interval_ms = 100;
  ac.payload_fetch_timeout_s = 5;
  ac.engine = &s->base;
  ac.consumer_props = test_props;
  ac.on_result = on_result;
  ac.cb_ctx = r;
  char err[512];
  cuzk_agent_t *a = cuzk_agent_new(&ac, err, sizeof err);
  if (!a) fail_msg("agent_new: %s", err);
  r->agent = a;
  return a;
}

static void run_until(run_ctx_t *r, int results, int timeout_s) {
  r->stop_at = results;
  pthread_t th;
  pthread_create(&th, NULL, run_thread, r);
  uint64_t end = cuzk_wall_ms() + (uint64_t)timeout_s * 1000;
  while (atomic_load(&r->results) < results && cuzk_wall_ms() < end) cuzk_sleep_ms(20);
  cuzk_agent_stop(r->agent);
  pthread_join(th, NULL);
  assert_int_equal(atomic_load(&r->results), results);
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_poison_and_paths(void **state) {
  (void)state;
  cluster_t c;
  cluster_new(&c, 1);
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  char err[512];
  cuzk_avro_codec_t *codec = cuzk_avro_codec_new(&cc, err, sizeof err);
  assert_non_null(codec);
  const cuzk_topic_t T = CUZK_TOPIC_JOBS_WINDOW_POST;
  uint8_t payload[300];
  cuzk_test_rng_bytes(&rng, payload, sizeof payload);

  /* 0: random bytes */
  uint8_t junk[100];
  cuzk_test_rng_bytes(&rng, junk, sizeof junk);
  produce_raw(&c, T, 0, "junk", junk, sizeof junk);
  /* 1: single-object marker with an unknown fingerprint */
  uint8_t fp[40] = {0xC3, 0x01};
  cuzk_test_rng_bytes(&rng, fp + 2, sizeof fp - 2);
  produce_raw(&c, T, 0, "fingerprint", fp, sizeof fp);
  /* 2: valid Avro, invalid fields (PoSt job without randomness) */
  cuzk_jobspec_t s;
  cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_WINDOW_POST, "bad-fields", NULL, payload, sizeof payload);
  s.job.has_randomness = false;
  produce_job(&c, codec, T, 0, &s.job);
  /* 3: oversized (over the agent's 64 KiB message limit) */
  uint8_t *big = calloc(1, 70 << 10);
  cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_WINDOW_POST, "oversized", NULL, big, 70 << 10);
  produce_job(&c, codec, T, 0, &s.job);
  free(big);
  /* 4: deadline passed */
  cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_WINDOW_POST, "expired", NULL, payload, sizeof payload);
  s.job.has_deadline = true;
  s.job.deadline_ms = (int64_t)cuzk_wall_ms() - 1000;
  produce_job(&c, codec, T, 0, &s.job);
  /* 5: a WinningPoSt job on the WindowPoSt topic */
  cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_WINNING_POST, "wrong-topic", NULL, payload, sizeof payload);
  produce_job(&c, codec, T, 0, &s.job);
  /* 6: payload reference whose bytes do not match the hash */
  char path[] = "/tmp/cuzk-test-agent-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, payload, sizeof payload), (ssize_t)sizeof payload);
  close(fd);
  char uri[128];
  snprintf(uri, sizeof uri, "file://%s", path);
  uint8_t other[sizeof payload];
  memcpy(other, payload, sizeof payload);
  other[7] ^= 1;
  cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_WINDOW_POST, "bad-hash", NULL, payload, sizeof payload);
  cuzk_jobspec_set_ref(&s, uri, other, sizeof other);
  produce_job(&c, codec, T, 0, &s.job);
  /* 7: payload reference, right hash: reaches the engine */
  cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_WINDOW_POST, "good-ref", NULL, payload, sizeof payload);
  cuzk_jobspec_set_ref(&s, uri, payload, sizeof payload);
  produce_job(&c, codec, T, 0, &s.job);
  /* 8: inline, valid: reaches the engine */
  cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_WINDOW_POST, "good-inline", NULL, payload, sizeof payload);
  produce_job(&c, codec, T, 0, &s.job);

  stub_t *stub = stub_new(0);
  run_ctx_t r;
  memset(&r, 0, sizeof r);
  cuzk_agent_t *a = agent_new(&c, stub, &r, "g1");
  run_until(&r, 9, 60);
  cuzk_agent_stats_t st;
  cuzk_agent_stats(a, &st);
  stub->base.free(&stub->base);
  cuzk_agent_free(a);
  unlink(path);
  assert_int_equal(r.by_status[CUZK_RESULT_REJECTED], 6);
  assert_int_equal(r.by_status[CUZK_RESULT_EXPIRED], 1);
  assert_int_equal(r.by_status[CUZK_RESULT_FAILED], 2);
  assert_int_equal(st.dead_letters, 6);
  assert_int_equal(st.submitted, 2);
  assert_true(st.statuses >= 1);

  /* every offset completed and committed */
  char meta[256];
  assert_int_equal(committed(&c, "g1", T, 0, meta, sizeof meta), 9);

  /* results: one per job, keyed by job_id, with the expected status and error code */
  msg_t msgs[16];
  size_t n = read_all(&c, CUZK_TOPIC_RESULTS, msgs, 9, 15000);
  assert_int_equal(n, 9);
  static const struct {
    const char *id;
    cuzk_result_status_t st;
    const char *code;
  } want[] = {{"junk", CUZK_RESULT_REJECTED, NULL},
              {"fingerprint", CUZK_RESULT_REJECTED, "CUZK_ERR_SCHEMA"},
              {"bad-fields", CUZK_RESULT_REJECTED, "CUZK_ERR_BAD_JOB"},
              {"oversized", CUZK_RESULT_REJECTED, "CUZK_ERR_TOO_LARGE"},
              {"expired", CUZK_RESULT_EXPIRED, "CUZK_ERR_EXPIRED"},
              {"wrong-topic", CUZK_RESULT_REJECTED, "CUZK_ERR_BAD_JOB"},
              {"bad-hash", CUZK_RESULT_REJECTED, "CUZK_ERR_CHECKSUM"},
              {"good-ref", CUZK_RESULT_FAILED, "CUZK_ERR_BACKEND"},
              {"good-inline", CUZK_RESULT_FAILED, "CUZK_ERR_BACKEND"}};
  for (size_t i = 0; i < n; i++) {
    cuzk_proof_result_t res;
    assert_int_equal(cuzk_avro_decode(codec, CUZK_AVRO_PROOF_RESULT, &res, msgs[i].payload,
                                      msgs[i].len, err, sizeof err),
                     CUZK_OK);
    assert_int_equal(msgs[i].key_len, strlen(res.job_id));
    assert_memory_equal(msgs[i].key, res.job_id, msgs[i].key_len);
    size_t k = 0;
    while (k < 9 && strcmp(want[k].id, res.job_id) != 0) k++;
    if (k == 9) fail_msg("unexpected result for job %s", res.job_id);
    assert_int_equal(res.status, want[k].st);
    assert_true(res.has_error);
    if (want[k].code) assert_string_equal(res.error.code, want[k].code);
    assert_string_equal(res.agent_id, "test-agent");
    assert_false(res.has_proof);
    cuzk_avro_record_clear(CUZK_AVRO_PROOF_RESULT, &res);
    msg_free(&msgs[i]);
  }
  /* dead letters: the six rejected messages, with their coordinates and original size */
  n = read_all(&c, CUZK_TOPIC_DEAD_LETTER, msgs, 6, 15000);
  assert_int_equal(n, 6);
  for (size_t i = 0; i < n; i++) {
    cuzk_dead_letter_t d;
    assert_int_equal(cuzk_avro_decode(codec, CUZK_AVRO_DEAD_LETTER, &d, msgs[i].payload,
                                      msgs[i].len, err, sizeof err),
                     CUZK_OK);
    assert_string_equal(d.topic, c.topics.names[T]);
    assert_true(d.offset >= 0 && d.offset < 9 && d.offset != 4 && d.offset != 7 && d.offset != 8);
    assert_true(d.value_size > 0);
    assert_true(d.value.len <= (size_t)d.value_size);
    if (d.offset == 0) {
      assert_int_equal(d.value_size, (int64_t)sizeof junk);
      assert_memory_equal(d.value.data, junk, sizeof junk);
      assert_null(d.job_id);
    }
    if (d.offset == 3) assert_true(d.value_size > (64 << 10));
    cuzk_avro_record_clear(CUZK_AVRO_DEAD_LETTER, &d);
    msg_free(&msgs[i]);
  }
  /* one AgentStatus at least */
  n = read_all(&c, CUZK_TOPIC_TELEMETRY_AGENTS, msgs, 1, 15000);
  assert_int_equal(n, 1);
  cuzk_agent_status_t as;
  assert_int_equal(cuzk_avro_decode(codec, CUZK_AVRO_AGENT_STATUS, &as, msgs[0].payload,
                                    msgs[0].len, err, sizeof err),
                   CUZK_OK);
  assert_string_equal(as.agent_id, "test-agent");
  cuzk_avro_record_clear(CUZK_AVRO_AGENT_STATUS, &as);
  msg_free(&msgs[0]);
  cuzk_avro_codec_free(codec);
  cluster_free(&c);
}

/* Offsets 1 and 2 finish while 0 is held: the commit is 0 with {1,2} in its metadata; a second
 * agent in the group re-takes 0 only. */
static void test_restart_skips_completed(void **state) {
  (void)state;
  cluster_t c;
  cluster_new(&c, 1);
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  char err[512];
  cuzk_avro_codec_t *codec = cuzk_avro_codec_new(&cc, err, sizeof err);
  const cuzk_topic_t T = CUZK_TOPIC_JOBS_SNAP_DEALS;
  uint8_t payload[64];
  cuzk_test_rng_bytes(&rng, payload, sizeof payload);
  const char *ids[] = {"hold-0", "done-1", "done-2"};
  for (int i = 0; i < 3; i++) {
    cuzk_jobspec_t s;
    cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_SNAP_DEALS, ids[i], NULL, payload, sizeof payload);
    produce_job(&c, codec, T, 0, &s.job);
  }
  stub_t *stub = stub_new(2);
  run_ctx_t r;
  memset(&r, 0, sizeof r);
  cuzk_agent_t *a = agent_new(&c, stub, &r, "g2");
  run_until(&r, 2, 60);
  stub->base.free(&stub->base); /* the held job is cancelled after the agent stopped */
  cuzk_agent_free(a);
  char meta[256];
  int64_t off = committed(&c, "g2", T, 0, meta, sizeof meta);
  printf("# committed %lld metadata \"%s\"\n", (long long)off, meta);
  assert_int_equal(off, 0);
  assert_string_equal(meta, "cuzk-wm1:1+1");

  stub = stub_new(0);
  memset(&r, 0, sizeof r);
  a = agent_new(&c, stub, &r, "g2");
  run_until(&r, 1, 60);
  cuzk_agent_stats_t st;
  cuzk_agent_stats(a, &st);
  stub->base.free(&stub->base);
  cuzk_agent_free(a);
  assert_int_equal(st.skipped, 2);
  assert_int_equal(st.submitted, 1);
  assert_int_equal(committed(&c, "g2", T, 0, NULL, 0), 3);
  msg_t msgs[8];
  size_t n = read_all(&c, CUZK_TOPIC_RESULTS, msgs, 4, 3000);
  assert_int_equal(n, 3); /* done-1, done-2, then hold-0 from the second agent: no duplicates */
  for (size_t i = 0; i < n; i++) msg_free(&msgs[i]);
  cuzk_avro_codec_free(codec);
  cluster_free(&c);
}

/* With max 2 jobs in flight and every job held, the agent pauses its partitions; after release
 * it resumes them and finishes all jobs. */
static void test_backpressure(void **state) {
  (void)state;
  cluster_t c;
  cluster_new(&c, 2);
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  char err[512];
  cuzk_avro_codec_t *codec = cuzk_avro_codec_new(&cc, err, sizeof err);
  uint8_t payload[64];
  cuzk_test_rng_bytes(&rng, payload, sizeof payload);
  for (int i = 0; i < 8; i++) {
    char id[32];
    snprintf(id, sizeof id, "bp-%d", i);
    cuzk_jobspec_t s;
    cuzk_jobspec_init(&s, CUZK_PROOF_TYPE_POREP_C2, id, NULL, payload, sizeof payload);
    produce_job(&c, codec, CUZK_TOPIC_JOBS_POREP_C2, i % 2, &s.job);
  }
  stub_t *stub = stub_new(1);
  run_ctx_t r;
  memset(&r, 0, sizeof r);
  cuzk_agent_conf_t ac;
  cuzk_agent_conf_init(&ac);
  ac.agent_id = "bp-agent";
  ac.brokers = c.brokers;
  ac.topic_prefix = c.prefix;
  ac.group_id = "g3";
  ac.shutdown_grace_s = 5;
  ac.max_jobs_in_flight = 2;
  ac.engine = &stub->base;
  ac.consumer_props = test_props;
  ac.on_result = on_result;
  ac.cb_ctx = &r;
  cuzk_agent_t *a = cuzk_agent_new(&ac, err, sizeof err);
  assert_non_null(a);
  r.agent = a;
  r.stop_at = 8;
  pthread_t th;
  pthread_create(&th, NULL, run_thread, &r);
  uint64_t end = cuzk_wall_ms() + 20000;
  while (atomic_load(&stub->submitted) < 2 && cuzk_wall_ms() < end) cuzk_sleep_ms(20);
  cuzk_sleep_ms(1500); /* time to over-admit if pausing did not work */
  int held = atomic_load(&stub->submitted);
  printf("# admitted while held: %d\n", held);
  assert_true(held >= 2 && held <= 3); /* at most one prefetched message past the limit */
  atomic_store(&stub->hold, 0);
  end = cuzk_wall_ms() + 30000;
  while (atomic_load(&r.results) < 8 && cuzk_wall_ms() < end) cuzk_sleep_ms(20);
  cuzk_agent_stop(a);
  pthread_join(th, NULL);
  cuzk_agent_stats_t st;
  cuzk_agent_stats(a, &st);
  stub->base.free(&stub->base);
  cuzk_agent_free(a);
  printf("# pauses %llu resumes %llu\n", (unsigned long long)st.pauses,
         (unsigned long long)st.resumes);
  assert_int_equal(atomic_load(&r.results), 8);
  assert_true(st.pauses >= 1);
  assert_true(st.resumes >= 1);
  cuzk_avro_codec_free(codec);
  cluster_free(&c);
}

int main(void) {
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_poison_and_paths),
      cmocka_unit_test(test_restart_skips_completed),
      cmocka_unit_test(test_backpressure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
