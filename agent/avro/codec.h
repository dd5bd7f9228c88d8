/* Avro codec for the five cuzk records (schemas/<Name>.avsc, mirrored in records.h).
 *
 * Encoding writes our own (embedded) schema's body behind a frame header (frame.h): single-object
 * by default, Confluent when configured with schema ids. Decoding finds the WRITER's schema by
 * fingerprint or Confluent id in the codec's registry (our schemas plus any added with
 * cuzk_avro_codec_add_schema), checks the body against it with a bounds-checking walk, decodes
 * it with Avro C using that writer schema, and maps fields by name into the C struct; fields our
 * schema has and the writer's lacks take our schema's default (Avro C 1.11 does not apply reader
 * defaults itself). Decoded ProofJobs are validated (cuzk_proof_job_validate).
 *
 * Errors: CUZK_ERR_TOO_LARGE (over max_message_bytes, checked first), CUZK_ERR_TRUNCATED,
 * CUZK_ERR_VERSION, CUZK_ERR_PARSE (bad marker, malformed or trailing body bytes),
 * CUZK_ERR_SCHEMA (unknown fingerprint/id, schema of another record, incompatible field),
 * CUZK_ERR_BAD_JOB (decoded job fails validation), CUZK_ERR_AVRO, CUZK_ERR_NOMEM,
 * CUZK_ERR_INVALID_ARG (encode: a required string is NULL, enum out of range).
 *
 * Thread use: Avro C keeps its error message in a process-global buffer, so a codec is used from
 * one thread only (the poll thread). The first encode/decode binds the codec to the calling
 * thread; later calls from another thread fail an assert. Codecs used from different threads at
 * once would still race on that global: keep all Avro work on one thread.
 */
#ifndef CUZK_AGENT_AVRO_CODEC_H
#define CUZK_AGENT_AVRO_CODEC_H

#include "agent/avro/frame.h"
#include "agent/avro/records.h"
#include "core/util/err.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
  CUZK_AVRO_PROOF_JOB,        /* cuzk_proof_job_t */
  CUZK_AVRO_PROOF_RESULT,     /* cuzk_proof_result_t */
  CUZK_AVRO_PARTITION_TIMING, /* cuzk_partition_timing_t */
  CUZK_AVRO_AGENT_STATUS,     /* cuzk_agent_status_t */
  CUZK_AVRO_DEAD_LETTER,      /* cuzk_dead_letter_t */
  CUZK_AVRO__COUNT
} cuzk_avro_type_t;

#define CUZK_AVRO_DEFAULT_MAX_MESSAGE_BYTES (16u << 20) /* 16 MiB */

typedef struct {
  cuzk_avro_framing_t framing;               /* used to encode; decode accepts both */
  int32_t confluent_ids[CUZK_AVRO__COUNT];   /* our schemas' registry ids; -1 = none */
  size_t max_message_bytes;                  /* decode refuses larger frames */
} cuzk_avro_codec_conf_t;

typedef struct cuzk_avro_codec cuzk_avro_codec_t;

/* Defaults: single-object framing, no Confluent ids, CUZK_AVRO_DEFAULT_MAX_MESSAGE_BYTES. */
void cuzk_avro_codec_conf_init(cuzk_avro_codec_conf_t *conf);

/* Schema name ("ProofJob", ...) of a record type; NULL outside the enum. */
const char *cuzk_avro_type_name(cuzk_avro_type_t type);

/* The embedded schema JSON of a record type (static storage), its length in *len if non-NULL. */
const char *cuzk_avro_schema_json(cuzk_avro_type_t type, size_t *len);

/* Creates a codec with our five schemas registered. Fails (NULL, errstr set) when an embedded
 * schema does not parse, CONFLUENT framing lacks ids, or ids collide. Free with _free. */
cuzk_avro_codec_t *cuzk_avro_codec_new(const cuzk_avro_codec_conf_t *conf, char *errstr,
                                       size_t errstr_size);
void cuzk_avro_codec_free(cuzk_avro_codec_t *codec);

/* Registers another writer schema for `type` (an older or newer version of the record) under
 * its fingerprint and, when confluent_id >= 0, that id. Its record name must be the type's. */
cuzk_err_t cuzk_avro_codec_add_schema(cuzk_avro_codec_t *codec, cuzk_avro_type_t type,
                                      const char *json, size_t len, int32_t confluent_id,
                                      char *errstr, size_t errstr_size);

/* CRC-64-AVRO fingerprint of our schema for `type`. */
uint64_t cuzk_avro_codec_fingerprint(const cuzk_avro_codec_t *codec, cuzk_avro_type_t type);

/* Encodes `rec` (the struct for `type`) into a new framed message: *out is malloc'd (caller
 * frees), *out_len its size. */
cuzk_err_t cuzk_avro_encode(cuzk_avro_codec_t *codec, cuzk_avro_type_t type, const void *rec,
                            uint8_t **out, size_t *out_len, char *errstr, size_t errstr_size);

/* Decodes the framed message buf[0..len) into *rec (the struct for `type`; overwritten, not
 * freed first). On success, and on CUZK_ERR_BAD_JOB (so that the job_id can be reported in a
 * REJECTED result), the caller owns the contents (cuzk_avro_record_clear); on any other failure
 * *rec is left zeroed. */
cuzk_err_t cuzk_avro_decode(cuzk_avro_codec_t *codec, cuzk_avro_type_t type, void *rec,
                            const uint8_t *buf, size_t len, char *errstr, size_t errstr_size);

/* Frees everything a decoded record owns and zeroes it. Safe on a zeroed record. */
void cuzk_avro_record_clear(cuzk_avro_type_t type, void *rec);

/* Checks a job's contents: non-empty job_id (<= 128 bytes), enum ranges, sector size one of
 * Filecoin's, prover_id empty or 32 bytes, randomness 32 bytes and present for PoSt, sector ids
 * non-negative and present, priority/attempt non-negative, payload non-empty or a reference with
 * a file:// or http(s):// URI and size >= 0, payload format fitting the proof type.
 * Returns CUZK_ERR_BAD_JOB with the reason in errstr. Pure. */
cuzk_err_t cuzk_proof_job_validate(const cuzk_proof_job_t *job, char *errstr, size_t errstr_size);

#endif
