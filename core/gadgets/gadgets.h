/* R1CS gadgets shaped exactly like the ones Filecoin's circuits use (bellperson boolean/num/
 * multipack, storage-proofs-core insertion/constraint, neptune's Poseidon circuit), so circuits
 * built from them have rust-fil-proofs' constraint and public-input counts and order.
 *
 * A cuzk_num_t / cuzk_bit_t is a variable plus its value; the value is meaningful only when the
 * builder keeps values (CUZK_CS_WITNESS) and is ignored otherwise. Linear combinations are built
 * only when the builder records (CUZK_CS_RECORD); in COUNT mode gadgets only count.
 *
 * Costs (constraints): bit alloc 1, and/nor 1, pick 1, inputize 1, equal 1, to_bits_le 256,
 * pack_into_input 1, insert 2/4/8 = 2/8/22, Poseidon arity 2/4/8/11 = 311/377/505/598.
 *
 * Threads: like the builder, one synthesis per thread. No gadget allocates heap memory beyond
 * what the builder does.
 */
#ifndef CUZK_GADGETS_GADGETS_H
#define CUZK_GADGETS_GADGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ff/fr.h"
#include "core/r1cs/cs.h"

typedef struct {
  cuzk_var_t var;
  cuzk_fr_t val;
} cuzk_num_t;

typedef struct {
  cuzk_var_t var;
  bool val;
} cuzk_bit_t;

/* An aux variable holding `v` (NULL allowed when the builder keeps no values). No constraint. */
cuzk_num_t cuzk_num_alloc(cuzk_cs_t *cs, const cuzk_fr_t *v);

/* A new public input equal to x: x · 1 = input (bellperson AllocatedNum::inputize). */
cuzk_var_t cuzk_num_inputize(cuzk_cs_t *cs, const cuzk_num_t *x);

/* a · 1 = b (storage-proofs-core gadgets::constraint::equal). */
void cuzk_num_equal(cuzk_cs_t *cs, const cuzk_num_t *a, const cuzk_num_t *b);

/* A boolean aux variable with (1 - b) · b = 0 (bellperson AllocatedBit::alloc). */
cuzk_bit_t cuzk_bit_alloc(cuzk_cs_t *cs, bool v);
/* a AND b: a · b = r. */
cuzk_bit_t cuzk_bit_and(cuzk_cs_t *cs, const cuzk_bit_t *a, const cuzk_bit_t *b);
/* NOT a AND NOT b: (1 - a) · (1 - b) = r. */
cuzk_bit_t cuzk_bit_nor(cuzk_cs_t *cs, const cuzk_bit_t *a, const cuzk_bit_t *b);

/* cond ? a : b, one constraint (b - a) · cond = b - c (storage-proofs-core insertion::pick). */
cuzk_num_t cuzk_num_pick(cuzk_cs_t *cs, const cuzk_bit_t *cond, const cuzk_num_t *a,
                         const cuzk_num_t *b);

/* bits[0..255) = the little-endian bits of x: 255 booleans and one packing constraint
 * 0 · 0 = Σ 2^i bits_i - x, 256 constraints (bellperson AllocatedNum::to_bits_le, not the strict form:
 * it does not rule out the representation of x + r, which fits 255 bits for small x). */
#define CUZK_FR_NUM_BITS 255
void cuzk_num_to_bits_le(cuzk_cs_t *cs, cuzk_bit_t bits[CUZK_FR_NUM_BITS], const cuzk_num_t *x);

/* One public input Σ 2^i bits_i with the constraint (Σ 2^i bits_i) · 1 = input (bellperson
 * multipack::pack_into_inputs for at most 254 bits, the Fr capacity). Asserts n <= 254. */
cuzk_var_t cuzk_pack_into_input(cuzk_cs_t *cs, const cuzk_bit_t *bits, size_t n);

/* Inserts `element` among elements[0..arity-1) at the position spelled by bits[0..log2 arity)
 * (little-endian): out[0..arity). Arity 2, 4 or 8 with storage-proofs-core's hand-optimised
 * selections (2, 8, 22 constraints). Asserts a supported arity. */
void cuzk_insert(cuzk_cs_t *cs, cuzk_num_t *out, unsigned arity, const cuzk_num_t *element,
                 const cuzk_bit_t *bits, const cuzk_num_t *elements);

/* The Poseidon Merkle hash (tag 2^arity - 1) of in[0..arity) as neptune's circuit costs it:
 * the tag's first S-box is a constant, the inputs' first S-boxes take their round constant
 * inside the squaring (3 constraints each), every later S-box input is a linear combination
 * allocated with one constraint before x², x⁴, x⁵ (4 constraints), the MDS and round constants
 * stay in linear combinations, and the output is allocated with one constraint. Arity 2/4/8/11. */
cuzk_num_t cuzk_poseidon_gadget(cuzk_cs_t *cs, unsigned arity, const cuzk_num_t *in);

/* Merkle inclusion (storage-proofs-core gadgets::por, private root): allocates the leaf, then
 * per level (leaf level first, base then sub then top arities in `arities[0..levels)`) the
 * log2(arity) index bits of indices[l] (little-endian), the arity - 1 siblings (taken in order
 * from `siblings`), the insertion and the Poseidon hash; then packs all index bits into one
 * public input (the challenged leaf index) and enforces computed root · 1 = root.
 * Levels · log2 arity must be <= 254. */
#define CUZK_POR_MAX_LEVELS 32
void cuzk_por_gadget(cuzk_cs_t *cs, const cuzk_fr_t *leaf, const unsigned *arities, size_t levels,
                     const uint32_t *indices, const cuzk_fr_t *siblings, const cuzk_num_t *root);

#endif
