/* Metrics registry: counters, gauges and fixed-bucket histograms with labels, rendered as
 * Prometheus text exposition format 0.0.4.
 *
 *   cuzk_metric_family_t *jobs;
 *   const char *labels[] = {"type", "status"};
 *   cuzk_metrics_family_new(reg, CUZK_METRIC_COUNTER, "cuzk_jobs_total", "Jobs finished.",
 *                           2, labels, NULL, 0, &jobs);
 *   cuzk_metric_t *ok = cuzk_metrics_with(jobs, (const char *[]){"porep-c2", "ok"});
 *   cuzk_metrics_inc(ok);                       (lock-free; cache `ok` in hot paths)
 *
 * Names follow Prometheus rules: metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
 * [a-zA-Z_][a-zA-Z0-9_]* not starting with "__"; histograms may not use the label "le".
 * Label values are arbitrary bytes: invalid UTF-8 bytes are replaced by '?', and `\`, `"` and
 * newline are escaped on output.
 *
 * Threads: every function may be called from any thread. Family creation, series lookup
 * (cuzk_metrics_with), cuzk_metrics_gauge_snapshot and rendering take the registry mutex;
 * value updates (inc/add/set/observe) are lock-free atomics and never block.
 * Ownership: the registry owns its families and series; pointers to them stay valid until
 * cuzk_metrics_free, except that cuzk_metrics_gauge_snapshot frees the series it replaces (use it
 * only for families whose series nobody caches). Strings passed in are copied.
 */
#ifndef CUZK_AGENT_HTTP_METRICS_H
#define CUZK_AGENT_HTTP_METRICS_H

#include <stddef.h>

#include "core/util/err.h"

typedef enum {
  CUZK_METRIC_COUNTER = 0,
  CUZK_METRIC_GAUGE = 1,
  CUZK_METRIC_HISTOGRAM = 2,
} cuzk_metric_type_t;

enum {
  CUZK_METRICS_MAX_LABELS = 8,  /* labels per family */
  CUZK_METRICS_MAX_BUCKETS = 32 /* finite histogram buckets (+Inf is implicit) */
};

typedef struct cuzk_metrics cuzk_metrics_t;
typedef struct cuzk_metric_family cuzk_metric_family_t;
typedef struct cuzk_metric cuzk_metric_t;

/* A new empty registry, or NULL when out of memory. Free with cuzk_metrics_free. */
cuzk_metrics_t *cuzk_metrics_new(void);
/* Frees the registry with all families and series. NULL is a no-op. No update may run
 * concurrently. */
void cuzk_metrics_free(cuzk_metrics_t *reg);

/* Registers a family. `label_names` holds `nlabels` names (NULL when 0). For histograms
 * `buckets` holds `nbuckets` strictly increasing finite upper bounds (+Inf is added); for other
 * types pass NULL, 0. Errors: CUZK_ERR_INVALID_ARG (bad name, label, bucket list or a name
 * already registered), CUZK_ERR_NOMEM. On success *out is the family. */
cuzk_err_t cuzk_metrics_family_new(cuzk_metrics_t *reg, cuzk_metric_type_t type, const char *name,
                                   const char *help, size_t nlabels, const char *const *label_names,
                                   const double *buckets, size_t nbuckets,
                                   cuzk_metric_family_t **out);

/* Looks a registered family up by name; NULL when absent. */
cuzk_metric_family_t *cuzk_metrics_family(cuzk_metrics_t *reg, const char *name);

/* The series of `fam` with these label values (as many as the family has labels; NULL when
 * it has none), created at zero on first use. NULL only when out of memory. Takes the registry
 * mutex: look series up once and keep the pointer in hot paths. */
cuzk_metric_t *cuzk_metrics_with(cuzk_metric_family_t *fam, const char *const *label_values);

/* Counter: adds 1 / adds v (v >= 0, finite). */
void cuzk_metrics_inc(cuzk_metric_t *m);
void cuzk_metrics_add(cuzk_metric_t *m, double v);
/* Gauge: sets / adds (v may be negative). cuzk_metrics_add works on gauges too. */
void cuzk_metrics_set(cuzk_metric_t *m, double v);
/* Histogram: records one observation (NaN is ignored). */
void cuzk_metrics_observe(cuzk_metric_t *m, double v);
/* Current value of a counter or gauge; for a histogram, its sum. */
double cuzk_metrics_value(const cuzk_metric_t *m);
/* Histogram: number of observations. */
unsigned long long cuzk_metrics_count(const cuzk_metric_t *m);

/* Replaces all series of gauge family `fam` by `n` series at once (one lock, so a scrape sees
 * either the old or the new set). `label_values` holds n * nlabels strings, row by row.
 * Errors: CUZK_ERR_INVALID_ARG (not a gauge), CUZK_ERR_NOMEM (the family is then empty). */
cuzk_err_t cuzk_metrics_gauge_snapshot(cuzk_metric_family_t *fam, size_t n,
                                       const char *const *label_values, const double *values);

/* Renders every family in registration order (series in creation order) as Prometheus text
 * format 0.0.4 into a malloc'd NUL-terminated buffer *out of *len bytes (caller frees).
 * Families without series print only HELP and TYPE. CUZK_ERR_NOMEM on allocation failure. */
cuzk_err_t cuzk_metrics_render(cuzk_metrics_t *reg, char **out, size_t *len);

/* The Content-Type of the rendered text. */
#define CUZK_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
