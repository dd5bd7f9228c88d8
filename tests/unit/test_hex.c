#include "tests/support/testlib.h"
#include "core/util/hex.h"

#include <stdlib.h>
#include <string.h>

static void test_known_vectors(void **state) {
  (void)state;
  const uint8_t in[] = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xcd, 0xef, 0xff};
  char out[17];
  assert_int_equal(cuzk_hex_encode(out, sizeof out, in, sizeof in), CUZK_OK);
  assert_string_equal(out, "00017f80abcdefff");
  assert_int_equal(cuzk_hex_encoded_size(8), 17);
  assert_int_equal(cuzk_hex_encoded_size(0), 1);

  uint8_t dec[8];
  size_t len = 0;
  assert_int_equal(cuzk_hex_decode(dec, sizeof dec, &len, "00017F80aBcDeFfF", 16, 0), CUZK_OK);
  assert_int_equal(len, 8);
  assert_memory_equal(dec, in, 8);

  char empty[1] = {'z'};
  assert_int_equal(cuzk_hex_encode(empty, 1, NULL, 0), CUZK_OK);
  assert_string_equal(empty, "");
  assert_int_equal(cuzk_hex_decode(NULL, 0, &len, "", 0, 0), CUZK_OK);
  assert_int_equal(len, 0);
}

static void test_prefix(void **state) {
  (void)state;
  uint8_t b[2];
  size_t len = 99;
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "0xBEEF", 6, CUZK_HEX_ALLOW_0X), CUZK_OK);
  assert_int_equal(len, 2);
  assert_int_equal(b[0], 0xbe);
  assert_int_equal(b[1], 0xef);
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "0Xbeef", 6, CUZK_HEX_ALLOW_0X), CUZK_OK);
  assert_int_equal(b[0], 0xbe);
  /* without the flag the 'x' is a bad character */
  uint8_t b3[3];
  assert_int_equal(cuzk_hex_decode(b3, 3, &len, "0xbeef", 6, 0), CUZK_ERR_PARSE);
  /* the size check comes first: a too-small output is reported before parsing */
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "0xbeef", 6, 0), CUZK_ERR_TOO_LARGE);
  /* the flag does not require a prefix */
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "beef", 4, CUZK_HEX_ALLOW_0X), CUZK_OK);
  assert_int_equal(b[1], 0xef);
  /* a bare prefix decodes to nothing; a doubled one is an error */
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "0x", 2, CUZK_HEX_ALLOW_0X), CUZK_OK);
  assert_int_equal(len, 0);
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "0x0x", 4, CUZK_HEX_ALLOW_0X), CUZK_ERR_PARSE);
  /* "00" looks like a prefix start but is data */
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "00ff", 4, CUZK_HEX_ALLOW_0X), CUZK_OK);
  assert_int_equal(len, 2);
  assert_int_equal(b[0], 0x00);
  assert_int_equal(b[1], 0xff);
}

