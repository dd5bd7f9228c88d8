/* Groth16 over BLS12-381 with bellperson's conventions: keys, parameters, proofs, their file
 * formats, and the parameters.json digest check.
 *
 * Variables are numbered inputs first (input 0 = ONE) then aux, as in core/r1cs. Points are
 * affine with (0, 0) for infinity (core/ec).
 *
 * Formats (bellperson, all big-endian, every point uncompressed unless said otherwise):
 *   .vk      alpha_g1 (96) ‖ beta_g1 (96) ‖ beta_g2 (192) ‖ gamma_g2 (192) ‖ delta_g1 (96) ‖
 *            delta_g2 (192) ‖ u32 ic_len ‖ ic[ic_len] (96 each):
 *            868 + 96·ic_len bytes, ic_len = public inputs + 1 (ONE). Confirmed against
 *            bellperson's VerifyingKey::write (src/groth16/mod.rs).
 *   .params  vk ‖ (u32 len ‖ points) for h (G1), l (G1), a (G1), b_g1 (G1), b_g2 (G2).
 *            No point anywhere may be infinity (bellperson's reader rejects it); a, b_g1, b_g2
 *            omit the variables whose QAP polynomial is zero (density bitmaps).
 *   proof    A (48) ‖ B (96) ‖ C (48), compressed: 192 bytes; multi-partition proofs are the
 *            partitions' proofs concatenated.
 *
 * Insecure parameters: parameters from cuzk_groth16_setup (known toxic waste) are written with
 * a sidecar file "<params path>.insecure" (one text line saying why). The loader sets
 * params->insecure when the sidecar exists, and cuzk_groth16_params_check_secure refuses them
 * unless allowed. A sidecar rather than a field keeps the .params bytes identical to
 * bellperson's format.
 *
 * Trust rule for .params files (cuzk_groth16_params_load_known; the engine's SRS manager loads
 * through it). Decoding always checks the encoding and that every point is on its curve (≈ 0.4 µs
 * a G1 point). The subgroup checks cost ≥ 64 doublings a point (≈ 4,000 core-seconds for the
 * 5.9·10^7 points of a 2^24 circuit) and are skipped only for a *known* file: one whose
 * Blake2b digest (first 32 hex digits of Blake2b-512 of the whole file) equals the "digest" of
 * the entry named after the file in the parameters.json beside it. That is the rule
 * rust-fil-proofs applies to the published parameters, which it then reads unchecked. A file
 * with no entry, or with no parameters.json, is loaded with every check; a file whose digest
 * differs from its entry is refused (CUZK_ERR_CHECKSUM), never loaded. Test setups record their
 * own files (cuzk_groth16_params_save_digest + cuzk_groth16_digest_record), so a benchmark
 * that writes and then loads its parameters does not pay the checks; whoever can write
 * parameters.json is trusted as much as whoever publishes it.
 *
 * Ownership: cuzk_groth16_params_t and cuzk_groth16_vk_t own their arrays; free them with
 * cuzk_groth16_params_free / cuzk_groth16_vk_clear. After loading they are read-only and may
 * be shared by any number of threads. Decoders never allocate more than the input can hold:
 * every length prefix is checked against the remaining bytes first.
 */
#ifndef CUZK_GROTH16_GROTH16_H
#define CUZK_GROTH16_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ec/g1.h"
#include "core/ec/g2.h"
#include "core/ff/fr.h"
#include "core/r1cs/r1cs.h"
#include "core/util/err.h"

#define CUZK_GROTH16_PROOF_BYTES 192
#define CUZK_GROTH16_VK_FIXED_BYTES 868 /* 3·96 (G1) + 3·192 (G2) + 4 (u32 ic_len) */

typedef struct {
  cuzk_g1_affine_t alpha_g1, beta_g1, delta_g1;
  cuzk_g2_affine_t beta_g2, gamma_g2, delta_g2;
  cuzk_g1_affine_t *ic; /* n_ic = num_inputs (ONE included) */
  size_t n_ic;
} cuzk_groth16_vk_t;

typedef struct {
  cuzk_groth16_vk_t vk;
  cuzk_g1_affine_t *h;    /* n_h = domain size - 1 */
  cuzk_g1_affine_t *l;    /* one per aux variable */
  cuzk_g1_affine_t *a;    /* inputs (all), then aux with DENSITY_A_AUX */
  cuzk_g1_affine_t *b_g1; /* inputs with DENSITY_B_INPUT, then aux with DENSITY_B_AUX */
  cuzk_g2_affine_t *b_g2; /* same variables as b_g1 */
  size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
  bool insecure; /* from a test setup (sidecar marker present) */
} cuzk_groth16_params_t;

