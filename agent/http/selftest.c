/* `cuzk metrics-selftest` (hidden): serves the agent's metric families with a fixed pattern so
 * that a real Prometheus can scrape them (tests/integration/prometheus_scrape.sh). */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/http/families.h"
#include "agent/http/server.h"
#include "core/util/clock.h"
#include "core/util/file.h"

static volatile sig_atomic_t cuzk__selftest_stop;

static void cuzk__selftest_on_signal(int sig) {
  (void)sig;
  cuzk__selftest_stop = 1;
}

typedef struct {
  _Atomic uint64_t last_tick_ns;
  _Atomic uint64_t ticks;
} cuzk__selftest_t;

static double cuzk__selftest_age(void *ctx) {
  cuzk__selftest_t *s = ctx;
  return (double)(cuzk_now_ns() - atomic_load(&s->last_tick_ns)) / 1e9;
}

static char *cuzk__selftest_status(void *ctx) {
  cuzk__selftest_t *s = ctx;
  char *out = malloc(96);
  if (out)
    snprintf(out, 96, "{\"selftest\":true,\"ticks\":%llu}",
             (unsigned long long)atomic_load(&s->ticks));
  return out;
}

static void cuzk__selftest_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk metrics-selftest --listen HOST:PORT [--seconds N] [--kafka-stats FILE]\n"
          "\n"
          "Serves the agent's metric families with a fixed test pattern on /metrics, /healthz,\n"
          "/readyz and /status for N seconds (default 30; 0 = until SIGTERM). FILE is a\n"
          "librdkafka statistics JSON document whose consumer lag is exported.\n");
}

/* Fixed values; tests/integration/prometheus_scrape.sh queries them. */
static int cuzk__selftest_fill(cuzk_families_t *f, const char *stats_file) {
  cuzk_metrics_add(cuzk_metrics_with(f->jobs_total, (const char *[]){"porep-c2", "ok"}), 42);
  cuzk_metrics_add(cuzk_metrics_with(f->jobs_total, (const char *[]){"window-post", "failed"}), 3);
  cuzk_metrics_set(cuzk_metrics_with(f->jobs_queued, (const char *[]){"porep-c2"}), 5);
  cuzk_metrics_set(cuzk_metrics_with(f->jobs_in_flight, (const char *[]){"porep-c2"}), 2);
  cuzk_metrics_add(
      cuzk_metrics_with(f->dead_letters_total, (const char *[]){"porep-c2", "bad \"frame\" \\ x"}),
      2);
  cuzk_metrics_set(cuzk_metrics_with(f->gpu_busy_ratio, (const char *[]){"0"}), 0.75);
  cuzk_metrics_add(cuzk_metrics_with(f->h2d_bytes_total, (const char *[]){"0"}), 3221225472.0);
  cuzk_metrics_add(cuzk_metrics_with(f->pool_hits_total, NULL), 10);
  cuzk_metrics_add(cuzk_metrics_with(f->pool_misses_total, NULL), 1);
  cuzk_metrics_add(cuzk_metrics_with(f->pool_fallbacks_total, NULL), 0);
  cuzk_metrics_set(cuzk_metrics_with(f->pool_bytes, (const char *[]){"allocated"}), 8589934592.0);
  cuzk_metrics_set(cuzk_metrics_with(f->budget_total_bytes, NULL), 103079215104.0); /* 96 GiB */
  cuzk_metrics_set(cuzk_metrics_with(f->budget_used_bytes, NULL), 25769803776.0);   /* 24 GiB */
  cuzk_metrics_add(cuzk_metrics_with(f->budget_waits_total, NULL), 0);
  cuzk_metrics_set(
      cuzk_metrics_with(f->srs_resident_bytes, (const char *[]){"porep-32g", "device"}), 1e9);
  cuzk_metrics_set(cuzk_metrics_with(f->kafka_partitions_assigned, NULL), 3);
  cuzk_metrics_set(cuzk_metrics_with(f->kafka_broker_up, NULL), 1);
  cuzk_metric_t *h =
      cuzk_metrics_with(f->phase_seconds, (const char *[]){"porep-c2", CUZK_PHASE_GPU});
  cuzk_metrics_observe(h, 1.5);
  cuzk_metrics_observe(h, 3);
  cuzk_metrics_observe(h, 30);
  if (stats_file) {
    uint8_t *buf = NULL;
    size_t len = 0;
    char why[256] = "";
    cuzk_err_t err = cuzk_file_read(stats_file, (size_t)16 << 20, &buf, &len, why, sizeof why);
    if (err == CUZK_OK) err = cuzk_families_apply_kafka_stats(f, (const char *)buf, len);
    free(buf);
    if (err != CUZK_OK) {
      fprintf(stderr, "cuzk metrics-selftest: %s: %s\n", stats_file,
              why[0] ? why : cuzk_err_str(err));
      return -1;
    }
  }
  return 0;
}

