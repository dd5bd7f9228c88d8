/* Device Fr/Fp arithmetic against GMP on fresh random inputs plus edge values. */
#include "tests/gpu/gpu_ref.h"

static void edge_or_random(mpz_t out, size_t i, cuzk_test_rng_t *rng, const mpz_t m) {
  switch (i % 16) {
    case 0: mpz_set_ui(out, 0); break;
    case 1: mpz_set_ui(out, 1); break;
    case 2: mpz_sub_ui(out, m, 1); break;
    case 3: mpz_sub_ui(out, m, 2); break;
    case 4: mpz_set_ui(out, 0xffffffffu); break;
    case 5: mpz_tdiv_q_2exp(out, m, 1); break;
    default: ref_random_mod(out, rng, m); break;
  }
}

static void check_field(int is_p, size_t n, cuzk_test_rng_t *rng) {
  const int nl = is_p ? 6 : 4;
  const mpz_t *m = is_p ? &REF_P : &REF_R;
  uint64_t *a = calloc(n * nl, 8), *b = calloc(n * nl, 8), *o = calloc(n * nl, 8);
  mpz_t *ea = malloc(n * sizeof(mpz_t)), *eb = malloc(n * sizeof(mpz_t));
  for (size_t i = 0; i < n; i++) {
    mpz_inits(ea[i], eb[i], NULL);
    edge_or_random(ea[i], i, rng, *m);
    edge_or_random(eb[i], i / 16 + i * 7, rng, *m);
    ref_to_mont(a + i * nl, ea[i], is_p);
    ref_to_mont(b + i * nl, eb[i], is_p);
  }
  const char *names[] = {"add", "sub", "mul", "sqr", "neg", "to_mont", "from_mont"};
  mpz_t want, got;
  mpz_inits(want, got, NULL);
  for (int op = 0; op <= CUZK_GPU_FOP_NEG; op++) {
    REF_GPU_OK(cuzk_gpu_field_op_host(0, is_p, (cuzk_gpu_fop_t)op, o, a, b, n));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
      switch (op) {
        case CUZK_GPU_FOP_ADD: mpz_add(want, ea[i], eb[i]); break;
        case CUZK_GPU_FOP_SUB: mpz_sub(want, ea[i], eb[i]); break;
        case CUZK_GPU_FOP_MUL: mpz_mul(want, ea[i], eb[i]); break;
        case CUZK_GPU_FOP_SQR: mpz_mul(want, ea[i], ea[i]); break;
        default: mpz_neg(want, ea[i]); break;
      }
      mpz_mod(want, want, *m);
      ref_from_limbs(got, o + i * nl, nl);
      int reduced = mpz_cmp(got, *m) < 0;
      ref_from_mont(got, o + i * nl, is_p);
      if (!reduced || mpz_cmp(want, got) != 0) {
        if (bad++ < 3) REF_CHECK(0, "%s %s n=%zu i=%zu: wrong result (reduced=%d)", is_p ? "fp" : "fr", names[op], n, i, reduced);
      }
    }
    if (bad) fprintf(stderr, "  %s %s: %d of %zu wrong\n", is_p ? "fp" : "fr", names[op], bad, n);
  }
  /* to_mont / from_mont on plain integers */
  for (size_t i = 0; i < n; i++) ref_to_limbs(a + i * nl, nl, ea[i]);
  REF_GPU_OK(cuzk_gpu_field_op_host(0, is_p, CUZK_GPU_FOP_TO_MONT, o, a, NULL, n));
  for (size_t i = 0; i < n; i++) {
    ref_from_mont(got, o + i * nl, is_p);
    REF_CHECK(mpz_cmp(got, ea[i]) == 0, "%s to_mont i=%zu", is_p ? "fp" : "fr", i);
  }
  REF_GPU_OK(cuzk_gpu_field_op_host(0, is_p, CUZK_GPU_FOP_FROM_MONT, b, o, NULL, n));
  REF_CHECK(memcmp(a, b, n * nl * 8) == 0, "%s from_mont(to_mont(x)) != x", is_p ? "fp" : "fr");
  mpz_clears(want, got, NULL);
  for (size_t i = 0; i < n; i++) mpz_clears(ea[i], eb[i], NULL);
  free(ea);
  free(eb);
  free(a);
  free(b);
  free(o);
}

int main(void) {
  ref_need_device();
  ref_init();
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  const size_t sizes[] = {1, 7, 1000, 4099, 100003};
  for (int is_p = 0; is_p < 2; is_p++)
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) check_field(is_p, sizes[k], &rng);
  /* a bad op is a typed error, not a crash */
  uint64_t x[4] = {0};
  cuzk_gpu_status_t s = cuzk_gpu_field_op_host(0, 0, (cuzk_gpu_fop_t)99, x, x, x, 1);
  REF_CHECK(s.code != 0, "bad op accepted");
  printf("%s (%d failures)\n", ref_failures ? "FAILED" : "ok", ref_failures);
  return ref_failures ? 1 : 0;
}
