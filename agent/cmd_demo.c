/* `cuzk demo`: the embedded default — librdkafka's in-process mock cluster, insecure test
 * parameters for a small synthetic circuit made through `cuzk setup`, sample jobs, the agent
 * in-process on the real engine, and a printout of results and timings. */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/avro/codec.h"
#include "agent/cli.h"
#include "agent/jobspec.h"
#include "agent/kafka/topics.h"
#include "core/util/clock.h"

static void demo_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk demo [--jobs N] [--log-n K] [--keep] [--verbose]\n"
          "\n"
          "Runs cuzk end to end with no infrastructure: starts librdkafka's in-process mock Kafka\n"
          "cluster, creates the cuzk topics, makes INSECURE test parameters for the synthetic\n"
          "circuit of 2^K constraints in a temporary directory (as `cuzk setup` does), publishes\n"
          "N sample jobs across the job topics, runs the agent in-process on the proving engine\n"
          "(CPU backend in this build), and prints every result (proof size, verified) and a\n"
          "timing table. Synthetic jobs are the only proof type this build can prove today.\n"
          "\n"
          "  --jobs N     jobs to publish (default 4, at most 64)\n"
          "  --log-n K    synthetic circuit size 2^K, 8..14 (default 10)\n"
          "  --keep       keep the parameter directory\n"
          "  --verbose    show the agent's log lines (default: warnings and errors)\n"
          "\n"
          "Exit codes: 0 every job proved and verified, 1 otherwise, 2 usage error.\n");
}

#define DEMO_MAX_JOBS 64

typedef struct {
  cuzk_agent_t *agent;
  int want;
  atomic_int got;
  int ok_verified;
  struct {
    char id[64];
    double queue_ms, synth_ms, prove_ms, finish_ms, total_ms;
    int pinned;
    int have;
  } rows[DEMO_MAX_JOBS];
  char ids[DEMO_MAX_JOBS][64];
  int n;
  uint64_t t0;
} demo_t;

static void demo_on_result(void *ctx, const cuzk_agent_result_info_t *r) {
  demo_t *d = ctx;
  printf(
      "  result  job_id=%-10s status=%-8s proof_bytes=%zu partitions=%d verified=%s "
      "total_ms=%lld%s%s\n",
      r->job_id, cuzk_jobspec_status_name(r->status), r->proof_len, (int)r->partitions,
      r->verified ? "true" : "false", (long long)r->total_ms, r->error_code ? " error=" : "",
      r->error_code ? r->error_code : "");
  if (r->error_message && r->status != CUZK_RESULT_OK) printf("          %s\n", r->error_message);
  fflush(stdout);
  if (r->status == CUZK_RESULT_OK && r->verified) d->ok_verified++;
  if (atomic_fetch_add(&d->got, 1) + 1 >= d->want) cuzk_agent_stop(d->agent);
}

static void demo_on_timing(void *ctx, const cuzk_agent_timing_t *t) {
  demo_t *d = ctx;
  for (int i = 0; i < d->n; i++) {
    if (strcmp(d->ids[i], t->job_id) != 0 || d->rows[i].have) continue;
#define MS(a, b) ((a) && (b) && (b) >= (a) ? ((double)((b) - (a))) / 1e3 : 0.0)
    d->rows[i].queue_ms = MS(t->enqueued, t->budget_granted);
    d->rows[i].synth_ms = MS(t->synth_start, t->synth_end);
    d->rows[i].prove_ms = MS(t->gpu_start, t->gpu_end);
    d->rows[i].finish_ms = MS(t->gpu_end, t->finish_end);
    d->rows[i].total_ms = MS(t->enqueued, t->finish_end);
#undef MS
    d->rows[i].pinned = t->is_pinned;
    d->rows[i].have = 1;
  }
}

static void *demo_agent_thread(void *arg) {
  demo_t *d = arg;
  cuzk_agent_run(d->agent);
  return NULL;
}

