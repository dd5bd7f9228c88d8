// Internal: building cuzk_gpu_status_t values at the C ABI boundary.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cuda_runtime.h>

#include "cuda/cuzk_gpu.h"

extern "C" {
#include "core/util/err.h"
}

enum {
  CUZK_GPU_OK = CUZK_OK,
  CUZK_GPU_ERR = CUZK_ERR_GPU,
  CUZK_GPU_NO_DEVICE = CUZK_ERR_NO_DEVICE,
  CUZK_GPU_NOMEM = CUZK_ERR_NOMEM,
  CUZK_GPU_INVALID = CUZK_ERR_INVALID_ARG,
};

static inline cuzk_gpu_status_t cuzk_gpu__ok() {
  cuzk_gpu_status_t s;
  s.code = 0;
  s.message[0] = '\0';
  return s;
}

static inline cuzk_gpu_status_t cuzk_gpu__status(int code, const char *fmt, ...) {
  cuzk_gpu_status_t s;
  s.code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s.message, sizeof(s.message), fmt, ap);
  va_end(ap);
  return s;
}

static inline cuzk_gpu_status_t cuzk_gpu__from_cuda(cudaError_t e, const char *what) {
  int code = (e == cudaErrorMemoryAllocation) ? CUZK_GPU_NOMEM : CUZK_GPU_ERR;
  return cuzk_gpu__status(code, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

// Evaluates a CUDA call; on failure returns its status from the enclosing function.
#define CUZK_CUDA_TRY(call)                                    \
  do {                                                         \
    cudaError_t cuzk__e = (call);                              \
    if (cuzk__e != cudaSuccess) return cuzk_gpu__from_cuda(cuzk__e, #call); \
  } while (0)
