/* The CUDA backend (DESIGN §4.8) behind the vtable of core/engine/backend.h, in C on top of
 * cuda/cuzk_gpu.h only.
 *
 * srs_attach uploads the H, L, A, B_G1 (G1) and B_G2 (G2) bases to every device and the two u32
 * index lists that gather the A and B scalars out of the witness w = inputs ‖ aux (from the
 * r1cs densities, in the order the bases are stored). prove_start on device d, under that
 * device's mutex: H on the device (cuzk_gpu_h_run_witness; h stays there) with w copied to the
 * device once behind a/b/c, the two gathers, then the MSMs H (n−1 scalars on the device), L (w's aux part), A, B_G1, B_G2.
 * prove_finish is core's epilogue (cuzk_groth16_prove_finish) on the MSM results, so proofs equal
 * the CPU backend's byte for byte for the same r and s.
 *
 * Threads: any thread; per-device contexts (H pipeline, MSM) are guarded by one mutex per device
 * and created on first use. The backend keeps no pointer into a prove_start input after return.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/backend.h"
#include "core/groth16/prove.h"
#include "core/util/clock.h"
#include "core/util/log.h"
#include "cuda/cuzk_gpu.h"

_Static_assert(sizeof(cuzk_gpu_g1_affine_t) == sizeof(cuzk_g1_affine_t), "G1 affine layout");
_Static_assert(sizeof(cuzk_gpu_g2_affine_t) == sizeof(cuzk_g2_affine_t), "G2 affine layout");
_Static_assert(sizeof(cuzk_gpu_g1_jac_t) == sizeof(cuzk_g1_t), "G1 Jacobian layout");
_Static_assert(sizeof(cuzk_gpu_g2_jac_t) == sizeof(cuzk_g2_t), "G2 Jacobian layout");
_Static_assert(sizeof(cuzk_fr_t) == 32, "Fr layout");

typedef struct {
  pthread_mutex_t mu;
  cuzk_gpu_h_t *h;
  cuzk_gpu_msm_t *msm;
} cuda_dev_t;

typedef struct {
  int n_dev;
  cuda_dev_t *dev;
} cuda_be_t;

typedef struct {
  cuzk_gpu_g1_bases_t *h, *l, *a, *b_g1;
  cuzk_gpu_g2_bases_t *b_g2;
  uint32_t *idx_a, *idx_b; /* device */
} cuda_srs_dev_t;

struct cuzk_backend_srs {
  const cuzk_groth16_params_t *params;
  const cuzk_r1cs_t *r1cs;
  size_t n_idx_a, n_idx_b;
  int n_dev;
  cuda_srs_dev_t *dev;
};

struct cuzk_backend_pending {
  cuzk_groth16_msm_t msm;
  const cuzk_groth16_params_t *params;
};

static cuzk_err_t gpu_err(cuzk_gpu_status_t st, char *errstr, size_t errstr_size, const char *what) {
  cuzk_err_t code = st.code ? (cuzk_err_t)st.code : CUZK_ERR_GPU;
  return cuzk_errf(code, errstr, errstr_size, "cuda backend: %s: %s", what, st.message);
}

static int cuda_device_count(cuzk_backend_t *be) { return ((cuda_be_t *)be->ctx)->n_dev; }

static cuzk_err_t cuda_device_info(cuzk_backend_t *be, int device, cuzk_backend_device_info_t *out) {
  cuda_be_t *cb = be->ctx;
  if (device < 0 || device >= cb->n_dev) return CUZK_ERR_NO_DEVICE;
  cuzk_gpu_info_t gi;
  cuzk_gpu_status_t st = cuzk_gpu_device_info(device, &gi);
  if (st.code) return (cuzk_err_t)st.code;
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%.95s", gi.name);
  out->memory_bytes = gi.total_mem;
  out->compute_units = (unsigned)gi.sm_count;
  out->is_gpu = true;
  return CUZK_OK;
}

static void *cuda_host_alloc(cuzk_backend_t *be, size_t bytes, char *why, size_t why_size) {
  (void)be;
  void *p = NULL;
  cuzk_gpu_status_t st = cuzk_gpu_host_alloc(bytes, &p);
  if (st.code) {
    gpu_err(st, why, why_size, "cudaHostAlloc");
    return NULL;
  }
  return p;
}

static void cuda_host_free(cuzk_backend_t *be, void *ptr, size_t bytes) {
  (void)be, (void)bytes;
  cuzk_gpu_host_free(ptr);
}

