/* The CPU backend: the Groth16 CPU prover behind the backend vtable. One device (index 0);
 * "kernel" time is prove_start's wall time; no host-to-device traffic. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/backend.h"
#include "core/groth16/prove.h"
#include "core/util/clock.h"
#include "core/util/pool.h"

struct cuzk_backend_srs {
  const cuzk_groth16_params_t *params;
  const cuzk_r1cs_t *r1cs;
};

struct cuzk_backend_pending {
  cuzk_groth16_msm_t msm;
  const cuzk_groth16_params_t *params;
};

static int cpu_device_count(cuzk_backend_t *be) {
  (void)be;
  return 1;
}

static cuzk_err_t cpu_device_info(cuzk_backend_t *be, int device, cuzk_backend_device_info_t *out) {
  (void)be;
  if (device != 0) return CUZK_ERR_NO_DEVICE;
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "cpu");
  out->compute_units = cuzk_pool_size(cuzk_pool_global());
  return CUZK_OK;
}

static void *cpu_host_alloc(cuzk_backend_t *be, size_t bytes, char *why, size_t why_size) {
  (void)be;
  size_t sz = (bytes + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, sz ? sz : 64);
  if (!p) cuzk_errf(CUZK_ERR_NOMEM, why, why_size, "aligned_alloc(%zu) failed", bytes);
  return p;
}

static void cpu_host_free(cuzk_backend_t *be, void *ptr, size_t bytes) {
  (void)be, (void)bytes;
  free(ptr);
}

static cuzk_err_t cpu_srs_attach(cuzk_backend_t *be, const cuzk_groth16_params_t *params,
                                 const cuzk_r1cs_t *r1cs, cuzk_backend_srs_t **out, char *errstr,
                                 size_t errstr_size) {
  (void)be;
  *out = NULL;
  cuzk_err_t e = cuzk_groth16_params_match(params, r1cs, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  cuzk_backend_srs_t *s = calloc(1, sizeof *s);
  if (!s) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cpu backend: no memory");
  s->params = params;
  s->r1cs = r1cs;
  *out = s;
  return CUZK_OK;
}

static void cpu_srs_detach(cuzk_backend_t *be, cuzk_backend_srs_t *s) {
  (void)be;
  free(s);
}

static cuzk_err_t cpu_prove_start(cuzk_backend_t *be, int device, const cuzk_backend_input_t *in,
                                  cuzk_backend_pending_t **out, cuzk_backend_timings_t *t,
                                  char *errstr, size_t errstr_size) {
  (void)be;
  assert(in && in->srs && out);
  *out = NULL;
  if (device != 0) return cuzk_errf(CUZK_ERR_NO_DEVICE, errstr, errstr_size, "cpu backend: device %d", device);
  uint64_t t0 = cuzk_now_us();
  cuzk_backend_srs_t *s = in->srs;
  cuzk_backend_pending_t *p = calloc(1, sizeof *p);
  if (!p) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cpu backend: no memory");
  cuzk_groth16_timings_t tm = {0};
  cuzk_err_t e = cuzk_groth16_prove_start_abc(&p->msm, s->params, s->r1cs, in->inputs, in->n_inputs, in->aux,
                                              in->n_aux, in->a, in->b, in->c, in->n, &tm, errstr, errstr_size);
  if (e != CUZK_OK) {
    free(p);
    return e;
  }
  p->params = s->params;
  if (t) {
    t->kernel_us += cuzk_now_us() - t0;
    t->ntt_us += tm.ntt_us;
    t->msm_h_us += tm.msm_h_us;
    t->msm_l_us += tm.msm_l_us;
    t->msm_a_us += tm.msm_a_us;
    t->msm_b_g1_us += tm.msm_b_g1_us;
    t->msm_b_g2_us += tm.msm_b_g2_us;
  }
  *out = p;
  return CUZK_OK;
}

static cuzk_err_t cpu_prove_finish(cuzk_backend_t *be, cuzk_backend_pending_t *p, const cuzk_fr_t *r,
                                   const cuzk_fr_t *s, uint8_t proof[CUZK_GROTH16_PROOF_BYTES],
                                   cuzk_backend_timings_t *t, char *errstr, size_t errstr_size) {
  (void)be, (void)errstr, (void)errstr_size;
  assert(p && r && s && proof);
  cuzk_groth16_proof_t pr;
  cuzk_groth16_timings_t tm = {0};
  cuzk_groth16_prove_finish(&pr, &p->params->vk, &p->msm, r, s, &tm);
  cuzk_groth16_proof_encode(proof, &pr);
  if (t) t->epilogue_us += tm.epilogue_us;
  free(p);
  return CUZK_OK;
}

static void cpu_pending_free(cuzk_backend_t *be, cuzk_backend_pending_t *p) {
  (void)be;
  free(p);
}

static void cpu_destroy(cuzk_backend_t *be) { free(be); }

cuzk_backend_t *cuzk_backend_cpu_new(char *errstr, size_t errstr_size) {
  cuzk_backend_t *be = calloc(1, sizeof *be);
  if (!be) {
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cpu backend: no memory");
    return NULL;
  }
  be->name = "cpu";
  be->device_count = cpu_device_count;
  be->device_info = cpu_device_info;
  be->host_alloc = cpu_host_alloc;
  be->host_free = cpu_host_free;
  be->srs_attach = cpu_srs_attach;
  be->srs_detach = cpu_srs_detach;
  be->prove_start = cpu_prove_start;
  be->prove_finish = cpu_prove_finish;
  be->pending_free = cpu_pending_free;
  be->destroy = cpu_destroy;
  return be;
}
