// Groth16's H polynomial on the device (see cuzk_gpu.h for the contract).
//
// Three streams, one per input x in (a, b, c): copy x in, iNTT natural -> natural (INV_NN), coset
// NTT natural -> bit-reversed (FWD_NR); stream 0 then waits on the other two through events,
// forms (a·b − c)·Z^-1 element-wise (the order does not matter there) and runs the coset iNTT
// bit-reversed -> natural (INV_RN). Three transforms from natural order back to natural order
// flip the order an odd number of times, so one of them has to be natural -> natural: that is
// the first iNTT (one in-place bit-reversal per input).
#include "cuda/cuzk_gpu.h"
#include "cuda/ff.cuh"
#include "cuda/ntt.cuh"
#include "cuda/status.cuh"

#include <new>

using namespace cuzk_gpu;

namespace {

constexpr unsigned H_MAX_LOG_N = 27;

/* zinv = (g^n − 1)^-1 for g = 7, n = 2^log_n (inverse by Fermat: exponent r − 2). */
__global__ void h_zinv_kernel(fr_t *zinv, unsigned log_n) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const uint32_t rm2[8] = {0xffffffffu, 0xfffffffeu, 0xfffe5bfeu, 0x53bda402u,
                           0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
  fr_t g = fr_t::zero();
  g.v[0] = 7;
  g = to_mont<FrP>(g);
  const uint64_t n = 1ull << log_n;
  const uint32_t e[2] = {(uint32_t)n, (uint32_t)(n >> 32)};
  fr_t z = sub<FrP>(pow<FrP>(g, e, 2), fr_t::one());
  *zinv = pow<FrP>(z, rm2, 8);
}

/* a_i <- (a_i·b_i − c_i)·zinv */
__global__ void h_divide_kernel(fr_t *a, const fr_t *b, const fr_t *c, const fr_t *zinv, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = mul<FrP>(sub<FrP>(mul<FrP>(a[i], b[i]), c[i]), *zinv);
}

__global__ void h_gather_kernel(fr_t *out, const fr_t *w, const uint32_t *idx, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = w[idx[i]];
}

}  // namespace

struct cuzk_gpu_h {
  int dev;
  cuzk_gpu_ntt_t *ntt;
  cudaStream_t s[3];
  cudaEvent_t copy0[3], copy1[3], done[3], end;
  fr_t *buf[3];
  size_t cap; /* elements per buffer */
  fr_t *zinv; /* device scalar for zinv_log_n */
  unsigned zinv_log_n;
  fr_t *top_host; /* page-locked: h's coefficient n-1 */
  fr_t *w;        /* witness */
  size_t w_cap, w_len;
  cudaEvent_t w0, w1;
  fr_t *g[2]; /* gather outputs */
  size_t g_cap[2];
};

extern "C" void cuzk_gpu_h_free(cuzk_gpu_h_t *ctx) {
  if (!ctx) return;
  cudaSetDevice(ctx->dev);
  for (int i = 0; i < 3; i++) {
    if (ctx->s[i]) cudaStreamSynchronize(ctx->s[i]);
  }
  for (int i = 0; i < 3; i++) {
    cudaFree(ctx->buf[i]);
    if (ctx->copy0[i]) cudaEventDestroy(ctx->copy0[i]);
    if (ctx->copy1[i]) cudaEventDestroy(ctx->copy1[i]);
    if (ctx->done[i]) cudaEventDestroy(ctx->done[i]);
    if (ctx->s[i]) cudaStreamDestroy(ctx->s[i]);
  }
  if (ctx->end) cudaEventDestroy(ctx->end);
  if (ctx->w0) cudaEventDestroy(ctx->w0);
  if (ctx->w1) cudaEventDestroy(ctx->w1);
  cudaFree(ctx->w);
  cudaFree(ctx->g[0]);
  cudaFree(ctx->g[1]);
  cudaFree(ctx->zinv);
  cudaFreeHost(ctx->top_host);
  cuzk_gpu_ntt_free(ctx->ntt);
  delete ctx;
}

