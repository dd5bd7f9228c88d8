// cuzk-test: labels=bench timeout=900
/* Timings (not assertions) of synthesis, PCE save/load, SpMV, NTTs and H on the synthetic
 * circuit at 2^16 and 2^20 (override with CUZK_BENCH_LOGS="16 18 20"). Run:
 *   ctest -L bench --output-on-failure   or   build/tests/test_spmv_bench */
#include "tests/support/testlib.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/circuits/synthetic.h"
#include "core/poly/ntt.h"
#include "core/poly/par.h"
#include "core/r1cs/cs.h"
#include "core/r1cs/r1cs.h"

static double clk(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* wall time, and process CPU time (all threads): on a shared machine the CPU time is the
 * steadier number */
#define TIME(label, expr)                                                                     \
  do {                                                                                        \
    double w0_ = clk(CLOCK_MONOTONIC), c0_ = clk(CLOCK_PROCESS_CPUTIME_ID);                   \
    expr;                                                                                     \
    printf("  %-28s %9.1f ms wall %9.1f ms cpu\n", label, (clk(CLOCK_MONOTONIC) - w0_) * 1e3, \
           (clk(CLOCK_PROCESS_CPUTIME_ID) - c0_) * 1e3);                                      \
    fflush(stdout);                                                                           \
  } while (0)

static void bench(unsigned log_n) {
  char err[256];
  cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(log_n, 4), 4, 42};
  cuzk_cs_t *rcs = cuzk_cs_new(CUZK_CS_RECORD, err, sizeof err);
  cuzk_cs_t *wcs = cuzk_cs_new(CUZK_CS_WITNESS, err, sizeof err);
  cuzk_r1cs_t *r, *l;
  printf("2^%u synthetic (m = %llu, %u threads)\n", log_n, (unsigned long long)p.num_constraints,
         cuzk__par_threads());
  TIME("synthesize record", assert_int_equal(cuzk_synthetic_build(rcs, &p, err, sizeof err), 0));
  TIME("finish (remap+density)", assert_int_equal(cuzk_cs_finish(rcs, &r, err, sizeof err), 0));
  TIME("synthesize witness", assert_int_equal(cuzk_synthetic_build(wcs, &p, err, sizeof err), 0));
  char path[128];
  snprintf(path, sizeof path, "/tmp/cuzk-bench-%ld.pce", (long)getpid());
  TIME("pce save", assert_int_equal(cuzk_r1cs_save(r, path, err, sizeof err), 0));
  TIME("pce load (verify+density)", assert_int_equal(cuzk_r1cs_load(&l, path, err, sizeof err), 0));
  unlink(path);
  uint64_t nnz = 0;
  for (int k = 0; k < 3; k++) nnz += cuzk_r1cs_matrix(r, (cuzk_r1cs_which_t)k)->nnz;
  printf("  nnz A+B+C = %llu\n", (unsigned long long)nnz);
  uint64_t n = cuzk_r1cs_domain_size(r), ni, na;
  const cuzk_fr_t *in = cuzk_cs_inputs(wcs, &ni), *aux = cuzk_cs_aux(wcs, &na);
  cuzk_fr_t *a = malloc(3 * n * sizeof(cuzk_fr_t)), *b = a + n, *c = b + n;
  cuzk_r1cs_spmv(l, in, ni, aux, na, a, b, c, n); /* warm */
  TIME("spmv a,b,c", assert_int_equal(cuzk_r1cs_spmv(l, in, ni, aux, na, a, b, c, n), 0));
  cuzk_domain_t *d;
  TIME("domain (twiddles)", assert_int_equal(cuzk_domain_new(&d, n, err, sizeof err), 0));
  TIME("ntt forward", cuzk_ntt_forward(d, a));
  TIME("ntt inverse", cuzk_ntt_inverse(d, a));
  TIME("ntt coset forward", cuzk_ntt_coset_forward(d, a));
  TIME("ntt coset inverse", cuzk_ntt_coset_inverse(d, a));
  assert_int_equal(cuzk_r1cs_spmv(l, in, ni, aux, na, a, b, c, n), 0);
  TIME("groth16 H (7 NTTs)", assert_int_equal(cuzk_poly_groth16_h(d, a, b, c), 0));
  free(a);
  cuzk_domain_free(d);
  cuzk_r1cs_free(r);
  cuzk_r1cs_free(l);
  cuzk_cs_free(rcs);
  cuzk_cs_free(wcs);
}

static void test_bench(void **state) {
  (void)state;
  const char *e = getenv("CUZK_BENCH_LOGS");
  char buf[64];
  snprintf(buf, sizeof buf, "%s", e && *e ? e : "16 20");
  for (char *t = strtok(buf, " ,"); t; t = strtok(NULL, " ,")) bench((unsigned)atoi(t));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bench)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
