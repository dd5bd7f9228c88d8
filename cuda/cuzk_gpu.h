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

/* ---- memory ------------------------------------------------------------------------------
 * Device buffers belong to the caller: cuzk_gpu_malloc() memory is freed with cuzk_gpu_free().
 * Page-locked host memory (cuzk_gpu_host_alloc) makes transfers faster; free it with
 * cuzk_gpu_host_free(). Any thread; the device is set for the calling thread. */
cuzk_gpu_status_t cuzk_gpu_malloc(int dev, size_t bytes, void **dptr);
cuzk_gpu_status_t cuzk_gpu_free(void *dptr);
cuzk_gpu_status_t cuzk_gpu_host_alloc(size_t bytes, void **hptr);
cuzk_gpu_status_t cuzk_gpu_host_free(void *hptr);
cuzk_gpu_status_t cuzk_gpu_copy_h2d(int dev, void *dst, const void *src, size_t bytes);
cuzk_gpu_status_t cuzk_gpu_copy_d2h(int dev, void *dst, const void *src, size_t bytes);

/* ---- field element arrays -----------------------------------------------------------------
 * Layouts equal core/ff's: Fr = 4 little-endian u64 limbs in Montgomery form (R = 2^256),
 * Fp = 6 limbs (R = 2^384), both fully reduced. */
typedef enum {
  CUZK_GPU_FOP_ADD = 0, /* out = a + b */
  CUZK_GPU_FOP_SUB = 1, /* out = a - b */
  CUZK_GPU_FOP_MUL = 2, /* out = a * b */
  CUZK_GPU_FOP_SQR = 3, /* out = a^2 (b unused) */
  CUZK_GPU_FOP_NEG = 4, /* out = -a (b unused) */
  CUZK_GPU_FOP_TO_MONT = 5,   /* out = a*R (a a plain integer < modulus; b unused) */
  CUZK_GPU_FOP_FROM_MONT = 6, /* out = a/R (b unused) */
} cuzk_gpu_fop_t;

/* Element-wise op over n elements of host arrays (copies in, runs, copies out; a test and
 * calibration entry, not a hot path). field: 0 = Fr, 1 = Fp. `out` may alias `a` or `b`. */
cuzk_gpu_status_t cuzk_gpu_field_op_host(int dev, int field, cuzk_gpu_fop_t op, uint64_t *out,
                                         const uint64_t *a, const uint64_t *b, size_t n);

/* ---- NTT over Fr ------------------------------------------------------------------------
 * An NTT context belongs to one device and one thread at a time (it owns a stream and the
 * twiddle tables, built once per size on first use and kept until _free). Sizes 2^1..2^27.
 * Forward: X_k = sum_i x_i w^(ik), w = 7^((r-1)/n); inverse: x_i = n^-1 sum_k X_k w^(-ik).
 * COSET: forward evaluates on g*w^k (input multiplied by g^i first); inverse multiplies its
 * natural-order output by g^-i (g = 7). */
typedef struct cuzk_gpu_ntt cuzk_gpu_ntt_t;

typedef enum {
  CUZK_GPU_NTT_FWD_NR = 0, /* forward, natural in, bit-reversed out */
  CUZK_GPU_NTT_INV_RN = 1, /* inverse, bit-reversed in, natural out */
  CUZK_GPU_NTT_FWD_NN = 2, /* forward, natural in and out */
  CUZK_GPU_NTT_INV_NN = 3, /* inverse, natural in and out */
} cuzk_gpu_ntt_kind_t;

#define CUZK_GPU_NTT_COSET 1u

cuzk_gpu_status_t cuzk_gpu_ntt_new(cuzk_gpu_ntt_t **out, int dev);
void cuzk_gpu_ntt_free(cuzk_gpu_ntt_t *ctx);
/* In-place transform of 2^log_n Fr elements in device memory `d_data`; returns when done. */
cuzk_gpu_status_t cuzk_gpu_ntt_device(cuzk_gpu_ntt_t *ctx, void *d_data, unsigned log_n,
                                      cuzk_gpu_ntt_kind_t kind, unsigned flags);