static void test_errors(void **state) {
  (void)state;
  uint8_t b[4];
  size_t len = 77;
  assert_int_equal(cuzk_hex_decode(b, 4, &len, "abc", 3, 0), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_hex_decode(b, 4, &len, "0xabc", 5, CUZK_HEX_ALLOW_0X), CUZK_ERR_PARSE);
  const char *bad[] = {"g0", "0g", " 0", "0 ", "-1", "+1", "0:", "@0", "`0", "G0", "/0", "\2000"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(cuzk_hex_decode(b, 4, &len, bad[i], 2, 0), CUZK_ERR_PARSE);
  /* a NUL inside the given length is a bad character, not an early end */
  assert_int_equal(cuzk_hex_decode(b, 4, &len, "ab\0d", 4, 0), CUZK_ERR_PARSE);

  /* output too small: needed size reported, nothing written */
  memset(b, 0x5a, sizeof b);
  len = 0;
  assert_int_equal(cuzk_hex_decode(b, 2, &len, "0011223344", 10, 0), CUZK_ERR_TOO_LARGE);
  assert_int_equal(len, 5);
  assert_int_equal(b[0], 0x5a);
  assert_int_equal(cuzk_hex_decode(b, 2, NULL, "001122", 6, 0), CUZK_ERR_TOO_LARGE);

  char out[8];
  memset(out, 'q', sizeof out);
  assert_int_equal(cuzk_hex_encode(out, 6, "abc", 3), CUZK_ERR_TOO_LARGE); /* needs 7 */
  assert_int_equal(out[0], 'q');
  assert_int_equal(cuzk_hex_encode(out, 7, "abc", 3), CUZK_OK);
  assert_string_equal(out, "616263");
  assert_int_equal(cuzk_hex_encode(out, 0, "", 0), CUZK_ERR_TOO_LARGE);
  assert_int_equal(cuzk_hex_encode(NULL, 8, "a", 1), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_hex_encode(out, 8, NULL, 1), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_hex_encode(out, 8, "a", SIZE_MAX), CUZK_ERR_TOO_LARGE);
  assert_int_equal(cuzk_hex_decode(NULL, 4, &len, "00", 2, 0), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_hex_decode(b, 4, &len, NULL, 2, 0), CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_hex_decode(b, 4, &len, "00", 2, 0x80), CUZK_ERR_INVALID_ARG);
}

static void test_exact(void **state) {
  (void)state;
  uint8_t b[4];
  assert_int_equal(cuzk_hex_decode_exact(b, 4, "DEADBEEF", 8, 0), CUZK_OK);
  assert_int_equal(b[0], 0xde);
  assert_int_equal(b[3], 0xef);
  assert_int_equal(cuzk_hex_decode_exact(b, 4, "0xdeadbeef", 10, CUZK_HEX_ALLOW_0X), CUZK_OK);
  assert_int_equal(cuzk_hex_decode_exact(b, 4, "deadbe", 6, 0), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_hex_decode_exact(b, 4, "deadbeef00", 10, 0), CUZK_ERR_PARSE);
  assert_int_equal(cuzk_hex_decode_exact(b, 4, "deadbeeg", 8, 0), CUZK_ERR_PARSE);
}

/* Random round trips checked against python's bytes.hex() / bytes.fromhex(). */
static void test_random_python_oracle(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  enum { CASES = 40, MAXLEN = 100 };
  char *input = malloc(CASES * (2 * MAXLEN + 2));
  char *expect = malloc(CASES * (2 * MAXLEN + 2));
  assert_non_null(input);
  assert_non_null(expect);
  size_t ip = 0, ep = 0;
  for (int c = 0; c < CASES; c++) {
    uint8_t buf[MAXLEN];
    size_t n = cuzk_test_rng_next(&rng) % (MAXLEN + 1);
    cuzk_test_rng_bytes(&rng, buf, n);
    char hex[2 * MAXLEN + 1];
    assert_int_equal(cuzk_hex_encode(hex, sizeof hex, buf, n), CUZK_OK);
    assert_int_equal(strlen(hex), 2 * n);
    /* the line python gets: uppercase for odd cases, to exercise decode of both cases */
    char up[2 * MAXLEN + 1];
    for (size_t i = 0; i <= 2 * n; i++)
      up[i] = (c & 1) && hex[i] >= 'a' ? (char)(hex[i] - 32) : hex[i];
    uint8_t back[MAXLEN];
    size_t len = 0;
    assert_int_equal(cuzk_hex_decode(back, sizeof back, &len, up, 2 * n, 0), CUZK_OK);
    assert_int_equal(len, n);
    if (n) assert_memory_equal(back, buf, n);
    ip += (size_t)sprintf(input + ip, "%s\n", up);
    ep += (size_t)sprintf(expect + ep, "%s\n", hex);
  }
  int status = -1;
  char *out = cuzk_test_run_cmd(
      "python3 -c 'import sys\nfor l in sys.stdin.read().splitlines(): "
      "print(bytes.fromhex(l).hex())'",
      input, &status);
  assert_int_equal(status, 0);
  assert_non_null(out);
  assert_string_equal(out, expect);
  free(out);
  free(input);
  free(expect);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_vectors),
      cmocka_unit_test(test_prefix),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_exact),
      cmocka_unit_test(test_random_python_oracle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
