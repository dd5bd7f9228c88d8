// NTT over Fr (see cuzk_gpu.h for the contract).
//
// A transform of n = 2^log_n is split into passes of k <= 10 radix-2 stages (six-step style):
// with the current sub-transform size Ncur = N1*N2 (N1 = 2^k), a pass runs the N1-point DIF
// transform down every stride-N2 column of each segment in shared memory (its output lands in
// bit-reversed order) and multiplies the result at (f1, i2) by w_Ncur^(i2*f1); the next pass
// continues on the contiguous rows of N2. The composition is natural -> bit-reversed. The
// inverse applies the transposes of the same passes in reverse order with w^-1 (twiddle first,
// then DIT butterflies), which maps bit-reversed -> natural, and folds n^-1 and the coset
// factor g^-i into its last store. Powers w^e (e < n) are lo[e & mask]*hi[e >> L] from two
// small tables built once per size.
#include "cuda/cuzk_gpu.h"
#include "cuda/ff.cuh"
#include "cuda/ntt.cuh"
#include "cuda/status.cuh"

#include <cstdlib>
#include <new>

using namespace cuzk_gpu;

namespace {

constexpr int KMAX = 10;
constexpr int MAX_LOG_N = 27;

/* Per-size tables: [0] w, [1] w^-1, [2] g, [3] g^-1; each split lo/hi. */
struct ntt_tables {
  fr_t *lo[4], *hi[4];
  fr_t *consts; /* device: w, w^-1, g, g^-1, n^-1 */
  int L;        /* lo tables have 2^L entries */
};

__device__ __forceinline__ fr_t ld_fr(const fr_t *p) {
  const uint4 *q = reinterpret_cast<const uint4 *>(p);
  uint4 a = q[0], b = q[1];
  fr_t r;
  r.v[0] = a.x; r.v[1] = a.y; r.v[2] = a.z; r.v[3] = a.w;
  r.v[4] = b.x; r.v[5] = b.y; r.v[6] = b.z; r.v[7] = b.w;
  return r;
}
__device__ __forceinline__ void st_fr(fr_t *p, const fr_t &r) {
  uint4 *q = reinterpret_cast<uint4 *>(p);
  q[0] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
  q[1] = make_uint4(r.v[4], r.v[5], r.v[6], r.v[7]);
}

__device__ __forceinline__ fr_t tw_pow(const fr_t *lo, const fr_t *hi, int L, uint64_t e) {
  return mul<FrP>(ld_fr(lo + (e & ((1ull << L) - 1))), ld_fr(hi + (e >> L)));
}

/* consts: w = 7^((r-1)/2^log_n), w^-1 = w^(n-1), g = 7, g^-1 = 7^(r-2), n^-1 = n^(r-2);
 * root[0] = w_{2^KMAX}, root[1] = its inverse. */
__global__ void ntt_consts_kernel(fr_t *consts, int log_n) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const uint32_t rm1[8] = {0x00000000u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u,
                           0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
  const uint32_t rm2[8] = {0xffffffffu, 0xfffffffeu, 0xfffe5bfeu, 0x53bda402u,
                           0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
  uint32_t e[8];
  /* (r-1) >> log_n, log_n <= 32 */
  for (int i = 0; i < 8; i++) {
    uint64_t lo = rm1[i], hi = (i + 1 < 8) ? rm1[i + 1] : 0;
    uint64_t both = lo | (hi << 32);
    e[i] = (uint32_t)(log_n == 32 ? hi : (both >> log_n));
  }
  fr_t seven = fr_t::zero();
  seven.v[0] = 7;
  seven = to_mont<FrP>(seven);
  fr_t w = pow<FrP>(seven, e, 8);
  uint32_t nm1[2] = {(uint32_t)((1ull << log_n) - 1), 0};
  fr_t winv = pow<FrP>(w, nm1, 1);
  fr_t ginv = pow<FrP>(seven, rm2, 8);
  fr_t nn = fr_t::zero();
  nn.v[log_n / 32] = 1u << (log_n % 32);
  nn = to_mont<FrP>(nn);
  fr_t ninv = pow<FrP>(nn, rm2, 8);
  consts[0] = w;
  consts[1] = winv;
  consts[2] = seven;
  consts[3] = ginv;
  consts[4] = ninv;
}

/* table[j] = base^(j << shift) for j < count */
__global__ void ntt_table_kernel(fr_t *table, const fr_t *base, int shift, uint32_t count) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  uint64_t e = (uint64_t)j << shift;
  uint32_t ee[2] = {(uint32_t)e, (uint32_t)(e >> 32)};
  table[j] = pow<FrP>(*base, ee, 2);
}

struct pass_args {
  fr_t *data;
  const fr_t *wlo, *whi;  /* w or w^-1 tables of size n */
  const fr_t *clo, *chi;  /* g^i or g^-i tables, or null */
  const fr_t *scale;      /* n^-1 or null */
  int log_n, ncur_log, k, L, log_c;
};

__device__ __forceinline__ uint32_t brev(uint32_t x, int bits) { return bits ? __brev(x) >> (32 - bits) : 0; }

/* Shared layout: 8 word planes of C*(N1+1) words (padding kills bank conflicts between
 * columns), then N1/2 roots w_N1^j. */
__device__ __forceinline__ fr_t sm_ld(const uint32_t *sm, int stride, int idx) {
  fr_t r;
#pragma unroll
  for (int w = 0; w < 8; w++) r.v[w] = sm[w * stride + idx];
  return r;
}
__device__ __forceinline__ void sm_st(uint32_t *sm, int stride, int idx, const fr_t &x) {
#pragma unroll
  for (int w = 0; w < 8; w++) sm[w * stride + idx] = x.v[w];
}

template <bool INV>
__global__ void __launch_bounds__(512) ntt_pass_kernel(pass_args a) {
  extern __shared__ uint32_t sm[];
  const int k = a.k, N1 = 1 << k, C = 1 << a.log_c;
  const int log_n2 = a.ncur_log - k;
  const int stride = C * (N1 + 1);
  fr_t *roots = reinterpret_cast<fr_t *>(sm + 8 * stride);
  const int T = blockDim.x, tid = threadIdx.x;

  /* roots: w_N1^j = w_n^(j * n/N1) */
  for (int j = tid; j < N1 / 2; j += T) roots[j] = tw_pow(a.wlo, a.whi, a.L, (uint64_t)j << (a.log_n - k));

  const uint64_t col0 = (uint64_t)blockIdx.x << a.log_c;
  const uint64_t n2mask = (1ull << log_n2) - 1;
  /* load (and forward twiddle-free / inverse twiddle-before, plus forward coset) */
  for (int idx = tid; idx < C * N1; idx += T) {
    const int c = idx & (C - 1), i1 = idx >> a.log_c;
    const uint64_t gc = col0 + c, seg = gc >> log_n2, i2 = gc & n2mask;
    const uint64_t pos = (seg << a.ncur_log) + ((uint64_t)i1 << log_n2) + i2;
    fr_t x = ld_fr(a.data + pos);
    if (!INV) {
      if (a.clo) x = mul<FrP>(x, tw_pow(a.clo, a.chi, a.L, pos));
    } else if (log_n2 > 0 && i2 != 0) {
      const uint64_t e = (i2 * brev(i1, k)) << (a.log_n - a.ncur_log);
      x = mul<FrP>(x, tw_pow(a.wlo, a.whi, a.L, e));
    }
    sm_st(sm, stride, c * (N1 + 1) + i1, x);
  }
  __syncthreads();

  const int half = N1 / 2;
  for (int s = 0; s < k; s++) {
    const int t = INV ? (k - 1 - s) : s; /* stage: half-size h = N1 >> (t+1) */
    const int log_h = k - 1 - t;
    for (int b = tid; b < C * half; b += T) {
      const int c = b / half, j = b % half;
      const int pos = j & ((1 << log_h) - 1);
      const int i = ((j >> log_h) << (log_h + 1)) + pos;
      const int base = c * (N1 + 1);
      fr_t x = sm_ld(sm, stride, base + i), y = sm_ld(sm, stride, base + i + (1 << log_h));
      const fr_t w = roots[pos << t];
      if (!INV) {
        fr_t u = add<FrP>(x, y);
        fr_t v = pos ? mul<FrP>(sub<FrP>(x, y), w) : sub<FrP>(x, y);
        x = u;
        y = v;
      } else {
        fr_t wy = pos ? mul<FrP>(y, w) : y;
        y = sub<FrP>(x, wy);
        x = add<FrP>(x, wy);
      }
      sm_st(sm, stride, base + i, x);
      sm_st(sm, stride, base + i + (1 << log_h), y);
    }
    __syncthreads();
  }

  for (int idx = tid; idx < C * N1; idx += T) {
    const int c = idx & (C - 1), i1 = idx >> a.log_c;
    const uint64_t gc = col0 + c, seg = gc >> log_n2, i2 = gc & n2mask;
    const uint64_t pos = (seg << a.ncur_log) + ((uint64_t)i1 << log_n2) + i2;
    fr_t x = sm_ld(sm, stride, c * (N1 + 1) + i1);
    if (!INV) {
      if (log_n2 > 0 && i2 != 0) {
        const uint64_t e = (i2 * brev(i1, k)) << (a.log_n - a.ncur_log);
        x = mul<FrP>(x, tw_pow(a.wlo, a.whi, a.L, e));
      }
    } else {
      if (a.scale) x = mul<FrP>(x, *a.scale);
      if (a.clo) x = mul<FrP>(x, tw_pow(a.clo, a.chi, a.L, pos));
    }
    st_fr(a.data + pos, x);
  }
}

__global__ void ntt_bitrev_kernel(fr_t *data, int log_n) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1ull << log_n)) return;
  const uint64_t j = __brev((uint32_t)i) >> (32 - log_n);
  if (i < j) {
    fr_t x = ld_fr(data + i), y = ld_fr(data + j);
    st_fr(data + i, y);
    st_fr(data + j, x);
  }
}

}  // namespace