/* Same on a host array (copied to a device buffer the context keeps, transformed, copied back). */
cuzk_gpu_status_t cuzk_gpu_ntt_host(cuzk_gpu_ntt_t *ctx, uint64_t *data, unsigned log_n,
                                    cuzk_gpu_ntt_kind_t kind, unsigned flags);

/* ---- Groth16 H polynomial -------------------------------------------------------------------
 * From the QAP evaluations a, b, c on the subgroup of size n = 2^log_n (natural order, Fr in
 * Montgomery form, as cuzk_r1cs_spmv writes them): iNTT each, coset-NTT each (g = 7), then
 * h_i = (a_i·b_i − c_i)·(g^n − 1)^-1 on the coset and a coset iNTT; the n coefficients of h
 * (Montgomery Fr, natural order) stay in device memory for the H MSM, which uses the first
 * n−1. Equal to core's cuzk_poly_groth16_h. The copies of b and c overlap the transforms of a
 * (one stream each, joined by events). Sizes 2^1..2^27.
 * A context belongs to one device and one thread at a time; it keeps three n-element device
 * buffers (grown to the largest n seen) until _free. */
typedef struct cuzk_gpu_h cuzk_gpu_h_t;

typedef struct {
  uint64_t h2d_bytes; /* bytes copied to the device */
  float h2d_ms;       /* host-to-device time: the union of the copy intervals (a, b, c, witness) */
  float ntt_ms;       /* from the end of a's copy to h's last store */
  float total_ms;     /* from the start of a's copy to the end */
} cuzk_gpu_h_timings_t;

cuzk_gpu_status_t cuzk_gpu_h_new(cuzk_gpu_h_t **out, int dev);
void cuzk_gpu_h_free(cuzk_gpu_h_t *ctx);

/* Computes h from host arrays a, b, c (n = 2^log_n elements of 4 u64 limbs each; page-locked
 * memory copies at full speed, pageable memory works too) and returns when h is complete; the
 * host arrays are no longer used after the call. *d_h receives the device pointer to h's n
 * coefficients, owned by the context and valid until its next call or _free. *top_nonzero is
 * 1 when h's coefficient n−1 is not zero: the witness does not satisfy the constraints (the
 * call still succeeds). `t` may be NULL. */
cuzk_gpu_status_t cuzk_gpu_h_run(cuzk_gpu_h_t *ctx, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *c, unsigned log_n, const void **d_h,
                                 int *top_nonzero, cuzk_gpu_h_timings_t *t);

/* cuzk_gpu_h_run plus cuzk_gpu_h_witness in one call: the witness copy is queued right behind
 * c's (same copy engine) and overlaps the transforms. *d_h and *d_w as for those two calls. */
cuzk_gpu_status_t cuzk_gpu_h_run_witness(cuzk_gpu_h_t *ctx, const uint64_t *a, const uint64_t *b,
                                         const uint64_t *c, unsigned log_n, const uint64_t *inputs,
                                         size_t n_inputs, const uint64_t *aux, size_t n_aux,
                                         const void **d_h, const void **d_w, int *top_nonzero,
                                         cuzk_gpu_h_timings_t *t);

/* The witness w = inputs ‖ aux (Fr, Montgomery) copied to a device buffer the context keeps
 * (grown as needed; separate from h's), for the L MSM and the gathers below. *d_w points at
 * w[0], valid until the next call to this function or _free. Adds its copy to t->h2d_* when t
 * is not NULL. Returns when the copy is done. */
cuzk_gpu_status_t cuzk_gpu_h_witness(cuzk_gpu_h_t *ctx, const uint64_t *inputs, size_t n_inputs,
                                     const uint64_t *aux, size_t n_aux, const void **d_w,
                                     cuzk_gpu_h_timings_t *t);

/* out[i] = w[idx[i]] for i < n, from the last cuzk_gpu_h_witness, with idx a device array of
 * u32 (cuzk_gpu_malloc'd; every entry below the witness length, unchecked). slot 0 or 1 picks
 * one of two output buffers (b's and c's H buffers when large enough, else the context's own);
 * *d_out is valid until the next gather into the same slot or the next h_run. Returns when
 * done. */
