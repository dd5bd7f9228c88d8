/* PoSt vanilla proofs as Filecoin's prover emits them: bincode (little-endian, u64 lengths, u32
 * enum tags) of storage-proofs-post `FallbackPoStSectorProof`:
 *
 *   sector_id u64 | comm_r [32] | sectors: u64 n, n x SectorProof
 *   SectorProof  = inclusion_proofs: u64 n, n x MerkleProof | comm_c [32] | comm_r_last [32]
 *   MerkleProof  = u32 tag: 0 single: root, leaf, path
 *                           1 sub:    base path, sub path, root, leaf
 *                           2 top:    base path, sub path, top path, root, leaf
 *   path         = u64 n, n x { u64 k, k x hash [32], index u64 }   (siblings; index in the node)
 *
 * Layout as documented by filecoin-project/curio lib/proof/{post,porep}_vproof_bin_decode.go.
 * Every 32-byte domain element is a little-endian canonical Fr; the decoder rejects others.
 *
 * Ownership: a decoded cuzk_vanilla_post_t owns all its memory; free with cuzk_vanilla_post_free.
 * Threads: decoding and verification are reentrant; a decoded value may be read from any thread.
 */
#ifndef CUZK_FILECOIN_VANILLA_H
#define CUZK_FILECOIN_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "core/filecoin/post.h"
#include "core/util/err.h"

/* Inputs larger than this are rejected (CUZK_ERR_TOO_LARGE) before decoding. */
#define CUZK_VANILLA_MAX_BYTES (UINT64_C(1) << 32)

typedef struct {
  uint8_t (*hashes)[32]; /* the n_hashes siblings, in order, with the current node left out */
  size_t n_hashes;
  uint64_t index; /* position of the current node among the arity inputs */
} cuzk_vanilla_path_elem_t;

typedef struct {
  cuzk_vanilla_path_elem_t *elems; /* leaf level first */
  size_t len;
} cuzk_vanilla_path_t;

typedef enum {
  CUZK_MERKLE_SINGLE = 0,
  CUZK_MERKLE_SUB = 1,
  CUZK_MERKLE_TOP = 2,
} cuzk_merkle_kind_t;

typedef struct {
  cuzk_merkle_kind_t kind;
  cuzk_vanilla_path_t base, sub, top; /* sub/top empty where the kind has none */
  uint8_t root[32];
  uint8_t leaf[32];
} cuzk_merkle_proof_t;

typedef struct {
  cuzk_merkle_proof_t *proofs; /* one per challenge */
  size_t n_proofs;
  uint8_t comm_c[32];
  uint8_t comm_r_last[32];
} cuzk_sector_proof_t;

typedef struct {
  uint64_t sector_id;
  uint8_t comm_r[32];
  cuzk_sector_proof_t *sectors;
  size_t n_sectors;
} cuzk_post_sector_proof_t;

typedef struct cuzk__arena cuzk__arena_t;

typedef struct {
  cuzk_post_sector_proof_t *items;
  size_t n_items;
  cuzk__arena_t *arena_;
} cuzk_vanilla_post_t;

/* Decodes exactly one FallbackPoStSectorProof occupying all of buf[0..len).
 * Every declared length is bounded against the remaining bytes before anything is allocated.
 * Errors (message naming the field and byte offset in errstr): CUZK_ERR_TRUNCATED when a field
 * or a declared number of items runs past the end, CUZK_ERR_TOO_LARGE when a declared length
 * could not fit in any input of CUZK_VANILLA_MAX_BYTES or the input exceeds that size,
 * CUZK_ERR_BAD_VANILLA for an unknown enum tag, a non-canonical field element or trailing bytes,
 * CUZK_ERR_NOMEM. *out is NULL on error. */
cuzk_err_t cuzk_vanilla_post_decode(cuzk_vanilla_post_t **out, const uint8_t *buf, size_t len,
                                    char *errstr, size_t errstr_size);

/* Same for a bincode Vec<FallbackPoStSectorProof> (u64 count, then the items). */
cuzk_err_t cuzk_vanilla_post_decode_vec(cuzk_vanilla_post_t **out, const uint8_t *buf, size_t len,
                                        char *errstr, size_t errstr_size);

void cuzk_vanilla_post_free(cuzk_vanilla_post_t *v);

/* Checks one inclusion proof against `shape`: the variant and every path length, sibling count
 * and index must match the shape (CUZK_ERR_BAD_VANILLA otherwise); hashing the leaf up the path
 * (Poseidon Merkle hashes of each level's arity) must give the proof's root and, when
 * expected_root is non-NULL, that root (CUZK_ERR_VERIFY_FAILED otherwise). *leaf_index (when
 * non-NULL) receives the leaf position the path indices spell, also on VERIFY_FAILED. */
cuzk_err_t cuzk_vanilla_merkle_verify(const cuzk_merkle_proof_t *p, const cuzk_tree_shape_t *shape,
                                      const uint8_t expected_root[32], uint64_t *leaf_index,
                                      char *errstr, size_t errstr_size);

/* comm_r == Poseidon2(comm_c, comm_r_last) (all little-endian domain bytes):
 * CUZK_OK or CUZK_ERR_VERIFY_FAILED; CUZK_ERR_NON_CANONICAL for bad encodings. When computed is
 * non-NULL it receives Poseidon2(comm_c, comm_r_last). */
cuzk_err_t cuzk_vanilla_comm_r_check(const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                                     const uint8_t comm_r[32], uint8_t computed[32]);

#endif
