// Pippenger MSM over G1 (see cuzk_gpu.h for the contract).
//
// Per MSM: (1) each scalar (taken mod r) is cut into W signed c-bit digits d in
// [-2^(c-1)+1, 2^(c-1)]; digit (w, d != 0) becomes key w*B + |d|-1 (B = 2^(c-1)) with value
// "base index | sign<<31"; (2) CUB radix sort by key; (3) the sorted list is cut into equal
// chunks of L entries, one thread each, so every thread does the same number of mixed
// additions whatever the bucket sizes; a run inside one chunk goes straight to its bucket,
// a run crossing chunk borders leaves partial sums: a thread per split bucket adds them up when
// the bucket spans few chunks, else a block does (tree reduction), so a bucket holding most
// points (witnesses full of ones) stays parallel;
// (4) each window's buckets are split into G segments summed with running sums, a segment's
// offset added back as (lo * segment sum); (5) one block sums segments per window and a thread
// combines windows by Horner's rule. Windows are processed in groups so that the sort never
// holds more than 2^30 entries.
#include "cuda/cuzk_gpu.h"
#include "cuda/ec.cuh"
#include "cuda/status.cuh"

#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <new>

using namespace cuzk_gpu;

struct cuzk_gpu_g1_bases {
  int dev;
  g1_aff *d;
  size_t n;
};

namespace {

constexpr uint32_t SIGN = 0x80000000u;
constexpr size_t MAX_GROUP_ENTRIES = (size_t)1 << 30;

struct scratch {
  void *p = nullptr;
  size_t bytes = 0;
};

__device__ __forceinline__ g1_aff ld_aff(const g1_aff *p) {
  const uint4 *q = reinterpret_cast<const uint4 *>(p);
  g1_aff r;
#pragma unroll
  for (int i = 0; i < 3; i++) {
    uint4 a = q[i];
    r.x.v[4 * i] = a.x; r.x.v[4 * i + 1] = a.y; r.x.v[4 * i + 2] = a.z; r.x.v[4 * i + 3] = a.w;
  }
#pragma unroll
  for (int i = 0; i < 3; i++) {
    uint4 a = q[3 + i];
    r.y.v[4 * i] = a.x; r.y.v[4 * i + 1] = a.y; r.y.v[4 * i + 2] = a.z; r.y.v[4 * i + 3] = a.w;
  }
  return r;
}

/* Scalars -> canonical integers < r in `out` (from Montgomery when mont). */
__global__ void msm_prep_scalars(const fr_t *in, fr_t *out, size_t n, int mont) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t s = in[i];
  if (mont) {
    s = from_mont<FrP>(s);
  } else {
    for (int k = 0; k < 2; k++) cuzk__reduce_once<FrP>(s.v); /* < 2^256 < 3r */
  }
  out[i] = s;
}

/* Digits of windows [w0, w0 + wg) of scalar i; carries recomputed from window 0. */
__global__ void msm_digits(const fr_t *scal, size_t n, int c, int w0, int wg, uint32_t *keys, uint32_t *vals) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fr_t s = scal[i];
  const uint32_t B = 1u << (c - 1), mask = (1u << c) - 1, sentinel = (uint32_t)wg * B;
  uint32_t carry = 0;
  for (int w = 0; w < w0 + wg; w++) {
    const int bit = w * c, li = bit >> 5, sh = bit & 31;
    uint64_t win = li < 8 ? s.v[li] : 0;
    if (li + 1 < 8) win |= (uint64_t)s.v[li + 1] << 32;
    uint32_t v = (uint32_t)((win >> sh) & mask) + carry;
    int32_t d;
    if (v > B) {
      d = (int32_t)v - (int32_t)(1u << c);
      carry = 1;
    } else {
      d = (int32_t)v;
      carry = 0;
    }
    if (w < w0) continue;
    const size_t o = (size_t)(w - w0) * n + i;
    if (d == 0) {
      keys[o] = sentinel;
      vals[o] = 0;
    } else {
      keys[o] = (uint32_t)(w - w0) * B + (uint32_t)(d < 0 ? -d : d) - 1;
      vals[o] = (uint32_t)i | (d < 0 ? SIGN : 0u);
    }
  }
}

