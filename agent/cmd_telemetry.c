/* `cuzk telemetry record|report|tail`: offline and live views of PartitionTiming records. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/cli.h"
#include "agent/kafka/topics.h"
#include "agent/telemetry/telemetry.h"
#include "core/util/clock.h"

static void telemetry_usage(FILE *out) {
  fprintf(
      out,
      "Usage: cuzk telemetry record --out FILE [--brokers B] [--topic T | --prefix P]\n"
      "                             [--max N] [--timeout S]\n"
      "       cuzk telemetry report (--file FILE | [--brokers B] [--topic T | --prefix P])\n"
      "                             [--since WHEN] [--until WHEN] [--resolution MS]\n"
      "                             [--title TEXT] --out report.html\n"
      "       cuzk telemetry tail [--brokers B] [--topic T | --prefix P] [--follow]\n"
      "                           [--max N] [--interval S]\n"
      "\n"
      "Reads PartitionTiming records from <prefix>.telemetry.partitions (default prefix cuzk)\n"
      "from the beginning, without a consumer group.\n"
      "\n"
      "record  copies the topic up to its end (or --max N records, or --timeout S seconds)\n"
      "        into a telemetry file: a first line '" CUZK_TELEMETRY_HEADER
      "', then one\n"
      "        line per record with the base64 of the framed Avro message.\n"
      "report  writes one self-contained HTML file (inline SVG, nothing fetched): summary per\n"
      "        agent/GPU, latency percentiles per proof type, a per-GPU timeline of the\n"
      "        partition phases at --resolution MS (default 200), idle-gap histogram, H2D\n"
      "        bandwidth and pinned-pool use. --since/--until keep records whose finish time\n"
      "        lies in the range; WHEN is a duration before now (90s, 15m, 2h, 1d), an ISO\n"
      "        UTC time (2026-12-02T13:00:00Z) or Unix seconds.\n"
      "tail    prints one line per record (job, type, partition, gpu, phase durations,\n"
      "        pinned) and, every --interval S (default 5), the busy %% of each GPU over the\n"
      "        last interval. Without --follow it stops at the end of the topic; SIGINT stops.\n"
      "\n"
      "  --brokers B   default: $CUZK_KAFKA_BROKERS, else $KAFKA_BROKERS\n"
      "\n"
      "Exit codes: 0 success, 1 failure, 2 usage error.\n");
}

static volatile int cuzk__tel_stop;
static void cuzk__tel_sig(int s) {
  (void)s;
  cuzk__tel_stop = 1;
}

/* Parses WHEN into µs since the epoch; 0 on success. */
static int cuzk__parse_when(const char *s, int64_t *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s) return -1;
  int64_t now = (int64_t)cuzk_wall_ms() * 1000;
  double mul = 0;
  if (strcmp(end, "s") == 0)
    mul = 1;
  else if (strcmp(end, "m") == 0)
    mul = 60;
  else if (strcmp(end, "h") == 0)
    mul = 3600;
  else if (strcmp(end, "d") == 0)
    mul = 86400;
  if (mul > 0) {
    *out = now - (int64_t)(v * mul * 1e6);
    return 0;
  }
  if (*end == 0) {
    *out = (int64_t)(v * 1e6);
    return 0;
  }
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *r = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!r || (*r && strcmp(r, "Z") != 0)) return -1;
  *out = (int64_t)timegm(&tm) * 1000000;
  return 0;
}

typedef struct {
  const char *brokers, *topic, *prefix, *out, *file, *title;
  long max, timeout_s, interval_s, resolution_ms;
  int follow;
  int64_t since, until;
} cuzk__tel_opts_t;