cuzk_gpu_status_t cuzk_gpu_h_gather(cuzk_gpu_h_t *ctx, int slot, const uint32_t *idx, size_t n,
                                    const void **d_out);

/* ---- G1 and MSM ----------------------------------------------------------------------------
 * Affine G1 point: x, y in Fp Montgomery form; (0, 0) (not on the curve) is the point at
 * infinity. Jacobian result: (X, Y, Z) with x = X/Z^2, y = Y/Z^3, infinity when Z = 0. */
typedef struct {
  uint64_t x[6], y[6];
} cuzk_gpu_g1_affine_t;
typedef struct {
  uint64_t x[6], y[6], z[6];
} cuzk_gpu_g1_jac_t;

/* Bases uploaded once and kept on the device (the SRS). Read-only after creation, so one set
 * may serve several MSM contexts of the same device concurrently. */
typedef struct cuzk_gpu_g1_bases cuzk_gpu_g1_bases_t;
cuzk_gpu_status_t cuzk_gpu_g1_bases_new(cuzk_gpu_g1_bases_t **out, int dev,
                                        const cuzk_gpu_g1_affine_t *host, size_t n);
void cuzk_gpu_g1_bases_free(cuzk_gpu_g1_bases_t *b);
size_t cuzk_gpu_g1_bases_count(const cuzk_gpu_g1_bases_t *b);

/* An MSM context: a stream plus scratch buffers that grow to the largest MSM seen and are
 * kept. One thread at a time. */
typedef struct cuzk_gpu_msm cuzk_gpu_msm_t;
cuzk_gpu_status_t cuzk_gpu_msm_new(cuzk_gpu_msm_t **out, int dev);
void cuzk_gpu_msm_free(cuzk_gpu_msm_t *ctx);

#define CUZK_GPU_MSM_SCALARS_MONT 1u      /* scalars are Fr in Montgomery form (else canonical) */
#define CUZK_GPU_MSM_SCALARS_ON_DEVICE 2u /* `scalars` is a device pointer (else host memory) */

/* out = sum_{i<n} scalars[i] * bases[offset + i]. Scalars: n elements of 4 little-endian u64
 * limbs, canonical (< r) unless SCALARS_MONT. window_bits = 0 picks the window size.
 * Returns when the result is on the host. */
cuzk_gpu_status_t cuzk_gpu_msm_g1(cuzk_gpu_msm_t *ctx, const cuzk_gpu_g1_bases_t *bases,
                                  size_t offset, const void *scalars, size_t n, unsigned flags,
                                  unsigned window_bits, cuzk_gpu_g1_jac_t *out);

/* Scalars 0 and 1 (the bulk of Filecoin witnesses) are split off unless this flag is set: ones
 * are summed by a bitmap-driven batch addition of their bases, zeros dropped, and only the
 * remaining scalars go through Pippenger (a compacted tail MSM indexing the same bases). The
 * result is the same point either way; the flag exists for benchmarks and tests. */
#define CUZK_GPU_MSM_NO_SPLIT01 4u

/* ---- G2 and MSM on G2 -----------------------------------------------------------------------
 * Affine G2 point over Fp2 = Fp[u]/(u^2+1): x = x0 + x1·u, each coordinate two Fp elements
 * (c0 then c1) in Montgomery form, the layout of core/ec's cuzk_g2_affine_t; all-zero is the
 * point at infinity. Jacobian result as for G1, coordinates in Fp2. */
typedef struct {
  uint64_t x[2][6], y[2][6];
} cuzk_gpu_g2_affine_t;
typedef struct {
  uint64_t x[2][6], y[2][6], z[2][6];
} cuzk_gpu_g2_jac_t;

typedef struct cuzk_gpu_g2_bases cuzk_gpu_g2_bases_t;
cuzk_gpu_status_t cuzk_gpu_g2_bases_new(cuzk_gpu_g2_bases_t **out, int dev,
                                        const cuzk_gpu_g2_affine_t *host, size_t n);
void cuzk_gpu_g2_bases_free(cuzk_gpu_g2_bases_t *b);
size_t cuzk_gpu_g2_bases_count(const cuzk_gpu_g2_bases_t *b);

