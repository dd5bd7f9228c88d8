/* The JSON form of Filecoin's `WindowPoStVerifyInfo` / `WinningPoStVerifyInfo` (go-state-types
 * proof package, as Lotus and Curio print it):
 *   {"Randomness": base64(32 bytes), "Proofs": [{"PoStProof": n, "ProofBytes": ...}],
 *    "ChallengedSectors": [{"SealProof": n, "SectorNumber": n, "SealedCID": {"/": cid}}],
 *    "Prover": n}
 * Unknown keys are ignored; the listed ones are type-checked.
 *
 * Ownership: cuzk_post_verify_info_parse fills *out; release with cuzk_post_verify_info_clear.
 * Threads: reentrant.
 */
#ifndef CUZK_FILECOIN_VERIFY_INFO_H
#define CUZK_FILECOIN_VERIFY_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

typedef struct {
  int64_t seal_proof;
  uint64_t sector_number;
  uint8_t comm_r[32]; /* from the sealed CID (little-endian Fr bytes) */
} cuzk_post_challenged_sector_t;

typedef struct {
  uint8_t randomness[32]; /* as on chain; mask with cuzk_filecoin_randomness_mask before use */
  uint64_t prover;
  int64_t post_proof; /* Proofs[0].PoStProof, -1 when absent */
  cuzk_post_challenged_sector_t *sectors;
  size_t n_sectors;
} cuzk_post_verify_info_t;

/* Parses json[0..len). CUZK_ERR_PARSE with a message for malformed JSON, wrong types, a
 * randomness that is not 32 bytes of base64 or a CID that is not a sealed commitment;
 * CUZK_ERR_NOMEM. On error *out is left cleared. */
cuzk_err_t cuzk_post_verify_info_parse(cuzk_post_verify_info_t *out, const char *json, size_t len,
                                       char *errstr, size_t errstr_size);

void cuzk_post_verify_info_clear(cuzk_post_verify_info_t *info);

#endif