typedef struct {
  cuzk_g1_affine_t a;
  cuzk_g2_affine_t b;
  cuzk_g1_affine_t c;
} cuzk_groth16_proof_t;

/* Decoder flags. */
enum {
  CUZK_GROTH16_TRUSTED = 1u << 0, /* skip subgroup checks (on-curve is always checked) */
};

void cuzk_groth16_vk_clear(cuzk_groth16_vk_t *vk);
void cuzk_groth16_params_free(cuzk_groth16_params_t *p);

/* Serialized sizes. */
size_t cuzk_groth16_vk_size(const cuzk_groth16_vk_t *vk);
size_t cuzk_groth16_params_size(const cuzk_groth16_params_t *p);

/* Encodes into out[0 .. size) (the caller sizes it with the _size functions). */
void cuzk_groth16_vk_encode(uint8_t *out, const cuzk_groth16_vk_t *vk);
/* Multi-threaded. */
void cuzk_groth16_params_encode(uint8_t *out, const cuzk_groth16_params_t *p);

/* Decodes a vk from buf[0..len); *used receives the bytes consumed (may be NULL; the vk may
 * be followed by more data only when used != NULL, else trailing bytes are CUZK_ERR_PARSE).
 * Errors: CUZK_ERR_TRUNCATED, CUZK_ERR_BAD_PARAMS (an IC point at infinity), the point
 * decoders' errors (BAD_FLAGS, NON_CANONICAL, NOT_ON_CURVE, NOT_IN_SUBGROUP), CUZK_ERR_NOMEM.
 * On error *vk is zeroed. */
cuzk_err_t cuzk_groth16_vk_decode(cuzk_groth16_vk_t *vk, const uint8_t *buf, size_t len,
                                  size_t *used, unsigned flags, char *errstr, size_t errstr_size);

/* Decodes a whole .params image (no trailing bytes allowed: CUZK_ERR_PARSE). Points are decoded
 * in parallel; subgroup checks unless CUZK_GROTH16_TRUSTED. Errors as vk_decode, plus
 * CUZK_ERR_BAD_PARAMS for a point at infinity. On success *out is a new object (free with
 * cuzk_groth16_params_free); on error *out is NULL. insecure is false (see _load). */
cuzk_err_t cuzk_groth16_params_decode(cuzk_groth16_params_t **out, const uint8_t *buf, size_t len,
                                      unsigned flags, char *errstr, size_t errstr_size);

/* Maps and decodes the file at `path`, then sets ->insecure when "<path>.insecure" exists.
 * File errors as core/util/file.h. */
cuzk_err_t cuzk_groth16_params_load(cuzk_groth16_params_t **out, const char *path, unsigned flags,
                                    char *errstr, size_t errstr_size);
/* Reads a .vk file (limit 1 GiB). */
cuzk_err_t cuzk_groth16_vk_load(cuzk_groth16_vk_t *vk, const char *path, unsigned flags,
                                char *errstr, size_t errstr_size);

/* Writes atomically. params_save also writes (insecure) or removes (secure) the sidecar
 * marker according to p->insecure. The .params image is streamed: encoded on the pool one piece
 * (1/16 of the file, 4 KiB..64 MiB) at a time while a writer thread writes (and, for
 * save_digest, hashes) the previous piece, so the extra memory is two pieces. save_digest puts
 * the file's parameters.json digest (32 hex digits and a NUL, as cuzk_groth16_file_digest would
 * compute) into `digest` on success. Blocks the calling thread; starts and joins one thread. */
cuzk_err_t cuzk_groth16_params_save(const cuzk_groth16_params_t *p, const char *path, char *errstr,
                                    size_t errstr_size);
cuzk_err_t cuzk_groth16_params_save_digest(const cuzk_groth16_params_t *p, const char *path,
                                           char digest[33], char *errstr, size_t errstr_size);
cuzk_err_t cuzk_groth16_vk_save(const cuzk_groth16_vk_t *vk, const char *path, char *errstr,
                                size_t errstr_size);

/* CUZK_ERR_INSECURE_PARAMS when params->insecure and !allow_insecure, else CUZK_OK. */
cuzk_err_t cuzk_groth16_params_check_secure(const cuzk_groth16_params_t *params,
                                            bool allow_insecure);

