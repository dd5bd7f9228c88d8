/* Avro codec: round trips of all five records, defaults for fields an older writer lacked,
 * enum resolution by symbol name, Confluent framing, and the typed errors. python-avro checks
 * the same encodings independently in test_avro_oracle.c. */
#include "tests/support/testlib.h"
#include "tests/unit/avro_samples.h"
#include "agent/avro/codec.h"
#include "agent/avro/fingerprint.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static cuzk_avro_codec_t *new_codec(void) {
  cuzk_avro_codec_conf_t conf;
  cuzk_avro_codec_conf_init(&conf);
  char err[256] = "";
  cuzk_avro_codec_t *c = cuzk_avro_codec_new(&conf, err, sizeof err);
  if (c == NULL)
    fail_msg("codec: %s", err);
  return c;
}

static void test_roundtrip_all(void **state) {
  (void)state;
  cuzk_avro_codec_t *c = new_codec();
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  static sample_arena_t arena;
  for (int type = 0; type < CUZK_AVRO__COUNT; type++) {
    for (int iter = 0; iter < 200; iter++) {
      sample_any_t in, out;
      sample_record((cuzk_avro_type_t)type, &in, &arena, &r);
      uint8_t *buf = NULL;
      size_t len = 0;
      char err[256] = "";
      cuzk_err_t e = cuzk_avro_encode(c, (cuzk_avro_type_t)type, &in, &buf, &len, err, sizeof err);
      if (e != CUZK_OK)
        fail_msg("encode %s: %s %s", cuzk_avro_type_name(type), cuzk_err_name(e), err);
      assert_int_equal(buf[0], 0xC3);
      assert_int_equal(buf[1], 0x01);
      uint64_t fp = 0;
      for (int i = 0; i < 8; i++)
        fp |= (uint64_t)buf[2 + i] << (8 * i);
      assert_true(fp == cuzk_avro_codec_fingerprint(c, type));
      e = cuzk_avro_decode(c, (cuzk_avro_type_t)type, &out, buf, len, err, sizeof err);
      if (e != CUZK_OK)
        fail_msg("decode %s: %s %s", cuzk_avro_type_name(type), cuzk_err_name(e), err);
      json_t *a = sample_json(type, &out), *b = sample_json(type, &in);
      assert_json_equal(a, b, cuzk_avro_type_name(type));
      json_decref(a);
      json_decref(b);
      /* Every proper prefix is truncated; one byte more is trailing garbage. */
      if (iter < 20) {
        for (size_t n = 0; n < len; n++) {
          sample_any_t tmp;
          cuzk_err_t te = cuzk_avro_decode(c, (cuzk_avro_type_t)type, &tmp, buf, n, NULL, 0);
          if (te != CUZK_ERR_TRUNCATED)
            fail_msg("%s prefix %zu/%zu: %s", cuzk_avro_type_name(type), n, len, cuzk_err_name(te));
        }
        uint8_t *longer = malloc(len + 1);
        memcpy(longer, buf, len);
        longer[len] = 0;
        sample_any_t tmp;
        assert_int_equal(cuzk_avro_decode(c, (cuzk_avro_type_t)type, &tmp, longer, len + 1, NULL, 0),
                         CUZK_ERR_PARSE);
        free(longer);
      }
      cuzk_avro_record_clear((cuzk_avro_type_t)type, &out);
      free(buf);
    }
  }
  cuzk_avro_codec_free(c);
}

static void test_embedded_schemas(void **state) {
  (void)state;
  cuzk_avro_codec_t *c = new_codec();
  for (int t = 0; t < CUZK_AVRO__COUNT; t++) {
    size_t len = 0;
    const char *json = cuzk_avro_schema_json(t, &len);
    assert_non_null(json);
    assert_int_equal(strlen(json), len);
    char path[512];
    const char *src = getenv("CUZK_SOURCE_DIR");
    if (src != NULL) {
      snprintf(path, sizeof path, "%s/schemas/%s.avsc", src, cuzk_avro_type_name(t));
      FILE *f = fopen(path, "rb");
      assert_non_null(f);
      char *file = calloc(1, len + 2);
      size_t n = fread(file, 1, len + 1, f);
      fclose(f);
      assert_int_equal(n, len); /* the binary carries the current file */
      assert_memory_equal(file, json, len);
      free(file);
    }
    uint64_t fp = 0;
    assert_int_equal(cuzk_avro_schema_fingerprint(&fp, json, len, NULL, 0), CUZK_OK);
    assert_true(fp == cuzk_avro_codec_fingerprint(c, t));
    for (int u = 0; u < t; u++)
      assert_true(cuzk_avro_codec_fingerprint(c, u) != fp);
  }
  assert_null(cuzk_avro_schema_json(CUZK_AVRO__COUNT, NULL));
  assert_null(cuzk_avro_type_name(CUZK_AVRO__COUNT));
  cuzk_avro_codec_free(c);
}

