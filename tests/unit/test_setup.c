/* The test setup's output is pinned: for fixed toxic waste the .params bytes (and the file that
 * params_save writes) must hash to values recorded from the original single-window code
 * (commit 0687ab2, before the setup was parallelised and its windows widened). Any change to how
 * the setup computes its points must leave these bytes identical: the points are unique affine
 * values, so a correct rewrite cannot move them.
 *
 * The same circuits are also set up with forced window widths, chunk sizes and block sizes
 * (cuzk__setup_force), so the pins cover the paths that only large sizes take by default: many
 * tasks per phase, several QAP row chunks and column blocks, windows that straddle 64-bit limbs,
 * chunks of one point. The 16-bit window (the default at 2^24) is checked in G1 against
 * independent double-and-add multiplications. */
#include "tests/support/testlib.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/groth16/circuits.h"
#include "core/groth16/groth16.h"
#include "core/groth16/setup.h"
#include "core/util/file.h"

typedef struct {
  unsigned log_n;
  uint32_t num_public;
  uint64_t circuit_seed, toxic_seed;
  const char *sha256; /* of the encoded .params */
} pin_t;

static const pin_t PINS[] = {
    {6, 2, 3, 11, "85004be7db1dae08a8e0ec3cf2c4854e572668825d4195100e3520fecc3ca46d"},
    {10, 4, 1, 7, "a2d51d93eb6fd9f9271b449d410d607d57d93351c5483e3335f6fd60c84106ca"},
    {12, 5, 9, 1, "f39a5b4ee875d0799bd61e6a7e9aa532a514e831187e32c71e6f399ab0b276ee"},
};

static void sha256_hex(char out[65], const uint8_t *buf, size_t len) {
  uint8_t md[32];
  unsigned mlen = 0;
  EVP_Digest(buf, len, md, &mlen, EVP_sha256(), NULL);
  for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static cuzk_r1cs_t *record(const pin_t *pin) {
  const cuzk_circuit_t *c = cuzk_circuit_find("synthetic");
  assert_non_null(c);
  cuzk_circuit_opts_t o = c->defaults;
  o.log_n = pin->log_n;
  o.num_public = pin->num_public;
  o.seed = pin->circuit_seed;
  cuzk_r1cs_t *r = NULL;
  char err[256];
  if (cuzk_circuit_record(&r, c, &o, err, sizeof err) != CUZK_OK) fail_msg("record: %s", err);
  return r;
}

static void params_sha(char out[65], const cuzk_r1cs_t *r, uint64_t toxic_seed) {
  cuzk_groth16_toxic_t t;
  cuzk_groth16_toxic_from_seed(&t, toxic_seed);
  cuzk_groth16_params_t *p = NULL;
  char err[256];
  if (cuzk_groth16_setup(&p, r, &t, err, sizeof err) != CUZK_OK) fail_msg("setup: %s", err);
  size_t len = cuzk_groth16_params_size(p);
  uint8_t *buf = malloc(len);
  assert_non_null(buf);
  cuzk_groth16_params_encode(buf, p);
  sha256_hex(out, buf, len);
  free(buf);
  cuzk_groth16_params_free(p);
}

static void test_pinned(void **state) {
  (void)state;
  int bad = 0;
  for (size_t k = 0; k < sizeof PINS / sizeof PINS[0]; k++) {
    cuzk_r1cs_t *r = record(&PINS[k]);
    char h[65];
    params_sha(h, r, PINS[k].toxic_seed);
    printf("log_n=%u sha256=%s\n", PINS[k].log_n, h);
    bad += strcmp(h, PINS[k].sha256) != 0;
    cuzk_r1cs_free(r);
  }
  assert_int_equal(bad, 0);
}

static void test_pinned_forced(void **state) {
  (void)state;
  static const unsigned cfg[][3] = {
      {13, 1, 6}, {2, 64, 6}, {3, 5, 6}, {5, 64, 7}, {7, 33, 8}, {11, 256, 6}, {12, 1000, 9},
  };
  int bad = 0;
  for (size_t k = 0; k < sizeof PINS / sizeof PINS[0]; k++) {
    cuzk_r1cs_t *r = record(&PINS[k]);
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
      /* the larger circuits only with moderate windows: the rest is slow and adds nothing */
      if (PINS[k].log_n > 6 && (cfg[c][0] < 5 || cfg[c][0] > 11 || cfg[c][1] < 5)) continue;
      if (PINS[k].log_n > 10 && cfg[c][0] != 7) continue;
      cuzk__setup_force(cfg[c][0], cfg[c][1], cfg[c][2]);
      char h[65];
      params_sha(h, r, PINS[k].toxic_seed);
      if (strcmp(h, PINS[k].sha256) != 0) {
        printf("log_n=%u bits=%u chunk=%u block_log=%u: sha256=%s\n", PINS[k].log_n, cfg[c][0],
               cfg[c][1], cfg[c][2], h);
        bad++;
      }
    }
    cuzk__setup_force(0, 0, 0);
    cuzk_r1cs_free(r);
  }
  assert_int_equal(bad, 0);
}

