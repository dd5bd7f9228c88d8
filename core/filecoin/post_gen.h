/* Test-data generator: a PoSt vanilla proof for a sector of random data, built with our own
 * Poseidon tree code, for sector shapes without sub/top trees (2KiB..512MiB: 8-0-0). There is
 * no real 2KiB vanilla proof among the shared vectors; this one lets the 2KiB circuits be
 * proven and verified end to end.
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

#include "core/filecoin/post.h"
#include "core/util/err.h"

/* Writes the bincode FallbackPoStSectorProof (single-tree MerkleProofs, tag 0) into a malloc'd
 * buffer (*out, *out_len; caller frees). CUZK_ERR_UNSUPPORTED for shapes with sub/top trees or
 * more than 2^24 leaves, CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_filecoin_post_gen(uint8_t **out, size_t *out_len,
                                  const cuzk_post_proof_info_t *info,
                                  const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t sector_index, uint64_t seed, char *errstr,
                                  size_t errstr_size);

#endif
