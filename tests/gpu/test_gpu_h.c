/* cuda/h.cu: the device H pipeline against core's CPU H (cuzk_poly_groth16_h, itself checked
 * against GMP in tests/unit) on random a, b, c at 2^1, 2^10, 2^16, from page-locked and from
 * pageable host memory, growing and shrinking the context's buffers; the "top coefficient
 * nonzero" flag on random inputs (unsatisfied) and on c = a·b (satisfied: deg h <= n-2); the
 * witness upload and the u32 gathers against the host arrays; bad arguments. */
// cuzk-test: labels=gpu timeout=300
#include <stdlib.h>
#include <string.h>

#include "core/ff/fr.h"
#include "core/poly/ntt.h"
#include "cuda/cuzk_gpu.h"
#include "tests/support/testlib.h"

#define GPU_OK(call)                                                              \
  do {                                                                            \
    cuzk_gpu_status_t st__ = (call);                                              \
    if (st__.code) fail_msg("%s -> %d %s", #call, st__.code, st__.message);       \
  } while (0)

static cuzk_test_rng_t rng;

static void rand_fr(cuzk_fr_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 4; k++) v[i].l[k] = cuzk_test_rng_next(&rng);
    v[i].l[3] &= 0x3fffffffffffffffull; /* < 2^254 < r */
  }
}

static cuzk_fr_t *alloc_fr(size_t n, int pinned) {
  void *p = NULL;
  if (pinned)
    GPU_OK(cuzk_gpu_host_alloc(n * sizeof(cuzk_fr_t), &p));
  else
    p = malloc(n * sizeof(cuzk_fr_t));
  assert_non_null(p);
  return p;
}

static void free_fr(cuzk_fr_t *p, int pinned) {
  if (pinned)
    GPU_OK(cuzk_gpu_host_free(p));
  else
    free(p);
}

/* One size: GPU h vs core's h, and the top flag vs core's UNSATISFIED. */
static void check_size(cuzk_gpu_h_t *ctx, unsigned log_n, int pinned, int satisfied) {
  const size_t n = (size_t)1 << log_n;
  char err[256];
  cuzk_fr_t *a = alloc_fr(n, pinned), *b = alloc_fr(n, pinned), *c = alloc_fr(n, pinned);
  rand_fr(a, n), rand_fr(b, n), rand_fr(c, n);
  if (satisfied)
    for (size_t i = 0; i < n; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
  cuzk_fr_t *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb), *rc = malloc(n * sizeof *rc);
  assert_non_null(ra), assert_non_null(rb), assert_non_null(rc);
  memcpy(ra, a, n * sizeof *ra), memcpy(rb, b, n * sizeof *rb), memcpy(rc, c, n * sizeof *rc);
  cuzk_fr_t *sa = malloc(n * sizeof *sa);
  assert_non_null(sa);
  memcpy(sa, a, n * sizeof *sa);
  cuzk_domain_t *dom = NULL;
  assert_int_equal(cuzk_domain_new(&dom, n, err, sizeof err), CUZK_OK);
  cuzk_err_t want = cuzk_poly_groth16_h(dom, ra, rb, rc);
  assert_int_equal(want, satisfied ? CUZK_OK : CUZK_ERR_UNSATISFIED);

  const void *d_h = NULL;
  int top = -1;
  cuzk_gpu_h_timings_t t;
  memset(&t, 0, sizeof t);
  GPU_OK(cuzk_gpu_h_run(ctx, (const uint64_t *)a, (const uint64_t *)b, (const uint64_t *)c, log_n, &d_h, &top, &t));
  assert_non_null(d_h);
  assert_int_equal(top, satisfied ? 0 : 1);
  /* the inputs are not modified */
  assert_memory_equal(a, sa, n * sizeof *a);
  cuzk_fr_t *got = malloc(n * sizeof *got);
  assert_non_null(got);
  if (satisfied) {
    /* the combined call: same h, plus a witness (here: a's first 3 and b's first n/2+1) */
    const void *d_w = NULL;
    const size_t ni = n < 3 ? n : 3, na = n / 2 + 1;
    cuzk_gpu_h_timings_t t2;
    memset(&t2, 0, sizeof t2);
    GPU_OK(cuzk_gpu_h_run_witness(ctx, (const uint64_t *)a, (const uint64_t *)b, (const uint64_t *)c, log_n,
                                  (const uint64_t *)a, ni, (const uint64_t *)b, na, &d_h, &d_w, &top, &t2));
    assert_int_equal(top, 0);
    assert_int_equal(t2.h2d_bytes, (3 * n + ni + na) * sizeof(cuzk_fr_t));
    cuzk_fr_t *w = malloc((ni + na) * sizeof *w);
    assert_non_null(w);
    GPU_OK(cuzk_gpu_copy_d2h(0, w, d_w, (ni + na) * sizeof *w));
    assert_memory_equal(w, a, ni * sizeof *w);
    assert_memory_equal(w + ni, b, na * sizeof *w);
    free(w);
  }
  GPU_OK(cuzk_gpu_copy_d2h(0, got, d_h, n * sizeof *got));
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp(&got[i], &ra[i], sizeof got[i]) != 0 && bad++ < 3)
      fprintf(stderr, "log_n %u pinned %d: h[%zu] differs\n", log_n, pinned, i);
  assert_int_equal(bad, 0);
  assert_int_equal(t.h2d_bytes, 3 * n * sizeof(cuzk_fr_t));
  assert_true(t.total_ms >= t.ntt_ms && t.ntt_ms >= 0 && t.h2d_ms >= 0);
  printf("2^%-2u %-8s %-11s h2d %8.3f ms  ntt %8.3f ms  total %8.3f ms\n", log_n, pinned ? "pinned" : "pageable",
         satisfied ? "satisfied" : "random", t.h2d_ms, t.ntt_ms, t.total_ms);
  cuzk_domain_free(dom);
  free(ra), free(rb), free(rc), free(got), free(sa);
  free_fr(a, pinned), free_fr(b, pinned), free_fr(c, pinned);
}

