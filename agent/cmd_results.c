/* `cuzk results`: reads the results topic and prints each ProofResult (operator tool). */
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/avro/codec.h"
#include "agent/cli.h"
#include "agent/jobspec.h"
#include "agent/kafka/topics.h"
#include "core/util/clock.h"

static void results_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk results [--follow] [--job-id ID] [--brokers B] [--prefix P]\n"
          "                    [--timeout-s S]\n"
          "\n"
          "Reads <prefix>.results from the beginning (no consumer group, nothing committed) and\n"
          "prints one line per ProofResult: job_id, status, proof size, partitions, verified,\n"
          "agent, and the error when there is one. Without --follow it stops at the end of the\n"
          "topic; with --follow it keeps reading (with --job-id: until that job's result).\n"
          "\n"
          "  --job-id ID     only this job\n"
          "  --brokers B     default: $CUZK_KAFKA_BROKERS, else $KAFKA_BROKERS\n"
          "  --prefix P      topic prefix (default cuzk)\n"
          "  --timeout-s S   give up after S seconds (default: 30 without --follow, none with)\n"
          "\n"
          "Exit codes: 0 results printed (with --job-id: its status is OK), 1 not found, not OK\n"
          "or failure, 2 usage error.\n");
}

static volatile sig_atomic_t cuzk__results_stop;
static void cuzk__results_sig(int s) {
  (void)s;
  cuzk__results_stop = 1;
}

static int results_run(int argc, char **argv) {
  const char *brokers = getenv("CUZK_KAFKA_BROKERS");
  if (!brokers || !*brokers) brokers = getenv("KAFKA_BROKERS");
  const char *prefix = "cuzk", *job_id = NULL;
  bool follow = false;
  long timeout_s = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--follow") == 0 || strcmp(a, "-f") == 0) {
      follow = true;
      continue;
    }
    if (i + 1 >= argc) return cuzk_cli_usage_error("results", "%s needs a value", a);
    if (strcmp(a, "--job-id") == 0)
      job_id = argv[++i];
    else if (strcmp(a, "--brokers") == 0)
      brokers = argv[++i];
    else if (strcmp(a, "--prefix") == 0)
      prefix = argv[++i];
    else if (strcmp(a, "--timeout-s") == 0)
      timeout_s = atol(argv[++i]);
    else
      return cuzk_cli_usage_error("results", "unknown option '%s'", a);
  }
  if (!brokers || !*brokers)
    return cuzk_cli_usage_error("results", "no brokers: use --brokers or $KAFKA_BROKERS");
  if (timeout_s < 0) timeout_s = follow ? 0 : 30;
  char err[1024];
  cuzk_topics_t topics;
  if (cuzk_topics_init(&topics, prefix, err, sizeof err) != CUZK_OK)
    return cuzk_cli_usage_error("results", "%s", err);
  const char *topic = topics.names[CUZK_TOPIC_RESULTS];
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  cuzk_avro_codec_t *codec = cuzk_avro_codec_new(&cc, err, sizeof err);
  if (!codec) {
    fprintf(stderr, "cuzk results: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  rd_kafka_conf_set(kc, "bootstrap.servers", brokers, err, sizeof err);
  rd_kafka_conf_set(kc, "group.id", "cuzk-results-reader", err, sizeof err);
  rd_kafka_conf_set(kc, "enable.auto.commit", "false", err, sizeof err);
  rd_kafka_conf_set(kc, "enable.partition.eof", "true", err, sizeof err);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "cuzk results: %s\n", err);
    cuzk_avro_codec_free(codec);
    return CUZK_EXIT_FAIL;
  }
  int rc = CUZK_EXIT_FAIL;
  const struct rd_kafka_metadata *md = NULL;
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
  rd_kafka_topic_destroy(rkt);
  if (e || md->topic_cnt != 1 || md->topics[0].err) {
    fprintf(stderr, "cuzk results: topic %s: %s\n", topic,
            rd_kafka_err2str(e               ? e
                             : md->topic_cnt ? md->topics[0].err
                                             : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_destroy(rk);
    cuzk_avro_codec_free(codec);
    return CUZK_EXIT_FAIL;
  }
  int nparts = md->topics[0].partition_cnt;
  rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(nparts);
  for (int p = 0; p < nparts; p++)
    rd_kafka_topic_partition_list_add(l, topic, md->topics[0].partitions[p].id)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_metadata_destroy(md);
  rd_kafka_assign(rk, l);
  rd_kafka_topic_partition_list_destroy(l);
  signal(SIGINT, cuzk__results_sig);
  signal(SIGTERM, cuzk__results_sig);
  int eofs = 0, printed = 0, found = 0, found_ok = 0;
  uint64_t end = timeout_s ? cuzk_wall_ms() + (uint64_t)timeout_s * 1000 : UINT64_MAX;
  while (!cuzk__results_stop && cuzk_wall_ms() < end) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 200);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      rd_kafka_message_destroy(m);
      if (++eofs >= nparts && !follow) break;
      continue;
    }
    if (m->err) {
      fprintf(stderr, "cuzk results: %s\n", rd_kafka_message_errstr(m));
      rd_kafka_message_destroy(m);
      continue;
    }
    cuzk_proof_result_t r;
    cuzk_err_t de =
        cuzk_avro_decode(codec, CUZK_AVRO_PROOF_RESULT, &r, m->payload, m->len, err, sizeof err);
    if (de != CUZK_OK) {
      printf("offset=%d/%lld undecodable: %s\n", (int)m->partition, (long long)m->offset, err);
    } else if (!job_id || strcmp(job_id, r.job_id) == 0) {
      printf("job_id=%s status=%s proof_bytes=%zu partitions=%d verified=%s agent=%s", r.job_id,
             cuzk_jobspec_status_name(r.status), r.has_proof ? r.proof.len : 0, (int)r.partitions,
             r.verified ? "true" : "false", r.agent_id);
      if (r.has_timing) printf(" total_ms=%.1f", r.timing.total_us / 1e3);
      if (r.has_error)
        printf(" error=%s retriable=%s message=\"%s\"", r.error.code,
               r.error.retriable ? "true" : "false", r.error.message);
      printf("\n");
      fflush(stdout);
      printed++;
      if (job_id) {
        found = 1;
        found_ok = r.status == CUZK_RESULT_OK;
      }
    }
    if (de == CUZK_OK) cuzk_avro_record_clear(CUZK_AVRO_PROOF_RESULT, &r);
    rd_kafka_message_destroy(m);
    if (job_id && found && follow) break;
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  cuzk_avro_codec_free(codec);
  if (job_id)
    rc = found && found_ok ? CUZK_EXIT_OK : CUZK_EXIT_FAIL;
  else
    rc = CUZK_EXIT_OK;
  (void)printed;
  return rc;
}

const cuzk_cmd_t cuzk_cmd_results = {"results", "print proof results from Kafka", results_run,
                                     results_usage};
