// Pippenger MSM over G1 and G2 (see cuzk_gpu.h for the contract); the kernels are templated on
// the coordinate field (FpOps for G1, Fp2Ops for G2).
//
// Unless CUZK_GPU_MSM_NO_SPLIT01: (0) scalars are classified zero / one / other; the bases of the
// ones are summed by a grid-stride batch of mixed additions plus tree reductions, zeros are
// dropped, and the indices of the others are compacted (CUB select) into the tail that the
// steps below run on: the sort value carries the real base index, so the tail costs one
// indirection when its digits are made.
// Per MSM (or tail): (1) each scalar (taken mod r) is cut into W signed c-bit digits d in
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
#include <thrust/iterator/counting_iterator.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace cuzk_gpu;

struct cuzk_gpu_g1_bases {
  int dev;
  g1_aff *d;
  size_t n;
};

struct cuzk_gpu_g2_bases {
  int dev;
  g2_aff *d;
  size_t n;
};

namespace {

constexpr uint32_t SIGN = 0x80000000u;
constexpr size_t MAX_GROUP_ENTRIES = (size_t)1 << 30;

struct scratch {
  void *p = nullptr;
  size_t bytes = 0;
};

/* Launch shapes per curve: G2 points are twice as large, so fewer threads share a block's
 * shared-memory reduction array (64 · 384 B) and the accumulation asks for one block per SM
 * (more registers per thread) where G1 asks for two. */
template <class FO>
struct tune;
template <>
struct tune<FpOps> {
  static constexpr int ACC_MIN_BLOCKS = 2;
  static constexpr int RED_THREADS = 128;
};
template <>
struct tune<Fp2Ops> {
  static constexpr int ACC_MIN_BLOCKS = 1;
  static constexpr int RED_THREADS = 64;
};

enum : uint8_t { CLS_ZERO = 0, CLS_ONE = 1, CLS_OTHER = 2 };

/* Scalars -> canonical integers < r in `out` (from Montgomery when mont); cls (when not null)
 * gets each scalar's class. */
__global__ void msm_prep_scalars(const fr_t *in, fr_t *out, size_t n, int mont, uint8_t *cls) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t s = in[i];
  if (mont) {
    s = from_mont<FrP>(s);
  } else {
    for (int k = 0; k < 2; k++) cuzk__reduce_once<FrP>(s.v); /* < 2^256 < 3r */
  }
  out[i] = s;
  if (cls) {
    uint32_t hi = 0;
#pragma unroll
    for (int k = 1; k < 8; k++) hi |= s.v[k];
    cls[i] = hi ? CLS_OTHER : s.v[0] == 0 ? CLS_ZERO : s.v[0] == 1 ? CLS_ONE : CLS_OTHER;
  }
}

struct cls_is {
  const uint8_t *cls;
  uint8_t want;
  __host__ __device__ __forceinline__ bool operator()(const uint32_t &i) const { return cls[i] == want; }
};

/* Digits of windows [w0, w0 + wg) of scalar scal[idx ? idx[i] : i]; carries recomputed from
 * window 0. The value carries the base index (idx[i] when idx is given). */
__global__ void msm_digits(const fr_t *scal, const uint32_t *idx, size_t n, int c, int w0, int wg, uint32_t *keys,
                           uint32_t *vals) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t bi = idx ? idx[i] : (uint32_t)i;
  const fr_t s = scal[bi];
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
      vals[o] = bi | (d < 0 ? SIGN : 0u);
    }
  }
}

