// cuzk-test: labels=gpu timeout=600
/* Device Poseidon (cuda/poseidon.cu) against core: hashes for arities 2, 4, 8, 11 on random
 * inputs vs cuzk_poseidon_hash (the sparse-matrix permutation; the device runs the textbook
 * one) and a few vs cuzk_poseidon_permute; the device leaf draw vs post_gen's leaf (and GMP);
 * chunk roots vs cuzk_filecoin_post_gen_roots_cpu, including 2^18-leaf chunks across a batch
 * boundary at a large first chunk; post_gen with the device provider == the CPU-only bytes for
 * small 8-8-0 trees and 512MiB 8-0-0; bad arguments give INVALID_ARG. */
#include "tests/gpu/gpu_ref.h"

#include "core/filecoin/post_gen.h"
#include "core/hash/poseidon.h"
#include "core/util/clock.h"

static double now_s(void) { return 1e-6 * (double)cuzk_now_us(); }

static uint64_t sm(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static cuzk_gpu_poseidon_t *ctx_for(unsigned arity) {
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  if (!p) {
    fprintf(stderr, "FAIL: no params for arity %u\n", arity);
    exit(1);
  }
  unsigned w = p->width;
  uint64_t mds[CUZK_POSEIDON_MAX_WIDTH * CUZK_POSEIDON_MAX_WIDTH * 4];
  for (unsigned i = 0; i < w; i++)
    for (unsigned j = 0; j < w; j++) memcpy(&mds[4 * (i * w + j)], p->mds[i][j].l, 32);
  cuzk_gpu_poseidon_t *ctx = NULL;
  REF_GPU_OK(cuzk_gpu_poseidon_new(&ctx, 0, arity, p->full_rounds, p->partial_rounds,
                                   (const uint64_t *)p->rc, mds, p->merkle_tag.l));
  return ctx;
}

static void random_fr(cuzk_fr_t *x, cuzk_test_rng_t *rng) {
  uint8_t b[64];
  cuzk_test_rng_bytes(rng, b, 64);
  cuzk_fr_from_le_wide(x, b);
}

static void check_hashes(unsigned arity, cuzk_test_rng_t *rng) {
  const size_t n = 10000 + 37;
  cuzk_gpu_poseidon_t *ctx = ctx_for(arity);
  cuzk_fr_t *in = malloc(n * arity * sizeof *in), *out = malloc(n * sizeof *out);
  for (size_t i = 0; i < n * arity; i++) random_fr(&in[i], rng);
  /* edge inputs: all zero, all r - 1 */
  memset(&in[0], 0, arity * sizeof *in);
  for (unsigned k = 0; k < arity; k++) cuzk_fr_sub(&in[arity + k], &in[0], &CUZK_FR_ONE);
  double t0 = now_s();
  REF_GPU_OK(cuzk_gpu_poseidon_hash_host(ctx, (uint64_t *)out, (const uint64_t *)in, n));
  double t1 = now_s();
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    cuzk_fr_t want;
    cuzk_poseidon_hash(&want, arity, &in[i * arity]);
    if (!cuzk_fr_eq(&want, &out[i]) && bad++ < 3) REF_CHECK(0, "arity %u hash %zu differs", arity, i);
  }
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  for (size_t i = 0; i < 8; i++) {
    cuzk_fr_t st[CUZK_POSEIDON_MAX_WIDTH];
    st[0] = p->merkle_tag;
    memcpy(&st[1], &in[i * arity], arity * sizeof *in);
    cuzk_poseidon_permute(p, st);
    REF_CHECK(cuzk_fr_eq(&st[1], &out[i]), "arity %u hash %zu vs textbook permutation", arity, i);
  }
  if (arity == 8) { /* the device-array entry */
    void *d_in = NULL, *d_out = NULL;
    REF_GPU_OK(cuzk_gpu_malloc(0, n * arity * 32, &d_in));
    REF_GPU_OK(cuzk_gpu_malloc(0, n * 32, &d_out));
    REF_GPU_OK(cuzk_gpu_copy_h2d(0, d_in, in, n * arity * 32));
    REF_GPU_OK(cuzk_gpu_poseidon_hash_device(ctx, d_out, d_in, n));
    cuzk_fr_t *o2 = malloc(n * sizeof *o2);
    REF_GPU_OK(cuzk_gpu_copy_d2h(0, o2, d_out, n * 32));
    REF_CHECK(memcmp(o2, out, n * 32) == 0, "hash_device differs from hash_host");
    free(o2);
    cuzk_gpu_free(d_in);
    cuzk_gpu_free(d_out);
  }
  printf("arity %2u: %zu hashes, %d mismatches, %.1f ms (with copies)\n", arity, n, bad,
         1e3 * (t1 - t0));
  free(in), free(out);
  cuzk_gpu_poseidon_free(ctx);
}

