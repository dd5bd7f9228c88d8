/* The agent's HTTP server (libmicrohttpd): /metrics, /healthz, /readyz, /status.
 *
 *   GET|HEAD /metrics  200, Prometheus text 0.0.4 of `metrics` (after `before_scrape`)
 *   GET|HEAD /healthz  200 "ok\n" when tick_age_s() <= liveness_max_s, else 503 with the age
 *   GET|HEAD /readyz   200 "ready\n" when ready() is true, else 503 with its reason
 *   GET|HEAD /status   200, application/json from status_json() (500 when it returns NULL)
 *   other paths 404; other methods 405 (with Allow: GET, HEAD); a request body 413.
 * A missing callback makes its endpoint answer 404 (/metrics without a registry, /status) or
 * 200 (/healthz, /readyz without a callback: nothing to check).
 *
 * Bounds: at most CUZK_HTTP_MAX_CONNECTIONS concurrent connections, a per-connection memory
 * limit of 32 KiB for headers, a 10 s idle timeout; responses are built in memory.
 *
 * Threads: the server answers on one libmicrohttpd-owned thread; every callback runs on it,
 * one request at a time, and must not block for long (it delays scrapes, not the agent).
 * Ownership: the handle owns its thread; `metrics` and `ctx` stay the caller's and must
 * outlive the handle. Strings returned by callbacks are described per callback.
 */
#ifndef CUZK_AGENT_HTTP_SERVER_H
#define CUZK_AGENT_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/http/metrics.h"
#include "core/util/err.h"

enum { CUZK_HTTP_MAX_CONNECTIONS = 32 };

typedef struct {
  void *ctx;               /* passed to every callback */
  cuzk_metrics_t *metrics; /* rendered at /metrics; NULL = 404 */
  double liveness_max_s;   /* /healthz limit on tick_age_s(); <= 0 means 30 */
  /* Seconds since the poll loop last ticked (negative or NaN: never ticked = not alive). */
  double (*tick_age_s)(void *ctx);
  /* true when ready; else writes a one-line reason (NUL-terminated, at most n bytes). */
  bool (*ready)(void *ctx, char *reason, size_t n);
  /* A malloc'd NUL-terminated JSON document (freed by the server), or NULL on failure. */
  char *(*status_json)(void *ctx);
  /* Called before each /metrics render, to refresh gauges that are sampled (optional). */
  void (*before_scrape)(void *ctx);
} cuzk_http_callbacks_t;

typedef struct cuzk_http cuzk_http_t;

/* Starts serving on `listen` ("host:port", "[v6addr]:port"; port 0 picks a free port).
 * `cb` is copied. Returns NULL with a message in errstr when the address does not parse or
 * cannot be bound (or libmicrohttpd is not built in). Main thread. */
cuzk_http_t *cuzk_http_new(const char *listen, const cuzk_http_callbacks_t *cb, char *errstr,
                           size_t errstr_size);

/* The bound TCP port (useful after port 0). */
unsigned cuzk_http_port(const cuzk_http_t *h);

/* Stops the server (waits for its thread) and frees the handle. NULL is a no-op. */
void cuzk_http_free(cuzk_http_t *h);

/* Splits "host:port" / "[v6]:port" into host (without brackets) and port. CUZK_ERR_PARSE on a
 * missing host or port, a port outside 0..65535, or a host longer than host_size - 1. */
cuzk_err_t cuzk_http_parse_listen(const char *listen, char *host, size_t host_size, unsigned *port);

#endif
