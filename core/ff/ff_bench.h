/* Micro-benchmarks of the field arithmetic, for `cuzk bench fp` and docs/PERF.md.
 * Single-threaded; takes about a second; call from one thread while nothing else computes
 * (it switches the multiplication path with cuzk_ff_force_portable and restores it). */
#ifndef CUZK_FF_FF_BENCH_H
#define CUZK_FF_FF_BENCH_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
  bool adx;         /* the BMI2/ADX path is available (and was measured) */
  double fp_mul_ns; /* active path (ADX when available) */
  double fp_sqr_ns;
  double fp_mul_portable_ns; /* the __int128 path */
  double fp_inv_ns;          /* constant time (Fermat) */
  double fp_inv_vartime_ns;  /* binary extended Euclid */
  double fp_sqrt_ns;
  double fr_mul_ns;
  double fr_sqr_ns;
  double fr_mul_portable_ns;
  double fr_inv_ns;
  double fp2_mul_ns;
  double fp12_mul_ns;
  double fp12_cyclotomic_sqr_ns;
} cuzk_ff_bench_t;

/* Fills *out with nanoseconds per operation: each the fastest of several timed batches of
 * dependent operations (latency, not throughput), which filters out scheduler noise. */
void cuzk_ff_bench(cuzk_ff_bench_t *out);

/* Writes the results to f: one "name value" line per field (ns), or one JSON object when
 * json is set. */
void cuzk_ff_bench_write(FILE *f, const cuzk_ff_bench_t *b, bool json);

#endif
