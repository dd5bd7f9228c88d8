#include "agent/http/metrics.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cuzk_metric {
  cuzk_metric_family_t *fam;
  cuzk_metric_t *next;
  char **label_values;
  _Atomic uint64_t value;          /* bits of a double: counter/gauge value, histogram sum */
  _Atomic uint64_t count;          /* histogram: observations */
  _Atomic uint64_t *bucket_counts; /* histogram: per bucket, not cumulative; nbuckets + 1 */
};

struct cuzk_metric_family {
  cuzk_metrics_t *reg;
  cuzk_metric_family_t *next;
  cuzk_metric_type_t type;
  char *name;
  char *help;
  size_t nlabels;
  char **label_names;
  double *buckets;
  size_t nbuckets;
  cuzk_metric_t *head, *tail;
};

struct cuzk_metrics {
  pthread_mutex_t mu;
  cuzk_metric_family_t *head, *tail;
};

static uint64_t cuzk__d2u(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}
static double cuzk__u2d(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static char *cuzk__strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

/* Copies s, replacing every byte that is not part of a well-formed UTF-8 sequence by '?'. */
static char *cuzk__utf8_sanitized(const char *s) {
  char *p = cuzk__strdup(s);
  if (!p) return NULL;
  unsigned char *u = (unsigned char *)p;
  size_t n = strlen(p), i = 0;
  while (i < n) {
    unsigned c = u[i];
    size_t len;
    unsigned min;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000;
    } else {
      u[i++] = '?';
      continue;
    }
    unsigned cp = c & (0xFF >> (len + 1));
    size_t k = 1;
    for (; k < len && i + k < n && (u[i + k] & 0xC0) == 0x80; k++)
      cp = (cp << 6) | (u[i + k] & 0x3F);
    if (k < len || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      u[i++] = '?';
      continue;
    }
    i += len;
  }
  return p;
}

static int cuzk__valid_metric_name(const char *s) {
  if (!s || !*s) return 0;
  for (size_t i = 0; s[i]; i++) {
    char c = s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
  }
  return 1;
}

static int cuzk__valid_label_name(const char *s) {
  if (!s || !*s || (s[0] == '_' && s[1] == '_')) return 0;
  for (size_t i = 0; s[i]; i++) {
    char c = s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
  }
  return 1;
}

cuzk_metrics_t *cuzk_metrics_new(void) {
  cuzk_metrics_t *reg = calloc(1, sizeof *reg);
  if (!reg) return NULL;
  if (pthread_mutex_init(&reg->mu, NULL) != 0) {
    free(reg);
    return NULL;
  }
  return reg;
}

static void cuzk__series_free(cuzk_metric_t *m) {
  if (!m) return;
  if (m->label_values)
    for (size_t i = 0; i < m->fam->nlabels; i++) free(m->label_values[i]);
  free(m->label_values);
  free(m->bucket_counts);
  free(m);
}

static void cuzk__family_free(cuzk_metric_family_t *f) {
  if (!f) return;
  for (cuzk_metric_t *m = f->head, *n; m; m = n) {
    n = m->next;
    cuzk__series_free(m);
  }
  if (f->label_names)
    for (size_t i = 0; i < f->nlabels; i++) free(f->label_names[i]);
  free(f->label_names);
  free(f->buckets);
  free(f->name);
  free(f->help);
  free(f);
}

void cuzk_metrics_free(cuzk_metrics_t *reg) {
  if (!reg) return;
  for (cuzk_metric_family_t *f = reg->head, *n; f; f = n) {
    n = f->next;
    cuzk__family_free(f);
  }
  pthread_mutex_destroy(&reg->mu);
  free(reg);
}

