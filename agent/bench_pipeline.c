/* `cuzk bench pipeline`: the whole engine (dispatcher, pinned pool, synthesis, backend, finalizer
 * with verification) on J jobs of P partitions of the synthetic circuit, submitted at once.
 * Parameters come from an insecure test setup written to a temporary params_dir (or --params
 * DIR, as `cuzk setup` writes them). Results are labelled synthetic. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/backend_select.h"
#include "agent/bench.h"
#include "agent/cli.h"
#include "agent/groth16_cli.h"
#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/groth16/circuits.h"
#include "core/groth16/setup.h"
#include "core/util/clock.h"
#include "core/util/log.h"
#include "core/util/pool.h"

static void bench_pipeline_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk bench pipeline [--backend cpu|gpu] [--type synthetic] [--log-n N] [--jobs J]\n"
          "                           [--partitions P] [--params DIR] [--budget-mib M]\n"
          "                           [--gpu-workers K] [--synth-workers S] [--no-prewarm]\n"
          "                           [--no-verify] [--timeline FILE] [--json]\n"
          "\n"
          "Runs J jobs (default 4) of P partitions (default 1) of the synthetic circuit with domain\n"
          "2^N (default 12) through the engine, all submitted at once, and prints: proofs and\n"
          "partitions per minute, per-partition phase times (p50/p99), gpu_busy_ratio (backend\n"
          "kernel time over the run's wall time), idle gaps between kernels (p50, p99, max), H2D GB/s\n"
          "(0 on the CPU backend), pinned pool hits/misses/fallbacks and peak RSS.\n"
          "--backend gpu runs the engine on the CUDA backend (every device; timings from the backend).\n"
          "Without --params, an insecure test setup is written to a temporary directory first;\n"
          "with --params DIR, a params file for the shape already in DIR is reused, else one is\n"
          "written there and recorded in DIR/parameters.json.\n"
          "The pool is pre-warmed for the shape unless --no-prewarm. --timeline FILE appends the\n"
          "engine's TIMELINE events (phase start/end per partition). Results are labelled synthetic.\n");
}

#define BP_MAXT 100000u

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned done, failed;
  cuzk_partition_timing_t *t;
  unsigned nt;
  char first_error[256];
} bp_state_t;

static void bp_done(void *user, const cuzk_job_result_t *r) {
  bp_state_t *s = user;
  pthread_mutex_lock(&s->mu);
  s->done++;
  if (r->status != CUZK_OK) {
    if (!s->failed)
      snprintf(s->first_error, sizeof s->first_error, "%s: %s", cuzk_err_name(r->status),
               r->message ? r->message : "");
    s->failed++;
  }
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static void bp_timing(void *ctx, const cuzk_partition_timing_t *t) {
  bp_state_t *s = ctx;
  pthread_mutex_lock(&s->mu);
  if (s->nt < BP_MAXT) s->t[s->nt++] = *t;
  pthread_mutex_unlock(&s->mu);
}

static int bp_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of v[0..n) (sorted in place); 0 for n = 0. */
static uint64_t bp_pct(uint64_t *v, size_t n, double p) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, bp_cmp_u64);
  size_t k = (size_t)(p / 100.0 * (double)n + 0.999999);
  if (k < 1) k = 1;
  if (k > n) k = n;
  return v[k - 1];
}

typedef struct {
  const char *name;
  uint64_t p50, p99;
} bp_phase_t;

typedef struct {
  uint64_t a, b;
} bp_span_t;

static int bp_cmp_span(const void *x, const void *y) {
  const bp_span_t *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a;
}

static int bp_rm_rf(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd);
}

