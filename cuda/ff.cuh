// Internal: device Montgomery arithmetic over BLS12-381's Fr and Fp with 32-bit limbs.
//
// An element is N little-endian 32-bit limbs holding a·R mod m (R = 2^(32N)), fully reduced.
// The byte layout equals core/ff's (little-endian 64-bit limbs, same R), so host arrays of
// cuzk_fr_t / cuzk_fp_t can be copied to the device as they are.
// Carry chains use PTX add.cc/addc/mad*.cc; each chain is one run of asm statements with no
// other code between them, so the carry flag flows from one to the next.
#pragma once
#include <cstdint>

namespace cuzk_gpu {

// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (255 bits)
struct FrP {
  static constexpr int N = 8;
  static constexpr uint32_t INV = 0xffffffffu; /* -r^-1 mod 2^32 */
  __device__ __forceinline__ static uint32_t m(int i) {
    constexpr uint32_t v[8] = {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u,
                               0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
    return v[i];
  }
  __device__ __forceinline__ static uint32_t one(int i) { /* 2^256 mod r */
    constexpr uint32_t v[8] = {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau,
                               0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u};
    return v[i];
  }
  __device__ __forceinline__ static uint32_t r2(int i) { /* 2^512 mod r */
    constexpr uint32_t v[8] = {0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu,
                               0x7254398fu, 0x05d31496u, 0x9f59ff11u, 0x0748d9d9u};
    return v[i];
  }
};

// p = 0x1a0111ea...ffffaaab (381 bits)
struct FpP {
  static constexpr int N = 12;
  static constexpr uint32_t INV = 0xfffcfffdu; /* -p^-1 mod 2^32 */
  __device__ __forceinline__ static uint32_t m(int i) {
    constexpr uint32_t v[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu,
                                0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u,
                                0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};
    return v[i];
  }
  __device__ __forceinline__ static uint32_t one(int i) { /* 2^384 mod p */
    constexpr uint32_t v[12] = {0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu,
                                0x53c758bau, 0x5f489857u, 0x70525745u, 0x77ce5853u,
                                0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u};
    return v[i];
  }
  __device__ __forceinline__ static uint32_t r2(int i) { /* 2^768 mod p */
    constexpr uint32_t v[12] = {0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u,
                                0x4c95b6d5u, 0x8de5476cu, 0x939d83c0u, 0x67eb88a9u,
                                0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u};
    return v[i];
  }
};

template <class P>
struct fe {
  static constexpr int N = P::N;
  uint32_t v[N];

  __device__ __forceinline__ static fe zero() {
    fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = 0;
    return r;
  }
  __device__ __forceinline__ static fe one() {
    fe r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = P::one(i);
    return r;
  }
  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= v[i];
    return acc == 0;
  }
  __device__ __forceinline__ bool eq(const fe &b) const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= v[i] ^ b.v[i];
    return acc == 0;
  }
};

// out = x - m if x >= m (x < 2m, given as N limbs; top limb of both fits since m < 2^(32N-1)).
template <class P>
__device__ __forceinline__ void cuzk__reduce_once(uint32_t x[P::N]) {
  constexpr int N = P::N;
  uint32_t d[N], borrow;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(x[0]), "r"(P::m(0)));
#pragma unroll
  for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(x[i]), "r"(P::m(i)));
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
  bool keep = borrow != 0;
#pragma unroll
  for (int i = 0; i < N; i++) x[i] = keep ? x[i] : d[i];
}

template <class P>
__device__ __forceinline__ fe<P> add(const fe<P> &a, const fe<P> &b) {
  constexpr int N = P::N;
  fe<P> r;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
  for (int i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
  cuzk__reduce_once<P>(r.v);
  return r;
}

template <class P>
__device__ __forceinline__ fe<P> sub(const fe<P> &a, const fe<P> &b) {
  constexpr int N = P::N;
  fe<P> r;
  uint32_t borrow;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
  for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
  uint32_t mask = borrow; /* 0 or 0xffffffff */
  asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(P::m(0) & mask));
#pragma unroll
  for (int i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(P::m(i) & mask));
  return r;
}

template <class P>
__device__ __forceinline__ fe<P> dbl(const fe<P> &a) { return add<P>(a, a); }

template <class P>
__device__ __forceinline__ fe<P> neg(const fe<P> &a) {
  return a.is_zero() ? a : sub<P>(fe<P>::zero(), a);
}

// Montgomery product a·b·R^-1 mod m (CIOS). The running sum t stays below 2m; its transient
// values need N+2 limbs because m·2^33 exceeds 2^(32(N+1)) for r.
template <class P>
__device__ __forceinline__ fe<P> mul(const fe<P> &a, const fe<P> &b) {
  constexpr int N = P::N;
  uint32_t t[N + 2];
#pragma unroll
  for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    const uint32_t bi = b.v[i];
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
    for (int j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a.v[j]), "r"(bi));
    asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a.v[0]), "r"(bi));
#pragma unroll
    for (int j = 1; j < N; j++) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a.v[j]), "r"(bi));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));

    const uint32_t q = t[0] * P::INV;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(q), "r"(P::m(0)));
#pragma unroll
    for (int j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(q), "r"(P::m(j)));
    asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(q), "r"(P::m(0)));
#pragma unroll
    for (int j = 1; j < N; j++) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(q), "r"(P::m(j)));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
    /* t[0] is now 0: shift one limb down */
#pragma unroll
    for (int j = 0; j < N + 1; j++) t[j] = t[j + 1];
    t[N + 1] = 0;
  }
  fe<P> r;
#pragma unroll
  for (int i = 0; i < N; i++) r.v[i] = t[i];
  cuzk__reduce_once<P>(r.v);
  return r;
}

