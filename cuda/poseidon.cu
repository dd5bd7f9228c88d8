// Device Poseidon (neptune's permutation, textbook round structure as core's
// cuzk_poseidon_permute) and the PoSt generator's chunk roots (see cuzk_gpu.h).
#include <cstdlib>
#include <cstring>

#include "cuda/cuzk_gpu.h"
#include "cuda/ff.cuh"
#include "cuda/status.cuh"

using namespace cuzk_gpu;

namespace {

constexpr int kThreads = 128;
/* Level-1 nodes of one chunk-roots batch: 2^25 Fr = 1 GiB, plus 1/arity of that for the next
 * level; batches of whole chunks, so a batch's first level is at most kMaxLevel1 nodes. */
constexpr uint64_t kBatchLevel1 = (uint64_t)1 << 25;
constexpr uint64_t kMaxLevel1 = (uint64_t)1 << 27; /* one chunk's first level: 4 GiB */

__device__ __forceinline__ fr_t ld_fr(const fr_t *__restrict__ p) {
  const uint4 *q = reinterpret_cast<const uint4 *>(p);
  const uint4 a = __ldg(q), b = __ldg(q + 1);
  fr_t r;
  r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
  r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
  return r;
}

/* One out-of-line product: the permutation makes W^2 + 3W of them per round, and inlining each
 * (about 300 instructions) multiplies compile time and code size for little gain. */
__device__ __noinline__ fr_t mulx(const fr_t a, const fr_t b) { return mul<FrP>(a, b); }

__device__ __forceinline__ fr_t sbox(const fr_t &x) {
  const fr_t x2 = mulx(x, x), x4 = mulx(x2, x2);
  return mulx(x, x4);
}

/* Constants of one arity in device memory: rc[(rf + rp) * W], mds[W * W] row-major (mds[i][j]
 * multiplies state[i] into output j), tag. */
struct consts_t {
  const fr_t *rc;
  const fr_t *mds;
  const fr_t *tag;
  int rf, rp;
};

template <int W>
__device__ __forceinline__ void permute(fr_t st[W], const consts_t &c) {
  const int half = c.rf / 2, rounds = c.rf + c.rp;
  const fr_t *rc = c.rc;
  for (int r = 0; r < rounds; r++, rc += W) {
#pragma unroll
    for (int i = 0; i < W; i++) st[i] = add<FrP>(st[i], ld_fr(rc + i));
    if (r < half || r >= half + c.rp) {
#pragma unroll
      for (int i = 0; i < W; i++) st[i] = sbox(st[i]);
    } else {
      st[0] = sbox(st[0]);
    }
    fr_t out[W];
#pragma unroll
    for (int j = 0; j < W; j++) {
      fr_t acc = mulx(st[0], ld_fr(c.mds + j));
#pragma unroll
      for (int i = 1; i < W; i++) acc = add<FrP>(acc, mulx(st[i], ld_fr(c.mds + i * W + j)));
      out[j] = acc;
    }
#pragma unroll
    for (int i = 0; i < W; i++) st[i] = out[i];
  }
}

/* splitmix64's output for the state s it has after its increment (post_gen.c's splitmix). */
__device__ __forceinline__ uint64_t splitmix_at(uint64_t s) {
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Montgomery form of (lo + hi·2^256) mod r for 512 little-endian bits in x[0..8) (u64 words):
 * both halves reduced below r (each < 2^256 < 3r: two conditional subtractions), then
 * mont(lo, R^2) + mont(hi, R^3) as core's cuzk_fr_from_le_wide. */
__device__ __forceinline__ fr_t fr_from_wide(const uint64_t x[8]) {
  fr_t lo, hi, r2;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    lo.v[2 * k] = (uint32_t)x[k], lo.v[2 * k + 1] = (uint32_t)(x[k] >> 32);
    hi.v[2 * k] = (uint32_t)x[4 + k], hi.v[2 * k + 1] = (uint32_t)(x[4 + k] >> 32);
  }
#pragma unroll
  for (int i = 0; i < 8; i++) r2.v[i] = FrP::r2(i);
  cuzk__reduce_once<FrP>(lo.v);
  cuzk__reduce_once<FrP>(lo.v);
  cuzk__reduce_once<FrP>(hi.v);
  cuzk__reduce_once<FrP>(hi.v);
  const fr_t r3 = mul<FrP>(r2, r2); /* R^2·R^2/R */
  return add<FrP>(mul<FrP>(lo, r2), mul<FrP>(hi, r3));
}

/* post_gen.c's leaf_at: the 8 splitmix64 outputs after 8·i draws from seed, as 64 bytes
 * little-endian, reduced wide. All arithmetic mod 2^64. */
__device__ __forceinline__ fr_t leaf_at(uint64_t seed, uint64_t i) {
  const uint64_t g = 0x9e3779b97f4a7c15ull;
  const uint64_t s0 = seed + 8 * i * g;
  uint64_t x[8];
#pragma unroll
  for (int k = 0; k < 8; k++) x[k] = splitmix_at(s0 + (uint64_t)(k + 1) * g);
  return fr_from_wide(x);
}

__global__ void leaves_kernel(fr_t *out, uint64_t seed, uint64_t first, uint64_t n) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  out[j] = leaf_at(seed, first + j);
}

