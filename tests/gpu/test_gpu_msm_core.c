/* GPU G1 and G2 MSM against core's CPU Pippenger (cuzk_g1_msm / cuzk_g2_msm, multi-threaded),
 * on fresh random inputs (seed printed). Bases: a random walk P_{i+1} = P_i + Q_j on each curve,
 * with points at infinity, repeated points and negated neighbours (P + (-P) in one bucket)
 * sprinkled in. Scalars: uniform, special values (0, 1, 2, r-1), boolean-heavy (90% zeros and
 * ones, like a Filecoin witness), all zero, all one; each in canonical and Montgomery form, with
 * and without CUZK_GPU_MSM_NO_SPLIT01, at sizes that are not powers of two. A self-check at the
 * start shows the comparison rejects a wrong expectation. */
// cuzk-test: labels=gpu timeout=300
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ec/g1.h"
#include "core/ec/g2.h"
#include "core/ec/msm.h"
#include "core/ff/fr.h"
#include "cuda/cuzk_gpu.h"
#include "tests/support/testlib.h"

#define NB ((size_t)65539 + 64)

static int failures;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      failures++;                                          \
    }                                                      \
  } while (0)

#define GPU_OK(call)                                                                              \
  do {                                                                                            \
    cuzk_gpu_status_t gpu__s = (call);                                                            \
    if (gpu__s.code != 0) {                                                                       \
      fprintf(stderr, "FAIL %s:%d: %s -> %d %s\n", __FILE__, __LINE__, #call, gpu__s.code,        \
              gpu__s.message);                                                                    \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

/* ---- one curve behind a small table, so every case runs on G1 and G2 ---- */
typedef struct {
  const char *name;
  size_t aff_size, jac_size;
  void (*make_bases)(void *aff, size_t n, cuzk_test_rng_t *rng);
  cuzk_err_t (*cpu_msm)(void *out, const void *bases, const cuzk_fr_t *s, size_t n);
  void *(*bases_new)(const void *aff, size_t n);
  void (*bases_free)(void *b);
  cuzk_gpu_status_t (*gpu_msm)(cuzk_gpu_msm_t *ctx, const void *b, size_t off, const void *sc, size_t n,
                               unsigned flags, unsigned window, void *out);
  bool (*eq)(const void *a, const void *b);
  bool (*on_curve)(const void *a);
  void (*add_gen)(void *a);
} curve_t;

static void random_fr(cuzk_fr_t *out, cuzk_test_rng_t *rng) {
  uint8_t w[64];
  cuzk_test_rng_bytes(rng, w, sizeof(w));
  cuzk_fr_from_le_wide(out, w);
}

/* Walk with 4 random steps; every 97th point is infinity, every 89th repeats an earlier point,
 * every 83rd is the negation of its predecessor. */
#define DEFINE_CURVE(G)                                                                                 \
  static void G##_make_bases(void *vaff, size_t n, cuzk_test_rng_t *rng) {                              \
    cuzk_##G##_affine_t *aff = vaff;                                                                    \
    cuzk_##G##_t gen, q[4], p, *jac = malloc(n * sizeof(*jac));                                         \
    cuzk_fr_t k;                                                                                        \
    cuzk_##G##_generator(&gen);                                                                         \
    for (int j = 0; j < 4; j++) {                                                                       \
      random_fr(&k, rng);                                                                               \
      cuzk_##G##_mul_vartime(&q[j], &gen, &k);                                                          \
    }                                                                                                   \
    random_fr(&k, rng);                                                                                 \
    cuzk_##G##_mul_vartime(&p, &gen, &k);                                                               \
    for (size_t i = 0; i < n; i++) {                                                                    \
      jac[i] = p;                                                                                       \
      cuzk_##G##_add(&p, &p, &q[cuzk_test_rng_next(rng) & 3]);                                          \
    }                                                                                                   \
    cuzk_##G##_batch_to_affine(aff, jac, n);                                                            \
    for (size_t i = 1; i < n; i++) {                                                                    \
      if (i % 97 == 5) cuzk_##G##_affine_set_infinity(&aff[i]);                                         \
      else if (i % 89 == 7) aff[i] = aff[cuzk_test_rng_next(rng) % i];                                 \
      else if (i % 83 == 11) cuzk_##G##_affine_neg(&aff[i], &aff[i - 1]);                               \
    }                                                                                                   \
    free(jac);                                                                                          \
  }                                                                                                     \
  static cuzk_err_t G##_cpu_msm(void *out, const void *b, const cuzk_fr_t *s, size_t n) {               \
    return cuzk_##G##_msm(out, b, s, n);                                                                \
  }                                                                                                     \
  static void *G##_bases_new(const void *aff, size_t n) {                                               \
    cuzk_gpu_##G##_bases_t *b = NULL;                                                                   \
    GPU_OK(cuzk_gpu_##G##_bases_new(&b, 0, aff, n));                                                    \
    return b;                                                                                           \
  }                                                                                                     \
  static void G##_bases_free(void *b) { cuzk_gpu_##G##_bases_free(b); }                                 \
  static cuzk_gpu_status_t G##_gpu_msm(cuzk_gpu_msm_t *ctx, const void *b, size_t off, const void *sc,  \
                                       size_t n, unsigned flags, unsigned window, void *out) {          \
    return cuzk_gpu_msm_##G(ctx, b, off, sc, n, flags, window, out);                                    \
  }                                                                                                     \
  static bool G##_eq(const void *a, const void *b) { return cuzk_##G##_eq(a, b); }                      \
  static bool G##_on_curve(const void *a) { return cuzk_##G##_is_on_curve(a); }                         \
  static void G##_add_gen(void *a) {                                                                    \
    cuzk_##G##_t gen;                                                                                   \
    cuzk_##G##_generator(&gen);                                                                         \
    cuzk_##G##_add(a, a, &gen);                                                                         \
  }                                                                                                     \
  static const curve_t G##_curve = {#G,           sizeof(cuzk_##G##_affine_t), sizeof(cuzk_##G##_t),   \
                                    G##_make_bases, G##_cpu_msm,               G##_bases_new,          \
                                    G##_bases_free, G##_gpu_msm,               G##_eq,                 \
                                    G##_on_curve,   G##_add_gen};