/* Avro binary helpers for hand-made bodies. */
static size_t put_long(uint8_t *p, int64_t v) {
  uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  size_t n = 0;
  while (z >= 0x80) {
    p[n++] = (uint8_t)(z | 0x80);
    z >>= 7;
  }
  p[n++] = (uint8_t)z;
  return n;
}
static size_t put_str(uint8_t *p, const char *s) {
  size_t n = put_long(p, (int64_t)strlen(s));
  memcpy(p + n, s, strlen(s));
  return n + strlen(s);
}

/* An "older" ProofJob: only the fields without defaults, ProofType symbols in another order. */
static const char *old_job_schema =
    "{\"type\":\"record\",\"name\":\"ProofJob\",\"namespace\":\"cuzk\",\"fields\":["
    "{\"name\":\"job_id\",\"type\":\"string\"},"
    "{\"name\":\"proof_type\",\"type\":{\"type\":\"enum\",\"name\":\"ProofType\","
    "\"symbols\":[\"POREP_C2\",\"SNAP_DEALS\",\"WINDOW_POST\",\"WINNING_POST\",\"FUTURE\"]}},"
    "{\"name\":\"registered_proof\",\"type\":\"int\"},"
    "{\"name\":\"sector_size\",\"type\":\"int\"},"
    "{\"name\":\"created_at\",\"type\":\"long\"},"
    "{\"name\":\"payload\",\"type\":[\"bytes\",{\"type\":\"record\",\"name\":\"PayloadRef\","
    "\"fields\":[{\"name\":\"uri\",\"type\":\"string\"},{\"name\":\"sha256\",\"type\":"
    "{\"type\":\"fixed\",\"name\":\"Sha256\",\"size\":32}},{\"name\":\"size\",\"type\":\"long\"}]}]},"
    "{\"name\":\"payload_format\",\"type\":{\"type\":\"enum\",\"name\":\"PayloadFormat\",\"symbols\":"
    "[\"POST_VANILLA_BINCODE\",\"POST_VANILLA_JSON\",\"SNAP_VANILLA_BINCODE\",\"SNAP_VANILLA_JSON\","
    "\"POREP_C1_JSON\",\"POREP_C1_BINCODE\"]}},"
    "{\"name\":\"extra\",\"type\":\"string\"}"
    "]}";

static size_t old_job_message(uint8_t *m, uint64_t fp, int64_t proof_type_index) {
  size_t n = 0;
  m[n++] = 0xC3;
  m[n++] = 0x01;
  for (int i = 0; i < 8; i++)
    m[n++] = (uint8_t)(fp >> (8 * i));
  n += put_str(m + n, "old-1");
  n += put_long(m + n, proof_type_index);
  n += put_long(m + n, 3);        /* registered_proof: RegisteredUpdateProof 32 GiB */
  n += put_long(m + n, 2048);     /* sector_size, an int in the old schema: wrong on purpose */
  n += put_long(m + n, 1700000000000);
  n += put_long(m + n, 0);        /* payload branch: bytes */
  n += put_str(m + n, "abc");
  n += put_long(m + n, 3);        /* SNAP_VANILLA_JSON */
  n += put_str(m + n, "ignored"); /* a field our schema lacks: skipped */
  return n;
}

