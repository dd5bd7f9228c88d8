// cuzk-test: labels=integration timeout=300
/* librdkafka 2.0.2 against a real Apache Kafka broker (ops/kafka, KRaft 3.9): the consumer and
 * producer features cuzk relies on (DESIGN §7), including what the mock cluster cannot emulate
 * (transactions). Needs $KAFKA_BROKERS (tests/integration/kafka_broker.sh or
 * ops/kafka/with-broker export it); exits 77 (SKIP) without it. Creates its own uniquely named
 * topics through the Admin API, since the test broker does not auto-create topics. */
#include "tests/support/testlib.h"
#include "agent/kafka/watermark.h"

#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *brokers;
static char prefix[64];
static cuzk_test_rng_t rng;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void topic_name(char *out, size_t n, const char *what) {
  snprintf(out, n, "%s.%s", prefix, what);
}

/* kv: NULL-terminated name, value pairs */
static rd_kafka_conf_t *mkconf(const char *const *kv) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  char err[512];
  assert_int_equal(rd_kafka_conf_set(conf, "bootstrap.servers", brokers, err, sizeof err),
                   RD_KAFKA_CONF_OK);
  for (; kv && kv[0]; kv += 2) {
    if (rd_kafka_conf_set(conf, kv[0], kv[1], err, sizeof err) != RD_KAFKA_CONF_OK)
      fail_msg("conf %s=%s: %s", kv[0], kv[1], err);
  }
  return conf;
}

static rd_kafka_t *mk(rd_kafka_type_t type, rd_kafka_conf_t *conf) {
  char err[512];
  rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) fail_msg("rd_kafka_new: %s", err);
  return rk;
}

static void create_topics(const char *const *names, int n, int partitions) {
  rd_kafka_t *rk = mk(RD_KAFKA_PRODUCER, mkconf(NULL));
  rd_kafka_NewTopic_t *nt[8];
  char err[256];
  assert_true(n <= 8);
  for (int i = 0; i < n; i++) {
    nt[i] = rd_kafka_NewTopic_new(names[i], partitions, 1, err, sizeof err);
    assert_non_null(nt[i]);
  }
  rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, nt, (size_t)n, NULL, q);
  rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 30000);
  assert_non_null(ev);
  assert_int_equal(rd_kafka_event_error(ev), RD_KAFKA_RESP_ERR_NO_ERROR);
  const rd_kafka_CreateTopics_result_t *res = rd_kafka_event_CreateTopics_result(ev);
  assert_non_null(res);
  size_t cnt;
  const rd_kafka_topic_result_t **tr = rd_kafka_CreateTopics_result_topics(res, &cnt);
  assert_int_equal(cnt, (size_t)n);
  for (size_t i = 0; i < cnt; i++) {
    rd_kafka_resp_err_t e = rd_kafka_topic_result_error(tr[i]);
    if (e && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
      fail_msg("create %s: %s", rd_kafka_topic_result_name(tr[i]), rd_kafka_err2str(e));
  }
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  for (int i = 0; i < n; i++) rd_kafka_NewTopic_destroy(nt[i]);
  /* wait until metadata lists every partition with a leader */
  double end = now_s() + 30;
  for (;;) {
    int ready = 0;
    for (int i = 0; i < n; i++) {
      rd_kafka_topic_t *t = rd_kafka_topic_new(rk, names[i], NULL);
      const struct rd_kafka_metadata *md = NULL;
      if (rd_kafka_metadata(rk, 0, t, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1 &&
          md->topics[0].err == 0 && md->topics[0].partition_cnt == partitions) {
        int ok = 1;
        for (int p = 0; p < partitions; p++) ok &= md->topics[0].partitions[p].leader >= 0;
        ready += ok;
      }
      if (md) rd_kafka_metadata_destroy(md);
      rd_kafka_topic_destroy(t);
    }
    if (ready == n) break;
    if (now_s() > end) fail_msg("topics not ready in time");
    usleep(100000);
  }
  rd_kafka_destroy(rk);
}

/* ---- producer ------------------------------------------------------------------------------- */

typedef struct {
  int ok, err, purged;
  uint8_t seen[4][512]; /* [partition][offset] delivery count */
} dr_state_t;

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  dr_state_t *s = opaque;
  if (m->err == RD_KAFKA_RESP_ERR__PURGE_QUEUE || m->err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
    s->purged++;
    return;
  }
  if (m->err) {
    s->err++;
    fprintf(stderr, "delivery failed: %s\n", rd_kafka_err2str(m->err));
    return;
  }
  s->ok++;
  if (m->partition >= 0 && m->partition < 4 && m->offset >= 0 && m->offset < 512)
    s->seen[m->partition][m->offset]++;
}

