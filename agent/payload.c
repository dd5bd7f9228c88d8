#include "agent/payload.h"

#include <assert.h>
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/file.h"

#ifdef CUZK_HAVE_CURL
#include <curl/curl.h>
#include <pthread.h>
#endif

void cuzk_payload_sha256(uint8_t out[32], const uint8_t *buf, size_t len) {
  SHA256(buf ? buf : (const uint8_t *)"", len, out);
}

cuzk_err_t cuzk_payload_check_sha256(const uint8_t *buf, size_t len, const uint8_t sha256[32]) {
  uint8_t h[32];
  cuzk_payload_sha256(h, buf, len);
  return memcmp(h, sha256, 32) == 0 ? CUZK_OK : CUZK_ERR_CHECKSUM;
}

#ifdef CUZK_HAVE_CURL
typedef struct {
  uint8_t *buf;
  size_t len, cap, max;
  int too_large;
} cuzk__sink_t;

static size_t cuzk__curl_write(char *ptr, size_t size, size_t nmemb, void *ud) {
  cuzk__sink_t *s = ud;
  size_t n = size * nmemb;
  if (s->len + n > s->max) {
    s->too_large = 1;
    return 0;
  }
  if (s->len + n > s->cap) {
    size_t cap = s->cap ? s->cap : 65536;
    while (cap < s->len + n) cap *= 2;
    if (cap > s->max) cap = s->max;
    uint8_t *nb = realloc(s->buf, cap);
    if (!nb) return 0;
    s->buf = nb;
    s->cap = cap;
  }
  memcpy(s->buf + s->len, ptr, n);
  s->len += n;
  return n;
}

static pthread_once_t cuzk__curl_once = PTHREAD_ONCE_INIT;
static void cuzk__curl_init(void) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
}

static cuzk_err_t cuzk__fetch_http(const char *uri, size_t max, int timeout_s, uint8_t **out,
                                   size_t *out_len, char *errstr, size_t n) {
  pthread_once(&cuzk__curl_once, cuzk__curl_init);
  CURL *c = curl_easy_init();
  if (!c) return CUZK_ERR_NOMEM;
  cuzk__sink_t s = {NULL, 0, 0, max, 0};
  char cerr[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(c, CURLOPT_URL, uri);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, cuzk__curl_write);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)timeout_s);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)(timeout_s < 10 ? timeout_s : 10));
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
  CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  cuzk_err_t err = CUZK_OK;
  if (s.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
    snprintf(errstr, n, "%s: payload exceeds %zu bytes", uri, max);
    err = CUZK_ERR_TOO_LARGE;
  } else if (rc == CURLE_OPERATION_TIMEDOUT) {
    snprintf(errstr, n, "%s: transfer timed out after %d s", uri, timeout_s);
    err = CUZK_ERR_TIMEOUT;
  } else if (rc != CURLE_OK) {
    snprintf(errstr, n, "%s: %s", uri, cerr[0] ? cerr : curl_easy_strerror(rc));
    err = CUZK_ERR_HTTP;
  } else if (status >= 400) {
    snprintf(errstr, n, "%s: HTTP status %ld", uri, status);
    err = status == 404 ? CUZK_ERR_NOT_FOUND : CUZK_ERR_HTTP;
  }
  if (err != CUZK_OK) {
    free(s.buf);
    return err;
  }
  *out = s.buf ? s.buf : malloc(1);
  if (!*out) return CUZK_ERR_NOMEM;
  *out_len = s.len;
  return CUZK_OK;
}
#endif

cuzk_err_t cuzk_payload_fetch(const char *uri, const uint8_t sha256[32], int64_t size,
                              size_t max_bytes, int timeout_s, uint8_t **out, size_t *out_len,
                              char *errstr, size_t errstr_size) {
  assert(uri && sha256 && out && out_len);
  *out = NULL;
  *out_len = 0;
  if (size >= 0 && (uint64_t)size > max_bytes) {
    snprintf(errstr, errstr_size, "%s: declared size %lld exceeds the limit of %zu bytes", uri,
             (long long)size, max_bytes);
    return CUZK_ERR_TOO_LARGE;
  }
  cuzk_err_t err;
  uint8_t *buf = NULL;
  size_t len = 0;
  if (strncmp(uri, "file://", 7) == 0) {
    const char *path = uri + 7;
    if (path[0] != '/') {
      snprintf(errstr, errstr_size, "%s: a file URI needs an absolute path (file:///...)", uri);
      return CUZK_ERR_INVALID_ARG;
    }
    char ferr[256] = "";
    err = cuzk_file_read(path, max_bytes, &buf, &len, ferr, sizeof ferr);
    if (err != CUZK_OK) {
      snprintf(errstr, errstr_size, "%s: %s", uri, ferr[0] ? ferr : cuzk_err_str(err));
      return err;
    }
  } else if (strncmp(uri, "http://", 7) == 0 || strncmp(uri, "https://", 8) == 0) {
#ifdef CUZK_HAVE_CURL
    err = cuzk__fetch_http(uri, max_bytes, timeout_s, &buf, &len, errstr, errstr_size);
    if (err != CUZK_OK) return err;
#else
    (void)timeout_s;
    snprintf(errstr, errstr_size, "%s: this build has no libcurl", uri);
    return CUZK_ERR_UNSUPPORTED;
#endif
  } else {
    snprintf(errstr, errstr_size, "%s: unsupported URI scheme (file://, http://, https://)", uri);
    return CUZK_ERR_UNSUPPORTED;
  }
  if (size >= 0 && (uint64_t)len != (uint64_t)size) {
    snprintf(errstr, errstr_size, "%s: got %zu bytes, the reference says %lld", uri, len,
             (long long)size);
    free(buf);
    return CUZK_ERR_TRUNCATED;
  }
  if (cuzk_payload_check_sha256(buf, len, sha256) != CUZK_OK) {
    snprintf(errstr, errstr_size, "%s: sha256 of the %zu bytes read does not match the reference",
             uri, len);
    free(buf);
    return CUZK_ERR_CHECKSUM;
  }
  *out = buf;
  *out_len = len;
  return CUZK_OK;
}
