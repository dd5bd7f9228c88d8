/* Smoke test of the field micro-benchmark behind `cuzk bench fp`: every figure is positive
 * and finite, the mul path matches CPUID, and both output forms carry every field. */
#include "tests/support/testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ff/ff_bench.h"
#include "core/ff/fp.h"

static void test_bench(void **state) {
  (void)state;
  bool adx = cuzk_ff_uses_adx();
  cuzk_ff_bench_t b;
  cuzk_ff_bench(&b);
  assert_int_equal(b.adx, adx);
  assert_int_equal(cuzk_ff_uses_adx(), adx); /* path restored */
  const double v[] = {b.fp_mul_ns,
                      b.fp_sqr_ns,
                      b.fp_mul_portable_ns,
                      b.fp_inv_ns,
                      b.fp_inv_vartime_ns,
                      b.fp_sqrt_ns,
                      b.fr_mul_ns,
                      b.fr_sqr_ns,
                      b.fr_mul_portable_ns,
                      b.fr_inv_ns,
                      b.fp2_mul_ns,
                      b.fp12_mul_ns,
                      b.fp12_cyclotomic_sqr_ns};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) assert_true(v[i] > 0 && isfinite(v[i]));
  assert_true(b.fp_inv_ns > b.fp_mul_ns);

  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  cuzk_ff_bench_write(f, &b, true);
  fclose(f);
  assert_true(buf[0] == '{' && strstr(buf, "\"fp12_cyclotomic_sqr_ns\"") && strstr(buf, "\"adx\""));
  free(buf);
  f = open_memstream(&buf, &len);
  cuzk_ff_bench_write(f, &b, false);
  fclose(f);
  assert_non_null(strstr(buf, "fp_mul_ns"));
  assert_non_null(strstr(buf, "fr_inv_ns"));
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bench)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
