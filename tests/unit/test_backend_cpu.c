/* core/engine/backend_cpu.c: the backend's split prove (SpMV done
 * by the caller into host_alloc buffers) must give byte for byte the proof of the groth16
 * prover's own path (cuzk_groth16_prove, which does the SpMV itself) for the same r and s, the
 * proof must verify, and a wrong witness / mismatched parameters must give typed errors. */
#include <stdlib.h>
#include <string.h>

#include "core/circuits/synthetic.h"
#include "core/engine/backend.h"
#include "core/groth16/prove.h"
#include "core/groth16/setup.h"
#include "core/groth16/verify.h"
#include "core/r1cs/cs.h"
#include "tests/support/testlib.h"

typedef struct {
  cuzk_r1cs_t *r;
  cuzk_fr_t *in, *aux;
  uint64_t n_in, n_aux;
} circ_t;

static circ_t synth(unsigned log_n, uint64_t seed) {
  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD | CUZK_CS_WITNESS, err, sizeof err);
  assert_non_null(cs);
  cuzk_synthetic_params_t sp = {cuzk_synthetic_constraints_for_log(log_n, 3), 3, seed};
  assert_int_equal(cuzk_synthetic_build(cs, &sp, err, sizeof err), CUZK_OK);
  circ_t c;
  assert_int_equal(cuzk_cs_finish(cs, &c.r, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_cs_take_witness(cs, &c.in, &c.n_in, &c.aux, &c.n_aux), CUZK_OK);
  cuzk_cs_free(cs);
  return c;
}

static void circ_free(circ_t *c) {
  cuzk_r1cs_free(c->r);
  free(c->in), free(c->aux);
}

typedef struct {
  cuzk_backend_t *be;
  cuzk_fr_t *a, *b, *c;
  uint64_t n;
} bufs_t;

static void bufs_fill(bufs_t *B, const circ_t *c) {
  B->n = cuzk_r1cs_domain_size(c->r);
  char why[128];
  B->a = B->be->host_alloc(B->be, B->n * sizeof(cuzk_fr_t), why, sizeof why);
  B->b = B->be->host_alloc(B->be, B->n * sizeof(cuzk_fr_t), why, sizeof why);
  B->c = B->be->host_alloc(B->be, B->n * sizeof(cuzk_fr_t), why, sizeof why);
  assert_non_null(B->a), assert_non_null(B->b), assert_non_null(B->c);
  assert_int_equal(cuzk_r1cs_spmv(c->r, c->in, c->n_in, c->aux, c->n_aux, B->a, B->b, B->c, B->n), CUZK_OK);
}

static void bufs_free(bufs_t *B) {
  size_t sz = B->n * sizeof(cuzk_fr_t);
  B->be->host_free(B->be, B->a, sz), B->be->host_free(B->be, B->b, sz), B->be->host_free(B->be, B->c, sz);
}

static cuzk_backend_input_t input_of(const circ_t *c, bufs_t *B, cuzk_backend_srs_t *srs) {
  return (cuzk_backend_input_t){
      .a = B->a, .b = B->b, .c = B->c, .n = B->n, .inputs = c->in, .n_inputs = c->n_in,
      .aux = c->aux, .n_aux = c->n_aux,
      .density_a_aux = cuzk_r1cs_density(c->r, CUZK_R1CS_DENSITY_A_AUX, NULL),
      .density_b_input = cuzk_r1cs_density(c->r, CUZK_R1CS_DENSITY_B_INPUT, NULL),
      .density_b_aux = cuzk_r1cs_density(c->r, CUZK_R1CS_DENSITY_B_AUX, NULL),
      .srs = srs, .inputs_pinned = true,
  };
}

