/* Streaming save, parameters.json records and the trust rule of cuzk_groth16_params_load_known:
 * the digest written by save_digest equals Python's hashlib.blake2b of the file; records made by
 * digest_record are valid JSON for Python's json module and found by digest_check; a listed file
 * with a matching digest loads without subgroup checks (an order-3 point gets through) but still
 * with on-curve checks; an unlisted file gets every check; a listed file with another digest is
 * refused. */
#include "tests/support/testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/groth16/circuits.h"
#include "core/groth16/groth16.h"
#include "core/groth16/setup.h"
#include "core/util/file.h"

static char DIR_[64];
static cuzk_groth16_params_t *P;
static uint8_t *PBUF;
static size_t PLEN;

static int group_setup(void **state) {
  (void)state;
  const cuzk_circuit_t *c = cuzk_circuit_find("synthetic");
  cuzk_circuit_opts_t o = c->defaults;
  o.log_n = 9;
  cuzk_r1cs_t *r = NULL;
  char err[256];
  if (cuzk_circuit_record(&r, c, &o, err, sizeof err) != CUZK_OK) return -1;
  cuzk_groth16_toxic_t t;
  cuzk_groth16_toxic_from_seed(&t, 3);
  if (cuzk_groth16_setup(&P, r, &t, err, sizeof err) != CUZK_OK) return -1;
  cuzk_r1cs_free(r);
  PLEN = cuzk_groth16_params_size(P);
  PBUF = malloc(PLEN);
  cuzk_groth16_params_encode(PBUF, P);
  snprintf(DIR_, sizeof DIR_, "/tmp/cuzk-test-params-load-XXXXXX");
  return mkdtemp(DIR_) ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIR_);
  if (system(cmd) != 0) return -1;
  cuzk_groth16_params_free(P);
  free(PBUF);
  return 0;
}

static char *python(const char *script, const char *arg) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "python3 -c \"%s\" '%s'", script, arg);
  int status = -1;
  char *out = cuzk_test_run_cmd(cmd, "", &status);
  assert_non_null(out);
  assert_int_equal(status, 0);
  return out;
}

static void write_file(const char *path, const uint8_t *buf, size_t len) {
  char err[256];
  assert_int_equal(cuzk_file_write_atomic(path, buf, len, err, sizeof err), CUZK_OK);
}

static void test_save_digest(void **state) {
  (void)state;
  char path[128], err[256], d1[33], d2[33];
  snprintf(path, sizeof path, "%s/s.params", DIR_);
  assert_int_equal(cuzk_groth16_params_save_digest(P, path, d1, err, sizeof err), CUZK_OK);
  uint8_t *buf;
  size_t len;
  assert_int_equal(cuzk_file_read(path, (size_t)1 << 30, &buf, &len, err, sizeof err), CUZK_OK);
  assert_int_equal(len, PLEN);
  assert_memory_equal(buf, PBUF, PLEN);
  free(buf);
  assert_int_equal(cuzk_groth16_file_digest(d2, path, err, sizeof err), CUZK_OK);
  assert_string_equal(d1, d2);
  char *py = python(
      "import hashlib,sys; "
      "print(hashlib.blake2b(open(sys.argv[1],'rb').read()).hexdigest()[:32])",
      path);
  assert_memory_equal(py, d1, 32);
  free(py);
  /* no temporary file left behind; an unwritable target is a typed error */
  char cmd[256];
  snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c tmp", DIR_);
  int status;
  char *n = cuzk_test_run_cmd(cmd, "", &status);
  assert_non_null(n);
  assert_int_equal(atoi(n), 0);
  free(n);
  snprintf(path, sizeof path, "%s/missing/s.params", DIR_);
  cuzk_err_t e = cuzk_groth16_params_save_digest(P, path, d1, err, sizeof err);
  assert_true(e == CUZK_ERR_IO || e == CUZK_ERR_NOT_FOUND);
}