static int cuzk__tel_parse(const char *sub, int argc, char **argv, cuzk__tel_opts_t *o) {
  memset(o, 0, sizeof *o);
  o->brokers = getenv("CUZK_KAFKA_BROKERS");
  if (!o->brokers || !*o->brokers) o->brokers = getenv("KAFKA_BROKERS");
  o->prefix = "cuzk";
  o->interval_s = 5;
  o->resolution_ms = 200;
  o->timeout_s = -1;
  o->since = INT64_MIN;
  o->until = INT64_MAX;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--follow") == 0 || strcmp(a, "-f") == 0) {
      o->follow = 1;
      continue;
    }
    if (i + 1 >= argc) return cuzk_cli_usage_error("telemetry", "%s needs a value", a);
    const char *v = argv[++i];
    char *end = NULL;
    if (strcmp(a, "--brokers") == 0)
      o->brokers = v;
    else if (strcmp(a, "--topic") == 0)
      o->topic = v;
    else if (strcmp(a, "--prefix") == 0)
      o->prefix = v;
    else if (strcmp(a, "--out") == 0)
      o->out = v;
    else if (strcmp(a, "--file") == 0)
      o->file = v;
    else if (strcmp(a, "--title") == 0)
      o->title = v;
    else if (strcmp(a, "--max") == 0 || strcmp(a, "--timeout") == 0 ||
             strcmp(a, "--interval") == 0 || strcmp(a, "--resolution") == 0) {
      long n = strtol(v, &end, 10);
      if (!*v || *end || n <= 0)
        return cuzk_cli_usage_error("telemetry", "%s wants a positive integer, not '%s'", a, v);
      if (a[2] == 'm')
        o->max = n;
      else if (a[2] == 't')
        o->timeout_s = n;
      else if (a[2] == 'i')
        o->interval_s = n;
      else
        o->resolution_ms = n;
    } else if (strcmp(a, "--since") == 0 || strcmp(a, "--until") == 0) {
      if (cuzk__parse_when(v, a[2] == 's' ? &o->since : &o->until) != 0)
        return cuzk_cli_usage_error("telemetry", "%s: cannot parse '%s'", a, v);
    } else
      return cuzk_cli_usage_error("telemetry", "unknown option '%s' for %s", a, sub);
  }
  return 0;
}

static int cuzk__tel_topic(cuzk__tel_opts_t *o, char *buf, size_t n) {
  if (o->topic) return 0;
  char err[256];
  cuzk_topics_t t;
  if (cuzk_topics_init(&t, o->prefix, err, sizeof err) != CUZK_OK)
    return cuzk_cli_usage_error("telemetry", "%s", err);
  snprintf(buf, n, "%s", t.names[CUZK_TOPIC_TELEMETRY_PARTITIONS]);
  o->topic = buf;
  return 0;
}

static cuzk_avro_codec_t *cuzk__tel_codec(void) {
  char err[512];
  cuzk_avro_codec_conf_t cc;
  cuzk_avro_codec_conf_init(&cc);
  cuzk_avro_codec_t *c = cuzk_avro_codec_new(&cc, err, sizeof err);
  if (!c) fprintf(stderr, "cuzk telemetry: %s\n", err);
  return c;
}

static int cuzk__rec_line(void *ctx, const uint8_t *buf, size_t len) {
  return cuzk_telemetry_write_line(ctx, buf, len) != CUZK_OK;
}

typedef struct {
  cuzk_telemetry_set_t *set;
  cuzk_avro_codec_t *codec;
  long bad;
} cuzk__collect_t;

