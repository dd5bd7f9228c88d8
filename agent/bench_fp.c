/* `cuzk bench fp`: nanoseconds per field and curve operation, one pairing, and a 2^16-point G1
 * MSM on the CPU. Main thread only (the MSM uses the worker threads). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/bench.h"
#include "agent/cli.h"
#include "core/ec/g1.h"
#include "core/ec/g2.h"
#include "core/ec/msm.h"
#include "core/ff/fp.h"
#include "core/ff/ff_bench.h"
#include "core/ff/fr.h"
#include "core/pairing/pairing.h"

#define MSM_LOG_N 16

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Each measurement chains its results so the loop cannot be optimised away, and folds the final
 * value into `sink`, which is printed nowhere but read once at the end. */
static volatile uint64_t sink;

typedef struct {
  const char *key;   /* JSON key */
  const char *label; /* table label */
  const char *unit;
  double value;
} result_t;

static void usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk bench fp [--quick] [--json]\n"
          "\n"
          "Times Fp mul/sqr/inv, Fr mul, Fp2/Fp12 mul, G1 add/mixed add/double, G2 add (ns per\n"
          "operation), one pairing (ns) and a G1 MSM of 2^%d random points with random scalars\n"
          "(ms, all worker threads; $CUZK_THREADS sets their number). Each figure is the fastest\n"
          "of several timed batches, which filters out noise from other processes.\n"
          "\n"
          "Options:\n"
          "  --quick   few iterations (seconds; for tests), numbers are noisier\n"
          "  --json    print one JSON object instead of the table\n",
          MSM_LOG_N);
}

/* Minimum over `reps` batches of `iters` runs of body (a statement), in ns per run: the
 * fastest batch is the one least disturbed by other processes. */
#define BEST_NS(result, reps, iters, body)     \
  do {                                         \
    double best_ = 1e300;                      \
    for (int r_ = 0; r_ < (reps); r_++) {      \
      double t0_ = now_ns();                   \
      for (long i_ = 0; i_ < (iters); i_++) {  \
        body;                                  \
      }                                        \
      double dt_ = (now_ns() - t0_) / (iters); \
      if (dt_ < best_) best_ = dt_;            \
    }                                          \
    (result) = best_;                          \
  } while (0)

