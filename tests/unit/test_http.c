/* agent/http/server.c through a real HTTP client (libcurl): every endpoint, the 404/405/413/503
 * paths, HEAD, concurrent clients, and listen-address errors. */
#include "tests/support/testlib.h"
#include "agent/http/server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct {
  _Atomic int age_ds; /* tick age in tenths of a second; -1 never */
  _Atomic int ready;
  _Atomic int status_fails;
  _Atomic int scrapes;
  cuzk_metric_t *scrape_counter;
} ctx_t;

static double cb_age(void *p) {
  ctx_t *c = p;
  int a = atomic_load(&c->age_ds);
  return a < 0 ? -1.0 : a / 10.0;
}
static bool cb_ready(void *p, char *reason, size_t n) {
  ctx_t *c = p;
  if (atomic_load(&c->ready)) return true;
  snprintf(reason, n, "no partitions assigned; broker down");
  return false;
}
static char *cb_status(void *p) {
  ctx_t *c = p;
  if (atomic_load(&c->status_fails)) return NULL;
  return strdup("{\"budget\":{\"used_bytes\":1024,\"total_bytes\":4096},\"workers\":[1,2]}");
}
static void cb_before(void *p) {
  ctx_t *c = p;
  atomic_fetch_add(&c->scrapes, 1);
  cuzk_metrics_inc(c->scrape_counter);
}

typedef struct {
  long status;
  char *body;
  size_t len;
  char ctype[128];
  char allow[64];
  curl_off_t content_length;
} resp_t;

static size_t on_body(char *p, size_t sz, size_t nm, void *ud) {
  resp_t *r = ud;
  size_t n = sz * nm;
  char *b = realloc(r->body, r->len + n + 1);
  if (!b) return 0;
  memcpy(b + r->len, p, n);
  r->body = b;
  r->len += n;
  b[r->len] = '\0';
  return n;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *ud) {
  resp_t *r = ud;
  size_t n = sz * nm;
  if (n > 6 && strncasecmp(p, "Allow:", 6) == 0) {
    snprintf(r->allow, sizeof r->allow, "%.*s", (int)(n - 6), p + 6);
    char *e = r->allow + strlen(r->allow);
    while (e > r->allow && (e[-1] == '\r' || e[-1] == '\n')) *--e = '\0';
  }
  return n;
}

/* method: "GET", "HEAD", or another verb; body: sent as request body when non-NULL. */
static resp_t request(unsigned port, const char *method, const char *path, const char *body) {
  resp_t r = {0};
  char url[256];
  snprintf(url, sizeof url, "http://127.0.0.1:%u%s", port, path);
  CURL *c = curl_easy_init();
  assert_non_null(c);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  if (strcmp(method, "HEAD") == 0) {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  } else if (strcmp(method, "GET") != 0) {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) fail_msg("curl %s %s: %s", method, path, curl_easy_strerror(rc));
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  char *ct = NULL;
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
  snprintf(r.ctype, sizeof r.ctype, "%s", ct ? ct : "");
  curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &r.content_length);
  curl_easy_cleanup(c);
  if (!r.body) r.body = calloc(1, 1);
  return r;
}

typedef struct {
  cuzk_metrics_t *reg;
  cuzk_metric_family_t *fam;
  ctx_t ctx;
  cuzk_http_t *http;
  unsigned port;
} fixture_t;

static int setup(void **state) {
  fixture_t *f = calloc(1, sizeof *f);
  f->reg = cuzk_metrics_new();
  const char *l[] = {"path"};
  if (cuzk_metrics_family_new(f->reg, CUZK_METRIC_COUNTER, "cuzk_test_scrapes_total",
                              "Scrapes \"seen\".", 1, l, NULL, 0, &f->fam) != CUZK_OK)
    return -1;
  f->ctx.scrape_counter = cuzk_metrics_with(f->fam, (const char *[]){"/metrics"});
  atomic_store(&f->ctx.age_ds, 10);
  atomic_store(&f->ctx.ready, 1);
  cuzk_http_callbacks_t cb = {
      .ctx = &f->ctx,
      .metrics = f->reg,
      .liveness_max_s = 5,
      .tick_age_s = cb_age,
      .ready = cb_ready,
      .status_json = cb_status,
      .before_scrape = cb_before,
  };
  char err[256];
  f->http = cuzk_http_new("127.0.0.1:0", &cb, err, sizeof err);
  if (!f->http) {
    fprintf(stderr, "cuzk_http_new: %s\n", err);
    return -1;
  }
  f->port = cuzk_http_port(f->http);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture_t *f = *state;
  cuzk_http_free(f->http);
  cuzk_metrics_free(f->reg);
  free(f);
  return 0;
}