struct cuzk_gpu_ntt {
  int dev;
  cudaStream_t stream;
  ntt_tables *tab[MAX_LOG_N + 1];
  fr_t *hbuf; /* device buffer for the host wrapper */
  size_t hbuf_n;
};

static cuzk_gpu_status_t ntt_build_tables(cuzk_gpu_ntt_t *ctx, int log_n) {
  if (ctx->tab[log_n]) return cuzk_gpu__ok();
  ntt_tables *t = new (std::nothrow) ntt_tables();
  if (!t) return cuzk_gpu__status(CUZK_GPU_NOMEM, "ntt tables");
  const int L = (log_n + 1) / 2, H = log_n - L;
  t->L = L;
  const size_t nlo = (size_t)1 << L, nhi = (size_t)1 << H;
  fr_t *blk = nullptr;
  cudaError_t e = cudaMalloc(&blk, (4 * (nlo + nhi) + 8) * sizeof(fr_t));
  if (e != cudaSuccess) {
    delete t;
    return cuzk_gpu__from_cuda(e, "cudaMalloc(ntt tables)");
  }
  t->consts = blk;
  fr_t *p = blk + 8;
  for (int i = 0; i < 4; i++) {
    t->lo[i] = p;
    p += nlo;
    t->hi[i] = p;
    p += nhi;
  }
  ntt_consts_kernel<<<1, 1, 0, ctx->stream>>>(t->consts, log_n);
  for (int i = 0; i < 4; i++) {
    ntt_table_kernel<<<(unsigned)((nlo + 255) / 256), 256, 0, ctx->stream>>>(t->lo[i], t->consts + i, 0, (uint32_t)nlo);
    ntt_table_kernel<<<(unsigned)((nhi + 255) / 256), 256, 0, ctx->stream>>>(t->hi[i], t->consts + i, L, (uint32_t)nhi);
  }
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    cudaFree(blk);
    delete t;
    return cuzk_gpu__from_cuda(e, "ntt table kernels");
  }
  ctx->tab[log_n] = t;
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_ntt_new(cuzk_gpu_ntt_t **out, int dev) {
  *out = nullptr;
  CUZK_CUDA_TRY(cudaSetDevice(dev));
  cuzk_gpu_ntt_t *ctx = new (std::nothrow) cuzk_gpu_ntt_t();
  if (!ctx) return cuzk_gpu__status(CUZK_GPU_NOMEM, "ntt context");
  ctx->dev = dev;
  cudaError_t e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaFuncSetAttribute(ntt_pass_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);
  if (e == cudaSuccess) e = cudaFuncSetAttribute(ntt_pass_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);
  if (e != cudaSuccess) {
    delete ctx;
    return cuzk_gpu__from_cuda(e, "ntt_new");
  }
  *out = ctx;
  return cuzk_gpu__ok();
}

