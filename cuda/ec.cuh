// Internal: G1 (y^2 = x^3 + 4 over Fp) and G2 (y^2 = x^3 + 4(u+1) over Fp2) on the device,
// XYZZ coordinates, one set of formulas templated on the coordinate field (FpOps, Fp2Ops).
//
// XYZZ point (X, Y, ZZ, ZZZ) stands for x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2; ZZ = 0 is the
// point at infinity. Affine inputs use (0, 0) for infinity. Formulas: madd-2008-s, add-2008-s,
// dbl-2008-s-1, mdbl-2008-s-1 (hyperelliptic.org EFD, "xyzz" for short Weierstrass a = 0; both
// curves have a = 0, and b does not enter these formulas).
// Conversion to Jacobian: (X·ZZ^2, Y·ZZZ^2, ZZZ). With Z = ZZZ, Z^2 = ZZZ^2 = ZZ^3, so
// X·ZZ^2 / Z^2 = X/ZZ = x and Y·ZZZ^2 / Z^3 = Y/ZZZ = y.
#pragma once
#include "cuda/ff.cuh"

namespace cuzk_gpu {

template <class FO>
struct aff_t {
  typedef typename FO::T T;
  T x, y;
  __device__ __forceinline__ bool is_inf() const { return FO::is_zero(x) && FO::is_zero(y); }
};

template <class FO>
struct xyzz_t {
  typedef typename FO::T T;
  T X, Y, ZZ, ZZZ;
  __device__ __forceinline__ static xyzz_t inf() {
    xyzz_t r;
    r.X = FO::zero();
    r.Y = FO::zero();
    r.ZZ = FO::zero();
    r.ZZZ = FO::zero();
    return r;
  }
  __device__ __forceinline__ bool is_inf() const { return FO::is_zero(ZZ); }
};

typedef aff_t<FpOps> g1_aff;
typedef xyzz_t<FpOps> g1_xyzz;
typedef aff_t<Fp2Ops> g2_aff;
typedef xyzz_t<Fp2Ops> g2_xyzz;

/* Affine point from global memory with 16-byte loads (the array must be 16-byte aligned). */
template <class FO>
__device__ __forceinline__ aff_t<FO> ec_ld_aff(const aff_t<FO> *p) {
  const uint4 *q = reinterpret_cast<const uint4 *>(p);
  aff_t<FO> r;
  FO::ld(r.x, q);
  FO::ld(r.y, q + FO::U4);
  return r;
}

template <class FO>
__device__ __forceinline__ xyzz_t<FO> ec_from_aff(const aff_t<FO> &p) {
  if (p.is_inf()) return xyzz_t<FO>::inf();
  xyzz_t<FO> r;
  r.X = p.x;
  r.Y = p.y;
  r.ZZ = FO::one();
  r.ZZZ = FO::one();
  return r;
}

/* 2P for affine P (not infinity; y != 0 always holds in G1 and G2: no point of order 2 lies in a
 * subgroup of odd order r, and a y = 0 input would give ZZ = 0, infinity, which is 2P then). */
template <class FO>
__device__ __forceinline__ xyzz_t<FO> ec_dbl_aff(const aff_t<FO> &p) {
  typedef typename FO::T T;
  T U = FO::dbl(p.y);
  T V = FO::sqr(U);
  T W = FO::mul(U, V);
  T S = FO::mul(p.x, V);
  T xx = FO::sqr(p.x);
  T M = FO::add(FO::dbl(xx), xx);
  xyzz_t<FO> r;
  r.X = FO::sub(FO::sqr(M), FO::dbl(S));
  r.Y = FO::sub(FO::mul(M, FO::sub(S, r.X)), FO::mul(W, p.y));
  r.ZZ = V;
  r.ZZZ = W;
  return r;
}

template <class FO>
__device__ __forceinline__ xyzz_t<FO> ec_dbl(const xyzz_t<FO> &p) {
  typedef typename FO::T T;
  if (p.is_inf()) return p;
  T U = FO::dbl(p.Y);
  T V = FO::sqr(U);
  T W = FO::mul(U, V);
  T S = FO::mul(p.X, V);
  T xx = FO::sqr(p.X);
  T M = FO::add(FO::dbl(xx), xx);
  xyzz_t<FO> r;
  r.X = FO::sub(FO::sqr(M), FO::dbl(S));
  r.Y = FO::sub(FO::mul(M, FO::sub(S, r.X)), FO::mul(W, p.Y));
  r.ZZ = FO::mul(V, p.ZZ);
  r.ZZZ = FO::mul(W, p.ZZZ);
  return r;
}

/* p + q, q affine (may be infinity). */
template <class FO>
__device__ __forceinline__ xyzz_t<FO> ec_add_aff(const xyzz_t<FO> &p, const aff_t<FO> &q) {
  typedef typename FO::T T;
  if (q.is_inf()) return p;
  if (p.is_inf()) return ec_from_aff<FO>(q);
  T U2 = FO::mul(q.x, p.ZZ);
  T S2 = FO::mul(q.y, p.ZZZ);
  T P = FO::sub(U2, p.X);
  T R = FO::sub(S2, p.Y);
  if (FO::is_zero(P)) {
    if (FO::is_zero(R)) return ec_dbl_aff<FO>(q);
    return xyzz_t<FO>::inf();
  }
  T PP = FO::sqr(P);
  T PPP = FO::mul(P, PP);
  T Q = FO::mul(p.X, PP);
  xyzz_t<FO> r;
  r.X = FO::sub(FO::sub(FO::sqr(R), PPP), FO::dbl(Q));
  r.Y = FO::sub(FO::mul(R, FO::sub(Q, r.X)), FO::mul(p.Y, PPP));
  r.ZZ = FO::mul(p.ZZ, PP);
  r.ZZZ = FO::mul(p.ZZZ, PPP);
  return r;
}

template <class FO>
__device__ __noinline__ xyzz_t<FO> ec_add(const xyzz_t<FO> &p, const xyzz_t<FO> &q) {
  typedef typename FO::T T;
  if (q.is_inf()) return p;
  if (p.is_inf()) return q;
  T U1 = FO::mul(p.X, q.ZZ);
  T U2 = FO::mul(q.X, p.ZZ);
  T S1 = FO::mul(p.Y, q.ZZZ);
  T S2 = FO::mul(q.Y, p.ZZZ);
  T P = FO::sub(U2, U1);
  T R = FO::sub(S2, S1);
  if (FO::is_zero(P)) {
    if (FO::is_zero(R)) return ec_dbl<FO>(p);
    return xyzz_t<FO>::inf();
  }
  T PP = FO::sqr(P);
  T PPP = FO::mul(P, PP);
  T Q = FO::mul(U1, PP);
  xyzz_t<FO> r;
  r.X = FO::sub(FO::sub(FO::sqr(R), PPP), FO::dbl(Q));
  r.Y = FO::sub(FO::mul(R, FO::sub(Q, r.X)), FO::mul(S1, PPP));
  r.ZZ = FO::mul(FO::mul(p.ZZ, q.ZZ), PP);
  r.ZZZ = FO::mul(FO::mul(p.ZZZ, q.ZZZ), PPP);
  return r;
}

/* The G1 names used before the curve code was generic. */
__device__ __forceinline__ g1_xyzz g1_from_aff(const g1_aff &p) { return ec_from_aff<FpOps>(p); }
__device__ __forceinline__ g1_xyzz g1_dbl_aff(const g1_aff &p) { return ec_dbl_aff<FpOps>(p); }
__device__ __forceinline__ g1_xyzz g1_dbl(const g1_xyzz &p) { return ec_dbl<FpOps>(p); }
__device__ __forceinline__ g1_xyzz g1_add_aff(const g1_xyzz &p, const g1_aff &q) { return ec_add_aff<FpOps>(p, q); }
__device__ __forceinline__ g1_xyzz g1_add(const g1_xyzz &p, const g1_xyzz &q) { return ec_add<FpOps>(p, q); }

}  // namespace cuzk_gpu
