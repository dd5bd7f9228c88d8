// Device/host memory helpers and element-wise field ops (see cuzk_gpu.h).
#include "cuda/cuzk_gpu.h"
#include "cuda/ff.cuh"
#include "cuda/status.cuh"

using namespace cuzk_gpu;

extern "C" cuzk_gpu_status_t cuzk_gpu_malloc(int dev, size_t bytes, void **dptr) {
  *dptr = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  CUZK_CUDA_TRY(cudaMalloc(dptr, bytes ? bytes : 1));
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_free(void *dptr) {
  if (dptr) CUZK_CUDA_TRY(cudaFree(dptr));
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_host_alloc(size_t bytes, void **hptr) {
  *hptr = nullptr;
  CUZK_CUDA_TRY(cudaMallocHost(hptr, bytes ? bytes : 1));
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_host_free(void *hptr) {
  if (hptr) CUZK_CUDA_TRY(cudaFreeHost(hptr));
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_copy_h2d(int dev, void *dst, const void *src, size_t bytes) {
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  CUZK_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_copy_d2h(int dev, void *dst, const void *src, size_t bytes) {
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  CUZK_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  return cuzk_gpu__ok();
}

template <class P>
__global__ void cuzk__field_op_kernel(int op, fe<P> *out, const fe<P> *a, const fe<P> *b, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fe<P> x = a[i], r;
  switch (op) {
    case CUZK_GPU_FOP_ADD: r = add<P>(x, b[i]); break;
    case CUZK_GPU_FOP_SUB: r = sub<P>(x, b[i]); break;
    case CUZK_GPU_FOP_MUL: r = mul<P>(x, b[i]); break;
    case CUZK_GPU_FOP_SQR: r = sqr<P>(x); break;
    case CUZK_GPU_FOP_NEG: r = neg<P>(x); break;
    case CUZK_GPU_FOP_TO_MONT: r = to_mont<P>(x); break;
    default: r = from_mont<P>(x); break;
  }
  out[i] = r;
}

template <class P>
static cuzk_gpu_status_t cuzk__field_op(int dev, cuzk_gpu_fop_t op, uint64_t *out, const uint64_t *a,
                                        const uint64_t *b, size_t n) {
  const size_t bytes = n * sizeof(fe<P>);
  fe<P> *d = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  CUZK_CUDA_TRY(cudaMalloc(&d, 3 * bytes));
  cudaError_t e = cudaMemcpy(d, a, bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess && b) e = cudaMemcpy(d + n, b, bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    cuzk__field_op_kernel<P><<<(unsigned)((n + 255) / 256), 256>>>((int)op, d + 2 * n, d, b ? d + n : d, n);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(out, d + 2 * n, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (e != cudaSuccess) return cuzk_gpu__from_cuda(e, "field_op");
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_field_op_host(int dev, int field, cuzk_gpu_fop_t op, uint64_t *out,
                                                    const uint64_t *a, const uint64_t *b, size_t n) {
  if (n == 0) return cuzk_gpu__ok();
  if (!out || !a || (field != 0 && field != 1) || (int)op < 0 || (int)op > CUZK_GPU_FOP_FROM_MONT)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "field_op: bad arguments");
  if ((op == CUZK_GPU_FOP_ADD || op == CUZK_GPU_FOP_SUB || op == CUZK_GPU_FOP_MUL) && !b)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "field_op: b is required for this op");
  if (op != CUZK_GPU_FOP_ADD && op != CUZK_GPU_FOP_SUB && op != CUZK_GPU_FOP_MUL) b = nullptr;
  return field == 0 ? cuzk__field_op<FrP>(dev, op, out, a, b, n) : cuzk__field_op<FpP>(dev, op, out, a, b, n);
}