static int cuzk__selftest_run(int argc, char **argv) {
  const char *listen = NULL, *stats = NULL;
  long seconds = 30;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
      listen = argv[++i];
    } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      char *end;
      seconds = strtol(argv[++i], &end, 10);
      if (*end || seconds < 0 || seconds > 86400)
        return cuzk_cli_usage_error("metrics-selftest", "bad --seconds '%s'", argv[i]);
    } else if (strcmp(argv[i], "--kafka-stats") == 0 && i + 1 < argc) {
      stats = argv[++i];
    } else {
      return cuzk_cli_usage_error("metrics-selftest", "unknown option '%s'", argv[i]);
    }
  }
  if (!listen) return cuzk_cli_usage_error("metrics-selftest", "--listen HOST:PORT is required");

  cuzk_metrics_t *reg = cuzk_metrics_new();
  cuzk_families_t fam;
  if (!reg || cuzk_families_init(&fam, reg, "selftest") != CUZK_OK) {
    fprintf(stderr, "cuzk metrics-selftest: cannot register the metric families\n");
    cuzk_metrics_free(reg);
    return CUZK_EXIT_FAIL;
  }
  if (cuzk__selftest_fill(&fam, stats) != 0) {
    cuzk_metrics_free(reg);
    return CUZK_EXIT_FAIL;
  }
  cuzk__selftest_t st;
  atomic_init(&st.last_tick_ns, cuzk_now_ns());
  atomic_init(&st.ticks, 0);
  cuzk_http_callbacks_t cb = {
      .ctx = &st,
      .metrics = reg,
      .liveness_max_s = 5,
      .tick_age_s = cuzk__selftest_age,
      .status_json = cuzk__selftest_status,
  };
  char err[256];
  cuzk_http_t *http = cuzk_http_new(listen, &cb, err, sizeof err);
  if (!http) {
    fprintf(stderr, "cuzk metrics-selftest: %s\n", err);
    cuzk_metrics_free(reg);
    return CUZK_EXIT_FAIL;
  }
  signal(SIGTERM, cuzk__selftest_on_signal);
  signal(SIGINT, cuzk__selftest_on_signal);
  printf("listening on port %u\n", cuzk_http_port(http));
  fflush(stdout);
  cuzk_metric_t *parts =
      cuzk_metrics_with(fam.partitions_total, (const char *[]){"porep-c2", "ok"});
  uint64_t end = cuzk_now_ns() + (uint64_t)seconds * 1000000000ULL;
  while (!cuzk__selftest_stop && (seconds == 0 || cuzk_now_ns() < end)) {
    cuzk_sleep_ms(100);
    cuzk_metrics_inc(parts);
    atomic_fetch_add(&st.ticks, 1);
    atomic_store(&st.last_tick_ns, cuzk_now_ns());
  }
  cuzk_http_free(http);
  cuzk_metrics_free(reg);
  return CUZK_EXIT_OK;
}

const cuzk_cmd_t cuzk_cmd_metrics_selftest = {
    .name = "metrics-selftest",
    .summary = "serve the metric families with a test pattern (hidden, for tests)",
    .run = cuzk__selftest_run,
    .usage = cuzk__selftest_usage,
};
