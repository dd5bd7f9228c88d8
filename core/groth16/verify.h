/* Groth16 verification: e(A, B) = e(α₁, β₂) · e(Σ xᵢ·ICᵢ, γ₂) · e(C, δ₂), with x₀ = 1.
 *
 * A prepared key caches e(α₁, β₂) and the Miller-loop lines of −γ₂ and −δ₂, so one proof costs
 * one 3-pair Miller loop and one final exponentiation. Batch verification of k proofs of one key
 * draws 128-bit weights ρ from OpenSSL's CSPRNG and checks
 *   Π e(ρₖAₖ, Bₖ) · e(Σρₖaccₖ, −γ₂) · e(ΣρₖCₖ, −δ₂) = e(α₁, β₂)^(Σρₖ)
 * with one multi-pairing (k + 2 pairs).
 *
 * Ownership: a prepared key owns a copy of the IC; free with cuzk_groth16_pvk_free. Immutable
 * after prepare; any thread may verify with it concurrently. Proof points must come from the
 * checked decoders (subgroup-checked); public inputs are Fr elements (reduced by construction:
 * parse them with cuzk_groth16_public_from_decimal or cuzk_fr_from_be, which reject values >= r).
 */
#ifndef CUZK_GROTH16_VERIFY_H
#define CUZK_GROTH16_VERIFY_H

#include "core/ff/fp12.h"
#include "core/groth16/groth16.h"
#include "core/pairing/pairing.h"

typedef struct cuzk_groth16_pvk cuzk_groth16_pvk_t;

/* NULL with errstr on no memory or a vk without IC. */
cuzk_groth16_pvk_t *cuzk_groth16_pvk_new(const cuzk_groth16_vk_t *vk, char *errstr,
                                         size_t errstr_size);
void cuzk_groth16_pvk_free(cuzk_groth16_pvk_t *pvk);
/* Number of public inputs the key expects (excluding ONE). */
size_t cuzk_groth16_pvk_num_public(const cuzk_groth16_pvk_t *pvk);

/* CUZK_OK when valid; CUZK_ERR_VERIFY_FAILED when not; CUZK_ERR_INVALID_ARG when n_public
 * differs from the key's; CUZK_ERR_BAD_PROOF for a proof point at infinity. `pub` excludes ONE. */
cuzk_err_t cuzk_groth16_verify(const cuzk_groth16_pvk_t *pvk, const cuzk_groth16_proof_t *proof,
                               const cuzk_fr_t *pub, size_t n_public);

/* k proofs, proof i with public inputs pub[i·n_public ..]. CUZK_OK when all are valid (with
 * probability 1 - 2^-128 over the weights), CUZK_ERR_VERIFY_FAILED otherwise (some proof is
 * invalid; verify singly to find which), other errors as cuzk_groth16_verify, CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_groth16_verify_batch(const cuzk_groth16_pvk_t *pvk,
                                     const cuzk_groth16_proof_t *proofs, size_t k,
                                     const cuzk_fr_t *pub, size_t n_public);

#endif