template <class FO>
__device__ __forceinline__ void flush(uint32_t key, const xyzz_t<FO> &acc, bool head, bool tail, size_t t,
                                      uint32_t bucket_base, xyzz_t<FO> *buckets, xyzz_t<FO> *H, xyzz_t<FO> *Tp,
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

template <class FO>
__global__ void __launch_bounds__(256, tune<FO>::ACC_MIN_BLOCKS)
    msm_accumulate(const uint32_t *keys, const uint32_t *vals, const aff_t<FO> *bases, size_t M, uint32_t L,
                   uint32_t sentinel, uint32_t bucket_base, xyzz_t<FO> *buckets, xyzz_t<FO> *H, xyzz_t<FO> *Tp,
                   uint32_t *split_list, uint32_t *split_count) {
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t s = t * L;
  if (s >= M) return;
  const size_t e = s + L < M ? s + L : M;
  uint32_t cur = keys[s];
  if (cur >= sentinel) return;
  bool head = s > 0 && keys[s - 1] == cur;
  xyzz_t<FO> acc = xyzz_t<FO>::inf();
  size_t i = s;
  for (;;) {
    const uint32_t v = vals[i];
    aff_t<FO> p = ec_ld_aff<FO>(bases + (v & ~SIGN));
    if (v & SIGN) p.y = FO::neg(p.y);
    acc = ec_add_aff<FO>(acc, p);
    i++;
    const uint32_t nk = i < M ? keys[i] : 0xffffffffu;
    if (i == e) {
      flush<FO>(cur, acc, head, i < M && nk == cur, t, bucket_base, buckets, H, Tp, split_list, split_count);
      return;
    }
    if (nk != cur) {
      flush<FO>(cur, acc, head, false, t, bucket_base, buckets, H, Tp, split_list, split_count);
      head = false;
      if (nk >= sentinel) return;
      cur = nk;
      acc = xyzz_t<FO>::inf();
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
template <class FO>
__global__ void __launch_bounds__(128) msm_fixup_small(const uint32_t *keys, size_t M, uint32_t L, uint32_t sentinel,
                                                       uint32_t bucket_base, const xyzz_t<FO> *H, const xyzz_t<FO> *Tp,
                                                       const uint32_t *split_list, const uint32_t *split_count,
                                                       uint32_t *big_list, uint32_t *big_count, xyzz_t<FO> *buckets) {
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
  xyzz_t<FO> acc = Tp[t];
  for (size_t u = t + 1; u <= last; u++) acc = ec_add<FO>(acc, H[u]);
  buckets[bucket_base + b] = acc;
}

template <class FO>
__global__ void __launch_bounds__(tune<FO>::RED_THREADS)
    msm_fixup(const uint32_t *keys, size_t M, uint32_t L, uint32_t sentinel, uint32_t bucket_base,
              const xyzz_t<FO> *H, const xyzz_t<FO> *Tp, const uint32_t *split_list, const uint32_t *split_count,
              xyzz_t<FO> *buckets) {
  constexpr int NT = tune<FO>::RED_THREADS;
  __shared__ xyzz_t<FO> red[NT];
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
    xyzz_t<FO> acc = xyzz_t<FO>::inf();
    for (size_t u = t + 1 + threadIdx.x; u <= last; u += NT) acc = ec_add<FO>(acc, H[u]);
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int off = NT / 2; off > 0; off >>= 1) {
      if (threadIdx.x < off) red[threadIdx.x] = ec_add<FO>(red[threadIdx.x], red[threadIdx.x + off]);
      __syncthreads();
    }
    if (threadIdx.x == 0) buckets[bucket_base + b] = ec_add<FO>(Tp[t], red[0]);
    __syncthreads();
  }
}

template <class FO>
__device__ xyzz_t<FO> ec_mul_small(const xyzz_t<FO> &p, uint32_t k) {
  xyzz_t<FO> r = xyzz_t<FO>::inf();
  for (int b = 31; b >= 0; b--) {
    r = ec_dbl<FO>(r);
    if ((k >> b) & 1) r = ec_add<FO>(r, p);
  }
  return r;
}

/* seg[w*G + g] = sum over buckets b in segment g of window w of (b+1) * bucket. */
template <class FO>
__global__ void __launch_bounds__(128)
    msm_bucket_reduce(const xyzz_t<FO> *buckets, int W, int log_b, int log_g, xyzz_t<FO> *seg) {
  const uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= ((uint32_t)W << log_g)) return;
  const uint32_t w = id >> log_g, g = id & ((1u << log_g) - 1), S = 1u << (log_b - log_g);
  const uint32_t lo = g * S;
  const xyzz_t<FO> *bk = buckets + ((size_t)w << log_b);
  xyzz_t<FO> running = xyzz_t<FO>::inf(), total = xyzz_t<FO>::inf();
  for (int b = (int)(lo + S) - 1; b >= (int)lo; b--) {
    running = ec_add<FO>(running, bk[b]);
    total = ec_add<FO>(total, running);
  }
  if (lo) total = ec_add<FO>(total, ec_mul_small<FO>(running, lo));
  seg[id] = total;
}

/* win[w] = sum of the G entries seg[w*G, (w+1)*G): one block per w, tree reduction. Also sums
 * the per-block partials of msm_ones_sum (one block, G = their count). */
template <class FO>
__global__ void __launch_bounds__(tune<FO>::RED_THREADS)
    msm_window_sum(const xyzz_t<FO> *seg, int G, xyzz_t<FO> *win) {
  constexpr int NT = tune<FO>::RED_THREADS;
  __shared__ xyzz_t<FO> red[NT];
  const int w = blockIdx.x;
  xyzz_t<FO> acc = xyzz_t<FO>::inf();
  for (int g = threadIdx.x; g < G; g += NT) acc = ec_add<FO>(acc, seg[(size_t)w * G + g]);
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int off = NT / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) red[threadIdx.x] = ec_add<FO>(red[threadIdx.x], red[threadIdx.x + off]);
    __syncthreads();
  }
  if (threadIdx.x == 0) win[w] = red[0];
}

