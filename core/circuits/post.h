/* Filecoin's FallbackPoSt circuit (storage-proofs-post src/fallback/circuit.rs) for WinningPoSt
 * and WindowPoSt, built with core/gadgets so that constraints, aux variables and public inputs
 * come in rust-fil-proofs' order. Per circuit sector:
 *   aux comm_r_last, comm_c, comm_r; public comm_r (inputize); Poseidon2(comm_c, comm_r_last)
 *   (311); comm_r · 1 = hash; then per challenge one PoR into tree R with root comm_r_last whose
 *   public input is the challenged leaf index (the packed path index bits).
 * WinningPoSt: 66 circuit sectors with 1 challenge each, all the one proven sector (its 66
 * inclusion proofs in order; filecoin-proofs swaps sector and challenge counts for winning).
 * WindowPoSt: sectors_per_partition circuit sectors with 10 challenges each; a partition with
 * fewer sectors is padded by repeating its last sector (FallbackPoStCompound::circuit).
 * Counts: WinningPoSt 66·(313 + c) and WindowPoSt S·(313 + 10·c) where c = 530·levels + 2.
 *
 * Witness values come from a decoded vanilla proof (core/filecoin/vanilla.h); without one
 * (COUNT / RECORD for setup) every value is zero and every path index 0.
 *
 * Threads: reentrant; one builder per thread.
 */
#ifndef CUZK_CIRCUITS_POST_H
#define CUZK_CIRCUITS_POST_H

#include <stddef.h>
#include <stdint.h>

#include "core/filecoin/post.h"
#include "core/filecoin/vanilla.h"
#include "core/r1cs/cs.h"
#include "core/util/err.h"

/* Per-level arities of tree R, leaf level first; returns the number of levels (<= 16). */
size_t cuzk_post_tree_levels(unsigned arities[16], const cuzk_tree_shape_t *shape);

/* One circuit sector: comm_r check, then challenges first .. first + count - 1 of `sp` (the
 * decoded sector; sp->sectors[0] holds its inclusion proofs), or a blank sector with `count`
 * challenges when sp is NULL. CUZK_ERR_BAD_VANILLA when the proof does not have the shape's
 * paths or too few challenges; otherwise the builder's sticky error. */
cuzk_err_t cuzk_post_circuit_sector(cuzk_cs_t *cs, const cuzk_tree_shape_t *shape,
                                    const cuzk_post_sector_proof_t *sp, size_t first, size_t count,
                                    char *errstr, size_t errstr_size);

/* The whole partition circuit for proof type `info`. `v` (may be NULL for a blank circuit) holds
 * the partition's sectors: exactly 1 for WinningPoSt (with 66 challenges), 1 ..
 * sectors_per_partition for WindowPoSt (10 challenges each). */
cuzk_err_t cuzk_post_circuit_build(cuzk_cs_t *cs, const cuzk_post_proof_info_t *info,
                                   const cuzk_vanilla_post_t *v, char *errstr, size_t errstr_size);

/* Expected counts (from the structure above) for a proof type: constraints and public inputs
 * excluding ONE. */
void cuzk_post_circuit_expected(uint64_t *constraints, uint64_t *public_inputs,
                                const cuzk_post_proof_info_t *info);

#endif
