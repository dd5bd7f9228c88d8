/* agent/backend_select.c and the engine.backend key: names map to backends (cpu always; cuda
 * only in CUDA builds with a device, else a typed error), unknown names and config values are
 * rejected, and one proof through cuzk_agent_backend_prove on the CPU backend verifies (and a
 * flipped byte does not). */
#include <stdlib.h>
#include <string.h>

#include "agent/agent_config.h"
#include "agent/backend_select.h"
#include "agent/config.h"
#include "core/circuits/synthetic.h"
#include "core/groth16/setup.h"
#include "core/groth16/verify.h"
#include "core/r1cs/cs.h"
#include "tests/support/testlib.h"

static void test_names(void **state) {
  (void)state;
  char err[256];
  cuzk_err_t e = CUZK_ERR_INTERNAL;
  cuzk_backend_t *be = cuzk_agent_backend_new("cpu", &e, err, sizeof err);
  assert_non_null(be);
  assert_int_equal(e, CUZK_OK);
  assert_string_equal(be->name, "cpu");
  cuzk_backend_free(be);

  be = cuzk_agent_backend_new("auto", &e, err, sizeof err);
  assert_non_null(be);
#ifndef CUZK_HAVE_CUDA
  assert_string_equal(be->name, "cpu");
#endif
  cuzk_backend_free(be);

  assert_null(cuzk_agent_backend_new("metal", &e, err, sizeof err));
  assert_int_equal(e, CUZK_ERR_INVALID_ARG);
  assert_non_null(strstr(err, "metal"));

  for (int k = 0; k < 2; k++) {
    be = cuzk_agent_backend_new(k ? "gpu" : "cuda", &e, err, sizeof err);
#ifdef CUZK_HAVE_CUDA
    if (be) {
      assert_string_equal(be->name, "cuda");
      cuzk_backend_free(be);
    } else {
      assert_int_equal(e, CUZK_ERR_NO_DEVICE);
    }
#else
    assert_null(be);
    assert_int_equal(e, CUZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "CUZK_CUDA=OFF"));
#endif
  }
}

static void test_config_key(void **state) {
  (void)state;
  char err[1024];
  static const char *const envp[] = {NULL};
  static const struct {
    const char *text, *want; /* want NULL: rejected */
  } cases[] = {
      {"", "auto"},
      {"engine = { backend = \"cpu\"; };", "cpu"},
      {"engine = { backend = \"cuda\"; };", "cuda"},
      {"engine = { backend = \"auto\"; };", "auto"},
      {"engine = { backend = \"gpu0\"; };", NULL},
      {"engine = { backend = 1; };", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cuzk_config_t *cfg = NULL;
    cuzk_err_t e = cuzk_config_load_string(&cfg, cases[i].text, envp, err, sizeof err);
    if (!cases[i].want) {
      assert_int_not_equal(e, CUZK_OK);
      assert_non_null(strstr(err, "engine.backend"));
      continue;
    }
    if (e != CUZK_OK) fail_msg("%s: %s", cases[i].text, err);
    cuzk_agent_engine_conf_t ec;
    e = cuzk_agent_engine_conf_from_config(&ec, cfg, err, sizeof err);
    if (e != CUZK_OK) fail_msg("%s", err);
    assert_string_equal(ec.backend, cases[i].want);
    assert_int_equal(ec.prefer_gpu, strcmp(cases[i].want, "cpu") != 0);
    cuzk_config_free(cfg);
  }
}

static void test_prove_through_backend(void **state) {
  (void)state;
  char err[256];
  uint64_t seed = cuzk_test_seed();
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD | CUZK_CS_WITNESS, err, sizeof err);
  assert_non_null(cs);
  cuzk_synthetic_params_t sp = {cuzk_synthetic_constraints_for_log(8, 2), 2, seed};
  assert_int_equal(cuzk_synthetic_build(cs, &sp, err, sizeof err), CUZK_OK);
  cuzk_r1cs_t *r = NULL;
  cuzk_fr_t *in = NULL, *aux = NULL;
  uint64_t ni, na;
  assert_int_equal(cuzk_cs_finish(cs, &r, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_cs_take_witness(cs, &in, &ni, &aux, &na), CUZK_OK);
  cuzk_cs_free(cs);
  cuzk_groth16_toxic_t tw;
  cuzk_groth16_toxic_from_seed(&tw, seed);
  cuzk_groth16_params_t *p = NULL;
  assert_int_equal(cuzk_groth16_setup(&p, r, &tw, err, sizeof err), CUZK_OK);
  cuzk_backend_t *be = cuzk_agent_backend_new("cpu", NULL, err, sizeof err);
  assert_non_null(be);
  cuzk_backend_srs_t *srs = NULL;
  assert_int_equal(be->srs_attach(be, p, r, &srs, err, sizeof err), CUZK_OK);
  uint8_t proof[CUZK_GROTH16_PROOF_BYTES];
  cuzk_groth16_timings_t tm = {0};
  cuzk_backend_timings_t bt = {0};
  assert_int_equal(cuzk_agent_backend_prove(be, srs, r, in, ni, aux, na, proof, &tm, &bt, err, sizeof err), CUZK_OK);
  assert_true(tm.total_us >= tm.spmv_us);
  cuzk_groth16_proof_t pr;
  cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&p->vk, err, sizeof err);
  assert_non_null(pvk);
  assert_int_equal(cuzk_groth16_proof_decode(&pr, proof, 0), CUZK_OK);
  assert_int_equal(cuzk_groth16_verify(pvk, &pr, in + 1, ni - 1), CUZK_OK);
  proof[7] ^= 1;
  if (cuzk_groth16_proof_decode(&pr, proof, 0) == CUZK_OK)
    assert_int_not_equal(cuzk_groth16_verify(pvk, &pr, in + 1, ni - 1), CUZK_OK);
  /* a witness of the wrong length is a typed error */
  assert_int_not_equal(cuzk_agent_backend_prove(be, srs, r, in, ni, aux, na - 1, proof, &tm, NULL, err, sizeof err),
                       CUZK_OK);
  cuzk_groth16_pvk_free(pvk);
  be->srs_detach(be, srs);
  cuzk_backend_free(be);
  cuzk_groth16_params_free(p);
  cuzk_r1cs_free(r);
  free(in), free(aux);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_config_key),
      cmocka_unit_test(test_prove_through_backend),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