/* partial[block] = sum of bases[idx[j]] over this block's share of j < *count (grid-stride, so
 * neighbouring threads read neighbouring indices, then a tree reduction per block). */
template <class FO>
__global__ void __launch_bounds__(tune<FO>::RED_THREADS)
    msm_ones_sum(const aff_t<FO> *bases, const uint32_t *idx, const uint32_t *count, xyzz_t<FO> *partial) {
  constexpr int NT = tune<FO>::RED_THREADS;
  __shared__ xyzz_t<FO> red[NT];
  const size_t k = *count;
  const size_t stride = (size_t)gridDim.x * NT;
  xyzz_t<FO> acc = xyzz_t<FO>::inf();
  for (size_t j = (size_t)blockIdx.x * NT + threadIdx.x; j < k; j += stride)
    acc = ec_add_aff<FO>(acc, ec_ld_aff<FO>(bases + idx[j]));
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int off = NT / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) red[threadIdx.x] = ec_add<FO>(red[threadIdx.x], red[threadIdx.x + off]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = red[0];
}

/* Horner over W windows (W may be 0), plus `extra` when not null, then XYZZ -> Jacobian
 * (X*ZZ^2, Y*ZZZ^2, ZZZ), using ZZ^3 = ZZZ^2 (see ec.cuh). */
template <class FO>
__global__ void msm_final(const xyzz_t<FO> *win, int W, int c, const xyzz_t<FO> *extra, typename FO::T *out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  xyzz_t<FO> acc = xyzz_t<FO>::inf();
  if (W > 0) {
    acc = win[W - 1];
    for (int i = W - 2; i >= 0; i--) {
      for (int k = 0; k < c; k++) acc = ec_dbl<FO>(acc);
      acc = ec_add<FO>(acc, win[i]);
    }
  }
  if (extra) acc = ec_add<FO>(acc, *extra);
  out[0] = FO::mul(acc.X, FO::sqr(acc.ZZ));
  out[1] = FO::mul(acc.Y, FO::sqr(acc.ZZZ));
  out[2] = acc.ZZZ;
}

}  // namespace

