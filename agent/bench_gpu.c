/* `cuzk bench ntt` and `cuzk bench msm`: GPU kernel timings (see agent/bench.h).
 *
 * Each size: warm-up runs, then the median of --runs timed runs, wall clock around the
 * synchronous C ABI call. "device" times have inputs already on the device; "pinned" and
 * "pageable" include copying inputs from (and for NTT results back to) page-locked or
 * ordinary host memory. MSM bases are device-resident in every case (the SRS). */
#include "agent/bench.h"
#include "agent/cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CUZK_HAVE_CUDA
#include "core/ec/g1.h"
#include "core/ec/g2.h"
#include "core/ff/fr.h"
#include "cuda/cuzk_gpu.h"
#endif

typedef struct {
  int lo, hi, runs, warmup, json, window, distinct;
  const char *curve;
  const char *witness;
} cuzk__gbench_opts_t;

static int cuzk__gbench_parse(const char *cmd, int argc, char **argv, cuzk__gbench_opts_t *o, int lo_max) {
  o->lo = 20;
  o->hi = 20;
  o->runs = 5;
  o->warmup = 1;
  o->json = 0;
  o->window = 0;
  o->distinct = 16;
  o->curve = "g1";
  o->witness = "random";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--log-n") == 0 && v) {
      char *end = NULL;
      o->lo = (int)strtol(v, &end, 10);
      o->hi = o->lo;
      if (end && end[0] == '.' && end[1] == '.') o->hi = (int)strtol(end + 2, &end, 10);
      if (!end || *end) return cuzk_cli_usage_error(cmd, "--log-n takes A or A..B, got '%s'", v);
      i++;
    } else if (strcmp(a, "--runs") == 0 && v) {
      o->runs = atoi(v);
      i++;
    } else if (strcmp(a, "--warmup") == 0 && v) {
      o->warmup = atoi(v);
      i++;
    } else if (strcmp(a, "--window") == 0 && v) {
      o->window = atoi(v);
      i++;
    } else if (strcmp(a, "--distinct-bases") == 0 && v) {
      o->distinct = atoi(v);
      i++;
    } else if (strcmp(a, "--curve") == 0 && v) {
      o->curve = v;
      i++;
    } else if (strcmp(a, "--witness") == 0 && v) {
      o->witness = v;
      i++;
    } else {
      return cuzk_cli_usage_error(cmd, "unknown option '%s'", a);
    }
  }
  if (o->lo < 1 || o->hi < o->lo || o->hi > lo_max)
    return cuzk_cli_usage_error(cmd, "--log-n range must lie in 1..%d", lo_max);
  if (o->runs < 1 || o->runs > 1000 || o->warmup < 0) return cuzk_cli_usage_error(cmd, "bad --runs/--warmup");
  if (o->distinct < 1 || o->distinct > 24) return cuzk_cli_usage_error(cmd, "--distinct-bases is a log2 in 1..24");
  return CUZK_EXIT_OK;
}

#ifdef CUZK_HAVE_CUDA

static double cuzk__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cuzk__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double cuzk__median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cuzk__cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Random Fr-sized values below 2^254 < r: valid canonical scalars and valid Montgomery forms. */
static void cuzk__fill_fr(uint64_t *v, size_t n, uint64_t seed) {
  uint64_t s = seed;
  for (size_t i = 0; i < 4 * n; i++) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    v[i] = z ^ (z >> 31);
    if (i % 4 == 3) v[i] &= 0x3fffffffffffffffull;
  }
}

static int cuzk__gpu_fail(const char *what, cuzk_gpu_status_t s) {
  fprintf(stderr, "cuzk bench: %s: %s\n", what, s.message);
  return CUZK_EXIT_FAIL;
}

#define CUZK__GB_TRY(what, call)                   \
  do {                                             \
    cuzk_gpu_status_t cuzk__s = (call);            \
    if (cuzk__s.code) {                            \
      rc = cuzk__gpu_fail(what, cuzk__s);          \
      goto done;                                   \
    }                                              \
  } while (0)

static void cuzk__device_name(char *buf, size_t n) {
  cuzk_gpu_info_t info;
  if (cuzk_gpu_device_info(0, &info).code == 0)
    snprintf(buf, n, "%s", info.name);
  else
    snprintf(buf, n, "unknown");
}

