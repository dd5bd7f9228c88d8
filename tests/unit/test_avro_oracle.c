/* Our Avro codec and canonical form against independent implementations:
 *  - python-avro (Debian python3-avro) through tests/oracles/avro_roundtrip.py: it decodes what we
 *    encode and we decode what it encodes, field by field, including a job written with an older
 *    schema (our defaults fill the rest); its fingerprints are computed in Python, bit-serially;
 *  - avsc (npm) through tests/oracles/avro_canonical.js: the Parsing Canonical Form of our five
 *    schemas.
 * Each part skips when its oracle is absent. */
#include "tests/support/testlib.h"
#include "tests/unit/avro_samples.h"
#include "agent/avro/canonical.h"
#include "agent/avro/codec.h"
#include "agent/avro/fingerprint.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PER_TYPE 40

static const char *old_job_schema =
    "{\"type\":\"record\",\"name\":\"ProofJob\",\"namespace\":\"cuzk\",\"fields\":["
    "{\"name\":\"job_id\",\"type\":\"string\"},"
    "{\"name\":\"proof_type\",\"type\":{\"type\":\"enum\",\"name\":\"ProofType\","
    "\"symbols\":[\"WINNING_POST\",\"WINDOW_POST\",\"SNAP_DEALS\",\"POREP_C2\"]}},"
    "{\"name\":\"registered_proof\",\"type\":\"int\"},"
    "{\"name\":\"sector_size\",\"type\":\"long\"},"
    "{\"name\":\"created_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
    "{\"name\":\"payload\",\"type\":[\"bytes\",{\"type\":\"record\",\"name\":\"PayloadRef\","
    "\"fields\":[{\"name\":\"uri\",\"type\":\"string\"},{\"name\":\"sha256\",\"type\":"
    "{\"type\":\"fixed\",\"name\":\"Sha256\",\"size\":32}},{\"name\":\"size\",\"type\":\"long\"}]}]},"
    "{\"name\":\"payload_format\",\"type\":{\"type\":\"enum\",\"name\":\"PayloadFormat\",\"symbols\":"
    "[\"POST_VANILLA_BINCODE\",\"POST_VANILLA_JSON\",\"SNAP_VANILLA_BINCODE\",\"SNAP_VANILLA_JSON\","
    "\"POREP_C1_JSON\",\"POREP_C1_BINCODE\"]}}]}";

static char *run_python(const char *request, int *status) {
  char cmd[1024];
  const char *src = getenv("CUZK_SOURCE_DIR");
  /* The system interpreter carries python3-avro even where another python3 is first on PATH. */
  const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  snprintf(cmd, sizeof cmd, "%s '%s/tests/oracles/avro_roundtrip.py'", py, src);
  return cuzk_test_run_cmd(cmd, request, status);
}

static json_t *hex_json(const uint8_t *p, size_t n) { return sj_hex(p, n); }

static uint8_t *unhex(const char *h, size_t *n) {
  size_t l = strlen(h) / 2;
  uint8_t *b = malloc(l + 1);
  for (size_t i = 0; i < l; i++) {
    unsigned v;
    assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
    b[i] = (uint8_t)v;
  }
  *n = l;
  return b;
}