static int bench_pipeline_run(int argc, char **argv) {
  uint64_t log_n = 12, jobs = 4, parts = 1, budget_mib = 0, gpu_workers = 2, synth_workers = 0;
  bool json = false, prewarm = true, verify = true, on_gpu = false;
  const char *params_dir = NULL, *timeline = NULL, *v;
  for (int i = 1; i < argc; i++) {
    int m;
    if ((m = cuzk_g16_opt(argc, argv, &i, "--backend", &v)) != 0) {
      if (m < 0 || (strcmp(v, "cpu") != 0 && strcmp(v, "gpu") != 0 && strcmp(v, "cuda") != 0))
        return cuzk_cli_usage_error("bench pipeline", "--backend must be cpu or gpu");
      on_gpu = strcmp(v, "cpu") != 0;
      if (on_gpu && !cuzk_cuda_built())
        return cuzk_cli_usage_error("bench pipeline", "--backend gpu: this build has no CUDA backend (%s)",
                                    cuzk_err_name(CUZK_ERR_UNSUPPORTED));
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--type", &v)) != 0) {
      if (m < 0 || strcmp(v, "synthetic") != 0)
        return cuzk_cli_usage_error("bench pipeline", "--type: only 'synthetic' for now");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--log-n", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 4, 28, &log_n))
        return cuzk_cli_usage_error("bench pipeline", "--log-n needs an integer in 4..28");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--jobs", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 1, 4096, &jobs))
        return cuzk_cli_usage_error("bench pipeline", "--jobs needs an integer in 1..4096");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--partitions", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 1, 64, &parts))
        return cuzk_cli_usage_error("bench pipeline", "--partitions needs an integer in 1..64");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--budget-mib", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 1, 1u << 30, &budget_mib))
        return cuzk_cli_usage_error("bench pipeline", "--budget-mib needs a positive integer");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--gpu-workers", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 1, 16, &gpu_workers))
        return cuzk_cli_usage_error("bench pipeline", "--gpu-workers needs an integer in 1..16");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--synth-workers", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 1, 256, &synth_workers))
        return cuzk_cli_usage_error("bench pipeline", "--synth-workers needs an integer in 1..256");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--params", &v)) != 0) {
      if (m < 0) return cuzk_cli_usage_error("bench pipeline", "--params needs a directory");
      params_dir = v;
    } else if (strcmp(argv[i], "--no-prewarm") == 0) {
      prewarm = false;
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--timeline", &v)) != 0) {
      if (m < 0) return cuzk_cli_usage_error("bench pipeline", "--timeline needs a file");
      timeline = v;
    } else if (strcmp(argv[i], "--no-verify") == 0) {
      verify = false;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      return cuzk_cli_usage_error("bench pipeline", "unknown option '%s'", argv[i]);
    }
  }

  char err[512] = "", tmpdir[64] = "", circuit[32];
  int rc = CUZK_EXIT_FAIL;
  cuzk_backend_t *be = NULL;
  cuzk_engine_t *e = NULL;
  bp_state_t st = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
  uint64_t *v1 = NULL;
  st.t = calloc(BP_MAXT, sizeof *st.t);
  if (!st.t) {
    snprintf(err, sizeof err, "no memory");
    goto fail;
  }
  snprintf(circuit, sizeof circuit, "synthetic-%u", (unsigned)log_n);
  const cuzk_circuit_t *c = cuzk_circuit_find("synthetic");
  cuzk_circuit_opts_t o = c->defaults;
  o.log_n = (unsigned)log_n;
  uint64_t t_setup = 0;
  if (!params_dir) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cuzk-bench-pipeline-XXXXXX");
    if (!mkdtemp(tmpdir)) {
      snprintf(err, sizeof err, "cannot create a temporary directory");
      tmpdir[0] = '\0';
      goto fail;
    }
    params_dir = tmpdir;
  }
  {
    /* A params file already in the directory is reused. A new one is recorded in the directory's
     * parameters.json, so the engine loads it without subgroup checks (the trust rule in
     * core/groth16/groth16.h). */
    char stem[200], path[1200], json[1200], digest[33];
    struct stat sb;
    cuzk_circuit_file_stem(stem, sizeof stem, c, &o);
    snprintf(path, sizeof path, "%s/%s.params", params_dir, stem);
    snprintf(json, sizeof json, "%s/parameters.json", params_dir);
    if (stat(path, &sb) != 0) {
      (void)mkdir(params_dir, 0777);
      uint64_t t0 = cuzk_now_us();
      cuzk_r1cs_t *r = NULL;
      cuzk_groth16_params_t *p = NULL;
      cuzk_groth16_toxic_t tw;
      cuzk_groth16_toxic_from_seed(&tw, 1);
      cuzk_err_t ce = cuzk_circuit_record(&r, c, &o, err, sizeof err);
      if (ce == CUZK_OK) ce = cuzk_groth16_setup(&p, r, &tw, err, sizeof err);
      if (ce == CUZK_OK) ce = cuzk_groth16_params_save_digest(p, path, digest, err, sizeof err);
      if (ce == CUZK_OK) ce = cuzk_groth16_digest_record(json, path, digest, err, sizeof err);
      cuzk_groth16_params_free(p);
      cuzk_r1cs_free(r);
      if (ce != CUZK_OK) goto fail;
      t_setup = cuzk_now_us() - t0;
    }
  }

  be = cuzk_agent_backend_new(on_gpu ? "cuda" : "cpu", NULL, err, sizeof err);
  if (!be) goto fail;
  uint64_t n = 1ull << log_n;
  /* By default the budget admits one partition per worker plus one: the SRS (its file size) plus,
   * per partition, a/b/c (3·n·32 bytes) and the witness (about n·32 bytes). The pool is
   * pre-warmed for that many partitions. */
  unsigned nsynth = synth_workers ? (unsigned)synth_workers : 1;
  unsigned sets = nsynth + (unsigned)gpu_workers + 1;
  uint64_t per_part = 3 * n * 32 + n * 32 + 4096;
  uint64_t srs_bytes = n * 1024;
  {
    char stem[200], path[700];
    struct stat sb;
    cuzk_circuit_file_stem(stem, sizeof stem, c, &o);
    snprintf(path, sizeof path, "%s/%s.params", params_dir, stem);
    if (stat(path, &sb) == 0) srs_bytes = (uint64_t)sb.st_size; /* what the SRS manager reserves */
  }
  uint64_t budget = budget_mib ? budget_mib << 20 : srs_bytes + sets * per_part + 4096;
  cuzk_engine_config_t cfg;
  cuzk_engine_config_init(&cfg);
  cfg.memory_budget = budget;
  cfg.params_dir = params_dir;
  cfg.allow_insecure_params = true;
  cfg.synthesis_workers = (unsigned)synth_workers;
  cfg.gpu_workers_per_device = (unsigned)gpu_workers;
  cfg.verify = verify ? CUZK_VERIFY_ALWAYS : CUZK_VERIFY_NEVER;
  cfg.timeline_file = timeline; /* TIMELINE events for offline analysis (engine.h) */
  cfg.prewarm_pace_ms = 1;
  cfg.on_timing = bp_timing;
  cfg.on_timing_ctx = &st;
  e = cuzk_engine_new(&cfg, be, err, sizeof err);
  if (!e) goto fail;
  uint64_t t0 = cuzk_now_us();
  if (cuzk_engine_prewarm(e, circuit, prewarm ? sets : 0, true, err, sizeof err) != CUZK_OK) goto fail;
  uint64_t t_load = cuzk_now_us() - t0;

  uint64_t wall0 = 0;
  {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    wall0 = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
  }
  t0 = cuzk_now_us();
  for (uint64_t k = 0; k < jobs; k++) {
    char id[32];
    snprintf(id, sizeof id, "bench-%" PRIu64, k);
    cuzk_job_t j = {.job_id = id, .type = CUZK_PROOF_SYNTHETIC, .circuit = circuit, .priority = -1,
                    .partitions = (uint32_t)parts};
    if (cuzk_engine_submit(e, &j, bp_done, &st, NULL, err, sizeof err) != CUZK_OK) goto fail;
  }
  pthread_mutex_lock(&st.mu);
  while (st.done < jobs) pthread_cond_wait(&st.cv, &st.mu);
  pthread_mutex_unlock(&st.mu);
  uint64_t wall_us = cuzk_now_us() - t0;
  if (st.failed) {
    snprintf(err, sizeof err, "%u of %" PRIu64 " jobs failed, first: %s", st.failed, jobs, st.first_error);
    goto fail;
  }
  cuzk_engine_status_t es;
  cuzk_engine_status(e, &es);

  /* Per-partition phases. */
  size_t nt = st.nt;
  v1 = calloc(nt ? nt : 1, sizeof *v1);
  if (!v1) goto fail;
  bp_phase_t ph[12];
  size_t nph = 0;
