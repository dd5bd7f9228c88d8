/* Parsing Canonical Form and CRC-64-AVRO fingerprints against the Avro project's own table
 * (../shared/vectors/avro/schema-tests.txt), plus the fingerprint table from its polynomial. */
#include "tests/support/testlib.h"
#include "agent/avro/canonical.h"
#include "agent/avro/fingerprint.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char id[16];
  char *input, *canonical;
  bool has_fp;
  int64_t fp;
} vcase_t;

static char *xstrdup(const char *s) {
  char *p = strdup(s);
  assert_non_null(p);
  return p;
}

/* Parses the file format described in vectors/avro/README.md: "// NNN" opens a case,
 * "<<KEY value" is a one-line entry and "<<KEY" alone starts a block that ends at a line
 * equal to KEY. Other lines starting with "//" or "#" are comments. */
static size_t load_cases(const char *path, vcase_t **out) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  vcase_t *cases = NULL;
  size_t n = 0;
  char line[4096];
  while (fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (strncmp(line, "// ", 3) == 0 && line[3] >= '0' && line[3] <= '9' && strlen(line) < 12) {
      cases = realloc(cases, (n + 1) * sizeof *cases);
      assert_non_null(cases);
      memset(&cases[n], 0, sizeof cases[n]);
      snprintf(cases[n].id, sizeof cases[n].id, "%.8s", line + 3);
      n++;
      continue;
    }
    if (strncmp(line, "<<", 2) != 0)
      continue;
    assert_true(n > 0);
    vcase_t *c = &cases[n - 1];
    char key[32];
    size_t kl = strcspn(line + 2, " ");
    assert_true(kl < sizeof key);
    memcpy(key, line + 2, kl);
    key[kl] = '\0';
    char *value;
    if (line[2 + kl] == '\0') {
      size_t cap = 1, len = 0;
      value = calloc(1, 1);
      char bl[4096];
      bool closed = false;
      while (fgets(bl, sizeof bl, f) != NULL) {
        bl[strcspn(bl, "\r\n")] = '\0';
        if (strcmp(bl, key) == 0) {
          closed = true;
          break;
        }
        size_t l = strlen(bl);
        cap += l + 1;
        value = realloc(value, cap);
        assert_non_null(value);
        memcpy(value + len, bl, l);
        value[len + l] = '\n';
        len += l + 1;
        value[len] = '\0';
      }
      assert_true(closed);
    } else {
      value = xstrdup(line + 3 + kl);
    }
    if (strcmp(key, "INPUT") == 0) {
      c->input = value;
    } else if (strcmp(key, "canonical") == 0) {
      c->canonical = value;
    } else if (strcmp(key, "fingerprint") == 0) {
      c->has_fp = true;
      c->fp = strtoll(value, NULL, 10);
      free(value);
    } else {
      free(value);
    }
  }
  fclose(f);
  *out = cases;
  return n;
}

static void test_vectors(void **state) {
  (void)state;
  char path[1024];
  if (cuzk_test_vector_path(path, sizeof path, "avro/schema-tests.txt") == NULL)
    skip();
  vcase_t *cases = NULL;
  size_t n = load_cases(path, &cases);
  assert_true(n >= 34); /* 000..033 in the Avro 1.11 file */
  size_t n_fp = 0;
  for (size_t i = 0; i < n; i++) {
    vcase_t *c = &cases[i];
    assert_non_null(c->input);
    assert_non_null(c->canonical);
    char *canon = NULL, err[256] = "";
    size_t cl = 0;
    cuzk_err_t e = cuzk_avro_canonical(&canon, &cl, c->input, strlen(c->input), err, sizeof err);
    if (e != CUZK_OK)
      fail_msg("case %s: %s (%s)", c->id, cuzk_err_name(e), err);
    if (strcmp(canon, c->canonical) != 0)
      fail_msg("case %s:\n  got  %s\n  want %s", c->id, canon, c->canonical);
    assert_int_equal(cl, strlen(canon));
    if (c->has_fp) {
      uint64_t fp = cuzk_avro_fingerprint64(canon, cl), fp2 = 0;
      if ((int64_t)fp != c->fp)
        fail_msg("case %s: fingerprint %" PRId64 ", want %" PRId64, c->id, (int64_t)fp, c->fp);
      assert_int_equal(cuzk_avro_schema_fingerprint(&fp2, c->input, strlen(c->input), NULL, 0),
                       CUZK_OK);
      assert_true(fp2 == fp);
      n_fp++;
    }
    free(canon);
    free(c->input);
    free(c->canonical);
  }
  assert_true(n_fp >= 20);
  fprintf(stderr, "schema-tests: %zu cases, %zu fingerprints checked\n", n, n_fp);
  free(cases);
}

