/* libFuzzer target for the framed Avro decoder (agent/avro/codec.h).
 *
 * The first input byte picks the record type, the rest is the Kafka message value. Whatever
 * decodes must encode again and decode again. Build with clang, e.g. from the repo root after a
 * normal cmake build in build/ (for the embedded schema table):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. \
 *     tests/fuzz/fuzz_avro.c agent/avro/canonical.c agent/avro/codec.c agent/avro/fingerprint.c \
 *     agent/avro/frame.c build/agent/avro_schemas_embedded.c core/util/err.c \
 *     $(pkg-config --cflags --libs jansson) -lavro -o build/fuzz_avro
 *   mkdir -p build/fuzz-corpus && build/fuzz_avro -max_total_time=60 build/fuzz-corpus
 */
#include "agent/avro/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef union {
  cuzk_proof_job_t job;
  cuzk_proof_result_t result;
  cuzk_partition_timing_t timing;
  cuzk_agent_status_t status;
  cuzk_dead_letter_t dead;
} any_t;

static cuzk_avro_codec_t *codec(void) {
  static cuzk_avro_codec_t *c;
  if (c == NULL) {
    cuzk_avro_codec_conf_t conf;
    cuzk_avro_codec_conf_init(&conf);
    conf.max_message_bytes = 1 << 16;
    for (int t = 0; t < CUZK_AVRO__COUNT; t++)
      conf.confluent_ids[t] = t + 1;
    char err[256];
    c = cuzk_avro_codec_new(&conf, err, sizeof err);
    if (c == NULL) {
      fprintf(stderr, "fuzz_avro: %s\n", err);
      abort();
    }
  }
  return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  cuzk_avro_codec_t *c = codec();
  cuzk_avro_type_t type = (cuzk_avro_type_t)(data[0] % CUZK_AVRO__COUNT);
  any_t rec;
  char err[256];
  cuzk_err_t e = cuzk_avro_decode(c, type, &rec, data + 1, size - 1, err, sizeof err);
  if (e < 0 || e >= CUZK_ERR__COUNT)
    abort();
  if (e == CUZK_OK) {
    uint8_t *again = NULL;
    size_t alen = 0;
    if (cuzk_avro_encode(c, type, &rec, &again, &alen, err, sizeof err) != CUZK_OK)
      abort();
    any_t back;
    cuzk_err_t e2 = cuzk_avro_decode(c, type, &back, again, alen, err, sizeof err);
    if (e2 != CUZK_OK)
      abort();
    uint8_t *third = NULL;
    size_t tlen = 0;
    if (cuzk_avro_encode(c, type, &back, &third, &tlen, err, sizeof err) != CUZK_OK ||
        tlen != alen || memcmp(third, again, alen) != 0)
      abort();
    free(third);
    free(again);
    cuzk_avro_record_clear(type, &back);
  }
  if (e == CUZK_OK || e == CUZK_ERR_BAD_JOB)
    cuzk_avro_record_clear(type, &rec);
  return 0;
}