struct cuzk_gpu_msm {
  int dev;
  int sm_count;
  cudaStream_t stream;
  scratch scal, keys[2], vals[2], sort_tmp, H, Tp, split, buckets, seg, win, result;
  scratch cls, idx_ones, idx_tail, counts, sel_tmp, ones;
  uint32_t *h_counts; /* pinned: [0] ones, [1] tail, read back while the ones are summed */
  cudaEvent_t ev_counts;
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

template <class BT, class AT>
static cuzk_gpu_status_t bases_new(BT **out, int dev, const void *host, size_t n, const char *what) {
  *out = nullptr;
  if (!host && n) return cuzk_gpu__status(CUZK_GPU_INVALID, "%s: null points", what);
  if (n >= SIGN) return cuzk_gpu__status(CUZK_GPU_INVALID, "%s: %zu points is too many", what, n);
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  BT *b = new (std::nothrow) BT();
  if (!b) return cuzk_gpu__status(CUZK_GPU_NOMEM, "%s", what);
  b->dev = dev;
  b->n = n;
  b->d = nullptr;
  cudaError_t e = cudaMalloc(&b->d, (n ? n : 1) * sizeof(AT));
  if (e == cudaSuccess && n) e = cudaMemcpy(b->d, host, n * sizeof(AT), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cudaFree(b->d);
    delete b;
    return cuzk_gpu__from_cuda(e, what);
  }
  *out = b;
  return cuzk_gpu__ok();
}

static_assert(sizeof(g1_aff) == sizeof(cuzk_gpu_g1_affine_t), "G1 affine layout");
static_assert(sizeof(g2_aff) == sizeof(cuzk_gpu_g2_affine_t), "G2 affine layout");
static_assert(3 * sizeof(fp_t) == sizeof(cuzk_gpu_g1_jac_t), "G1 Jacobian layout");
static_assert(3 * sizeof(fp2_t) == sizeof(cuzk_gpu_g2_jac_t), "G2 Jacobian layout");

extern "C" cuzk_gpu_status_t cuzk_gpu_g1_bases_new(cuzk_gpu_g1_bases_t **out, int dev, const cuzk_gpu_g1_affine_t *host,
                                                   size_t n) {
  return bases_new<cuzk_gpu_g1_bases_t, g1_aff>(out, dev, host, n, "g1_bases_new");
}

extern "C" void cuzk_gpu_g1_bases_free(cuzk_gpu_g1_bases_t *b) {
  if (!b) return;
  cudaSetDevice(b->dev);
  cudaFree(b->d);
  delete b;
}

extern "C" size_t cuzk_gpu_g1_bases_count(const cuzk_gpu_g1_bases_t *b) { return b ? b->n : 0; }

extern "C" cuzk_gpu_status_t cuzk_gpu_g2_bases_new(cuzk_gpu_g2_bases_t **out, int dev, const cuzk_gpu_g2_affine_t *host,
                                                   size_t n) {
  return bases_new<cuzk_gpu_g2_bases_t, g2_aff>(out, dev, host, n, "g2_bases_new");
}

extern "C" void cuzk_gpu_g2_bases_free(cuzk_gpu_g2_bases_t *b) {
  if (!b) return;
  cudaSetDevice(b->dev);
  cudaFree(b->d);
  delete b;
}

extern "C" size_t cuzk_gpu_g2_bases_count(const cuzk_gpu_g2_bases_t *b) { return b ? b->n : 0; }

extern "C" cuzk_gpu_status_t cuzk_gpu_msm_new(cuzk_gpu_msm_t **out, int dev) {
  *out = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  cuzk_gpu_msm_t *ctx = new (std::nothrow) cuzk_gpu_msm_t();
  if (!ctx) return cuzk_gpu__status(CUZK_GPU_NOMEM, "msm context");
  ctx->dev = dev;
  cudaError_t e = cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
  for (int i = 0; i < 8 && e == cudaSuccess; i++) e = cudaEventCreate(&ctx->ev[i]);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ctx->ev_counts, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&ctx->h_counts, 16, cudaHostAllocDefault);
  const char *prof = getenv("CUZK_GPU_PROFILE");
  ctx->profile = prof && *prof && *prof != '0';
  if (e != cudaSuccess) {
    cuzk_gpu_msm_free(ctx);
    return cuzk_gpu__from_cuda(e, "msm_new");
  }
  *out = ctx;
  return cuzk_gpu__ok();
}

