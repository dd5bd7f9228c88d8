// Internal: the NTT on a caller's stream (for pipelines such as cuda/h.cu).
#pragma once
#include <cuda_runtime.h>

#include "cuda/cuzk_gpu.h"

/* Builds the context's tables for 2^log_n (blocking, first use of a size only). Must precede
 * cuzk_gpu__ntt_enqueue for that size. */
cuzk_gpu_status_t cuzk_gpu__ntt_prepare(cuzk_gpu_ntt_t *ctx, unsigned log_n);

/* Enqueues the transform of cuzk_gpu_ntt_device on `stream` and returns without waiting. The
 * tables are read-only once prepared, so several streams may transform concurrently with one
 * context (its own stream is not used). The caller has set the context's device. */
cuzk_gpu_status_t cuzk_gpu__ntt_enqueue(cuzk_gpu_ntt_t *ctx, cudaStream_t stream, void *d_data, unsigned log_n,
                                        cuzk_gpu_ntt_kind_t kind, unsigned flags);
