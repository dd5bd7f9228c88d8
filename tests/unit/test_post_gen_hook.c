/* The chunk-root provider hook of core/filecoin/post_gen: a provider written here (its own
 * splitmix64 and per-hash Poseidon) gives the CPU-only bytes for 8-0-0 and a small 8-8-0 tree
 * at several chunk sizes; a corrupted root of an unchallenged chunk changes comm_r_last, one of
 * a challenged chunk is CUZK_ERR_CHECKSUM; provider errors pass through. The leaf draw is
 * checked against GMP (512-bit integer mod r). */
#include "tests/support/testlib.h"

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "core/filecoin/post_gen.h"
#include "core/hash/poseidon.h"

static uint64_t g_seed;
static uint8_t g_rand[32];

static uint64_t sm(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void my_leaf(cuzk_fr_t *out, uint64_t seed, uint64_t i) {
  uint64_t s = seed + i * 8 * 0x9e3779b97f4a7c15ull;
  uint8_t b[64];
  for (int k = 0; k < 8; k++) {
    uint64_t x = sm(&s);
    for (int j = 0; j < 8; j++) b[8 * k + j] = (uint8_t)(x >> (8 * j));
  }
  cuzk_fr_from_le_wide(out, b);
}

typedef struct {
  int calls;
  uint64_t last_count, last_first;
  int corrupt;      /* 1: add one to root `victim` */
  uint64_t victim;
  int fail;         /* return CUZK_ERR_GPU */
} prov_t;

static cuzk_err_t my_roots(void *ctx, cuzk_fr_t *roots, uint64_t seed, uint64_t first,
                           uint64_t count, uint64_t chunk_leaves, const unsigned *ar,
                           unsigned levels, char *errstr, size_t errstr_size) {
  prov_t *p = ctx;
  p->calls++;
  p->last_count = count;
  p->last_first = first;
  if (p->fail) return cuzk_errf(CUZK_ERR_GPU, errstr, errstr_size, "test provider fails");
  cuzk_fr_t *t = malloc(chunk_leaves * sizeof *t);
  if (!t) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "test provider: no memory");
  for (uint64_t k = 0; k < count; k++) {
    uint64_t n = chunk_leaves;
    for (uint64_t j = 0; j < n; j++) my_leaf(&t[j], seed, (first + k) * chunk_leaves + j);
    for (unsigned l = 0; l < levels; l++) {
      for (uint64_t j = 0; j < n / ar[l]; j++) cuzk_poseidon_hash(&t[j], ar[l], &t[j * ar[l]]);
      n /= ar[l];
    }
    if (n != 1) {
      free(t);
      return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "test provider: bad levels");
    }
    roots[k] = t[0];
    if (p->corrupt && first + k == p->victim) {
      cuzk_fr_add(&roots[k], &roots[k], &CUZK_FR_ONE);
    }
  }
  free(t);
  return CUZK_OK;
}

static cuzk_post_proof_info_t small_880(void) {
  cuzk_post_proof_info_t sub = *cuzk_filecoin_post_info(3); /* 32GiB WinningPoSt, 8-8-0 */
  sub.shape.base_height = 2;
  sub.sector_size = 8 * 64 * 32;
  return sub;
}

static void test_leaf_gmp(void **state) {
  (void)state;
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, g_seed ^ 1);
  mpz_t v, m, got;
  mpz_inits(v, m, got, NULL);
  mpz_set_str(m, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
  for (int it = 0; it < 200; it++) {
    uint64_t seed = cuzk_test_rng_next(&r), i = it < 100 ? cuzk_test_rng_next(&r) >> 34
                                                          : cuzk_test_rng_next(&r);
    uint64_t s = seed + 8 * i * 0x9e3779b97f4a7c15ull, w[8];
    for (int k = 0; k < 8; k++) w[k] = sm(&s);
    mpz_import(v, 8, -1, 8, 0, 0, w);
    mpz_mod(v, v, m);
    cuzk_fr_t f;
    cuzk_filecoin_post_gen_leaf(&f, seed, i);
    uint8_t b[32];
    cuzk_fr_to_le(b, &f);
    mpz_import(got, 32, -1, 1, 0, 0, b);
    if (mpz_cmp(got, v) != 0) fail_msg("leaf seed %llu i %llu differs", (unsigned long long)seed,
                                       (unsigned long long)i);
  }
  mpz_clears(v, m, got, NULL);
}

static void test_roots_cpu(void **state) {
  (void)state;
  unsigned ar[3] = {8, 8, 8};
  cuzk_fr_t a[5], b[5];
  char err[256];
  prov_t p = {0};
  for (unsigned levels = 0; levels <= 2; levels++) {
    uint64_t cl = levels == 0 ? 1 : levels == 1 ? 8 : 64;
    assert_int_equal(cuzk_filecoin_post_gen_roots_cpu(NULL, a, g_seed, 3, 5, cl, ar, levels, err,
                                                      sizeof err),
                     CUZK_OK);
    assert_int_equal(my_roots(&p, b, g_seed, 3, 5, cl, ar, levels, err, sizeof err), CUZK_OK);
    for (int k = 0; k < 5; k++) assert_true(cuzk_fr_eq(&a[k], &b[k]));
  }
  assert_int_equal(cuzk_filecoin_post_gen_roots_cpu(NULL, a, g_seed, 0, 1, 65, ar, 2, err,
                                                    sizeof err),
                   CUZK_ERR_INVALID_ARG);
}

