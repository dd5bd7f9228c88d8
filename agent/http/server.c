#include "agent/http/server.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cuzk_err_t cuzk_http_parse_listen(const char *listen, char *host, size_t host_size,
                                  unsigned *port) {
  assert(host && host_size > 0 && port);
  if (!listen) return CUZK_ERR_PARSE;
  const char *hs, *he, *ps;
  if (listen[0] == '[') {
    hs = listen + 1;
    he = strchr(hs, ']');
    if (!he || he[1] != ':') return CUZK_ERR_PARSE;
    ps = he + 2;
  } else {
    hs = listen;
    he = strrchr(listen, ':');
    if (!he || memchr(hs, ':', (size_t)(he - hs))) return CUZK_ERR_PARSE;
    ps = he + 1;
  }
  size_t hl = (size_t)(he - hs);
  if (hl == 0 || hl >= host_size || *ps == '\0' || strlen(ps) > 5) return CUZK_ERR_PARSE;
  unsigned p = 0;
  for (const char *c = ps; *c; c++) {
    if (*c < '0' || *c > '9') return CUZK_ERR_PARSE;
    p = p * 10 + (unsigned)(*c - '0');
  }
  if (p > 65535) return CUZK_ERR_PARSE;
  memcpy(host, hs, hl);
  host[hl] = '\0';
  *port = p;
  return CUZK_OK;
}

#ifdef CUZK_HAVE_MHD

#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>

struct cuzk_http {
  struct MHD_Daemon *daemon;
  cuzk_http_callbacks_t cb;
  unsigned port;
};

static enum MHD_Result cuzk__reply(struct MHD_Connection *c, unsigned status, const char *type,
                                   char *body, size_t len, int take) {
  struct MHD_Response *r = MHD_create_response_from_buffer(
      len, body, take ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_MUST_COPY);
  if (!r) {
    if (take) free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result cuzk__text(struct MHD_Connection *c, unsigned status, const char *text) {
  return cuzk__reply(c, status, "text/plain; charset=utf-8", (char *)text, strlen(text), 0);
}

static enum MHD_Result cuzk__handle(void *cls, struct MHD_Connection *c, const char *url,
                                    const char *method, const char *version,
                                    const char *upload_data, size_t *upload_data_size,
                                    void **con_cls) {
  (void)version;
  (void)upload_data;
  cuzk_http_t *h = cls;
  static int marker;
  if (*con_cls == NULL) {
    /* First call: headers only. Answer at once; a body is never read. */
    *con_cls = &marker;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
      return cuzk__text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    if ((cl && strcmp(cl, "0") != 0) || te)
      return cuzk__text(c, MHD_HTTP_CONTENT_TOO_LARGE, "request body not accepted\n");
  } else if (*upload_data_size) {
    *upload_data_size = 0;
    return MHD_YES;
  }

  const cuzk_http_callbacks_t *cb = &h->cb;
  if (strcmp(url, "/metrics") == 0) {
    if (!cb->metrics) return cuzk__text(c, MHD_HTTP_NOT_FOUND, "not found\n");
    if (cb->before_scrape) cb->before_scrape(cb->ctx);
    char *text;
    size_t len;
    if (cuzk_metrics_render(cb->metrics, &text, &len) != CUZK_OK)
      return cuzk__text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return cuzk__reply(c, MHD_HTTP_OK, CUZK_METRICS_CONTENT_TYPE, text, len, 1);
  }
  if (strcmp(url, "/healthz") == 0) {
    if (!cb->tick_age_s) return cuzk__text(c, MHD_HTTP_OK, "ok\n");
    double max = cb->liveness_max_s > 0 ? cb->liveness_max_s : 30.0;
    double age = cb->tick_age_s(cb->ctx);
    if (age >= 0 && age <= max) return cuzk__text(c, MHD_HTTP_OK, "ok\n");
    char msg[128];
    if (age >= 0)
      snprintf(msg, sizeof msg, "poll loop stalled: last tick %.1f s ago (limit %.1f s)\n", age,
               max);
    else
      snprintf(msg, sizeof msg, "poll loop has not ticked yet\n");
    return cuzk__reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", msg,
                       strlen(msg), 0);
  }
  if (strcmp(url, "/readyz") == 0) {
    if (!cb->ready) return cuzk__text(c, MHD_HTTP_OK, "ready\n");
    char reason[256] = "";
    if (cb->ready(cb->ctx, reason, sizeof reason - 1)) return cuzk__text(c, MHD_HTTP_OK, "ready\n");
    reason[sizeof reason - 1] = '\0';
    char msg[300];
    snprintf(msg, sizeof msg, "not ready: %s\n", reason[0] ? reason : "unknown");
    return cuzk__reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", msg,
                       strlen(msg), 0);
  }
  if (strcmp(url, "/status") == 0) {
    if (!cb->status_json) return cuzk__text(c, MHD_HTTP_NOT_FOUND, "not found\n");
    char *json = cb->status_json(cb->ctx);
    if (!json) return cuzk__text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "status unavailable\n");
    return cuzk__reply(c, MHD_HTTP_OK, "application/json", json, strlen(json), 1);
  }
  return cuzk__text(c, MHD_HTTP_NOT_FOUND, "not found\n");
}