static void check_leaves(cuzk_gpu_poseidon_t *ctx, cuzk_test_rng_t *rng) {
  const size_t n = 4096;
  cuzk_fr_t *g = malloc(n * sizeof *g);
  uint64_t firsts[3] = {0, ((uint64_t)1 << 30) - n / 2, cuzk_test_rng_next(rng)};
  mpz_t v, got;
  mpz_inits(v, got, NULL);
  for (int f = 0; f < 3; f++) {
    uint64_t seed = f == 0 ? 1 : cuzk_test_rng_next(rng);
    REF_GPU_OK(cuzk_gpu_poseidon_leaves_host(ctx, (uint64_t *)g, seed, firsts[f], n));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
      cuzk_fr_t want;
      cuzk_filecoin_post_gen_leaf(&want, seed, firsts[f] + i);
      if (!cuzk_fr_eq(&want, &g[i]) && bad++ < 3)
        REF_CHECK(0, "leaf %llu (seed %llu) differs", (unsigned long long)(firsts[f] + i),
                  (unsigned long long)seed);
    }
    for (size_t i = 0; i < n; i += 97) { /* GMP: the 512-bit draw mod r */
      uint64_t s = seed + 8 * (firsts[f] + i) * 0x9e3779b97f4a7c15ull, w[8];
      for (int k = 0; k < 8; k++) w[k] = sm(&s);
      mpz_import(v, 8, -1, 8, 0, 0, w);
      mpz_mod(v, v, REF_R);
      ref_from_mont(got, g[i].l, 0);
      REF_CHECK(mpz_cmp(v, got) == 0, "leaf %llu vs GMP", (unsigned long long)(firsts[f] + i));
    }
  }
  mpz_clears(v, got, NULL);
  free(g);
}

static void check_roots(cuzk_gpu_poseidon_t *ctx, uint64_t chunk_leaves, unsigned levels,
                        uint64_t first, uint64_t count, uint64_t seed) {
  unsigned ar[16];
  for (unsigned l = 0; l < 16; l++) ar[l] = 8;
  cuzk_fr_t *g = malloc(count * sizeof *g), *c = malloc(count * sizeof *c);
  REF_GPU_OK(cuzk_gpu_poseidon_chunk_roots(ctx, (uint64_t *)g, seed, first, count, chunk_leaves,
                                           ar, levels));
  char err[256];
  if (cuzk_filecoin_post_gen_roots_cpu(NULL, c, seed, first, count, chunk_leaves, ar, levels, err,
                                       sizeof err) != CUZK_OK) {
    REF_CHECK(0, "roots_cpu: %s", err);
  } else {
    for (uint64_t k = 0; k < count; k++)
      REF_CHECK(cuzk_fr_eq(&g[k], &c[k]), "chunk root %llu (chunks of %llu) differs",
                (unsigned long long)(first + k), (unsigned long long)chunk_leaves);
  }
  free(g), free(c);
}

/* 2^18-leaf chunks (the generator's), 1027 of them from a first chunk near 2^30 leaves: two
 * batches (2^10 chunks each) in one call; a few roots checked on the CPU (each ~2 s), and a
 * second call starting at the batch boundary must agree. */
static void check_big_roots(cuzk_gpu_poseidon_t *ctx, uint64_t seed) {
  const uint64_t cl = (uint64_t)1 << 18, first = 4096 - 1027, count = 1027;
  unsigned ar[6] = {8, 8, 8, 8, 8, 8};
  cuzk_fr_t *g = malloc(count * sizeof *g), *h = malloc(3 * sizeof *h);
  double t0 = now_s();
  REF_GPU_OK(cuzk_gpu_poseidon_chunk_roots(ctx, (uint64_t *)g, seed, first, count, cl, ar, 6));
  double t1 = now_s();
  printf("chunk roots: %llu chunks of 2^18 leaves in %.3f s (%.3g leaves/s)\n",
         (unsigned long long)count, t1 - t0, (double)(count * cl) / (t1 - t0));
  REF_GPU_OK(cuzk_gpu_poseidon_chunk_roots(ctx, (uint64_t *)h, seed, first + 1023, 3, cl, ar, 6));
  REF_CHECK(memcmp(h, &g[1023], 3 * sizeof *h) == 0, "roots across the batch boundary differ");
  uint64_t at[3] = {0, 1023, 1026};
  char err[256];
  for (int k = 0; k < 3; k++) {
    cuzk_fr_t c;
    if (cuzk_filecoin_post_gen_roots_cpu(NULL, &c, seed, first + at[k], 1, cl, ar, 6, err,
                                         sizeof err) != CUZK_OK)
      REF_CHECK(0, "roots_cpu: %s", err);
    else
      REF_CHECK(cuzk_fr_eq(&c, &g[at[k]]), "2^18 chunk %llu differs",
                (unsigned long long)(first + at[k]));
  }
  free(g), free(h);
}

