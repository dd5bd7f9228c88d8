/* core/groth16: setup → prove → verify on the synthetic circuit and a bellperson toy circuit;
 * rejection of tampered proofs, wrong and non-canonical public inputs, wrong counts; the prover's
 * split API and caller-chosen r, s (byte-identical proofs); batch verification; the .params
 * length of bellperson's own serialization test (2136 bytes); format round trips; insecure
 * markers; decimal conversion against GMP; the parameters.json digest against Python's
 * hashlib.blake2b. The pairing equation is checked by our verifier here and by snarkjs in
 * test_snarkjs.c. */
#include "tests/support/testlib.h"

#include <gmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/circuits/synthetic.h"
#include "core/groth16/groth16.h"
#include "core/groth16/prove.h"
#include "core/groth16/setup.h"
#include "core/groth16/verify.h"
#include "core/r1cs/cs.h"

typedef struct {
  cuzk_r1cs_t *r;
  cuzk_fr_t *in, *aux;
  uint64_t n_in, n_aux;
} circ_t;

static void circ_free(circ_t *c) {
  cuzk_r1cs_free(c->r);
  free(c->in);
  free(c->aux);
}

static circ_t synthetic(unsigned log_n, uint32_t pub, uint64_t seed) {
  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD | CUZK_CS_WITNESS, err, sizeof err);
  assert_non_null(cs);
  cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(log_n, pub), pub, seed};
  if (cuzk_synthetic_build(cs, &p, err, sizeof err) != CUZK_OK) fail_msg("%s", err);
  circ_t c;
  assert_int_equal(cuzk_cs_finish(cs, &c.r, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_cs_take_witness(cs, &c.in, &c.n_in, &c.aux, &c.n_aux), CUZK_OK);
  cuzk_cs_free(cs);
  return c;
}

/* bellperson's MySillyCircuit: aux a, aux b, input c = a·b, one constraint a·b = c. */
static circ_t silly(uint64_t av, uint64_t bv) {
  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD | CUZK_CS_WITNESS, err, sizeof err);
  cuzk_fr_t a, b, c;
  cuzk_fr_from_u64(&a, av);
  cuzk_fr_from_u64(&b, bv);
  cuzk_fr_mul(&c, &a, &b);
  cuzk_var_t va = cuzk_cs_alloc_aux(cs, &a), vb = cuzk_cs_alloc_aux(cs, &b);
  cuzk_var_t vc = cuzk_cs_alloc_input(cs, &c);
  cuzk_lc_t la, lb, lc;
  cuzk_lc_init(&la), cuzk_lc_init(&lb), cuzk_lc_init(&lc);
  cuzk_lc_add(&la, va), cuzk_lc_add(&lb, vb), cuzk_lc_add(&lc, vc);
  cuzk_cs_enforce(cs, &la, &lb, &lc);
  cuzk_lc_free(&la), cuzk_lc_free(&lb), cuzk_lc_free(&lc);
  circ_t r;
  assert_int_equal(cuzk_cs_finish(cs, &r.r, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_cs_take_witness(cs, &r.in, &r.n_in, &r.aux, &r.n_aux), CUZK_OK);
  cuzk_cs_free(cs);
  return r;
}

static cuzk_groth16_params_t *setup(const circ_t *c, uint64_t seed) {
  cuzk_groth16_toxic_t t;
  cuzk_groth16_toxic_from_seed(&t, seed);
  cuzk_groth16_params_t *p;
  char err[256];
  if (cuzk_groth16_setup(&p, c->r, &t, err, sizeof err) != CUZK_OK) fail_msg("setup: %s", err);
  return p;
}

static void prove_ok(cuzk_groth16_proof_t *pf, const cuzk_groth16_params_t *p, const circ_t *c,
                     const cuzk_fr_t *rs) {
  char err[256];
  cuzk_groth16_timings_t tm = {0};
  if (cuzk_groth16_prove(pf, p, c->r, c->in, c->n_in, c->aux, c->n_aux, rs, &tm, err, sizeof err) !=
      CUZK_OK)
    fail_msg("prove: %s", err);
}

