/* Decoder robustness (deterministic, runs under gcc; tests/fuzz/fuzz_params.c is the libFuzzer
 * counterpart): every truncation and seeded bit flips of a real .params, .vk and proof give a
 * typed error or a still-valid object, never a crash; oversized length prefixes fail before
 * allocating; an on-curve point outside the subgroup is caught unless the file is trusted;
 * points at infinity are refused where bellperson refuses them. */
#include "tests/support/testlib.h"

#include <stdlib.h>
#include <string.h>

#include "core/groth16/groth16.h"
#include "core/groth16/prove.h"
#include "core/groth16/setup.h"
#include "core/groth16/snarkjs.h"
#include "core/groth16/verify.h"
#include "core/r1cs/cs.h"

static cuzk_groth16_params_t *P;
static cuzk_r1cs_t *R;
static cuzk_fr_t *IN, *AUX;
static uint64_t NIN, NAUX;
static uint8_t *PBUF, *VBUF;
static size_t PLEN, VLEN;

static int group_setup(void **state) {
  (void)state;
  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD | CUZK_CS_WITNESS, err, sizeof err);
  cuzk_fr_t a, b, c;
  cuzk_fr_from_u64(&a, 11);
  cuzk_fr_from_u64(&b, 13);
  cuzk_fr_mul(&c, &a, &b);
  cuzk_var_t va = cuzk_cs_alloc_aux(cs, &a), vb = cuzk_cs_alloc_aux(cs, &b),
             vc = cuzk_cs_alloc_input(cs, &c);
  cuzk_lc_t la, lb, lc;
  cuzk_lc_init(&la), cuzk_lc_init(&lb), cuzk_lc_init(&lc);
  cuzk_lc_add(&la, va), cuzk_lc_add(&lb, vb), cuzk_lc_add(&lc, vc);
  cuzk_cs_enforce(cs, &la, &lb, &lc);
  cuzk_lc_free(&la), cuzk_lc_free(&lb), cuzk_lc_free(&lc);
  if (cuzk_cs_finish(cs, &R, err, sizeof err) != CUZK_OK) return -1;
  if (cuzk_cs_take_witness(cs, &IN, &NIN, &AUX, &NAUX) != CUZK_OK) return -1;
  cuzk_cs_free(cs);
  cuzk_groth16_toxic_t t;
  cuzk_groth16_toxic_from_seed(&t, 99);
  if (cuzk_groth16_setup(&P, R, &t, err, sizeof err) != CUZK_OK) return -1;
  PLEN = cuzk_groth16_params_size(P);
  PBUF = malloc(PLEN);
  cuzk_groth16_params_encode(PBUF, P);
  VLEN = cuzk_groth16_vk_size(&P->vk);
  VBUF = malloc(VLEN);
  cuzk_groth16_vk_encode(VBUF, &P->vk);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  cuzk_groth16_params_free(P);
  cuzk_r1cs_free(R);
  free(IN), free(AUX), free(PBUF), free(VBUF);
  return 0;
}

static bool typed(cuzk_err_t e) {
  switch (e) {
    case CUZK_ERR_TRUNCATED:
    case CUZK_ERR_PARSE:
    case CUZK_ERR_BAD_FLAGS:
    case CUZK_ERR_NON_CANONICAL:
    case CUZK_ERR_NOT_ON_CURVE:
    case CUZK_ERR_NOT_IN_SUBGROUP:
    case CUZK_ERR_BAD_PARAMS:
    case CUZK_ERR_BAD_PROOF:
      return true;
    default:
      return false;
  }
}