DEFINE_CURVE(g1)
DEFINE_CURVE(g2)

_Static_assert(sizeof(cuzk_g1_t) == sizeof(cuzk_gpu_g1_jac_t), "G1 Jacobian layouts differ");
_Static_assert(sizeof(cuzk_g2_t) == sizeof(cuzk_gpu_g2_jac_t), "G2 Jacobian layouts differ");
_Static_assert(sizeof(cuzk_g1_affine_t) == sizeof(cuzk_gpu_g1_affine_t), "G1 affine layouts differ");
_Static_assert(sizeof(cuzk_g2_affine_t) == sizeof(cuzk_gpu_g2_affine_t), "G2 affine layouts differ");

enum { S_RANDOM, S_SPECIAL, S_BOOL, S_ZERO, S_ONE, S_NO_ONES };
static const char *STYLE[] = {"random", "special", "bool90", "all-zero", "all-one", "no-ones"};

static void make_scalars(cuzk_fr_t *s, size_t n, int style, cuzk_test_rng_t *rng) {
  cuzk_fr_t one, rm1;
  cuzk_fr_from_u64(&one, 1);
  cuzk_fr_neg(&rm1, &one);
  for (size_t i = 0; i < n; i++) {
    const uint64_t c = cuzk_test_rng_next(rng) % 20;
    switch (style) {
      case S_RANDOM: random_fr(&s[i], rng); break;
      case S_SPECIAL:
        if (c < 4) cuzk_fr_from_u64(&s[i], 0);
        else if (c < 8) s[i] = one;
        else if (c < 12) s[i] = rm1;
        else if (c < 14) cuzk_fr_from_u64(&s[i], 2);
        else random_fr(&s[i], rng);
        break;
      case S_BOOL:
        if (c < 9) cuzk_fr_from_u64(&s[i], 0);
        else if (c < 18) s[i] = one;
        else if (c < 19) cuzk_fr_from_u64(&s[i], cuzk_test_rng_next(rng) & 0xffff);
        else random_fr(&s[i], rng);
        break;
      case S_ZERO: cuzk_fr_from_u64(&s[i], 0); break;
      case S_ONE: s[i] = one; break;
      default:
        random_fr(&s[i], rng);
        if (cuzk_fr_is_one(&s[i])) s[i] = rm1;
        break;
    }
  }
}

