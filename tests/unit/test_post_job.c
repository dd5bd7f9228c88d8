/* PoSt jobs (core/filecoin/post_job, the registry's partition rule, the agent's job binding) and
 * the streaming vanilla generator (core/filecoin/post_gen).
 *
 * Oracles: challenged leaves from OpenSSL SHA-256 computed here (randomness || sector id ||
 * challenge index, first 8 bytes LE mod leaves); tree roots from a flat arity-8 Poseidon tree
 * built here over the generator's documented leaf draw; inclusion paths through the vanilla
 * verifier (core/filecoin/vanilla, itself checked on the real 32GiB vector); padding against an
 * explicitly padded Vec built here byte by byte. */
#include "tests/support/testlib.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_engine.h"
#include "core/engine/engine_circuit.h"
#include "core/filecoin/post_gen.h"
#include "core/filecoin/post_job.h"
#include "core/filecoin/vanilla.h"
#include "core/groth16/circuits.h"
#include "core/hash/poseidon.h"

static uint8_t g_rand[32];
static uint64_t g_seed;

static uint8_t *gen(const cuzk_post_proof_info_t *info, uint64_t sector_id, uint64_t index,
                    uint64_t seed, size_t *len) {
  uint8_t *b = NULL;
  char err[256];
  if (cuzk_filecoin_post_gen(&b, len, info, g_rand, sector_id, index, seed, err, sizeof err) !=
      CUZK_OK)
    fail_msg("post_gen: %s", err);
  return b;
}

/* bincode Vec: u64 LE count, then the items */
static uint8_t *vec_of(uint8_t **items, const size_t *lens, size_t n, size_t *len) {
  size_t total = 8;
  for (size_t i = 0; i < n; i++) total += lens[i];
  uint8_t *b = malloc(total), *p = b + 8;
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)((uint64_t)n >> (8 * i));
  for (size_t i = 0; i < n; i++) memcpy(p, items[i], lens[i]), p += lens[i];
  *len = total;
  return b;
}

static uint64_t oracle_leaf(uint64_t sector_id, uint64_t challenge_index, uint64_t leaves) {
  uint8_t m[48], d[32];
  memcpy(m, g_rand, 32);
  for (int i = 0; i < 8; i++) m[32 + i] = (uint8_t)(sector_id >> (8 * i));
  for (int i = 0; i < 8; i++) m[40 + i] = (uint8_t)(challenge_index >> (8 * i));
  SHA256(m, sizeof m, d);
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | d[i];
  return v % leaves;
}

static void assert_fr_u64(const cuzk_fr_t *x, uint64_t v) {
  uint8_t b[32], w[32] = {0};
  cuzk_fr_to_le(b, x);
  for (int i = 0; i < 8; i++) w[i] = (uint8_t)(v >> (8 * i));
  assert_memory_equal(b, w, 32);
}

static uint8_t *job_payload(int proof, const uint64_t *ids, size_t n, const uint8_t *van,
                            size_t vlen, size_t *len) {
  uint8_t prover[32] = {0xe8, 0x07};
  cuzk_post_job_spec_t s = {proof, prover, g_rand, ids, n, van, vlen};
  uint8_t *out = NULL;
  assert_int_equal(cuzk_post_job_encode(&out, len, &s), CUZK_OK);
  return out;
}

static void witness(const char *circuit, const uint8_t *in, size_t len, uint32_t part,
                    cuzk_fr_t **inputs, uint64_t *ni, cuzk_err_t want) {
  const cuzk_circuit_t *c = cuzk_circuit_find(circuit);
  assert_non_null(c);
  cuzk_fr_t *aux = NULL;
  uint64_t na = 0;
  char err[512] = "";
  cuzk_err_t e = cuzk_circuit_witness_part(inputs, ni, &aux, &na, c, &c->defaults, in, len, part,
                                           err, sizeof err);
  if (e != want)
    fail_msg("%s partition %u: %s (%s), want %s", circuit, part, cuzk_err_name(e), err,
             cuzk_err_name(want));
  free(aux);
}

static cuzk_err_t parts(const char *circuit, const uint8_t *in, size_t len, uint32_t *n, char *err,
                        size_t errn) {
  const cuzk_circuit_t *c = cuzk_circuit_find(circuit);
  return cuzk_circuit_partitions(n, c, &c->defaults, in, len, err, errn);
}

