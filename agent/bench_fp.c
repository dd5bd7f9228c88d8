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
          "Times Fp mul/sqr/inv, Fr mul, G1 add/mixed add/double, G2 add (ns per operation),\n"
          "one pairing (ns) and a G1 MSM of 2^%d random points with random scalars (ms, all\n"
          "worker threads).\n"
          "\n"
          "Options:\n"
          "  --quick   few iterations (seconds; for tests), numbers are noisier\n"
          "  --json    print one JSON object instead of the table\n",
          MSM_LOG_N);
}

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
  const long nf = quick ? 20000 : 2000000;  /* field multiplications */
  const long ninv = quick ? 200 : 20000;    /* inversions */
  const long ng = quick ? 2000 : 200000;    /* curve additions */
  const long npair = quick ? 2 : 50;        /* pairings */
  result_t res[10];
  int nres = 0;
  double t0;

  cuzk_fp_t a, b;
  cuzk_fp_random(&a);
  cuzk_fp_random(&b);
  t0 = now_ns();
  for (long i = 0; i < nf; i++) cuzk_fp_mul(&a, &a, &b);
  res[nres++] = (result_t){"fp_mul_ns", "Fp mul", "ns", (now_ns() - t0) / (double)nf};
  t0 = now_ns();
  for (long i = 0; i < nf; i++) cuzk_fp_sqr(&a, &a);
  res[nres++] = (result_t){"fp_sqr_ns", "Fp sqr", "ns", (now_ns() - t0) / (double)nf};
  t0 = now_ns();
  for (long i = 0; i < ninv; i++) {
    cuzk_fp_inv(&a, &a);
    cuzk_fp_add(&a, &a, &b);
  }
  res[nres++] = (result_t){"fp_inv_ns", "Fp inv", "ns", (now_ns() - t0) / (double)ninv};
  sink ^= a.l[0];

  cuzk_fr_t x, y;
  cuzk_fr_random(&x);
  cuzk_fr_random(&y);
  t0 = now_ns();
  for (long i = 0; i < nf; i++) cuzk_fr_mul(&x, &x, &y);
  res[nres++] = (result_t){"fr_mul_ns", "Fr mul", "ns", (now_ns() - t0) / (double)nf};
  sink ^= x.l[0];

  cuzk_g1_t p, q;
  cuzk_g1_affine_t qa;
  cuzk_g1_generator(&p);
  cuzk_g1_dbl(&q, &p);
  cuzk_g1_dbl(&q, &q);
  cuzk_g1_add(&q, &q, &p); /* q = 5G, p = G, so p + k·q never hits a special case */
  cuzk_g1_to_affine(&qa, &q);
  t0 = now_ns();
  for (long i = 0; i < ng; i++) cuzk_g1_add(&p, &p, &q);
  res[nres++] = (result_t){"g1_add_ns", "G1 add", "ns", (now_ns() - t0) / (double)ng};
  t0 = now_ns();
  for (long i = 0; i < ng; i++) cuzk_g1_add_affine(&p, &p, &qa);
  res[nres++] = (result_t){"g1_madd_ns", "G1 mixed add", "ns", (now_ns() - t0) / (double)ng};
  t0 = now_ns();
  for (long i = 0; i < ng; i++) cuzk_g1_dbl(&p, &p);
  res[nres++] = (result_t){"g1_dbl_ns", "G1 double", "ns", (now_ns() - t0) / (double)ng};
  sink ^= p.x.l[0];

  cuzk_g2_t p2, q2;
  cuzk_g2_generator(&p2);
  cuzk_g2_dbl(&q2, &p2);
  cuzk_g2_dbl(&q2, &q2);
  cuzk_g2_add(&q2, &q2, &p2);
  t0 = now_ns();
  for (long i = 0; i < ng; i++) cuzk_g2_add(&p2, &p2, &q2);
  res[nres++] = (result_t){"g2_add_ns", "G2 add", "ns", (now_ns() - t0) / (double)ng};
  sink ^= p2.x.c0.l[0];

  cuzk_g1_affine_t g1;
  cuzk_g2_affine_t g2;
  cuzk_fp12_t e;
  cuzk_g1_affine_generator(&g1);
  cuzk_g2_affine_generator(&g2);
  t0 = now_ns();
  for (long i = 0; i < npair; i++) cuzk_pairing(&e, &g1, &g2);
  res[nres++] = (result_t){"pairing_ns", "pairing", "ns", (now_ns() - t0) / (double)npair};
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
  t0 = now_ns();
  cuzk_err_t err = cuzk_g1_msm(&out, bases, scalars, n);
  double msm_ms = (now_ns() - t0) / 1e6;
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
    for (int i = 0; i < nres; i++) printf("%s\"%s\": %.3f", i ? ", " : "", res[i].key, res[i].value);
    printf("}\n");
  } else {
    printf("%-16s %14s\n", "operation", "time");
    for (int i = 0; i < nres; i++) printf("%-16s %11.1f %s\n", res[i].label, res[i].value, res[i].unit);
    if (quick) printf("(--quick: few iterations, noisy)\n");
  }
  (void)sink;
  return CUZK_EXIT_OK;
}

const cuzk_bench_t cuzk_bench_fp = {"fp", "field, curve, pairing and CPU MSM micro-benchmarks", run, usage};