static void test_python_avro(void **state) {
  (void)state;
  const char *src = getenv("CUZK_SOURCE_DIR");
  if (src == NULL) {
    fprintf(stderr, "SKIP: CUZK_SOURCE_DIR is not set (run through ctest)\n");
    skip();
  }
  cuzk_avro_codec_t *c = NULL;
  {
    cuzk_avro_codec_conf_t conf;
    cuzk_avro_codec_conf_init(&conf);
    char err[256] = "";
    c = cuzk_avro_codec_new(&conf, err, sizeof err);
    if (c == NULL)
      fail_msg("%s", err);
    assert_int_equal(cuzk_avro_codec_add_schema(c, CUZK_AVRO_PROOF_JOB, old_job_schema,
                                                strlen(old_job_schema), -1, err, sizeof err),
                     CUZK_OK);
  }
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  static sample_arena_t arena;
  json_t *ops = json_array();
  json_t *expect = json_array(); /* per op: what the answer must hold */
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/schemas", src);
  for (int t = 0; t < CUZK_AVRO__COUNT; t++) {
    json_array_append_new(ops, json_pack("{s:s,s:s}", "op", "canonical", "name", cuzk_avro_type_name(t)));
    json_array_append_new(expect, json_null());
  }
  for (int t = 0; t < CUZK_AVRO__COUNT; t++) {
    for (int i = 0; i < PER_TYPE; i++) {
      sample_any_t rec;
      sample_record((cuzk_avro_type_t)t, &rec, &arena, &r);
      uint8_t *buf;
      size_t len;
      assert_int_equal(cuzk_avro_encode(c, (cuzk_avro_type_t)t, &rec, &buf, &len, NULL, 0), CUZK_OK);
      json_t *datum = sample_json((cuzk_avro_type_t)t, &rec);
      json_array_append_new(ops, json_pack("{s:s,s:s,s:o}", "op", "decode", "name",
                                           cuzk_avro_type_name(t), "hex", hex_json(buf, len)));
      json_array_append(expect, datum);
      json_array_append_new(ops, json_pack("{s:s,s:s,s:O}", "op", "encode", "name",
                                           cuzk_avro_type_name(t), "datum", datum));
      json_array_append_new(expect, datum);
      free(buf);
    }
  }
  /* A job from an older writer: python writes it, our defaults fill what it lacks. */
  json_t *old = json_pack("{s:s,s:s,s:i,s:I,s:I,s:s,s:s}", "job_id", "old-py", "proof_type",
                          "SNAP_DEALS", "registered_proof", 3, "sector_size",
                          (json_int_t)(INT64_C(32) << 30), "created_at", (json_int_t)1700000000000,
                          "payload", "616263", "payload_format", "SNAP_VANILLA_JSON");
  json_array_append_new(ops, json_pack("{s:s,s:s,s:O,s:s}", "op", "encode", "name", "ProofJob",
                                       "datum", old, "schema", old_job_schema));
  json_t *old_full = json_deep_copy(old);
  json_object_set_new(old_full, "miner_id", json_integer(0));
  json_object_set_new(old_full, "prover_id", json_string(""));
  json_object_set_new(old_full, "sector_ids", json_array());
  json_object_set_new(old_full, "randomness", json_null());
  json_object_set_new(old_full, "priority", json_null());
  json_object_set_new(old_full, "deadline", json_null());
  json_object_set_new(old_full, "attempt", json_integer(0));
  json_object_set_new(old_full, "labels", json_object());
  json_array_append_new(expect, old_full);
  json_decref(old);

  json_t *req = json_pack("{s:s,s:O}", "schema_dir", dir, "ops", ops);
  char *text = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  int status = -1;
  char *out = run_python(text, &status);
  free(text);
  if (status == CUZK_TEST_SKIP) {
    free(out);
    json_decref(expect);
    json_decref(ops);
    cuzk_avro_codec_free(c);
    fprintf(stderr, "SKIP: python3-avro is not available\n");
    skip();
  }
  if (out == NULL || status != 0)
    fail_msg("avro_roundtrip.py exited %d: %s", status, out ? out : "(no output)");
  json_error_t jerr;
  json_t *answers = json_loads(out, 0, &jerr);
  if (answers == NULL)
    fail_msg("oracle output is not JSON: %s", jerr.text);
  free(out);
  assert_int_equal(json_array_size(answers), json_array_size(expect));
  size_t n_dec = 0, n_enc = 0;
  for (size_t k = 0; k < json_array_size(answers); k++) {
    json_t *a = json_array_get(answers, k), *want = json_array_get(expect, k);
    if (k < CUZK_AVRO__COUNT) {
      /* python-avro's canonical form and a Python bit-serial Rabin fingerprint. */
      size_t len;
      const char *js = cuzk_avro_schema_json((cuzk_avro_type_t)k, &len);
      char *canon;
      size_t cl;
      assert_int_equal(cuzk_avro_canonical(&canon, &cl, js, len, NULL, 0), CUZK_OK);
      assert_string_equal(canon, json_string_value(json_object_get(a, "canonical")));
      free(canon);
      int64_t py_fp = json_integer_value(json_object_get(a, "fingerprint"));
      assert_true((uint64_t)py_fp == cuzk_avro_codec_fingerprint(c, (cuzk_avro_type_t)k));
      continue;
    }
    json_t *datum = json_object_get(a, "datum");
    if (datum != NULL) {
      assert_json_equal(datum, want, "python-avro's decoding of our encoding");
      n_dec++;
      continue;
    }
    const char *hex = json_string_value(json_object_get(a, "hex"));
    assert_non_null(hex);
    const char *name = json_string_value(json_object_get(json_array_get(ops, k), "name"));
    cuzk_avro_type_t t = CUZK_AVRO_PROOF_JOB;
    while (strcmp(cuzk_avro_type_name(t), name) != 0)
      t++;
    size_t len;
    uint8_t *msg = unhex(hex, &len);
    sample_any_t rec;
    char err[256] = "";
    cuzk_err_t e = cuzk_avro_decode(c, t, &rec, msg, len, err, sizeof err);
    if (e != CUZK_OK)
      fail_msg("decoding python-avro's %s: %s %s", name, cuzk_err_name(e), err);
    json_t *got = sample_json(t, &rec);
    assert_json_equal(got, want, "our decoding of python-avro's encoding");
    json_decref(got);
    cuzk_avro_record_clear(t, &rec);
    free(msg);
    n_enc++;
  }
  fprintf(stderr, "python-avro: %zu records decoded by python, %zu by us\n", n_dec, n_enc);
  assert_int_equal(n_dec, CUZK_AVRO__COUNT * PER_TYPE);
  assert_int_equal(n_enc, CUZK_AVRO__COUNT * PER_TYPE + 1);
  json_decref(answers);
  json_decref(expect);
  json_decref(ops);
  cuzk_avro_codec_free(c);
}