/* ---- ntt ---- */
typedef struct {
  int log_n;
  double fwd, inv, coset_fwd, coset_inv, pinned, pageable;
} cuzk__ntt_row_t;

static int cuzk__bench_ntt(int argc, char **argv) {
  cuzk__gbench_opts_t o;
  int rc = cuzk__gbench_parse("bench ntt", argc, argv, &o, 27);
  if (rc != CUZK_EXIT_OK) return rc;
  int ndev = 0;
  cuzk_gpu_status_t s = cuzk_gpu_device_count(&ndev);
  if (s.code) return cuzk__gpu_fail("device", s);
  char dname[128];
  cuzk__device_name(dname, sizeof(dname));
  cuzk__ntt_row_t rows[32];
  int nrows = 0;
  cuzk_gpu_ntt_t *ctx = NULL;
  void *dbuf = NULL, *pinned = NULL;
  uint64_t *pageable = NULL;
  double *t = calloc((size_t)o.runs, sizeof(double));
  CUZK__GB_TRY("ntt_new", cuzk_gpu_ntt_new(&ctx, 0));
  for (int lg = o.lo; lg <= o.hi; lg++) {
    const size_t n = (size_t)1 << lg, bytes = n * 32;
    CUZK__GB_TRY("malloc", cuzk_gpu_malloc(0, bytes, &dbuf));
    CUZK__GB_TRY("host_alloc", cuzk_gpu_host_alloc(bytes, &pinned));
    pageable = malloc(bytes);
    if (!pageable) {
      fprintf(stderr, "cuzk bench: out of host memory\n");
      rc = CUZK_EXIT_FAIL;
      goto done;
    }
    cuzk__fill_fr(pageable, n, (uint64_t)lg);
    memcpy(pinned, pageable, bytes);
    CUZK__GB_TRY("h2d", cuzk_gpu_copy_h2d(0, dbuf, pageable, bytes));
    cuzk__ntt_row_t *r = &rows[nrows++];
    r->log_n = lg;
    for (int v = 0; v < 6; v++) {
      for (int k = -o.warmup; k < o.runs; k++) {
        double t0 = cuzk__now_ms();
        switch (v) {
          case 0: CUZK__GB_TRY("ntt", cuzk_gpu_ntt_device(ctx, dbuf, (unsigned)lg, CUZK_GPU_NTT_FWD_NR, 0)); break;
          case 1: CUZK__GB_TRY("ntt", cuzk_gpu_ntt_device(ctx, dbuf, (unsigned)lg, CUZK_GPU_NTT_INV_RN, 0)); break;
          case 2: CUZK__GB_TRY("ntt", cuzk_gpu_ntt_device(ctx, dbuf, (unsigned)lg, CUZK_GPU_NTT_FWD_NR, CUZK_GPU_NTT_COSET)); break;
          case 3: CUZK__GB_TRY("ntt", cuzk_gpu_ntt_device(ctx, dbuf, (unsigned)lg, CUZK_GPU_NTT_INV_RN, CUZK_GPU_NTT_COSET)); break;
          case 4: CUZK__GB_TRY("ntt", cuzk_gpu_ntt_host(ctx, pinned, (unsigned)lg, CUZK_GPU_NTT_FWD_NR, 0)); break;
          default: CUZK__GB_TRY("ntt", cuzk_gpu_ntt_host(ctx, pageable, (unsigned)lg, CUZK_GPU_NTT_FWD_NR, 0)); break;
        }
        if (k >= 0) t[k] = cuzk__now_ms() - t0;
      }
      double m = cuzk__median(t, o.runs);
      double *slot[] = {&r->fwd, &r->inv, &r->coset_fwd, &r->coset_inv, &r->pinned, &r->pageable};
      *slot[v] = m;
    }
    cuzk_gpu_free(dbuf);
    dbuf = NULL;
    cuzk_gpu_host_free(pinned);
    pinned = NULL;
    free(pageable);
    pageable = NULL;
    if (!o.json) {
      if (nrows == 1)
        printf("NTT over Fr on %s (median of %d, ms)\n%6s %10s %10s %10s %10s %12s %12s\n", dname, o.runs, "log_n",
               "fwd_nr", "inv_rn", "coset_fwd", "coset_inv", "fwd+pinned", "fwd+pageable");
      printf("%6d %10.3f %10.3f %10.3f %10.3f %12.3f %12.3f\n", r->log_n, r->fwd, r->inv, r->coset_fwd, r->coset_inv,
             r->pinned, r->pageable);
      fflush(stdout);
    }
  }
  if (o.json) {
    printf("{\"bench\":\"ntt\",\"device\":\"%s\",\"runs\":%d,\"unit\":\"ms\",\"results\":[", dname, o.runs);
    for (int i = 0; i < nrows; i++)
      printf("%s{\"log_n\":%d,\"fwd_nr\":%.4f,\"inv_rn\":%.4f,\"coset_fwd_nr\":%.4f,\"coset_inv_rn\":%.4f,"
             "\"fwd_with_pinned_io\":%.4f,\"fwd_with_pageable_io\":%.4f}",
             i ? "," : "", rows[i].log_n, rows[i].fwd, rows[i].inv, rows[i].coset_fwd, rows[i].coset_inv,
             rows[i].pinned, rows[i].pageable);
    printf("]}\n");
  }
done:
  cuzk_gpu_free(dbuf);
  cuzk_gpu_host_free(pinned);
  free(pageable);
  free(t);
  cuzk_gpu_ntt_free(ctx);
  return rc;
}