/* 2KiB WindowPoSt V1_1, 3 sectors: 2 partitions; partition 1 is sector 3 padded with itself. */
static void test_window_partitions(void **state) {
  (void)state;
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(10);
  uint64_t ids[3] = {11, 12, 13};
  uint8_t *s[3];
  size_t sl[3], vl, pl;
  for (int i = 0; i < 3; i++) s[i] = gen(info, ids[i], (uint64_t)i, g_seed + (uint64_t)i, &sl[i]);
  uint8_t *van = vec_of(s, sl, 3, &vl);
  uint8_t *pay = job_payload(10, ids, 3, van, vl, &pl);
  uint32_t n = 0;
  char err[512];
  assert_int_equal(parts("window-post-2k", pay, pl, &n, err, sizeof err), CUZK_OK);
  assert_int_equal(n, 2);
  assert_int_equal(cuzk_post_job_partition_count(info, 2349), 1175);
  assert_int_equal(cuzk_post_job_partition_count(cuzk_filecoin_post_info(13), 2350), 2);

  cuzk_fr_t *in0 = NULL, *in1 = NULL, *pad = NULL;
  uint64_t n0, n1, np;
  witness("window-post-2k", pay, pl, 0, &in0, &n0, CUZK_OK);
  witness("window-post-2k", pay, pl, 1, &in1, &n1, CUZK_OK);
  assert_int_equal(n0, 23);
  assert_int_equal(n1, 23);
  /* public inputs: ONE, then per sector comm_r and its 10 challenged leaves (index n: V1_2) */
  for (int k = 0; k < 2; k++) {
    const cuzk_fr_t *x = k ? in1 : in0;
    for (int q = 0; q < 2; q++) {
      int sec = k ? 2 : q; /* partition 1: sector 13 twice */
      uint8_t b[32];
      cuzk_fr_to_le(b, &x[1 + 11 * q]);
      assert_memory_equal(b, s[sec] + 8, 32);
      for (int c = 0; c < 10; c++)
        assert_fr_u64(&x[2 + 11 * q + c], oracle_leaf(ids[sec], (uint64_t)c, 64));
    }
  }
  /* explicit padding: the raw Vec [s13, s13] gives partition 1's witness */
  uint8_t *pv[2] = {s[2], s[2]};
  size_t pvl[2] = {sl[2], sl[2]}, pvlen;
  uint8_t *padded = vec_of(pv, pvl, 2, &pvlen);
  witness("window-post-2k", padded, pvlen, 0, &pad, &np, CUZK_OK);
  assert_int_equal(np, n1);
  assert_memory_equal(pad, in1, np * sizeof *pad);
  free(pad);
  /* a raw (jobless) Vec of 3 splits the same way */
  witness("window-post-2k", van, vl, 1, &pad, &np, CUZK_OK);
  assert_memory_equal(pad, in1, np * sizeof *pad);
  free(pad);
  /* the engine's view: circuit type and partitions from the payload, witness per partition */
  cuzk__ecircuit_t ec;
  assert_int_equal(cuzk__ecircuit_resolve(&ec, "window-post-2k", err, sizeof err), CUZK_OK);
  assert_int_equal(ec.type, CUZK_PROOF_WINDOW_POST);
  assert_int_equal(cuzk__ecircuit_partitions(&ec, pay, pl, &n, err, sizeof err), CUZK_OK);
  assert_int_equal(n, 2);
  cuzk_fr_t *eaux = NULL;
  uint64_t ena;
  assert_int_equal(cuzk__ecircuit_witness(&ec, pay, pl, 1, &pad, &np, &eaux, &ena, err, sizeof err),
                   CUZK_OK);
  assert_int_equal(np, n1);
  assert_memory_equal(pad, in1, np * sizeof *pad);
  free(pad), free(eaux);
  pay[pl - 1] ^= 0xff; /* the last sector's comm_r_last, top byte: not canonical */
  assert_int_not_equal(cuzk__ecircuit_partitions(&ec, pay, pl, &n, err, sizeof err), CUZK_OK);
  pay[pl - 1] ^= 0xff;
  cuzk_fr_t *none = NULL;
  witness("window-post-2k", pay, pl, 2, &none, &np, CUZK_ERR_INVALID_ARG);
  /* a window job is not a winning circuit's */
  assert_int_equal(parts("winning-post-2k", pay, pl, &n, err, sizeof err), CUZK_ERR_BAD_JOB);
  free(in0), free(in1), free(padded), free(pay), free(van);
  for (int i = 0; i < 3; i++) free(s[i]);
}

