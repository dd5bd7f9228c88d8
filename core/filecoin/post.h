/* Filecoin Proof-of-Spacetime facts: registered proof types and challenge derivation.
 *
 * RegisteredPoStProof numbers are the chain's (go-state-types abi/sector.go): Winning 2KiB..64GiB
 * V1 = 0..4, Window 2KiB..64GiB V1 = 5..9, Window V1_1 = 10..14 (named V1_2 in
 * rust-filecoin-proofs-api src/registry.rs, ApiVersion 1.2.0: the grindability fix).
 * Tree shapes: filecoin-proofs src/constants.rs (SectorShape*); sectors per WindowPoSt partition:
 * WINDOW_POST_SECTOR_COUNT there; challenge counts WINDOW_POST_CHALLENGE_COUNT = 10,
 * WINNING_POST_CHALLENGE_COUNT = 66 (one sector).
 *
 * Threads: pure functions and static tables, safe from any thread.
 */
#ifndef CUZK_FILECOIN_POST_H
#define CUZK_FILECOIN_POST_H

#include <stdint.h>

#include "core/util/err.h"

#define CUZK_FILECOIN_NODE_SIZE 32

typedef enum {
  CUZK_POST_WINNING = 0,
  CUZK_POST_WINDOW = 1,
} cuzk_post_kind_t;

/* Challenge-index rule (storage-proofs-post src/fallback/utils.rs get_challenge_index). */
typedef enum {
  CUZK_POST_API_V1_0 = 0, /* index = sector_index * challenges_per_sector + n (V1_0, V1_1) */
  CUZK_POST_API_V1_2 = 1, /* index = n */
} cuzk_post_api_t;

typedef struct {
  unsigned base_arity; /* 8 */
  unsigned sub_arity;  /* 0 when absent */
  unsigned top_arity;  /* 0 when absent */
  unsigned
      base_height; /* levels of the base trees: leaves per base tree = base_arity^base_height */
} cuzk_tree_shape_t;

typedef struct {
  int id;           /* RegisteredPoStProof */
  const char *name; /* e.g. "StackedDrgWindow32GiBV1_1" (go-state-types spelling) */
  cuzk_post_kind_t kind;
  cuzk_post_api_t api;
  uint64_t sector_size; /* bytes */
  cuzk_tree_shape_t shape;
  unsigned challenges_per_sector; /* in the vanilla proof: 10 (window), 66 (winning) */
  unsigned sectors_per_partition; /* window: WINDOW_POST_SECTOR_COUNT; winning: 1 */
} cuzk_post_proof_info_t;

/* The facts of RegisteredPoStProof `id`, or NULL when unknown. */
const cuzk_post_proof_info_t *cuzk_filecoin_post_info(int64_t id);

/* Leaves (32-byte nodes) of a sector: sector_size / 32. */
uint64_t cuzk_filecoin_sector_leaves(uint64_t sector_size);

/* The challenge index of challenge `n` of the sector at position `sector_index` (counted over
 * the whole proof, across partitions) under `api`. */
uint64_t cuzk_filecoin_challenge_index(cuzk_post_api_t api, uint64_t sector_index,
                                       unsigned challenges_per_sector, unsigned n);

/* The challenged leaf: SHA-256(randomness || sector_id u64 LE || challenge_index u64 LE), first
 * 8 bytes as u64 LE, mod leaves (storage-proofs-post src/fallback/vanilla.rs
 * generate_leaf_challenge). `randomness` is the 32-byte domain element as given to the prover
 * (already fr32-masked; see cuzk_filecoin_randomness_mask). Asserts leaves > 0. */
uint64_t cuzk_filecoin_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t challenge_index, uint64_t leaves);

/* All challenged leaves of one sector: out[n] for n < info->challenges_per_sector, with the
 * challenge-index rule of info->api; `sector_index` is the sector's position in the whole proof
 * (partition * sectors_per_partition + position in the partition; 0 for WinningPoSt). */
void cuzk_filecoin_sector_challenges(uint64_t *out, const cuzk_post_proof_info_t *info,
                                     const uint8_t randomness[32], uint64_t sector_id,
                                     uint64_t sector_index);

/* Clears the two top bits of byte 31 (randomness[31] &= 0x3f), as Lotus and Curio do before
 * handing chain randomness to the prover, so that it is a canonical Fr (little-endian). */
void cuzk_filecoin_randomness_mask(uint8_t randomness[32]);

#endif