static void test_defaults_and_enum_names(void **state) {
  (void)state;
  cuzk_avro_codec_t *c = new_codec();
  char err[256] = "";
  uint64_t fp = 0;
  assert_int_equal(cuzk_avro_schema_fingerprint(&fp, old_job_schema, strlen(old_job_schema), NULL, 0),
                   CUZK_OK);
  assert_int_equal(cuzk_avro_codec_add_schema(c, CUZK_AVRO_PROOF_JOB, old_job_schema,
                                              strlen(old_job_schema), -1, err, sizeof err),
                   CUZK_OK);
  /* The same schema twice, or under another record's type, is refused. */
  assert_int_equal(cuzk_avro_codec_add_schema(c, CUZK_AVRO_PROOF_JOB, old_job_schema,
                                              strlen(old_job_schema), -1, NULL, 0),
                   CUZK_ERR_SCHEMA);
  uint8_t m[256];
  size_t n = old_job_message(m, fp, 1);
  cuzk_proof_job_t j;
  cuzk_err_t e = cuzk_avro_decode(c, CUZK_AVRO_PROOF_JOB, &j, m, n, err, sizeof err);
  /* Decoded fine, but the 2048-byte sector does not match RegisteredUpdateProof 3: BAD_JOB,
   * and the job stays readable for the REJECTED result. */
  assert_int_equal(e, CUZK_ERR_BAD_JOB);
  assert_non_null(strstr(err, "sector_size"));
  assert_string_equal(j.job_id, "old-1");
  assert_int_equal(j.proof_type, CUZK_PROOF_TYPE_SNAP_DEALS); /* index 1 in the writer's enum */
  assert_int_equal(j.sector_size, 2048);                      /* int promoted to long */
  assert_int_equal(j.miner_id, 0);
  assert_int_equal(j.prover_id.len, 0);
  assert_int_equal(j.n_sector_ids, 0);
  assert_false(j.has_randomness);
  assert_false(j.has_priority);
  assert_false(j.has_deadline);
  assert_int_equal(j.created_at_ms, 1700000000000);
  assert_false(j.payload_is_ref);
  assert_int_equal(j.payload.len, 3);
  assert_memory_equal(j.payload.data, "abc", 3);
  assert_int_equal(j.payload_format, CUZK_PAYLOAD_SNAP_VANILLA_JSON);
  assert_int_equal(j.attempt, 0);
  assert_int_equal(j.n_labels, 0);
  cuzk_avro_record_clear(CUZK_AVRO_PROOF_JOB, &j);
  assert_null(j.job_id);
  /* A symbol this agent does not know. */
  n = old_job_message(m, fp, 4);
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_PROOF_JOB, &j, m, n, err, sizeof err),
                   CUZK_ERR_SCHEMA);
  assert_non_null(strstr(err, "FUTURE"));
  assert_null(j.job_id);
  cuzk_avro_codec_free(c);

  /* A writer that lacks a field without a default (sector_size) cannot be read. */
  c = new_codec();
  const char *lacking =
      "{\"type\":\"record\",\"name\":\"ProofJob\",\"namespace\":\"cuzk\",\"fields\":["
      "{\"name\":\"job_id\",\"type\":\"string\"}]}";
  assert_int_equal(cuzk_avro_codec_add_schema(c, CUZK_AVRO_PROOF_JOB, lacking, strlen(lacking), 7,
                                              NULL, 0),
                   CUZK_OK);
  uint8_t m2[32] = {0x00, 0, 0, 0, 7};
  size_t n2 = 5 + put_str(m2 + 5, "x");
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_PROOF_JOB, &j, m2, n2, err, sizeof err),
                   CUZK_ERR_SCHEMA);
  assert_non_null(strstr(err, "proof_type"));
  /* A schema whose record name is not the type's. */
  assert_int_equal(cuzk_avro_codec_add_schema(c, CUZK_AVRO_PROOF_RESULT, lacking, strlen(lacking), -1,
                                              NULL, 0),
                   CUZK_ERR_SCHEMA);
  cuzk_avro_codec_free(c);
}

