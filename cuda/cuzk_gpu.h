/* cuzk GPU backend: the only header agent/ and core/ see of cuda/. Pure C; no CUDA types.
 *
 * Every entry point catches CUDA errors at this boundary and returns them as a status
 * {code, message}; code 0 means success, otherwise a cuzk_err_t value (CUZK_ERR_GPU,
 * CUZK_ERR_NO_DEVICE, CUZK_ERR_NOMEM, CUZK_ERR_INVALID_ARG). No C++ exception crosses it.
 */
#ifndef CUZK_CUDA_GPU_H
#define CUZK_CUDA_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int code;          /* 0 on success, else a cuzk_err_t */
  char message[256]; /* NUL-terminated, empty on success */
} cuzk_gpu_status_t;

/* Number of usable CUDA devices. No device (or no driver) gives code CUZK_ERR_NO_DEVICE and
 * *count = 0. Any thread. */
cuzk_gpu_status_t cuzk_gpu_device_count(int *count);

/* Facts about device `dev` for status records. `name` gets at most name_size bytes. */
typedef struct {
  char name[128];
  size_t total_mem;
  size_t free_mem;
  int sm_count;
  int cc_major, cc_minor;
} cuzk_gpu_info_t;
cuzk_gpu_status_t cuzk_gpu_device_info(int dev, cuzk_gpu_info_t *info);

#ifdef __cplusplus
}
#endif

#endif
