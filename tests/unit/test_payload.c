/* agent/payload.c: payload references are read whole, bounded, size-checked and always
 * hash-checked. SHA-256 is checked against OpenSSL's command-line digest (an independent path
 * through the library) and a FIPS 180-2 vector; HTTP is served by libmicrohttpd in the test. */
#include "tests/support/testlib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/payload.h"
#include "core/util/hex.h"

#ifdef CUZK_HAVE_MHD
#include <microhttpd.h>
#endif

static cuzk_test_rng_t rng;
static char dir[64];

static void write_file(const char *path, const void *buf, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, n, f), n);
  fclose(f);
}

static void test_sha256_vector(void **state) {
  (void)state;
  /* FIPS 180-2, appendix B.1: SHA-256("abc") */
  uint8_t want[32], got[32];
  assert_int_equal(
      cuzk_hex_decode_exact(
          want, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 64, 0),
      CUZK_OK);
  cuzk_payload_sha256(got, (const uint8_t *)"abc", 3);
  assert_memory_equal(got, want, 32);
  assert_int_equal(cuzk_payload_check_sha256((const uint8_t *)"abc", 3, want), CUZK_OK);
  assert_int_equal(cuzk_payload_check_sha256((const uint8_t *)"abd", 3, want), CUZK_ERR_CHECKSUM);
}

static void test_file(void **state) {
  (void)state;
  size_t len = 1 + cuzk_test_rng_next(&rng) % 100000;
  uint8_t *buf = malloc(len);
  cuzk_test_rng_bytes(&rng, buf, len);
  char path[128], uri[160], cmd[256], err[512];
  snprintf(path, sizeof path, "%s/p.bin", dir);
  write_file(path, buf, len);
  snprintf(uri, sizeof uri, "file://%s", path);
  /* the hash from `openssl dgst` (independent of our call into libcrypto) */
  snprintf(cmd, sizeof cmd, "openssl dgst -sha256 -r '%s'", path);
  int st;
  char *out = cuzk_test_run_cmd(cmd, "", &st);
  if (!out || st != 0) {
    free(out);
    out = NULL;
  }
  uint8_t sha[32];
  cuzk_payload_sha256(sha, buf, len);
  if (out) {
    uint8_t ext[32];
    assert_int_equal(cuzk_hex_decode_exact(ext, 32, out, 64, 0), CUZK_OK);
    assert_memory_equal(ext, sha, 32);
    free(out);
  }
  uint8_t *got = NULL;
  size_t got_len = 0;
  assert_int_equal(
      cuzk_payload_fetch(uri, sha, (int64_t)len, 1 << 20, 5, &got, &got_len, err, sizeof err),
      CUZK_OK);
  assert_int_equal(got_len, len);
  assert_memory_equal(got, buf, len);
  free(got);
  /* size unknown (-1) is accepted when the hash matches */
  assert_int_equal(cuzk_payload_fetch(uri, sha, -1, 1 << 20, 5, &got, &got_len, err, sizeof err),
                   CUZK_OK);
  free(got);
  /* wrong hash, wrong size, over the limit, missing file, relative path, other scheme */
  uint8_t bad[32];
  memcpy(bad, sha, 32);
  bad[cuzk_test_rng_next(&rng) % 32] ^= (uint8_t)(1u << (cuzk_test_rng_next(&rng) % 8));
  assert_int_equal(
      cuzk_payload_fetch(uri, bad, (int64_t)len, 1 << 20, 5, &got, &got_len, err, sizeof err),
      CUZK_ERR_CHECKSUM);
  assert_null(got);
  assert_non_null(strstr(err, path));
  assert_int_equal(
      cuzk_payload_fetch(uri, sha, (int64_t)len + 1, 1 << 20, 5, &got, &got_len, err, sizeof err),
      CUZK_ERR_TRUNCATED);
  assert_int_equal(
      cuzk_payload_fetch(uri, sha, (int64_t)len, len - 1, 5, &got, &got_len, err, sizeof err),
      CUZK_ERR_TOO_LARGE);
  assert_int_equal(cuzk_payload_fetch(uri, sha, -1, len - 1, 5, &got, &got_len, err, sizeof err),
                   CUZK_ERR_TOO_LARGE);
  snprintf(uri, sizeof uri, "file://%s/missing", dir);
  assert_int_equal(cuzk_payload_fetch(uri, sha, -1, 1 << 20, 5, &got, &got_len, err, sizeof err),
                   CUZK_ERR_NOT_FOUND);
  assert_int_equal(
      cuzk_payload_fetch("file://p.bin", sha, -1, 1 << 20, 5, &got, &got_len, err, sizeof err),
      CUZK_ERR_INVALID_ARG);
  assert_int_equal(cuzk_payload_fetch("ftp://example.com/x", sha, -1, 1 << 20, 5, &got, &got_len,
                                      err, sizeof err),
                   CUZK_ERR_UNSUPPORTED);
  assert_null(got);
  unlink(path);
  free(buf);
}