#define BP_PHASE(label, expr)                                                                          \
  do {                                                                                                \
    for (size_t i = 0; i < nt; i++) {                                                                 \
      const cuzk_partition_timing_t *t = &st.t[i];                                                    \
      v1[i] = (expr);                                                                                 \
    }                                                                                                 \
    ph[nph].name = label;                                                                             \
    ph[nph].p50 = bp_pct(v1, nt, 50);                                                                 \
    ph[nph].p99 = bp_pct(v1, nt, 99);                                                                 \
    nph++;                                                                                            \
  } while (0)
  BP_PHASE("queue_wait", t->budget_granted - t->enqueued);
  BP_PHASE("synth", t->synth_end - t->synth_start);
  BP_PHASE("gpu_wait", t->gpu_start - t->gpu_queued);
  BP_PHASE("gpu", t->gpu_end - t->gpu_start);
  BP_PHASE("ntt", t->ntt_us);
  BP_PHASE("msm_h", t->msm_h_us);
  BP_PHASE("msm_l", t->msm_l_us);
  BP_PHASE("msm_a", t->msm_a_us);
  BP_PHASE("msm_b_g1", t->msm_b_g1_us);
  BP_PHASE("msm_b_g2", t->msm_b_g2_us);
  BP_PHASE("finish", t->finish_end - t->gpu_end);
  BP_PHASE("total", t->finish_end - t->enqueued);