static void srs_dev_free(cuda_srs_dev_t *d) {
  cuzk_gpu_g1_bases_free(d->h);
  cuzk_gpu_g1_bases_free(d->l);
  cuzk_gpu_g1_bases_free(d->a);
  cuzk_gpu_g1_bases_free(d->b_g1);
  cuzk_gpu_g2_bases_free(d->b_g2);
  cuzk_gpu_free(d->idx_a);
  cuzk_gpu_free(d->idx_b);
  memset(d, 0, sizeof *d);
}

static void cuda_srs_detach(cuzk_backend_t *be, cuzk_backend_srs_t *s) {
  (void)be;
  if (!s) return;
  for (int i = 0; i < s->n_dev; i++) srs_dev_free(&s->dev[i]);
  free(s->dev);
  free(s);
}

/* Witness positions of the variables whose bit is set: inputs filtered by in_bits (NULL = all),
 * then aux (at n_in + j) filtered by aux_bits — the order of the a / b_g1 / b_g2 bases. */
static size_t index_list(uint32_t *dst, uint64_t n_in, const uint64_t *in_bits, uint64_t n_aux,
                         const uint64_t *aux_bits) {
  size_t k = 0;
  for (uint64_t i = 0; i < n_in; i++)
    if (!in_bits || cuzk_bitmap_get(in_bits, i)) dst[k++] = (uint32_t)i;
  for (uint64_t j = 0; j < n_aux; j++)
    if (cuzk_bitmap_get(aux_bits, j)) dst[k++] = (uint32_t)(n_in + j);
  return k;
}

static cuzk_gpu_status_t upload_u32(int dev, uint32_t **out, const uint32_t *host, size_t n) {
  void *d = NULL;
  cuzk_gpu_status_t st = cuzk_gpu_malloc(dev, n * sizeof(uint32_t), &d);
  if (st.code) return st;
  if (n) st = cuzk_gpu_copy_h2d(dev, d, host, n * sizeof(uint32_t));
  if (st.code) {
    cuzk_gpu_free(d);
    return st;
  }
  *out = d;
  return st;
}