/* out = sum_{i<n} scalars[i] * bases[offset + i] on G2; flags and window_bits as msm_g1. The
 * same MSM context serves both curves (one call at a time). */
cuzk_gpu_status_t cuzk_gpu_msm_g2(cuzk_gpu_msm_t *ctx, const cuzk_gpu_g2_bases_t *bases,
                                  size_t offset, const void *scalars, size_t n, unsigned flags,
                                  unsigned window_bits, cuzk_gpu_g2_jac_t *out);

/* ---- Poseidon over Fr ------------------------------------------------------------------------
 * neptune's permutation exactly as core/hash/poseidon.c's cuzk_poseidon_permute (width
 * t = arity + 1, R_F full rounds around R_P partial ones, S-box x^5, dense MDS); the hash of
 * x_1..x_arity is state[1] after permuting [tag, x_1..x_arity]. Fr elements are 4 u64 limbs,
 * Montgomery, as core's cuzk_fr_t. A context belongs to one device, one arity and one thread at
 * a time; it owns a stream, the constants (uploaded once by _new) and scratch buffers grown on
 * demand (at most ~1.5 GiB for chunk roots, ~1.2 GiB for hash_host) until _free. */
typedef struct cuzk_gpu_poseidon cuzk_gpu_poseidon_t;

/* Context for `arity` (2, 4, 8 or 11) with round constants rc[(full + partial)·t] in the order
 * they are added, the MDS matrix mds[t·t] row-major (mds[i·t + j] multiplies state[i] into
 * output j: cuzk_poseidon_params_t.mds[i][j]) and the domain tag (one Fr); all Montgomery Fr,
 * copied. CUZK_ERR_INVALID_ARG for an unsupported arity or odd/zero full rounds. */
cuzk_gpu_status_t cuzk_gpu_poseidon_new(cuzk_gpu_poseidon_t **out, int dev, unsigned arity,
                                        unsigned full_rounds, unsigned partial_rounds,
                                        const uint64_t *rc, const uint64_t *mds,
                                        const uint64_t *tag);
void cuzk_gpu_poseidon_free(cuzk_gpu_poseidon_t *ctx);

/* out[i] = hash(in[arity·i .. arity·i + arity)) for i < n (n <= 2^36), device arrays, `out`
 * not overlapping `in`. Returns when done. */
cuzk_gpu_status_t cuzk_gpu_poseidon_hash_device(cuzk_gpu_poseidon_t *ctx, void *d_out,
                                                const void *d_in, size_t n);
/* The same from and to host arrays (n·arity and n Fr). */
cuzk_gpu_status_t cuzk_gpu_poseidon_hash_host(cuzk_gpu_poseidon_t *ctx, uint64_t *out,
                                              const uint64_t *in, size_t n);

/* Leaves first..first+n-1 of core/filecoin/post_gen's random sector (leaf i: the 8 splitmix64
 * outputs after 8·i draws from `seed`, 64 bytes little-endian reduced mod r like
 * cuzk_fr_from_le_wide), drawn on the device, into the host array out[n]. */
cuzk_gpu_status_t cuzk_gpu_poseidon_leaves_host(cuzk_gpu_poseidon_t *ctx, uint64_t *out,
                                                uint64_t seed, uint64_t first, size_t n);

/* roots[k] (host, count Fr) = root of chunk first + k of that sector: its chunk_leaves leaves
 * (drawn on the device) hashed up `levels` levels, level l of arity level_arity[l] (each must
 * be the context's arity; their product is chunk_leaves; levels = 0 means chunk_leaves = 1 and
 * the roots are the leaves). Works in batches of whole chunks (about 2^25 first-level nodes,
 * one kernel per level over the batch); at most 2^27 first-level nodes per chunk and 2^40
 * leaves. CUZK_ERR_INVALID_ARG for other shapes. Returns when done. */
cuzk_gpu_status_t cuzk_gpu_poseidon_chunk_roots(cuzk_gpu_poseidon_t *ctx, uint64_t *roots,
                                                uint64_t seed, uint64_t first, uint64_t count,
                                                uint64_t chunk_leaves,
                                                const unsigned *level_arity, unsigned levels);

#ifdef __cplusplus
}
#endif

#endif