static void test_silly_bellperson_vector(void **state) {
  (void)state;
  circ_t c = silly(3, 5);
  cuzk_groth16_params_t *p = setup(&c, 1);
  /* bellperson src/groth16/mod.rs test `serialization`: params.write(...) is 2136 bytes */
  assert_int_equal(cuzk_groth16_params_size(p), 2136);
  assert_int_equal(p->n_h, 3);
  assert_int_equal(p->n_a, 3);
  assert_int_equal(p->n_b_g1, 1);
  assert_int_equal(cuzk_groth16_vk_size(&p->vk), 868 + 96 * 2);
  cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&p->vk, NULL, 0);
  for (int i = 0; i < 3; i++) {
    cuzk_groth16_proof_t pf;
    prove_ok(&pf, p, &c, NULL);
    cuzk_fr_t pub = c.in[1], wrong;
    assert_int_equal(cuzk_groth16_verify(pvk, &pf, &pub, 1), CUZK_OK);
    cuzk_fr_from_u64(&wrong, 3);
    assert_int_equal(cuzk_groth16_verify(pvk, &pf, &wrong, 1), CUZK_ERR_VERIFY_FAILED);
    assert_int_equal(cuzk_groth16_verify(pvk, &pf, &pub, 0), CUZK_ERR_INVALID_ARG);
  }
  /* unsatisfied witness */
  cuzk_fr_from_u64(&c.aux[0], 4);
  cuzk_groth16_proof_t pf;
  char err[256];
  assert_int_equal(
      cuzk_groth16_prove(&pf, p, c.r, c.in, c.n_in, c.aux, c.n_aux, NULL, NULL, err, sizeof err),
      CUZK_ERR_UNSATISFIED);
  cuzk_groth16_pvk_free(pvk);
  cuzk_groth16_params_free(p);
  circ_free(&c);
}

static void test_synthetic_prove_verify(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  circ_t c = synthetic(10, 5, seed);
  cuzk_groth16_params_t *p = setup(&c, seed ^ 7);
  char err[256];
  assert_int_equal(cuzk_groth16_params_match(p, c.r, err, sizeof err), CUZK_OK);
  cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&p->vk, err, sizeof err);
  assert_non_null(pvk);
  assert_int_equal(cuzk_groth16_pvk_num_public(pvk), 5);

  cuzk_groth16_proof_t pf;
  prove_ok(&pf, p, &c, NULL);
  const cuzk_fr_t *pub = c.in + 1;
  assert_int_equal(cuzk_groth16_verify(pvk, &pf, pub, 5), CUZK_OK);

  /* wrong public input */
  cuzk_fr_t bad[5];
  memcpy(bad, pub, sizeof bad);
  cuzk_fr_add(&bad[2], &bad[2], &CUZK_FR_ONE);
  assert_int_equal(cuzk_groth16_verify(pvk, &pf, bad, 5), CUZK_ERR_VERIFY_FAILED);
  assert_int_equal(cuzk_groth16_verify(pvk, &pf, pub, 4), CUZK_ERR_INVALID_ARG);

  /* tampered proofs: C + G, A swapped with C, B doubled */
  cuzk_groth16_proof_t t = pf;
  cuzk_g1_t x, g;
  cuzk_g1_generator(&g);
  cuzk_g1_from_affine(&x, &t.c);
  cuzk_g1_add(&x, &x, &g);
  cuzk_g1_to_affine(&t.c, &x);
  assert_int_equal(cuzk_groth16_verify(pvk, &t, pub, 5), CUZK_ERR_VERIFY_FAILED);
  t = pf;
  t.a = pf.c;
  t.c = pf.a;
  assert_int_equal(cuzk_groth16_verify(pvk, &t, pub, 5), CUZK_ERR_VERIFY_FAILED);
  t = pf;
  cuzk_g2_t y;
  cuzk_g2_from_affine(&y, &t.b);
  cuzk_g2_dbl(&y, &y);
  cuzk_g2_to_affine(&t.b, &y);
  assert_int_equal(cuzk_groth16_verify(pvk, &t, pub, 5), CUZK_ERR_VERIFY_FAILED);
  t = pf;
  cuzk_g1_affine_set_infinity(&t.c);
  assert_int_equal(cuzk_groth16_verify(pvk, &t, pub, 5), CUZK_ERR_BAD_PROOF);

  /* encoding round trip, checked decoder */
  uint8_t enc[192];
  cuzk_groth16_proof_encode(enc, &pf);
  cuzk_groth16_proof_t dec;
  assert_int_equal(cuzk_groth16_proof_decode(&dec, enc, 0), CUZK_OK);
  assert_true(cuzk_g1_affine_eq(&dec.a, &pf.a) && cuzk_g2_affine_eq(&dec.b, &pf.b) &&
              cuzk_g1_affine_eq(&dec.c, &pf.c));
  cuzk_groth16_pvk_free(pvk);
  cuzk_groth16_params_free(p);
  circ_free(&c);
}