static void test_winning(void **state) {
  (void)state;
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(0);
  uint64_t id = 77;
  size_t sl, pl, vl;
  uint8_t *s = gen(info, id, 0, g_seed, &sl);
  uint8_t *one[1] = {s};
  uint8_t *van = vec_of(one, &sl, 1, &vl);
  uint32_t n = 0;
  char err[512];
  for (int form = 0; form < 2; form++) { /* a Vec of one, or the bare proof */
    uint8_t *pay = job_payload(0, &id, 1, form ? s : van, form ? sl : vl, &pl);
    assert_int_equal(parts("winning-post-2k", pay, pl, &n, err, sizeof err), CUZK_OK);
    assert_int_equal(n, 1);
    cuzk_fr_t *in = NULL;
    uint64_t ni;
    witness("winning-post-2k", pay, pl, 0, &in, &ni, CUZK_OK);
    assert_int_equal(ni, 133);
    for (int c = 0; c < 66; c++) {
      uint8_t b[32];
      cuzk_fr_to_le(b, &in[1 + 2 * c]);
      assert_memory_equal(b, s + 8, 32);
      assert_fr_u64(&in[2 + 2 * c], oracle_leaf(id, (uint64_t)c, 64));
    }
    free(in);
    free(pay);
  }
  /* two sectors in a winning job */
  uint64_t two[2] = {77, 78};
  uint8_t *pay = job_payload(0, two, 2, van, vl, &pl);
  assert_int_equal(parts("winning-post-2k", pay, pl, &n, err, sizeof err), CUZK_ERR_BAD_JOB);
  free(pay), free(van), free(s);
}

static void expect_reject(const char *circuit, const uint8_t *pay, size_t pl, cuzk_err_t want,
                          const char *needle) {
  uint32_t n;
  char err[512] = "";
  cuzk_err_t e = parts(circuit, pay, pl, &n, err, sizeof err);
  if (e != want || !strstr(err, needle))
    fail_msg("%s: got %s '%s', want %s '%s'", circuit, cuzk_err_name(e), err, cuzk_err_name(want),
             needle);
}

static void test_rejects(void **state) {
  (void)state;
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(10);
  uint64_t ids[2] = {5, 6};
  uint8_t *s[2];
  size_t sl[2], vl, pl;
  for (int i = 0; i < 2; i++)
    s[i] = gen(info, ids[i], (uint64_t)i, g_seed + 9 + (uint64_t)i, &sl[i]);
  uint8_t *van = vec_of(s, sl, 2, &vl);
  /* truncated vanilla */
  uint8_t *pay = job_payload(10, ids, 2, van, vl - 1, &pl);
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_TRUNCATED, "vanilla");
  free(pay);
  /* wrong sector count: 3 ids, 2 proofs */
  uint64_t three[3] = {5, 6, 7};
  pay = job_payload(10, three, 3, van, vl, &pl);
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_VANILLA, "job names 3");
  free(pay);
  /* sector ids in the wrong order */
  uint64_t swapped[2] = {6, 5};
  pay = job_payload(10, swapped, 2, van, vl, &pl);
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_VANILLA, "job names sector 6");
  free(pay);
  /* other randomness: the opened leaves are not the challenged ones */
  g_rand[0] ^= 1;
  pay = job_payload(10, ids, 2, van, vl, &pl);
  g_rand[0] ^= 1;
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_VANILLA, "challenges leaf");
  free(pay);
  /* V1 (proof 5) derives other challenge indices for the second sector */
  pay = job_payload(5, ids, 2, van, vl, &pl);
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_VANILLA, "sector 6 challenge");
  free(pay);
  /* unknown proof, winning proof on the window circuit, 8MiB window on the 2KiB circuit */
  pay = job_payload(99, ids, 2, van, vl, &pl);
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_JOB, "unknown RegisteredPoStProof 99");
  free(pay);
  pay = job_payload(11, ids, 2, van, vl, &pl);
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_VANILLA, "tree shape");
  free(pay);
  /* a tampered sibling */
  van[8 + 8 + 32 + 8 + 8 + 4 + 64 + 8 + 8 + 3] ^= 1;
  pay = job_payload(10, ids, 2, van, vl, &pl);
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_VANILLA, "sector 5 challenge 0");
  free(pay);
  /* header damage */
  pay = job_payload(10, ids, 2, van, vl, &pl);
  expect_reject("window-post-2k", pay, pl - 1, CUZK_ERR_BAD_JOB, "vanilla length");
  pay[4] = 2;
  expect_reject("window-post-2k", pay, pl, CUZK_ERR_BAD_JOB, "version");
  free(pay);
  free(van);
  for (int i = 0; i < 2; i++) free(s[i]);
}