extern "C" cuzk_gpu_status_t cuzk_gpu_h_new(cuzk_gpu_h_t **out, int dev) {
  *out = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  cuzk_gpu_h_t *ctx = new (std::nothrow) cuzk_gpu_h_t();
  if (!ctx) return cuzk_gpu__status(CUZK_GPU_NOMEM, "h context");
  ctx->dev = dev;
  cuzk_gpu_status_t st = cuzk_gpu_ntt_new(&ctx->ntt, dev);
  if (st.code) {
    delete ctx;
    return st;
  }
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < 3 && e == cudaSuccess; i++) {
    e = cudaStreamCreateWithFlags(&ctx->s[i], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&ctx->copy0[i]);
    if (e == cudaSuccess) e = cudaEventCreate(&ctx->copy1[i]);
    if (e == cudaSuccess) e = cudaEventCreate(&ctx->done[i]);
  }
  if (e == cudaSuccess) e = cudaEventCreate(&ctx->end);
  if (e == cudaSuccess) e = cudaEventCreate(&ctx->w0);
  if (e == cudaSuccess) e = cudaEventCreate(&ctx->w1);
  if (e == cudaSuccess) e = cudaMalloc(&ctx->zinv, sizeof(fr_t));
  if (e == cudaSuccess) e = cudaMallocHost(&ctx->top_host, sizeof(fr_t));
  if (e != cudaSuccess) {
    cuzk_gpu_h_free(ctx);
    return cuzk_gpu__from_cuda(e, "h_new");
  }
  *out = ctx;
  return cuzk_gpu__ok();
}

/* Waits for everything enqueued on the context's streams (error paths: no host array may stay
 * in use after the call returns). */
static void h_drain(cuzk_gpu_h_t *ctx) {
  for (int i = 0; i < 3; i++) cudaStreamSynchronize(ctx->s[i]);
}

static cuzk_gpu_status_t h_grow(cuzk_gpu_h_t *ctx, size_t n) {
  if (ctx->cap >= n) return cuzk_gpu__ok();
  for (int i = 0; i < 3; i++) {
    cudaFree(ctx->buf[i]);
    ctx->buf[i] = nullptr;
  }
  ctx->cap = 0;
  for (int i = 0; i < 3; i++) {
    cudaError_t e = cudaMalloc(&ctx->buf[i], n * sizeof(fr_t));
    if (e != cudaSuccess) {
      for (int j = 0; j < 3; j++) {
        cudaFree(ctx->buf[j]);
        ctx->buf[j] = nullptr;
      }
      cudaGetLastError();
      return cuzk_gpu__status(e == cudaErrorMemoryAllocation ? CUZK_GPU_NOMEM : CUZK_GPU_ERR,
                              "h: cudaMalloc of 3 x %zu bytes: %s", n * sizeof(fr_t), cudaGetErrorString(e));
    }
  }
  ctx->cap = n;
  return cuzk_gpu__ok();
}

