/* GPU NTT against a GMP NTT written here (natural order, w = 7^((r-1)/n)): every kind, with and
 * without coset, sizes 2^1..2^14 fully compared; 2^16..2^22 by round trips plus spot
 * evaluations at random points (Horner in GMP). */
#include "tests/gpu/gpu_ref.h"

static unsigned brev(size_t x, unsigned bits) {
  size_t r = 0;
  for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
  return (unsigned)r;
}

/* X_k = sum_i x_i (c g^i) w^(ik) for a coset shift `shift` (1 for none), natural order. */
static void cpu_ntt(mpz_t *x, unsigned log_n, const mpz_t w, const mpz_t shift) {
  const size_t n = (size_t)1 << log_n;
  mpz_t t, u, wl, pw;
  mpz_inits(t, u, wl, pw, NULL);
  mpz_set_ui(pw, 1);
  for (size_t i = 0; i < n; i++) {
    mpz_mul(x[i], x[i], pw);
    mpz_mod(x[i], x[i], REF_R);
    mpz_mul(pw, pw, shift);
    mpz_mod(pw, pw, REF_R);
  }
  for (size_t i = 0; i < n; i++) {
    size_t j = brev(i, log_n);
    if (i < j) mpz_swap(x[i], x[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    mpz_powm_ui(wl, w, n / len, REF_R);
    for (size_t s = 0; s < n; s += len) {
      mpz_set_ui(pw, 1);
      for (size_t j = 0; j < len / 2; j++) {
        mpz_mul(t, x[s + j + len / 2], pw);
        mpz_mod(t, t, REF_R);
        mpz_sub(u, x[s + j], t);
        mpz_mod(x[s + j + len / 2], u, REF_R);
        mpz_add(u, x[s + j], t);
        mpz_mod(x[s + j], u, REF_R);
        mpz_mul(pw, pw, wl);
        mpz_mod(pw, pw, REF_R);
      }
    }
  }
  mpz_clears(t, u, wl, pw, NULL);
}

static void root(mpz_t w, unsigned log_n) {
  mpz_t e, g;
  mpz_inits(e, g, NULL);
  mpz_sub_ui(e, REF_R, 1);
  mpz_tdiv_q_2exp(e, e, log_n);
  mpz_set_ui(g, 7);
  mpz_powm(w, g, e, REF_R);
  mpz_clears(e, g, NULL);
}

static void fill_random(uint64_t *v, mpz_t *x, size_t n, cuzk_test_rng_t *rng) {
  for (size_t i = 0; i < n; i++) {
    ref_random_mod(x[i], rng, REF_R);
    ref_to_mont(v + 4 * i, x[i], 0);
  }
}

static int compare(const uint64_t *v, mpz_t *want, size_t n, int reversed, unsigned log_n, const char *what) {
  mpz_t got;
  mpz_init(got);
  int bad = 0;
  for (size_t k = 0; k < n; k++) {
    size_t at = reversed ? brev(k, log_n) : k;
    ref_from_mont(got, v + 4 * at, 0);
    if (mpz_cmp(got, want[k]) != 0 && bad++ < 3) REF_CHECK(0, "%s log_n=%u: element %zu differs", what, log_n, k);
  }
  mpz_clear(got);
  return bad;
}

static void full_check(cuzk_gpu_ntt_t *ctx, unsigned log_n, cuzk_test_rng_t *rng) {
  const size_t n = (size_t)1 << log_n;
  uint64_t *v = malloc(n * 32), *orig = malloc(n * 32);
  mpz_t *x = malloc(n * sizeof(mpz_t)), *y = malloc(n * sizeof(mpz_t));
  for (size_t i = 0; i < n; i++) mpz_inits(x[i], y[i], NULL);
  mpz_t w, winv, g, ginv, one, ninv;
  mpz_inits(w, winv, g, ginv, one, ninv, NULL);
  root(w, log_n);
  mpz_invert(winv, w, REF_R);
  mpz_set_ui(g, 7);
  mpz_invert(ginv, g, REF_R);
  mpz_set_ui(one, 1);
  mpz_set_ui(ninv, n);
  mpz_invert(ninv, ninv, REF_R);
  for (int coset = 0; coset < 2; coset++) {
    const unsigned fl = coset ? CUZK_GPU_NTT_COSET : 0;
    /* forward NR and NN */
    fill_random(v, x, n, rng);
    memcpy(orig, v, n * 32);
    for (size_t i = 0; i < n; i++) mpz_set(y[i], x[i]);
    cpu_ntt(y, log_n, w, coset ? g : one);
    REF_GPU_OK(cuzk_gpu_ntt_host(ctx, v, log_n, CUZK_GPU_NTT_FWD_NR, fl));
    compare(v, y, n, 1, log_n, coset ? "coset fwd_nr" : "fwd_nr");
    /* inverse RN brings it back */
    REF_GPU_OK(cuzk_gpu_ntt_host(ctx, v, log_n, CUZK_GPU_NTT_INV_RN, fl));
    REF_CHECK(memcmp(v, orig, n * 32) == 0, "log_n=%u coset=%d: inv_rn(fwd_nr(x)) != x", log_n, coset);
    REF_GPU_OK(cuzk_gpu_ntt_host(ctx, v, log_n, CUZK_GPU_NTT_FWD_NN, fl));
    compare(v, y, n, 0, log_n, coset ? "coset fwd_nn" : "fwd_nn");
    /* inverse NN of fresh data: x_i = n^-1 g^-i sum_k X_k w^-ik */
    fill_random(v, x, n, rng);
    for (size_t i = 0; i < n; i++) mpz_set(y[i], x[i]);
    cpu_ntt(y, log_n, winv, one);
    mpz_t pw;
    mpz_init_set_ui(pw, 1);
    for (size_t i = 0; i < n; i++) {
      mpz_mul(y[i], y[i], ninv);
      if (coset) mpz_mul(y[i], y[i], pw);
      mpz_mod(y[i], y[i], REF_R);
      mpz_mul(pw, pw, ginv);
      mpz_mod(pw, pw, REF_R);
    }
    mpz_clear(pw);
    REF_GPU_OK(cuzk_gpu_ntt_host(ctx, v, log_n, CUZK_GPU_NTT_INV_NN, fl));
    compare(v, y, n, 0, log_n, coset ? "coset inv_nn" : "inv_nn");
  }
  mpz_clears(w, winv, g, ginv, one, ninv, NULL);
  for (size_t i = 0; i < n; i++) mpz_clears(x[i], y[i], NULL);
  free(x);
  free(y);
  free(v);
  free(orig);
}

/* Large sizes: FWD_NR then spot-check X_k at a few k by Horner; then INV_RN round trip. */
static void spot_check(cuzk_gpu_ntt_t *ctx, unsigned log_n, int coset, cuzk_test_rng_t *rng) {
  const size_t n = (size_t)1 << log_n;
  uint64_t *v = malloc(n * 32), *orig = malloc(n * 32);
  mpz_t *x = malloc(n * sizeof(mpz_t));
  for (size_t i = 0; i < n; i++) mpz_init(x[i]);
  fill_random(v, x, n, rng);
  memcpy(orig, v, n * 32);
  REF_GPU_OK(cuzk_gpu_ntt_host(ctx, v, log_n, CUZK_GPU_NTT_FWD_NR, coset ? CUZK_GPU_NTT_COSET : 0));
  mpz_t w, pt, acc, got;
  mpz_inits(w, pt, acc, got, NULL);
  root(w, log_n);
  for (int s = 0; s < 3; s++) {
    size_t k = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)(cuzk_test_rng_next(rng) % n);
    mpz_powm_ui(pt, w, k, REF_R);
    if (coset) {
      mpz_mul_ui(pt, pt, 7);
      mpz_mod(pt, pt, REF_R);
    }
    mpz_set_ui(acc, 0);
    for (size_t i = n; i-- > 0;) {
      mpz_mul(acc, acc, pt);
      mpz_add(acc, acc, x[i]);
      mpz_mod(acc, acc, REF_R);
    }
    ref_from_mont(got, v + 4 * brev(k, log_n), 0);
    REF_CHECK(mpz_cmp(acc, got) == 0, "log_n=%u coset=%d: X_%zu differs from Horner", log_n, coset, k);
  }
  REF_GPU_OK(cuzk_gpu_ntt_host(ctx, v, log_n, CUZK_GPU_NTT_INV_RN, coset ? CUZK_GPU_NTT_COSET : 0));
  REF_CHECK(memcmp(v, orig, n * 32) == 0, "log_n=%u coset=%d: round trip differs", log_n, coset);
  mpz_clears(w, pt, acc, got, NULL);
  for (size_t i = 0; i < n; i++) mpz_clear(x[i]);
  free(x);
  free(v);
  free(orig);
}

int main(void) {
  ref_need_device();
  ref_init();
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  cuzk_gpu_ntt_t *ctx = NULL;
  REF_GPU_OK(cuzk_gpu_ntt_new(&ctx, 0));
  for (unsigned lg = 1; lg <= 14; lg++) full_check(ctx, lg, &rng);
  for (unsigned lg = 16; lg <= 22; lg += 3) spot_check(ctx, lg, lg & 1, &rng);
  uint64_t x[8] = {0};
  REF_CHECK(cuzk_gpu_ntt_host(ctx, x, 0, CUZK_GPU_NTT_FWD_NR, 0).code != 0, "log_n 0 accepted");
  REF_CHECK(cuzk_gpu_ntt_host(ctx, x, 28, CUZK_GPU_NTT_FWD_NR, 0).code != 0, "log_n 28 accepted");
  cuzk_gpu_ntt_free(ctx);
  printf("%s (%d failures)\n", ref_failures ? "FAILED" : "ok", ref_failures);
  return ref_failures ? 1 : 0;
}
