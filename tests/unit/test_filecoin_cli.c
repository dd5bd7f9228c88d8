/* `cuzk hash poseidon` and `cuzk inspect vanilla` run in-process through cuzk_cli_main: the
 * published Poseidon vector, the real 32GiB WindowPoSt vector (passes, and fails once altered),
 * the verify-info JSON reader, and usage errors. */
#include "tests/support/testlib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/cli.h"
#include "core/filecoin/verify_info.h"
#include "core/util/file.h"

/* Runs the CLI with args, capturing stdout into a malloc'd string. */
static char *run(int *rc, int argc, char **argv) {
  char path[] = "/tmp/cuzk-cli-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stdout);
  int saved = dup(1);
  dup2(fd, 1);
  *rc = cuzk_cli_main(argc, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  uint8_t *buf;
  size_t len;
  char err[200];
  assert_int_equal(cuzk_file_read(path, 1 << 24, &buf, &len, err, sizeof err), CUZK_OK);
  unlink(path);
  return (char *)buf;
}

/* Runs `cuzk ARGS...` (a NULL-terminated list) and returns its stdout. */
static char *runv(int *rc, ...) {
  char *argv[32];
  int argc = 0;
  argv[argc++] = "cuzk";
  va_list ap;
  va_start(ap, rc);
  for (char *a; (a = va_arg(ap, char *)) != NULL;) {
    assert_true(argc < 31);
    argv[argc++] = a;
  }
  va_end(ap);
  argv[argc] = NULL;
  return run(rc, argc, argv);
}

#define RUN(rc, ...) runv(&(rc), __VA_ARGS__, (char *)NULL)

static void test_hash_poseidon(void **state) {
  (void)state;
  int rc;
  /* DESIGN §5 arity 2 on [0, 1]: 0x3965...e7ff big-endian, printed little-endian. */
  char *out = RUN(rc, "hash", "poseidon", "--arity", "2",
                  "0000000000000000000000000000000000000000000000000000000000000000",
                  "0x0100000000000000000000000000000000000000000000000000000000000000");
  assert_int_equal(rc, 0);
  assert_string_equal(out, "ffe7029a363c202e9da6059d33a9fba661e1ef02d90f9e736ba5765ed7086539\n");
  free(out);
  out = RUN(rc, "hash", "poseidon", "--arity", "2", "--custom-tag", "1",
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0100000000000000000000000000000000000000000000000000000000000000");
  assert_int_equal(rc, 0);
  assert_string_not_equal(out,
                          "ffe7029a363c202e9da6059d33a9fba661e1ef02d90f9e736ba5765ed7086539\n");
  free(out);
  /* Explicit Merkle tag 3 equals the default. */
  out = RUN(rc, "hash", "poseidon", "--arity", "2", "--tag",
            "0300000000000000000000000000000000000000000000000000000000000000",
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0100000000000000000000000000000000000000000000000000000000000000");
  assert_int_equal(rc, 0);
  assert_string_equal(out, "ffe7029a363c202e9da6059d33a9fba661e1ef02d90f9e736ba5765ed7086539\n");
  free(out);
  /* Usage errors: wrong count, bad arity, non-canonical input, unknown hash. */
  free(RUN(rc, "hash", "poseidon", "--arity", "2", "00"));
  assert_int_equal(rc, 2);
  free(RUN(rc, "hash", "poseidon", "--arity", "3"));
  assert_int_equal(rc, 2);
  free(RUN(rc, "hash", "poseidon", "--arity", "2",
           "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
           "0000000000000000000000000000000000000000000000000000000000000000"));
  assert_int_equal(rc, 2);
  free(RUN(rc, "hash", "sha3"));
  assert_int_equal(rc, 2);
}

static void test_inspect_real(void **state) {
  (void)state;
  char vproof[4096], pub[4096];
  if (!cuzk_test_vector_path(vproof, sizeof vproof, "filecoin/window-post-32g-sector1.vproof") ||
      !cuzk_test_vector_path(pub, sizeof pub, "filecoin/window-post-32g-sector1.pub.json"))
    skip();
  int rc;
  char *out = RUN(rc, "inspect", "vanilla", "--type", "window-post", vproof, "--pub", pub);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "StackedDrgWindow32GiBV1"));
  assert_non_null(strstr(out, "comm_r vs sealed CID: OK"));
  assert_non_null(strstr(out, "challenge 9: leaf 600088878 path OK challenge OK"));
  assert_null(strstr(out, "FAIL"));
  free(out);
  out = RUN(rc, "inspect", "vanilla", "--type", "window-post", vproof, "--json");
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "\"result\":\"OK\""));
  free(out);
  /* Other randomness: paths still hash, challenges do not match. */
  out = RUN(rc, "inspect", "vanilla", "--type", "window-post", vproof, "--randomness",
            "0100000000000000000000000000000000000000000000000000000000000000");
  assert_int_equal(rc, 1);
  assert_non_null(strstr(out, "challenge FAIL"));
  free(out);
  /* Winning type does not match a window proof's shape inference. */
  out = RUN(rc, "inspect", "vanilla", "--type", "winning-post", vproof, "--proof", "8");
  assert_int_equal(rc, 2);
  free(out);
  /* An altered sibling makes its path fail. */
  uint8_t *buf;
  size_t len;
  char err[200];
  assert_int_equal(cuzk_file_read(vproof, 1 << 20, &buf, &len, err, sizeof err), CUZK_OK);
  buf[56 + 4 + 8 + 8 + 5] ^= 1; /* inside the first sibling of challenge 0 */
  char tmp[] = "/tmp/cuzk-vproof-XXXXXX";
  int fd = mkstemp(tmp);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, buf, len), (ssize_t)len);
  close(fd);
  free(buf);
  out = RUN(rc, "inspect", "vanilla", "--type", "window-post", tmp, "--pub", pub);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(out, "challenge 0: leaf"));
  assert_non_null(strstr(out, "path FAIL"));
  assert_non_null(strstr(out, "challenge 1: leaf 439148358 path OK challenge OK"));
  free(out);
  /* Truncated file: decode error, exit 1. */
  assert_int_equal(truncate(tmp, 100), 0);
  out = RUN(rc, "inspect", "vanilla", "--type", "window-post", tmp);
  assert_int_equal(rc, 1);
  free(out);
  unlink(tmp);
}