/* Above CUZK_POST_JOB_ADMIT_PATHS the paths are hashed per partition: a tampered path in
 * sector 5 passes admission and fails the witness of partition 2 only. */
static void test_large_deferred(void **state) {
  (void)state;
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(10);
  enum { N = CUZK_POST_JOB_ADMIT_PATHS / 10 + 2 };
  static uint8_t *s[N];
  static size_t sl[N];
  static uint64_t ids[N];
  for (size_t i = 0; i < N; i++) {
    ids[i] = 1000 + i;
    s[i] = gen(info, ids[i], i, g_seed + i, &sl[i]);
  }
  size_t vl, pl;
  uint8_t *van = vec_of(s, sl, N, &vl);
  van[8 + 5 * sl[0] + 140 + 3] ^= 1; /* a sibling of sector 5's first path */
  uint8_t *pay = job_payload(10, ids, N, van, vl, &pl);
  uint32_t n = 0;
  char err[512];
  assert_int_equal(parts("window-post-2k", pay, pl, &n, err, sizeof err), CUZK_OK);
  assert_int_equal(n, (N + 1) / 2);
  cuzk_fr_t *in = NULL;
  uint64_t ni;
  witness("window-post-2k", pay, pl, 0, &in, &ni, CUZK_OK);
  free(in);
  witness("window-post-2k", pay, pl, 2, &in, &ni, CUZK_ERR_BAD_VANILLA);
  free(pay), free(van);
  for (size_t i = 0; i < N; i++) free(s[i]);
}

static void test_agent_prepare(void **state) {
  (void)state;
  int64_t ids[1] = {1};
  uint8_t van[8] = {0};
  cuzk_agent_job_t j = {.job_id = "j",
                        .type = 0,
                        .payload = van,
                        .payload_len = 8,
                        .registered_proof = 0,
                        .sector_size = 2048,
                        .miner_id = 1000,
                        .randomness = g_rand,
                        .randomness_len = 32,
                        .sector_ids = ids,
                        .n_sector_ids = 1};
  const char *c;
  uint8_t *p;
  size_t pl;
  char err[512];
  assert_int_equal(cuzk_agent_post_prepare(&j, &c, &p, &pl, err, sizeof err), CUZK_OK);
  assert_string_equal(c, "winning-post-2k");
  assert_int_equal(pl, CUZK_POST_JOB_HEADER_BYTES + 8 + 8);
  static const uint8_t prover[32] = {0xe8, 0x07}; /* 1000 as unsigned LEB128 */
  assert_memory_equal(p + 16, prover, 32);
  assert_memory_equal(p + 48, g_rand, 32);
  free(p);
  struct {
    int type;
    int64_t proof, ss;
    size_t rlen;
    cuzk_err_t want;
  } cases[] = {
      {0, 1, 8 << 20, 32, CUZK_ERR_UNSUPPORTED}, /* 8MiB winning: no circuit */
      {0, 99, 2048, 32, CUZK_ERR_BAD_JOB},
      {0, 10, 2048, 32, CUZK_ERR_BAD_JOB}, /* window proof in a winning job */
      {1, 10, 4096, 32, CUZK_ERR_BAD_JOB}, /* sector size disagrees */
      {1, 13, 34359738368, 31, CUZK_ERR_BAD_JOB},
      {1, 13, 34359738368, 32, CUZK_OK},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    j.type = cases[i].type;
    j.registered_proof = cases[i].proof;
    j.sector_size = cases[i].ss;
    j.randomness_len = cases[i].rlen;
    cuzk_err_t e = cuzk_agent_post_prepare(&j, &c, &p, &pl, err, sizeof err);
    if (e != cases[i].want) fail_msg("case %zu: %s (%s)", i, cuzk_err_name(e), err);
    if (e == CUZK_OK) assert_string_equal(c, "window-post-32g");
    free(p);
  }
}