static void test_metrics_endpoint(void **state) {
  fixture_t *f = *state;
  assert_true(f->port > 0);
  resp_t r = request(f->port, "GET", "/metrics", NULL);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.ctype, CUZK_METRICS_CONTENT_TYPE);
  assert_string_equal(r.body,
                      "# HELP cuzk_test_scrapes_total Scrapes \"seen\".\n"
                      "# TYPE cuzk_test_scrapes_total counter\n"
                      "cuzk_test_scrapes_total{path=\"/metrics\"} 1\n");
  free(r.body);
  r = request(f->port, "GET", "/metrics", NULL);
  assert_non_null(strstr(r.body, "cuzk_test_scrapes_total{path=\"/metrics\"} 2\n"));
  size_t get_len = r.len;
  free(r.body);

  /* HEAD: same status and headers, no body; the length announced is the GET body's. */
  r = request(f->port, "HEAD", "/metrics", NULL);
  assert_int_equal(r.status, 200);
  assert_int_equal(r.len, 0);
  assert_int_equal(r.content_length, (curl_off_t)get_len);
  free(r.body);
  assert_int_equal(atomic_load(&f->ctx.scrapes), 3);
}

static void test_healthz(void **state) {
  fixture_t *f = *state;
  resp_t r = request(f->port, "GET", "/healthz", NULL);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "ok\n");
  free(r.body);
  atomic_store(&f->ctx.age_ds, 50); /* exactly at the limit: still alive */
  r = request(f->port, "GET", "/healthz", NULL);
  assert_int_equal(r.status, 200);
  free(r.body);
  atomic_store(&f->ctx.age_ds, 123);
  r = request(f->port, "GET", "/healthz", NULL);
  assert_int_equal(r.status, 503);
  assert_string_equal(r.body, "poll loop stalled: last tick 12.3 s ago (limit 5.0 s)\n");
  free(r.body);
  r = request(f->port, "HEAD", "/healthz", NULL);
  assert_int_equal(r.status, 503);
  assert_int_equal(r.len, 0);
  free(r.body);
  atomic_store(&f->ctx.age_ds, -1);
  r = request(f->port, "GET", "/healthz", NULL);
  assert_int_equal(r.status, 503);
  assert_string_equal(r.body, "poll loop has not ticked yet\n");
  free(r.body);
}

static void test_readyz_status(void **state) {
  fixture_t *f = *state;
  resp_t r = request(f->port, "GET", "/readyz", NULL);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "ready\n");
  free(r.body);
  atomic_store(&f->ctx.ready, 0);
  r = request(f->port, "GET", "/readyz", NULL);
  assert_int_equal(r.status, 503);
  assert_string_equal(r.body, "not ready: no partitions assigned; broker down\n");
  free(r.body);

  r = request(f->port, "GET", "/status", NULL);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.ctype, "application/json");
  json_error_t je;
  json_t *j = json_loads(r.body, 0, &je);
  assert_non_null(j);
  assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "budget"), "total_bytes")),
                   4096);
  json_decref(j);
  free(r.body);
  atomic_store(&f->ctx.status_fails, 1);
  r = request(f->port, "GET", "/status", NULL);
  assert_int_equal(r.status, 500);
  free(r.body);
}

static void test_errors(void **state) {
  fixture_t *f = *state;
  const char *paths[] = {"/",        "/metrics/", "/metricsx", "/healthz?x=1x", "/../etc/passwd",
                         "/readyz/a"};
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
    resp_t r = request(f->port, "GET", paths[i], NULL);
    /* the query string is not part of the path: /healthz?x=1x is /healthz */
    long want = strncmp(paths[i], "/healthz?", 9) == 0 ? 200 : 404;
    if (r.status != want) fail_msg("%s: %ld", paths[i], r.status);
    free(r.body);
  }
  resp_t r = request(f->port, "POST", "/metrics", "x=1");
  assert_int_equal(r.status, 405);
  assert_string_equal(r.allow, " GET, HEAD");
  free(r.body);
  r = request(f->port, "DELETE", "/status", NULL);
  assert_int_equal(r.status, 405);
  free(r.body);
  r = request(f->port, "GET", "/metrics", "a body");
  assert_int_equal(r.status, 413);
  free(r.body);
  /* still serving */
  r = request(f->port, "GET", "/readyz", NULL);
  assert_int_equal(r.status, 200);
  free(r.body);
}

static void *client(void *p) {
  fixture_t *f = p;
  for (int i = 0; i < 25; i++) {
    resp_t r = request(f->port, "GET", (i & 1) ? "/metrics" : "/healthz", NULL);
    if (r.status != 200) abort();
    free(r.body);
  }
  return NULL;
}

static void test_concurrent_clients(void **state) {
  fixture_t *f = *state;
  atomic_store(&f->ctx.scrapes, 0);
  pthread_t th[8];
  for (int i = 0; i < 8; i++) assert_int_equal(pthread_create(&th[i], NULL, client, f), 0);
  for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
  assert_int_equal(atomic_load(&f->ctx.scrapes), 8 * 12);
}

static int connect_port(unsigned port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) fail_msg("connect");
  return s;
}

/* A client that sends half a request and stalls does not block others; headers beyond the
 * per-connection memory limit get an error status, not a crash or a hang. */