static void test_matches_groth16_prover(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  char err[256];
  for (unsigned log_n = 6; log_n <= 10; log_n += 2) {
    circ_t c = synth(log_n, seed + log_n);
    cuzk_groth16_toxic_t tw;
    cuzk_groth16_toxic_from_seed(&tw, seed ^ log_n);
    cuzk_groth16_params_t *p = NULL;
    assert_int_equal(cuzk_groth16_setup(&p, c.r, &tw, err, sizeof err), CUZK_OK);
    cuzk_fr_t rs[2];
    assert_int_equal(cuzk_fr_random(&rs[0]), CUZK_OK);
    assert_int_equal(cuzk_fr_random(&rs[1]), CUZK_OK);

    cuzk_groth16_proof_t ref;
    assert_int_equal(cuzk_groth16_prove(&ref, p, c.r, c.in, c.n_in, c.aux, c.n_aux, rs, NULL, err, sizeof err),
                     CUZK_OK);
    uint8_t ref_bytes[CUZK_GROTH16_PROOF_BYTES];
    cuzk_groth16_proof_encode(ref_bytes, &ref);

    cuzk_backend_t *be = cuzk_backend_cpu_new(err, sizeof err);
    assert_non_null(be);
    assert_int_equal(be->device_count(be), 1);
    cuzk_backend_device_info_t info;
    assert_int_equal(be->device_info(be, 0, &info), CUZK_OK);
    assert_int_equal(be->device_info(be, 1, &info), CUZK_ERR_NO_DEVICE);
    cuzk_backend_srs_t *srs = NULL;
    assert_int_equal(be->srs_attach(be, p, c.r, &srs, err, sizeof err), CUZK_OK);
    bufs_t B = {.be = be};
    bufs_fill(&B, &c);
    cuzk_backend_input_t in = input_of(&c, &B, srs);
    cuzk_backend_pending_t *pend = NULL;
    cuzk_backend_timings_t t = {0};
    assert_int_equal(be->prove_start(be, 0, &in, &pend, &t, err, sizeof err), CUZK_OK);
    assert_non_null(pend);
    /* The pending object must not depend on the input buffers any more. */
    memset(B.a, 0xA5, B.n * sizeof(cuzk_fr_t));
    bufs_free(&B);
    uint8_t got[CUZK_GROTH16_PROOF_BYTES];
    assert_int_equal(be->prove_finish(be, pend, &rs[0], &rs[1], got, &t, err, sizeof err), CUZK_OK);
    assert_memory_equal(got, ref_bytes, sizeof got);
    assert_true(t.kernel_us > 0 || log_n < 8);

    cuzk_groth16_proof_t pr;
    assert_int_equal(cuzk_groth16_proof_decode(&pr, got, 0), CUZK_OK);
    cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&p->vk, err, sizeof err);
    assert_int_equal(cuzk_groth16_verify(pvk, &pr, c.in + 1, c.n_in - 1), CUZK_OK);
    got[10] ^= 1; /* the check can fail */
    if (cuzk_groth16_proof_decode(&pr, got, 0) == CUZK_OK)
      assert_int_not_equal(cuzk_groth16_verify(pvk, &pr, c.in + 1, c.n_in - 1), CUZK_OK);
    cuzk_groth16_pvk_free(pvk);

    be->srs_detach(be, srs);
    cuzk_backend_free(be);
    cuzk_groth16_params_free(p);
    circ_free(&c);
  }
}

static void test_typed_errors(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  char err[256];
  circ_t c = synth(8, seed), other = synth(9, seed);
  cuzk_groth16_toxic_t tw;
  cuzk_groth16_toxic_from_seed(&tw, seed);
  cuzk_groth16_params_t *p = NULL, *p9 = NULL;
  assert_int_equal(cuzk_groth16_setup(&p, c.r, &tw, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_setup(&p9, other.r, &tw, err, sizeof err), CUZK_OK);
  cuzk_backend_t *be = cuzk_backend_cpu_new(err, sizeof err);
  cuzk_backend_srs_t *srs = NULL;
  assert_int_equal(be->srs_attach(be, p9, c.r, &srs, err, sizeof err), CUZK_ERR_BAD_PARAMS);
  assert_null(srs);
  assert_int_equal(be->srs_attach(be, p, c.r, &srs, err, sizeof err), CUZK_OK);

  /* A witness that does not satisfy the constraints. Some aux values only meet a zero partner
   * (a·0 = c), so perturbing one need not break anything: take the first perturbation the R1CS
   * checker rejects. */
  bufs_t B = {.be = be};
  cuzk_fr_t one;
  cuzk_fr_from_u64(&one, 1);
  uint64_t j = c.n_aux / 2;
  for (;; j++) {
    assert_true(j < c.n_aux);
    cuzk_fr_add(&c.aux[j], &c.aux[j], &one);
    if (cuzk_r1cs_check(c.r, c.in, c.n_in, c.aux, c.n_aux, NULL, err, sizeof err) != CUZK_OK) break;
    cuzk_fr_sub(&c.aux[j], &c.aux[j], &one);
  }
  bufs_fill(&B, &c);
  cuzk_backend_input_t in = input_of(&c, &B, srs);
  cuzk_backend_pending_t *pend = (cuzk_backend_pending_t *)&B; /* must be reset to NULL */
  assert_int_equal(be->prove_start(be, 0, &in, &pend, NULL, err, sizeof err), CUZK_ERR_UNSATISFIED);
  assert_null(pend);
  assert_int_equal(be->prove_start(be, 1, &in, &pend, NULL, err, sizeof err), CUZK_ERR_NO_DEVICE);
  bufs_free(&B);

  be->srs_detach(be, srs);
  cuzk_backend_free(be);
  cuzk_groth16_params_free(p), cuzk_groth16_params_free(p9);
  circ_free(&c), circ_free(&other);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matches_groth16_prover),
      cmocka_unit_test(test_typed_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