static void test_split_and_fixed_rs(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  circ_t c = synthetic(9, 2, seed + 1);
  cuzk_groth16_params_t *p = setup(&c, seed + 2);
  cuzk_fr_t rs[2];
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, seed);
  uint8_t wide[64];
  cuzk_test_rng_bytes(&rng, wide, 64);
  cuzk_fr_from_le_wide(&rs[0], wide);
  cuzk_test_rng_bytes(&rng, wide, 64);
  cuzk_fr_from_le_wide(&rs[1], wide);

  cuzk_groth16_proof_t p1, p2, p3;
  prove_ok(&p1, p, &c, rs);
  cuzk_groth16_msm_t msm;
  cuzk_groth16_timings_t tm = {0};
  char err[256];
  assert_int_equal(
      cuzk_groth16_prove_start(&msm, p, c.r, c.in, c.n_in, c.aux, c.n_aux, &tm, err, sizeof err),
      CUZK_OK);
  cuzk_groth16_prove_finish(&p2, &p->vk, &msm, &rs[0], &rs[1], &tm);
  uint8_t e1[192], e2[192], e3[192];
  cuzk_groth16_proof_encode(e1, &p1);
  cuzk_groth16_proof_encode(e2, &p2);
  assert_memory_equal(e1, e2, 192);
  assert_true(tm.total_us >= tm.msm_h_us);
  /* the engine path: SpMV into caller buffers, then prove_start_abc */
  {
    uint64_t n = cuzk_r1cs_domain_size(c.r);
    cuzk_fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *cc = malloc(n * sizeof *cc);
    assert_int_equal(cuzk_r1cs_spmv(c.r, c.in, c.n_in, c.aux, c.n_aux, a, b, cc, n), CUZK_OK);
    cuzk_groth16_msm_t m2;
    assert_int_equal(cuzk_groth16_prove_start_abc(&m2, p, c.r, c.in, c.n_in, c.aux, c.n_aux, a, b,
                                                  cc, n, NULL, err, sizeof err),
                     CUZK_OK);
    assert_int_equal(cuzk_groth16_prove_start_abc(&m2, p, c.r, c.in, c.n_in, c.aux, c.n_aux, a, b,
                                                  cc, n / 2, NULL, err, sizeof err),
                     CUZK_ERR_INVALID_ARG);
    cuzk_groth16_proof_t p4;
    cuzk_groth16_prove_finish(&p4, &p->vk, &m2, &rs[0], &rs[1], NULL);
    uint8_t e4[192];
    cuzk_groth16_proof_encode(e4, &p4);
    assert_memory_equal(e1, e4, 192);
    free(a), free(b), free(cc);
  }
  /* different r, s: different bytes, still valid */
  prove_ok(&p3, p, &c, NULL);
  cuzk_groth16_proof_encode(e3, &p3);
  assert_memory_not_equal(e1, e3, 192);
  /* r = s = 0 is a valid (non-zero-knowledge) proof too */
  cuzk_fr_t zero[2] = {CUZK_FR_ZERO, CUZK_FR_ZERO};
  cuzk_groth16_prove_finish(&p2, &p->vk, &msm, &zero[0], &zero[1], NULL);
  cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&p->vk, NULL, 0);
  assert_int_equal(cuzk_groth16_verify(pvk, &p1, c.in + 1, 2), CUZK_OK);
  assert_int_equal(cuzk_groth16_verify(pvk, &p2, c.in + 1, 2), CUZK_OK);
  assert_int_equal(cuzk_groth16_verify(pvk, &p3, c.in + 1, 2), CUZK_OK);

  /* batch: three good proofs pass; one bad proof fails the batch */
  cuzk_groth16_proof_t v[3] = {p1, p2, p3};
  cuzk_fr_t pubs[6];
  for (int i = 0; i < 3; i++) memcpy(pubs + 2 * i, c.in + 1, 2 * sizeof(cuzk_fr_t));
  assert_int_equal(cuzk_groth16_verify_batch(pvk, v, 3, pubs, 2), CUZK_OK);
  assert_int_equal(cuzk_groth16_verify_batch(pvk, v, 1, pubs, 2), CUZK_OK);
  cuzk_fr_add(&pubs[3], &pubs[3], &CUZK_FR_ONE);
  assert_int_equal(cuzk_groth16_verify_batch(pvk, v, 3, pubs, 2), CUZK_ERR_VERIFY_FAILED);
  memcpy(pubs + 2, c.in + 1, 2 * sizeof(cuzk_fr_t));
  v[2].a = p1.a;
  assert_int_equal(cuzk_groth16_verify_batch(pvk, v, 3, pubs, 2), CUZK_ERR_VERIFY_FAILED);
  assert_int_equal(cuzk_groth16_verify_batch(pvk, v, 3, pubs, 1), CUZK_ERR_INVALID_ARG);

  /* wrong witness lengths, params from another circuit */
  assert_int_equal(cuzk_groth16_prove_start(&msm, p, c.r, c.in, c.n_in - 1, c.aux, c.n_aux, NULL,
                                            err, sizeof err),
                   CUZK_ERR_INVALID_ARG);
  circ_t o = synthetic(9, 3, seed + 1);
  assert_int_equal(
      cuzk_groth16_prove_start(&msm, p, o.r, o.in, o.n_in, o.aux, o.n_aux, NULL, err, sizeof err),
      CUZK_ERR_BAD_PARAMS);
  circ_free(&o);
  cuzk_groth16_pvk_free(pvk);
  cuzk_groth16_params_free(p);
  circ_free(&c);
}