static void test_h_matches_cpu(void **state) {
  (void)state;
  cuzk_gpu_h_t *ctx = NULL;
  GPU_OK(cuzk_gpu_h_new(&ctx, 0));
  static const unsigned sizes[] = {1, 10, 16, 10, 1};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (int pinned = 0; pinned < 2; pinned++) check_size(ctx, sizes[k], pinned, (int)(k + pinned) & 1);
  check_size(ctx, 16, 1, 1);
  check_size(ctx, 16, 0, 0);
  cuzk_gpu_h_free(ctx);
}

static void test_witness_gather(void **state) {
  (void)state;
  cuzk_gpu_h_t *ctx = NULL;
  GPU_OK(cuzk_gpu_h_new(&ctx, 0));
  for (int round = 0; round < 2; round++) {
    const size_t ni = 3 + round * 40, na = 5000 + round * 20000, nw = ni + na, m = nw / 3;
    cuzk_fr_t *in = malloc(ni * sizeof *in), *aux = malloc(na * sizeof *aux), *got = malloc(m * sizeof *got);
    uint32_t *idx = malloc(m * sizeof *idx);
    assert_non_null(in), assert_non_null(aux), assert_non_null(got), assert_non_null(idx);
    rand_fr(in, ni), rand_fr(aux, na);
    for (size_t i = 0; i < m; i++) idx[i] = (uint32_t)(cuzk_test_rng_next(&rng) % nw);
    void *d_idx = NULL;
    GPU_OK(cuzk_gpu_malloc(0, m * sizeof *idx, &d_idx));
    GPU_OK(cuzk_gpu_copy_h2d(0, d_idx, idx, m * sizeof *idx));
    const void *d_w = NULL, *d_g = NULL;
    if (round == 1) { /* the second round gathers into the H buffers (large enough after this) */
      cuzk_fr_t *z = calloc((size_t)1 << 16, sizeof *z);
      assert_non_null(z);
      int top = -1;
      GPU_OK(cuzk_gpu_h_run(ctx, (const uint64_t *)z, (const uint64_t *)z, (const uint64_t *)z, 16, &d_g, &top, NULL));
      assert_int_equal(top, 0);
      free(z);
    }
    cuzk_gpu_h_timings_t t;
    memset(&t, 0, sizeof t);
    GPU_OK(cuzk_gpu_h_witness(ctx, (const uint64_t *)in, ni, (const uint64_t *)aux, na, &d_w, &t));
    assert_int_equal(t.h2d_bytes, nw * sizeof(cuzk_fr_t));
    cuzk_fr_t *w = malloc(nw * sizeof *w);
    assert_non_null(w);
    GPU_OK(cuzk_gpu_copy_d2h(0, w, d_w, nw * sizeof *w));
    assert_memory_equal(w, in, ni * sizeof *in);
    assert_memory_equal(w + ni, aux, na * sizeof *aux);
    for (int slot = 0; slot < 2; slot++) {
      GPU_OK(cuzk_gpu_h_gather(ctx, slot, d_idx, m - (size_t)slot, &d_g));
      GPU_OK(cuzk_gpu_copy_d2h(0, got, d_g, (m - (size_t)slot) * sizeof *got));
      for (size_t i = 0; i + (size_t)slot < m; i++) assert_memory_equal(&got[i], &w[idx[i]], sizeof got[i]);
    }
    GPU_OK(cuzk_gpu_free(d_idx));
    free(in), free(aux), free(got), free(idx), free(w);
  }
  cuzk_gpu_h_free(ctx);
}

static void test_bad_args(void **state) {
  (void)state;
  cuzk_gpu_h_t *ctx = NULL;
  GPU_OK(cuzk_gpu_h_new(&ctx, 0));
  uint64_t x[16] = {0};
  const void *d = NULL;
  int top = 0;
  assert_int_equal(cuzk_gpu_h_run(ctx, x, x, x, 0, &d, &top, NULL).code, CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_gpu_h_run(ctx, x, x, x, 28, &d, &top, NULL).code, CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_gpu_h_run(ctx, NULL, x, x, 2, &d, &top, NULL).code, CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_gpu_h_gather(ctx, 2, NULL, 0, &d).code, CUZK_ERR_INVALID_ARG);
  /* zeros are a satisfied system: h = 0 */
  GPU_OK(cuzk_gpu_h_run(ctx, x, x, x, 2, &d, &top, NULL));
  assert_int_equal(top, 0);
  cuzk_gpu_h_free(ctx);
  cuzk_gpu_h_free(NULL);
}

int main(void) {
  int n = 0;
  cuzk_gpu_status_t st = cuzk_gpu_device_count(&n);
  if (st.code || n == 0) {
    printf("SKIP: no CUDA device (%s)\n", st.message);
    return 77;
  }
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_h_matches_cpu),
      cmocka_unit_test(test_witness_gather),
      cmocka_unit_test(test_bad_args),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