/* ---- msm ---- */
typedef struct {
  int log_n;
  double dev, dev_nosplit, pinned, pageable;
} cuzk__msm_row_t;

/* 2^lg_distinct distinct points (a walk P += Q from a fixed start), tiled to n; G1 or G2 in the
 * device layout (core's affine layout). */
#define CUZK__MAKE_BASES(G)                                                                      \
  static void *cuzk__make_bases_##G(size_t n, int lg_distinct) {                                 \
    const size_t d = (size_t)1 << lg_distinct;                                                   \
    cuzk_##G##_affine_t *out = malloc(n * sizeof(*out));                                         \
    cuzk_##G##_t *jac = malloc(d * sizeof(*jac));                                                \
    cuzk_##G##_affine_t *aff = malloc(d * sizeof(*aff));                                         \
    if (!out || !jac || !aff) {                                                                  \
      free(out);                                                                                 \
      free(jac);                                                                                 \
      free(aff);                                                                                 \
      return NULL;                                                                               \
    }                                                                                            \
    cuzk_##G##_t g, q;                                                                           \
    cuzk_##G##_generator(&g);                                                                    \
    const uint64_t k1[1] = {0x1234567890abcdefull}, k2[1] = {0xfedcba0987654321ull};             \
    cuzk_##G##_mul_u64_vartime(&jac[0], &g, k1, 1);                                              \
    cuzk_##G##_mul_u64_vartime(&q, &g, k2, 1);                                                   \
    for (size_t i = 1; i < d; i++) cuzk_##G##_add(&jac[i], &jac[i - 1], &q);                     \
    cuzk_##G##_batch_to_affine(aff, jac, d);                                                     \
    for (size_t i = 0; i < n; i++) memcpy(&out[i], &aff[i & (d - 1)], sizeof(out[i]));          \
    free(jac);                                                                                   \
    free(aff);                                                                                   \
    return out;                                                                                  \
  }
CUZK__MAKE_BASES(g1)
CUZK__MAKE_BASES(g2)

/* A Filecoin-like witness: about 45% zeros, 45% ones, 10% random values (canonical). */
static void cuzk__fill_witness(uint64_t *v, size_t n, uint64_t seed) {
  uint64_t s = seed ^ 0x5bd1e995ull;
  for (size_t i = 0; i < n; i++) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    const unsigned c = (unsigned)((z ^ (z >> 31)) % 20);
    if (c < 18) {
      memset(&v[4 * i], 0, 32);
      v[4 * i] = c & 1;
    }
  }
}