__device__ __forceinline__ void flush(uint32_t key, const g1_xyzz &acc, bool head, bool tail, size_t t,
                                      uint32_t bucket_base, g1_xyzz *buckets, g1_xyzz *H, g1_xyzz *Tp,
                                      uint32_t *split_list, uint32_t *split_count) {
  if (head) {
    H[t] = acc;
  } else if (tail) {
    Tp[t] = acc;
    split_list[atomicAdd(split_count, 1u)] = (uint32_t)t;
  } else {
    buckets[bucket_base + key] = acc;
  }
}

__global__ void __launch_bounds__(256, 2) msm_accumulate(const uint32_t *keys, const uint32_t *vals, const g1_aff *bases,
                                                      size_t M, uint32_t L, uint32_t sentinel, uint32_t bucket_base,
                                                      g1_xyzz *buckets, g1_xyzz *H, g1_xyzz *Tp,
                                                      uint32_t *split_list, uint32_t *split_count) {
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t s = t * L;
  if (s >= M) return;
  const size_t e = s + L < M ? s + L : M;
  uint32_t cur = keys[s];
  if (cur >= sentinel) return;
  bool head = s > 0 && keys[s - 1] == cur;
  g1_xyzz acc = g1_xyzz::inf();
  size_t i = s;
  for (;;) {
    const uint32_t v = vals[i];
    g1_aff p = ld_aff(bases + (v & ~SIGN));
    if (v & SIGN) p.y = neg<FpP>(p.y);
    acc = g1_add_aff(acc, p);
    i++;
    const uint32_t nk = i < M ? keys[i] : 0xffffffffu;
    if (i == e) {
      flush(cur, acc, head, i < M && nk == cur, t, bucket_base, buckets, H, Tp, split_list, split_count);
      return;
    }
    if (nk != cur) {
      flush(cur, acc, head, false, t, bucket_base, buckets, H, Tp, split_list, split_count);
      head = false;
      if (nk >= sentinel) return;
      cur = nk;
      acc = g1_xyzz::inf();
    }
  }
}

/* First index past (t+1)L whose key exceeds b, in sorted keys[0, M): gallop by chunks, then
 * bisect. keys[(t+1)L] == b is known. */
__device__ __forceinline__ size_t run_end(const uint32_t *keys, size_t M, size_t t, size_t L, uint32_t b) {
  size_t lo = (t + 1) * L, step = L, hi = lo;
  while (hi < M && keys[hi] <= b) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > M) hi = M;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (keys[mid] > b) hi = mid; else lo = mid + 1;
  }
  return lo;
}

constexpr size_t FIX_SERIAL_MAX = 32; /* split buckets over at most this many chunks: one thread */

/* One thread per split bucket: bucket = Tp[t] + H[t+1..last] when that is short; longer ones
 * go to big_list for msm_fixup's block-wide reduction. */
__global__ void __launch_bounds__(128) msm_fixup_small(const uint32_t *keys, size_t M, uint32_t L, uint32_t sentinel,
                                                       uint32_t bucket_base, const g1_xyzz *H, const g1_xyzz *Tp,
                                                       const uint32_t *split_list, const uint32_t *split_count,
                                                       uint32_t *big_list, uint32_t *big_count, g1_xyzz *buckets) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= *split_count) return;
  const size_t t = split_list[j];
  const uint32_t b = keys[t * L + L - 1];
  if (b >= sentinel) return;
  const size_t last = (run_end(keys, M, t, L, b) - 1) / L;
  if (last - t > FIX_SERIAL_MAX) {
    big_list[atomicAdd(big_count, 1u)] = (uint32_t)t;
    return;
  }
  g1_xyzz acc = Tp[t];
  for (size_t u = t + 1; u <= last; u++) acc = g1_add(acc, H[u]);
  buckets[bucket_base + b] = acc;
}

constexpr int FIX_THREADS = 128;