static cuzk_err_t cuda_srs_attach(cuzk_backend_t *be, const cuzk_groth16_params_t *p,
                                  const cuzk_r1cs_t *r1cs, cuzk_backend_srs_t **out, char *errstr,
                                  size_t errstr_size) {
  cuda_be_t *cb = be->ctx;
  assert(p && r1cs && out);
  *out = NULL;
  cuzk_err_t e = cuzk_groth16_params_match(p, r1cs, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  const uint64_t n_in = cuzk_r1cs_num_inputs(r1cs), n_aux = cuzk_r1cs_num_aux(r1cs);
  if (n_in + n_aux >= ((uint64_t)1 << 32))
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size,
                     "cuda backend: %llu variables exceed the u32 gather indices",
                     (unsigned long long)(n_in + n_aux));
  const uint64_t bases_bytes = (uint64_t)(p->n_h + p->n_l + p->n_a + p->n_b_g1) * sizeof(cuzk_gpu_g1_affine_t) +
                               (uint64_t)p->n_b_g2 * sizeof(cuzk_gpu_g2_affine_t) +
                               (uint64_t)(p->n_a + p->n_b_g1) * sizeof(uint32_t);

  cuzk_backend_srs_t *s = calloc(1, sizeof *s);
  uint32_t *ia = malloc((p->n_a ? p->n_a : 1) * sizeof *ia);
  uint32_t *ib = malloc((p->n_b_g1 ? p->n_b_g1 : 1) * sizeof *ib);
  if (s) s->dev = calloc((size_t)cb->n_dev, sizeof *s->dev);
  if (!s || !s->dev || !ia || !ib) {
    free(ia), free(ib);
    if (s) free(s->dev);
    free(s);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cuda backend: no host memory for srs_attach");
  }
  s->params = p;
  s->r1cs = r1cs;
  s->n_dev = cb->n_dev;
  s->n_idx_a = index_list(ia, n_in, NULL, n_aux, cuzk_r1cs_density(r1cs, CUZK_R1CS_DENSITY_A_AUX, NULL));
  s->n_idx_b = index_list(ib, n_in, cuzk_r1cs_density(r1cs, CUZK_R1CS_DENSITY_B_INPUT, NULL), n_aux,
                          cuzk_r1cs_density(r1cs, CUZK_R1CS_DENSITY_B_AUX, NULL));
  if (s->n_idx_a != p->n_a || s->n_idx_b != p->n_b_g1 || p->n_b_g1 != p->n_b_g2) {
    e = cuzk_errf(CUZK_ERR_BAD_PARAMS, errstr, errstr_size,
                  "cuda backend: densities select %zu A and %zu B variables, the params hold %zu, %zu, %zu",
                  s->n_idx_a, s->n_idx_b, p->n_a, p->n_b_g1, p->n_b_g2);
    goto fail;
  }
  for (int d = 0; d < cb->n_dev; d++) {
    cuzk_gpu_info_t gi;
    cuzk_gpu_status_t st = cuzk_gpu_device_info(d, &gi);
    if (st.code) {
      e = gpu_err(st, errstr, errstr_size, "device info");
      goto fail;
    }
    if (bases_bytes > gi.free_mem) {
      e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size,
                    "cuda backend: the SRS bases need %.2f GiB of device memory, device %d (%s) has "
                    "%.2f GiB free of %.2f GiB",
                    bases_bytes / 1073741824.0, d, gi.name, gi.free_mem / 1073741824.0,
                    gi.total_mem / 1073741824.0);
      goto fail;
    }
    cuda_srs_dev_t *sd = &s->dev[d];
    const char *what = "upload H bases";
    st = cuzk_gpu_g1_bases_new(&sd->h, d, (const cuzk_gpu_g1_affine_t *)p->h, p->n_h);
    if (!st.code) what = "upload L bases", st = cuzk_gpu_g1_bases_new(&sd->l, d, (const cuzk_gpu_g1_affine_t *)p->l, p->n_l);
    if (!st.code) what = "upload A bases", st = cuzk_gpu_g1_bases_new(&sd->a, d, (const cuzk_gpu_g1_affine_t *)p->a, p->n_a);
    if (!st.code)
      what = "upload B_G1 bases",
      st = cuzk_gpu_g1_bases_new(&sd->b_g1, d, (const cuzk_gpu_g1_affine_t *)p->b_g1, p->n_b_g1);
    if (!st.code)
      what = "upload B_G2 bases",
      st = cuzk_gpu_g2_bases_new(&sd->b_g2, d, (const cuzk_gpu_g2_affine_t *)p->b_g2, p->n_b_g2);
    if (!st.code) what = "upload A indices", st = upload_u32(d, &sd->idx_a, ia, s->n_idx_a);
    if (!st.code) what = "upload B indices", st = upload_u32(d, &sd->idx_b, ib, s->n_idx_b);
    if (st.code) {
      if (st.code == CUZK_ERR_NOMEM)
        e = cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size,
                      "cuda backend: device %d (%s) ran out of memory: %s (SRS bases %.2f GiB): %s", d, gi.name,
                      what, bases_bytes / 1073741824.0, st.message);
      else
        e = gpu_err(st, errstr, errstr_size, what);
      goto fail;
    }
  }
  free(ia), free(ib);
  *out = s;
  return CUZK_OK;
fail:
  free(ia), free(ib);
  cuda_srs_detach(be, s);
  return e;
}

static cuzk_err_t dev_ready(cuda_dev_t *dv, int device, char *errstr, size_t errstr_size) {
  cuzk_gpu_status_t st;
  if (!dv->h && (st = cuzk_gpu_h_new(&dv->h, device)).code) return gpu_err(st, errstr, errstr_size, "h context");
  if (!dv->msm && (st = cuzk_gpu_msm_new(&dv->msm, device)).code)
    return gpu_err(st, errstr, errstr_size, "msm context");
  return CUZK_OK;
}

static unsigned log2_exact(uint64_t n) {
  unsigned k = 0;
  while (((uint64_t)1 << k) < n) k++;
  return k;
}

