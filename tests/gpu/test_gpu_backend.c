/* cuda/backend_cuda.c against the CPU backend (core/engine/backend_cpu.c, itself checked against
 * the Groth16 prover and the verifier in tests/unit): synthetic circuits at 2^10, 2^14, 2^16 and
 * the 2KiB WinningPoSt circuit (vanilla proof from core/filecoin/post_gen) proven by both with
 * the same r and s give the same 192 bytes, and cuzk_groth16_verify accepts them (and rejects a
 * flipped byte); page-locked and pageable a/b/c; the input buffers are clobbered between
 * prove_start and prove_finish; an unsatisfied witness gives CUZK_ERR_UNSATISFIED; bad devices
 * and mismatched parameters give typed errors; srs_attach/detach repeated gives device memory
 * back. */
// cuzk-test: labels=gpu timeout=900
#include <stdlib.h>
#include <string.h>

#include "core/circuits/synthetic.h"
#include "core/engine/backend.h"
#include "core/filecoin/post.h"
#include "core/filecoin/post_gen.h"
#include "core/groth16/circuits.h"
#include "core/groth16/prove.h"
#include "core/groth16/setup.h"
#include "core/groth16/verify.h"
#include "core/r1cs/cs.h"
#include "cuda/cuzk_gpu.h"
#include "tests/support/testlib.h"

typedef struct {
  cuzk_r1cs_t *r;
  cuzk_fr_t *in, *aux;
  uint64_t n_in, n_aux;
} circ_t;

static cuzk_backend_t *cpu, *gpu;

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

/* prove_start + prove_finish on `be` with a/b/c from its host_alloc (pinned) or malloc. Returns
 * prove_start's code; the proof in out when CUZK_OK. */
static cuzk_err_t prove_on(cuzk_backend_t *be, cuzk_backend_srs_t *srs, const circ_t *c, const cuzk_fr_t rs[2],
                           int pinned, uint8_t out[CUZK_GROTH16_PROOF_BYTES], cuzk_backend_timings_t *t) {
  char err[256], why[256];
  const uint64_t n = cuzk_r1cs_domain_size(c->r);
  const size_t sz = n * sizeof(cuzk_fr_t);
  cuzk_fr_t *buf[3];
  for (int i = 0; i < 3; i++) {
    buf[i] = pinned ? be->host_alloc(be, sz, why, sizeof why) : malloc(sz);
    if (!buf[i]) fail_msg("host_alloc: %s", why);
  }
  assert_int_equal(cuzk_r1cs_spmv(c->r, c->in, c->n_in, c->aux, c->n_aux, buf[0], buf[1], buf[2], n), CUZK_OK);
  cuzk_backend_input_t in = {
      .a = buf[0], .b = buf[1], .c = buf[2], .n = n, .inputs = c->in, .n_inputs = c->n_in,
      .aux = c->aux, .n_aux = c->n_aux,
      .density_a_aux = cuzk_r1cs_density(c->r, CUZK_R1CS_DENSITY_A_AUX, NULL),
      .density_b_input = cuzk_r1cs_density(c->r, CUZK_R1CS_DENSITY_B_INPUT, NULL),
      .density_b_aux = cuzk_r1cs_density(c->r, CUZK_R1CS_DENSITY_B_AUX, NULL),
      .srs = srs, .inputs_pinned = pinned != 0,
  };
  cuzk_backend_pending_t *pend = (cuzk_backend_pending_t *)buf; /* must be reset */
  cuzk_err_t e = be->prove_start(be, 0, &in, &pend, t, err, sizeof err);
  if (e != CUZK_OK) {
    assert_null(pend);
    fprintf(stderr, "%s prove_start: %s\n", be->name, err);
  }
  /* the pending object must not depend on the inputs any more */
  for (int i = 0; i < 3; i++) {
    memset(buf[i], 0x5A, sz);
    if (pinned)
      be->host_free(be, buf[i], sz);
    else
      free(buf[i]);
  }
  if (e == CUZK_OK) assert_int_equal(be->prove_finish(be, pend, &rs[0], &rs[1], out, t, err, sizeof err), CUZK_OK);
  return e;
}

static void check_verifies(const cuzk_groth16_params_t *p, const circ_t *c, const uint8_t proof[CUZK_GROTH16_PROOF_BYTES]) {
  char err[256];
  uint8_t bytes[CUZK_GROTH16_PROOF_BYTES];
  memcpy(bytes, proof, sizeof bytes);
  cuzk_groth16_proof_t pr;
  assert_int_equal(cuzk_groth16_proof_decode(&pr, bytes, 0), CUZK_OK);
  cuzk_groth16_pvk_t *pvk = cuzk_groth16_pvk_new(&p->vk, err, sizeof err);
  assert_non_null(pvk);
  assert_int_equal(cuzk_groth16_verify(pvk, &pr, c->in + 1, c->n_in - 1), CUZK_OK);
  bytes[20] ^= 1;
  if (cuzk_groth16_proof_decode(&pr, bytes, 0) == CUZK_OK)
    assert_int_not_equal(cuzk_groth16_verify(pvk, &pr, c->in + 1, c->n_in - 1), CUZK_OK);
  cuzk_groth16_pvk_free(pvk);
}