static void test_confluent(void **state) {
  (void)state;
  cuzk_avro_codec_conf_t conf;
  cuzk_avro_codec_conf_init(&conf);
  conf.framing = CUZK_AVRO_FRAMING_CONFLUENT;
  char err[256] = "";
  assert_null(cuzk_avro_codec_new(&conf, err, sizeof err)); /* ids missing */
  assert_non_null(strstr(err, "schema id"));
  for (int t = 0; t < CUZK_AVRO__COUNT; t++)
    conf.confluent_ids[t] = 100 + t;
  conf.confluent_ids[1] = 100;
  assert_null(cuzk_avro_codec_new(&conf, err, sizeof err)); /* ids collide */
  conf.confluent_ids[1] = 101;
  cuzk_avro_codec_t *c = cuzk_avro_codec_new(&conf, err, sizeof err);
  assert_non_null(c);
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, 7);
  static sample_arena_t arena;
  sample_any_t in, out;
  sample_record(CUZK_AVRO_PARTITION_TIMING, &in, &arena, &r);
  uint8_t *buf;
  size_t len;
  assert_int_equal(cuzk_avro_encode(c, CUZK_AVRO_PARTITION_TIMING, &in, &buf, &len, err, sizeof err),
                   CUZK_OK);
  const uint8_t hdr[5] = {0x00, 0, 0, 0, 102};
  assert_memory_equal(buf, hdr, 5);
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_PARTITION_TIMING, &out, buf, len, err, sizeof err),
                   CUZK_OK);
  assert_int_equal(out.timing.gpu, in.timing.gpu);
  cuzk_avro_record_clear(CUZK_AVRO_PARTITION_TIMING, &out);
  /* Wrong record type for this topic, unknown id. */
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_PROOF_JOB, &out, buf, len, err, sizeof err),
                   CUZK_ERR_SCHEMA);
  assert_non_null(strstr(err, "PartitionTiming"));
  buf[4] = 99;
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_PARTITION_TIMING, &out, buf, len, err, sizeof err),
                   CUZK_ERR_SCHEMA);
  free(buf);
  cuzk_avro_codec_free(c);
}

static void test_errors(void **state) {
  (void)state;
  cuzk_avro_codec_conf_t conf;
  cuzk_avro_codec_conf_init(&conf);
  conf.max_message_bytes = 64;
  cuzk_avro_codec_t *c = cuzk_avro_codec_new(&conf, NULL, 0);
  assert_non_null(c);
  char err[256];
  cuzk_dead_letter_t d;
  uint8_t big[65] = {0xC3, 0x01};
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_DEAD_LETTER, &d, big, sizeof big, err, sizeof err),
                   CUZK_ERR_TOO_LARGE);
  uint8_t unknown[12] = {0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0};
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_DEAD_LETTER, &d, unknown, 12, err, sizeof err),
                   CUZK_ERR_SCHEMA);
  assert_non_null(strstr(err, "fingerprint"));
  /* Encode refuses NULL required strings and out-of-range enums. */
  cuzk_proof_result_t res = {0};
  uint8_t *buf = NULL;
  size_t len = 0;
  assert_int_equal(cuzk_avro_encode(c, CUZK_AVRO_PROOF_RESULT, &res, &buf, &len, err, sizeof err),
                   CUZK_ERR_INVALID_ARG);
  assert_non_null(strstr(err, "job_id"));
  res.job_id = "j";
  res.agent_id = "a";
  res.status = (cuzk_result_status_t)9;
  assert_int_equal(cuzk_avro_encode(c, CUZK_AVRO_PROOF_RESULT, &res, &buf, &len, err, sizeof err),
                   CUZK_ERR_INVALID_ARG);
  res.status = CUZK_RESULT_CANCELLED;
  assert_int_equal(cuzk_avro_encode(c, CUZK_AVRO_PROOF_RESULT, &res, &buf, &len, err, sizeof err),
                   CUZK_OK);
  /* Encoded with a large limit-free codec; over this codec's 64-byte limit? Small enough. */
  cuzk_proof_result_t back;
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_PROOF_RESULT, &back, buf, len, err, sizeof err),
                   CUZK_OK);
  assert_int_equal(back.status, CUZK_RESULT_CANCELLED);
  assert_false(back.has_proof);
  cuzk_avro_record_clear(CUZK_AVRO_PROOF_RESULT, &back);
  /* A NUL inside a string is refused: string length 3 = "j\0k". */
  size_t body = len - 10;
  uint8_t *m = malloc(len + 2);
  memcpy(m, buf, 10);
  m[10] = 6, m[11] = 'j', m[12] = 0, m[13] = 'k';
  memcpy(m + 14, buf + 12, body - 2);
  assert_int_equal(cuzk_avro_decode(c, CUZK_AVRO_PROOF_RESULT, &back, m, len + 2, err, sizeof err),
                   CUZK_ERR_PARSE);
  assert_non_null(strstr(err, "NUL"));
  free(m);
  free(buf);
  cuzk_avro_codec_free(c);
}