static void flat_root(cuzk_fr_t *root, uint64_t seed, uint64_t leaves) {
  cuzk_fr_t *t = malloc(leaves * sizeof *t);
  uint64_t s = seed;
  for (uint64_t i = 0; i < leaves; i++) {
    uint8_t b[64];
    for (int k = 0; k < 8; k++) {
      uint64_t z = (s += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      memcpy(b + 8 * k, &z, 8);
    }
    cuzk_fr_from_le_wide(&t[i], b);
  }
  for (uint64_t n = leaves; n > 1; n /= 8)
    for (uint64_t i = 0; i < n / 8; i++) cuzk_poseidon_hash(&t[i], 8, &t[8 * i]);
  *root = t[0];
  free(t);
}

/* The generator on 8-0-0 (2KiB) and on a small 8-8-0 tree (8 base trees of 64 leaves), for
 * several chunk sizes: same bytes, root equal to the flat tree's, every path verifies against
 * the shape and opens the SHA-256 challenged leaf. */
static void test_gen_shapes(void **state) {
  (void)state;
  cuzk_post_proof_info_t sub = *cuzk_filecoin_post_info(3); /* 32GiB WinningPoSt, 8-8-0 */
  sub.shape.base_height = 2;
  sub.sector_size = 8 * 64 * 32;
  const cuzk_post_proof_info_t *infos[2] = {cuzk_filecoin_post_info(0), &sub};
  for (int k = 0; k < 2; k++) {
    const cuzk_post_proof_info_t *info = infos[k];
    uint64_t leaves = info->sector_size / 32;
    size_t len;
    uint8_t *ref = gen(info, 42, 0, g_seed, &len);
    uint64_t chunk_sizes[3] = {1, 8, 64};
    for (int c = 0; c < 3; c++) {
      uint8_t *b = NULL;
      size_t bl;
      char err[256];
      assert_int_equal(cuzk_filecoin_post_gen_chunked(&b, &bl, info, g_rand, 42, 0, g_seed,
                                                      chunk_sizes[c], err, sizeof err),
                       CUZK_OK);
      assert_int_equal(bl, len);
      assert_memory_equal(b, ref, len);
      free(b);
    }
    cuzk_vanilla_post_t *v = NULL;
    char err[256];
    assert_int_equal(cuzk_vanilla_post_decode(&v, ref, len, err, sizeof err), CUZK_OK);
    const cuzk_sector_proof_t *sp = &v->items[0].sectors[0];
    cuzk_fr_t root;
    uint8_t rb[32];
    flat_root(&root, g_seed, leaves);
    cuzk_fr_to_le(rb, &root);
    assert_memory_equal(rb, sp->comm_r_last, 32);
    assert_int_equal(sp->n_proofs, 66);
    for (size_t c = 0; c < sp->n_proofs; c++) {
      assert_int_equal(sp->proofs[c].kind, k ? CUZK_MERKLE_SUB : CUZK_MERKLE_SINGLE);
      uint64_t leaf;
      if (cuzk_vanilla_merkle_verify(&sp->proofs[c], &info->shape, sp->comm_r_last, &leaf, err,
                                     sizeof err) != CUZK_OK)
        fail_msg("shape %d challenge %zu: %s", k, c, err);
      assert_int_equal(leaf, oracle_leaf(42, c, leaves));
    }
    assert_int_equal(
        cuzk_vanilla_comm_r_check(sp->comm_c, sp->comm_r_last, v->items[0].comm_r, NULL), CUZK_OK);
    cuzk_vanilla_post_free(v);
    free(ref);
  }
  /* a shape that does not hold the sector */
  sub.sector_size *= 2;
  uint8_t *b = NULL;
  size_t bl;
  char err[256];
  assert_int_equal(cuzk_filecoin_post_gen(&b, &bl, &sub, g_rand, 1, 0, 1, err, sizeof err),
                   CUZK_ERR_UNSUPPORTED);
}

int main(void) {
  g_seed = cuzk_test_seed();
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, g_seed);
  cuzk_test_rng_bytes(&r, g_rand, 32);
  g_rand[31] &= 0x3f;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_window_partitions), cmocka_unit_test(test_winning),
      cmocka_unit_test(test_rejects),           cmocka_unit_test(test_large_deferred),
      cmocka_unit_test(test_agent_prepare),     cmocka_unit_test(test_gen_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