/* Everything on the device for one partition; the caller holds dv->mu. */
static cuzk_err_t prove_locked(cuda_dev_t *dv, int device, const cuzk_backend_input_t *in, cuzk_groth16_msm_t *msm,
                               cuzk_backend_timings_t *t, char *errstr, size_t errstr_size) {
  cuzk_backend_srs_t *s = in->srs;
  const cuzk_groth16_params_t *p = s->params;
  cuda_srs_dev_t *sd = &s->dev[device];
  cuzk_err_t e = dev_ready(dv, device, errstr, errstr_size);
  if (e != CUZK_OK) return e;

  const unsigned log_n = log2_exact(in->n);
  const uint64_t t_ready = cuzk_now_us();
  cuzk_gpu_h_timings_t ht = {0};
  const void *d_h = NULL, *d_w = NULL, *d_ga = NULL, *d_gb = NULL;
  int top_nonzero = 0;
  cuzk_gpu_status_t st = cuzk_gpu_h_run_witness(
      dv->h, (const uint64_t *)in->a, (const uint64_t *)in->b, (const uint64_t *)in->c, log_n,
      (const uint64_t *)in->inputs, in->n_inputs, (const uint64_t *)in->aux, in->n_aux, &d_h, &d_w, &top_nonzero, &ht);
  if (st.code) return gpu_err(st, errstr, errstr_size, "H pipeline");
  if (top_nonzero)
    return cuzk_errf(CUZK_ERR_UNSATISFIED, errstr, errstr_size,
                     "prove: the witness does not satisfy the constraints");
  st = cuzk_gpu_h_gather(dv->h, 0, sd->idx_a, s->n_idx_a, &d_ga);
  if (!st.code) st = cuzk_gpu_h_gather(dv->h, 1, sd->idx_b, s->n_idx_b, &d_gb);
  if (st.code) return gpu_err(st, errstr, errstr_size, "witness");
  const uint64_t t_h = cuzk_now_us();
  CUZK_DEBUG("cuda", "prove_h", "device=%d log_n=%u h_and_gather_us=%llu h2d_ms=%.3f ntt_ms=%.3f total_ms=%.3f",
             device, log_n, (unsigned long long)(t_h - t_ready), ht.h2d_ms, ht.ntt_ms, ht.total_ms);
  if (t) {
    t->h2d_bytes += ht.h2d_bytes;
    t->h2d_us += (uint64_t)(ht.h2d_ms * 1000.0f);
    t->ntt_us += (uint64_t)(ht.ntt_ms * 1000.0f);
  }

  const unsigned fl = CUZK_GPU_MSM_SCALARS_MONT | CUZK_GPU_MSM_SCALARS_ON_DEVICE;
  cuzk_gpu_g1_jac_t j1;
  cuzk_gpu_g2_jac_t j2;
  uint64_t t0 = cuzk_now_us();
  st = cuzk_gpu_msm_g1(dv->msm, sd->h, 0, d_h, p->n_h, fl, 0, &j1);
  if (st.code) return gpu_err(st, errstr, errstr_size, "H MSM");
  memcpy(&msm->h, &j1, sizeof j1);
  uint64_t t1 = cuzk_now_us();
  if (t) t->msm_h_us += t1 - t0;

  st = cuzk_gpu_msm_g1(dv->msm, sd->l, 0, (const char *)d_w + in->n_inputs * sizeof(cuzk_fr_t), p->n_l, fl, 0, &j1);
  if (st.code) return gpu_err(st, errstr, errstr_size, "L MSM");
  memcpy(&msm->l, &j1, sizeof j1);
  t0 = cuzk_now_us();
  if (t) t->msm_l_us += t0 - t1;

  st = cuzk_gpu_msm_g1(dv->msm, sd->a, 0, d_ga, s->n_idx_a, fl, 0, &j1);
  if (st.code) return gpu_err(st, errstr, errstr_size, "A MSM");
  memcpy(&msm->a, &j1, sizeof j1);
  t1 = cuzk_now_us();
  if (t) t->msm_a_us += t1 - t0;

  st = cuzk_gpu_msm_g1(dv->msm, sd->b_g1, 0, d_gb, s->n_idx_b, fl, 0, &j1);
  if (st.code) return gpu_err(st, errstr, errstr_size, "B_G1 MSM");
  memcpy(&msm->b_g1, &j1, sizeof j1);
  t0 = cuzk_now_us();
  if (t) t->msm_b_g1_us += t0 - t1;

  st = cuzk_gpu_msm_g2(dv->msm, sd->b_g2, 0, d_gb, s->n_idx_b, fl, 0, &j2);
  if (st.code) return gpu_err(st, errstr, errstr_size, "B_G2 MSM");
  memcpy(&msm->b_g2, &j2, sizeof j2);
  t1 = cuzk_now_us();
  if (t) t->msm_b_g2_us += t1 - t0;
  return CUZK_OK;
}

