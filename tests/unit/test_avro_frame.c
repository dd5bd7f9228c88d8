/* Single-object and Confluent frame headers, and every error path of the parser. */
#include "tests/support/testlib.h"
#include "agent/avro/frame.h"

#include <string.h>

static void test_single_object(void **state) {
  (void)state;
  uint8_t buf[16] = {0};
  /* Fingerprint of "null" from the Avro spec table, 7195948357588979594 = 0x63dd24e7cc258f8a. */
  assert_int_equal(cuzk_avro_frame_put_header(buf, sizeof buf, CUZK_AVRO_FRAMING_SINGLE_OBJECT,
                                              0x63dd24e7cc258f8aULL), 10);
  const uint8_t want[10] = {0xC3, 0x01, 0x8a, 0x8f, 0x25, 0xcc, 0xe7, 0x24, 0xdd, 0x63};
  assert_memory_equal(buf, want, 10);
  buf[10] = 0x42;
  cuzk_avro_frame_t f;
  assert_int_equal(cuzk_avro_frame_parse(&f, buf, 11, 1024, NULL, 0), CUZK_OK);
  assert_int_equal(f.framing, CUZK_AVRO_FRAMING_SINGLE_OBJECT);
  assert_true(f.fingerprint == 0x63dd24e7cc258f8aULL);
  assert_ptr_equal(f.body, buf + 10);
  assert_int_equal(f.body_len, 1);
  assert_int_equal(cuzk_avro_frame_parse(&f, buf, 10, 1024, NULL, 0), CUZK_OK);
  assert_int_equal(f.body_len, 0);
  assert_int_equal(cuzk_avro_frame_put_header(buf, 9, CUZK_AVRO_FRAMING_SINGLE_OBJECT, 1), 0);
}

static void test_confluent(void **state) {
  (void)state;
  uint8_t buf[8] = {0};
  assert_int_equal(cuzk_avro_frame_put_header(buf, sizeof buf, CUZK_AVRO_FRAMING_CONFLUENT,
                                              0x01020304), 5);
  const uint8_t want[5] = {0x00, 0x01, 0x02, 0x03, 0x04};
  assert_memory_equal(buf, want, 5);
  cuzk_avro_frame_t f;
  assert_int_equal(cuzk_avro_frame_parse(&f, buf, 7, 1024, NULL, 0), CUZK_OK);
  assert_int_equal(f.framing, CUZK_AVRO_FRAMING_CONFLUENT);
  assert_int_equal(f.schema_id, 0x01020304);
  assert_int_equal(f.body_len, 2);
  assert_int_equal(cuzk_avro_frame_put_header(buf, sizeof buf, CUZK_AVRO_FRAMING_CONFLUENT,
                                              (uint64_t)INT32_MAX + 1), 0);
  assert_int_equal(cuzk_avro_frame_put_header(buf, 4, CUZK_AVRO_FRAMING_CONFLUENT, 1), 0);
}

static void test_errors(void **state) {
  (void)state;
  cuzk_avro_frame_t f;
  char err[128];
  const uint8_t so[12] = {0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  err[0] = '\0';
  assert_int_equal(cuzk_avro_frame_parse(&f, so, 12, 11, err, sizeof err), CUZK_ERR_TOO_LARGE);
  assert_non_null(strstr(err, "limit"));
  assert_int_equal(cuzk_avro_frame_parse(&f, so, 0, 11, NULL, 0), CUZK_ERR_TRUNCATED);
  assert_int_equal(cuzk_avro_frame_parse(&f, NULL, 0, 11, NULL, 0), CUZK_ERR_TRUNCATED);
  for (size_t n = 1; n < 10; n++)
    assert_int_equal(cuzk_avro_frame_parse(&f, so, n, 11, NULL, 0), CUZK_ERR_TRUNCATED);
  const uint8_t v2[10] = {0xC3, 0x02};
  assert_int_equal(cuzk_avro_frame_parse(&f, v2, 10, 64, NULL, 0), CUZK_ERR_VERSION);
  const uint8_t cf[5] = {0x00, 0x80, 0, 0, 1};
  for (size_t n = 1; n < 5; n++)
    assert_int_equal(cuzk_avro_frame_parse(&f, cf, n, 64, NULL, 0), CUZK_ERR_TRUNCATED);
  assert_int_equal(cuzk_avro_frame_parse(&f, cf, 5, 64, NULL, 0), CUZK_ERR_SCHEMA);
  for (int b = 0; b < 256; b++) {
    if (b == 0x00 || b == 0xC3)
      continue;
    uint8_t x[12] = {(uint8_t)b, 0x01};
    assert_int_equal(cuzk_avro_frame_parse(&f, x, sizeof x, 64, NULL, 0), CUZK_ERR_PARSE);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_single_object),
      cmocka_unit_test(test_confluent),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
