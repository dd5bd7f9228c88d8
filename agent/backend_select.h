/* Choosing a proving backend by name (CLI `--backend`, config `engine.backend`) and proving one
 * partition through it outside the engine (`cuzk prove`, `cuzk bench prove`).
 * Threads: any thread. Ownership: the caller frees the backend with cuzk_backend_free. */
#ifndef CUZK_AGENT_BACKEND_SELECT_H
#define CUZK_AGENT_BACKEND_SELECT_H

#include <stdint.h>

#include "core/engine/backend.h"
#include "core/groth16/prove.h"

/* The backend called `name`: "cpu"; "cuda" (or "gpu"): every CUDA device; "auto": cuda when the
 * build has it and a device is present, else cpu. NULL with errstr and *err (may be NULL):
 * CUZK_ERR_UNSUPPORTED for cuda in a build without CUDA, CUZK_ERR_NO_DEVICE when no device or
 * driver is present, CUZK_ERR_INVALID_ARG for an unknown name, CUZK_ERR_NOMEM. */
cuzk_backend_t *cuzk_agent_backend_new(const char *name, cuzk_err_t *err, char *errstr,
                                       size_t errstr_size);

/* One proof through `be` on device 0 with random r and s: a/b/c from be->host_alloc (heap when
 * that fails), SpMV, prove_start, prove_finish. `srs` comes from be->srs_attach(p, r). Fills
 * proof (192 bytes), tm (spmv, ntt, msm_*, epilogue, total; synth kept) and bt (may be NULL). */
cuzk_err_t cuzk_agent_backend_prove(cuzk_backend_t *be, cuzk_backend_srs_t *srs, const cuzk_r1cs_t *r,
                                    const cuzk_fr_t *inputs, uint64_t n_inputs, const cuzk_fr_t *aux,
                                    uint64_t n_aux, uint8_t proof[CUZK_GROTH16_PROOF_BYTES],
                                    cuzk_groth16_timings_t *tm, cuzk_backend_timings_t *bt,
                                    char *errstr, size_t errstr_size);

#endif