cuzk_http_t *cuzk_http_new(const char *listen, const cuzk_http_callbacks_t *cb, char *errstr,
                           size_t errstr_size) {
  assert(cb && errstr && errstr_size > 0);
  errstr[0] = '\0';
  char host[256];
  unsigned port;
  if (cuzk_http_parse_listen(listen, host, sizeof host, &port) != CUZK_OK) {
    snprintf(errstr, errstr_size, "http listen address '%s' is not host:port or [v6]:port",
             listen ? listen : "(null)");
    return NULL;
  }
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  char portstr[8];
  snprintf(portstr, sizeof portstr, "%u", port);
  int gai = getaddrinfo(host, portstr, &hints, &ai);
  if (gai != 0 || !ai) {
    snprintf(errstr, errstr_size, "http listen host '%s': %s", host, gai_strerror(gai));
    return NULL;
  }
  cuzk_http_t *h = calloc(1, sizeof *h);
  if (!h) {
    freeaddrinfo(ai);
    snprintf(errstr, errstr_size, "out of memory");
    return NULL;
  }
  h->cb = *cb;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
  if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
  errno = 0;
  h->daemon = MHD_start_daemon(
      flags, (uint16_t)port, NULL, NULL, cuzk__handle, h, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)CUZK_HTTP_MAX_CONNECTIONS,
      MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32 * 1024,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CUZK_HTTP_MAX_CONNECTIONS, MHD_OPTION_END);
  int e = errno;
  freeaddrinfo(ai);
  if (!h->daemon) {
    snprintf(errstr, errstr_size, "http server cannot listen on %s: %s", listen,
             e ? strerror(e) : "libmicrohttpd failed to start");
    free(h);
    return NULL;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
  h->port = info ? info->port : port;
  return h;
}

unsigned cuzk_http_port(const cuzk_http_t *h) {
  assert(h);
  return h->port;
}

void cuzk_http_free(cuzk_http_t *h) {
  if (!h) return;
  MHD_stop_daemon(h->daemon);
  free(h);
}

#else /* !CUZK_HAVE_MHD */

struct cuzk_http {
  unsigned port;
};

cuzk_http_t *cuzk_http_new(const char *listen, const cuzk_http_callbacks_t *cb, char *errstr,
                           size_t errstr_size) {
  (void)listen;
  (void)cb;
  snprintf(errstr, errstr_size, "built without libmicrohttpd: no HTTP server");
  return NULL;
}

unsigned cuzk_http_port(const cuzk_http_t *h) {
  return h ? h->port : 0;
}

void cuzk_http_free(cuzk_http_t *h) {
  (void)h;
}

#endif
