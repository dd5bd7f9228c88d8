/* Radix-2 number-theoretic transforms over Fr and the Groth16 quotient polynomial H.
 *
 * An evaluation domain of size n = 2^k (k <= 32, Fr's 2-adicity) is the subgroup
 * {ω^i : 0 <= i < n} for ω = 7^((r-1)/n) (cuzk_fr_root_of_unity), together with the coset
 * g·{ω^i} for g = 7, the multiplicative generator. On that coset the vanishing polynomial
 * Z(x) = x^n - 1 is the constant g^n - 1.
 *
 * All transforms work in place on n elements in natural order:
 *   forward          a_i <- Σ_j a_j ω^(ij)          (coefficients -> values on the subgroup)
 *   inverse          a_i <- n^-1 Σ_j a_j ω^(-ij)    (values -> coefficients)
 *   coset forward    a_i <- Σ_j a_j (g ω^i)^j       (coefficients -> values on the coset)
 *   coset inverse    inverse of the above
 * Large transforms are spread over the worker threads (core/poly/par.h).
 *
 * Ownership and threads: a domain is immutable after cuzk_domain_new and may be shared by any
 * number of threads; transforms on distinct arrays may run concurrently. The twiddle table
 * holds n/2 elements (32 B each: 2 GiB at n = 2^27).
 */
#ifndef CUZK_POLY_NTT_H
#define CUZK_POLY_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"
#include "core/util/err.h"

typedef struct {
  uint64_t n; /* 2^log_n */
  unsigned log_n;
  cuzk_fr_t omega; /* primitive n-th root of unity */
  cuzk_fr_t omega_inv;
  cuzk_fr_t n_inv;
  cuzk_fr_t g; /* coset shift: the multiplicative generator 7 */
  cuzk_fr_t g_inv;
  cuzk_fr_t z_coset; /* Z(g ω^i) = g^n - 1 for every i */
  cuzk_fr_t z_coset_inv;
  cuzk_fr_t *tw; /* tw[i] = ω^i for 0 <= i < n/2 (tw[0] alone when n = 1) */
} cuzk_domain_t;

/* The smallest domain with n >= min_size (min_size >= 1). CUZK_ERR_TOO_LARGE above 2^32,
 * CUZK_ERR_NOMEM. The caller frees with cuzk_domain_free. */
cuzk_err_t cuzk_domain_new(cuzk_domain_t **out, uint64_t min_size, char *errstr,
                           size_t errstr_size);
void cuzk_domain_free(cuzk_domain_t *d);

void cuzk_ntt_forward(const cuzk_domain_t *d, cuzk_fr_t *a);
void cuzk_ntt_inverse(const cuzk_domain_t *d, cuzk_fr_t *a);
void cuzk_ntt_coset_forward(const cuzk_domain_t *d, cuzk_fr_t *a);
void cuzk_ntt_coset_inverse(const cuzk_domain_t *d, cuzk_fr_t *a);

/* Groth16's H from the QAP evaluations on the subgroup (a, b, c as written by
 * cuzk_r1cs_spmv, n elements each): iNTT a, b, c; coset NTT a, b, c;
 * a_i <- (a_i b_i - c_i) / (g^n - 1); coset iNTT a. On return a holds the coefficients of
 * h(x) = (A(x)B(x) - C(x)) / (x^n - 1), of which the first n-1 are used (with the n-1 `h`
 * bases); b and c are clobbered. Returns CUZK_ERR_UNSATISFIED when a[n-1] != 0, which cannot
 * happen for a satisfied system (deg h <= n-2). */
cuzk_err_t cuzk_poly_groth16_h(const cuzk_domain_t *d, cuzk_fr_t *a, cuzk_fr_t *b, cuzk_fr_t *c);

#endif