__global__ void __launch_bounds__(FIX_THREADS) msm_fixup(const uint32_t *keys, size_t M, uint32_t L, uint32_t sentinel,
                                                         uint32_t bucket_base, const g1_xyzz *H, const g1_xyzz *Tp,
                                                         const uint32_t *split_list, const uint32_t *split_count,
                                                         g1_xyzz *buckets) {
  __shared__ g1_xyzz red[FIX_THREADS];
  __shared__ size_t s_last;
  const uint32_t count = *split_count;
  for (uint32_t j = blockIdx.x; j < count; j += gridDim.x) {
    const size_t t = split_list[j];
    const uint32_t b = keys[t * L + L - 1];
    if (b >= sentinel) continue;
    if (threadIdx.x == 0) {
      s_last = (run_end(keys, M, t, L, b) - 1) / L;
    }
    __syncthreads();
    const size_t last = s_last;
    g1_xyzz acc = g1_xyzz::inf();
    for (size_t u = t + 1 + threadIdx.x; u <= last; u += FIX_THREADS) acc = g1_add(acc, H[u]);
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int off = FIX_THREADS / 2; off > 0; off >>= 1) {
      if (threadIdx.x < off) red[threadIdx.x] = g1_add(red[threadIdx.x], red[threadIdx.x + off]);
      __syncthreads();
    }
    if (threadIdx.x == 0) buckets[bucket_base + b] = g1_add(Tp[t], red[0]);
    __syncthreads();
  }
}

__device__ g1_xyzz g1_mul_small(const g1_xyzz &p, uint32_t k) {
  g1_xyzz r = g1_xyzz::inf();
  for (int b = 31; b >= 0; b--) {
    r = g1_dbl(r);
    if ((k >> b) & 1) r = g1_add(r, p);
  }
  return r;
}

/* seg[w*G + g] = sum over buckets b in segment g of window w of (b+1) * bucket. */
__global__ void __launch_bounds__(128) msm_bucket_reduce(const g1_xyzz *buckets, int W, int log_b, int log_g, g1_xyzz *seg) {
  const uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= ((uint32_t)W << log_g)) return;
  const uint32_t w = id >> log_g, g = id & ((1u << log_g) - 1), S = 1u << (log_b - log_g);
  const uint32_t lo = g * S;
  const g1_xyzz *bk = buckets + ((size_t)w << log_b);
  g1_xyzz running = g1_xyzz::inf(), total = g1_xyzz::inf();
  for (int b = (int)(lo + S) - 1; b >= (int)lo; b--) {
    running = g1_add(running, bk[b]);
    total = g1_add(total, running);
  }
  if (lo) total = g1_add(total, g1_mul_small(running, lo));
  seg[id] = total;
}

constexpr int WSUM_THREADS = 128;

/* win[w] = sum of the G segment sums of window w: one block per window, tree reduction. */
__global__ void __launch_bounds__(WSUM_THREADS) msm_window_sum(const g1_xyzz *seg, int G, g1_xyzz *win) {
  __shared__ g1_xyzz red[WSUM_THREADS];
  const int w = blockIdx.x;
  g1_xyzz acc = g1_xyzz::inf();
  for (int g = threadIdx.x; g < G; g += WSUM_THREADS) acc = g1_add(acc, seg[(size_t)w * G + g]);
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int off = WSUM_THREADS / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) red[threadIdx.x] = g1_add(red[threadIdx.x], red[threadIdx.x + off]);
    __syncthreads();
  }
  if (threadIdx.x == 0) win[w] = red[0];
}

/* Horner over windows, then XYZZ -> Jacobian (X*ZZ^2, Y*ZZZ^2, ZZZ), using ZZ^3 = ZZZ^2. */
__global__ void msm_final(const g1_xyzz *win, int W, int c, fp_t *out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  g1_xyzz acc = win[W - 1];
  for (int i = W - 2; i >= 0; i--) {
    for (int k = 0; k < c; k++) acc = g1_dbl(acc);
    acc = g1_add(acc, win[i]);
  }
  out[0] = mul<FpP>(acc.X, sqr<FpP>(acc.ZZ));
  out[1] = mul<FpP>(acc.Y, sqr<FpP>(acc.ZZZ));
  out[2] = acc.ZZZ;
}

}  // namespace

struct cuzk_gpu_msm {
  int dev;
  int sm_count;
  cudaStream_t stream;
  scratch scal, keys[2], vals[2], sort_tmp, H, Tp, split, buckets, seg, win, result;
  cudaEvent_t ev[8];
  bool profile;
};

static cudaError_t grow(scratch &s, size_t bytes) {
  if (s.bytes >= bytes) return cudaSuccess;
  cudaFree(s.p);
  s.p = nullptr;
  s.bytes = 0;
  cudaError_t e = cudaMalloc(&s.p, bytes);
  if (e == cudaSuccess) s.bytes = bytes;
  return e;
}