static cuzk_err_t gpu_roots(void *ctx, cuzk_fr_t *roots, uint64_t seed, uint64_t first,
                            uint64_t count, uint64_t chunk_leaves, const unsigned *level_arity,
                            unsigned levels, char *errstr, size_t errstr_size) {
  cuzk_gpu_status_t st = cuzk_gpu_poseidon_chunk_roots(ctx, (uint64_t *)roots, seed, first, count,
                                                       chunk_leaves, level_arity, levels);
  if (st.code) return cuzk_errf((cuzk_err_t)st.code, errstr, errstr_size, "%s", st.message);
  return CUZK_OK;
}

static void check_post_gen(cuzk_gpu_poseidon_t *ctx, const cuzk_post_proof_info_t *info,
                           uint64_t max_chunk, const uint8_t rand[32], uint64_t seed) {
  uint8_t *a = NULL, *b = NULL;
  size_t al = 0, bl = 0;
  char err[256];
  double t0 = now_s();
  cuzk_err_t e = cuzk_filecoin_post_gen_chunked(&a, &al, info, rand, 5, 0, seed, max_chunk, err,
                                                sizeof err);
  double t1 = now_s();
  REF_CHECK(e == CUZK_OK, "cpu post_gen: %s", err);
  cuzk_post_gen_provider_t pv = {gpu_roots, ctx};
  e = cuzk_filecoin_post_gen_ext(&b, &bl, info, rand, 5, 0, seed, max_chunk, &pv, err,
                                 sizeof err);
  double t2 = now_s();
  REF_CHECK(e == CUZK_OK, "gpu post_gen: %s", err);
  if (a && b) REF_CHECK(al == bl && memcmp(a, b, al) == 0, "post_gen bytes differ (%s, %llu leaves, chunk %llu)",
                        info->name, (unsigned long long)(info->sector_size / 32),
                        (unsigned long long)max_chunk);
  printf("post_gen %s %llu leaves chunk %llu: cpu %.3f s, gpu provider %.3f s\n", info->name,
         (unsigned long long)(info->sector_size / 32), (unsigned long long)max_chunk, t1 - t0,
         t2 - t1);
  free(a), free(b);
}

int main(void) {
  ref_need_device();
  ref_init();
  uint64_t seed = cuzk_test_seed();
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, seed);
  const unsigned arities[4] = {2, 4, 8, 11};
  for (int k = 0; k < 4; k++) check_hashes(arities[k], &rng);

  cuzk_gpu_poseidon_t *ctx = ctx_for(8);
  check_leaves(ctx, &rng);
  uint64_t s2 = cuzk_test_rng_next(&rng);
  check_roots(ctx, 1, 0, 12345, 100, s2);
  check_roots(ctx, 8, 1, 0, 300, s2);
  check_roots(ctx, 64, 2, ((uint64_t)1 << 24) - 7, 50, s2);
  check_roots(ctx, 4096, 4, ((uint64_t)1 << 18) - 3, 6, s2);
  check_big_roots(ctx, s2);

  /* bad arguments */
  unsigned ar[3] = {8, 4, 8};
  uint64_t r4[4 * 4];
  REF_CHECK(cuzk_gpu_poseidon_chunk_roots(ctx, r4, 1, 0, 1, 256, ar, 3).code == CUZK_ERR_INVALID_ARG,
            "mixed arities accepted");
  ar[1] = 8;
  REF_CHECK(cuzk_gpu_poseidon_chunk_roots(ctx, r4, 1, 0, 1, 100, ar, 3).code == CUZK_ERR_INVALID_ARG,
            "wrong chunk size accepted");
  cuzk_gpu_poseidon_t *bad = NULL;
  REF_CHECK(cuzk_gpu_poseidon_new(&bad, 0, 3, 8, 57, r4, r4, r4).code == CUZK_ERR_INVALID_ARG && !bad,
            "arity 3 accepted");

  uint8_t rand[32];
  cuzk_test_rng_bytes(&rng, rand, 32);
  rand[31] &= 0x3f;
  cuzk_post_proof_info_t sub = *cuzk_filecoin_post_info(3); /* 32GiB WinningPoSt, 8-8-0 */
  sub.shape.base_height = 2;
  sub.sector_size = (uint64_t)8 * 64 * 32;
  check_post_gen(ctx, &sub, 8, rand, s2);
  check_post_gen(ctx, &sub, 64, rand, s2);
  check_post_gen(ctx, &sub, (uint64_t)1 << 18, rand, s2);
  sub.shape.base_height = 5;
  sub.sector_size = (uint64_t)8 * 32768 * 32;
  check_post_gen(ctx, &sub, 4096, rand, s2);
  const cuzk_post_proof_info_t *p512 = cuzk_filecoin_post_info(2); /* 512MiB WinningPoSt, 8-0-0 */
  if (p512 && p512->sector_size == ((uint64_t)512 << 20))
    check_post_gen(ctx, p512, 4096, rand, s2);
  else
    REF_CHECK(0, "post info 2 is not the 512MiB WinningPoSt");

  cuzk_gpu_poseidon_free(ctx);
  printf("%s (%d failures)\n", ref_failures ? "FAILED" : "ok", ref_failures);
  return ref_failures ? 1 : 0;
}