static int cuzk__bench_msm(int argc, char **argv) {
  cuzk__gbench_opts_t o;
  int rc = cuzk__gbench_parse("bench msm", argc, argv, &o, 28);
  if (rc != CUZK_EXIT_OK) return rc;
  const int g2 = strcmp(o.curve, "g2") == 0;
  if (!g2 && strcmp(o.curve, "g1") != 0) return cuzk_cli_usage_error("bench msm", "--curve is g1 or g2");
  if (g2 && o.hi > 26) return cuzk_cli_usage_error("bench msm", "--curve g2 takes --log-n up to 26");
  const int filecoin = strcmp(o.witness, "filecoin") == 0;
  if (!filecoin && strcmp(o.witness, "random") != 0)
    return cuzk_cli_usage_error("bench msm", "--witness is random or filecoin");
  int ndev = 0;
  cuzk_gpu_status_t s = cuzk_gpu_device_count(&ndev);
  if (s.code) return cuzk__gpu_fail("device", s);
  char dname[128];
  cuzk__device_name(dname, sizeof(dname));
  const size_t nmax = (size_t)1 << o.hi;
  cuzk__msm_row_t rows[32];
  int nrows = 0;
  cuzk_gpu_msm_t *ctx = NULL;
  cuzk_gpu_g1_bases_t *bases1 = NULL;
  cuzk_gpu_g2_bases_t *bases2 = NULL;
  void *dsc = NULL, *pinned = NULL;
  uint64_t *pageable = NULL;
  double *t = calloc((size_t)o.runs, sizeof(double));
  const int lgd = o.distinct < o.hi ? o.distinct : o.hi;
  void *hb = g2 ? cuzk__make_bases_g2(nmax, lgd) : cuzk__make_bases_g1(nmax, lgd);
  if (!hb || !t) {
    fprintf(stderr, "cuzk bench: out of host memory\n");
    free(hb);
    free(t);
    return CUZK_EXIT_FAIL;
  }
  if (g2)
    CUZK__GB_TRY("bases", cuzk_gpu_g2_bases_new(&bases2, 0, hb, nmax));
  else
    CUZK__GB_TRY("bases", cuzk_gpu_g1_bases_new(&bases1, 0, hb, nmax));
  free(hb);
  hb = NULL;
  CUZK__GB_TRY("msm_new", cuzk_gpu_msm_new(&ctx, 0));
  CUZK__GB_TRY("malloc", cuzk_gpu_malloc(0, nmax * 32, &dsc));
  CUZK__GB_TRY("host_alloc", cuzk_gpu_host_alloc(nmax * 32, &pinned));
  pageable = malloc(nmax * 32);
  if (!pageable) {
    rc = CUZK_EXIT_FAIL;
    goto done;
  }
  cuzk__fill_fr(pageable, nmax, 42);
  if (filecoin) cuzk__fill_witness(pageable, nmax, 42);
  memcpy(pinned, pageable, nmax * 32);
  CUZK__GB_TRY("h2d", cuzk_gpu_copy_h2d(0, dsc, pageable, nmax * 32));
  for (int lg = o.lo; lg <= o.hi; lg++) {
    const size_t n = (size_t)1 << lg;
    cuzk__msm_row_t *r = &rows[nrows++];
    r->log_n = lg;
    cuzk_gpu_g2_jac_t out; /* large enough for either curve */
    for (int v = 0; v < 4; v++) {
      for (int k = -o.warmup; k < o.runs; k++) {
        double t0 = cuzk__now_ms();
        const void *sc = v <= 1 ? dsc : v == 2 ? pinned : (const void *)pageable;
        const unsigned fl = (v <= 1 ? CUZK_GPU_MSM_SCALARS_ON_DEVICE : 0u) | (v == 1 ? CUZK_GPU_MSM_NO_SPLIT01 : 0u);
        if (g2)
          CUZK__GB_TRY("msm", cuzk_gpu_msm_g2(ctx, bases2, 0, sc, n, fl, (unsigned)o.window, &out));
        else
          CUZK__GB_TRY("msm", cuzk_gpu_msm_g1(ctx, bases1, 0, sc, n, fl, (unsigned)o.window,
                                              (cuzk_gpu_g1_jac_t *)(void *)&out));
        if (k >= 0) t[k] = cuzk__now_ms() - t0;
      }
      double m = cuzk__median(t, o.runs);
      double *slot[] = {&r->dev, &r->dev_nosplit, &r->pinned, &r->pageable};
      *slot[v] = m;
    }
    if (!o.json) {
      if (nrows == 1)
        printf("%s MSM on %s, %s scalars (median of %d, ms; bases on device)\n%6s %12s %12s %12s %12s\n",
               g2 ? "G2" : "G1", dname, filecoin ? "filecoin-like (90% 0/1)" : "random", o.runs, "log_n", "device",
               "dev-nosplit", "pinned", "pageable");
      printf("%6d %12.3f %12.3f %12.3f %12.3f\n", r->log_n, r->dev, r->dev_nosplit, r->pinned, r->pageable);
      fflush(stdout);
    }
  }
  if (o.json) {
    printf("{\"bench\":\"msm\",\"curve\":\"%s\",\"witness\":\"%s\",\"device\":\"%s\",\"runs\":%d,\"window\":%d,"
           "\"unit\":\"ms\",\"results\":[",
           g2 ? "g2" : "g1", filecoin ? "filecoin" : "random", dname, o.runs, o.window);
    for (int i = 0; i < nrows; i++)
      printf("%s{\"log_n\":%d,\"scalars_on_device\":%.4f,\"scalars_on_device_no_split01\":%.4f,"
             "\"scalars_pinned\":%.4f,\"scalars_pageable\":%.4f}",
             i ? "," : "", rows[i].log_n, rows[i].dev, rows[i].dev_nosplit, rows[i].pinned, rows[i].pageable);
    printf("]}\n");
  }
done:
  free(hb);
  cuzk_gpu_free(dsc);
  cuzk_gpu_host_free(pinned);
  free(pageable);
  free(t);
  cuzk_gpu_msm_free(ctx);
  cuzk_gpu_g1_bases_free(bases1);
  cuzk_gpu_g2_bases_free(bases2);
  return rc;
}

