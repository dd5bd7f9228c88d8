/* Robustness of the framed decoder: random and mutated inputs must give a typed error (or a
 * valid record), never a crash, a leak or a hang. Also run under the ASan/UBSan build
 * (cmake -DCUZK_SANITIZE=ON). tests/fuzz/fuzz_avro.c is the libFuzzer version. */
#include "tests/support/testlib.h"
#include "tests/unit/avro_samples.h"
#include "agent/avro/codec.h"

#include <stdlib.h>
#include <string.h>

#define N_INPUTS 12000

static int counts[CUZK_ERR__COUNT];

static void check_one(cuzk_avro_codec_t *c, cuzk_avro_type_t type, const uint8_t *buf, size_t len) {
  sample_any_t rec;
  char err[256] = "";
  cuzk_err_t e = cuzk_avro_decode(c, type, &rec, buf, len, err, sizeof err);
  assert_true(e >= 0 && e < CUZK_ERR__COUNT);
  counts[e]++;
  switch (e) {
  case CUZK_OK:
  case CUZK_ERR_BAD_JOB: {
    if (e == CUZK_OK) {
      /* Whatever decodes must encode again and decode to the same values. */
      uint8_t *again = NULL;
      size_t alen = 0;
      assert_int_equal(cuzk_avro_encode(c, type, &rec, &again, &alen, err, sizeof err), CUZK_OK);
      sample_any_t back;
      assert_int_equal(cuzk_avro_decode(c, type, &back, again, alen, err, sizeof err), CUZK_OK);
      json_t *a = sample_json(type, &rec), *b = sample_json(type, &back);
      assert_json_equal(b, a, "re-encoded record");
      json_decref(a);
      json_decref(b);
      cuzk_avro_record_clear(type, &back);
      free(again);
    }
    cuzk_avro_record_clear(type, &rec);
    break;
  }
  case CUZK_ERR_TOO_LARGE:
  case CUZK_ERR_TRUNCATED:
  case CUZK_ERR_PARSE:
  case CUZK_ERR_VERSION:
  case CUZK_ERR_SCHEMA:
    assert_true(err[0] != '\0');
    /* Nothing is left allocated in the record. */
    assert_null(((cuzk_dead_letter_t *)&rec)->job_id);
    break;
  default:
    fail_msg("untyped outcome %s (%s)", cuzk_err_name(e), err);
  }
}

static void mutate(cuzk_test_rng_t *r, uint8_t *buf, size_t *len, size_t cap) {
  int rounds = 1 + (int)(cuzk_test_rng_next(r) % 4);
  static const uint8_t interesting[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, 0xfe, 0x81};
  for (int i = 0; i < rounds && *len > 0; i++) {
    size_t pos = cuzk_test_rng_next(r) % *len;
    switch (cuzk_test_rng_next(r) % 6) {
    case 0: /* flip a bit, mostly in the body */
      buf[pos] ^= (uint8_t)(1u << (cuzk_test_rng_next(r) % 8));
      break;
    case 1:
      buf[pos] = interesting[cuzk_test_rng_next(r) % sizeof interesting];
      break;
    case 2: /* truncate */
      *len = pos;
      break;
    case 3: /* insert a byte */
      if (*len < cap) {
        memmove(buf + pos + 1, buf + pos, *len - pos);
        buf[pos] = (uint8_t)cuzk_test_rng_next(r);
        (*len)++;
      }
      break;
    case 4: /* delete a byte */
      memmove(buf + pos, buf + pos + 1, *len - pos - 1);
      (*len)--;
      break;
    default: /* a forged huge varint (length or count) */
      for (size_t k = pos; k < *len && k < pos + 9; k++)
        buf[k] = 0xff;
      if (pos + 9 < *len)
        buf[pos + 9] = 0x01;
      break;
    }
  }
}

static void test_fuzz_decoder(void **state) {
  (void)state;
  cuzk_avro_codec_conf_t conf;
  cuzk_avro_codec_conf_init(&conf);
  conf.max_message_bytes = 4096;
  for (int t = 0; t < CUZK_AVRO__COUNT; t++)
    conf.confluent_ids[t] = t + 1;
  cuzk_avro_codec_t *c = cuzk_avro_codec_new(&conf, NULL, 0);
  assert_non_null(c);
  cuzk_test_rng_t r;
  cuzk_test_rng_init(&r, cuzk_test_seed());
  static sample_arena_t arena;
  enum { CAP = 5000 };
  uint8_t *buf = malloc(CAP);
  for (int i = 0; i < N_INPUTS; i++) {
    cuzk_avro_type_t type = (cuzk_avro_type_t)(cuzk_test_rng_next(&r) % CUZK_AVRO__COUNT);
    size_t len;
    uint64_t mode = cuzk_test_rng_next(&r) % 4;
    if (mode == 0) {
      /* Random bytes behind a valid header for this (or another) type. */
      len = cuzk_test_rng_next(&r) % 300;
      cuzk_test_rng_bytes(&r, buf, len);
      cuzk_avro_type_t as = (cuzk_test_rng_next(&r) & 3) ? type : (cuzk_avro_type_t)(i % 5);
      if (len >= 10 && (i & 1))
        cuzk_avro_frame_put_header(buf, len, CUZK_AVRO_FRAMING_SINGLE_OBJECT,
                                   cuzk_avro_codec_fingerprint(c, as));
      else if (len >= 5)
        cuzk_avro_frame_put_header(buf, len, CUZK_AVRO_FRAMING_CONFLUENT, (uint64_t)as + 1);
    } else if (mode == 1) {
      len = cuzk_test_rng_next(&r) % 5000; /* pure noise, some over the limit */
      cuzk_test_rng_bytes(&r, buf, len);
    } else {
      /* A valid encoding, mutated. */
      sample_any_t rec;
      sample_record(type, &rec, &arena, &r);
      uint8_t *enc;
      assert_int_equal(cuzk_avro_encode(c, type, &rec, &enc, &len, NULL, 0), CUZK_OK);
      assert_true(len <= CAP);
      memcpy(buf, enc, len);
      free(enc);
      mutate(&r, buf, &len, CAP);
    }
    check_one(c, type, buf, len);
  }
  free(buf);
  int total = 0;
  fprintf(stderr, "fuzz: %d inputs:", N_INPUTS);
  for (int e = 0; e < CUZK_ERR__COUNT; e++) {
    total += counts[e];
    if (counts[e])
      fprintf(stderr, " %s=%d", cuzk_err_name((cuzk_err_t)e), counts[e]);
  }
  fprintf(stderr, "\n");
  assert_int_equal(total, N_INPUTS);
  /* The mix must reach both the deep paths and the early exits. */
  assert_true(counts[CUZK_OK] + counts[CUZK_ERR_BAD_JOB] > 100);
  assert_true(counts[CUZK_ERR_TRUNCATED] > 100);
  assert_true(counts[CUZK_ERR_PARSE] > 100);
  assert_true(counts[CUZK_ERR_SCHEMA] > 100);
  assert_true(counts[CUZK_ERR_TOO_LARGE] > 10);
  cuzk_avro_codec_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fuzz_decoder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