static cuzk_err_t cuda_prove_start(cuzk_backend_t *be, int device, const cuzk_backend_input_t *in,
                                   cuzk_backend_pending_t **out, cuzk_backend_timings_t *t, char *errstr,
                                   size_t errstr_size) {
  cuda_be_t *cb = be->ctx;
  assert(in && in->srs && out && in->a && in->b && in->c && in->inputs);
  *out = NULL;
  if (device < 0 || device >= cb->n_dev || device >= in->srs->n_dev)
    return cuzk_errf(CUZK_ERR_NO_DEVICE, errstr, errstr_size, "cuda backend: no device %d", device);
  const cuzk_backend_srs_t *s = in->srs;
  const cuzk_r1cs_t *r = s->r1cs;
  if (in->n_inputs != cuzk_r1cs_num_inputs(r) || in->n_aux != cuzk_r1cs_num_aux(r) ||
      !cuzk_fr_is_one(&in->inputs[0]) || (in->n_aux && !in->aux))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "witness has %llu inputs and %llu aux, the circuit %llu and %llu (input 0 must be 1)",
                     (unsigned long long)in->n_inputs, (unsigned long long)in->n_aux,
                     (unsigned long long)cuzk_r1cs_num_inputs(r), (unsigned long long)cuzk_r1cs_num_aux(r));
  if (in->n != cuzk_r1cs_domain_size(r) || in->n < 2 || (in->n & (in->n - 1)) || in->n > ((uint64_t)1 << 27) ||
      s->params->n_h != in->n - 1)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "a/b/c hold %llu elements, the domain %llu (a power of two in 2..2^27 with n-1 H bases)",
                     (unsigned long long)in->n, (unsigned long long)cuzk_r1cs_domain_size(r));
  cuzk_backend_pending_t *p = calloc(1, sizeof *p);
  if (!p) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cuda backend: no memory");
  cuda_dev_t *dv = &cb->dev[device];
  pthread_mutex_lock(&dv->mu);
  uint64_t t0 = cuzk_now_us();
  cuzk_err_t e = prove_locked(dv, device, in, &p->msm, t, errstr, errstr_size);
  uint64_t t1 = cuzk_now_us();
  pthread_mutex_unlock(&dv->mu);
  if (e != CUZK_OK) {
    free(p);
    return e;
  }
  p->params = s->params;
  if (t) t->kernel_us += t1 - t0;
  *out = p;
  return CUZK_OK;
}

static cuzk_err_t cuda_prove_finish(cuzk_backend_t *be, cuzk_backend_pending_t *p, const cuzk_fr_t *r,
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

static void cuda_pending_free(cuzk_backend_t *be, cuzk_backend_pending_t *p) {
  (void)be;
  free(p);
}

static void cuda_destroy(cuzk_backend_t *be) {
  if (!be) return;
  cuda_be_t *cb = be->ctx;
  if (cb) {
    for (int i = 0; i < cb->n_dev; i++) {
      cuzk_gpu_h_free(cb->dev[i].h);
      cuzk_gpu_msm_free(cb->dev[i].msm);
      pthread_mutex_destroy(&cb->dev[i].mu);
    }
    free(cb->dev);
    free(cb);
  }
  free(be);
}

cuzk_backend_t *cuzk_backend_cuda_new(char *errstr, size_t errstr_size) {
  int n = 0;
  cuzk_gpu_status_t st = cuzk_gpu_device_count(&n);
  if (st.code || n <= 0) {
    cuzk_errf(st.code ? (cuzk_err_t)st.code : CUZK_ERR_NO_DEVICE, errstr, errstr_size,
              "cuda backend: no usable CUDA device (%s)", st.code ? st.message : "0 devices");
    return NULL;
  }
  cuzk_backend_t *be = calloc(1, sizeof *be);
  cuda_be_t *cb = calloc(1, sizeof *cb);
  if (cb) cb->dev = calloc((size_t)n, sizeof *cb->dev);
  if (!be || !cb || !cb->dev) {
    if (cb) free(cb->dev);
    free(cb), free(be);
    cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "cuda backend: no memory");
    return NULL;
  }
  cb->n_dev = n;
  for (int i = 0; i < n; i++) pthread_mutex_init(&cb->dev[i].mu, NULL);
  be->name = "cuda";
  be->ctx = cb;
  be->device_count = cuda_device_count;
  be->device_info = cuda_device_info;
  be->host_alloc = cuda_host_alloc;
  be->host_free = cuda_host_free;
  be->srs_attach = cuda_srs_attach;
  be->srs_detach = cuda_srs_detach;
  be->prove_start = cuda_prove_start;
  be->prove_finish = cuda_prove_finish;
  be->pending_free = cuda_pending_free;
  be->destroy = cuda_destroy;
  return be;
}
