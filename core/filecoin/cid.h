/* Filecoin commitment CIDs (go-fil-commcid): CID v1, multibase 'b' (RFC 4648 base32, lowercase,
 * no padding), varints codec, multihash code, digest length, then the 32-byte commitment.
 * Codes from the multicodec table: fil-commitment-unsealed 0xf101, fil-commitment-sealed 0xf102,
 * sha2-256-trunc254-padded 0x1012, poseidon-bls12_381-a2-fc1 0xb401.
 *
 * Threads: pure functions, safe from any thread.
 */
#ifndef CUZK_FILECOIN_CID_H
#define CUZK_FILECOIN_CID_H

#include <stddef.h>
#include <stdint.h>

#include "core/util/err.h"

#define CUZK_CID_FIL_UNSEALED 0xf101u
#define CUZK_CID_FIL_SEALED 0xf102u
#define CUZK_MH_SHA2_256_TRUNC254_PADDED 0x1012u
#define CUZK_MH_POSEIDON_BLS12_381_A2_FC1 0xb401u

/* Decodes a base32 CID v1 string carrying a 32-byte digest: writes codec, multihash code and the
 * digest (as stored: for comm_r the little-endian Fr bytes). CUZK_ERR_PARSE with a message in
 * errstr for anything else (other multibase, CID version, digest length, trailing bytes). */
cuzk_err_t cuzk_filecoin_cid_decode(const char *cid, uint64_t *codec, uint64_t *mh_code,
                                    uint8_t digest[32], char *errstr, size_t errstr_size);

/* comm_r from a sealed-sector CID; also checks the codec and multihash code (CUZK_ERR_PARSE). */
cuzk_err_t cuzk_filecoin_commr_from_cid(uint8_t comm_r[32], const char *cid, char *errstr,
                                        size_t errstr_size);

#endif
