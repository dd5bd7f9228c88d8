/* CRC-64-AVRO (Rabin) fingerprints of Avro schemas.
 *
 * The fingerprint of a schema is the 64-bit Rabin fingerprint (polynomial whose empty value is
 * CUZK_AVRO_FP_EMPTY) of the UTF-8 bytes of its Parsing Canonical Form (canonical.h). It is what
 * Avro single-object encoding carries, little-endian, after the C3 01 marker.
 *
 * Thread use: every function here is pure and may be called from any thread.
 */
#ifndef CUZK_AGENT_AVRO_FINGERPRINT_H
#define CUZK_AGENT_AVRO_FINGERPRINT_H

#include "core/util/err.h"

#include <stddef.h>
#include <stdint.h>

/* Fingerprint of the empty input; also the reduced polynomial of CRC-64-AVRO. */
#define CUZK_AVRO_FP_EMPTY 0xc15d213aa4d7a795ULL

/* The 256-entry lookup table: table[i] = i shifted right 8 times, each time XORing in
 * CUZK_AVRO_FP_EMPTY when the bit shifted out was 1. */
extern const uint64_t cuzk_avro_fp_table[256];

/* Rabin fingerprint of `len` bytes at `buf` (NULL allowed when len == 0). */
uint64_t cuzk_avro_fingerprint64(const void *buf, size_t len);

/* Fingerprint of a schema given as JSON text: canonicalizes it first. On error returns
 * CUZK_ERR_PARSE (with a sentence in errstr) and leaves *out untouched. */
cuzk_err_t cuzk_avro_schema_fingerprint(uint64_t *out, const char *schema_json, size_t len,
                                        char *errstr, size_t errstr_size);

#endif
