/* Poseidon over Fr (BLS12-381 scalar field) exactly as Filecoin uses it (neptune).
 *
 * Width t = arity + 1, S-box x^5, R_F = 8 full rounds (4 before, 4 after the partial rounds),
 * R_P = 55, 56, 57, 57 partial rounds for arity 2, 4, 8, 11. Every round adds t round constants,
 * applies the S-box (to all elements in full rounds, to element 0 in partial rounds) and
 * multiplies by the Cauchy MDS matrix M[i][j] = 1/(x_i + y_j), x_i = i, y_j = t + j
 * (neptune src/mds.rs generate_mds). Round constants come from the Grain LFSR of the Poseidon
 * paper with field=1, sbox=1, n=255, t, R_F, R_P (neptune src/round_constants.rs).
 * The hash of inputs x_1..x_arity is state[1] after permuting [tag, x_1, ..., x_arity]; the
 * Merkle-tree tag is 2^arity - 1 (neptune src/hash_type.rs HashType::MerkleTree); custom tags
 * are id * 2^40 (neptune >= 8 CType::Arbitrary; SnapDeals' H_gen uses id 1).
 *
 * Parameters are generated on first use of an arity (pthread_once) and live for the process.
 * Threads: every function is safe from any thread.
 */
#ifndef CUZK_HASH_POSEIDON_H
#define CUZK_HASH_POSEIDON_H

#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"
#include "core/util/err.h"

#define CUZK_POSEIDON_MAX_WIDTH 12
#define CUZK_POSEIDON_FULL_ROUNDS 8

/* Immutable parameters of one arity. `rc` holds (full_rounds + partial_rounds) * width constants
 * in the order they are added (round by round, element 0 first); `mds[i][j]` as above. */
typedef struct {
  unsigned arity;
  unsigned width;
  unsigned full_rounds;
  unsigned partial_rounds;
  const cuzk_fr_t *rc;
  cuzk_fr_t mds[CUZK_POSEIDON_MAX_WIDTH][CUZK_POSEIDON_MAX_WIDTH];
  cuzk_fr_t merkle_tag; /* 2^arity - 1 */
} cuzk_poseidon_params_t;

/* True for the arities Filecoin uses: 2, 4, 8, 11. */
int cuzk_poseidon_arity_supported(unsigned arity);

/* The parameters of `arity` (generated once, never freed), or NULL for an unsupported arity or
 * when the first generation could not allocate. */
const cuzk_poseidon_params_t *cuzk_poseidon_params(unsigned arity);

/* Permutes state[0..width) in place: the textbook round structure (reference, and the form the
 * R1CS gadget follows). */
void cuzk_poseidon_permute(const cuzk_poseidon_params_t *p, cuzk_fr_t *state);

/* The same permutation with sparse partial-round matrices (about 3x fewer multiplications);
 * `p` must come from cuzk_poseidon_params. The hash functions below use this one. */
void cuzk_poseidon_permute_fast(const cuzk_poseidon_params_t *p, cuzk_fr_t *state);

/* out = state[1] of the permutation of [tag, in[0..arity)]. Asserts a supported arity. */
void cuzk_poseidon_hash_tagged(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *tag,
                               const cuzk_fr_t *in);

/* Merkle-tree hash (tag 2^arity - 1) of in[0..arity). Asserts a supported arity. */
void cuzk_poseidon_hash(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *in);

/* The custom domain tag id * 2^40 (neptune CType::Arbitrary(id)). */
void cuzk_poseidon_custom_tag(cuzk_fr_t *out, uint64_t id);

/* out[i] = Merkle-tree hash of in[arity*i .. arity*i + arity) for i < n: the same values as n
 * calls of cuzk_poseidon_hash, with the parameters looked up once. The entry point for tree
 * builders (a vectorized many-hash kernel would go here). `out` must not overlap `in`.
 * Asserts a supported arity. */
void cuzk_poseidon_hash_many(cuzk_fr_t *out, unsigned arity, const cuzk_fr_t *in, size_t n);

/* 256x256-bit products in one permutation: of cuzk_poseidon_permute_fast (ref = 0) or of the
 * textbook cuzk_poseidon_permute (ref = 1). */
unsigned cuzk_poseidon_mul_count(const cuzk_poseidon_params_t *p, int ref);

/* Internal (cuzk bench poseidon): ns spent in the parts of one fast permutation, each timed
 * over `iters` repetitions. */
typedef struct {
  double full_rounds_ns;    /* all R_F full rounds (S-boxes, MDS, constants) */
  double partial_rounds_ns; /* all R_P partial rounds */
  double mds_ns;            /* one dense t x t MDS product */
  double sbox_ns;           /* one x^5 */
} cuzk_poseidon_parts_t;
void cuzk__poseidon_parts(cuzk_poseidon_parts_t *out, unsigned arity, long iters);

/* Merkle-tree hash on Filecoin's domain encoding: `in` holds arity 32-byte little-endian
 * canonical field elements back to back; writes 32 bytes little-endian. CUZK_ERR_NON_CANONICAL
 * when an input is not below r, CUZK_ERR_INVALID_ARG for an unsupported arity. */
cuzk_err_t cuzk_poseidon_hash_le(uint8_t out[32], unsigned arity, const uint8_t *in);

#endif