static int demo_run(int argc, char **argv) {
  long jobs = 4, log_n = 10;
  bool keep = false, verbose = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--keep") == 0)
      keep = true;
    else if (strcmp(argv[i], "--verbose") == 0)
      verbose = true;
    else if ((strcmp(argv[i], "--jobs") == 0 || strcmp(argv[i], "--log-n") == 0) && i + 1 < argc) {
      char *end;
      long v = strtol(argv[i + 1], &end, 10);
      if (*end) return cuzk_cli_usage_error("demo", "%s needs a number", argv[i]);
      if (argv[i][2] == 'j')
        jobs = v;
      else
        log_n = v;
      i++;
    } else {
      return cuzk_cli_usage_error("demo", "unknown option '%s'", argv[i]);
    }
  }
  if (jobs < 1 || jobs > DEMO_MAX_JOBS)
    return cuzk_cli_usage_error("demo", "--jobs must be 1..%d", DEMO_MAX_JOBS);
  if (log_n < 8 || log_n > 14) return cuzk_cli_usage_error("demo", "--log-n must be 8..14");
  cuzk_agent_apply_log(verbose ? 2 /* info */ : 3 /* warn */, 0);

  printf("cuzk demo: embedded Kafka (librdkafka mock cluster), %ld synthetic job(s) of 2^%ld\n",
         jobs, log_n);
  printf(
      "NOTE: synthetic jobs are the only proof type this build can prove today; the\n"
      "      parameters are INSECURE test parameters. Nothing here is a Filecoin proof.\n\n");
  char err[1024];
  int rc = CUZK_EXIT_FAIL;
  /* 1. the mock cluster and topics */
  rd_kafka_conf_t *kc = rd_kafka_conf_new();
  rd_kafka_conf_set(kc, "log_level", "3", err, sizeof err);
  rd_kafka_t *mrk = rd_kafka_new(RD_KAFKA_PRODUCER, kc, err, sizeof err);
  if (!mrk) {
    fprintf(stderr, "cuzk demo: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(mrk, 1);
  if (!mc) {
    fprintf(stderr, "cuzk demo: could not start the mock cluster\n");
    rd_kafka_destroy(mrk);
    return CUZK_EXIT_FAIL;
  }
  const char *brokers = rd_kafka_mock_cluster_bootstraps(mc);
  cuzk_topics_t topics;
  cuzk_topics_init(&topics, "cuzk", err, sizeof err);
  for (int t = 0; t < CUZK_TOPIC__COUNT; t++)
    rd_kafka_mock_topic_create(mc, topics.names[t], t < 4 ? 2 : 1, 1);
  printf("[1/5] mock cluster at %s, topics cuzk.* created\n", brokers);

  /* 2. test parameters through `cuzk setup` */
  char dir[] = "/tmp/cuzk-demo-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("cuzk demo: mkdtemp");
    goto out_cluster;
  }
  char logn_s[8];
  snprintf(logn_s, sizeof logn_s, "%ld", log_n);
  char *setup_argv[] = {"cuzk", "setup", "--circuit", "synthetic", "--log-n",
                        logn_s, "--out", dir,         NULL};
  printf("[2/5] cuzk setup --circuit synthetic --log-n %s --out %s\n", logn_s, dir);
  fflush(stdout);
  if (cuzk_cli_main(8, setup_argv) != 0) {
    fprintf(stderr, "cuzk demo: setup failed\n");
    goto out_dir;
  }

  /* 3. the engine */
  cuzk_agent_engine_conf_t ec;
  memset(&ec, 0, sizeof ec);
  ec.memory_budget = (uint64_t)2 << 30;
  ec.params_dir = dir;
  ec.allow_insecure_params = true;
  ec.prefer_gpu = true;
  cuzk_agent_engine_t *engine = cuzk_agent_engine_new(&ec, err, sizeof err);
  if (!engine) {
    fprintf(stderr, "cuzk demo: engine: %s\n", err);
    goto out_dir;
  }
  printf("[3/5] engine started (%s backend)\n", engine->gpu ? "CUDA" : "CPU");

  /* 4. sample jobs */
  static demo_t d;
  memset(&d, 0, sizeof d);
  d.want = (int)jobs;
  d.n = (int)jobs;
  char circuit[32];
  snprintf(circuit, sizeof circuit, "synthetic-%ld", log_n);
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  cuzk_avro_codec_t *codec = cuzk_avro_codec_new(&cc, err, sizeof err);
  kc = rd_kafka_conf_new();
  rd_kafka_conf_set(kc, "bootstrap.servers", brokers, err, sizeof err);
  rd_kafka_t *prod = rd_kafka_new(RD_KAFKA_PRODUCER, kc, err, sizeof err);
  static const uint8_t placeholder[] = "synthetic";
  for (int i = 0; i < d.n; i++) {
    snprintf(d.ids[i], sizeof d.ids[i], "demo-%d", i + 1);
    snprintf(d.rows[i].id, sizeof d.rows[i].id, "%s", d.ids[i]);
    cuzk_proof_type_t type = (cuzk_proof_type_t)(i % 4);
    cuzk_jobspec_t s;
    cuzk_jobspec_init(&s, type, d.ids[i], circuit, placeholder, sizeof placeholder - 1);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (cuzk_avro_encode(codec, CUZK_AVRO_PROOF_JOB, &s.job, &buf, &len, err, sizeof err) !=
        CUZK_OK) {
      fprintf(stderr, "cuzk demo: %s\n", err);
      continue;
    }
    rd_kafka_producev(prod, RD_KAFKA_V_TOPIC(topics.names[type]),
                      RD_KAFKA_V_KEY(d.ids[i], strlen(d.ids[i])), RD_KAFKA_V_VALUE(buf, len),
                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    free(buf);
    printf("  job     job_id=%-10s topic=%s circuit=%s\n", d.ids[i], topics.names[type], circuit);
  }
  rd_kafka_flush(prod, 10000);
  rd_kafka_destroy(prod);
  cuzk_avro_codec_free(codec);
  printf("[4/5] %d job(s) published\n", d.n);

  /* 5. the agent */
  cuzk_agent_conf_t ac;
  cuzk_agent_conf_init(&ac);
  ac.agent_id = "demo-agent";
  ac.brokers = brokers;
  ac.group_id = "cuzk-demo";
  ac.shutdown_grace_s = 10;
  ac.engine = engine;
  ac.on_result = demo_on_result;
  ac.on_timing = demo_on_timing;
  ac.cb_ctx = &d;
  cuzk_agent_t *agent = cuzk_agent_new(&ac, err, sizeof err);
  if (!agent) {
    fprintf(stderr, "cuzk demo: agent: %s\n", err);
    engine->free(engine);
    goto out_dir;
  }
  d.agent = agent;
  printf("[5/5] agent running (the first consumer-group join takes a few seconds)\n");
  fflush(stdout);
  d.t0 = cuzk_now_us();
  pthread_t th;
  pthread_create(&th, NULL, demo_agent_thread, &d);
  uint64_t end = cuzk_wall_ms() + 600000;
  while (atomic_load(&d.got) < d.want && cuzk_wall_ms() < end) cuzk_sleep_ms(50);
  cuzk_agent_stop(agent);
  pthread_join(th, NULL);
  double wall_s = (double)(cuzk_now_us() - d.t0) / 1e6;
  engine->free(engine);
  cuzk_agent_stats_t st;
  cuzk_agent_stats(agent, &st);
  cuzk_agent_free(agent);

  printf("\nTiming per partition (ms; CPU backend: 'prove' is the backend's prove_start):\n");
  printf("  %-10s %9s %9s %9s %9s %9s %7s\n", "job_id", "queue", "synth", "prove", "finish",
         "total", "pinned");
  for (int i = 0; i < d.n; i++)
    if (d.rows[i].have)
      printf("  %-10s %9.1f %9.1f %9.1f %9.1f %9.1f %7s\n", d.rows[i].id, d.rows[i].queue_ms,
             d.rows[i].synth_ms, d.rows[i].prove_ms, d.rows[i].finish_ms, d.rows[i].total_ms,
             d.rows[i].pinned ? "yes" : "no");
  printf(
      "\n%d of %d job(s) proved and verified in %.1f s (including the group join); "
      "%llu timing and %llu status record(s) published\n",
      d.ok_verified, d.want, wall_s, (unsigned long long)st.timings,
      (unsigned long long)st.statuses);
  rc = d.ok_verified == d.want ? CUZK_EXIT_OK : CUZK_EXIT_FAIL;
out_dir:
  if (keep) {
    printf("parameters kept in %s\n", dir);
  } else {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cuzk demo: could not remove %s\n", dir);
  }
out_cluster:
  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(mrk);
  return rc;
}

const cuzk_cmd_t cuzk_cmd_demo = {"demo", "run end to end on an embedded Kafka (no setup needed)",
                                  demo_run, demo_usage};