static int cuzk__collect(void *ctx, const uint8_t *buf, size_t len) {
  cuzk__collect_t *c = ctx;
  char err[512];
  if (cuzk_telemetry_set_add_framed(c->set, c->codec, buf, len, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk telemetry: skipping an undecodable record: %s\n", err);
    c->bad++;
  }
  return 0;
}

static int cuzk__tel_record(cuzk__tel_opts_t *o) {
  if (!o->out) return cuzk_cli_usage_error("telemetry", "record needs --out FILE");
  FILE *f = fopen(o->out, "w");
  if (!f) {
    fprintf(stderr, "cuzk telemetry: cannot write %s\n", o->out);
    return CUZK_EXIT_FAIL;
  }
  fprintf(f, "%s\n# topic %s\n", CUZK_TELEMETRY_HEADER, o->topic);
  char err[512];
  long to = o->timeout_s > 0 ? o->timeout_s : 30;
  cuzk_err_t e = cuzk_telemetry_consume(o->brokers, o->topic, 0, o->max, to * 1000, &cuzk__tel_stop,
                                        cuzk__rec_line, NULL, f, err, sizeof err);
  if (fclose(f) != 0 && e == CUZK_OK) e = CUZK_ERR_IO;
  if (e != CUZK_OK && !(e == CUZK_ERR_TIMEOUT && o->timeout_s > 0)) {
    fprintf(stderr, "cuzk telemetry record: %s\n", e == CUZK_ERR_IO ? "write error" : err);
    return CUZK_EXIT_FAIL;
  }
  return CUZK_EXIT_OK;
}

static int cuzk__tel_report(cuzk__tel_opts_t *o) {
  if (!o->out) return cuzk_cli_usage_error("telemetry", "report needs --out FILE");
  cuzk_avro_codec_t *codec = cuzk__tel_codec();
  if (!codec) return CUZK_EXIT_FAIL;
  cuzk_telemetry_set_t set;
  cuzk_telemetry_set_init(&set);
  char err[1024];
  cuzk_err_t e;
  if (o->file) {
    e = cuzk_telemetry_read_file(&set, codec, o->file, err, sizeof err);
  } else {
    cuzk__collect_t c = {&set, codec, 0};
    e = cuzk_telemetry_consume(o->brokers, o->topic, 0, o->max,
                               (o->timeout_s > 0 ? o->timeout_s : 30) * 1000, &cuzk__tel_stop,
                               cuzk__collect, NULL, &c, err, sizeof err);
  }
  int rc = CUZK_EXIT_FAIL;
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk telemetry report: %s\n", err);
    goto out;
  }
  cuzk_telemetry_set_filter(&set, o->since, o->until);
  if (set.n == 0) {
    fprintf(stderr, "cuzk telemetry report: no records%s\n",
            o->since != INT64_MIN || o->until != INT64_MAX ? " in the time range" : "");
    goto out;
  }
  FILE *f = fopen(o->out, "w");
  if (!f) {
    fprintf(stderr, "cuzk telemetry report: cannot write %s\n", o->out);
    goto out;
  }
  cuzk_telemetry_report_opts_t ro = {(int64_t)o->resolution_ms * 1000, o->title};
  e = cuzk_telemetry_report_html(f, &set, &ro, err, sizeof err);
  if (fclose(f) != 0 && e == CUZK_OK) {
    e = CUZK_ERR_IO;
    snprintf(err, sizeof err, "write error");
  }
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk telemetry report: %s\n", err);
    goto out;
  }
  fprintf(stderr, "cuzk telemetry report: %zu records -> %s\n", set.n, o->out);
  rc = CUZK_EXIT_OK;
out:
  cuzk_telemetry_set_clear(&set);
  cuzk_avro_codec_free(codec);
  return rc;
}

/* tail: the records of the current interval, summarised per GPU at each interval's end. */
typedef struct {
  cuzk_avro_codec_t *codec;
  cuzk_telemetry_set_t window;
  long interval_s;
  uint64_t last_ms;
} cuzk__tail_t;

static void cuzk__tail_summary(cuzk__tail_t *t) {
  if (t->window.n == 0) return;
  cuzk_telemetry_stats_t st;
  if (cuzk_telemetry_stats(&st, &t->window) == CUZK_OK) {
    printf("-- busy over %.1f s:", (double)(st.t1_us - st.t0_us) / 1e6);
    for (size_t i = 0; i < st.n_gpus; i++)
      printf(" %s/%d=%.1f%%", st.gpus[i].agent_id, (int)st.gpus[i].gpu,
             st.t1_us > st.t0_us
                 ? 100.0 * (double)st.gpus[i].busy_us / (double)(st.t1_us - st.t0_us)
                 : 0.0);
    printf("\n");
    fflush(stdout);
  }
  cuzk_telemetry_stats_free(&st);
  cuzk_telemetry_set_clear(&t->window);
}

static void cuzk__tail_tick(void *ctx) {
  cuzk__tail_t *t = ctx;
  if (cuzk_wall_ms() - t->last_ms < (uint64_t)t->interval_s * 1000) return;
  t->last_ms = cuzk_wall_ms();
  cuzk__tail_summary(t);
}

