// Device discovery for the CUDA backend (see cuzk_gpu.h for the contract).
#include "cuda/cuzk_gpu.h"
#include "cuda/status.cuh"

#include <cuda_runtime.h>

extern "C" cuzk_gpu_status_t cuzk_gpu_device_count(int *count) {
  *count = 0;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || n == 0) {
    cudaGetLastError();
    return cuzk_gpu__status(CUZK_GPU_NO_DEVICE, "no CUDA device: %s", cudaGetErrorString(e));
  }
  if (e != cudaSuccess) return cuzk_gpu__from_cuda(e, "cudaGetDeviceCount");
  *count = n;
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_device_info(int dev, cuzk_gpu_info_t *info) {
  cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, dev);
  if (e != cudaSuccess) return cuzk_gpu__from_cuda(e, "cudaGetDeviceProperties");
  snprintf(info->name, sizeof(info->name), "%.127s", p.name);
  info->total_mem = p.totalGlobalMem;
  info->sm_count = p.multiProcessorCount;
  info->cc_major = p.major;
  info->cc_minor = p.minor;
  size_t fr = 0, tot = 0;
  int prev = 0;
  cudaGetDevice(&prev);
  if ((e = cudaSetDevice(dev)) != cudaSuccess) return cuzk_gpu__from_cuda(e, "cudaSetDevice");
  e = cudaMemGetInfo(&fr, &tot);
  cudaSetDevice(prev);
  if (e != cudaSuccess) return cuzk_gpu__from_cuda(e, "cudaMemGetInfo");
  info->free_mem = fr;
  return cuzk_gpu__ok();
}