static rd_kafka_t *mk_idempotent_producer(dr_state_t *s) {
  static const char *const kv[] = {"enable.idempotence", "true", "linger.ms", "5", NULL};
  rd_kafka_conf_t *conf = mkconf(kv);
  rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
  rd_kafka_conf_set_opaque(conf, s);
  return mk(RD_KAFKA_PRODUCER, conf);
}

static void produce_n(rd_kafka_t *rk, const char *topic, int n, int partitions, const char *tag) {
  for (int i = 0; i < n; i++) {
    char key[32], val[64];
    snprintf(key, sizeof key, "job-%d", i);
    snprintf(val, sizeof val, "%s-%d", tag, i);
    rd_kafka_resp_err_t e;
    do {
      e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(i % partitions),
                            RD_KAFKA_V_KEY(key, strlen(key)), RD_KAFKA_V_VALUE(val, strlen(val)),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) rd_kafka_poll(rk, 50);
    } while (e == RD_KAFKA_RESP_ERR__QUEUE_FULL);
    assert_int_equal(e, RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  assert_int_equal(rd_kafka_flush(rk, 30000), RD_KAFKA_RESP_ERR_NO_ERROR);
}

static void test_idempotent_producer(void **state) {
  (void)state;
  char topic[128];
  topic_name(topic, sizeof topic, "idem");
  const char *names[] = {topic};
  create_topics(names, 1, 3);
  static dr_state_t s;
  memset(&s, 0, sizeof s);
  rd_kafka_t *rk = mk_idempotent_producer(&s);
  double t0 = now_s();
  produce_n(rk, topic, 300, 3, "idem");
  fprintf(stderr, "idempotent producer: 300 messages delivered in %.2f s\n", now_s() - t0);
  assert_int_equal(s.err, 0);
  assert_int_equal(s.ok, 300);
  char errstr[256];
  assert_int_equal(rd_kafka_fatal_error(rk, errstr, sizeof errstr), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (int p = 0; p < 3; p++)
    for (int o = 0; o < 512; o++) assert_int_equal(s.seen[p][o], o < 100 ? 1 : 0);
  rd_kafka_destroy(rk);
}

/* ---- consumer group with watermarks --------------------------------------------------------- */

typedef struct {
  cuzk_watermark_t *wm;
  uint64_t gen[4];
  int64_t committed[4];
  char meta[4][CUZK_WATERMARK_META_MAX];
  int assigned, revoked;
  const char *protocol;
} group_state_t;

static void rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *parts, void *opaque) {
  group_state_t *g = opaque;
  g->protocol = rd_kafka_rebalance_protocol(rk);
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    assert_int_equal(rd_kafka_assign(rk, parts), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(parts);
    assert_int_equal(rd_kafka_committed(rk, c, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
    for (int i = 0; i < c->cnt; i++) {
      rd_kafka_topic_partition_t *tp = &c->elems[i];
      assert_true(tp->partition < 4);
      char meta[CUZK_WATERMARK_META_MAX] = "";
      if (tp->metadata && tp->metadata_size < sizeof meta) {
        memcpy(meta, tp->metadata, tp->metadata_size);
        meta[tp->metadata_size] = 0;
      }
      int64_t committed = tp->offset >= 0 ? tp->offset : -1;
      g->committed[tp->partition] = committed;
      memcpy(g->meta[tp->partition], meta, sizeof meta);
      assert_int_equal(cuzk_watermark_assign(g->wm, tp->topic, tp->partition, committed, meta,
                                             &g->gen[tp->partition]),
                       CUZK_OK);
    }
    rd_kafka_topic_partition_list_destroy(c);
    g->assigned++;
  } else {
    for (int i = 0; i < parts->cnt; i++)
      cuzk_watermark_revoke(g->wm, parts->elems[i].topic, parts->elems[i].partition);
    assert_int_equal(rd_kafka_assign(rk, NULL), RD_KAFKA_RESP_ERR_NO_ERROR);
    g->revoked++;
  }
}

static rd_kafka_t *mk_group_consumer_ex(const char *group, group_state_t *g, const char *topic,
                                        const char *isolation, const char *instance_id) {
  const char *const kv[] = {"group.id", group,
                            "enable.auto.offset.store", "false",
                            "enable.auto.commit", "false",
                            "auto.offset.reset", "earliest",
                            "partition.assignment.strategy", "range,roundrobin",
                            "isolation.level", isolation,
                            "session.timeout.ms", "6000",
                            "heartbeat.interval.ms", "500",
                            "max.poll.interval.ms", "30000",
                            NULL};
  rd_kafka_conf_t *conf = mkconf(kv);
  char err[256];
  if (instance_id)
    assert_int_equal(rd_kafka_conf_set(conf, "group.instance.id", instance_id, err, sizeof err),
                     RD_KAFKA_CONF_OK);
  if (g) {
    rd_kafka_conf_set_rebalance_cb(conf, rebalance_cb);
    rd_kafka_conf_set_opaque(conf, g);
  }
  rd_kafka_t *rk = mk(RD_KAFKA_CONSUMER, conf);
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
  assert_int_equal(rd_kafka_subscribe(rk, sub), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(sub);
  return rk;
}

static rd_kafka_t *mk_group_consumer(const char *group, group_state_t *g, const char *topic,
                                     const char *isolation) {
  return mk_group_consumer_ex(group, g, topic, isolation, NULL);
}

typedef struct {
  int32_t part;
  int64_t off;
} taken_t;

/* Polls until `want` messages were taken into the watermark (or timeout). Messages the restored
 * metadata marks as done are counted in *skipped and not returned. */
static int take_msgs(rd_kafka_t *rk, group_state_t *g, taken_t *out, int want, int *skipped,
                     double timeout_s) {
  int n = 0;
  double end = now_s() + timeout_s;
  while (n < want && now_s() < end) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (m->err) {
      if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
        fprintf(stderr, "consumer: %s\n", rd_kafka_message_errstr(m));
      rd_kafka_message_destroy(m);
      continue;
    }
    bool skip;
    uint64_t gen;
    assert_int_equal(cuzk_watermark_take(g->wm, rd_kafka_topic_name(m->rkt), m->partition,
                                         m->offset, &gen, &skip),
                     CUZK_OK);
    assert_int_equal(gen, g->gen[m->partition]);
    if (skip)
      (*skipped)++;
    else
      out[n++] = (taken_t){m->partition, m->offset};
    rd_kafka_message_destroy(m);
  }
  return n;
}

/* Stores and commits each assigned partition's watermark; returns the commit list (caller
 * frees). With `with_meta` the completed offsets above ride along as commit metadata. */
static rd_kafka_topic_partition_list_t *commit_watermarks(rd_kafka_t *rk, group_state_t *g,
                                                          const char *topic, int partitions,
                                                          bool with_meta) {
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; p++) {
    int64_t commit;
    size_t n;
    cuzk_watermark_range_t above[64];
    assert_int_equal(cuzk_watermark_next_commit(g->wm, topic, p, &commit, above, 64, &n), CUZK_OK);
    assert_true(n <= 64);
    rd_kafka_topic_partition_t *tp = rd_kafka_topic_partition_list_add(l, topic, p);
    tp->offset = commit;
    if (with_meta) {
      char meta[CUZK_WATERMARK_META_MAX];
      assert_int_equal(cuzk_watermark_format_metadata(meta, sizeof meta, commit, above, n), n);
      tp->metadata = strdup(meta);
      tp->metadata_size = strlen(meta);
    }
  }
  assert_int_equal(rd_kafka_offsets_store(rk, l), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (int i = 0; i < l->cnt; i++) assert_int_equal(l->elems[i].err, RD_KAFKA_RESP_ERR_NO_ERROR);
  /* commit what was stored (the agent's path), then the explicit list (carries metadata) */
  assert_int_equal(rd_kafka_commit(rk, NULL, 0), RD_KAFKA_RESP_ERR_NO_ERROR);
  if (with_meta) {
    /* does the stored offset carry its metadata into the commit? (librdkafka 2.0.2: no; the
     * agent must commit an explicit list to keep it) */
    rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_copy(l);
    assert_int_equal(rd_kafka_committed(rk, c, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
    for (int i = 0; i < c->cnt; i++) {
      assert_int_equal(c->elems[i].offset, l->elems[i].offset);
      fprintf(stderr, "group: store+commit kept metadata for partition %d: %s\n", i,
              c->elems[i].metadata_size == l->elems[i].metadata_size &&
                      memcmp(c->elems[i].metadata, l->elems[i].metadata,
                             l->elems[i].metadata_size) == 0
                  ? "yes"
                  : "no");
    }
    rd_kafka_topic_partition_list_destroy(c);
    assert_int_equal(rd_kafka_commit(rk, l, 0), RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  return l;
}

static void test_group_watermark_pause_restart(void **state) {
  (void)state;
  enum { P = 2, PER = 20 };
  char topic[128], group[128];
  topic_name(topic, sizeof topic, "group");
  topic_name(group, sizeof group, "g1");
  const char *names[] = {topic};
  create_topics(names, 1, P);
  static dr_state_t s;
  memset(&s, 0, sizeof s);
  rd_kafka_t *prod = mk_idempotent_producer(&s);
  produce_n(prod, topic, P * PER, P, "job");
  assert_int_equal(s.ok, P * PER);
  rd_kafka_destroy(prod);

  group_state_t g = {.wm = cuzk_watermark_new()};
  double t0 = now_s();
  rd_kafka_t *rk = mk_group_consumer(group, &g, topic, "read_committed");
  taken_t taken[P * PER];
  int skipped = 0;
  int n = take_msgs(rk, &g, taken, 4, &skipped, 30);
  assert_int_equal(n, 4);
  fprintf(stderr, "group: first join and 4 messages after %.2f s\n", now_s() - t0);
  assert_string_equal(g.protocol, "EAGER");
  assert_int_equal(g.assigned, 1);

  /* backpressure: pause every assigned partition, keep polling, nothing may arrive */
  rd_kafka_topic_partition_list_t *asg;
  assert_int_equal(rd_kafka_assignment(rk, &asg), RD_KAFKA_RESP_ERR_NO_ERROR);
  assert_int_equal(asg->cnt, P);
  assert_int_equal(rd_kafka_pause_partitions(rk, asg), RD_KAFKA_RESP_ERR_NO_ERROR);
  int during_pause = take_msgs(rk, &g, taken + n, P * PER, &skipped, 1.5);
  fprintf(stderr, "group: %d messages delivered while paused\n", during_pause);
  assert_int_equal(during_pause, 0);
  assert_int_equal(rd_kafka_resume_partitions(rk, asg), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(asg);
  n += take_msgs(rk, &g, taken + n, P * PER - n, &skipped, 30);
  assert_int_equal(n, P * PER);
  assert_int_equal(skipped, 0);
  /* every offset exactly once, in order per partition */
  int64_t next[P] = {0};
  for (int i = 0; i < n; i++) assert_int_equal(taken[i].off, next[taken[i].part]++);

  /* finish jobs out of order, leaving p0@5 and p1@12 in flight */
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(cuzk_test_rng_next(&rng) % (uint64_t)(i + 1));
    taken_t t = taken[i];
    taken[i] = taken[j];
    taken[j] = t;
  }
  for (int i = 0; i < n; i++) {
    if ((taken[i].part == 0 && taken[i].off == 5) || (taken[i].part == 1 && taken[i].off == 12))
      continue;
    assert_int_equal(cuzk_watermark_complete(g.wm, topic, taken[i].part, taken[i].off,
                                             g.gen[taken[i].part]),
                     CUZK_OK);
  }
  rd_kafka_topic_partition_list_t *l = commit_watermarks(rk, &g, topic, P, true);
  assert_int_equal(l->elems[0].offset, 5);
  assert_int_equal(l->elems[1].offset, 12);
  assert_string_equal(l->elems[0].metadata, "cuzk-wm1:1+13");
  assert_string_equal(l->elems[1].metadata, "cuzk-wm1:1+6");
  rd_kafka_topic_partition_list_destroy(l);
  assert_int_equal(rd_kafka_consumer_close(rk), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_destroy(rk);
  cuzk_watermark_free(g.wm);

  /* restart: a new member of the same group resumes at the watermark and skips finished work */
  group_state_t g2 = {.wm = cuzk_watermark_new()};
  t0 = now_s();
  rk = mk_group_consumer(group, &g2, topic, "read_committed");
  skipped = 0;
  n = take_msgs(rk, &g2, taken, 2, &skipped, 30);
  fprintf(stderr, "group: rejoin and resume after %.2f s\n", now_s() - t0);
  assert_int_equal(n, 2);
  assert_int_equal(g2.committed[0], 5);
  assert_int_equal(g2.committed[1], 12);
  assert_string_equal(g2.meta[0], "cuzk-wm1:1+13");
  assert_string_equal(g2.meta[1], "cuzk-wm1:1+6");
  /* drain the rest: all skipped */
  n += take_msgs(rk, &g2, taken + n, 1, &skipped, 3);
  assert_int_equal(n, 2);
  assert_int_equal(skipped, (PER - 6) + (PER - 13));
  for (int i = 0; i < 2; i++) {
    assert_int_equal(taken[i].off, taken[i].part == 0 ? 5 : 12);
    assert_int_equal(cuzk_watermark_complete(g2.wm, topic, taken[i].part, taken[i].off,
                                             g2.gen[taken[i].part]),
                     CUZK_OK);
  }
  l = commit_watermarks(rk, &g2, topic, P, true);
  rd_kafka_topic_partition_list_destroy(l);
  rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_new(P);
  for (int p = 0; p < P; p++) rd_kafka_topic_partition_list_add(c, topic, p);
  assert_int_equal(rd_kafka_committed(rk, c, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (int p = 0; p < P; p++) assert_int_equal(c->elems[p].offset, PER);
  rd_kafka_topic_partition_list_destroy(c);
  assert_int_equal(rd_kafka_consumer_close(rk), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_destroy(rk);
  cuzk_watermark_free(g2.wm);
}

/* ---- static membership ------------------------------------------------------------------ */

static int assigned_partition(rd_kafka_t *rk) {
  rd_kafka_topic_partition_list_t *a;
  assert_int_equal(rd_kafka_assignment(rk, &a), RD_KAFKA_RESP_ERR_NO_ERROR);
  int p = a->cnt == 1 ? a->elems[0].partition : -1 - a->cnt;
  rd_kafka_topic_partition_list_destroy(a);
  return p;
}

static void poll_both(rd_kafka_t *a, rd_kafka_t *b, double secs) {
  double end = now_s() + secs;
  while (now_s() < end) {
    rd_kafka_message_t *m;
    if ((m = rd_kafka_consumer_poll(a, 50))) rd_kafka_message_destroy(m);
    if (b && (m = rd_kafka_consumer_poll(b, 50))) rd_kafka_message_destroy(m);
  }
}

/* group.instance.id: a member that restarts within session.timeout.ms gets its partition back
 * without a rebalance of the others (the mock cluster cannot show this). */
static void test_static_membership(void **state) {
  (void)state;
  char topic[128], group[128];
  topic_name(topic, sizeof topic, "static");
  topic_name(group, sizeof group, "gs");
  const char *names[] = {topic};
  create_topics(names, 1, 2);
  group_state_t ga = {.wm = cuzk_watermark_new()}, gb = {.wm = cuzk_watermark_new()};
  rd_kafka_t *a = mk_group_consumer_ex(group, &ga, topic, "read_committed", "host-a");
  double end = now_s() + 30;
  while (assigned_partition(a) != -3 && now_s() < end) poll_both(a, NULL, 0.2);
  assert_int_equal(assigned_partition(a), -3); /* both partitions */
  rd_kafka_t *b = mk_group_consumer_ex(group, &gb, topic, "read_committed", "host-b");
  double t0 = now_s();
  end = t0 + 30;
  while ((assigned_partition(a) < 0 || assigned_partition(b) < 0) && now_s() < end)
    poll_both(a, b, 0.2);
  int pa = assigned_partition(a), pb = assigned_partition(b);
  fprintf(stderr, "static: two members settled in %.2f s (a=%d b=%d)\n", now_s() - t0, pa, pb);
  assert_true(pa >= 0 && pb >= 0 && pa != pb);
  int a_assigned = ga.assigned, a_revoked = ga.revoked;

  /* b restarts under the same instance id */
  assert_int_equal(rd_kafka_consumer_close(b), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_destroy(b);
  poll_both(a, NULL, 1.0);
  memset(gb.gen, 0, sizeof gb.gen);
  gb.assigned = gb.revoked = 0;
  b = mk_group_consumer_ex(group, &gb, topic, "read_committed", "host-b");
  t0 = now_s();
  end = t0 + 30;
  while (assigned_partition(b) < 0 && now_s() < end) poll_both(a, b, 0.2);
  fprintf(stderr, "static: b back on partition %d after %.2f s\n", assigned_partition(b),
          now_s() - t0);
  assert_int_equal(assigned_partition(b), pb);
  poll_both(a, b, 2.0);
  assert_int_equal(ga.assigned, a_assigned);
  assert_int_equal(ga.revoked, a_revoked);
  assert_int_equal(assigned_partition(a), pa);
  rd_kafka_consumer_close(b);
  rd_kafka_destroy(b);
  rd_kafka_consumer_close(a);
  rd_kafka_destroy(a);
  cuzk_watermark_free(ga.wm);
  cuzk_watermark_free(gb.wm);
}

/* ---- transactions ------------------------------------------------------------------------- */

static void check_txn(rd_kafka_error_t *e, const char *what) {
  if (e) fail_msg("%s: %s (%s)", what, rd_kafka_error_string(e), rd_kafka_error_name(e));
}

/* Reads a whole partition from the start with a group-less consumer; returns the messages'
 * values concatenated with '|' and the offsets seen. */
static int read_partition(const char *topic, const char *isolation, char *vals, size_t vn,
                          int64_t *offs, int cap) {
  const char *const kv[] = {"enable.partition.eof", "true", "isolation.level", isolation,
                            "group.id", "cuzk-unused", NULL};
  rd_kafka_t *rk = mk(RD_KAFKA_CONSUMER, mkconf(kv));
  rd_kafka_topic_partition_list_t *a = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(a, topic, 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  assert_int_equal(rd_kafka_assign(rk, a), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(a);
  int n = 0;
  vals[0] = 0;
  double end = now_s() + 20;
  for (;;) {
    assert_true(now_s() < end);
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      rd_kafka_message_destroy(m);
      break;
    }
    assert_int_equal(m->err, 0);
    assert_true(n < cap);
    offs[n++] = m->offset;
    size_t l = strlen(vals);
    snprintf(vals + l, vn - l, "%s%.*s", l ? "|" : "", (int)m->len, (const char *)m->payload);
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return n;
}

static void test_transactions(void **state) {
  (void)state;
  char in[128], out[128], group[128], txid[128];
  topic_name(in, sizeof in, "txin");
  topic_name(out, sizeof out, "txout");
  topic_name(group, sizeof group, "gtx");
  topic_name(txid, sizeof txid, "tx1");
  const char *names[] = {in, out};
  create_topics(names, 2, 1);
  static dr_state_t s;
  memset(&s, 0, sizeof s);
  rd_kafka_t *prod = mk_idempotent_producer(&s);
  produce_n(prod, in, 10, 1, "in");
  rd_kafka_destroy(prod);

  group_state_t g = {.wm = cuzk_watermark_new()};
  rd_kafka_t *cons = mk_group_consumer(group, &g, in, "read_committed");
  taken_t taken[10];
  int skipped = 0;
  assert_int_equal(take_msgs(cons, &g, taken, 10, &skipped, 30), 10);

  static dr_state_t ts;
  memset(&ts, 0, sizeof ts);
  const char *const kv[] = {"transactional.id", txid, "transaction.timeout.ms", "30000", NULL};
  rd_kafka_conf_t *conf = mkconf(kv);
  rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
  rd_kafka_conf_set_opaque(conf, &ts);
  rd_kafka_t *tx = mk(RD_KAFKA_PRODUCER, conf);
  double t0 = now_s();
  check_txn(rd_kafka_init_transactions(tx, 30000), "init_transactions");
  fprintf(stderr, "transactions: init_transactions took %.2f s\n", now_s() - t0);
  rd_kafka_consumer_group_metadata_t *cgmd = rd_kafka_consumer_group_metadata(cons);
  assert_non_null(cgmd);

  /* results of jobs 0-4 (commit), 5-6 (flush, abort), 5-6 (abort at once), 5-9 (commit) */
  enum { COMMIT, ABORT_FLUSHED, ABORT_AT_ONCE };
  const struct {
    int from, to, how;
  } txns[] = {{0, 4, COMMIT}, {5, 6, ABORT_FLUSHED}, {5, 6, ABORT_AT_ONCE}, {5, 9, COMMIT}};
  int recreated = 0;
  for (size_t k = 0; k < sizeof txns / sizeof *txns; k++) {
    t0 = now_s();
    check_txn(rd_kafka_begin_transaction(tx), "begin_transaction");
    for (int i = txns[k].from; i <= txns[k].to; i++) {
      char val[32];
      snprintf(val, sizeof val, "%s-%d",
               txns[k].how == COMMIT ? "res" : txns[k].how == ABORT_FLUSHED ? "aborted" : "dropped",
               i);
      assert_int_equal(rd_kafka_producev(tx, RD_KAFKA_V_TOPIC(out), RD_KAFKA_V_PARTITION(0),
                                         RD_KAFKA_V_VALUE(val, strlen(val)),
                                         RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
                       RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    if (txns[k].how == ABORT_FLUSHED) {
      assert_int_equal(rd_kafka_flush(tx, 30000), RD_KAFKA_RESP_ERR_NO_ERROR);
      check_txn(rd_kafka_abort_transaction(tx, 30000), "abort_transaction after flush");
      continue;
    }
    if (txns[k].how == ABORT_AT_ONCE) {
      /* librdkafka 2.0.2 may fail this with a fatal INVALID_TXN_STATE when EndTxn races the
       * partition registration (librdkafka issue 4849, open); the agent's answer to a fatal
       * error is a new producer, whose init_transactions fences and aborts the old one. */
      rd_kafka_error_t *e = rd_kafka_abort_transaction(tx, 30000);
      if (e) {
        fprintf(stderr, "transactions: abort right after produce failed (%s, fatal=%d); "
                        "recreating the producer\n",
                rd_kafka_error_name(e), rd_kafka_error_is_fatal(e));
        assert_true(rd_kafka_error_is_fatal(e));
        rd_kafka_error_destroy(e);
        rd_kafka_destroy(tx);
        conf = mkconf(kv);
        rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
        rd_kafka_conf_set_opaque(conf, &ts);
        tx = mk(RD_KAFKA_PRODUCER, conf);
        check_txn(rd_kafka_init_transactions(tx, 30000), "init_transactions after fatal");
        recreated++;
      }
      continue;
    }
    rd_kafka_topic_partition_list_t *offs = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_t *tp = rd_kafka_topic_partition_list_add(offs, in, 0);
    tp->offset = txns[k].to + 1;
    /* metadata as the agent writes it: jobs finished above the watermark */
    char meta[64];
    snprintf(meta, sizeof meta, "cuzk-wm1:%d", k == 0 ? 2 : 1);
    tp->metadata = strdup(meta);
    tp->metadata_size = strlen(meta);
    check_txn(rd_kafka_send_offsets_to_transaction(tx, offs, cgmd, 30000),
              "send_offsets_to_transaction");
    rd_kafka_topic_partition_list_destroy(offs);
    check_txn(rd_kafka_commit_transaction(tx, 30000), "commit_transaction");
    fprintf(stderr, "transactions: txn %zu (%d results + offsets) committed in %.3f s\n", k,
            txns[k].to - txns[k].from + 1, now_s() - t0);
  }
  fprintf(stderr, "transactions: producer recreated %d time(s) after a fatal abort\n", recreated);
  assert_int_equal(ts.err, 0);
  assert_true(ts.ok >= 12 && ts.ok + ts.purged == 14);
  rd_kafka_consumer_group_metadata_destroy(cgmd);

  /* the group's committed offset moved with the transactions, metadata included */
  rd_kafka_topic_partition_list_t *c = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(c, in, 0);
  assert_int_equal(rd_kafka_committed(cons, c, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
  assert_int_equal(c->elems[0].offset, 10);
  assert_int_equal(c->elems[0].metadata_size, strlen("cuzk-wm1:1"));
  assert_memory_equal(c->elems[0].metadata, "cuzk-wm1:1", c->elems[0].metadata_size);
  rd_kafka_topic_partition_list_destroy(c);
  rd_kafka_consumer_close(cons);
  rd_kafka_destroy(cons);
  rd_kafka_destroy(tx);
  cuzk_watermark_free(g.wm);

  /* read_committed sees the ten results, with gaps where markers and aborted records sit;
   * read_uncommitted also sees the aborted ones */
  static char vals[1024];
  int64_t offs[32];
  int n = read_partition(out, "read_committed", vals, sizeof vals, offs, 32);
  assert_int_equal(n, 10);
  assert_string_equal(vals, "res-0|res-1|res-2|res-3|res-4|res-5|res-6|res-7|res-8|res-9");
  assert_true(offs[9] > 9);
  fprintf(stderr, "transactions: committed results at offsets %" PRId64 "..%" PRId64 "\n", offs[0],
          offs[9]);
  n = read_partition(out, "read_uncommitted", vals, sizeof vals, offs, 32);
  assert_true(n >= 12);
  assert_non_null(strstr(vals, "aborted-5|aborted-6"));
}

int main(void) {
  brokers = getenv("KAFKA_BROKERS");
  if (!brokers || !*brokers) {
    fprintf(stderr, "SKIP: KAFKA_BROKERS is not set (run under ops/kafka/with-broker)\n");
    return CUZK_TEST_SKIP;
  }
  uint64_t seed = cuzk_test_seed();
  cuzk_test_rng_init(&rng, seed);
  snprintf(prefix, sizeof prefix, "it-%d-%08" PRIx64, (int)getpid(), seed & 0xffffffffu);
  fprintf(stderr, "librdkafka %s, brokers %s, topic prefix %s\n", rd_kafka_version_str(), brokers,
          prefix);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_idempotent_producer),
      cmocka_unit_test(test_group_watermark_pause_restart),
      cmocka_unit_test(test_static_membership),
      cmocka_unit_test(test_transactions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