typedef struct {
  const curve_t *cv;
  void *aff;   /* host bases */
  void *dbase; /* device bases */
  cuzk_gpu_msm_t *ctx;
  cuzk_test_rng_t *rng;
  double cpu_s, gpu_s;
} env_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One CPU MSM and the GPU MSM under each flag set in `variants` (bit 0: canonical split,
 * bit 1: Montgomery split, bit 2: canonical no-split, bit 3: Montgomery no-split). */
static void run_case(env_t *e, size_t n, size_t off, int style, unsigned window, unsigned variants) {
  const curve_t *cv = e->cv;
  cuzk_fr_t *s = malloc((n ? n : 1) * sizeof(*s));
  uint64_t(*raw)[4] = malloc((n ? n : 1) * sizeof(*raw));
  make_scalars(s, n, style, e->rng);
  for (size_t i = 0; i < n; i++) cuzk_fr_to_raw(raw[i], &s[i]);
  uint8_t want[sizeof(cuzk_g2_t)], got[sizeof(cuzk_g2_t)];
  double t0 = now_s();
  cuzk_err_t err = cv->cpu_msm(want, (const char *)e->aff + off * cv->aff_size, s, n);
  e->cpu_s += now_s() - t0;
  CHECK(err == CUZK_OK, "cpu msm failed");
  static const unsigned FLAGS[4] = {0, CUZK_GPU_MSM_SCALARS_MONT, CUZK_GPU_MSM_NO_SPLIT01,
                                    CUZK_GPU_MSM_NO_SPLIT01 | CUZK_GPU_MSM_SCALARS_MONT};
  for (int v = 0; v < 4; v++) {
    if (!(variants >> v & 1)) continue;
    const unsigned fl = FLAGS[v];
    memset(got, 0x5a, sizeof(got));
    t0 = now_s();
    GPU_OK(cv->gpu_msm(e->ctx, e->dbase, off, (fl & CUZK_GPU_MSM_SCALARS_MONT) ? (const void *)s : (const void *)raw, n,
                       fl, window, got));
    e->gpu_s += now_s() - t0;
    const bool ok = cv->on_curve(got) && cv->eq(got, want);
    CHECK(ok, "%s n=%zu off=%zu %s window=%u %s %s: GPU MSM differs from the CPU MSM", cv->name, n, off, STYLE[style],
          window, fl & CUZK_GPU_MSM_SCALARS_MONT ? "mont" : "canonical", fl & CUZK_GPU_MSM_NO_SPLIT01 ? "no-split" : "split");
    printf("  %s n=%-6zu off=%-3zu %-8s w=%-2u %-9s %-8s %s\n", cv->name, n, off, STYLE[style], window,
           fl & CUZK_GPU_MSM_SCALARS_MONT ? "mont" : "canonical", fl & CUZK_GPU_MSM_NO_SPLIT01 ? "no-split" : "split",
           ok ? "ok" : "WRONG");
  }
  free(s);
  free(raw);
}

/* The comparison must notice a wrong answer: GPU result vs (CPU result + generator). */
static void self_check(env_t *e) {
  const curve_t *cv = e->cv;
  const size_t n = 100;
  cuzk_fr_t s[100];
  make_scalars(s, n, S_RANDOM, e->rng);
  uint8_t want[sizeof(cuzk_g2_t)], got[sizeof(cuzk_g2_t)];
  CHECK(cv->cpu_msm(want, e->aff, s, n) == CUZK_OK, "cpu msm failed");
  cv->add_gen(want);
  GPU_OK(cv->gpu_msm(e->ctx, e->dbase, 0, s, n, CUZK_GPU_MSM_SCALARS_MONT, 0, got));
  CHECK(!cv->eq(got, want), "%s self-check: a wrong expectation was accepted", cv->name);
  printf("  %s self-check: a wrong expectation is rejected\n", cv->name);
}