extern "C" void cuzk_gpu_msm_free(cuzk_gpu_msm_t *ctx) {
  if (!ctx) return;
  cudaSetDevice(ctx->dev);
  scratch *all[] = {&ctx->scal,    &ctx->keys[0],  &ctx->keys[1],   &ctx->vals[0], &ctx->vals[1],
                    &ctx->sort_tmp, &ctx->H,       &ctx->Tp,        &ctx->split,   &ctx->buckets,
                    &ctx->seg,     &ctx->win,      &ctx->result,    &ctx->cls,     &ctx->idx_ones,
                    &ctx->idx_tail, &ctx->counts,  &ctx->sel_tmp,   &ctx->ones};
  for (cudaEvent_t e : ctx->ev)
    if (e) cudaEventDestroy(e);
  if (ctx->ev_counts) cudaEventDestroy(ctx->ev_counts);
  cudaFreeHost(ctx->h_counts);
  for (scratch *s : all) cudaFree(s->p);
  if (ctx->stream) cudaStreamDestroy(ctx->stream);
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

/* The MSM for one curve: bases already offset; out_host gets 3 coordinates of FO::T. */
template <class FO>
static cuzk_gpu_status_t msm_run(cuzk_gpu_msm_t *ctx, const aff_t<FO> *bases, const void *scalars, size_t n,
                                 unsigned flags, unsigned window_bits, void *out_host) {
  typedef xyzz_t<FO> P;
  constexpr int RT = tune<FO>::RED_THREADS;
  MSM_TRY(cudaSetDevice(ctx->dev));
  cudaStream_t st = ctx->stream;
  const bool split = !(flags & CUZK_GPU_MSM_NO_SPLIT01);

  float ph[6] = {0, 0, 0, 0, 0, 0}; /* prep, digits+sort, accumulate, fixup, reduce+final, split */
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

  /* scalars to canonical form in ctx->scal (and classes when splitting) */
  MSM_TRY(grow(ctx->scal, n * sizeof(fr_t)));
  MSM_TRY(grow(ctx->result, 3 * sizeof(typename FO::T)));
  if (split) {
    MSM_TRY(grow(ctx->cls, n));
    MSM_TRY(grow(ctx->idx_ones, n * 4));
    MSM_TRY(grow(ctx->idx_tail, n * 4));
    MSM_TRY(grow(ctx->counts, 16));
    MSM_TRY(grow(ctx->ones, ((size_t)ctx->sm_count * 4 + 1) * sizeof(P)));
  }
  mark(0);
  const fr_t *src = static_cast<const fr_t *>(scalars);
  if (!(flags & CUZK_GPU_MSM_SCALARS_ON_DEVICE)) {
    MSM_TRY(cudaMemcpyAsync(ctx->scal.p, scalars, n * sizeof(fr_t), cudaMemcpyHostToDevice, st));
    src = static_cast<const fr_t *>(ctx->scal.p);
  }
  fr_t *scal = static_cast<fr_t *>(ctx->scal.p);
  uint8_t *cls = split ? static_cast<uint8_t *>(ctx->cls.p) : nullptr;
  msm_prep_scalars<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(src, scal, n,
                                                               (flags & CUZK_GPU_MSM_SCALARS_MONT) ? 1 : 0, cls);
  MSM_TRY(cudaGetLastError());
  mark(1);
  lap(0, 1, 0);

  /* split: ones summed into ones_sum, the tail's base indices compacted into idx */
  size_t m = n;
  const uint32_t *idx = nullptr;
  P *ones_sum = nullptr;
  if (split) {
    mark(2);
    uint32_t *counts = static_cast<uint32_t *>(ctx->counts.p); /* [0] ones, [1] tail */
    thrust::counting_iterator<uint32_t> iota(0);
    size_t tb = 0;
    MSM_TRY(cub::DeviceSelect::If(nullptr, tb, iota, static_cast<uint32_t *>(ctx->idx_ones.p), counts,
                                  (int64_t)n, cls_is{cls, CLS_ONE}, st));
    MSM_TRY(grow(ctx->sel_tmp, tb));
    tb = ctx->sel_tmp.bytes;
    MSM_TRY(cub::DeviceSelect::If(ctx->sel_tmp.p, tb, iota, static_cast<uint32_t *>(ctx->idx_ones.p), counts,
                                  (int64_t)n, cls_is{cls, CLS_ONE}, st));
    tb = ctx->sel_tmp.bytes;
    MSM_TRY(cub::DeviceSelect::If(ctx->sel_tmp.p, tb, iota, static_cast<uint32_t *>(ctx->idx_tail.p), counts + 1,
                                  (int64_t)n, cls_is{cls, CLS_OTHER}, st));
    MSM_TRY(cudaMemcpyAsync(ctx->h_counts, counts, 8, cudaMemcpyDeviceToHost, st));
    MSM_TRY(cudaEventRecord(ctx->ev_counts, st));
    const unsigned ob = (unsigned)ctx->sm_count * 4;
    P *partial = static_cast<P *>(ctx->ones.p);
    ones_sum = partial + ob;
    msm_ones_sum<FO><<<ob, RT, 0, st>>>(bases, static_cast<const uint32_t *>(ctx->idx_ones.p), counts, partial);
    MSM_TRY(cudaGetLastError());
    msm_window_sum<FO><<<1, RT, 0, st>>>(partial, (int)ob, ones_sum);
    MSM_TRY(cudaGetLastError());
    MSM_TRY(cudaEventSynchronize(ctx->ev_counts)); /* the tail's size sizes the sort */
    m = ctx->h_counts[1];
    idx = static_cast<const uint32_t *>(ctx->idx_tail.p);
    mark(3);
    lap(2, 3, 5);
  }

  int c = 0, W = 0, wg = 1;
  size_t L = 0;
  if (m > 0) {
    c = window_bits ? (int)window_bits : (int)msm_pick_window(m);
    W = (256 + c - 1) / c;
    const int log_b = c - 1;
    const uint32_t B = 1u << log_b;
    int log_g = log_b < 10 ? log_b : 10;
    const int G = 1 << log_g;
    wg = (int)(MAX_GROUP_ENTRIES / m);
    if (wg < 1) wg = 1;
    if (wg > W) wg = W;
    const size_t M = (size_t)wg * m;
    /* chunk length: about twice the mean bucket size, so most buckets fit in one chunk, while
     * keeping several waves of threads */
    L = 8;
    while (L < 256 && L < 2 * (M / ((size_t)wg * B)) && M / (L * 2) >= (size_t)ctx->sm_count * 512) L *= 2;
    const size_t chunks = (M + L - 1) / L;

    for (int i = 0; i < 2; i++) {
      MSM_TRY(grow(ctx->keys[i], M * 4));
      MSM_TRY(grow(ctx->vals[i], M * 4));
    }
    MSM_TRY(grow(ctx->H, chunks * sizeof(P)));
    MSM_TRY(grow(ctx->Tp, chunks * sizeof(P)));
    MSM_TRY(grow(ctx->split, (2 * chunks + 2) * 4));
    MSM_TRY(grow(ctx->buckets, (size_t)W * B * sizeof(P)));
    MSM_TRY(grow(ctx->seg, (size_t)W * G * sizeof(P)));
    MSM_TRY(grow(ctx->win, (size_t)W * sizeof(P)));

    int sort_bits = 1;
    while (((size_t)1 << sort_bits) <= (size_t)wg * B) sort_bits++;
    cub::DoubleBuffer<uint32_t> dk(static_cast<uint32_t *>(ctx->keys[0].p), static_cast<uint32_t *>(ctx->keys[1].p));
    cub::DoubleBuffer<uint32_t> dv(static_cast<uint32_t *>(ctx->vals[0].p), static_cast<uint32_t *>(ctx->vals[1].p));
    size_t tmp_bytes = 0;
    MSM_TRY(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, dk, dv, (int)M, 0, sort_bits, st));
    MSM_TRY(grow(ctx->sort_tmp, tmp_bytes));

    MSM_TRY(cudaMemsetAsync(ctx->buckets.p, 0, (size_t)W * B * sizeof(P), st));
    P *buckets = static_cast<P *>(ctx->buckets.p);
    uint32_t *split_count = static_cast<uint32_t *>(ctx->split.p); /* [0] split, [1] big */
    uint32_t *big_count = split_count + 1;
    uint32_t *split_list = split_count + 2;
    uint32_t *big_list = split_list + chunks;
    const unsigned nb = (unsigned)((m + 255) / 256);
    for (int w0 = 0; w0 < W; w0 += wg) {
      mark(2);
      const int g = (W - w0) < wg ? (W - w0) : wg;
      const size_t mm = (size_t)g * m;
      const uint32_t sentinel = (uint32_t)g * B;
      cub::DoubleBuffer<uint32_t> k2(static_cast<uint32_t *>(ctx->keys[0].p), static_cast<uint32_t *>(ctx->keys[1].p));
      cub::DoubleBuffer<uint32_t> v2(static_cast<uint32_t *>(ctx->vals[0].p), static_cast<uint32_t *>(ctx->vals[1].p));
      msm_digits<<<nb, 256, 0, st>>>(scal, idx, m, c, w0, g, k2.Current(), v2.Current());
      MSM_TRY(cudaGetLastError());
      size_t tb = ctx->sort_tmp.bytes;
      MSM_TRY(cub::DeviceRadixSort::SortPairs(ctx->sort_tmp.p, tb, k2, v2, (int)mm, 0, sort_bits, st));
      mark(3);
      lap(2, 3, 1);
      MSM_TRY(cudaMemsetAsync(split_count, 0, 8, st));
      const size_t ch = (mm + L - 1) / L;
      msm_accumulate<FO><<<(unsigned)((ch + 255) / 256), 256, 0, st>>>(
          k2.Current(), v2.Current(), bases, mm, (uint32_t)L, sentinel, (uint32_t)w0 * B, buckets,
          static_cast<P *>(ctx->H.p), static_cast<P *>(ctx->Tp.p), split_list, split_count);
      MSM_TRY(cudaGetLastError());
      mark(7);
      lap(3, 7, 2);
      msm_fixup_small<FO><<<(unsigned)((ch + 127) / 128), 128, 0, st>>>(
          k2.Current(), mm, (uint32_t)L, sentinel, (uint32_t)w0 * B, static_cast<P *>(ctx->H.p),
          static_cast<P *>(ctx->Tp.p), split_list, split_count, big_list, big_count, buckets);
      MSM_TRY(cudaGetLastError());
      msm_fixup<FO><<<(unsigned)(ctx->sm_count * 2), RT, 0, st>>>(
          k2.Current(), mm, (uint32_t)L, sentinel, (uint32_t)w0 * B, static_cast<P *>(ctx->H.p),
          static_cast<P *>(ctx->Tp.p), big_list, big_count, buckets);
      MSM_TRY(cudaGetLastError());
      mark(4);
      lap(7, 4, 3);
    }
    mark(5);
    const unsigned rt = (unsigned)W * (unsigned)G;
    msm_bucket_reduce<FO><<<(rt + 127) / 128, 128, 0, st>>>(buckets, W, log_b, log_g, static_cast<P *>(ctx->seg.p));
    MSM_TRY(cudaGetLastError());
    msm_window_sum<FO><<<W, RT, 0, st>>>(static_cast<P *>(ctx->seg.p), G, static_cast<P *>(ctx->win.p));
    MSM_TRY(cudaGetLastError());
  } else {
    mark(5);
  }
  msm_final<FO><<<1, 32, 0, st>>>(static_cast<P *>(ctx->win.p), W, c, ones_sum,
                                   static_cast<typename FO::T *>(ctx->result.p));
  MSM_TRY(cudaGetLastError());
  mark(6);
  lap(5, 6, 4);
  if (ctx->profile)
    fprintf(stderr,
            "msm %s n=%zu tail=%zu c=%d W=%d groups=%d L=%zu: prep %.3f, split %.3f, digits+sort %.3f, accumulate %.3f, "
            "fixup %.3f, reduce %.3f ms\n",
            sizeof(typename FO::T) == sizeof(fp_t) ? "g1" : "g2", n, m, c, W, W ? (W + wg - 1) / wg : 0, L, ph[0],
            ph[5], ph[1], ph[2], ph[3], ph[4]);
  MSM_TRY(cudaMemcpyAsync(out_host, ctx->result.p, 3 * sizeof(typename FO::T), cudaMemcpyDeviceToHost, st));
  MSM_TRY(cudaStreamSynchronize(st));
  return cuzk_gpu__ok();
}

