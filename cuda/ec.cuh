// Internal: G1 (y^2 = x^3 + 4 over Fp) on the device, XYZZ coordinates.
//
// XYZZ point (X, Y, ZZ, ZZZ) stands for x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2; ZZ = 0 is the
// point at infinity. Affine inputs use (0, 0) for infinity. Formulas: madd-2008-s, add-2008-s,
// dbl-2008-s-1, mdbl-2008-s-1 (hyperelliptic.org EFD, "xyzz" for short Weierstrass a = 0).
#pragma once
#include "cuda/ff.cuh"

namespace cuzk_gpu {

struct g1_aff {
  fp_t x, y;
  __device__ __forceinline__ bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

struct g1_xyzz {
  fp_t X, Y, ZZ, ZZZ;
  __device__ __forceinline__ static g1_xyzz inf() {
    g1_xyzz r;
    r.X = fp_t::zero();
    r.Y = fp_t::zero();
    r.ZZ = fp_t::zero();
    r.ZZZ = fp_t::zero();
    return r;
  }
  __device__ __forceinline__ bool is_inf() const { return ZZ.is_zero(); }
};

typedef FpP F;

__device__ __forceinline__ g1_xyzz g1_from_aff(const g1_aff &p) {
  if (p.is_inf()) return g1_xyzz::inf();
  g1_xyzz r;
  r.X = p.x;
  r.Y = p.y;
  r.ZZ = fp_t::one();
  r.ZZZ = fp_t::one();
  return r;
}

/* 2P for affine P (not infinity; y != 0 always holds on G1 since the curve has no 2-torsion
 * point over Fp with order dividing r). */
__device__ __forceinline__ g1_xyzz g1_dbl_aff(const g1_aff &p) {
  fp_t U = dbl<F>(p.y);
  fp_t V = sqr<F>(U);
  fp_t W = mul<F>(U, V);
  fp_t S = mul<F>(p.x, V);
  fp_t xx = sqr<F>(p.x);
  fp_t M = add<F>(dbl<F>(xx), xx);
  g1_xyzz r;
  r.X = sub<F>(sqr<F>(M), dbl<F>(S));
  r.Y = sub<F>(mul<F>(M, sub<F>(S, r.X)), mul<F>(W, p.y));
  r.ZZ = V;
  r.ZZZ = W;
  return r;
}

__device__ __forceinline__ g1_xyzz g1_dbl(const g1_xyzz &p) {
  if (p.is_inf()) return p;
  fp_t U = dbl<F>(p.Y);
  fp_t V = sqr<F>(U);
  fp_t W = mul<F>(U, V);
  fp_t S = mul<F>(p.X, V);
  fp_t xx = sqr<F>(p.X);
  fp_t M = add<F>(dbl<F>(xx), xx);
  g1_xyzz r;
  r.X = sub<F>(sqr<F>(M), dbl<F>(S));
  r.Y = sub<F>(mul<F>(M, sub<F>(S, r.X)), mul<F>(W, p.Y));
  r.ZZ = mul<F>(V, p.ZZ);
  r.ZZZ = mul<F>(W, p.ZZZ);
  return r;
}

/* p + q, q affine (may be infinity). */
__device__ __forceinline__ g1_xyzz g1_add_aff(const g1_xyzz &p, const g1_aff &q) {
  if (q.is_inf()) return p;
  if (p.is_inf()) return g1_from_aff(q);
  fp_t U2 = mul<F>(q.x, p.ZZ);
  fp_t S2 = mul<F>(q.y, p.ZZZ);
  fp_t P = sub<F>(U2, p.X);
  fp_t R = sub<F>(S2, p.Y);
  if (P.is_zero()) {
    if (R.is_zero()) return g1_dbl_aff(q);
    return g1_xyzz::inf();
  }
  fp_t PP = sqr<F>(P);
  fp_t PPP = mul<F>(P, PP);
  fp_t Q = mul<F>(p.X, PP);
  g1_xyzz r;
  r.X = sub<F>(sub<F>(sqr<F>(R), PPP), dbl<F>(Q));
  r.Y = sub<F>(mul<F>(R, sub<F>(Q, r.X)), mul<F>(p.Y, PPP));
  r.ZZ = mul<F>(p.ZZ, PP);
  r.ZZZ = mul<F>(p.ZZZ, PPP);
  return r;
}

__device__ __noinline__ g1_xyzz g1_add(const g1_xyzz &p, const g1_xyzz &q) {
  if (q.is_inf()) return p;
  if (p.is_inf()) return q;
  fp_t U1 = mul<F>(p.X, q.ZZ);
  fp_t U2 = mul<F>(q.X, p.ZZ);
  fp_t S1 = mul<F>(p.Y, q.ZZZ);
  fp_t S2 = mul<F>(q.Y, p.ZZZ);
  fp_t P = sub<F>(U2, U1);
  fp_t R = sub<F>(S2, S1);
  if (P.is_zero()) {
    if (R.is_zero()) return g1_dbl(p);
    return g1_xyzz::inf();
  }
  fp_t PP = sqr<F>(P);
  fp_t PPP = mul<F>(P, PP);
  fp_t Q = mul<F>(U1, PP);
  g1_xyzz r;
  r.X = sub<F>(sub<F>(sqr<F>(R), PPP), dbl<F>(Q));
  r.Y = sub<F>(mul<F>(R, sub<F>(Q, r.X)), mul<F>(S1, PPP));
  r.ZZ = mul<F>(mul<F>(p.ZZ, q.ZZ), PP);
  r.ZZZ = mul<F>(mul<F>(p.ZZZ, q.ZZZ), PPP);
  return r;
}

}  // namespace cuzk_gpu