static void test_avsc_canonical(void **state) {
  (void)state;
  if (cuzk_test_oracles_dir() == NULL) {
    fprintf(stderr, "SKIP: npm oracles (tests/oracles/node_modules) are absent\n");
    skip();
  }
  json_t *in = json_array();
  for (int t = 0; t < CUZK_AVRO__COUNT; t++)
    json_array_append_new(in, json_string(cuzk_avro_schema_json((cuzk_avro_type_t)t, NULL)));
  char *text = json_dumps(in, JSON_COMPACT);
  json_decref(in);
  char *out = cuzk_test_run_node("avro_canonical.js", text);
  free(text);
  assert_non_null(out);
  json_t *answers = json_loads(out, 0, NULL);
  assert_non_null(answers);
  free(out);
  assert_int_equal(json_array_size(answers), CUZK_AVRO__COUNT);
  for (int t = 0; t < CUZK_AVRO__COUNT; t++) {
    size_t len;
    const char *js = cuzk_avro_schema_json((cuzk_avro_type_t)t, &len);
    char *canon;
    size_t cl;
    assert_int_equal(cuzk_avro_canonical(&canon, &cl, js, len, NULL, 0), CUZK_OK);
    assert_string_equal(canon, json_string_value(json_array_get(answers, t)));
    fprintf(stderr, "%s fingerprint %016llx (avsc canonical form agrees)\n",
            cuzk_avro_type_name(t), (unsigned long long)cuzk_avro_fingerprint64(canon, cl));
    free(canon);
  }
  json_decref(answers);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_python_avro),
      cmocka_unit_test(test_avsc_canonical),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