static cuzk_metric_family_t *cuzk__find_family(cuzk_metrics_t *reg, const char *name) {
  for (cuzk_metric_family_t *f = reg->head; f; f = f->next)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

cuzk_err_t cuzk_metrics_family_new(cuzk_metrics_t *reg, cuzk_metric_type_t type, const char *name,
                                   const char *help, size_t nlabels, const char *const *label_names,
                                   const double *buckets, size_t nbuckets,
                                   cuzk_metric_family_t **out) {
  assert(reg && out);
  *out = NULL;
  if (type != CUZK_METRIC_COUNTER && type != CUZK_METRIC_GAUGE && type != CUZK_METRIC_HISTOGRAM)
    return CUZK_ERR_INVALID_ARG;
  if (!cuzk__valid_metric_name(name) || nlabels > CUZK_METRICS_MAX_LABELS ||
      (nlabels && !label_names))
    return CUZK_ERR_INVALID_ARG;
  for (size_t i = 0; i < nlabels; i++) {
    if (!cuzk__valid_label_name(label_names[i])) return CUZK_ERR_INVALID_ARG;
    if (type == CUZK_METRIC_HISTOGRAM && strcmp(label_names[i], "le") == 0)
      return CUZK_ERR_INVALID_ARG;
    for (size_t j = 0; j < i; j++)
      if (strcmp(label_names[i], label_names[j]) == 0) return CUZK_ERR_INVALID_ARG;
  }
  if (type == CUZK_METRIC_HISTOGRAM) {
    if (!buckets || nbuckets == 0 || nbuckets > CUZK_METRICS_MAX_BUCKETS)
      return CUZK_ERR_INVALID_ARG;
    for (size_t i = 0; i < nbuckets; i++) {
      if (!isfinite(buckets[i])) return CUZK_ERR_INVALID_ARG;
      if (i > 0 && !(buckets[i] > buckets[i - 1])) return CUZK_ERR_INVALID_ARG;
    }
  } else if (buckets || nbuckets) {
    return CUZK_ERR_INVALID_ARG;
  }

  cuzk_metric_family_t *f = calloc(1, sizeof *f);
  if (!f) return CUZK_ERR_NOMEM;
  f->reg = reg;
  f->type = type;
  f->nlabels = nlabels;
  f->name = cuzk__strdup(name);
  f->help = cuzk__strdup(help ? help : "");
  f->label_names = nlabels ? calloc(nlabels, sizeof *f->label_names) : NULL;
  int bad = !f->name || !f->help || (nlabels && !f->label_names);
  for (size_t i = 0; !bad && i < nlabels; i++)
    bad = !(f->label_names[i] = cuzk__strdup(label_names[i]));
  if (!bad && type == CUZK_METRIC_HISTOGRAM) {
    f->nbuckets = nbuckets;
    f->buckets = malloc(nbuckets * sizeof *f->buckets);
    if (f->buckets)
      memcpy(f->buckets, buckets, nbuckets * sizeof *f->buckets);
    else
      bad = 1;
  }
  if (bad) {
    cuzk__family_free(f);
    return CUZK_ERR_NOMEM;
  }

  pthread_mutex_lock(&reg->mu);
  if (cuzk__find_family(reg, name)) {
    pthread_mutex_unlock(&reg->mu);
    cuzk__family_free(f);
    return CUZK_ERR_INVALID_ARG;
  }
  if (reg->tail)
    reg->tail->next = f;
  else
    reg->head = f;
  reg->tail = f;
  pthread_mutex_unlock(&reg->mu);
  *out = f;
  return CUZK_OK;
}

cuzk_metric_family_t *cuzk_metrics_family(cuzk_metrics_t *reg, const char *name) {
  assert(reg && name);
  pthread_mutex_lock(&reg->mu);
  cuzk_metric_family_t *f = cuzk__find_family(reg, name);
  pthread_mutex_unlock(&reg->mu);
  return f;
}

/* Under reg->mu. Matching compares the sanitized stored values with sanitized input. */
static int cuzk__series_matches(const cuzk_metric_t *m, char *const *vals) {
  for (size_t i = 0; i < m->fam->nlabels; i++)
    if (strcmp(m->label_values[i], vals[i]) != 0) return 0;
  return 1;
}

static cuzk_metric_t *cuzk__series_alloc(cuzk_metric_family_t *f, char **vals) {
  cuzk_metric_t *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->fam = f;
  m->label_values = vals;
  atomic_init(&m->value, cuzk__d2u(0.0));
  atomic_init(&m->count, 0);
  if (f->type == CUZK_METRIC_HISTOGRAM) {
    m->bucket_counts = calloc(f->nbuckets + 1, sizeof *m->bucket_counts);
    if (!m->bucket_counts) {
      m->label_values = NULL;
      free(m);
      return NULL;
    }
    for (size_t i = 0; i <= f->nbuckets; i++) atomic_init(&m->bucket_counts[i], 0);
  }
  return m;
}

static char **cuzk__sanitized_values(const cuzk_metric_family_t *f, const char *const *in) {
  if (f->nlabels == 0) return NULL;
  char **vals = calloc(f->nlabels, sizeof *vals);
  if (!vals) return NULL;
  for (size_t i = 0; i < f->nlabels; i++) {
    vals[i] = cuzk__utf8_sanitized(in[i] ? in[i] : "");
    if (!vals[i]) {
      for (size_t j = 0; j < i; j++) free(vals[j]);
      free(vals);
      return NULL;
    }
  }
  return vals;
}

static void cuzk__values_free(char **vals, size_t n) {
  if (!vals) return;
  for (size_t i = 0; i < n; i++) free(vals[i]);
  free(vals);
}

cuzk_metric_t *cuzk_metrics_with(cuzk_metric_family_t *fam, const char *const *label_values) {
  assert(fam && (fam->nlabels == 0 || label_values));
  char **vals = cuzk__sanitized_values(fam, label_values);
  if (fam->nlabels && !vals) return NULL;
  cuzk_metrics_t *reg = fam->reg;
  pthread_mutex_lock(&reg->mu);
  for (cuzk_metric_t *m = fam->head; m; m = m->next)
    if (cuzk__series_matches(m, vals)) {
      pthread_mutex_unlock(&reg->mu);
      cuzk__values_free(vals, fam->nlabels);
      return m;
    }
  cuzk_metric_t *m = cuzk__series_alloc(fam, vals);
  if (m) {
    if (fam->tail)
      fam->tail->next = m;
    else
      fam->head = m;
    fam->tail = m;
  }
  pthread_mutex_unlock(&reg->mu);
  if (!m) cuzk__values_free(vals, fam->nlabels);
  return m;
}

static void cuzk__atomic_add_double(_Atomic uint64_t *slot, double v) {
  uint64_t old = atomic_load_explicit(slot, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(slot, &old, cuzk__d2u(cuzk__u2d(old) + v),
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
}

void cuzk_metrics_inc(cuzk_metric_t *m) {
  cuzk_metrics_add(m, 1.0);
}

void cuzk_metrics_add(cuzk_metric_t *m, double v) {
  assert(m && m->fam->type != CUZK_METRIC_HISTOGRAM);
  assert(m->fam->type != CUZK_METRIC_COUNTER || (v >= 0 && isfinite(v)));
  cuzk__atomic_add_double(&m->value, v);
}

void cuzk_metrics_set(cuzk_metric_t *m, double v) {
  assert(m && m->fam->type == CUZK_METRIC_GAUGE);
  atomic_store_explicit(&m->value, cuzk__d2u(v), memory_order_relaxed);
}

void cuzk_metrics_observe(cuzk_metric_t *m, double v) {
  assert(m && m->fam->type == CUZK_METRIC_HISTOGRAM);
  if (isnan(v)) return;
  const cuzk_metric_family_t *f = m->fam;
  size_t i = 0;
  while (i < f->nbuckets && v > f->buckets[i]) i++;
  atomic_fetch_add_explicit(&m->bucket_counts[i], 1, memory_order_relaxed);
  cuzk__atomic_add_double(&m->value, v);
  atomic_fetch_add_explicit(&m->count, 1, memory_order_relaxed);
}

double cuzk_metrics_value(const cuzk_metric_t *m) {
  assert(m);
  return cuzk__u2d(atomic_load_explicit(&((cuzk_metric_t *)m)->value, memory_order_relaxed));
}

unsigned long long cuzk_metrics_count(const cuzk_metric_t *m) {
  assert(m && m->fam->type == CUZK_METRIC_HISTOGRAM);
  return atomic_load_explicit(&((cuzk_metric_t *)m)->count, memory_order_relaxed);
}

cuzk_err_t cuzk_metrics_gauge_snapshot(cuzk_metric_family_t *fam, size_t n,
                                       const char *const *label_values, const double *values) {
  assert(fam && (n == 0 || values) && (n == 0 || fam->nlabels == 0 || label_values));
  if (fam->type != CUZK_METRIC_GAUGE) return CUZK_ERR_INVALID_ARG;
  cuzk_metric_t *head = NULL, *tail = NULL;
  cuzk_err_t err = CUZK_OK;
  for (size_t i = 0; i < n; i++) {
    char **vals =
        cuzk__sanitized_values(fam, label_values ? label_values + i * fam->nlabels : NULL);
    cuzk_metric_t *m = (fam->nlabels && !vals) ? NULL : cuzk__series_alloc(fam, vals);
    if (!m) {
      cuzk__values_free(vals, fam->nlabels);
      err = CUZK_ERR_NOMEM;
      break;
    }
    atomic_store_explicit(&m->value, cuzk__d2u(values[i]), memory_order_relaxed);
    if (tail)
      tail->next = m;
    else
      head = m;
    tail = m;
  }
  if (err != CUZK_OK) {
    for (cuzk_metric_t *m = head, *nx; m; m = nx) {
      nx = m->next;
      cuzk__series_free(m);
    }
    head = tail = NULL;
  }
  pthread_mutex_lock(&fam->reg->mu);
  cuzk_metric_t *old = fam->head;
  fam->head = head;
  fam->tail = tail;
  pthread_mutex_unlock(&fam->reg->mu);
  for (cuzk_metric_t *m = old, *nx; m; m = nx) {
    nx = m->next;
    cuzk__series_free(m);
  }
  return err;
}

/* ---- rendering ---------------------------------------------------------------------------- */

typedef struct {
  char *p;
  size_t len, cap;
  int oom;
} cuzk__buf_t;

static void cuzk__buf_put(cuzk__buf_t *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->len + n + 1 > cap) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void cuzk__buf_str(cuzk__buf_t *b, const char *s) {
  cuzk__buf_put(b, s, strlen(s));
}

/* HELP text escapes `\` and newline; label values also escape `"`. */
static void cuzk__buf_escaped(cuzk__buf_t *b, const char *s, int quote) {
  for (; *s; s++) {
    if (*s == '\\')
      cuzk__buf_put(b, "\\\\", 2);
    else if (*s == '\n')
      cuzk__buf_put(b, "\\n", 2);
    else if (quote && *s == '"')
      cuzk__buf_put(b, "\\\"", 2);
    else
      cuzk__buf_put(b, s, 1);
  }
}

/* Shortest decimal text that reads back as the same double; Prometheus spellings of the
 * non-finite values. */
static void cuzk__format_double(char *out, size_t n, double v) {
  if (isnan(v)) {
    snprintf(out, n, "NaN");
    return;
  }
  if (isinf(v)) {
    snprintf(out, n, v > 0 ? "+Inf" : "-Inf");
    return;
  }
  if (v == floor(v) && fabs(v) < 9007199254740992.0 /* 2^53: every integer is exact */) {
    snprintf(out, n, "%.0f", v);
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(out, n, "%.*g", prec, v);
    if (strtod(out, NULL) == v) return;
  }
}

static void cuzk__buf_double(cuzk__buf_t *b, double v) {
  char tmp[40];
  cuzk__format_double(tmp, sizeof tmp, v);
  cuzk__buf_str(b, tmp);
}

static void cuzk__buf_u64(cuzk__buf_t *b, uint64_t v) {
  char tmp[24];
  snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
  cuzk__buf_str(b, tmp);
}

/* `name{l1="v1",...,extra}` with extra (already formatted, e.g. le="0.5") appended. */
static void cuzk__buf_series_name(cuzk__buf_t *b, const cuzk_metric_t *m, const char *suffix,
                                  const char *extra) {
  const cuzk_metric_family_t *f = m->fam;
  cuzk__buf_str(b, f->name);
  if (suffix) cuzk__buf_str(b, suffix);
  if (f->nlabels == 0 && !extra) return;
  cuzk__buf_put(b, "{", 1);
  for (size_t i = 0; i < f->nlabels; i++) {
    if (i) cuzk__buf_put(b, ",", 1);
    cuzk__buf_str(b, f->label_names[i]);
    cuzk__buf_put(b, "=\"", 2);
    cuzk__buf_escaped(b, m->label_values[i], 1);
    cuzk__buf_put(b, "\"", 1);
  }
  if (extra) {
    if (f->nlabels) cuzk__buf_put(b, ",", 1);
    cuzk__buf_str(b, extra);
  }
  cuzk__buf_put(b, "}", 1);
}

static void cuzk__render_series(cuzk__buf_t *b, cuzk_metric_t *m) {
  const cuzk_metric_family_t *f = m->fam;
  if (f->type != CUZK_METRIC_HISTOGRAM) {
    cuzk__buf_series_name(b, m, NULL, NULL);
    cuzk__buf_put(b, " ", 1);
    cuzk__buf_double(b, cuzk_metrics_value(m));
    cuzk__buf_put(b, "\n", 1);
    return;
  }
  /* Buckets are read one by one while writers may add: make the output self-consistent by
   * deriving _count from the cumulative buckets rather than from the separate counter. */
  uint64_t cum = 0;
  char extra[64], num[40];
  for (size_t i = 0; i <= f->nbuckets; i++) {
    cum += atomic_load_explicit(&m->bucket_counts[i], memory_order_relaxed);
    if (i < f->nbuckets) {
      cuzk__format_double(num, sizeof num, f->buckets[i]);
      snprintf(extra, sizeof extra, "le=\"%s\"", num);
    } else {
      snprintf(extra, sizeof extra, "le=\"+Inf\"");
    }
    cuzk__buf_series_name(b, m, "_bucket", extra);
    cuzk__buf_put(b, " ", 1);
    cuzk__buf_u64(b, cum);
    cuzk__buf_put(b, "\n", 1);
  }
  cuzk__buf_series_name(b, m, "_sum", NULL);
  cuzk__buf_put(b, " ", 1);
  cuzk__buf_double(b, cuzk_metrics_value(m));
  cuzk__buf_put(b, "\n", 1);
  cuzk__buf_series_name(b, m, "_count", NULL);
  cuzk__buf_put(b, " ", 1);
  cuzk__buf_u64(b, cum);
  cuzk__buf_put(b, "\n", 1);
}

cuzk_err_t cuzk_metrics_render(cuzk_metrics_t *reg, char **out, size_t *len) {
  assert(reg && out && len);
  static const char *const type_names[] = {"counter", "gauge", "histogram"};
  cuzk__buf_t b = {0};
  cuzk__buf_put(&b, "", 0);
  pthread_mutex_lock(&reg->mu);
  for (cuzk_metric_family_t *f = reg->head; f; f = f->next) {
    cuzk__buf_str(&b, "# HELP ");
    cuzk__buf_str(&b, f->name);
    cuzk__buf_put(&b, " ", 1);
    cuzk__buf_escaped(&b, f->help, 0);
    cuzk__buf_str(&b, "\n# TYPE ");
    cuzk__buf_str(&b, f->name);
    cuzk__buf_put(&b, " ", 1);
    cuzk__buf_str(&b, type_names[f->type]);
    cuzk__buf_put(&b, "\n", 1);
    for (cuzk_metric_t *m = f->head; m; m = m->next) cuzk__render_series(&b, m);
  }
  pthread_mutex_unlock(&reg->mu);
  if (b.oom) {
    free(b.p);
    return CUZK_ERR_NOMEM;
  }
  *out = b.p;
  *len = b.len;
  return CUZK_OK;
}