template <int W>
__global__ void hash_kernel(fr_t *out, const fr_t *in, uint64_t n, consts_t c) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  fr_t st[W];
  st[0] = ld_fr(c.tag);
  const fr_t *x = in + j * (W - 1);
#pragma unroll
  for (int k = 1; k < W; k++) st[k] = x[k - 1];
  permute<W>(st, c);
  out[j] = st[1];
}

/* out[j] = hash of leaves first_leaf + j·(W-1) .. + W-2, drawn on the device. */
template <int W>
__global__ void leaf_hash_kernel(fr_t *out, uint64_t seed, uint64_t first_leaf, uint64_t n,
                                 consts_t c) {
  const uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  fr_t st[W];
  st[0] = ld_fr(c.tag);
  const uint64_t base = first_leaf + j * (uint64_t)(W - 1);
#pragma unroll
  for (int k = 1; k < W; k++) st[k] = leaf_at(seed, base + (uint64_t)(k - 1));
  permute<W>(st, c);
  out[j] = st[1];
}

unsigned blocks_for(uint64_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

}  // namespace

struct cuzk_gpu_poseidon {
  int dev;
  unsigned arity;
  cudaStream_t stream;
  fr_t *d_consts; /* rc ‖ mds ‖ tag */
  consts_t c;
  fr_t *d_a, *d_b; /* chunk-roots / hash scratch, grown on demand */
  size_t cap_a, cap_b; /* elements */
};

static cuzk_gpu_status_t grow(fr_t **p, size_t *cap, size_t n) {
  if (*cap >= n) return cuzk_gpu__ok();
  if (*p) CUZK_CUDA_TRY(cudaFree(*p));
  *p = nullptr;
  *cap = 0;
  CUZK_CUDA_TRY(cudaMalloc(p, n * sizeof(fr_t)));
  *cap = n;
  return cuzk_gpu__ok();
}

static cuzk_gpu_status_t launch_hash(cuzk_gpu_poseidon_t *ctx, fr_t *out, const fr_t *in,
                                     uint64_t n) {
  if (n == 0) return cuzk_gpu__ok();
  const unsigned b = blocks_for(n);
  switch (ctx->arity) {
    case 2: hash_kernel<3><<<b, kThreads, 0, ctx->stream>>>(out, in, n, ctx->c); break;
    case 4: hash_kernel<5><<<b, kThreads, 0, ctx->stream>>>(out, in, n, ctx->c); break;
    case 8: hash_kernel<9><<<b, kThreads, 0, ctx->stream>>>(out, in, n, ctx->c); break;
    default: hash_kernel<12><<<b, kThreads, 0, ctx->stream>>>(out, in, n, ctx->c); break;
  }
  CUZK_CUDA_TRY(cudaGetLastError());
  return cuzk_gpu__ok();
}