extern "C" cuzk_gpu_status_t cuzk_gpu_g1_bases_new(cuzk_gpu_g1_bases_t **out, int dev, const cuzk_gpu_g1_affine_t *host,
                                                   size_t n) {
  *out = nullptr;
  if (!host && n) return cuzk_gpu__status(CUZK_GPU_INVALID, "g1_bases_new: null points");
  if (n >= SIGN) return cuzk_gpu__status(CUZK_GPU_INVALID, "g1_bases_new: %zu points is too many", n);
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  cuzk_gpu_g1_bases_t *b = new (std::nothrow) cuzk_gpu_g1_bases_t();
  if (!b) return cuzk_gpu__status(CUZK_GPU_NOMEM, "g1_bases_new");
  b->dev = dev;
  b->n = n;
  cudaError_t e = cudaMalloc(&b->d, (n ? n : 1) * sizeof(g1_aff));
  if (e == cudaSuccess && n) e = cudaMemcpy(b->d, host, n * sizeof(g1_aff), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cudaFree(b->d);
    delete b;
    return cuzk_gpu__from_cuda(e, "g1_bases_new");
  }
  *out = b;
  return cuzk_gpu__ok();
}

extern "C" void cuzk_gpu_g1_bases_free(cuzk_gpu_g1_bases_t *b) {
  if (!b) return;
  cudaSetDevice(b->dev);
  cudaFree(b->d);
  delete b;
}

extern "C" size_t cuzk_gpu_g1_bases_count(const cuzk_gpu_g1_bases_t *b) { return b ? b->n : 0; }

extern "C" cuzk_gpu_status_t cuzk_gpu_msm_new(cuzk_gpu_msm_t **out, int dev) {
  *out = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  cuzk_gpu_msm_t *ctx = new (std::nothrow) cuzk_gpu_msm_t();
  if (!ctx) return cuzk_gpu__status(CUZK_GPU_NOMEM, "msm context");
  ctx->dev = dev;
  cudaError_t e = cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
  for (int i = 0; i < 8 && e == cudaSuccess; i++) e = cudaEventCreate(&ctx->ev[i]);
  const char *prof = getenv("CUZK_GPU_PROFILE");
  ctx->profile = prof && *prof && *prof != '0';
  if (e != cudaSuccess) {
    delete ctx;
    return cuzk_gpu__from_cuda(e, "msm_new");
  }
  *out = ctx;
  return cuzk_gpu__ok();
}

extern "C" void cuzk_gpu_msm_free(cuzk_gpu_msm_t *ctx) {
  if (!ctx) return;
  cudaSetDevice(ctx->dev);
  scratch *all[] = {&ctx->scal, &ctx->keys[0], &ctx->keys[1], &ctx->vals[0], &ctx->vals[1], &ctx->sort_tmp,
                    &ctx->H, &ctx->Tp, &ctx->split, &ctx->buckets, &ctx->seg, &ctx->win, &ctx->result};
  for (cudaEvent_t e : ctx->ev) cudaEventDestroy(e);
  for (scratch *s : all) cudaFree(s->p);
  cudaStreamDestroy(ctx->stream);
  delete ctx;
}

static unsigned msm_pick_window(size_t n) {
  int lg = 0;
  while (((size_t)1 << (lg + 1)) <= n) lg++;
  int c = lg - 4;
  if (c < 2) c = 2;
  if (c > 16) c = 16;
  return (unsigned)c;
}