static cuzk_gpu_status_t h_enqueue(cuzk_gpu_h_t *ctx, const uint64_t *const host[3], unsigned log_n) {
  const size_t n = (size_t)1 << log_n, bytes = n * sizeof(fr_t);
  for (int i = 0; i < 3; i++) {
    cudaStream_t s = ctx->s[i];
    CUZK_CUDA_TRY(cudaEventRecord(ctx->copy0[i], s));
    CUZK_CUDA_TRY(cudaMemcpyAsync(ctx->buf[i], host[i], bytes, cudaMemcpyHostToDevice, s));
    CUZK_CUDA_TRY(cudaEventRecord(ctx->copy1[i], s));
    cuzk_gpu_status_t st = cuzk_gpu__ntt_enqueue(ctx->ntt, s, ctx->buf[i], log_n, CUZK_GPU_NTT_INV_NN, 0);
    if (st.code) return st;
    st = cuzk_gpu__ntt_enqueue(ctx->ntt, s, ctx->buf[i], log_n, CUZK_GPU_NTT_FWD_NR, CUZK_GPU_NTT_COSET);
    if (st.code) return st;
    CUZK_CUDA_TRY(cudaEventRecord(ctx->done[i], s));
  }
  cudaStream_t s0 = ctx->s[0];
  CUZK_CUDA_TRY(cudaStreamWaitEvent(s0, ctx->done[1], 0));
  CUZK_CUDA_TRY(cudaStreamWaitEvent(s0, ctx->done[2], 0));
  const size_t blocks = (n + 255) / 256; /* <= 2^19 */
  h_divide_kernel<<<(unsigned)blocks, 256, 0, s0>>>(ctx->buf[0], ctx->buf[1], ctx->buf[2], ctx->zinv, n);
  CUZK_CUDA_TRY(cudaGetLastError());
  cuzk_gpu_status_t st = cuzk_gpu__ntt_enqueue(ctx->ntt, s0, ctx->buf[0], log_n, CUZK_GPU_NTT_INV_RN, CUZK_GPU_NTT_COSET);
  if (st.code) return st;
  CUZK_CUDA_TRY(cudaMemcpyAsync(ctx->top_host, ctx->buf[0] + (n - 1), sizeof(fr_t), cudaMemcpyDeviceToHost, s0));
  CUZK_CUDA_TRY(cudaEventRecord(ctx->end, s0));
  return cuzk_gpu__ok();
}

static cudaError_t h_grow_one(fr_t **buf, size_t *cap, size_t n);

/* h_run, and when w_len != SIZE_MAX the witness copy too: it is enqueued on stream 2 after c's
 * copy, so it overlaps the transforms. */