/* CPU and GPU proofs of `c` with the same r, s: equal bytes, verified. */
static void cpu_vs_gpu(const char *label, const circ_t *c, const cuzk_groth16_params_t *p, int pinned) {
  char err[256];
  cuzk_fr_t rs[2];
  assert_int_equal(cuzk_fr_random(&rs[0]), CUZK_OK);
  assert_int_equal(cuzk_fr_random(&rs[1]), CUZK_OK);
  cuzk_backend_srs_t *s_cpu = NULL, *s_gpu = NULL;
  assert_int_equal(cpu->srs_attach(cpu, p, c->r, &s_cpu, err, sizeof err), CUZK_OK);
  if (gpu->srs_attach(gpu, p, c->r, &s_gpu, err, sizeof err) != CUZK_OK) fail_msg("gpu srs_attach: %s", err);
  uint8_t want[CUZK_GROTH16_PROOF_BYTES], got[CUZK_GROTH16_PROOF_BYTES];
  cuzk_backend_timings_t tc, tg;
  memset(&tc, 0, sizeof tc), memset(&tg, 0, sizeof tg);
  assert_int_equal(prove_on(cpu, s_cpu, c, rs, 1, want, &tc), CUZK_OK);
  assert_int_equal(prove_on(gpu, s_gpu, c, rs, pinned, got, &tg), CUZK_OK);
  assert_memory_equal(got, want, sizeof got);
  check_verifies(p, c, got);
  /* a second proof on the warm contexts, other r and s */
  assert_int_equal(cuzk_fr_random(&rs[0]), CUZK_OK);
  assert_int_equal(prove_on(cpu, s_cpu, c, rs, 1, want, NULL), CUZK_OK);
  assert_int_equal(prove_on(gpu, s_gpu, c, rs, !pinned, got, NULL), CUZK_OK);
  assert_memory_equal(got, want, sizeof got);
  assert_true(tg.h2d_bytes >= 3 * cuzk_r1cs_domain_size(c->r) * sizeof(cuzk_fr_t));
  assert_true(tg.kernel_us > 0);
  printf("%-18s n=2^%-2u %-8s cpu start %8.1f ms | gpu start %7.1f ms (h2d %.1f MB in %.2f ms, ntt %.2f, msm h %.2f "
         "l %.2f a %.2f b1 %.2f b2 %.2f ms)\n",
         label, (unsigned)__builtin_ctzll(cuzk_r1cs_domain_size(c->r)), pinned ? "pinned" : "pageable",
         tc.kernel_us / 1e3, tg.kernel_us / 1e3, tg.h2d_bytes / 1e6, tg.h2d_us / 1e3, tg.ntt_us / 1e3,
         tg.msm_h_us / 1e3, tg.msm_l_us / 1e3, tg.msm_a_us / 1e3, tg.msm_b_g1_us / 1e3, tg.msm_b_g2_us / 1e3);
  gpu->srs_detach(gpu, s_gpu);
  cpu->srs_detach(cpu, s_cpu);
}

static void test_synthetic(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  char err[256];
  static const unsigned sizes[] = {10, 14, 16};
  for (int k = 0; k < 3; k++) {
    circ_t c = synth(sizes[k], seed + sizes[k]);
    cuzk_groth16_toxic_t tw;
    cuzk_groth16_toxic_from_seed(&tw, seed ^ sizes[k]);
    cuzk_groth16_params_t *p = NULL;
    assert_int_equal(cuzk_groth16_setup(&p, c.r, &tw, err, sizeof err), CUZK_OK);
    cpu_vs_gpu("synthetic", &c, p, k != 1);
    cuzk_groth16_params_free(p);
    circ_free(&c);
  }
}