static void test_truncations(void **state) {
  (void)state;
  char err[256];
  for (size_t n = 0; n < PLEN; n++) {
    uint8_t *copy = malloc(n + 1); /* exact-size buffer so ASan sees overreads */
    memcpy(copy, PBUF, n);
    cuzk_groth16_params_t *q = (cuzk_groth16_params_t *)1;
    cuzk_err_t e = cuzk_groth16_params_decode(&q, copy, n, 0, err, sizeof err);
    if (!typed(e)) fail_msg("params truncated to %zu: %s (%s)", n, cuzk_err_name(e), err);
    assert_null(q);
    if (n < VLEN) {
      cuzk_groth16_vk_t vk;
      e = cuzk_groth16_vk_decode(&vk, copy, n, NULL, 0, err, sizeof err);
      if (!typed(e)) fail_msg("vk truncated to %zu: %s", n, cuzk_err_name(e));
      assert_null(vk.ic);
    }
    free(copy);
  }
  cuzk_groth16_proof_t *pf;
  size_t np;
  uint8_t z[400] = {0};
  assert_int_equal(cuzk_groth16_proofs_decode(&pf, &np, z, 0, 0), CUZK_ERR_BAD_PROOF);
  assert_int_equal(cuzk_groth16_proofs_decode(&pf, &np, z, 191, 0), CUZK_ERR_BAD_PROOF);
  assert_int_equal(cuzk_groth16_proofs_decode(&pf, &np, z, 193, 0), CUZK_ERR_BAD_PROOF);
  assert_true(typed(cuzk_groth16_proofs_decode(&pf, &np, z, 384, 0)));
}

static void test_length_prefixes(void **state) {
  (void)state;
  char err[256];
  uint8_t *copy = malloc(PLEN);
  /* the u32 before ic, then the five vector lengths */
  size_t offs[6];
  offs[0] = CUZK_GROTH16_VK_FIXED_BYTES - 4;
  size_t off = VLEN;
  size_t lens[5] = {P->n_h, P->n_l, P->n_a, P->n_b_g1, P->n_b_g2};
  for (int k = 0; k < 5; k++) {
    offs[k + 1] = off;
    off += 4 + lens[k] * (k == 4 ? 192 : 96);
  }
  assert_int_equal(off, PLEN);
  static const uint32_t vals[] = {0xffffffffu, 0x7fffffffu, 0x01000000u, 1000};
  for (int k = 0; k < 6; k++)
    for (size_t vi = 0; vi < sizeof vals / sizeof vals[0]; vi++) {
      memcpy(copy, PBUF, PLEN);
      uint32_t v = vals[vi];
      copy[offs[k]] = (uint8_t)(v >> 24), copy[offs[k] + 1] = (uint8_t)(v >> 16);
      copy[offs[k] + 2] = (uint8_t)(v >> 8), copy[offs[k] + 3] = (uint8_t)v;
      cuzk_groth16_params_t *q;
      cuzk_err_t e = cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err);
      assert_int_equal(e, CUZK_ERR_TRUNCATED);
    }
  /* a shorter length leaves trailing bytes or misaligned points: still a typed error */
  memcpy(copy, PBUF, PLEN);
  copy[offs[5] + 3]--;
  cuzk_groth16_params_t *q;
  assert_int_equal(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err), CUZK_ERR_PARSE);
  /* ic_len 0 */
  memcpy(copy, PBUF, PLEN);
  memset(copy + offs[0], 0, 4);
  assert_true(typed(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err)));
  free(copy);
}

static void test_subgroup_and_infinity(void **state) {
  (void)state;
  char err[256];
  uint8_t *copy = malloc(PLEN);
  /* (0, 2) is on y^2 = x^3 + 4 but has order 3: not in G1 */
  size_t ic1 = CUZK_GROTH16_VK_FIXED_BYTES + 96;
  memcpy(copy, PBUF, PLEN);
  memset(copy + ic1, 0, 96);
  copy[ic1 + 95] = 2;
  cuzk_groth16_params_t *q;
  assert_int_equal(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err),
                   CUZK_ERR_NOT_IN_SUBGROUP);
  assert_non_null(strstr(err, "ic[1]"));
  assert_int_equal(
      cuzk_groth16_params_decode(&q, copy, PLEN, CUZK_GROTH16_TRUSTED, err, sizeof err), CUZK_OK);
  cuzk_groth16_params_free(q);
  /* same in the first h point */
  size_t h0 = VLEN + 4;
  memcpy(copy, PBUF, PLEN);
  memset(copy + h0, 0, 96);
  copy[h0 + 95] = 2;
  assert_int_equal(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err),
                   CUZK_ERR_NOT_IN_SUBGROUP);
  /* infinity (0x40 then zeros) in h and in ic */
  memset(copy + h0, 0, 96);
  copy[h0] = 0x40;
  assert_int_equal(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err),
                   CUZK_ERR_BAD_PARAMS);
  memcpy(copy, PBUF, PLEN);
  memset(copy + ic1, 0, 96);
  copy[ic1] = 0x40;
  assert_int_equal(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err),
                   CUZK_ERR_BAD_PARAMS);
  /* a coordinate >= p */
  memcpy(copy, PBUF, PLEN);
  memset(copy + h0, 0xff, 48);
  copy[h0] = 0x1f;
  assert_int_equal(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err),
                   CUZK_ERR_NON_CANONICAL);
  /* compression flag in an uncompressed file */
  memcpy(copy, PBUF, PLEN);
  copy[h0] |= 0x80;
  assert_int_equal(cuzk_groth16_params_decode(&q, copy, PLEN, 0, err, sizeof err),
                   CUZK_ERR_BAD_FLAGS);
  free(copy);
}

