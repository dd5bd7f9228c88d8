#include "agent/backend_select.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/clock.h"
#ifdef CUZK_HAVE_CUDA
#include "cuda/cuzk_gpu.h"
#endif

static cuzk_backend_t *cuzk__cuda_or_error(cuzk_err_t *err, char *errstr, size_t errstr_size) {
#ifdef CUZK_HAVE_CUDA
  int n = 0;
  cuzk_gpu_status_t st = cuzk_gpu_device_count(&n);
  if (st.code || n <= 0) {
    if (err) *err = CUZK_ERR_NO_DEVICE;
    cuzk_errf(CUZK_ERR_NO_DEVICE, errstr, errstr_size, "the cuda backend needs a CUDA device: %s",
              st.code ? st.message : "none found");
    return NULL;
  }
  cuzk_backend_t *be = cuzk_backend_cuda_new(errstr, errstr_size);
  if (!be && err) *err = CUZK_ERR_GPU;
  return be;
#else
  cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size,
            "the cuda backend is not part of this build (built with CUZK_CUDA=OFF or without nvcc)");
  if (err) *err = CUZK_ERR_UNSUPPORTED;
  return NULL;
#endif
}

cuzk_backend_t *cuzk_agent_backend_new(const char *name, cuzk_err_t *err, char *errstr,
                                       size_t errstr_size) {
  assert(name);
  cuzk_err_t e_local;
  if (!err) err = &e_local;
  *err = CUZK_OK;
  cuzk_backend_t *be = NULL;
  if (strcmp(name, "cuda") == 0 || strcmp(name, "gpu") == 0) {
    return cuzk__cuda_or_error(err, errstr, errstr_size);
  } else if (strcmp(name, "auto") == 0) {
#ifdef CUZK_HAVE_CUDA
    int n = 0;
    if (cuzk_gpu_device_count(&n).code == 0 && n > 0) {
      char why[256];
      be = cuzk_backend_cuda_new(why, sizeof why);
      if (be) return be;
    }
#endif
  } else if (strcmp(name, "cpu") != 0) {
    *err = cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "unknown backend '%s' (cpu, cuda, gpu or auto)", name);
    return NULL;
  }
  be = cuzk_backend_cpu_new(errstr, errstr_size);
  if (!be) *err = CUZK_ERR_NOMEM;
  return be;
}

cuzk_err_t cuzk_agent_backend_prove(cuzk_backend_t *be, cuzk_backend_srs_t *srs, const cuzk_r1cs_t *r,
                                    const cuzk_fr_t *inputs, uint64_t n_inputs, const cuzk_fr_t *aux,
                                    uint64_t n_aux, uint8_t proof[CUZK_GROTH16_PROOF_BYTES],
                                    cuzk_groth16_timings_t *tm, cuzk_backend_timings_t *bt,
                                    char *errstr, size_t errstr_size) {
  assert(be && srs && r && inputs && proof && tm);
  const uint64_t n = cuzk_r1cs_domain_size(r);
  const size_t sz = (size_t)n * sizeof(cuzk_fr_t);
  cuzk_fr_t *buf[3] = {NULL, NULL, NULL};
  bool pinned[3] = {true, true, true};
  cuzk_backend_timings_t bt_local;
  memset(&bt_local, 0, sizeof bt_local);
  cuzk_backend_pending_t *pend = NULL;
  cuzk_err_t e = CUZK_OK;
  char why[256];
  for (int i = 0; i < 3; i++) {
    buf[i] = be->host_alloc(be, sz, why, sizeof why);
    if (!buf[i]) {
      pinned[i] = false;
      buf[i] = malloc(sz ? sz : 1);
      if (!buf[i]) {
        e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory for a/b/c (%zu bytes each)", sz);
        goto done;
      }
    }
  }
  uint64_t t0 = cuzk_now_us();
  e = cuzk_r1cs_spmv(r, inputs, n_inputs, aux, n_aux, buf[0], buf[1], buf[2], n);
  tm->spmv_us = cuzk_now_us() - t0;
  if (e != CUZK_OK) {
    cuzk_errf(e, errstr, errstr_size, "SpMV failed (witness length does not match the circuit?)");
    goto done;
  }
  cuzk_backend_input_t in = {
      .a = buf[0], .b = buf[1], .c = buf[2], .n = n, .inputs = inputs, .n_inputs = n_inputs,
      .aux = aux, .n_aux = n_aux,
      .density_a_aux = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_A_AUX, NULL),
      .density_b_input = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_INPUT, NULL),
      .density_b_aux = cuzk_r1cs_density(r, CUZK_R1CS_DENSITY_B_AUX, NULL),
      .srs = srs, .inputs_pinned = pinned[0] && pinned[1] && pinned[2],
  };
  e = be->prove_start(be, 0, &in, &pend, &bt_local, errstr, errstr_size);
  if (e != CUZK_OK) goto done;
  cuzk_fr_t rr, ss;
  if ((e = cuzk_fr_random(&rr)) != CUZK_OK || (e = cuzk_fr_random(&ss)) != CUZK_OK) {
    be->pending_free(be, pend);
    cuzk_errf(e, errstr, errstr_size, "CSPRNG failed");
    goto done;
  }
  e = be->prove_finish(be, pend, &rr, &ss, proof, &bt_local, errstr, errstr_size);
  memset(&rr, 0, sizeof rr);
  memset(&ss, 0, sizeof ss);
  tm->ntt_us = bt_local.ntt_us;
  tm->msm_h_us = bt_local.msm_h_us;
  tm->msm_l_us = bt_local.msm_l_us;
  tm->msm_a_us = bt_local.msm_a_us;
  tm->msm_b_g1_us = bt_local.msm_b_g1_us;
  tm->msm_b_g2_us = bt_local.msm_b_g2_us;
  tm->epilogue_us = bt_local.epilogue_us;
  tm->total_us = tm->spmv_us + bt_local.kernel_us + bt_local.epilogue_us;
  if (bt) *bt = bt_local;
done:
  for (int i = 0; i < 3; i++) {
    if (!buf[i]) continue;
    if (pinned[i])
      be->host_free(be, buf[i], sz);
    else
      free(buf[i]);
  }
  return e;
}
