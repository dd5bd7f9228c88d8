/* Test-data generator: a PoSt vanilla proof for a sector of random data, built with our own
 * Poseidon tree code, for every tree shape (8-0-0 up to 512MiB, 8-8-0 at 32GiB, 8-8-2 at 64GiB).
 * There is no real 2KiB vanilla proof among the shared vectors; this one lets the circuits be
 * proven and verified end to end.
 *
 * Streaming: the sector is never held. Leaves are drawn from the seed by position; the tree is
 * hashed in chunks of at most 2^18 leaves (one chunk per task on the global pool, ~10 MiB each),
 * recording the siblings of the challenged leaves, then the chunk roots (2^12 at 32GiB) are
 * hashed up in memory. An 8-8-0 / 8-8-2 root equals the arity-8 (then 2) tree over all leaves:
 * the sub and top levels hash the base roots with the same Merkle Poseidon; only the proof's
 * encoding differs (MerkleProof tag 1 / 2 with base, sub, top paths).
 *
 * The sector: leaves are uniform canonical Fr drawn from `seed` (splitmix64 + wide reduction),
 * tree R = Poseidon arity-8 Merkle tree over them, comm_r_last its root, comm_c drawn from the
 * seed, comm_r = Poseidon2(comm_c, comm_r_last). The challenged leaves are
 * cuzk_filecoin_sector_challenges(info, randomness, sector_id, sector_index).
 *
 * Threads: reentrant.
 */
#ifndef CUZK_FILECOIN_POST_GEN_H
#define CUZK_FILECOIN_POST_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"
#include "core/filecoin/post.h"
#include "core/util/err.h"

/* Writes the bincode FallbackPoStSectorProof (MerkleProof tag by shape) into a malloc'd buffer
 * (*out, *out_len; caller frees). CUZK_ERR_UNSUPPORTED when the shape does not hold the sector's
 * leaves, CUZK_ERR_NOMEM. Threads: runs the global pool (cuzk_pool_global). */
cuzk_err_t cuzk_filecoin_post_gen(uint8_t **out, size_t *out_len,
                                  const cuzk_post_proof_info_t *info, const uint8_t randomness[32],
                                  uint64_t sector_id, uint64_t sector_index, uint64_t seed,
                                  char *errstr, size_t errstr_size);

/* The same with chunks of at most max_chunk_leaves leaves (>= 1; tests use small chunks to
 * exercise the chunk/upper split). The output does not depend on the chunk size. */
cuzk_err_t cuzk_filecoin_post_gen_chunked(uint8_t **out, size_t *out_len,
                                          const cuzk_post_proof_info_t *info,
                                          const uint8_t randomness[32], uint64_t sector_id,
                                          uint64_t sector_index, uint64_t seed,
                                          uint64_t max_chunk_leaves, char *errstr,
                                          size_t errstr_size);

/* A provider of chunk roots (e.g. the GPU): writes roots[k] (Montgomery Fr) = root of chunk
 * first + k, k < count, of the sector drawn from `seed`: leaves first·chunk_leaves .. (as
 * cuzk_filecoin_post_gen_leaf) hashed up `levels` Merkle-Poseidon levels, level l of arity
 * level_arity[l] (product chunk_leaves; levels = 0: the roots are the leaves). Returns CUZK_OK
 * or an error with errstr set. Called once, on a thread of its own (concurrently with the
 * CPU's chunk hashing on the global pool). */
typedef cuzk_err_t (*cuzk_post_gen_roots_fn)(void *ctx, cuzk_fr_t *roots, uint64_t seed,
                                             uint64_t first, uint64_t count,
                                             uint64_t chunk_leaves, const unsigned *level_arity,
                                             unsigned levels, char *errstr, size_t errstr_size);

typedef struct {
  cuzk_post_gen_roots_fn roots;
  void *ctx;
} cuzk_post_gen_provider_t;

/* cuzk_filecoin_post_gen_chunked with an optional provider (NULL: CPU only). With one, the
 * provider computes every chunk root in one call while the CPU hashes only the chunks that
 * hold challenged leaves (for their paths); then the CPU's roots of those are compared with the
 * provider's: any difference is CUZK_ERR_CHECKSUM ("chunk root mismatch"). The output bytes
 * equal the CPU-only generator's. A provider error is returned as it is. */
cuzk_err_t cuzk_filecoin_post_gen_ext(uint8_t **out, size_t *out_len,
                                      const cuzk_post_proof_info_t *info,
                                      const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t sector_index, uint64_t seed,
                                      uint64_t max_chunk_leaves,
                                      const cuzk_post_gen_provider_t *provider, char *errstr,
                                      size_t errstr_size);

/* Leaf i of the sector drawn from `seed`: the 8 splitmix64 outputs after 8·i draws, as 64
 * bytes little-endian, reduced by cuzk_fr_from_le_wide. */
void cuzk_filecoin_post_gen_leaf(cuzk_fr_t *out, uint64_t seed, uint64_t i);

/* The CPU chunk roots with the provider's contract (a reference provider; single-threaded,
 * `ctx` unused). CUZK_ERR_INVALID_ARG when the arities do not multiply to chunk_leaves,
 * CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_filecoin_post_gen_roots_cpu(void *ctx, cuzk_fr_t *roots, uint64_t seed,
                                            uint64_t first, uint64_t count,
                                            uint64_t chunk_leaves, const unsigned *level_arity,
                                            unsigned levels, char *errstr, size_t errstr_size);

#endif