static void test_table_from_polynomial(void **state) {
  (void)state;
  for (uint64_t i = 0; i < 256; i++) {
    uint64_t fp = i;
    for (int j = 0; j < 8; j++)
      fp = (fp >> 1) ^ ((fp & 1) ? CUZK_AVRO_FP_EMPTY : 0);
    assert_true(cuzk_avro_fp_table[i] == fp);
  }
  assert_true(cuzk_avro_fingerprint64(NULL, 0) == CUZK_AVRO_FP_EMPTY);
  /* Bit-serial definition for one input, independent of the table. */
  const char *s = "\"string\"";
  uint64_t fp = CUZK_AVRO_FP_EMPTY;
  for (const char *p = s; *p; p++) {
    fp ^= (uint8_t)*p;
    for (int j = 0; j < 8; j++)
      fp = (fp >> 1) ^ ((fp & 1) ? CUZK_AVRO_FP_EMPTY : 0);
  }
  assert_true(fp == cuzk_avro_fingerprint64(s, strlen(s)));
  assert_true((int64_t)fp == INT64_C(-8142146995180207161));
}

static void expect_parse_error(const char *json) {
  char *canon = NULL, err[256] = "";
  size_t cl = 0;
  cuzk_err_t e = cuzk_avro_canonical(&canon, &cl, json, strlen(json), err, sizeof err);
  if (e != CUZK_ERR_PARSE)
    fail_msg("%s: got %s, want CUZK_ERR_PARSE", json, cuzk_err_name(e));
  assert_null(canon);
  assert_true(err[0] != '\0');
}

static void test_errors(void **state) {
  (void)state;
  expect_parse_error("");
  expect_parse_error("{");
  expect_parse_error("42");
  expect_parse_error("\"\"");
  expect_parse_error("{\"type\":\"record\",\"name\":\"r\"}");
  expect_parse_error("{\"type\":\"record\",\"fields\":[]}");
  expect_parse_error("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\"}]}");
  expect_parse_error("{\"type\":\"enum\",\"name\":\"e\"}");
  expect_parse_error("{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[1]}");
  expect_parse_error("{\"type\":\"fixed\",\"name\":\"f\",\"size\":-1}");
  expect_parse_error("{\"type\":\"fixed\",\"name\":\"f\",\"size\":\"4\"}");
  expect_parse_error("{\"type\":\"array\"}");
  expect_parse_error("{\"type\":\"map\"}");
  expect_parse_error("{\"name\":\"x\"}");
  expect_parse_error("{\"type\":\"int\",\"type\":\"long\"}");
  char deep[1024] = "";
  for (int i = 0; i < 100; i++)
    strcat(deep, "[");
  strcat(deep, "\"int\"");
  for (int i = 0; i < 100; i++)
    strcat(deep, "]");
  expect_parse_error(deep);
}

static void test_fullnames_and_logical(void **state) {
  (void)state;
  const char *in =
      "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"cuzk\",\"doc\":\"d\\u00e9\","
      "\"fields\":[{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
      "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]},\"default\":\"A\"},"
      "{\"name\":\"e2\",\"type\":\"E\"},{\"name\":\"o\",\"type\":{\"type\":\"fixed\",\"name\":\"F\","
      "\"namespace\":\"\",\"size\":0032}},{\"name\":\"q\",\"type\":\"other.Q\"}]}";
  /* 0032 is not valid JSON: the parser must refuse it rather than guess. */
  expect_parse_error(in);
  const char *ok =
      "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"cuzk\",\"doc\":\"d\\u00e9\","
      "\"fields\":[{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
      "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\\u00e9\"]},\"default\":\"A\"},"
      "{\"name\":\"e2\",\"type\":\"E\"},{\"name\":\"o\",\"type\":{\"type\":\"fixed\",\"name\":\"F\","
      "\"namespace\":\"\",\"size\":32}},{\"name\":\"q\",\"type\":\"other.Q\"}]}";
  const char *want =
      "{\"name\":\"cuzk.R\",\"type\":\"record\",\"fields\":[{\"name\":\"t\",\"type\":\"long\"},"
      "{\"name\":\"e\",\"type\":{\"name\":\"cuzk.E\",\"type\":\"enum\",\"symbols\":[\"A\xc3\xa9\"]}},"
      "{\"name\":\"e2\",\"type\":\"cuzk.E\"},{\"name\":\"o\",\"type\":{\"name\":\"F\",\"type\":\"fixed\","
      "\"size\":32}},{\"name\":\"q\",\"type\":\"other.Q\"}]}";
  char *canon = NULL;
  size_t cl = 0;
  assert_int_equal(cuzk_avro_canonical(&canon, &cl, ok, strlen(ok), NULL, 0), CUZK_OK);
  assert_string_equal(canon, want);
  free(canon);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vectors),
      cmocka_unit_test(test_table_from_polynomial),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_fullnames_and_logical),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