static int cuzk__tail_msg(void *ctx, const uint8_t *buf, size_t len) {
  static const char *const types[] = {"winning-post", "window-post", "snap-deals", "porep-c2"};
  cuzk__tail_t *t = ctx;
  char err[512];
  if (cuzk_telemetry_set_add_framed(&t->window, t->codec, buf, len, err, sizeof err) != CUZK_OK) {
    printf("undecodable record: %s\n", err);
    return 0;
  }
  const cuzk_partition_timing_t *r = &t->window.recs[t->window.n - 1];
  /* job ids are untrusted: print them with control bytes replaced */
  char job[160];
  size_t k = 0;
  for (const char *p = r->job_id; *p && k + 1 < sizeof job; p++)
    job[k++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
  job[k] = 0;
  printf(
      "job=%s type=%s partition=%d agent=%s gpu=%d queued_ms=%.1f synth_ms=%.1f "
      "gpu_wait_ms=%.1f gpu_ms=%.1f finish_ms=%.1f total_ms=%.1f pinned=%s\n",
      job, r->proof_type < 4 ? types[r->proof_type] : "?", (int)r->partition, r->agent_id,
      (int)r->gpu, (r->synth_start_us - r->enqueued_us) / 1e3,
      (r->synth_end_us - r->synth_start_us) / 1e3, (r->gpu_start_us - r->synth_end_us) / 1e3,
      (r->gpu_end_us - r->gpu_start_us) / 1e3, (r->finish_end_us - r->gpu_end_us) / 1e3,
      (r->finish_end_us - r->enqueued_us) / 1e3, r->is_pinned ? "yes" : "no");
  fflush(stdout);
  return 0;
}

static int cuzk__tel_tail(cuzk__tel_opts_t *o) {
  cuzk__tail_t t = {cuzk__tel_codec(), {0}, o->interval_s, cuzk_wall_ms()};
  if (!t.codec) return CUZK_EXIT_FAIL;
  cuzk_telemetry_set_init(&t.window);
  char err[512];
  long to = o->timeout_s > 0 ? o->timeout_s * 1000 : (o->follow ? 0 : 30000);
  cuzk_err_t e =
      cuzk_telemetry_consume(o->brokers, o->topic, o->follow, o->max, to, &cuzk__tel_stop,
                             cuzk__tail_msg, cuzk__tail_tick, &t, err, sizeof err);
  cuzk__tail_summary(&t);
  cuzk_telemetry_set_clear(&t.window);
  cuzk_avro_codec_free(t.codec);
  if (e != CUZK_OK && !(e == CUZK_ERR_TIMEOUT && o->timeout_s > 0)) {
    fprintf(stderr, "cuzk telemetry tail: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  return CUZK_EXIT_OK;
}

static int telemetry_run(int argc, char **argv) {
  if (argc < 2)
    return cuzk_cli_usage_error("telemetry", "missing subcommand (record, report, tail)");
  const char *sub = argv[1];
  if (strcmp(sub, "record") && strcmp(sub, "report") && strcmp(sub, "tail"))
    return cuzk_cli_usage_error("telemetry", "unknown subcommand '%s'", sub);
  if (cuzk_cli_wants_help(argc - 1, argv + 1)) {
    telemetry_usage(stdout);
    return CUZK_EXIT_OK;
  }
  cuzk__tel_opts_t o;
  int rc = cuzk__tel_parse(sub, argc, argv, &o);
  if (rc) return rc;
  char topic[512];
  if ((rc = cuzk__tel_topic(&o, topic, sizeof topic))) return rc;
  int need_brokers = strcmp(sub, "report") != 0 || !o.file;
  if (need_brokers && (!o.brokers || !*o.brokers))
    return cuzk_cli_usage_error("telemetry", "no brokers: use --brokers or $KAFKA_BROKERS");
  signal(SIGINT, cuzk__tel_sig);
  signal(SIGTERM, cuzk__tel_sig);
  if (strcmp(sub, "record") == 0) return cuzk__tel_record(&o);
  if (strcmp(sub, "report") == 0) return cuzk__tel_report(&o);
  return cuzk__tel_tail(&o);
}

const cuzk_cmd_t cuzk_cmd_telemetry = {"telemetry", "telemetry record, HTML report and live tail",
                                       telemetry_run, telemetry_usage};