extern "C" void cuzk_gpu_ntt_free(cuzk_gpu_ntt_t *ctx) {
  if (!ctx) return;
  cudaSetDevice(ctx->dev);
  for (int i = 0; i <= MAX_LOG_N; i++)
    if (ctx->tab[i]) {
      cudaFree(ctx->tab[i]->consts);
      delete ctx->tab[i];
    }
  cudaFree(ctx->hbuf);
  cudaStreamDestroy(ctx->stream);
  delete ctx;
}

/* Splits log_n into passes of at most KMAX stages, as even as possible. */
static int ntt_plan(int log_n, int ks[8]) {
  const int np = (log_n + 8) / 9 > (log_n + KMAX - 1) / KMAX ? (log_n + 8) / 9 : (log_n + KMAX - 1) / KMAX;
  for (int i = 0; i < np; i++) ks[i] = log_n / np + (i < log_n % np ? 1 : 0);
  return np;
}

static cuzk_gpu_status_t ntt_launch_pass(cudaStream_t stream, bool inv, pass_args a) {
  const int N1 = 1 << a.k;
  int log_c = 0;
  /* up to 512 threads (C * N1/2) and at least 2 columns when N1 allows */
  while ((N1 / 2) << (log_c + 1) <= 512 && log_c + 1 <= a.log_n - a.k) log_c++;
  if (a.k >= 10) log_c = 0;
  a.log_c = log_c;
  const int C = 1 << log_c;
  const unsigned threads = (unsigned)((C * N1 / 2) < 32 ? 32 : (C * N1 / 2));
  const size_t smem = (size_t)8 * C * (N1 + 1) * 4 + (size_t)(N1 / 2) * sizeof(fr_t);
  const uint64_t blocks = (1ull << (a.log_n - a.k)) >> log_c;
  if (inv)
    ntt_pass_kernel<true><<<(unsigned)blocks, threads, smem, stream>>>(a);
  else
    ntt_pass_kernel<false><<<(unsigned)blocks, threads, smem, stream>>>(a);
  CUZK_CUDA_TRY(cudaGetLastError());
  return cuzk_gpu__ok();
}