static int run(int argc, char **argv) {
  int json = 0, quick = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else
      return cuzk_cli_usage_error("bench fp", "unknown option '%s'", argv[i]);
  }
  const int reps = quick ? 3 : 15;     /* batches per measurement */
  const long ng = quick ? 500 : 20000; /* curve additions per batch */
  const long npair = quick ? 1 : 10;   /* pairings per batch */
  result_t res[16];
  int nres = 0;

  /* field arithmetic: the ff module's own micro-benchmark (fastest of several batches) */
  cuzk_ff_bench_t ff;
  cuzk_ff_bench(&ff);
  res[nres++] = (result_t){"fp_mul_ns", "Fp mul", "ns", ff.fp_mul_ns};
  res[nres++] = (result_t){"fp_sqr_ns", "Fp sqr", "ns", ff.fp_sqr_ns};
  res[nres++] = (result_t){"fp_inv_ns", "Fp inv (ct)", "ns", ff.fp_inv_ns};
  res[nres++] = (result_t){"fp_inv_vartime_ns", "Fp inv (vartime)", "ns", ff.fp_inv_vartime_ns};
  res[nres++] = (result_t){"fr_mul_ns", "Fr mul", "ns", ff.fr_mul_ns};
  res[nres++] = (result_t){"fp2_mul_ns", "Fp2 mul", "ns", ff.fp2_mul_ns};
  res[nres++] = (result_t){"fp12_mul_ns", "Fp12 mul", "ns", ff.fp12_mul_ns};

  cuzk_g1_t p, q;
  cuzk_g1_affine_t qa;
  cuzk_g1_generator(&p);
  cuzk_g1_dbl(&q, &p);
  cuzk_g1_dbl(&q, &q);
  cuzk_g1_add(&q, &q, &p); /* q = 5G, p = G, so p + k·q never hits a special case */
  cuzk_g1_to_affine(&qa, &q);
  double v;
  BEST_NS(v, reps, ng, cuzk_g1_add(&p, &p, &q));
  res[nres++] = (result_t){"g1_add_ns", "G1 add", "ns", v};
  BEST_NS(v, reps, ng, cuzk_g1_add_affine(&p, &p, &qa));
  res[nres++] = (result_t){"g1_madd_ns", "G1 mixed add", "ns", v};
  BEST_NS(v, reps, ng, cuzk_g1_dbl(&p, &p));
  res[nres++] = (result_t){"g1_dbl_ns", "G1 double", "ns", v};
  sink ^= p.x.l[0];

  cuzk_g2_t p2, q2;
  cuzk_g2_generator(&p2);
  cuzk_g2_dbl(&q2, &p2);
  cuzk_g2_dbl(&q2, &q2);
  cuzk_g2_add(&q2, &q2, &p2);
  BEST_NS(v, reps, ng, cuzk_g2_add(&p2, &p2, &q2));
  res[nres++] = (result_t){"g2_add_ns", "G2 add", "ns", v};
  sink ^= p2.x.c0.l[0];

  cuzk_g1_affine_t g1;
  cuzk_g2_affine_t g2;
  cuzk_fp12_t e;
  cuzk_g1_affine_generator(&g1);
  cuzk_g2_affine_generator(&g2);
  BEST_NS(v, reps, npair, cuzk_pairing(&e, &g1, &g2));
  res[nres++] = (result_t){"pairing_ns", "pairing", "ns", v};
  sink ^= e.c0.c0.c0.l[0];

  size_t n = (size_t)1 << MSM_LOG_N;
  cuzk_g1_t *jac = malloc(n * sizeof *jac);
  cuzk_g1_affine_t *bases = malloc(n * sizeof *bases);
  cuzk_fr_t *scalars = malloc(n * sizeof *scalars);
  if (!jac || !bases || !scalars) {
    free(jac);
    free(bases);
    free(scalars);
    fprintf(stderr, "cuzk bench fp: out of memory\n");
    return CUZK_EXIT_FAIL;
  }
  cuzk_fr_t k;
  cuzk_fr_random(&k);
  cuzk_g1_t step, cur;
  cuzk_g1_generator(&step);
  cuzk_g1_mul_vartime(&step, &step, &k);
  cur = step;
  for (size_t i = 0; i < n; i++) {
    jac[i] = cur;
    cuzk_g1_add(&cur, &cur, &step);
    cuzk_fr_random(&scalars[i]);
  }
  cuzk_g1_batch_to_affine(bases, jac, n);
  free(jac);
  cuzk_g1_t out;
  cuzk_err_t err = CUZK_OK;
  double msm_ms = 1e300;
  for (int r = 0; r < (quick ? 1 : 3) && err == CUZK_OK; r++) {
    double t0 = now_ns();
    err = cuzk_g1_msm(&out, bases, scalars, n);
    double ms = (now_ns() - t0) / 1e6;
    if (ms < msm_ms) msm_ms = ms;
  }
  free(bases);
  free(scalars);
  if (err != CUZK_OK) {
    fprintf(stderr, "cuzk bench fp: MSM failed: %s\n", cuzk_err_str(err));
    return CUZK_EXIT_FAIL;
  }
  sink ^= out.x.l[0];
  res[nres++] = (result_t){"g1_msm_2_16_ms", "G1 MSM 2^16", "ms", msm_ms};

  if (json) {
    printf("{");
    for (int i = 0; i < nres; i++)
      printf("%s\"%s\": %.3f", i ? ", " : "", res[i].key, res[i].value);
    printf("}\n");
  } else {
    printf("%-16s %14s\n", "operation", "time");
    for (int i = 0; i < nres; i++)
      printf("%-16s %11.1f %s\n", res[i].label, res[i].value, res[i].unit);
    if (quick) printf("(--quick: few iterations, noisy)\n");
  }
  (void)sink;
  return CUZK_EXIT_OK;
}

const cuzk_bench_t cuzk_bench_fp = {"fp", "field, curve, pairing and CPU MSM micro-benchmarks", run,
                                    usage};