#if defined(CUZK_HAVE_MHD) && defined(CUZK_HAVE_CURL)
static uint8_t *g_body;
static size_t g_body_len;

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls) {
  (void)cls, (void)method, (void)version, (void)upload, (void)upload_size, (void)con_cls;
  struct MHD_Response *r;
  enum MHD_Result ret;
  if (strcmp(url, "/payload") == 0) {
    r = MHD_create_response_from_buffer(g_body_len, g_body, MHD_RESPMEM_PERSISTENT);
    ret = MHD_queue_response(c, MHD_HTTP_OK, r);
  } else {
    r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    ret = MHD_queue_response(c, url[1] == 'e' ? 500 : MHD_HTTP_NOT_FOUND, r);
  }
  MHD_destroy_response(r);
  return ret;
}

static void test_http(void **state) {
  (void)state;
  g_body_len = 1 + cuzk_test_rng_next(&rng) % 300000;
  g_body = malloc(g_body_len);
  cuzk_test_rng_bytes(&rng, g_body, g_body_len);
  struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handler,
                                          NULL, MHD_OPTION_END);
  if (!d) {
    free(g_body);
    skip();
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  unsigned port = info->port;
  char uri[128], err[512];
  uint8_t sha[32], *got = NULL;
  size_t got_len;
  cuzk_payload_sha256(sha, g_body, g_body_len);
  snprintf(uri, sizeof uri, "http://127.0.0.1:%u/payload", port);
  assert_int_equal(cuzk_payload_fetch(uri, sha, (int64_t)g_body_len, 1 << 20, 5, &got, &got_len,
                                      err, sizeof err),
                   CUZK_OK);
  assert_int_equal(got_len, g_body_len);
  assert_memory_equal(got, g_body, g_body_len);
  free(got);
  sha[0] ^= 1;
  assert_int_equal(cuzk_payload_fetch(uri, sha, -1, 1 << 20, 5, &got, &got_len, err, sizeof err),
                   CUZK_ERR_CHECKSUM);
  sha[0] ^= 1;
  assert_int_equal(
      cuzk_payload_fetch(uri, sha, -1, g_body_len - 1, 5, &got, &got_len, err, sizeof err),
      CUZK_ERR_TOO_LARGE);
  snprintf(uri, sizeof uri, "http://127.0.0.1:%u/missing", port);
  assert_int_equal(cuzk_payload_fetch(uri, sha, -1, 1 << 20, 5, &got, &got_len, err, sizeof err),
                   CUZK_ERR_NOT_FOUND);
  snprintf(uri, sizeof uri, "http://127.0.0.1:%u/error", port);
  assert_int_equal(cuzk_payload_fetch(uri, sha, -1, 1 << 20, 5, &got, &got_len, err, sizeof err),
                   CUZK_ERR_HTTP);
  assert_non_null(strstr(err, "500"));
  MHD_stop_daemon(d);
  /* nobody listens there any more */
  snprintf(uri, sizeof uri, "http://127.0.0.1:%u/payload", port);
  assert_int_equal(cuzk_payload_fetch(uri, sha, -1, 1 << 20, 2, &got, &got_len, err, sizeof err),
                   CUZK_ERR_HTTP);
  free(g_body);
}
#else
static void test_http(void **state) {
  (void)state;
  skip();
}
#endif

int main(void) {
  cuzk_test_rng_init(&rng, cuzk_test_seed());
  snprintf(dir, sizeof dir, "/tmp/cuzk-test-payload-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sha256_vector),
      cmocka_unit_test(test_file),
      cmocka_unit_test(test_http),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  rmdir(dir);
  return rc;
}