static void test_bit_flips(void **state) {
  (void)state;
  char err[256];
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  uint8_t *copy = malloc(PLEN);
  int ok = 0;
  for (int it = 0; it < 300; it++) {
    memcpy(copy, PBUF, PLEN);
    int flips = 1 + (int)(cuzk_test_rng_next(&rng) % 3);
    for (int f = 0; f < flips; f++) {
      uint64_t x = cuzk_test_rng_next(&rng);
      copy[x % PLEN] ^= (uint8_t)(1u << ((x >> 32) & 7));
    }
    cuzk_groth16_params_t *q;
    cuzk_err_t e = cuzk_groth16_params_decode(
        &q, copy, PLEN, it % 4 == 0 ? CUZK_GROTH16_TRUSTED : 0, err, sizeof err);
    if (e == CUZK_OK) {
      ok++;
      cuzk_groth16_params_free(q);
    } else if (!typed(e)) {
      fail_msg("flip %d: %s (%s)", it, cuzk_err_name(e), err);
    }
  }
  free(copy);
  /* checked decoding of a flipped params file essentially never succeeds */
  assert_true(ok <= 10);

  /* proofs: a flipped proof either fails to decode or fails to verify */
  cuzk_groth16_proof_t pf;
  char e2[256];
  assert_int_equal(cuzk_groth16_prove(&pf, P, R, IN, NIN, AUX, NAUX, NULL, NULL, e2, sizeof e2),
                   CUZK_OK);
  uint8_t enc[192], bad[192];
  cuzk_groth16_proof_encode(enc, &pf);
  cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&P->vk, NULL, 0);
  for (int bit = 0; bit < 192 * 8; bit += 3) {
    memcpy(bad, enc, 192);
    bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    cuzk_groth16_proof_t q;
    cuzk_err_t e = cuzk_groth16_proof_decode(&q, bad, 0);
    if (e == CUZK_OK)
      assert_int_equal(cuzk_groth16_verify(pvk, &q, IN + 1, 1), CUZK_ERR_VERIFY_FAILED);
    else if (!typed(e))
      fail_msg("proof bit %d: %s", bit, cuzk_err_name(e));
  }
  cuzk_groth16_pvk_free(pvk);
}

static void test_public_json(void **state) {
  (void)state;
  cuzk_fr_t *v;
  size_t n;
  assert_int_equal(cuzk_snarkjs_public_parse(&v, &n, " [ \"1\" , \"22\" ] \n"), CUZK_OK);
  assert_int_equal(n, 2);
  free(v);
  assert_int_equal(cuzk_snarkjs_public_parse(&v, &n, "[]"), CUZK_OK);
  assert_int_equal(n, 0);
  free(v);
  static const char *const bad[] = {
      "",       "[",         "[\"1\"",    "[\"1\",]",  "[1]",
      "[\"\"]", "[\"1\"] x", "{\"a\":1}", "[\"0x1\"]", "[\"1\" \"2\"]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(cuzk_snarkjs_public_parse(&v, &n, bad[i]), CUZK_ERR_PARSE);
  assert_int_equal(
      cuzk_snarkjs_public_parse(
          &v, &n,
          "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]"),
      CUZK_ERR_NON_CANONICAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_truncations),           cmocka_unit_test(test_length_prefixes),
      cmocka_unit_test(test_subgroup_and_infinity), cmocka_unit_test(test_bit_flips),
      cmocka_unit_test(test_public_json),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
