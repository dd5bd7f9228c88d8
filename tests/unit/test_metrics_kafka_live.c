/* The lag parser on statistics from a live librdkafka consumer (this host's librdkafka, mock
 * cluster): guards against the stats JSON format drifting away from the recorded sample.
 * Produces 10 + 5 messages to cuzk.jobs.porep-c2 partitions 0/1 and 3 to cuzk.jobs.snap-deals,
 * consumes them as a group member, commits offsets 4, 5, 1 and stores offset 7 on porep-c2/0:
 * the lags must then read 6, 0, 2 and the stored lag of porep-c2/0 3. */
// cuzk-test: labels=unit timeout=120
#include "tests/support/testlib.h"
#include "agent/http/families.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int matched;
static _Atomic int parse_errors;

static int on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque) {
  (void)rk;
  (void)opaque;
  cuzk_kafka_lag_t *lags;
  size_t n;
  if (cuzk_kafka_stats_parse_lag(json, len, &lags, &n) != CUZK_OK) {
    atomic_fetch_add(&parse_errors, 1);
    return 0;
  }
  if (n == 3 && strcmp(lags[0].topic, "cuzk.jobs.porep-c2") == 0 && lags[0].partition == 0 &&
      lags[0].lag == 6 && lags[0].lag_stored == 3 && lags[1].partition == 1 && lags[1].lag == 0 &&
      strcmp(lags[2].topic, "cuzk.jobs.snap-deals") == 0 && lags[2].lag == 2)
    atomic_store(&matched, 1);
  cuzk_kafka_lag_free(lags, n);
  return 0; /* librdkafka frees json */
}

static void produce(rd_kafka_t *p, const char *topic, int32_t part, int count) {
  for (int i = 0; i < count; i++)
    assert_int_equal(rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(part),
                                       RD_KAFKA_V_VALUE("x", 1), RD_KAFKA_V_END),
                     RD_KAFKA_RESP_ERR_NO_ERROR);
}

static void set(rd_kafka_conf_t *c, const char *k, const char *v) {
  char err[256];
  if (rd_kafka_conf_set(c, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) fail_msg("%s: %s", k, err);
}

static void test_live_consumer_lag(void **state) {
  (void)state;
  char err[256];
  rd_kafka_conf_t *pc = rd_kafka_conf_new();
  set(pc, "test.mock.num.brokers", "1");
  set(pc, "log_level", "3");
  rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, pc, err, sizeof err);
  assert_non_null(p);
  rd_kafka_mock_cluster_t *mc = rd_kafka_handle_mock_cluster(p);
  assert_non_null(mc);
  assert_int_equal(rd_kafka_mock_topic_create(mc, "cuzk.jobs.porep-c2", 2, 1), 0);
  assert_int_equal(rd_kafka_mock_topic_create(mc, "cuzk.jobs.snap-deals", 1, 1), 0);
  produce(p, "cuzk.jobs.porep-c2", 0, 10);
  produce(p, "cuzk.jobs.porep-c2", 1, 5);
  produce(p, "cuzk.jobs.snap-deals", 0, 3);
  assert_int_equal(rd_kafka_flush(p, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);

  rd_kafka_conf_t *cc = rd_kafka_conf_new();
  set(cc, "bootstrap.servers", rd_kafka_mock_cluster_bootstraps(mc));
  set(cc, "group.id", "cuzk-provers");
  set(cc, "auto.offset.reset", "earliest");
  set(cc, "enable.auto.commit", "false");
  set(cc, "enable.auto.offset.store", "false");
  set(cc, "statistics.interval.ms", "100");
  set(cc, "log_level", "3");
  rd_kafka_conf_set_stats_cb(cc, on_stats);
  rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, cc, err, sizeof err);
  assert_non_null(c);
  rd_kafka_poll_set_consumer(c);
  rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(2);
  rd_kafka_topic_partition_list_add(sub, "cuzk.jobs.porep-c2", RD_KAFKA_PARTITION_UA);
  rd_kafka_topic_partition_list_add(sub, "cuzk.jobs.snap-deals", RD_KAFKA_PARTITION_UA);
  assert_int_equal(rd_kafka_subscribe(c, sub), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(sub);
  int got = 0;
  for (int i = 0; i < 600 && got < 18; i++) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
    if (m) {
      if (!m->err) got++;
      rd_kafka_message_destroy(m);
    }
  }
  assert_int_equal(got, 18);
  rd_kafka_topic_partition_list_t *off = rd_kafka_topic_partition_list_new(3);
  rd_kafka_topic_partition_list_add(off, "cuzk.jobs.porep-c2", 0)->offset = 4;
  rd_kafka_topic_partition_list_add(off, "cuzk.jobs.porep-c2", 1)->offset = 5;
  rd_kafka_topic_partition_list_add(off, "cuzk.jobs.snap-deals", 0)->offset = 1;
  assert_int_equal(rd_kafka_commit(c, off, 0), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(off);
  rd_kafka_topic_partition_list_t *st = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(st, "cuzk.jobs.porep-c2", 0)->offset = 7;
  assert_int_equal(rd_kafka_offsets_store(c, st), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(st);
  for (int i = 0; i < 100 && !atomic_load(&matched); i++) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
    if (m) rd_kafka_message_destroy(m);
  }
  assert_int_equal(atomic_load(&parse_errors), 0);
  assert_true(atomic_load(&matched));
  rd_kafka_consumer_close(c);
  rd_kafka_destroy(c);
  rd_kafka_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_live_consumer_lag)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
