/* snarkjs JSON for BLS12-381 (curve "bls12381"), so `snarkjs groth16 verify` can check our
 * proofs. Layout confirmed in snarkjs 0.7.6 (src/groth16_verify.js reads vk_alpha_1, vk_beta_2,
 * vk_gamma_2, vk_delta_2, IC, pi_a, pi_b, pi_c through curve.G1/G2.fromObject) and ffjavascript
 * (wasm_curve.js fromObject: [x, y, z] with z = 1 affine, z = 0 infinity; wasm_field2.js
 * fromObject: [c0, c1]). Field elements are decimal strings of canonical integers:
 *   G1  ["x", "y", "1"]                                   (infinity: ["0", "1", "0"])
 *   G2  [["x.c0", "x.c1"], ["y.c0", "y.c1"], ["1", "0"]]  (infinity:
 * [["0","0"],["1","0"],["0","0"]]) Each function returns a malloc'd NUL-terminated string (caller
 * frees) or NULL on no memory.
 */
#ifndef CUZK_GROTH16_SNARKJS_H
#define CUZK_GROTH16_SNARKJS_H

#include "core/groth16/groth16.h"

char *cuzk_snarkjs_vk_json(const cuzk_groth16_vk_t *vk);
char *cuzk_snarkjs_proof_json(const cuzk_groth16_proof_t *proof);
/* ["x1", "x2", ...] for the public inputs without ONE. */
char *cuzk_snarkjs_public_json(const cuzk_fr_t *pub, size_t n);

/* Parses a JSON array of decimal strings (as written above) into *out (malloc'd, caller frees).
 * CUZK_ERR_PARSE on malformed text, CUZK_ERR_NON_CANONICAL for a value >= r, CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_snarkjs_public_parse(cuzk_fr_t **out, size_t *n, const char *json);

#endif