static void run_curve(const curve_t *cv, cuzk_gpu_msm_t *ctx, cuzk_test_rng_t *rng) {
  env_t e = {cv, malloc(NB * cv->aff_size), NULL, ctx, rng, 0, 0};
  double t0 = now_s();
  cv->make_bases(e.aff, NB, rng);
  e.dbase = cv->bases_new(e.aff, NB);
  printf("%s: %zu bases in %.2f s\n", cv->name, NB, now_s() - t0);
  self_check(&e);

  static const size_t SIZES[] = {1, 2, 3, 7, 100, 1000, 4097, 65539};
  for (size_t k = 0; k < sizeof(SIZES) / sizeof(SIZES[0]); k++) {
    const size_t n = SIZES[k], off = (k * 13) % 61;
    run_case(&e, n, off, S_RANDOM, 0, 0x3);
    run_case(&e, n, off, S_SPECIAL, 0, 0xf);
    run_case(&e, n, off, S_BOOL, 0, 0xf);
  }
  /* n = 1 corner cases: one, zero, a one on the infinity base (index 5), r-1 */
  run_case(&e, 1, 0, S_ONE, 0, 0xf);
  run_case(&e, 1, 0, S_ZERO, 0, 0xf);
  run_case(&e, 1, 5, S_ONE, 0, 0xf);
  run_case(&e, 1, 5, S_RANDOM, 0, 0x3);
  /* whole-vector corner cases: all zero, all one (empty tail), no ones (nothing to batch-add) */
  run_case(&e, 1000, 3, S_ZERO, 0, 0xf);
  run_case(&e, 4097, 0, S_ONE, 0, 0xf);
  run_case(&e, 65539, 17, S_ONE, 0, 0x3);
  run_case(&e, 4097, 1, S_NO_ONES, 0, 0x3);
  /* forced window sizes on the tail */
  run_case(&e, 4097, 9, S_BOOL, 3, 0x3);
  run_case(&e, 4097, 9, S_SPECIAL, 13, 0x5);
  printf("%s: CPU reference %.2f s, GPU %.2f s\n", cv->name, e.cpu_s, e.gpu_s);
  cv->bases_free(e.dbase);
  free(e.aff);
}

int main(void) {
  int ndev = 0;
  cuzk_gpu_status_t st = cuzk_gpu_device_count(&ndev);
  if (st.code != 0 || ndev == 0) {
    printf("SKIP: no CUDA device (%s)\n", st.message[0] ? st.message : "count is 0");
    return CUZK_TEST_SKIP;
  }
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  cuzk_gpu_msm_t *ctx = NULL;
  GPU_OK(cuzk_gpu_msm_new(&ctx, 0));
  run_curve(&g1_curve, ctx, &rng);
  run_curve(&g2_curve, ctx, &rng);

  /* bad arguments on G2 */
  cuzk_gpu_g2_bases_t *b = NULL;
  cuzk_g2_affine_t one_pt;
  cuzk_g2_affine_generator(&one_pt);
  GPU_OK(cuzk_gpu_g2_bases_new(&b, 0, (const cuzk_gpu_g2_affine_t *)&one_pt, 1));
  CHECK(cuzk_gpu_g2_bases_count(b) == 1, "g2 bases count");
  uint64_t sc[2][4] = {{1, 0, 0, 0}, {2, 0, 0, 0}};
  cuzk_gpu_g2_jac_t out;
  CHECK(cuzk_gpu_msm_g2(ctx, b, 0, sc, 2, 0, 0, &out).code != 0, "out-of-range G2 MSM accepted");
  CHECK(cuzk_gpu_msm_g2(ctx, b, 0, sc, 1, 0, 1, &out).code != 0, "G2 window 1 accepted");
  GPU_OK(cuzk_gpu_msm_g2(ctx, b, 1, sc, 0, 0, 0, &out));
  CHECK(out.z[0][0] == 0 && out.z[1][5] == 0, "empty G2 MSM is not infinity");
  cuzk_gpu_g2_bases_free(b);

  cuzk_gpu_msm_free(ctx);
  printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
  return failures ? 1 : 0;
}
