#include "core/ff/ff_bench.h"

#include <assert.h>
#include <string.h>
#include <time.h>

#include "core/ff/fp12.h"
#include "core/ff/fr.h"

static double ffb_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Minimum over `reps` batches of `iters` calls of body (a statement using i). */
#define FFB_TIME(result, reps, iters, body)        \
  do {                                             \
    double best_ = 1e300;                          \
    for (int r_ = 0; r_ < (reps); r_++) {          \
      double t0_ = ffb_now_ns();                   \
      for (int i = 0; i < (iters); i++) {          \
        body;                                      \
      }                                            \
      double dt_ = (ffb_now_ns() - t0_) / (iters); \
      if (dt_ < best_) best_ = dt_;                \
    }                                              \
    (result) = best_;                              \
  } while (0)

/* Keeps results observable so the loops are not optimised away. */
static volatile uint64_t ffb_sink;

static void ffb_fp_seed(cuzk_fp_t *a, uint64_t k) {
  uint64_t raw[CUZK_FP_LIMBS] = {k * 0x9e3779b97f4a7c15ULL, k + 7, k ^ 0xdeadbeef, k * 3, 11,
                                 0x0123456789abcdef};
  cuzk_fp_from_raw(a, raw);
}

void cuzk_ff_bench(cuzk_ff_bench_t *out) {
  assert(out != NULL);
  memset(out, 0, sizeof *out);
  bool had_adx = cuzk_ff_uses_adx();
  out->adx = had_adx;

  cuzk_fp_t a, b;
  ffb_fp_seed(&a, 1);
  ffb_fp_seed(&b, 2);
  cuzk_fr_t x, y;
  uint64_t rr[4] = {5, 6, 7, 8};
  cuzk_fr_from_raw(&x, rr);
  rr[0] = 9;
  cuzk_fr_from_raw(&y, rr);

  cuzk_ff_force_portable(true);
  FFB_TIME(out->fp_mul_portable_ns, 30, 20000, cuzk_fp_mul(&a, &a, &b));
  FFB_TIME(out->fr_mul_portable_ns, 30, 20000, cuzk_fr_mul(&x, &x, &y));
  cuzk_ff_force_portable(!had_adx);

  FFB_TIME(out->fp_mul_ns, 30, 20000, cuzk_fp_mul(&a, &a, &b));
  FFB_TIME(out->fp_sqr_ns, 30, 20000, cuzk_fp_sqr(&a, &a));
  FFB_TIME(out->fp_inv_ns, 10, 200, cuzk_fp_inv(&a, &a));
  FFB_TIME(out->fp_inv_vartime_ns, 10, 200, cuzk_fp_inv_vartime(&a, &a));
  FFB_TIME(out->fp_sqrt_ns, 10, 200, (cuzk_fp_sqrt(&a, &a), cuzk_fp_add(&a, &a, &b)));
  FFB_TIME(out->fr_mul_ns, 30, 20000, cuzk_fr_mul(&x, &x, &y));
  FFB_TIME(out->fr_sqr_ns, 30, 20000, cuzk_fr_sqr(&x, &x));
  FFB_TIME(out->fr_inv_ns, 10, 200, cuzk_fr_inv(&x, &x));

  cuzk_fp2_t p2a = {a, b}, p2b = {b, a};
  FFB_TIME(out->fp2_mul_ns, 20, 5000, cuzk_fp2_mul(&p2a, &p2a, &p2b));
  cuzk_fp12_t f = CUZK_FP12_ONE, g = CUZK_FP12_ONE;
  f.c0.c1 = p2a;
  f.c1.c2 = p2b;
  g.c1.c0 = p2a;
  FFB_TIME(out->fp12_mul_ns, 10, 500, cuzk_fp12_mul(&f, &f, &g));
  FFB_TIME(out->fp12_cyclotomic_sqr_ns, 10, 500, cuzk_fp12_cyclotomic_sqr(&f, &f));

  ffb_sink = a.l[0] ^ x.l[0] ^ p2a.c0.l[0] ^ f.c0.c0.c0.l[0];
}

void cuzk_ff_bench_write(FILE *f, const cuzk_ff_bench_t *b, bool json) {
  assert(f != NULL && b != NULL);
  const struct {
    const char *name;
    double v;
  } rows[] = {
      {"fp_mul_ns", b->fp_mul_ns},
      {"fp_sqr_ns", b->fp_sqr_ns},
      {"fp_mul_portable_ns", b->fp_mul_portable_ns},
      {"fp_inv_ns", b->fp_inv_ns},
      {"fp_inv_vartime_ns", b->fp_inv_vartime_ns},
      {"fp_sqrt_ns", b->fp_sqrt_ns},
      {"fr_mul_ns", b->fr_mul_ns},
      {"fr_sqr_ns", b->fr_sqr_ns},
      {"fr_mul_portable_ns", b->fr_mul_portable_ns},
      {"fr_inv_ns", b->fr_inv_ns},
      {"fp2_mul_ns", b->fp2_mul_ns},
      {"fp12_mul_ns", b->fp12_mul_ns},
      {"fp12_cyclotomic_sqr_ns", b->fp12_cyclotomic_sqr_ns},
  };
  size_t n = sizeof rows / sizeof rows[0];
  if (json) {
    fprintf(f, "{\"adx\": %s", b->adx ? "true" : "false");
    for (size_t i = 0; i < n; i++) fprintf(f, ", \"%s\": %.1f", rows[i].name, rows[i].v);
    fprintf(f, "}\n");
  } else {
    fprintf(f, "%-24s %s\n", "mul_path", b->adx ? "bmi2+adx" : "portable");
    for (size_t i = 0; i < n; i++) fprintf(f, "%-24s %.1f\n", rows[i].name, rows[i].v);
  }
}