/* 16-bit windows (1 M table points) in G1, against double-and-add (cuzk_g1_mul_vartime) on
 * random scalars and the edge scalars 0, 1, -1, 2^16 - 1, 2^16, 2^240, r - 2^240. */
static void test_window16_g1(void **state) {
  (void)state;
  cuzk_test_rng_t rng;
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  enum { N = 200 };
  cuzk_fr_t k[N];
  for (int i = 0; i < N; i++) {
    uint8_t wide[64];
    cuzk_test_rng_bytes(&rng, wide, 64);
    cuzk_fr_from_le_wide(&k[i], wide);
  }
  uint64_t raw[4] = {0};
  k[0] = CUZK_FR_ZERO;
  k[1] = CUZK_FR_ONE;
  cuzk_fr_neg(&k[2], &CUZK_FR_ONE);
  cuzk_fr_from_u64(&k[3], 65535);
  cuzk_fr_from_u64(&k[4], 65536);
  raw[3] = 1ull << 48;
  cuzk_fr_from_raw(&k[5], raw);
  cuzk_fr_neg(&k[6], &k[5]);
  cuzk_g1_t g, x;
  cuzk_g1_generator(&g);
  cuzk_g1_dbl(&g, &g);
  cuzk_g1_affine_t out[N], want;
  cuzk__setup_force(16, 64, 0);
  assert_int_equal(cuzk_g1_fixed_base_batch(out, &g, k, N), CUZK_OK);
  cuzk__setup_force(0, 0, 0);
  for (int i = 0; i < N; i++) {
    cuzk_g1_mul_vartime(&x, &g, &k[i]);
    cuzk_g1_to_affine(&want, &x);
    if (!cuzk_g1_affine_eq(&want, &out[i])) fail_msg("scalar %d", i);
  }
  assert_true(cuzk_g1_affine_is_infinity(&out[0]));
}

/* params_save writes exactly the encoded bytes (plus the insecure marker). */
static void test_save_pinned(void **state) {
  (void)state;
  const pin_t *pin = &PINS[1];
  cuzk_r1cs_t *r = record(pin);
  cuzk_groth16_toxic_t t;
  cuzk_groth16_toxic_from_seed(&t, pin->toxic_seed);
  cuzk_groth16_params_t *p = NULL;
  char err[256], dir[] = "/tmp/cuzk-test-setup-XXXXXX", path[128], side[160];
  assert_int_equal(cuzk_groth16_setup(&p, r, &t, err, sizeof err), CUZK_OK);
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/x.params", dir);
  snprintf(side, sizeof side, "%s.insecure", path);
  assert_int_equal(cuzk_groth16_params_save(p, path, err, sizeof err), CUZK_OK);
  uint8_t *buf;
  size_t len;
  assert_int_equal(cuzk_file_read(path, (size_t)1 << 30, &buf, &len, err, sizeof err), CUZK_OK);
  assert_int_equal(len, cuzk_groth16_params_size(p));
  char h[65];
  sha256_hex(h, buf, len);
  assert_string_equal(h, pin->sha256);
  assert_int_equal(access(side, F_OK), 0);
  free(buf);
  unlink(path), unlink(side), rmdir(dir);
  cuzk_groth16_params_free(p);
  cuzk_r1cs_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pinned),
      cmocka_unit_test(test_save_pinned),
      cmocka_unit_test(test_pinned_forced),
      cmocka_unit_test(test_window16_g1),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