static void test_digest_record(void **state) {
  (void)state;
  char json[128], a[128], b[128], err[256];
  snprintf(json, sizeof json, "%s/rec.json", DIR_);
  snprintf(a, sizeof a, "%s/a.params", DIR_);
  snprintf(b, sizeof b, "%s/b.params", DIR_);
  write_file(a, PBUF, PLEN);
  write_file(b, PBUF, PLEN - 96); /* another content */
  char da[33], db[33];
  assert_int_equal(cuzk_groth16_file_digest(da, a, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_file_digest(db, b, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_digest_check(json, a, err, sizeof err), CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_groth16_digest_record(json, a, db, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_digest_check(json, a, err, sizeof err), CUZK_ERR_CHECKSUM);
  assert_int_equal(cuzk_groth16_digest_record(json, b, db, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_digest_record(json, a, da, err, sizeof err), CUZK_OK); /* replace */
  assert_int_equal(cuzk_groth16_digest_check(json, a, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_digest_check(json, b, err, sizeof err), CUZK_OK);
  char *py = python(
      "import json,sys; d=json.load(open(sys.argv[1])); "
      "print(len(d), d['a.params']['digest'], d['b.params']['digest'], "
      "d['a.params']['sector_size'])",
      json);
  char want[128];
  snprintf(want, sizeof want, "2 %s %s 0\n", da, db);
  assert_string_equal(py, want);
  free(py);
  /* an existing file in the published layout keeps its entries */
  FILE *f = fopen(json, "w");
  fputs("{\n  \"x.params\": {\"cid\": \"Qm\", \"digest\": \"00\", \"sector_size\": 2048}\n}\n", f);
  fclose(f);
  assert_int_equal(cuzk_groth16_digest_record(json, a, da, err, sizeof err), CUZK_OK);
  py = python(
      "import json,sys; d=json.load(open(sys.argv[1])); "
      "print(d['x.params']['digest'], d['x.params']['sector_size'], d['a.params']['digest'])",
      json);
  snprintf(want, sizeof want, "00 2048 %s\n", da);
  assert_string_equal(py, want);
  free(py);
  /* bad arguments */
  char bad[33];
  memcpy(bad, da, 33);
  bad[31] = 'G';
  assert_int_equal(cuzk_groth16_digest_record(json, a, bad, err, sizeof err), CUZK_ERR_INVALID_ARG);
  f = fopen(json, "w");
  fputs("[1, 2]\n", f);
  fclose(f);
  assert_int_equal(cuzk_groth16_digest_record(json, a, da, err, sizeof err), CUZK_ERR_PARSE);
}

static void expect_same(const cuzk_groth16_params_t *q) {
  assert_int_equal(cuzk_groth16_params_size(q), PLEN);
  uint8_t *b = malloc(PLEN);
  cuzk_groth16_params_encode(b, q);
  assert_memory_equal(b, PBUF, PLEN);
  free(b);
}

static void test_load_known(void **state) {
  (void)state;
  char path[128], json[128], nojson[128], err[256], d[33];
  snprintf(path, sizeof path, "%s/k.params", DIR_);
  snprintf(json, sizeof json, "%s/parameters.json", DIR_);
  snprintf(nojson, sizeof nojson, "%s/absent.json", DIR_);
  unlink(json);
  assert_int_equal(cuzk_groth16_params_save_digest(P, path, d, err, sizeof err), CUZK_OK);
  cuzk_groth16_params_t *q = NULL;
  bool trusted = true;
  /* not listed (no json path, a missing json, a json without the entry): every check */
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, NULL, &trusted, err, sizeof err),
                   CUZK_OK);
  assert_false(trusted);
  assert_true(q->insecure);
  expect_same(q);
  cuzk_groth16_params_free(q);
  trusted = true;
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, nojson, &trusted, err, sizeof err),
                   CUZK_OK);
  assert_false(trusted);
  cuzk_groth16_params_free(q);
  char other[128];
  snprintf(other, sizeof other, "%s/other.params", DIR_);
  assert_int_equal(cuzk_groth16_digest_record(json, other, d, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, json, &trusted, err, sizeof err),
                   CUZK_OK);
  assert_false(trusted);
  cuzk_groth16_params_free(q);
  /* listed with its digest: trusted, same points */
  assert_int_equal(cuzk_groth16_digest_record(json, path, d, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, json, &trusted, err, sizeof err),
                   CUZK_OK);
  assert_true(trusted);
  assert_true(q->insecure);
  expect_same(q);
  cuzk_groth16_params_free(q);

  /* an order-3 point (0, 2) in h[0]: refused unless listed */
  uint8_t *copy = malloc(PLEN);
  size_t h0 = cuzk_groth16_vk_size(&P->vk) + 4;
  memcpy(copy, PBUF, PLEN);
  memset(copy + h0, 0, 96);
  copy[h0 + 95] = 2;
  write_file(path, copy, PLEN);
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, json, &trusted, err, sizeof err),
                   CUZK_ERR_CHECKSUM); /* listed with the old digest */
  assert_null(q);
  assert_int_equal(cuzk_groth16_file_digest(d, path, err, sizeof err), CUZK_OK);
  snprintf(other, sizeof other, "%s/k2.params", DIR_);
  write_file(other, copy, PLEN);
  assert_int_equal(cuzk_groth16_params_load_known(&q, other, json, &trusted, err, sizeof err),
                   CUZK_ERR_NOT_IN_SUBGROUP);
  assert_null(q);
  assert_int_equal(cuzk_groth16_digest_record(json, path, d, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, json, &trusted, err, sizeof err),
                   CUZK_OK);
  assert_true(trusted);
  cuzk_groth16_params_free(q);

  /* off the curve (y + 1): refused even when listed */
  memcpy(copy, PBUF, PLEN);
  copy[h0 + 95] ^= 1;
  write_file(path, copy, PLEN);
  assert_int_equal(cuzk_groth16_file_digest(d, path, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_digest_record(json, path, d, err, sizeof err), CUZK_OK);
  q = (cuzk_groth16_params_t *)1;
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, json, &trusted, err, sizeof err),
                   CUZK_ERR_NOT_ON_CURVE);
  assert_null(q);
  assert_non_null(strstr(err, "h[0]"));
  free(copy);

  /* a listed file that does not exist; a json that is not readable as a file */
  snprintf(other, sizeof other, "%s/gone.params", DIR_);
  assert_int_equal(cuzk_groth16_digest_record(json, other, d, err, sizeof err), CUZK_OK);
  assert_int_equal(cuzk_groth16_params_load_known(&q, other, json, &trusted, err, sizeof err),
                   CUZK_ERR_NOT_FOUND);
  assert_int_equal(cuzk_groth16_params_load_known(&q, path, DIR_, &trusted, err, sizeof err),
                   CUZK_ERR_INVALID_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_save_digest),
      cmocka_unit_test(test_digest_record),
      cmocka_unit_test(test_load_known),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