cuzk_gpu_status_t cuzk_gpu__ntt_prepare(cuzk_gpu_ntt_t *ctx, unsigned log_n) {
  if (!ctx || log_n < 1 || log_n > MAX_LOG_N)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "ntt: bad arguments (log_n %u)", log_n);
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  return ntt_build_tables(ctx, (int)log_n);
}

cuzk_gpu_status_t cuzk_gpu__ntt_enqueue(cuzk_gpu_ntt_t *ctx, cudaStream_t stream, void *d_data, unsigned log_n,
                                        cuzk_gpu_ntt_kind_t kind, unsigned flags) {
  if (!ctx || !d_data || log_n < 1 || log_n > MAX_LOG_N || (int)kind < 0 || (int)kind > 3)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "ntt: bad arguments (log_n %u, kind %d)", log_n, (int)kind);
  if (!ctx->tab[log_n])
    return cuzk_gpu__status(CUZK_GPU_INVALID, "ntt: tables for 2^%u not prepared", log_n);
  cuzk_gpu_status_t st;
  const ntt_tables *t = ctx->tab[log_n];
  fr_t *data = static_cast<fr_t *>(d_data);
  const bool inv = kind == CUZK_GPU_NTT_INV_RN || kind == CUZK_GPU_NTT_INV_NN;
  const bool coset = (flags & CUZK_GPU_NTT_COSET) != 0;
  const unsigned rb = (unsigned)(((1ull << log_n) + 255) / 256);

  int ks[8];
  const int np = ntt_plan((int)log_n, ks);
  if (kind == CUZK_GPU_NTT_INV_NN) ntt_bitrev_kernel<<<rb, 256, 0, stream>>>(data, (int)log_n);
  pass_args a = {};
  a.data = data;
  a.log_n = (int)log_n;
  a.L = t->L;
  a.wlo = t->lo[inv ? 1 : 0];
  a.whi = t->hi[inv ? 1 : 0];
  if (!inv) {
    int ncur = (int)log_n;
    for (int p = 0; p < np; p++) {
      a.ncur_log = ncur;
      a.k = ks[p];
      a.clo = (p == 0 && coset) ? t->lo[2] : nullptr;
      a.chi = (p == 0 && coset) ? t->hi[2] : nullptr;
      a.scale = nullptr;
      st = ntt_launch_pass(stream, false, a);
      if (st.code) return st;
      ncur -= ks[p];
    }
  } else {
    int ncur = ks[np - 1];
    for (int p = np - 1; p >= 0; p--) {
      a.ncur_log = ncur;
      a.k = ks[p];
      a.clo = (p == 0 && coset) ? t->lo[3] : nullptr;
      a.chi = (p == 0 && coset) ? t->hi[3] : nullptr;
      a.scale = p == 0 ? t->consts + 4 : nullptr;
      st = ntt_launch_pass(stream, true, a);
      if (st.code) return st;
      if (p > 0) ncur += ks[p - 1];
    }
  }
  if (kind == CUZK_GPU_NTT_FWD_NN) ntt_bitrev_kernel<<<rb, 256, 0, stream>>>(data, (int)log_n);
  CUZK_CUDA_TRY(cudaGetLastError());
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_ntt_device(cuzk_gpu_ntt_t *ctx, void *d_data, unsigned log_n,
                                                 cuzk_gpu_ntt_kind_t kind, unsigned flags) {
  cuzk_gpu_status_t st = cuzk_gpu__ntt_prepare(ctx, log_n);
  if (st.code) return st;
  st = cuzk_gpu__ntt_enqueue(ctx, ctx->stream, d_data, log_n, kind, flags);
  if (st.code) return st;
  CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
  return cuzk_gpu__ok();
}

