/* Framing of Avro messages on Kafka.
 *
 *   single object (default):  C3 01 | fingerprint (8 bytes, little-endian CRC-64-AVRO) | body
 *   Confluent wire format:    00    | schema id (4 bytes, big-endian)                    | body
 *
 * The body is the Avro binary encoding of one record. This module only reads and writes the
 * header; which fingerprints and ids are known is the codec's business (codec.h).
 * Thread use: pure, callable from any thread.
 */
#ifndef CUZK_AGENT_AVRO_FRAME_H
#define CUZK_AGENT_AVRO_FRAME_H

#include "core/util/err.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
  CUZK_AVRO_FRAMING_SINGLE_OBJECT = 0,
  CUZK_AVRO_FRAMING_CONFLUENT = 1,
} cuzk_avro_framing_t;

#define CUZK_AVRO_SO_MAGIC0 0xC3
#define CUZK_AVRO_SO_MAGIC1 0x01
#define CUZK_AVRO_SO_HEADER_LEN 10 /* 2 marker bytes + 8-byte fingerprint */
#define CUZK_AVRO_CONFLUENT_MAGIC 0x00
#define CUZK_AVRO_CONFLUENT_HEADER_LEN 5 /* magic byte + 4-byte schema id */

/* A parsed frame: `body` points into the caller's buffer (borrowed, not copied). */
typedef struct {
  cuzk_avro_framing_t framing;
  uint64_t fingerprint; /* CUZK_AVRO_FRAMING_SINGLE_OBJECT */
  int32_t schema_id;    /* CUZK_AVRO_FRAMING_CONFLUENT */
  const uint8_t *body;
  size_t body_len;
} cuzk_avro_frame_t;

/* Header length of `framing` in bytes. */
size_t cuzk_avro_frame_header_len(cuzk_avro_framing_t framing);

/* Writes the header for `framing` into out[0..header_len); `key` is the fingerprint or the
 * Confluent schema id (0..INT32_MAX). Returns the bytes written, or 0 when out_size is too small
 * or the id is out of range. */
size_t cuzk_avro_frame_put_header(uint8_t *out, size_t out_size, cuzk_avro_framing_t framing,
                                  uint64_t key);

/* Parses the header of `len` bytes at `buf` (either framing, told apart by the first byte).
 * Checks, in order: len > max_len -> CUZK_ERR_TOO_LARGE (nothing else is read); empty or shorter
 * than its header -> CUZK_ERR_TRUNCATED; unknown first byte -> CUZK_ERR_PARSE; C3 followed by
 * anything but 01 -> CUZK_ERR_VERSION; negative Confluent id -> CUZK_ERR_SCHEMA. */
cuzk_err_t cuzk_avro_frame_parse(cuzk_avro_frame_t *out, const uint8_t *buf, size_t len,
                                 size_t max_len, char *errstr, size_t errstr_size);

#endif