#else /* no CUDA */

static int cuzk__bench_nocuda(int argc, char **argv) {
  cuzk__gbench_opts_t o;
  int rc = cuzk__gbench_parse(argv[0], argc, argv, &o, 28);
  if (rc != CUZK_EXIT_OK) return rc;
  fprintf(stderr, "cuzk bench %s: this build has no CUDA backend\n", argv[0]);
  return CUZK_EXIT_FAIL;
}
#define cuzk__bench_ntt cuzk__bench_nocuda
#define cuzk__bench_msm cuzk__bench_nocuda

#endif

static void cuzk__bench_ntt_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk bench ntt [--log-n A[..B]] [--runs N] [--warmup N] [--json]\n"
          "\n"
          "Times the GPU NTT over Fr for sizes 2^A..2^B (1..27): forward natural->bit-reversed,\n"
          "inverse bit-reversed->natural, both with coset, all with data on the device, and the\n"
          "forward with copies from/to pinned and pageable host memory. Median of N runs (ms).\n");
}

static void cuzk__bench_msm_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk bench msm [--curve g1|g2] [--log-n A[..B]] [--runs N] [--warmup N] [--window C]\n"
          "                      [--distinct-bases LG] [--witness random|filecoin] [--json]\n"
          "\n"
          "Times the GPU MSM on G1 or G2 for sizes 2^A..2^B (G2 up to 2^26) with device-resident\n"
          "bases (2^LG distinct points, default 2^16, tiled) and scalars on the device (with the 0/1\n"
          "split, the default, and without it), in pinned and in pageable host memory. --witness\n"
          "filecoin draws about 90%% zeros and ones (like a Filecoin witness) instead of uniform\n"
          "scalars. --window forces the Pippenger window (0 = automatic). Median of N runs (ms).\n");
}

const cuzk_bench_t cuzk_bench_ntt = {"ntt", "GPU NTT over Fr (device, pinned and pageable I/O)", cuzk__bench_ntt,
                                     cuzk__bench_ntt_usage};
const cuzk_bench_t cuzk_bench_msm = {"msm", "GPU G1/G2 MSM (scalars on device, pinned, pageable)", cuzk__bench_msm,
                                     cuzk__bench_msm_usage};