#define MSM_TRY(call)                                         \
  do {                                                        \
    cudaError_t cuzk__e = (call);                             \
    if (cuzk__e != cudaSuccess) return cuzk_gpu__from_cuda(cuzk__e, #call); \
  } while (0)

extern "C" cuzk_gpu_status_t cuzk_gpu_msm_g1(cuzk_gpu_msm_t *ctx, const cuzk_gpu_g1_bases_t *bases, size_t offset,
                                             const void *scalars, size_t n, unsigned flags, unsigned window_bits,
                                             cuzk_gpu_g1_jac_t *out) {
  if (!ctx || !bases || !out || (!scalars && n))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "msm_g1: null argument");
  if (offset > bases->n || n > bases->n - offset)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "msm_g1: range [%zu, %zu) exceeds %zu bases", offset, offset + n, bases->n);
  if (bases->dev != ctx->dev) return cuzk_gpu__status(CUZK_GPU_INVALID, "msm_g1: bases live on another device");
  if (window_bits == 1 || window_bits > 20)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "msm_g1: window_bits %u outside 2..20", window_bits);
  memset(out, 0, sizeof(*out));
  if (n == 0) return cuzk_gpu__ok();
  MSM_TRY(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->stream;

  const int c = window_bits ? (int)window_bits : (int)msm_pick_window(n);
  const int W = (256 + c - 1) / c;
  const int log_b = c - 1;
  const uint32_t B = 1u << log_b;
  int log_g = log_b < 10 ? log_b : 10;
  const int G = 1 << log_g;
  int wg = (int)(MAX_GROUP_ENTRIES / n);
  if (wg < 1) wg = 1;
  if (wg > W) wg = W;
  const size_t M = (size_t)wg * n;
  /* chunk length: about twice the mean bucket size, so most buckets fit in one chunk, while
   * keeping several waves of threads */
  size_t L = 8;
  while (L < 256 && L < 2 * (M / ((size_t)wg * B)) && M / (L * 2) >= (size_t)ctx->sm_count * 512) L *= 2;
  const size_t chunks = (M + L - 1) / L;

  MSM_TRY(grow(ctx->scal, n * sizeof(fr_t)));
  for (int i = 0; i < 2; i++) {
    MSM_TRY(grow(ctx->keys[i], M * 4));
    MSM_TRY(grow(ctx->vals[i], M * 4));
  }
  MSM_TRY(grow(ctx->H, chunks * sizeof(g1_xyzz)));
  MSM_TRY(grow(ctx->Tp, chunks * sizeof(g1_xyzz)));
  MSM_TRY(grow(ctx->split, (2 * chunks + 2) * 4));
  MSM_TRY(grow(ctx->buckets, (size_t)W * B * sizeof(g1_xyzz)));
  MSM_TRY(grow(ctx->seg, (size_t)W * G * sizeof(g1_xyzz)));
  MSM_TRY(grow(ctx->win, (size_t)W * sizeof(g1_xyzz)));
  MSM_TRY(grow(ctx->result, 3 * sizeof(fp_t)));

  int sort_bits = 1;
  while (((size_t)1 << sort_bits) <= (size_t)wg * B) sort_bits++;
  cub::DoubleBuffer<uint32_t> dk(static_cast<uint32_t *>(ctx->keys[0].p), static_cast<uint32_t *>(ctx->keys[1].p));
  cub::DoubleBuffer<uint32_t> dv(static_cast<uint32_t *>(ctx->vals[0].p), static_cast<uint32_t *>(ctx->vals[1].p));
  size_t tmp_bytes = 0;
  MSM_TRY(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, dk, dv, (int)M, 0, sort_bits, st));
  MSM_TRY(grow(ctx->sort_tmp, tmp_bytes));

  /* scalars to canonical form in ctx->scal */
  float ph[5] = {0, 0, 0, 0, 0}; /* prep, digits+sort, accumulate, fixup, reduce+final */
  auto mark = [&](int i) {
    if (ctx->profile) cudaEventRecord(ctx->ev[i], st);
  };
  auto lap = [&](int a, int b, int slot) {
    if (!ctx->profile) return;
    float ms = 0;
    cudaEventSynchronize(ctx->ev[b]);
    cudaEventElapsedTime(&ms, ctx->ev[a], ctx->ev[b]);
    ph[slot] += ms;
  };
  mark(0);
  const fr_t *src = static_cast<const fr_t *>(scalars);
  if (!(flags & CUZK_GPU_MSM_SCALARS_ON_DEVICE)) {
    MSM_TRY(cudaMemcpyAsync(ctx->scal.p, scalars, n * sizeof(fr_t), cudaMemcpyHostToDevice, st));
    src = static_cast<const fr_t *>(ctx->scal.p);
  }
  fr_t *scal = static_cast<fr_t *>(ctx->scal.p);
  const unsigned nb = (unsigned)((n + 255) / 256);
  msm_prep_scalars<<<nb, 256, 0, st>>>(src, scal, n, (flags & CUZK_GPU_MSM_SCALARS_MONT) ? 1 : 0);
  MSM_TRY(cudaGetLastError());
  MSM_TRY(cudaMemsetAsync(ctx->buckets.p, 0, (size_t)W * B * sizeof(g1_xyzz), st));

  g1_xyzz *buckets = static_cast<g1_xyzz *>(ctx->buckets.p);
  uint32_t *split_count = static_cast<uint32_t *>(ctx->split.p); /* [0] split, [1] big */
  uint32_t *big_count = split_count + 1;
  uint32_t *split_list = split_count + 2;
  uint32_t *big_list = split_list + chunks;
  mark(1);
  lap(0, 1, 0);
  for (int w0 = 0; w0 < W; w0 += wg) {
    mark(2);
    const int g = (W - w0) < wg ? (W - w0) : wg;
    const size_t m = (size_t)g * n;
    const uint32_t sentinel = (uint32_t)g * B;
    cub::DoubleBuffer<uint32_t> k2(static_cast<uint32_t *>(ctx->keys[0].p), static_cast<uint32_t *>(ctx->keys[1].p));
    cub::DoubleBuffer<uint32_t> v2(static_cast<uint32_t *>(ctx->vals[0].p), static_cast<uint32_t *>(ctx->vals[1].p));
    msm_digits<<<nb, 256, 0, st>>>(scal, n, c, w0, g, k2.Current(), v2.Current());
    MSM_TRY(cudaGetLastError());
    size_t tb = ctx->sort_tmp.bytes;
    MSM_TRY(cub::DeviceRadixSort::SortPairs(ctx->sort_tmp.p, tb, k2, v2, (int)m, 0, sort_bits, st));
    mark(3);
    lap(2, 3, 1);
    MSM_TRY(cudaMemsetAsync(split_count, 0, 8, st));
    const size_t ch = (m + L - 1) / L;
    msm_accumulate<<<(unsigned)((ch + 255) / 256), 256, 0, st>>>(
        k2.Current(), v2.Current(), bases->d + offset, m, (uint32_t)L, sentinel, (uint32_t)w0 * B, buckets,
        static_cast<g1_xyzz *>(ctx->H.p), static_cast<g1_xyzz *>(ctx->Tp.p), split_list, split_count);
    MSM_TRY(cudaGetLastError());
    mark(7);
    lap(3, 7, 2);
    msm_fixup_small<<<(unsigned)((ch + 127) / 128), 128, 0, st>>>(
        k2.Current(), m, (uint32_t)L, sentinel, (uint32_t)w0 * B, static_cast<g1_xyzz *>(ctx->H.p),
        static_cast<g1_xyzz *>(ctx->Tp.p), split_list, split_count, big_list, big_count, buckets);
    MSM_TRY(cudaGetLastError());
    msm_fixup<<<(unsigned)(ctx->sm_count * 2), FIX_THREADS, 0, st>>>(
        k2.Current(), m, (uint32_t)L, sentinel, (uint32_t)w0 * B, static_cast<g1_xyzz *>(ctx->H.p),
        static_cast<g1_xyzz *>(ctx->Tp.p), big_list, big_count, buckets);
    MSM_TRY(cudaGetLastError());
    mark(4);
    lap(7, 4, 3);
  }
  mark(5);
  const unsigned rt = (unsigned)W * (unsigned)G;
  msm_bucket_reduce<<<(rt + 127) / 128, 128, 0, st>>>(buckets, W, log_b, log_g, static_cast<g1_xyzz *>(ctx->seg.p));
  MSM_TRY(cudaGetLastError());
  msm_window_sum<<<W, WSUM_THREADS, 0, st>>>(static_cast<g1_xyzz *>(ctx->seg.p), G, static_cast<g1_xyzz *>(ctx->win.p));
  MSM_TRY(cudaGetLastError());
  msm_final<<<1, 32, 0, st>>>(static_cast<g1_xyzz *>(ctx->win.p), W, c, static_cast<fp_t *>(ctx->result.p));
  MSM_TRY(cudaGetLastError());
  mark(6);
  lap(5, 6, 4);
  if (ctx->profile)
    fprintf(stderr, "msm n=%zu c=%d W=%d groups=%d L=%zu: prep %.3f, digits+sort %.3f, accumulate %.3f, fixup %.3f, reduce %.3f ms\n",
            n, c, W, (W + wg - 1) / wg, L, ph[0], ph[1], ph[2], ph[3], ph[4]);
  MSM_TRY(cudaMemcpyAsync(out, ctx->result.p, sizeof(*out), cudaMemcpyDeviceToHost, st));
  MSM_TRY(cudaStreamSynchronize(st));
  return cuzk_gpu__ok();
}