extern "C" cuzk_gpu_status_t cuzk_gpu_ntt_host(cuzk_gpu_ntt_t *ctx, uint64_t *data, unsigned log_n,
                                               cuzk_gpu_ntt_kind_t kind, unsigned flags) {
  if (!ctx || !data || log_n < 1 || log_n > MAX_LOG_N)
    return cuzk_gpu__status(CUZK_GPU_INVALID, "ntt_host: bad arguments (log_n %u)", log_n);
  CUZK_CUDA_TRY(cudaSetDevice(ctx->dev));
  const size_t n = (size_t)1 << log_n;
  if (ctx->hbuf_n < n) {
    cudaFree(ctx->hbuf);
    ctx->hbuf = nullptr;
    ctx->hbuf_n = 0;
    CUZK_CUDA_TRY(cudaMalloc(&ctx->hbuf, n * sizeof(fr_t)));
    ctx->hbuf_n = n;
  }
  CUZK_CUDA_TRY(cudaMemcpyAsync(ctx->hbuf, data, n * sizeof(fr_t), cudaMemcpyHostToDevice, ctx->stream));
  cuzk_gpu_status_t st = cuzk_gpu_ntt_device(ctx, ctx->hbuf, log_n, kind, flags);
  if (st.code) return st;
  CUZK_CUDA_TRY(cudaMemcpyAsync(data, ctx->hbuf, n * sizeof(fr_t), cudaMemcpyDeviceToHost, ctx->stream));
  CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
  return cuzk_gpu__ok();
}