/* Checks that the parameter vector lengths fit the circuit: n_ic = num_inputs,
 * n_h = domain - 1, n_l = num_aux, n_a = num_inputs + |A aux|, n_b_* = |B inputs| + |B aux|.
 * CUZK_ERR_BAD_PARAMS with a sentence naming the first mismatch. */
cuzk_err_t cuzk_groth16_params_match(const cuzk_groth16_params_t *p, const cuzk_r1cs_t *r,
                                     char *errstr, size_t errstr_size);

/* Proofs: 192 bytes, A ‖ B ‖ C compressed. decode rejects points at infinity (CUZK_ERR_BAD_PROOF)
 * and returns the point decoders' errors; subgroup checks unless CUZK_GROTH16_TRUSTED. */
void cuzk_groth16_proof_encode(uint8_t out[CUZK_GROTH16_PROOF_BYTES],
                               const cuzk_groth16_proof_t *p);
cuzk_err_t cuzk_groth16_proof_decode(cuzk_groth16_proof_t *p,
                                     const uint8_t in[CUZK_GROTH16_PROOF_BYTES], unsigned flags);
/* Splits a concatenation of n proofs: CUZK_ERR_BAD_PROOF when len is not a multiple of 192 or 0;
 * on success *out is malloc'd (caller frees) with *n proofs. */
cuzk_err_t cuzk_groth16_proofs_decode(cuzk_groth16_proof_t **out, size_t *n, const uint8_t *buf,
                                      size_t len, unsigned flags);

/* Parses a public input written as a decimal integer (snarkjs JSON): CUZK_ERR_PARSE for an
 * empty string or a non-digit, CUZK_ERR_NON_CANONICAL for a value >= r. */
cuzk_err_t cuzk_groth16_public_from_decimal(cuzk_fr_t *out, const char *dec);
/* Writes the canonical decimal form of a field element (Fp or Fr given as little-endian raw
 * limbs) into buf (>= 120 bytes). */
void cuzk_groth16_limbs_to_decimal(char *buf, size_t size, const uint64_t *limbs, size_t n);

/* Filecoin parameters.json: the digest of a file is the first 32 hex digits of its Blake2b-512
 * (rust-fil-proofs storage-proofs-core/src/parameter_cache.rs, read_cached_params: Blake2b with
 * default parameters, to_hex()[..32]). file_digest writes those 32 digits and a NUL. */
cuzk_err_t cuzk_groth16_file_digest(char out[33], const char *path, char *errstr,
                                    size_t errstr_size);
/* Looks up the entry named basename(path) in the parameters.json at json_path and compares its
 * "digest". CUZK_ERR_NOT_FOUND (no entry), CUZK_ERR_PARSE (entry without digest),
 * CUZK_ERR_CHECKSUM (mismatch), file errors. */
cuzk_err_t cuzk_groth16_digest_check(const char *json_path, const char *path, char *errstr,
                                     size_t errstr_size);

/* Adds the entry {"cid": "", "digest": digest, "sector_size": 0} named basename(params_path) to
 * the parameters.json at json_path (created when missing), or replaces the digest of an existing
 * entry; the file is rewritten atomically. For test setups recording their own files (see the
 * trust rule above). Not safe against another process updating the same file concurrently (one
 * update can be lost). CUZK_ERR_INVALID_ARG for a digest that is not 32 lowercase hex digits or
 * a name needing JSON escapes; CUZK_ERR_PARSE for a file that is not a JSON object or has an
 * entry without a digest; file errors. */
cuzk_err_t cuzk_groth16_digest_record(const char *json_path, const char *params_path,
                                      const char digest[33], char *errstr, size_t errstr_size);

/* Loads the .params at `path` by the trust rule above: when json_path (may be NULL) names a
 * parameters.json with an entry for basename(path), the file is mapped once, its digest is
 * computed on a thread of its own while the pool decodes the same bytes without subgroup checks,
 * and the result is kept only if the digests agree (else CUZK_ERR_CHECKSUM); otherwise (no
 * json_path, no such file, no entry) it is cuzk_groth16_params_load with every check. *trusted
 * (may be NULL) tells whether the subgroup checks were skipped. Errors as params_load, plus
 * CUZK_ERR_CHECKSUM and the parameters.json errors of digest_check except NOT_FOUND. */
cuzk_err_t cuzk_groth16_params_load_known(cuzk_groth16_params_t **out, const char *path,
                                          const char *json_path, bool *trusted, char *errstr,
                                          size_t errstr_size);

#endif