static void test_bounded_requests(void **state) {
  fixture_t *f = *state;
  int stall = connect_port(f->port);
  const char *half = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  assert_int_equal(write(stall, half, strlen(half)), (ssize_t)strlen(half));
  resp_t r = request(f->port, "GET", "/healthz", NULL);
  assert_int_equal(r.status, 200);
  free(r.body);

  int big = connect_port(f->port);
  size_t n = 64 * 1024;
  char *req = malloc(n + 64);
  int len = snprintf(req, n + 64, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: ");
  memset(req + len, 'a', n);
  memcpy(req + len + n, "\r\n\r\n", 4);
  size_t total = (size_t)len + n + 4, off = 0;
  while (off < total) {
    ssize_t w = send(big, req + off, total - off, MSG_NOSIGNAL);
    if (w <= 0) break; /* the server may close early */
    off += (size_t)w;
  }
  char buf[256] = "";
  struct timeval tv = {.tv_sec = 5};
  setsockopt(big, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ssize_t got = recv(big, buf, sizeof buf - 1, 0);
  assert_true(got > 0);
  buf[got] = '\0';
  assert_true(strncmp(buf, "HTTP/1.1 431", 12) == 0); /* Request Header Fields Too Large */
  free(req);
  close(big);
  close(stall);
  r = request(f->port, "GET", "/healthz", NULL);
  assert_int_equal(r.status, 200);
  free(r.body);
}

static void test_no_callbacks(void **state) {
  (void)state;
  cuzk_http_callbacks_t cb = {0};
  char err[256];
  cuzk_http_t *h = cuzk_http_new("127.0.0.1:0", &cb, err, sizeof err);
  assert_non_null(h);
  unsigned port = cuzk_http_port(h);
  resp_t r = request(port, "GET", "/metrics", NULL);
  assert_int_equal(r.status, 404);
  free(r.body);
  r = request(port, "GET", "/status", NULL);
  assert_int_equal(r.status, 404);
  free(r.body);
  r = request(port, "GET", "/healthz", NULL);
  assert_int_equal(r.status, 200);
  free(r.body);
  r = request(port, "GET", "/readyz", NULL);
  assert_int_equal(r.status, 200);
  free(r.body);
  cuzk_http_free(h);
}

static void test_listen_errors(void **state) {
  (void)state;
  char host[64];
  unsigned port;
  assert_int_equal(cuzk_http_parse_listen("127.0.0.1:9464", host, sizeof host, &port), CUZK_OK);
  assert_string_equal(host, "127.0.0.1");
  assert_int_equal(port, 9464);
  assert_int_equal(cuzk_http_parse_listen("[::1]:80", host, sizeof host, &port), CUZK_OK);
  assert_string_equal(host, "::1");
  assert_int_equal(port, 80);
  assert_int_equal(cuzk_http_parse_listen("0.0.0.0:0", host, sizeof host, &port), CUZK_OK);
  const char *bad[] = {"",        ":80",    "host",    "host:",  "host:65536", "host:-1",
                       "host:8a", "::1:80", "[::1]80", "[::1]:", "[]:80",      "h:123456"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (cuzk_http_parse_listen(bad[i], host, sizeof host, &port) != CUZK_ERR_PARSE)
      fail_msg("accepted '%s'", bad[i]);
  assert_int_equal(cuzk_http_parse_listen("averyveryverylonghostname:1", host, 8, &port),
                   CUZK_ERR_PARSE);

  cuzk_http_callbacks_t cb = {0};
  char err[256];
  assert_null(cuzk_http_new("nonsense", &cb, err, sizeof err));
  assert_non_null(strstr(err, "not host:port"));
  assert_null(cuzk_http_new("no-such-host.invalid:80", &cb, err, sizeof err));
  assert_non_null(strstr(err, "no-such-host.invalid"));

  /* A port already bound by someone else: refused with the reason. */
  int s = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(s >= 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(s, 1), 0);
  socklen_t al = sizeof a;
  getsockname(s, (struct sockaddr *)&a, &al);
  char addr[64];
  snprintf(addr, sizeof addr, "127.0.0.1:%u", ntohs(a.sin_port));
  assert_null(cuzk_http_new(addr, &cb, err, sizeof err));
  assert_non_null(strstr(err, "cannot listen"));
  close(s);

  /* IPv6 loopback when the host has it. */
  cuzk_http_t *h = cuzk_http_new("[::1]:0", &cb, err, sizeof err);
  if (h) {
    assert_true(cuzk_http_port(h) > 0);
    cuzk_http_free(h);
  } else {
    fprintf(stderr, "note: no IPv6 loopback here (%s)\n", err);
  }
}

int main(void) {
#ifndef CUZK_HAVE_MHD
  fprintf(stderr, "SKIP: built without libmicrohttpd\n");
  return CUZK_TEST_SKIP;
#endif
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_metrics_endpoint, setup, teardown),
      cmocka_unit_test_setup_teardown(test_healthz, setup, teardown),
      cmocka_unit_test_setup_teardown(test_readyz_status, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_clients, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bounded_requests, setup, teardown),
      cmocka_unit_test(test_no_callbacks),
      cmocka_unit_test(test_listen_errors),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  curl_global_cleanup();
  return rc;
}
