#include "tests/support/testlib.h"
#include "core/util/err.h"

#include <string.h>

static void test_names_and_messages(void **state) {
  (void)state;
  assert_int_equal(CUZK_OK, 0);
  assert_string_equal(cuzk_err_name(CUZK_OK), "CUZK_ERR_OK");
  assert_string_equal(cuzk_err_name(CUZK_ERR_NOT_ON_CURVE), "CUZK_ERR_NOT_ON_CURVE");
  assert_string_equal(cuzk_err_str(CUZK_ERR_NOT_ON_CURVE), "point is not on the curve");
  for (int e = 0; e < CUZK_ERR__COUNT; e++) {
    assert_non_null(cuzk_err_str((cuzk_err_t)e));
    assert_true(strncmp(cuzk_err_name((cuzk_err_t)e), "CUZK_ERR_", 9) == 0);
    for (int f = 0; f < e; f++)
      assert_true(strcmp(cuzk_err_name((cuzk_err_t)e), cuzk_err_name((cuzk_err_t)f)) != 0);
  }
}

static void test_out_of_range(void **state) {
  (void)state;
  assert_string_equal(cuzk_err_str((cuzk_err_t)-1), "unknown error");
  assert_string_equal(cuzk_err_name((cuzk_err_t)CUZK_ERR__COUNT), "CUZK_ERR_UNKNOWN");
  assert_false(cuzk_err_is_retriable((cuzk_err_t)9999));
}

static void test_retriable(void **state) {
  (void)state;
  assert_true(cuzk_err_is_retriable(CUZK_ERR_IO));
  assert_true(cuzk_err_is_retriable(CUZK_ERR_TIMEOUT));
  assert_true(cuzk_err_is_retriable(CUZK_ERR_GPU));
  assert_false(cuzk_err_is_retriable(CUZK_OK));
  assert_false(cuzk_err_is_retriable(CUZK_ERR_PARSE));
  assert_false(cuzk_err_is_retriable(CUZK_ERR_NOT_IN_SUBGROUP));
}

static void test_errf(void **state) {
  (void)state;
  char buf[16];
  assert_int_equal(cuzk_errf(CUZK_ERR_IO, buf, sizeof buf, "open %s: %d", "a-long-file-name", 5),
                   CUZK_ERR_IO);
  assert_int_equal(strlen(buf), sizeof buf - 1); /* truncated, still terminated */
  assert_int_equal(cuzk_errf(CUZK_ERR_IO, NULL, 0, "x"), CUZK_ERR_IO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_and_messages),
      cmocka_unit_test(test_out_of_range),
      cmocka_unit_test(test_retriable),
      cmocka_unit_test(test_errf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