static void test_hook_bytes(void **state) {
  (void)state;
  cuzk_post_proof_info_t sub = small_880();
  const cuzk_post_proof_info_t *infos[2] = {cuzk_filecoin_post_info(0), &sub};
  for (int k = 0; k < 2; k++) {
    uint64_t leaves = infos[k]->sector_size / 32;
    uint64_t chunk_sizes[3] = {1, 8, 64};
    for (int c = 0; c < 3; c++) {
      uint8_t *ref = NULL, *b = NULL;
      size_t rl, bl;
      char err[256];
      assert_int_equal(cuzk_filecoin_post_gen_chunked(&ref, &rl, infos[k], g_rand, 7, 0, g_seed,
                                                      chunk_sizes[c], err, sizeof err),
                       CUZK_OK);
      prov_t p = {0};
      cuzk_post_gen_provider_t pv = {my_roots, &p};
      if (cuzk_filecoin_post_gen_ext(&b, &bl, infos[k], g_rand, 7, 0, g_seed, chunk_sizes[c], &pv,
                                     err, sizeof err) != CUZK_OK)
        fail_msg("shape %d chunk %llu: %s", k, (unsigned long long)chunk_sizes[c], err);
      assert_int_equal(p.calls, 1);
      assert_int_equal(p.last_first, 0);
      assert_int_equal(p.last_count, leaves / chunk_sizes[c]);
      assert_int_equal(bl, rl);
      assert_memory_equal(b, ref, rl);
      free(b), free(ref);
    }
  }
}

static void test_hook_corrupt(void **state) {
  (void)state;
  cuzk_post_proof_info_t sub = small_880();
  uint64_t ch[66];
  cuzk_filecoin_sector_challenges(ch, &sub, g_rand, 7, 0);
  int hit[512] = {0};
  for (unsigned c = 0; c < sub.challenges_per_sector; c++) hit[ch[c]] = 1;
  uint64_t free_leaf = 0;
  while (hit[free_leaf]) free_leaf++;
  assert_true(free_leaf < 512);
  uint8_t *ref = NULL, *b = NULL;
  size_t rl, bl;
  char err[256];
  assert_int_equal(
      cuzk_filecoin_post_gen_chunked(&ref, &rl, &sub, g_rand, 7, 0, g_seed, 1, err, sizeof err),
      CUZK_OK);
  /* an unchallenged chunk: taken as given, so comm_r differs */
  prov_t p = {.corrupt = 1, .victim = free_leaf};
  cuzk_post_gen_provider_t pv = {my_roots, &p};
  assert_int_equal(
      cuzk_filecoin_post_gen_ext(&b, &bl, &sub, g_rand, 7, 0, g_seed, 1, &pv, err, sizeof err),
      CUZK_OK);
  assert_int_equal(bl, rl);
  assert_memory_not_equal(b + 8, ref + 8, 32);
  free(b);
  b = NULL;
  /* a challenged chunk: caught */
  p = (prov_t){.corrupt = 1, .victim = ch[5]};
  assert_int_equal(
      cuzk_filecoin_post_gen_ext(&b, &bl, &sub, g_rand, 7, 0, g_seed, 1, &pv, err, sizeof err),
      CUZK_ERR_CHECKSUM);
  assert_null(b);
  assert_non_null(strstr(err, "mismatch"));
  /* chunks of 64 leaves: chunk ch[0] / 64 */
  p = (prov_t){.corrupt = 1, .victim = ch[0] / 64};
  assert_int_equal(
      cuzk_filecoin_post_gen_ext(&b, &bl, &sub, g_rand, 7, 0, g_seed, 64, &pv, err, sizeof err),
      CUZK_ERR_CHECKSUM);
  /* provider error passes through */
  p = (prov_t){.fail = 1};
  assert_int_equal(
      cuzk_filecoin_post_gen_ext(&b, &bl, &sub, g_rand, 7, 0, g_seed, 8, &pv, err, sizeof err),
      CUZK_ERR_GPU);
  assert_non_null(strstr(err, "test provider"));
  assert_null(b);
  free(ref);
}

int main(void) {
  g_seed = cuzk_test_seed();
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, g_seed);
  cuzk_test_rng_bytes(&r, g_rand, 32);
  g_rand[31] &= 0x3f;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_leaf_gmp),
      cmocka_unit_test(test_roots_cpu),
      cmocka_unit_test(test_hook_bytes),
      cmocka_unit_test(test_hook_corrupt),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
