/* The proving backend vtable (DESIGN §4.8): what the engine needs from a device.
 *
 * The engine calls, per partition:
 *   prove_start(device, input)  under the device's lock: copies a/b/c (and whatever else the
 *                               device needs) in, runs H (NTTs) and every MSM, and returns a
 *                               pending object holding the MSM results. When it returns the
 *                               backend holds NO pointer into `input`: the engine gives the a/b/c
 *                               buffers back to the pool and releases their budget at once.
 *   prove_finish(pending, r, s) outside the lock (finalizer thread): the Groth16 epilogue with the
 *                               caller's r and s and the 192-byte encoding; frees the pending.
 *   pending_free(pending)       abandons a pending object (job cancelled between the two).
 * Parameters are made usable by the device once per circuit with srs_attach (e.g. upload the
 * bases to VRAM) and released with srs_detach when the SRS manager evicts them.
 *
 * Host buffers (the pinned pool's a/b/c) come from host_alloc/host_free: page-locked on CUDA,
 * plain aligned memory on the CPU.
 *
 * Ownership: a backend is created by its constructor (cuzk_backend_cpu_new, ...) and freed with
 * its `destroy` entry after every engine using it is freed. Input buffers stay the caller's;
 * prove_start may overwrite a, b and c (they are scratch afterwards). A pending object belongs to
 * the backend until prove_finish or pending_free consumes it.
 * Threads: every entry may be called from any thread; prove_start calls on one device are
 * serialized by the engine (one call per device at a time), all others may run concurrently.
 */
#ifndef CUZK_ENGINE_BACKEND_H
#define CUZK_ENGINE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"
#include "core/groth16/groth16.h"
#include "core/r1cs/r1cs.h"
#include "core/util/err.h"

typedef struct cuzk_backend cuzk_backend_t;
typedef struct cuzk_backend_srs cuzk_backend_srs_t;         /* backend-owned, per circuit */
typedef struct cuzk_backend_pending cuzk_backend_pending_t; /* backend-owned, per partition */

typedef struct {
  char name[96];
  uint64_t memory_bytes; /* device memory (0 for the CPU) */
  unsigned compute_units;
  bool is_gpu;
} cuzk_backend_device_info_t;

/* One partition's inputs to prove_start. All pointers are read during the call only. */
typedef struct {
  cuzk_fr_t *a, *b, *c; /* QAP evaluations on the domain (cuzk_r1cs_spmv), n each; clobbered */
  uint64_t n;           /* domain size (power of two) */
  const cuzk_fr_t *inputs; /* n_inputs, inputs[0] = 1 */
  uint64_t n_inputs;
  const cuzk_fr_t *aux;
  uint64_t n_aux;
  /* Density bitmaps (cuzk_r1cs_density of the r1cs given to srs_attach): aux in A, inputs in B,
   * aux in B. */
  const uint64_t *density_a_aux, *density_b_input, *density_b_aux;
  cuzk_backend_srs_t *srs; /* from srs_attach for this circuit */
  bool inputs_pinned;      /* a/b/c live in host_alloc memory (else pageable heap) */
} cuzk_backend_input_t;

/* Per-phase times and traffic; each call adds to the fields it measured. */
typedef struct {
  uint64_t kernel_us;  /* prove_start wall time (the device-busy part) */
  uint64_t h2d_bytes, h2d_us;
  uint64_t ntt_us;
  uint64_t msm_h_us, msm_l_us, msm_a_us, msm_b_g1_us, msm_b_g2_us;
  uint64_t epilogue_us; /* prove_finish */
} cuzk_backend_timings_t;

struct cuzk_backend {
  const char *name; /* "cpu", "cuda" */
  void *ctx;

  /* Devices: indices 0 .. device_count-1. */
  int (*device_count)(cuzk_backend_t *be);
  cuzk_err_t (*device_info)(cuzk_backend_t *be, int device, cuzk_backend_device_info_t *out);

  /* Host memory for a/b/c buffers. NULL on failure with the reason in why. */
  void *(*host_alloc)(cuzk_backend_t *be, size_t bytes, char *why, size_t why_size);
  void (*host_free)(cuzk_backend_t *be, void *ptr, size_t bytes);

  /* Makes `params` usable on every device. `params` and `r1cs` (whose densities say which
   * variables the a/b_g1/b_g2 bases cover) are read-only and outlive the handle. */
  cuzk_err_t (*srs_attach)(cuzk_backend_t *be, const cuzk_groth16_params_t *params,
                           const cuzk_r1cs_t *r1cs, cuzk_backend_srs_t **out, char *errstr,
                           size_t errstr_size);
  void (*srs_detach)(cuzk_backend_t *be, cuzk_backend_srs_t *srs);

  /* H and the MSMs for one partition on `device`. Errors: CUZK_ERR_UNSATISFIED (the witness does
   * not satisfy the circuit), CUZK_ERR_BAD_PARAMS, CUZK_ERR_NOMEM, CUZK_ERR_GPU,
   * CUZK_ERR_BACKEND. On error *out is NULL. `t` may be NULL. */
  cuzk_err_t (*prove_start)(cuzk_backend_t *be, int device, const cuzk_backend_input_t *in,
                            cuzk_backend_pending_t **out, cuzk_backend_timings_t *t, char *errstr,
                            size_t errstr_size);
  /* The epilogue with r and s; writes the 192-byte compressed proof and frees `p` (also on
   * error). */
  cuzk_err_t (*prove_finish)(cuzk_backend_t *be, cuzk_backend_pending_t *p, const cuzk_fr_t *r,
                             const cuzk_fr_t *s, uint8_t proof[CUZK_GROTH16_PROOF_BYTES],
                             cuzk_backend_timings_t *t, char *errstr, size_t errstr_size);
  void (*pending_free)(cuzk_backend_t *be, cuzk_backend_pending_t *p);

  void (*destroy)(cuzk_backend_t *be);
};

/* The CPU backend (core/engine/backend_cpu.c): one device, the CPU Groth16 prover on the global
 * worker pool; host memory is 64-byte aligned heap. NULL with errstr when out of memory. */
cuzk_backend_t *cuzk_backend_cpu_new(char *errstr, size_t errstr_size);

#ifdef CUZK_HAVE_CUDA
/* The CUDA backend (cuda/backend_cuda.c): every visible CUDA device; SRS bases resident in each
 * device's memory after srs_attach (CUZK_ERR_NOMEM with the sizes when they do not fit); host
 * memory is page-locked (cudaHostAlloc). NULL with errstr (CUZK_ERR_NO_DEVICE when no device or
 * driver is present). Only in builds with CUDA (CUZK_HAVE_CUDA). */
cuzk_backend_t *cuzk_backend_cuda_new(char *errstr, size_t errstr_size);
#endif

/* Convenience wrappers. */
static inline void cuzk_backend_free(cuzk_backend_t *be) {
  if (be) be->destroy(be);
}

#endif