static void test_errors_and_attach_cycles(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  char err[256];
  circ_t c = synth(10, seed), other = synth(11, seed);
  cuzk_groth16_toxic_t tw;
  cuzk_groth16_toxic_from_seed(&tw, seed);
  cuzk_groth16_params_t *p = NULL, *p11 = NULL;
  assert_int_equal(cuzk_groth16_setup(&p, c.r, &tw, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_setup(&p11, other.r, &tw, err, sizeof err), CUZK_OK);
  cuzk_backend_srs_t *srs = NULL;
  assert_int_equal(gpu->srs_attach(gpu, p11, c.r, &srs, err, sizeof err), CUZK_ERR_BAD_PARAMS);
  assert_null(srs);

  /* attach/detach cycles give the device memory back (contexts are made on first prove) */
  cuzk_gpu_info_t before, after;
  assert_int_equal(cuzk_gpu_device_info(0, &before).code, 0);
  for (int i = 0; i < 5; i++) {
    assert_int_equal(gpu->srs_attach(gpu, p11, other.r, &srs, err, sizeof err), CUZK_OK);
    gpu->srs_detach(gpu, srs);
  }
  assert_int_equal(cuzk_gpu_device_info(0, &after).code, 0);
  assert_true(after.free_mem + ((size_t)8 << 20) >= before.free_mem);

  /* an unsatisfied witness: the first perturbation of an aux value the R1CS checker rejects */
  assert_int_equal(gpu->srs_attach(gpu, p, c.r, &srs, err, sizeof err), CUZK_OK);
  cuzk_fr_t one, rs[2];
  cuzk_fr_from_u64(&one, 1);
  rs[0] = one, rs[1] = one;
  uint64_t j = c.n_aux / 2;
  for (;; j++) {
    assert_true(j < c.n_aux);
    cuzk_fr_add(&c.aux[j], &c.aux[j], &one);
    if (cuzk_r1cs_check(c.r, c.in, c.n_in, c.aux, c.n_aux, NULL, err, sizeof err) != CUZK_OK) break;
    cuzk_fr_sub(&c.aux[j], &c.aux[j], &one);
  }
  uint8_t out[CUZK_GROTH16_PROOF_BYTES];
  assert_int_equal(prove_on(gpu, srs, &c, rs, 1, out, NULL), CUZK_ERR_UNSATISFIED);
  cuzk_fr_sub(&c.aux[j], &c.aux[j], &one);
  assert_int_equal(prove_on(gpu, srs, &c, rs, 0, out, NULL), CUZK_OK);
  check_verifies(p, &c, out);

  /* a device that does not exist */
  cuzk_backend_input_t in = {.a = c.in, .b = c.in, .c = c.in, .n = 1, .inputs = c.in, .n_inputs = c.n_in,
                             .aux = c.aux, .n_aux = c.n_aux, .srs = srs};
  cuzk_backend_pending_t *pend = NULL;
  assert_int_equal(gpu->prove_start(gpu, gpu->device_count(gpu), &in, &pend, NULL, err, sizeof err),
                   CUZK_ERR_NO_DEVICE);
  assert_null(pend);
  /* a/b/c of the wrong length */
  assert_int_equal(gpu->prove_start(gpu, 0, &in, &pend, NULL, err, sizeof err), CUZK_ERR_INVALID_ARG);
  cuzk_backend_device_info_t info;
  assert_int_equal(gpu->device_info(gpu, 0, &info), CUZK_OK);
  assert_true(info.is_gpu && info.memory_bytes > 0 && info.compute_units > 0);
  assert_int_equal(gpu->device_info(gpu, -1, &info), CUZK_ERR_NO_DEVICE);
  gpu->srs_detach(gpu, srs);
  cuzk_groth16_params_free(p), cuzk_groth16_params_free(p11);
  circ_free(&c), circ_free(&other);
}

static void test_winning_post_2k(void **state) {
  (void)state;
  uint64_t seed = cuzk_test_seed();
  char err[256];
  const cuzk_circuit_t *ct = cuzk_circuit_find("winning-post-2k");
  assert_non_null(ct);
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(0);
  assert_non_null(info);
  uint8_t rnd[32];
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, seed);
  cuzk_test_rng_bytes(&rng, rnd, sizeof rnd);
  cuzk_filecoin_randomness_mask(rnd);
  uint8_t *vp = NULL;
  size_t vlen = 0;
  assert_int_equal(cuzk_filecoin_post_gen(&vp, &vlen, info, rnd, 77, 0, seed, err, sizeof err), CUZK_OK);
  circ_t c;
  if (cuzk_circuit_record(&c.r, ct, &ct->defaults, err, sizeof err) != CUZK_OK) fail_msg("record: %s", err);
  if (cuzk_circuit_witness(&c.in, &c.n_in, &c.aux, &c.n_aux, ct, &ct->defaults, vp, vlen, err, sizeof err) != CUZK_OK)
    fail_msg("witness: %s", err);
  cuzk_groth16_toxic_t tw;
  cuzk_groth16_toxic_from_seed(&tw, seed | 1);
  cuzk_groth16_params_t *p = NULL;
  assert_int_equal(cuzk_groth16_setup(&p, c.r, &tw, err, sizeof err), CUZK_OK);
  cpu_vs_gpu("winning-post-2k", &c, p, 1);
  cuzk_groth16_params_free(p);
  circ_free(&c);
  free(vp);
}

int main(void) {
  int n = 0;
  cuzk_gpu_status_t st = cuzk_gpu_device_count(&n);
  if (st.code || n == 0) {
    char err[256];
    cuzk_backend_t *be = cuzk_backend_cuda_new(err, sizeof err);
    if (be) {
      fprintf(stderr, "FAIL: cuda backend created without a device\n");
      cuzk_backend_free(be);
      return 1;
    }
    printf("SKIP: no CUDA device (%s); cuzk_backend_cuda_new says: %s\n", st.message, err);
    return 77;
  }
  char err[256];
  cpu = cuzk_backend_cpu_new(err, sizeof err);
  gpu = cuzk_backend_cuda_new(err, sizeof err);
  if (!cpu || !gpu) {
    fprintf(stderr, "FAIL: backend: %s\n", err);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_synthetic),
      cmocka_unit_test(test_errors_and_attach_cycles),
      cmocka_unit_test(test_winning_post_2k),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  cuzk_backend_free(gpu);
  cuzk_backend_free(cpu);
  return rc;
}
