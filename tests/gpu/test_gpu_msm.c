/* GPU G1 MSM against GMP. Bases have known discrete logs (P_i = k_i G, built by a GMP walk),
 * so any MSM equals (sum s_i k_i mod r) G, one GMP scalar multiplication; small cases are also
 * summed naively point by point. Cases: odd sizes, n = 1, zero scalars, infinity bases,
 * repeated bases, all-equal scalars (one giant bucket), Montgomery scalars, offsets, forced
 * window sizes, scalars already on the device, and bad arguments. */
#include "tests/gpu/gpu_ref.h"

#define NB 70000

static cuzk_gpu_g1_affine_t *gb; /* device-format bases */
static mpz_t klog[NB];           /* their discrete logs (0 for infinity) */

static void build_bases(cuzk_test_rng_t *rng) {
  ref_g1 G, Q[4], P;
  mpz_t q[4], k;
  ref_g1_init(&G);
  ref_g1_init(&P);
  mpz_init(k);
  ref_g1_gen(&G);
  for (int j = 0; j < 4; j++) {
    ref_g1_init(&Q[j]);
    mpz_init(q[j]);
    ref_random_mod(q[j], rng, REF_R);
    ref_g1_mul(&Q[j], &G, q[j]);
    REF_CHECK(ref_g1_on_curve(&Q[j]), "reference point off the curve");
  }
  ref_random_mod(k, rng, REF_R);
  ref_g1_mul(&P, &G, k);
  gb = malloc(NB * sizeof(*gb));
  for (size_t i = 0; i < NB; i++) {
    mpz_init(klog[i]);
    if (i % 997 == 13) { /* sprinkle infinity bases */
      memset(&gb[i], 0, sizeof(gb[i]));
      continue;
    }
    mpz_set(klog[i], k);
    ref_g1_to_gpu(&gb[i], &P);
    int j = (int)(cuzk_test_rng_next(rng) & 3);
    ref_g1_add(&P, &P, &Q[j]);
    mpz_add(k, k, q[j]);
    mpz_mod(k, k, REF_R);
  }
  REF_CHECK(ref_g1_on_curve(&P), "walk left the curve");
  ref_g1 chk;
  ref_g1_init(&chk);
  ref_g1_mul(&chk, &G, k);
  REF_CHECK(ref_g1_eq(&chk, &P), "walk's discrete log is wrong");
  ref_g1_clear(&chk);
  for (int j = 0; j < 4; j++) {
    ref_g1_clear(&Q[j]);
    mpz_clear(q[j]);
  }
  ref_g1_clear(&G);
  ref_g1_clear(&P);
  mpz_clear(k);
}

enum { S_RANDOM, S_SPARSE, S_ONES, S_EQUAL, S_SMALL };

/* Runs one MSM of n scalars of the given style over bases [offset, offset+n) (base index taken
 * mod `period` when period > 0: repeated bases) and checks it. */
static void run_case(cuzk_gpu_msm_t *ctx, cuzk_gpu_g1_bases_t *bases, cuzk_gpu_g1_bases_t *rep_bases, size_t n,
                     size_t offset, int style, unsigned flags, unsigned window, int naive, cuzk_test_rng_t *rng,
                     const char *name) {
  uint64_t *sc = malloc(n * 32 + 32);
  mpz_t s, sum, t, eq;
  mpz_inits(s, sum, t, eq, NULL);
  ref_random_mod(eq, rng, REF_R);
  ref_g1 want, got, G, term;
  ref_g1_init(&want);
  ref_g1_init(&got);
  ref_g1_init(&G);
  ref_g1_init(&term);
  ref_g1_gen(&G);
  mpz_set_ui(sum, 0);
  for (size_t i = 0; i < n; i++) {
    switch (style) {
      case S_RANDOM: ref_random_mod(s, rng, REF_R); break;
      case S_SPARSE: {
        uint64_t c = cuzk_test_rng_next(rng) % 8;
        if (c < 4) mpz_set_ui(s, 0);
        else if (c < 6) mpz_set_ui(s, 1);
        else if (c < 7) mpz_sub_ui(s, REF_R, 1);
        else ref_random_mod(s, rng, REF_R);
        break;
      }
      case S_ONES: mpz_set_ui(s, 1); break;
      case S_EQUAL: mpz_set(s, eq); break;
      default: mpz_set_ui(s, cuzk_test_rng_next(rng) % 70000); break;
    }
    if (flags & CUZK_GPU_MSM_SCALARS_MONT) ref_to_mont(sc + 4 * i, s, 0);
    else ref_to_limbs(sc + 4 * i, 4, s);
    const size_t bi = rep_bases ? (offset + i) % 1000 : offset + i;
    mpz_mul(t, s, klog[bi]);
    mpz_add(sum, sum, t);
    if (naive) {
      ref_g1 Pi;
      ref_g1_init(&Pi);
      ref_g1_mul(&Pi, &G, klog[bi]);
      if (mpz_sgn(klog[bi]) == 0) Pi.inf = true;
      ref_g1_mul(&term, &Pi, s);
      ref_g1_add(&got, &got, &term);
      ref_g1_clear(&Pi);
    }
  }
  mpz_mod(sum, sum, REF_R);
  ref_g1_mul(&want, &G, sum);
  if (naive) REF_CHECK(ref_g1_eq(&got, &want), "%s: naive sum disagrees with the discrete-log sum", name);

  const void *arg = sc;
  void *dsc = NULL;
  if (flags & CUZK_GPU_MSM_SCALARS_ON_DEVICE) {
    REF_GPU_OK(cuzk_gpu_malloc(0, n * 32, &dsc));
    REF_GPU_OK(cuzk_gpu_copy_h2d(0, dsc, sc, n * 32));
    arg = dsc;
  }
  cuzk_gpu_g1_jac_t out;
  memset(&out, 0x5a, sizeof(out));
  REF_GPU_OK(cuzk_gpu_msm_g1(ctx, rep_bases ? rep_bases : bases, rep_bases ? 0 : offset, arg, n, flags, window, &out));
  ref_g1_from_jac(&got, &out);
  REF_CHECK(ref_g1_on_curve(&got), "%s: result off the curve", name);
  REF_CHECK(ref_g1_eq(&got, &want), "%s: n=%zu offset=%zu window=%u flags=%u: wrong sum", name, n, offset, window, flags);
  if (dsc) cuzk_gpu_free(dsc);
  printf("  %-28s n=%-8zu %s\n", name, n, ref_g1_eq(&got, &want) ? "ok" : "WRONG");
  ref_g1_clear(&want);
  ref_g1_clear(&got);
  ref_g1_clear(&G);
  ref_g1_clear(&term);
  mpz_clears(s, sum, t, eq, NULL);
  free(sc);
}