static void test_inspect_usage(void **state) {
  (void)state;
  int rc;
  free(RUN(rc, "inspect", "vanilla", "/nonexistent"));
  assert_int_equal(rc, 2);
  free(RUN(rc, "inspect", "vanilla", "--type", "porep", "/nonexistent"));
  assert_int_equal(rc, 2);
  free(RUN(rc, "inspect", "vanilla", "--type", "window-post", "/nonexistent"));
  assert_int_equal(rc, 1);
  free(RUN(rc, "inspect", "vanilla", "--type", "window-post", "--randomness", "12", "x"));
  assert_int_equal(rc, 2);
}

static void test_verify_info(void **state) {
  (void)state;
  const char *ok =
      "{\"Randomness\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE=\",\"Proofs\":[{\"PoStProof\":"
      "13,\"ProofBytes\":null}],\"ChallengedSectors\":[{\"SealProof\":8,\"SectorNumber\":7,"
      "\"SealedCID\":{\"/\":\"bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl\"}}"
      ",{\"SectorNumber\":9,\"SealedCID\":{\"/\":"
      "\"bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl\"},\"X\":[1,{}]}],"
      "\"Prover\":1000, \"Extra\": [true, false, null, \"a\\\"b\"]}";
  cuzk_post_verify_info_t vi;
  char err[200];
  assert_int_equal(cuzk_post_verify_info_parse(&vi, ok, strlen(ok), err, sizeof err), CUZK_OK);
  assert_int_equal(vi.prover, 1000);
  assert_int_equal(vi.post_proof, 13);
  assert_int_equal(vi.randomness[31], 1);
  assert_int_equal(vi.randomness[0], 0);
  assert_int_equal(vi.n_sectors, 2);
  assert_int_equal(vi.sectors[0].sector_number, 7);
  assert_int_equal(vi.sectors[0].seal_proof, 8);
  assert_int_equal(vi.sectors[1].seal_proof, -1);
  assert_int_equal(vi.sectors[0].comm_r[0], 0xdf);
  cuzk_post_verify_info_clear(&vi);
  const char *bad[] = {
      "",
      "{",
      "{\"Randomness\":\"AAAA\"}",
      "{\"Randomness\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\"} x",
      "{\"Randomness\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\"Prover\":-1}",
      "{\"Randomness\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\"Prover\":1.5}",
      ("{\"Randomness\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\"ChallengedSectors\":"
       "[{\"SectorNumber\":1,\"SealedCID\":{\"/\":\"baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uq"
       "urdg5vhtebhxqmpqmy\"}}]}"),
      ("{\"Randomness\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\"ChallengedSectors\":"
       "[{\"SectorNumber\":1}]}"),
      "{\"Prover\":1}",
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cuzk_err_t e = cuzk_post_verify_info_parse(&vi, bad[i], strlen(bad[i]), err, sizeof err);
    if (e != CUZK_ERR_PARSE) fail_msg("case %zu: %s", i, cuzk_err_name(e));
    assert_null(vi.sectors);
  }
  /* Deep nesting inside an ignored key is bounded, not a stack overflow. */
  char deep[4096];
  size_t n = (size_t)snprintf(deep, sizeof deep, "{\"X\":");
  for (int i = 0; i < 1000; i++) deep[n++] = '[';
  deep[n] = 0;
  assert_int_equal(cuzk_post_verify_info_parse(&vi, deep, n, err, sizeof err), CUZK_ERR_PARSE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hash_poseidon),
      cmocka_unit_test(test_inspect_real),
      cmocka_unit_test(test_inspect_usage),
      cmocka_unit_test(test_verify_info),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