static cuzk_gpu_status_t h_run_impl(cuzk_gpu_h_t *ctx, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                                    unsigned log_n, const uint64_t *w_in, size_t n_in, const uint64_t *w_aux,
                                    size_t n_aux, bool with_w, const void **d_h, int *top_nonzero,
                                    cuzk_gpu_h_timings_t *t) {
  if (!ctx || !a || !b || !c || !d_h || !top_nonzero || log_n < 1 || log_n > H_MAX_LOG_N)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "h_run: bad arguments (log_n %u)", log_n);
  if (with_w && ((!w_in && n_in) || (!w_aux && n_aux) || n_in + n_aux >= ((size_t)1 << 32)))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "h_run: bad witness arguments");
  *d_h = nullptr;
  *top_nonzero = 0;
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  const size_t n = (size_t)1 << log_n;
  cuzk_gpu_status_t st = h_grow(ctx, n);
  if (st.code) return st;
  if (with_w) {
    ctx->w_len = 0;
    CUZK_CUDA_TRY(h_grow_one(&ctx->w, &ctx->w_cap, n_in + n_aux));
  }
  st = cuzk_gpu__ntt_prepare(ctx->ntt, log_n);
  if (st.code) return st;
  if (ctx->zinv_log_n != log_n) {
    ctx->zinv_log_n = 0;
    h_zinv_kernel<<<1, 1, 0, ctx->s[0]>>>(ctx->zinv, log_n);
    CUZK_CUDA_TRY(cudaGetLastError());
    ctx->zinv_log_n = log_n;
  }
  const uint64_t *const host[3] = {a, b, c};
  st = h_enqueue(ctx, host, log_n);
  if (!st.code && with_w) {
    cudaStream_t s2 = ctx->s[2];
    cudaError_t e = cudaEventRecord(ctx->w0, s2);
    if (e == cudaSuccess && n_in)
      e = cudaMemcpyAsync(ctx->w, w_in, n_in * sizeof(fr_t), cudaMemcpyHostToDevice, s2);
    if (e == cudaSuccess && n_aux)
      e = cudaMemcpyAsync(ctx->w + n_in, w_aux, n_aux * sizeof(fr_t), cudaMemcpyHostToDevice, s2);
    if (e == cudaSuccess) e = cudaEventRecord(ctx->w1, s2);
    if (e != cudaSuccess) st = cuzk_gpu__from_cuda(e, "h_run: witness copy");
  }
  if (st.code) {
    h_drain(ctx);
    cudaGetLastError();
    ctx->zinv_log_n = 0;
    return st;
  }
  cudaError_t e = cudaEventSynchronize(ctx->end);
  if (e == cudaSuccess && with_w) e = cudaEventSynchronize(ctx->w1);
  if (e != cudaSuccess) {
    h_drain(ctx);
    ctx->zinv_log_n = 0;
    return cuzk_gpu__from_cuda(e, "h pipeline");
  }
  if (with_w) ctx->w_len = n_in + n_aux;
  const fr_t *top = ctx->top_host;
  uint32_t acc = 0;
  for (int i = 0; i < FrP::N; i++) acc |= top->v[i];
  *top_nonzero = acc != 0;
  if (t) {
    /* The copies run on three streams and queue behind each other on the copy engine, so a
     * copy's own [start, end] includes its wait: h2d time is the length of the union of the
     * copy intervals (offsets from copy0[0]), which is the time the link was carrying data. */
    float ms = 0, iv[4][2];
    int k = 0;
    t->h2d_bytes = 3 * (uint64_t)n * sizeof(fr_t);
    for (int i = 0; i < 3; i++, k++) {
      CUZK_CUDA_TRY(cudaEventElapsedTime(&iv[k][0], ctx->copy0[0], ctx->copy0[i]));
      CUZK_CUDA_TRY(cudaEventElapsedTime(&iv[k][1], ctx->copy0[0], ctx->copy1[i]));
    }
    if (with_w) {
      CUZK_CUDA_TRY(cudaEventElapsedTime(&iv[k][0], ctx->copy0[0], ctx->w0));
      CUZK_CUDA_TRY(cudaEventElapsedTime(&iv[k][1], ctx->copy0[0], ctx->w1));
      k++;
      t->h2d_bytes += (uint64_t)(n_in + n_aux) * sizeof(fr_t);
    }
    for (int i = 1; i < k; i++) /* insertion sort by start */
      for (int j = i; j > 0 && iv[j][0] < iv[j - 1][0]; j--) {
        float a0 = iv[j][0], a1 = iv[j][1];
        iv[j][0] = iv[j - 1][0], iv[j][1] = iv[j - 1][1];
        iv[j - 1][0] = a0, iv[j - 1][1] = a1;
      }
    t->h2d_ms = 0;
    float cs = iv[0][0], ce = iv[0][1];
    for (int i = 1; i < k; i++) {
      if (iv[i][0] > ce) {
        t->h2d_ms += ce - cs;
        cs = iv[i][0];
      }
      if (iv[i][1] > ce) ce = iv[i][1];
    }
    t->h2d_ms += ce - cs;
    CUZK_CUDA_TRY(cudaEventElapsedTime(&ms, ctx->copy1[0], ctx->end));
    t->ntt_ms = ms;
    CUZK_CUDA_TRY(cudaEventElapsedTime(&ms, ctx->copy0[0], ctx->end));
    t->total_ms = ms;
    if (with_w) {
      CUZK_CUDA_TRY(cudaEventElapsedTime(&ms, ctx->copy0[0], ctx->w1));
      if (ms > t->total_ms) t->total_ms = ms;
    }
  }
  *d_h = ctx->buf[0];
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_h_run(cuzk_gpu_h_t *ctx, const uint64_t *a, const uint64_t *b,
                                            const uint64_t *c, unsigned log_n, const void **d_h, int *top_nonzero,
                                            cuzk_gpu_h_timings_t *t) {
  return h_run_impl(ctx, a, b, c, log_n, nullptr, 0, nullptr, 0, false, d_h, top_nonzero, t);
}