int main(void) {
  ref_need_device();
  ref_init();
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  build_bases(&rng);
  cuzk_gpu_g1_bases_t *bases = NULL, *rep = NULL;
  REF_GPU_OK(cuzk_gpu_g1_bases_new(&bases, 0, gb, NB));
  /* repeated bases: a long array cycling through the first 1000 */
  const size_t NREP = (size_t)1 << 20;
  cuzk_gpu_g1_affine_t *rb = malloc(NREP * sizeof(*rb));
  for (size_t i = 0; i < NREP; i++) rb[i] = gb[i % 1000];
  REF_GPU_OK(cuzk_gpu_g1_bases_new(&rep, 0, rb, NREP));
  free(rb);
  cuzk_gpu_msm_t *ctx = NULL;
  REF_GPU_OK(cuzk_gpu_msm_new(&ctx, 0));

  run_case(ctx, bases, NULL, 1, 0, S_RANDOM, 0, 0, 1, &rng, "n=1");
  run_case(ctx, bases, NULL, 1, 0, S_ONES, 0, 0, 1, &rng, "n=1 scalar 1");
  run_case(ctx, bases, NULL, 1, 13, S_RANDOM, 0, 0, 1, &rng, "n=1 infinity base");
  run_case(ctx, bases, NULL, 2, 0, S_EQUAL, 0, 0, 1, &rng, "n=2 equal scalars");
  run_case(ctx, bases, NULL, 3, 5, S_RANDOM, 0, 0, 1, &rng, "n=3 offset 5");
  run_case(ctx, bases, NULL, 37, 0, S_SPARSE, 0, 0, 1, &rng, "n=37 sparse");
  run_case(ctx, bases, NULL, 100, 1, S_RANDOM, CUZK_GPU_MSM_SCALARS_MONT, 0, 1, &rng, "n=100 mont");
  run_case(ctx, bases, NULL, 1001, 0, S_RANDOM, 0, 0, 0, &rng, "n=1001");
  run_case(ctx, bases, NULL, 4096, 0, S_SMALL, 0, 0, 0, &rng, "n=4096 small scalars");
  run_case(ctx, bases, NULL, 5000, 0, S_RANDOM, 0, 2, 0, &rng, "n=5000 window 2");
  run_case(ctx, bases, NULL, 5000, 0, S_RANDOM, 0, 7, 0, &rng, "n=5000 window 7");
  run_case(ctx, bases, NULL, 5000, 0, S_RANDOM, 0, 16, 0, &rng, "n=5000 window 16");
  run_case(ctx, bases, NULL, 65537, 0, S_RANDOM, CUZK_GPU_MSM_SCALARS_ON_DEVICE, 0, 0, &rng, "n=65537 on device");
  run_case(ctx, bases, NULL, 65537, 3, S_SPARSE, CUZK_GPU_MSM_SCALARS_MONT, 0, 0, &rng, "n=65537 sparse mont");
  run_case(ctx, bases, NULL, 65536, 0, S_ONES, 0, 0, 0, &rng, "n=65536 all ones");
  run_case(ctx, bases, NULL, 65536, 0, S_EQUAL, 0, 13, 0, &rng, "n=65536 all equal");
  run_case(ctx, bases, rep, 1 << 20, 0, S_RANDOM, 0, 0, 0, &rng, "n=2^20 repeated bases");
  run_case(ctx, bases, rep, (1 << 20) - 3, 0, S_SPARSE, 0, 0, 0, &rng, "n=2^20-3 repeated sparse");

  cuzk_gpu_g1_jac_t out;
  uint64_t sc[4] = {1, 0, 0, 0};
  REF_CHECK(cuzk_gpu_msm_g1(ctx, bases, NB - 1, sc, 2, 0, 0, &out).code != 0, "out-of-range MSM accepted");
  REF_CHECK(cuzk_gpu_msm_g1(ctx, bases, 0, sc, 1, 0, 1, &out).code != 0, "window 1 accepted");
  REF_GPU_OK(cuzk_gpu_msm_g1(ctx, bases, 0, sc, 0, 0, 0, &out));
  REF_CHECK(out.z[0] == 0 && out.z[5] == 0, "empty MSM is not infinity");

  cuzk_gpu_msm_free(ctx);
  cuzk_gpu_g1_bases_free(bases);
  cuzk_gpu_g1_bases_free(rep);
  printf("%s (%d failures)\n", ref_failures ? "FAILED" : "ok", ref_failures);
  return ref_failures ? 1 : 0;
}
