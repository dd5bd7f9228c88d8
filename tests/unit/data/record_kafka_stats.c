/* Records one librdkafka statistics JSON from a real consumer against the mock cluster. */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char *last; static volatile int want;
static int stats_cb(rd_kafka_t *rk, char *json, size_t len, void *o) {
  (void)rk; (void)o; if (want) { free(last); last = strndup(json, len); } return 0; }
static void die(const char *m) { fprintf(stderr, "%s\n", m); exit(1); }
int main(void) {
  char err[512];
  rd_kafka_conf_t *pc = rd_kafka_conf_new();
  rd_kafka_conf_set(pc, "test.mock.num.brokers", "1", err, sizeof err);
  rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, pc, err, sizeof err); if (!p) die(err);
  rd_kafka_mock_cluster_t *mc = rd_kafka_handle_mock_cluster(p);
  rd_kafka_mock_topic_create(mc, "cuzk.jobs.porep-c2", 2, 1);
  rd_kafka_mock_topic_create(mc, "cuzk.jobs.snap-deals", 1, 1);
  const char *bs = rd_kafka_mock_cluster_bootstraps(mc);
  for (int i = 0; i < 10; i++) rd_kafka_producev(p, RD_KAFKA_V_TOPIC("cuzk.jobs.porep-c2"), RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_VALUE("x",1), RD_KAFKA_V_END);
  for (int i = 0; i < 5; i++) rd_kafka_producev(p, RD_KAFKA_V_TOPIC("cuzk.jobs.porep-c2"), RD_KAFKA_V_PARTITION(1), RD_KAFKA_V_VALUE("x",1), RD_KAFKA_V_END);
  for (int i = 0; i < 3; i++) rd_kafka_producev(p, RD_KAFKA_V_TOPIC("cuzk.jobs.snap-deals"), RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_VALUE("x",1), RD_KAFKA_V_END);
  rd_kafka_flush(p, 5000);
  rd_kafka_conf_t *cc = rd_kafka_conf_new();
  const char *kv[][2] = {{"bootstrap.servers", bs}, {"group.id", "cuzk-provers"}, {"client.id", "cuzk-agent"},
    {"auto.offset.reset", "earliest"}, {"enable.auto.commit", "false"}, {"enable.auto.offset.store", "false"},
    {"statistics.interval.ms", "200"}};
  for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
    if (rd_kafka_conf_set(cc, kv[i][0], kv[i][1], err, sizeof err) != RD_KAFKA_CONF_OK) die(err);
  rd_kafka_conf_set_stats_cb(cc, stats_cb);
  rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, cc, err, sizeof err); if (!c) die(err);
  rd_kafka_poll_set_consumer(c);
  rd_kafka_topic_partition_list_t *sub = rd_kafka_topic_partition_list_new(2);
  rd_kafka_topic_partition_list_add(sub, "cuzk.jobs.porep-c2", -1);
  rd_kafka_topic_partition_list_add(sub, "cuzk.jobs.snap-deals", -1);
  rd_kafka_subscribe(c, sub);
  int got = 0;
  for (int i = 0; i < 300 && got < 18; i++) { rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100); if (m) { if (!m->err) got++; rd_kafka_message_destroy(m);} }
  fprintf(stderr, "got %d\n", got);
  rd_kafka_topic_partition_list_t *off = rd_kafka_topic_partition_list_new(3);
  rd_kafka_topic_partition_list_add(off, "cuzk.jobs.porep-c2", 0)->offset = 4;
  rd_kafka_topic_partition_list_add(off, "cuzk.jobs.porep-c2", 1)->offset = 5;
  rd_kafka_topic_partition_list_add(off, "cuzk.jobs.snap-deals", 0)->offset = 1;
  if (rd_kafka_commit(c, off, 0)) die("commit");
  rd_kafka_topic_partition_list_t *st = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(st, "cuzk.jobs.porep-c2", 0)->offset = 7;
  rd_kafka_offsets_store(c, st);
  for (int i = 0; i < 20; i++) { rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100); if (m) rd_kafka_message_destroy(m); }
  want = 1;
  for (int i = 0; i < 5; i++) { rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100); if (m) rd_kafka_message_destroy(m); }
  want = 0;
  if (!last) die("no stats");
  fputs(last, stdout); fflush(stdout); _exit(0);
  rd_kafka_consumer_close(c); rd_kafka_destroy(c); rd_kafka_destroy(p);
  return 0;
}
