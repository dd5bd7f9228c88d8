#include "agent/avro/frame.h"

#include <assert.h>
#include <string.h>

size_t cuzk_avro_frame_header_len(cuzk_avro_framing_t framing) {
  return framing == CUZK_AVRO_FRAMING_CONFLUENT ? CUZK_AVRO_CONFLUENT_HEADER_LEN
                                                : CUZK_AVRO_SO_HEADER_LEN;
}

size_t cuzk_avro_frame_put_header(uint8_t *out, size_t out_size, cuzk_avro_framing_t framing,
                                  uint64_t key) {
  assert(out != NULL);
  size_t n = cuzk_avro_frame_header_len(framing);
  if (out_size < n)
    return 0;
  if (framing == CUZK_AVRO_FRAMING_CONFLUENT) {
    if (key > INT32_MAX)
      return 0;
    out[0] = CUZK_AVRO_CONFLUENT_MAGIC;
    for (int i = 0; i < 4; i++)
      out[1 + i] = (uint8_t)(key >> (24 - 8 * i));
  } else {
    out[0] = CUZK_AVRO_SO_MAGIC0;
    out[1] = CUZK_AVRO_SO_MAGIC1;
    for (int i = 0; i < 8; i++)
      out[2 + i] = (uint8_t)(key >> (8 * i));
  }
  return n;
}

cuzk_err_t cuzk_avro_frame_parse(cuzk_avro_frame_t *out, const uint8_t *buf, size_t len,
                                 size_t max_len, char *errstr, size_t errstr_size) {
  assert(out != NULL && (buf != NULL || len == 0));
  if (len > max_len)
    return cuzk_errf(CUZK_ERR_TOO_LARGE, errstr, errstr_size,
                     "avro frame: %zu bytes exceeds the limit of %zu", len, max_len);
  if (len == 0)
    return cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size, "avro frame: empty message");
  memset(out, 0, sizeof *out);
  if (buf[0] == CUZK_AVRO_SO_MAGIC0) {
    if (len >= 2 && buf[1] != CUZK_AVRO_SO_MAGIC1)
      return cuzk_errf(CUZK_ERR_VERSION, errstr, errstr_size,
                       "avro frame: single-object marker C3 %02X, want C3 01", buf[1]);
    if (len < CUZK_AVRO_SO_HEADER_LEN)
      return cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size,
                       "avro frame: %zu bytes, the single-object header needs %d", len,
                       CUZK_AVRO_SO_HEADER_LEN);
    uint64_t fp = 0;
    for (int i = 0; i < 8; i++)
      fp |= (uint64_t)buf[2 + i] << (8 * i);
    out->framing = CUZK_AVRO_FRAMING_SINGLE_OBJECT;
    out->fingerprint = fp;
    out->body = buf + CUZK_AVRO_SO_HEADER_LEN;
    out->body_len = len - CUZK_AVRO_SO_HEADER_LEN;
    return CUZK_OK;
  }
  if (buf[0] == CUZK_AVRO_CONFLUENT_MAGIC) {
    if (len < CUZK_AVRO_CONFLUENT_HEADER_LEN)
      return cuzk_errf(CUZK_ERR_TRUNCATED, errstr, errstr_size,
                       "avro frame: %zu bytes, the Confluent header needs %d", len,
                       CUZK_AVRO_CONFLUENT_HEADER_LEN);
    uint32_t id = (uint32_t)buf[1] << 24 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 | buf[4];
    if (id > INT32_MAX)
      return cuzk_errf(CUZK_ERR_SCHEMA, errstr, errstr_size,
                       "avro frame: Confluent schema id %u is negative as int32", id);
    out->framing = CUZK_AVRO_FRAMING_CONFLUENT;
    out->schema_id = (int32_t)id;
    out->body = buf + CUZK_AVRO_CONFLUENT_HEADER_LEN;
    out->body_len = len - CUZK_AVRO_CONFLUENT_HEADER_LEN;
    return CUZK_OK;
  }
  return cuzk_errf(CUZK_ERR_PARSE, errstr, errstr_size,
                   "avro frame: first byte 0x%02X is neither C3 (single object) nor 00 (Confluent)",
                   buf[0]);
}