static cuzk_gpu_status_t launch_leaf_hash(cuzk_gpu_poseidon_t *ctx, fr_t *out, uint64_t seed,
                                          uint64_t first_leaf, uint64_t n) {
  if (n == 0) return cuzk_gpu__ok();
  const unsigned b = blocks_for(n);
  switch (ctx->arity) {
    case 2: leaf_hash_kernel<3><<<b, kThreads, 0, ctx->stream>>>(out, seed, first_leaf, n, ctx->c); break;
    case 4: leaf_hash_kernel<5><<<b, kThreads, 0, ctx->stream>>>(out, seed, first_leaf, n, ctx->c); break;
    case 8: leaf_hash_kernel<9><<<b, kThreads, 0, ctx->stream>>>(out, seed, first_leaf, n, ctx->c); break;
    default: leaf_hash_kernel<12><<<b, kThreads, 0, ctx->stream>>>(out, seed, first_leaf, n, ctx->c); break;
  }
  CUZK_CUDA_TRY(cudaGetLastError());
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_poseidon_new(cuzk_gpu_poseidon_t **out, int dev,
                                                   unsigned arity, unsigned full_rounds,
                                                   unsigned partial_rounds, const uint64_t *rc,
                                                   const uint64_t *mds, const uint64_t *tag) {
  if (!out) return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_new: out is NULL");
  *out = nullptr;
  if (arity != 2 && arity != 4 && arity != 8 && arity != 11)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_new: arity %u (2, 4, 8 or 11)", arity);
  if (!rc || !mds || !tag || full_rounds % 2 || full_rounds == 0 || full_rounds > 64 ||
      partial_rounds > 256)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_new: bad constants (rounds %u + %u)",
                            full_rounds, partial_rounds);
  const size_t w = arity + 1, n_rc = (size_t)(full_rounds + partial_rounds) * w, n_mds = w * w;
  const size_t total = n_rc + n_mds + 1;
  cuzk_gpu_poseidon_t *ctx = (cuzk_gpu_poseidon_t *)calloc(1, sizeof *ctx);
  if (!ctx) return cuzk_gpu__status(CUZK_GPU_NOMEM, "poseidon_new: out of host memory");
  ctx->dev = dev;
  ctx->arity = arity;
  cudaError_t e = cudaSetDevice(dev);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc(&ctx->d_consts, total * sizeof(fr_t));
  if (e == cudaSuccess)
    e = cudaMemcpy(ctx->d_consts, rc, n_rc * sizeof(fr_t), cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy(ctx->d_consts + n_rc, mds, n_mds * sizeof(fr_t), cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy(ctx->d_consts + n_rc + n_mds, tag, sizeof(fr_t), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cuzk_gpu_status_t s = cuzk_gpu__from_cuda(e, "poseidon_new");
    cuzk_gpu_poseidon_free(ctx);
    return s;
  }
  ctx->c.rc = ctx->d_consts;
  ctx->c.mds = ctx->d_consts + n_rc;
  ctx->c.tag = ctx->d_consts + n_rc + n_mds;
  ctx->c.rf = (int)full_rounds;
  ctx->c.rp = (int)partial_rounds;
  *out = ctx;
  return cuzk_gpu__ok();
}

extern "C" void cuzk_gpu_poseidon_free(cuzk_gpu_poseidon_t *ctx) {
  if (!ctx) return;
  cudaSetDevice(ctx->dev);
  if (ctx->stream) cudaStreamSynchronize(ctx->stream);
  cudaFree(ctx->d_a);
  cudaFree(ctx->d_b);
  cudaFree(ctx->d_consts);
  if (ctx->stream) cudaStreamDestroy(ctx->stream);
  free(ctx);
}

extern "C" cuzk_gpu_status_t cuzk_gpu_poseidon_hash_device(cuzk_gpu_poseidon_t *ctx, void *d_out,
                                                           const void *d_in, size_t n) {
  if (!ctx || (n && (!d_out || !d_in)))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_hash_device: NULL argument");
  if (n > ((uint64_t)1 << 36)) /* grid: 2^29 blocks of 128 */
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_hash_device: n %zu too large", n);
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  cuzk_gpu_status_t s = launch_hash(ctx, (fr_t *)d_out, (const fr_t *)d_in, n);
  if (s.code) return s;
  CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_poseidon_hash_host(cuzk_gpu_poseidon_t *ctx, uint64_t *out,
                                                         const uint64_t *in, size_t n) {
  if (!ctx || (n && (!out || !in)))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_hash_host: NULL argument");
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  const size_t step = (size_t)1 << 22; /* hashes per round trip: 4 Mi · (arity + 1) · 32 B */
  for (size_t done = 0; done < n;) {
    const size_t m = n - done < step ? n - done : step;
    cuzk_gpu_status_t s = grow(&ctx->d_a, &ctx->cap_a, m * ctx->arity);
    if (!s.code) s = grow(&ctx->d_b, &ctx->cap_b, m);
    if (s.code) return s;
    CUZK_CUDA_TRY(cudaMemcpyAsync(ctx->d_a, in + 4 * done * ctx->arity,
                                  m * ctx->arity * sizeof(fr_t), cudaMemcpyHostToDevice,
                                  ctx->stream));
    s = launch_hash(ctx, ctx->d_b, ctx->d_a, m);
    if (s.code) return s;
    CUZK_CUDA_TRY(cudaMemcpyAsync(out + 4 * done, ctx->d_b, m * sizeof(fr_t),
                                  cudaMemcpyDeviceToHost, ctx->stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    done += m;
  }
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_poseidon_leaves_host(cuzk_gpu_poseidon_t *ctx,
                                                           uint64_t *out, uint64_t seed,
                                                           uint64_t first, size_t n) {
  if (!ctx || (n && !out))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_leaves_host: NULL argument");
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  const size_t step = (size_t)1 << 24;
  for (size_t done = 0; done < n;) {
    const size_t m = n - done < step ? n - done : step;
    cuzk_gpu_status_t s = grow(&ctx->d_b, &ctx->cap_b, m);
    if (s.code) return s;
    leaves_kernel<<<blocks_for(m), kThreads, 0, ctx->stream>>>(ctx->d_b, seed, first + done, m);
    CUZK_CUDA_TRY(cudaGetLastError());
    CUZK_CUDA_TRY(cudaMemcpyAsync(out + 4 * done, ctx->d_b, m * sizeof(fr_t),
                                  cudaMemcpyDeviceToHost, ctx->stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    done += m;
  }
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_poseidon_chunk_roots(cuzk_gpu_poseidon_t *ctx,
                                                           uint64_t *roots, uint64_t seed,
                                                           uint64_t first, uint64_t count,
                                                           uint64_t chunk_leaves,
                                                           const unsigned *level_arity,
                                                           unsigned levels) {
  if (!ctx || (count && !roots) || (levels && !level_arity))
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_chunk_roots: NULL argument");
  uint64_t prod = 1;
  for (unsigned l = 0; l < levels; l++) {
    if (level_arity[l] != ctx->arity)
      return cuzk_gpu__status(CUZK_GPU_INVALID,
                              "poseidon_chunk_roots: level %u arity %u, context arity %u", l,
                              level_arity[l], ctx->arity);
    if (prod > kMaxLevel1 * ctx->arity) break;
    prod *= ctx->arity;
  }
  if (prod != chunk_leaves || chunk_leaves == 0 || chunk_leaves / ctx->arity > kMaxLevel1)
    return cuzk_gpu__status(CUZK_GPU_INVALID,
                            "poseidon_chunk_roots: %u levels of arity %u do not make chunks of "
                            "%llu leaves (at most 2^27 first-level nodes per chunk)",
                            levels, ctx->arity, (unsigned long long)chunk_leaves);
  if (count > ((uint64_t)1 << 40) / chunk_leaves || first > ((uint64_t)1 << 40) / chunk_leaves)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "poseidon_chunk_roots: more than 2^40 leaves");
  if (count == 0) return cuzk_gpu__ok();
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  const uint64_t a = ctx->arity;
  const uint64_t level1_per_chunk = levels ? chunk_leaves / a : 1;
  uint64_t batch = kBatchLevel1 / level1_per_chunk;
  if (batch == 0) batch = 1;
  if (batch > count) batch = count;
  cuzk_gpu_status_t s = grow(&ctx->d_a, &ctx->cap_a, batch * level1_per_chunk);
  if (!s.code && levels > 1) s = grow(&ctx->d_b, &ctx->cap_b, batch * level1_per_chunk / a);
  if (s.code) return s;
  for (uint64_t done = 0; done < count;) {
    const uint64_t m = count - done < batch ? count - done : batch;
    const uint64_t first_leaf = (first + done) * chunk_leaves;
    fr_t *cur = ctx->d_a, *other = ctx->d_b;
    uint64_t n = m * level1_per_chunk;
    if (levels == 0) {
      leaves_kernel<<<blocks_for(n), kThreads, 0, ctx->stream>>>(cur, seed, first_leaf, n);
      CUZK_CUDA_TRY(cudaGetLastError());
    } else {
      s = launch_leaf_hash(ctx, cur, seed, first_leaf, n);
      if (s.code) return s;
      for (unsigned l = 1; l < levels; l++) {
        s = launch_hash(ctx, other, cur, n / a);
        if (s.code) return s;
        n /= a;
        fr_t *t = cur;
        cur = other;
        other = t;
      }
    }
    /* n == m now: one root per chunk */
    CUZK_CUDA_TRY(cudaMemcpyAsync(roots + 4 * done, cur, m * sizeof(fr_t),
                                  cudaMemcpyDeviceToHost, ctx->stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    done += m;
  }
  return cuzk_gpu__ok();
}