#undef BP_PHASE

  /* Device busy and idle gaps: kernel intervals in start order (one device on the CPU). */
  uint64_t kernel_us = 0, h2d_bytes = 0, h2d_us = 0;
  bp_span_t *sp = calloc(nt ? nt : 1, sizeof *sp);
  uint64_t *gaps = calloc(nt ? nt : 1, sizeof *gaps);
  if (!sp || !gaps) {
    free(sp), free(gaps);
    snprintf(err, sizeof err, "no memory");
    goto fail;
  }
  for (size_t i = 0; i < nt; i++) {
    kernel_us += st.t[i].kernel_us;
    h2d_bytes += st.t[i].h2d_bytes;
    h2d_us += st.t[i].h2d_us;
    sp[i] = (bp_span_t){st.t[i].gpu_start, st.t[i].gpu_end};
  }
  qsort(sp, nt, sizeof *sp, bp_cmp_span);
  size_t ngaps = 0;
  uint64_t gap_max = 0, lead_us = nt && sp[0].a > wall0 ? sp[0].a - wall0 : 0;
  uint64_t busy_until = nt ? sp[0].b : 0;
  for (size_t i = 1; i < nt; i++) {
    uint64_t g = sp[i].a > busy_until ? sp[i].a - busy_until : 0;
    gaps[ngaps++] = g;
    if (g > gap_max) gap_max = g;
    if (sp[i].b > busy_until) busy_until = sp[i].b;
  }
  free(sp);
  uint64_t gap_p50 = bp_pct(gaps, ngaps, 50), gap_p99 = bp_pct(gaps, ngaps, 99);
  free(gaps);
  double busy = wall_us ? (double)kernel_us / (double)wall_us : 0.0;
  double h2d_gbs = h2d_us ? (double)h2d_bytes / (double)h2d_us / 1e3 : 0.0;
  double proofs_min = wall_us ? (double)jobs * 60e6 / (double)wall_us : 0.0;
  double parts_min = wall_us ? (double)(jobs * parts) * 60e6 / (double)wall_us : 0.0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  uint64_t rss_kib = (uint64_t)ru.ru_maxrss;
  unsigned threads = cuzk_pool_global() ? cuzk_pool_size(cuzk_pool_global()) : 1;

  if (json) {
    printf("{\"bench\":\"pipeline\",\"backend\":\"%s\",\"type\":\"synthetic\",\"synthetic\":true,\"log_n\":%u,"
           "\"jobs\":%" PRIu64 ",\"partitions\":%" PRIu64 ",\"threads\":%u,\"gpu_workers\":%" PRIu64
           ",\"budget_bytes\":%" PRIu64 ",\"setup_ms\":%.1f,\"load_ms\":%.1f,\"wall_ms\":%.1f,"
           "\"proofs_per_min\":%.2f,\"partitions_per_min\":%.2f,\"gpu_busy_ratio\":%.4f,"
           "\"idle_gap_p50_ms\":%.3f,\"idle_gap_p99_ms\":%.3f,\"idle_gap_max_ms\":%.3f,\"lead_in_ms\":%.3f,"
           "\"h2d_gb_per_s\":%.3f,\"pinned_hits\":%" PRIu64 ",\"pinned_misses\":%" PRIu64
           ",\"pinned_fallbacks\":%" PRIu64 ",\"budget_peak_bytes\":%" PRIu64 ",\"peak_rss_kib\":%" PRIu64
           ",\"verified\":%s",
           be->name, (unsigned)log_n, jobs, parts, threads, gpu_workers, budget, t_setup / 1e3, t_load / 1e3, wall_us / 1e3,
           proofs_min, parts_min, busy, gap_p50 / 1e3, gap_p99 / 1e3, gap_max / 1e3, lead_us / 1e3, h2d_gbs,
           es.pool.hits, es.pool.misses, es.pool.fallbacks, es.budget.peak, rss_kib, verify ? "true" : "false");
    for (size_t i = 0; i < nph; i++)
      printf(",\"%s_p50_ms\":%.3f,\"%s_p99_ms\":%.3f", ph[i].name, ph[i].p50 / 1e3, ph[i].name, ph[i].p99 / 1e3);
    printf("}\n");
  } else {
    printf("pipeline, %s backend, synthetic 2^%u, %" PRIu64 " jobs x %" PRIu64
           " partitions, %u threads, %" PRIu64 " gpu workers%s\n",
           be->name, (unsigned)log_n, jobs, parts, threads, gpu_workers, verify ? ", every proof verified" : "");
    if (t_setup) printf("  (insecure setup %.1f ms, load %.1f ms: not part of the run)\n", t_setup / 1e3, t_load / 1e3);
    printf("  wall              %10.1f ms\n", wall_us / 1e3);
    printf("  proofs/min        %10.2f   (partitions/min %.2f)\n", proofs_min, parts_min);
    printf("  gpu_busy_ratio    %10.3f\n", busy);
    printf("  idle gaps         p50 %.3f ms, p99 %.3f ms, max %.3f ms (lead-in %.3f ms)\n", gap_p50 / 1e3,
           gap_p99 / 1e3, gap_max / 1e3, lead_us / 1e3);
    printf("  h2d               %10.3f GB/s\n", h2d_gbs);
    printf("  pinned pool       hits %" PRIu64 ", misses %" PRIu64 ", fallbacks %" PRIu64 "\n", es.pool.hits,
           es.pool.misses, es.pool.fallbacks);
    printf("  budget            peak %.1f MiB of %.1f MiB\n", es.budget.peak / 1048576.0, budget / 1048576.0);
    printf("  peak RSS          %10.1f MiB\n", rss_kib / 1024.0);
    printf("  per partition (ms)      p50        p99\n");
    for (size_t i = 0; i < nph; i++) printf("    %-12s %10.3f %10.3f\n", ph[i].name, ph[i].p50 / 1e3, ph[i].p99 / 1e3);
  }
  rc = CUZK_EXIT_OK;
  goto done;
fail:
  fprintf(stderr, "cuzk bench pipeline: %s\n", err);
done:
  cuzk_engine_free(e);
  cuzk_backend_free(be);
  free(st.t);
  free(v1);
  if (tmpdir[0]) bp_rm_rf(tmpdir);
  return rc;
}

const cuzk_bench_t cuzk_bench_pipeline = {"pipeline", "the proving engine end to end (jobs, pool, backend, verify)",
                                          bench_pipeline_run, bench_pipeline_usage};