template <class BT>
static cuzk_gpu_status_t msm_check(cuzk_gpu_msm_t *ctx, const BT *bases, size_t offset, const void *scalars, size_t n,
                                   unsigned window_bits, const void *out, const char *what) {
  if (!ctx || !bases || !out || (!scalars && n)) return cuzk_gpu__status(CUZK_GPU_INVALID, "%s: null argument", what);
  if (offset > bases->n || n > bases->n - offset)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "%s: range [%zu, %zu) exceeds %zu bases", what, offset, offset + n,
                            bases->n);
  if (bases->dev != ctx->dev) return cuzk_gpu__status(CUZK_GPU_INVALID, "%s: bases live on another device", what);
  if (window_bits == 1 || window_bits > 20)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "%s: window_bits %u outside 2..20", what, window_bits);
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_msm_g1(cuzk_gpu_msm_t *ctx, const cuzk_gpu_g1_bases_t *bases, size_t offset,
                                             const void *scalars, size_t n, unsigned flags, unsigned window_bits,
                                             cuzk_gpu_g1_jac_t *out) {
  cuzk_gpu_status_t s = msm_check(ctx, bases, offset, scalars, n, window_bits, out, "msm_g1");
  if (s.code) return s;
  memset(out, 0, sizeof(*out));
  if (n == 0) return cuzk_gpu__ok();
  return msm_run<FpOps>(ctx, bases->d + offset, scalars, n, flags, window_bits, out);
}

extern "C" cuzk_gpu_status_t cuzk_gpu_msm_g2(cuzk_gpu_msm_t *ctx, const cuzk_gpu_g2_bases_t *bases, size_t offset,
                                             const void *scalars, size_t n, unsigned flags, unsigned window_bits,
                                             cuzk_gpu_g2_jac_t *out) {
  cuzk_gpu_status_t s = msm_check(ctx, bases, offset, scalars, n, window_bits, out, "msm_g2");
  if (s.code) return s;
  memset(out, 0, sizeof(*out));
  if (n == 0) return cuzk_gpu__ok();
  return msm_run<Fp2Ops>(ctx, bases->d + offset, scalars, n, flags, window_bits, out);
}