static void test_formats_and_files(void **state) {
  (void)state;
  circ_t c = synthetic(8, 3, 42);
  cuzk_groth16_params_t *p = setup(&c, 43);
  size_t n = cuzk_groth16_params_size(p);
  uint8_t *buf = malloc(n);
  cuzk_groth16_params_encode(buf, p);
  cuzk_groth16_params_t *q;
  char err[256];
  assert_int_equal(cuzk_groth16_params_decode(&q, buf, n, 0, err, sizeof err), CUZK_OK);
  assert_int_equal(q->n_h, p->n_h);
  assert_int_equal(q->n_b_g2, p->n_b_g2);
  assert_true(cuzk_g2_affine_eq(&q->b_g2[q->n_b_g2 - 1], &p->b_g2[p->n_b_g2 - 1]));
  assert_true(cuzk_g1_affine_eq(&q->vk.ic[2], &p->vk.ic[2]));
  assert_false(q->insecure);
  uint8_t *buf2 = malloc(n);
  cuzk_groth16_params_encode(buf2, q);
  assert_memory_equal(buf, buf2, n);
  cuzk_groth16_params_free(q);
  /* trailing byte */
  uint8_t *buf3 = malloc(n + 1);
  memcpy(buf3, buf, n);
  buf3[n] = 0;
  assert_int_equal(cuzk_groth16_params_decode(&q, buf3, n + 1, 0, err, sizeof err), CUZK_ERR_PARSE);
  assert_null(q);

  /* files, insecure marker */
  char dir[] = "/tmp/cuzk_g16_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256], side[300], vkp[256];
  snprintf(path, sizeof path, "%s/t.params", dir);
  snprintf(side, sizeof side, "%s.insecure", path);
  snprintf(vkp, sizeof vkp, "%s/t.vk", dir);
  assert_int_equal(cuzk_groth16_params_save(p, path, err, sizeof err), CUZK_OK);
  assert_int_equal(access(side, F_OK), 0);
  assert_int_equal(cuzk_groth16_params_load(&q, path, 0, err, sizeof err), CUZK_OK);
  assert_true(q->insecure);
  assert_int_equal(cuzk_groth16_params_check_secure(q, false), CUZK_ERR_INSECURE_PARAMS);
  assert_int_equal(cuzk_groth16_params_check_secure(q, true), CUZK_OK);
  q->insecure = false;
  assert_int_equal(cuzk_groth16_params_save(q, path, err, sizeof err), CUZK_OK);
  assert_int_equal(access(side, F_OK), -1);
  cuzk_groth16_params_free(q);
  assert_int_equal(cuzk_groth16_params_load(&q, path, CUZK_GROTH16_TRUSTED, err, sizeof err),
                   CUZK_OK);
  assert_false(q->insecure);
  assert_int_equal(cuzk_groth16_params_check_secure(q, false), CUZK_OK);
  cuzk_groth16_params_free(q);
  assert_int_equal(cuzk_groth16_vk_save(&p->vk, vkp, err, sizeof err), CUZK_OK);
  struct stat st;
  assert_int_equal(stat(vkp, &st), 0);
  assert_int_equal((size_t)st.st_size, 868 + 96 * 4);
  cuzk_groth16_vk_t vk;
  assert_int_equal(cuzk_groth16_vk_load(&vk, vkp, 0, err, sizeof err), CUZK_OK);
  assert_int_equal(vk.n_ic, 4);
  assert_true(cuzk_g2_affine_eq(&vk.delta_g2, &p->vk.delta_g2));
  cuzk_groth16_vk_clear(&vk);
  char missing[300];
  snprintf(missing, sizeof missing, "%s/none.params", dir);
  assert_int_equal(cuzk_groth16_params_load(&q, missing, 0, err, sizeof err), CUZK_ERR_NOT_FOUND);

  /* parameters.json digest vs Python's hashlib.blake2b (64-byte digest, first 32 hex digits) */
  char cmd[600], digest[33];
  snprintf(cmd, sizeof cmd,
           "python3 -c \"import hashlib,sys; "
           "print(hashlib.blake2b(open(sys.argv[1],'rb').read()).hexdigest()[:32])\" '%s'",
           path);
  int status = -1;
  char *py = cuzk_test_run_cmd(cmd, "", &status);
  assert_non_null(py);
  assert_int_equal(status, 0);
  assert_int_equal(cuzk_groth16_file_digest(digest, path, err, sizeof err), CUZK_OK);
  assert_memory_equal(py, digest, 32);
  char json[300], text[600];
  snprintf(json, sizeof json, "%s/parameters.json", dir);
  snprintf(text, sizeof text,
           "{\n  \"other.params\": {\"cid\": \"Qm\", \"digest\": \"00\", \"sector_size\": 2048},\n"
           "  \"t.params\": {\n    \"cid\": \"QmX\",\n    \"digest\": \"%s\",\n    "
           "\"sector_size\": 2048\n  }\n}\n",
           digest);
  FILE *f = fopen(json, "w");
  fputs(text, f);
  fclose(f);
  assert_int_equal(cuzk_groth16_digest_check(json, path, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_digest_check(json, vkp, err, sizeof err), CUZK_ERR_NOT_FOUND);
  text[strstr(text, digest) - text] ^= 1; /* flip the first digest digit */
  f = fopen(json, "w");
  fputs(text, f);
  fclose(f);
  assert_int_equal(cuzk_groth16_digest_check(json, path, err, sizeof err), CUZK_ERR_CHECKSUM);
  free(py);

  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
  free(buf), free(buf2), free(buf3);
  cuzk_groth16_params_free(p);
  circ_free(&c);
}

static void test_decimal_vs_gmp(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  mpz_t z;
  mpz_init(z);
  for (int it = 0; it < 200; it++) {
    uint64_t limbs[6];
    cuzk_test_rng_bytes(&rng, limbs, sizeof limbs);
    size_t n = it % 2 ? 6 : 4;
    if (it % 7 == 0) memset(limbs, 0, sizeof limbs), limbs[0] = (uint64_t)it;
    char ours[130], theirs[200];
    cuzk_groth16_limbs_to_decimal(ours, sizeof ours, limbs, n);
    mpz_import(z, n, -1, 8, 0, 0, limbs);
    mpz_get_str(theirs, 10, z);
    assert_string_equal(ours, theirs);
    if (n == 4) {
      cuzk_fr_t x;
      cuzk_err_t e = cuzk_groth16_public_from_decimal(&x, theirs);
      mpz_t r;
      mpz_init_set_str(r, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
      if (mpz_cmp(z, r) >= 0) {
        assert_int_equal(e, CUZK_ERR_NON_CANONICAL);
      } else {
        assert_int_equal(e, CUZK_OK);
        uint64_t back[4];
        cuzk_fr_to_raw(back, &x);
        assert_memory_equal(back, limbs, 32);
      }
      mpz_clear(r);
    }
  }
  mpz_clear(z);
  cuzk_fr_t x;
  assert_int_equal(
      cuzk_groth16_public_from_decimal(
          &x, "52435875175126190479447740508185965837690552500527637822603658699938581184513"),
      CUZK_ERR_NON_CANONICAL); /* r */
  assert_int_equal(
      cuzk_groth16_public_from_decimal(
          &x, "52435875175126190479447740508185965837690552500527637822603658699938581184512"),
      CUZK_OK); /* r - 1 */
  assert_int_equal(cuzk_groth16_public_from_decimal(&x, ""), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_groth16_public_from_decimal(&x, "12a"), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_groth16_public_from_decimal(&x, "-1"), CUZK_ERR_PARSE);
  assert_int_equal(
      cuzk_groth16_public_from_decimal(
          &x, "9999999999999999999999999999999999999999999999999999999999999999999999999999999999"),
      CUZK_ERR_NON_CANONICAL);
}


static void test_fixed_base_and_toxic(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  enum { N = 300 };
  cuzk_fr_t *k = malloc(N * sizeof *k);
  for (int i = 0; i < N; i++) {
    uint8_t wide[64];
    cuzk_test_rng_bytes(&rng, wide, 64);
    cuzk_fr_from_le_wide(&k[i], wide);
  }
  k[0] = CUZK_FR_ZERO;
  k[1] = CUZK_FR_ONE;
  cuzk_fr_neg(&k[2], &CUZK_FR_ONE);
  cuzk_fr_from_u64(&k[3], 256);
  cuzk_g1_affine_t *o1 = malloc(N * sizeof *o1);
  cuzk_g2_affine_t *o2 = malloc(N * sizeof *o2);
  cuzk_g1_t g1, x1;
  cuzk_g2_t g2, x2;
  cuzk_g1_generator(&g1);
  cuzk_g2_generator(&g2);
  cuzk_g1_dbl(&g1, &g1); /* a base other than the generator */
  assert_int_equal(cuzk_g1_fixed_base_batch(o1, &g1, k, N), CUZK_OK);
  assert_int_equal(cuzk_g2_fixed_base_batch(o2, &g2, k, N), CUZK_OK);
  for (int i = 0; i < N; i++) {
    cuzk_g1_affine_t a1;
    cuzk_g2_affine_t a2;
    cuzk_g1_mul_vartime(&x1, &g1, &k[i]);
    cuzk_g1_to_affine(&a1, &x1);
    assert_true(cuzk_g1_affine_eq(&a1, &o1[i]));
    if (i < 60) {
      cuzk_g2_mul_vartime(&x2, &g2, &k[i]);
      cuzk_g2_to_affine(&a2, &x2);
      assert_true(cuzk_g2_affine_eq(&a2, &o2[i]));
    }
  }
  assert_true(cuzk_g1_affine_is_infinity(&o1[0]));
  free(k), free(o1), free(o2);

  /* the setup against closed forms of the toxic waste, on the toy circuit (m = 1, 2 inputs,
   * n = 4): vk points, H_j = τ^j (τ^4 - 1)/δ, and A for aux `a` (only in row 0 of A):
   * u_a(τ) = L_0(τ) = (τ^4 - 1) / (4 (τ - 1)) */
  circ_t c = silly(2, 9);
  cuzk_groth16_toxic_t t;
  cuzk_groth16_toxic_from_seed(&t, 5);
  cuzk_groth16_params_t *p = setup(&c, 5);
  cuzk_g1_affine_t a1;
  cuzk_g1_generator(&g1);
  cuzk_g2_generator(&g2);
  cuzk_g1_mul_vartime(&x1, &g1, &t.alpha);
  cuzk_g1_to_affine(&a1, &x1);
  assert_true(cuzk_g1_affine_eq(&a1, &p->vk.alpha_g1));
  cuzk_g2_affine_t a2;
  cuzk_g2_mul_vartime(&x2, &g2, &t.gamma);
  cuzk_g2_to_affine(&a2, &x2);
  assert_true(cuzk_g2_affine_eq(&a2, &p->vk.gamma_g2));
  cuzk_fr_t z, dinv, h, four, l0, tm1;
  uint64_t e4 = 4;
  cuzk_fr_pow(&z, &t.tau, &e4, 1);
  cuzk_fr_sub(&z, &z, &CUZK_FR_ONE);
  cuzk_fr_inv(&dinv, &t.delta);
  cuzk_fr_mul(&h, &z, &dinv);
  for (int j = 0; j < 3; j++) {
    cuzk_g1_mul_vartime(&x1, &g1, &h);
    cuzk_g1_to_affine(&a1, &x1);
    assert_true(cuzk_g1_affine_eq(&a1, &p->h[j]));
    cuzk_fr_mul(&h, &h, &t.tau);
  }
  cuzk_fr_from_u64(&four, 4);
  cuzk_fr_sub(&tm1, &t.tau, &CUZK_FR_ONE);
  cuzk_fr_mul(&tm1, &tm1, &four);
  cuzk_fr_inv(&tm1, &tm1);
  cuzk_fr_mul(&l0, &z, &tm1);
  cuzk_g1_mul_vartime(&x1, &g1, &l0);
  cuzk_g1_to_affine(&a1, &x1);
  assert_true(cuzk_g1_affine_eq(&a1, &p->a[2])); /* a = [ONE, c, aux a] */
  cuzk_groth16_params_free(p);
  circ_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_silly_bellperson_vector), cmocka_unit_test(test_synthetic_prove_verify),
      cmocka_unit_test(test_split_and_fixed_rs),      cmocka_unit_test(test_formats_and_files),
      cmocka_unit_test(test_decimal_vs_gmp),
      cmocka_unit_test(test_fixed_base_and_toxic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