template <class P>
__device__ __forceinline__ fe<P> sqr(const fe<P> &a) { return mul<P>(a, a); }

template <class P>
__device__ __forceinline__ fe<P> to_mont(const fe<P> &a) {
  fe<P> r2;
#pragma unroll
  for (int i = 0; i < P::N; i++) r2.v[i] = P::r2(i);
  return mul<P>(a, r2);
}

template <class P>
__device__ __forceinline__ fe<P> from_mont(const fe<P> &a) {
  fe<P> o = fe<P>::zero();
  o.v[0] = 1;
  return mul<P>(a, o);
}

// a^e for an exponent of `nlimbs` little-endian 32-bit limbs (square-and-multiply, vartime).
template <class P>
__device__ inline fe<P> pow(const fe<P> &a, const uint32_t *e, int nlimbs) {
  fe<P> r = fe<P>::one();
  for (int i = nlimbs - 1; i >= 0; i--)
    for (int b = 31; b >= 0; b--) {
      r = sqr<P>(r);
      if ((e[i] >> b) & 1) r = mul<P>(r, a);
    }
  return r;
}

typedef fe<FrP> fr_t;
typedef fe<FpP> fp_t;

}  // namespace cuzk_gpu

namespace cuzk_gpu {

// Fp2 = Fp[u]/(u^2 + 1): c0 + c1·u, the layout of core/ff's cuzk_fp2_t (c0 then c1).
struct fp2_t {
  fp_t c0, c1;
};

// Uniform field interface for curve code templated on the coordinate field. U4 is the element
// size in 16-byte words (for vector loads from global memory).
struct FpOps {
  typedef fp_t T;
  static constexpr int U4 = 3;
  __device__ __forceinline__ static T zero() { return fp_t::zero(); }
  __device__ __forceinline__ static T one() { return fp_t::one(); }
  __device__ __forceinline__ static bool is_zero(const T &a) { return a.is_zero(); }
  __device__ __forceinline__ static T add(const T &a, const T &b) { return cuzk_gpu::add<FpP>(a, b); }
  __device__ __forceinline__ static T sub(const T &a, const T &b) { return cuzk_gpu::sub<FpP>(a, b); }
  __device__ __forceinline__ static T dbl(const T &a) { return cuzk_gpu::dbl<FpP>(a); }
  __device__ __forceinline__ static T neg(const T &a) { return cuzk_gpu::neg<FpP>(a); }
  __device__ __forceinline__ static T mul(const T &a, const T &b) { return cuzk_gpu::mul<FpP>(a, b); }
  __device__ __forceinline__ static T sqr(const T &a) { return cuzk_gpu::sqr<FpP>(a); }
  __device__ __forceinline__ static void ld(T &r, const uint4 *q) {
#pragma unroll
    for (int i = 0; i < 3; i++) {
      const uint4 a = q[i];
      r.v[4 * i] = a.x;
      r.v[4 * i + 1] = a.y;
      r.v[4 * i + 2] = a.z;
      r.v[4 * i + 3] = a.w;
    }
  }
};

struct Fp2Ops {
  typedef fp2_t T;
  static constexpr int U4 = 6;
  __device__ __forceinline__ static T zero() { return T{fp_t::zero(), fp_t::zero()}; }
  __device__ __forceinline__ static T one() { return T{fp_t::one(), fp_t::zero()}; }
  __device__ __forceinline__ static bool is_zero(const T &a) { return a.c0.is_zero() && a.c1.is_zero(); }
  __device__ __forceinline__ static T add(const T &a, const T &b) {
    return T{cuzk_gpu::add<FpP>(a.c0, b.c0), cuzk_gpu::add<FpP>(a.c1, b.c1)};
  }
  __device__ __forceinline__ static T sub(const T &a, const T &b) {
    return T{cuzk_gpu::sub<FpP>(a.c0, b.c0), cuzk_gpu::sub<FpP>(a.c1, b.c1)};
  }
  __device__ __forceinline__ static T dbl(const T &a) { return T{cuzk_gpu::dbl<FpP>(a.c0), cuzk_gpu::dbl<FpP>(a.c1)}; }
  __device__ __forceinline__ static T neg(const T &a) { return T{cuzk_gpu::neg<FpP>(a.c0), cuzk_gpu::neg<FpP>(a.c1)}; }
  /* Karatsuba: (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u */
  __device__ __forceinline__ static T mul(const T &a, const T &b) {
    const fp_t t0 = cuzk_gpu::mul<FpP>(a.c0, b.c0);
    const fp_t t1 = cuzk_gpu::mul<FpP>(a.c1, b.c1);
    const fp_t t2 = cuzk_gpu::mul<FpP>(cuzk_gpu::add<FpP>(a.c0, a.c1), cuzk_gpu::add<FpP>(b.c0, b.c1));
    return T{cuzk_gpu::sub<FpP>(t0, t1), cuzk_gpu::sub<FpP>(cuzk_gpu::sub<FpP>(t2, t0), t1)};
  }
  /* complex squaring: (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
  __device__ __forceinline__ static T sqr(const T &a) {
    const fp_t s = cuzk_gpu::mul<FpP>(cuzk_gpu::add<FpP>(a.c0, a.c1), cuzk_gpu::sub<FpP>(a.c0, a.c1));
    const fp_t p = cuzk_gpu::mul<FpP>(a.c0, a.c1);
    return T{s, cuzk_gpu::dbl<FpP>(p)};
  }
  __device__ __forceinline__ static void ld(T &r, const uint4 *q) {
    FpOps::ld(r.c0, q);
    FpOps::ld(r.c1, q + 3);
  }
};

}  // namespace cuzk_gpu