static void expect_bad(cuzk_proof_job_t *j, const char *needle) {
  char err[256] = "";
  cuzk_err_t e = cuzk_proof_job_validate(j, err, sizeof err);
  if (e != CUZK_ERR_BAD_JOB || strstr(err, needle) == NULL)
    fail_msg("want BAD_JOB mentioning '%s', got %s '%s'", needle, cuzk_err_name(e), err);
}

static void test_validate(void **state) {
  (void)state;
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, 11);
  static sample_arena_t arena;
  cuzk_proof_job_t j0, j;
  for (int i = 0; i < 100; i++) {
    sample_job(&j0, &arena, &r);
    assert_int_equal(cuzk_proof_job_validate(&j0, NULL, 0), CUZK_OK);
  }
  /* A window PoSt job to break one rule at a time. */
  do
    sample_job(&j0, &arena, &r);
  while (j0.proof_type != CUZK_PROOF_TYPE_WINDOW_POST || j0.payload_is_ref);
  j = j0, j.job_id = "";
  expect_bad(&j, "job_id");
  j = j0, j.job_id = "a\nb";
  expect_bad(&j, "job_id");
  j = j0, j.proof_type = (cuzk_proof_type_t)4;
  expect_bad(&j, "proof_type");
  j = j0, j.registered_proof = 3;
  expect_bad(&j, "RegisteredPoStProof (window)");
  j = j0, j.sector_size = 4096;
  expect_bad(&j, "sector_size");
  j = j0, j.prover_id.len = 31;
  expect_bad(&j, "prover_id");
  j = j0, j.has_randomness = false;
  expect_bad(&j, "randomness");
  j = j0, j.randomness.len = 33;
  expect_bad(&j, "randomness");
  j = j0, j.n_sector_ids = 0;
  expect_bad(&j, "sector ids");
  j = j0, j.has_priority = true, j.priority = -1;
  expect_bad(&j, "priority");
  j = j0, j.attempt = -1;
  expect_bad(&j, "attempt");
  j = j0, j.payload.len = 0;
  expect_bad(&j, "payload");
  j = j0, j.payload_format = CUZK_PAYLOAD_POREP_C1_JSON;
  expect_bad(&j, "payload_format");
  j = j0, j.payload_is_ref = true, j.payload_ref.uri = "ftp://x/y", j.payload_ref.size = 1;
  expect_bad(&j, "scheme");
  j.payload_ref.uri = "HTTPS://x/y";
  assert_int_equal(cuzk_proof_job_validate(&j, NULL, 0), CUZK_OK);
  j.payload_ref.size = 0;
  expect_bad(&j, "size");
  /* PoRep: exactly one sector. */
  j = j0, j.proof_type = CUZK_PROOF_TYPE_POREP_C2, j.registered_proof = 8;
  j.sector_size = INT64_C(32) << 30, j.payload_format = CUZK_PAYLOAD_POREP_C1_JSON;
  j.n_sector_ids = 1;
  assert_int_equal(cuzk_proof_job_validate(&j, NULL, 0), CUZK_OK);
  j.n_sector_ids = 2;
  expect_bad(&j, "exactly one");
}

static void *decode_on_other_thread(void *arg) {
  cuzk_dead_letter_t d;
  uint8_t junk[12] = {0xC3, 0x01};
  cuzk_avro_decode(arg, CUZK_AVRO_DEAD_LETTER, &d, junk, sizeof junk, NULL, 0);
  return NULL;
}

/* The codec binds to the first thread that uses it; another thread trips an assert. */
static void test_one_thread(void **state) {
  (void)state;
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    fprintf(stderr, "(the child process below must fail the one-thread assert)\n");
    cuzk_avro_codec_t *c = new_codec();
    decode_on_other_thread(c); /* binds to this thread */
    pthread_t th;
    pthread_create(&th, NULL, decode_on_other_thread, c);
    pthread_join(th, NULL);
    _exit(0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_embedded_schemas),
      cmocka_unit_test(test_roundtrip_all),
      cmocka_unit_test(test_defaults_and_enum_names),
      cmocka_unit_test(test_confluent),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_validate),
      cmocka_unit_test(test_one_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