extern "C" cuzk_gpu_status_t cuzk_gpu_h_run_witness(cuzk_gpu_h_t *ctx, const uint64_t *a, const uint64_t *b,
                                                    const uint64_t *c, unsigned log_n, const uint64_t *inputs,
                                                    size_t n_inputs, const uint64_t *aux, size_t n_aux,
                                                    const void **d_h, const void **d_w, int *top_nonzero,
                                                    cuzk_gpu_h_timings_t *t) {
  if (!d_w) return cuzk_gpu__status(CUZK_GPU_INVALID, "h_run_witness: null d_w");
  *d_w = nullptr;
  cuzk_gpu_status_t st =
      h_run_impl(ctx, a, b, c, log_n, inputs, n_inputs, aux, n_aux, true, d_h, top_nonzero, t);
  if (!st.code) *d_w = ctx->w;
  return st;
}

/* Grows *buf to hold n elements (contents not kept). */
static cudaError_t h_grow_one(fr_t **buf, size_t *cap, size_t n) {
  if (*cap >= n) return cudaSuccess;
  cudaFree(*buf);
  *buf = nullptr;
  *cap = 0;
  cudaError_t e = cudaMalloc(buf, (n ? n : 1) * sizeof(fr_t));
  if (e != cudaSuccess) {
    *buf = nullptr;
    cudaGetLastError();
    return e;
  }
  *cap = n;
  return cudaSuccess;
}

extern "C" cuzk_gpu_status_t cuzk_gpu_h_witness(cuzk_gpu_h_t *ctx, const uint64_t *inputs, size_t n_inputs,
                                                const uint64_t *aux, size_t n_aux, const void **d_w,
                                                cuzk_gpu_h_timings_t *t) {
  if (!ctx || !d_w || (!inputs && n_inputs) || (!aux && n_aux) || n_inputs + n_aux >= ((size_t)1 << 32))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "h_witness: bad arguments");
  *d_w = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  const size_t n = n_inputs + n_aux;
  CUZK_CUDA_TRY(h_grow_one(&ctx->w, &ctx->w_cap, n));
  cudaStream_t s = ctx->s[1];
  CUZK_CUDA_TRY(cudaEventRecord(ctx->w0, s));
  cudaError_t e = cudaSuccess;
  if (n_inputs) e = cudaMemcpyAsync(ctx->w, inputs, n_inputs * sizeof(fr_t), cudaMemcpyHostToDevice, s);
  if (e == cudaSuccess && n_aux)
    e = cudaMemcpyAsync(ctx->w + n_inputs, aux, n_aux * sizeof(fr_t), cudaMemcpyHostToDevice, s);
  if (e == cudaSuccess) e = cudaEventRecord(ctx->w1, s);
  cudaError_t e2 = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = e2;
  if (e != cudaSuccess) {
    ctx->w_len = 0;
    return cuzk_gpu__from_cuda(e, "h_witness: copy");
  }
  ctx->w_len = n;
  if (t) {
    float ms = 0;
    CUZK_CUDA_TRY(cudaEventElapsedTime(&ms, ctx->w0, ctx->w1));
    t->h2d_bytes += (uint64_t)n * sizeof(fr_t);
    t->h2d_ms += ms;
  }
  *d_w = ctx->w;
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_h_gather(cuzk_gpu_h_t *ctx, int slot, const uint32_t *idx, size_t n,
                                               const void **d_out) {
  if (!ctx || !d_out || (slot != 0 && slot != 1) || (!idx && n))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "h_gather: bad arguments");
  *d_out = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  /* b's and c's buffers are free once h_run has returned: use them when large enough */
  fr_t *dst = ctx->buf[1 + slot];
  if (ctx->cap < n || !dst) {
    CUZK_CUDA_TRY(h_grow_one(&ctx->g[slot], &ctx->g_cap[slot], n));
    dst = ctx->g[slot];
  }
  if (n) {
    if (!ctx->w_len) return cuzk_gpu__status(CUZK_GPU_INVALID, "h_gather: no witness on the device");
    cudaStream_t s = ctx->s[1];
    h_gather_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(dst, ctx->w, idx, n);
    CUZK_CUDA_TRY(cudaGetLastError());
    CUZK_CUDA_TRY(cudaStreamSynchronize(s));
  }
  *d_out = dst;
  return cuzk_gpu__ok();
}
