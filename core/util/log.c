#include "core/util/log.h"

#include <assert.h>
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* A formatted value longer than this is cut and the line gets truncated=true. */
#define CUZK__LOG_MAX_VALUE 16384
/* component and event names are cut to this many bytes. */
#define CUZK__LOG_MAX_NAME 256
#define CUZK__LOG_STACK_LINE 4096

_Atomic int cuzk__log_threshold = CUZK_LOG_INFO;
static _Atomic int cuzk__log_format = CUZK_LOG_FORMAT_LOGFMT;

static pthread_mutex_t cuzk__log_mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *cuzk__log_file; /* NULL = stderr */
static cuzk_log_callback_t cuzk__log_cb;
static void *cuzk__log_cb_ctx;

static const char *const cuzk__level_names[] = {"trace", "debug", "info", "warn", "error", "off"};

const char *cuzk_log_level_name(cuzk_log_level_t level) {
  if ((unsigned)level > (unsigned)CUZK_LOG_OFF) return "unknown";
  return cuzk__level_names[level];
}

cuzk_err_t cuzk_log_level_parse(const char *s, cuzk_log_level_t *out) {
  assert(out);
  if (!s) return CUZK_ERR_PARSE;
  for (int l = CUZK_LOG_TRACE; l <= CUZK_LOG_OFF; l++) {
    if (strcasecmp(s, cuzk__level_names[l]) == 0) {
      *out = (cuzk_log_level_t)l;
      return CUZK_OK;
    }
  }
  if (strcasecmp(s, "warning") == 0) {
    *out = CUZK_LOG_WARN;
    return CUZK_OK;
  }
  return CUZK_ERR_PARSE;
}

cuzk_err_t cuzk_log_format_parse(const char *s, cuzk_log_format_t *out) {
  assert(out);
  if (!s) return CUZK_ERR_PARSE;
  if (strcasecmp(s, "logfmt") == 0) {
    *out = CUZK_LOG_FORMAT_LOGFMT;
  } else if (strcasecmp(s, "json") == 0) {
    *out = CUZK_LOG_FORMAT_JSON;
  } else {
    return CUZK_ERR_PARSE;
  }
  return CUZK_OK;
}

void cuzk_log_set_level(cuzk_log_level_t level) {
  assert((unsigned)level <= (unsigned)CUZK_LOG_OFF);
  atomic_store(&cuzk__log_threshold, (int)level);
}

cuzk_log_level_t cuzk_log_get_level(void) {
  return (cuzk_log_level_t)atomic_load(&cuzk__log_threshold);
}

void cuzk_log_set_format(cuzk_log_format_t format) {
  assert(format == CUZK_LOG_FORMAT_LOGFMT || format == CUZK_LOG_FORMAT_JSON);
  atomic_store(&cuzk__log_format, (int)format);
}

cuzk_log_format_t cuzk_log_get_format(void) {
  return (cuzk_log_format_t)atomic_load(&cuzk__log_format);
}

void cuzk_log_set_sink(FILE *f) {
  pthread_mutex_lock(&cuzk__log_mu);
  cuzk__log_file = f;
  cuzk__log_cb = NULL;
  cuzk__log_cb_ctx = NULL;
  pthread_mutex_unlock(&cuzk__log_mu);
}

void cuzk_log_set_callback(cuzk_log_callback_t fn, void *ctx) {
  pthread_mutex_lock(&cuzk__log_mu);
  cuzk__log_file = NULL;
  cuzk__log_cb = fn;
  cuzk__log_cb_ctx = fn ? ctx : NULL;
  pthread_mutex_unlock(&cuzk__log_mu);
}

cuzk_err_t cuzk_log_init_from_env(char *errstr, size_t errstr_size) {
  cuzk_log_level_t level = cuzk_log_get_level();
  cuzk_log_format_t format = cuzk_log_get_format();
  const char *lv = getenv("CUZK_LOG_LEVEL");
  const char *fm = getenv("CUZK_LOG_FORMAT");
  if (lv && *lv && cuzk_log_level_parse(lv, &level) != CUZK_OK)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                     "CUZK_LOG_LEVEL=%s: expected trace, debug, info, warn, error or off", lv);
  if (fm && *fm && cuzk_log_format_parse(fm, &format) != CUZK_OK)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                     "CUZK_LOG_FORMAT=%s: expected logfmt or json", fm);
  cuzk_log_set_level(level);
  cuzk_log_set_format(format);
  return CUZK_OK;
}

/* ---- line builder ---------------------------------------------------------------------------- */

typedef struct {
  char *p;
  size_t len, cap;
  bool heap, oom;
} cuzk__sb_t;

static bool cuzk__sb_reserve(cuzk__sb_t *b, size_t extra) {
  if (b->oom) return false;
  if (b->len + extra + 1 <= b->cap) return true;
  size_t cap = b->cap * 2;
  while (cap < b->len + extra + 1) cap *= 2;
  char *np = b->heap ? realloc(b->p, cap) : malloc(cap);
  if (!np) {
    b->oom = true;
    return false;
  }
  if (!b->heap) memcpy(np, b->p, b->len);
  b->p = np;
  b->cap = cap;
  b->heap = true;
  return true;
}

static void cuzk__sb_putn(cuzk__sb_t *b, const char *s, size_t n) {
  if (!cuzk__sb_reserve(b, n)) return;
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void cuzk__sb_puts(cuzk__sb_t *b, const char *s) {
  cuzk__sb_putn(b, s, strlen(s));
}

static void cuzk__sb_putc(cuzk__sb_t *b, char c) {
  cuzk__sb_putn(b, &c, 1);
}

static void cuzk__sb_u00(cuzk__sb_t *b, unsigned char c) {
  static const char hx[] = "0123456789abcdef";
  char e[6] = {'\\', 'u', '0', '0', hx[c >> 4], hx[c & 15]};
  cuzk__sb_putn(b, e, sizeof e);
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), or 0 if invalid. */
static size_t cuzk__utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return 0; /* overlong */
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;                           /* surrogate */
  if (cp > 0x10ffff) return 0;
  return len;
}

static void cuzk__json_str(cuzk__sb_t *b, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  cuzk__sb_putc(b, '"');
  size_t i = 0;
  while (i < n) {
    unsigned char c = u[i];
    switch (c) {
      case '"':
        cuzk__sb_puts(b, "\\\"");
        i++;
        continue;
      case '\\':
        cuzk__sb_puts(b, "\\\\");
        i++;
        continue;
      case '\n':
        cuzk__sb_puts(b, "\\n");
        i++;
        continue;
      case '\r':
        cuzk__sb_puts(b, "\\r");
        i++;
        continue;
      case '\t':
        cuzk__sb_puts(b, "\\t");
        i++;
        continue;
      case '\b':
        cuzk__sb_puts(b, "\\b");
        i++;
        continue;
      case '\f':
        cuzk__sb_puts(b, "\\f");
        i++;
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == 0x7f) {
      cuzk__sb_u00(b, c);
      i++;
      continue;
    }
    size_t l = cuzk__utf8_len(u + i, n - i);
    if (l == 0) {
      cuzk__sb_u00(b, c);
      i++;
      continue;
    }
    cuzk__sb_putn(b, s + i, l);
    i += l;
  }
  cuzk__sb_putc(b, '"');
}

static bool cuzk__logfmt_needs_quotes(const char *s, size_t n) {
  if (n == 0) return true;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c <= ' ' || c == '"' || c == '=' || c == 0x7f) return true;
  }
  return false;
}

static void cuzk__logfmt_val(cuzk__sb_t *b, const char *s, size_t n) {
  if (!cuzk__logfmt_needs_quotes(s, n)) {
    cuzk__sb_putn(b, s, n);
    return;
  }
  cuzk__sb_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"':
        cuzk__sb_puts(b, "\\\"");
        break;
      case '\\':
        cuzk__sb_puts(b, "\\\\");
        break;
      case '\n':
        cuzk__sb_puts(b, "\\n");
        break;
      case '\r':
        cuzk__sb_puts(b, "\\r");
        break;
      case '\t':
        cuzk__sb_puts(b, "\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7f)
          cuzk__sb_u00(b, c);
        else
          cuzk__sb_putc(b, (char)c);
    }
  }
  cuzk__sb_putc(b, '"');
}

static bool cuzk__is_json_number(const char *s, size_t n) {
  size_t i = 0;
  if (i < n && s[i] == '-') i++;
  if (i >= n) return false;
  if (s[i] == '0') {
    i++;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && isdigit((unsigned char)s[i])) i++;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    i++;
    size_t d = i;
    while (i < n && isdigit((unsigned char)s[i])) i++;
    if (i == d) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t d = i;
    while (i < n && isdigit((unsigned char)s[i])) i++;
    if (i == d) return false;
  }
  return i == n;
}

/* One field: key (not escaped: keys are checked to be [A-Za-z0-9_.-]+) and value. */
static void cuzk__field(cuzk__sb_t *b, cuzk_log_format_t fmt, bool first, const char *key,
                        size_t klen, const char *val, size_t vlen, bool numeric) {
  if (fmt == CUZK_LOG_FORMAT_JSON) {
    if (!first) cuzk__sb_putc(b, ',');
    cuzk__sb_putc(b, '"');
    cuzk__sb_putn(b, key, klen);
    cuzk__sb_puts(b, "\":");
    if (numeric && cuzk__is_json_number(val, vlen))
      cuzk__sb_putn(b, val, vlen);
    else
      cuzk__json_str(b, val, vlen);
  } else {
    if (!first) cuzk__sb_putc(b, ' ');
    cuzk__sb_putn(b, key, klen);
    cuzk__sb_putc(b, '=');
    cuzk__logfmt_val(b, val, vlen);
  }
}

/* ---- printf format walking ------------------------------------------------------------------- */

static bool cuzk__is_key_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* Length of the key at s if s starts with `key=`, else 0. */
static size_t cuzk__key_at(const char *s) {
  size_t i = 0;
  while (cuzk__is_key_char(s[i])) i++;
  return (i > 0 && s[i] == '=') ? i : 0;
}

/* Consumes the arguments of the conversions in f[0..n) from *ap. Sets *single_numeric when f is
 * exactly one integer or floating conversion. Positional arguments (%1$d) are not supported. */
static void cuzk__skip_args(const char *f, size_t n, va_list *ap, bool *single_numeric) {
  size_t convs = 0;
  bool numeric = false, whole = false;
  for (size_t i = 0; i < n; i++) {
    if (f[i] != '%') continue;
    size_t start = i++;
    if (i < n && f[i] == '%') continue;
    while (i < n && strchr("-+ #0'I", f[i])) i++;
    if (i < n && f[i] == '*') {
      (void)va_arg(*ap, int);
      i++;
    } else {
      while (i < n && isdigit((unsigned char)f[i])) i++;
    }
    if (i < n && f[i] == '.') {
      i++;
      if (i < n && f[i] == '*') {
        (void)va_arg(*ap, int);
        i++;
      } else {
        while (i < n && isdigit((unsigned char)f[i])) i++;
      }
    }
    int lng = 0; /* 1 h, 2 hh, 3 l, 4 ll, 5 j, 6 z, 7 t, 8 L */
    if (i < n) {
      switch (f[i]) {
        case 'h':
          lng = (i + 1 < n && f[i + 1] == 'h') ? 2 : 1;
          break;
        case 'l':
          lng = (i + 1 < n && f[i + 1] == 'l') ? 4 : 3;
          break;
        case 'q':
          lng = 4;
          break;
        case 'j':
          lng = 5;
          break;
        case 'z':
          lng = 6;
          break;
        case 't':
          lng = 7;
          break;
        case 'L':
          lng = 8;
          break;
        default:
          break;
      }
      if (lng) i += (lng == 2 || lng == 4) && f[i] != 'q' ? 2 : 1;
    }
    if (i >= n) break;
    char c = f[i];
    convs++;
    bool num = false;
    switch (c) {
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X':
        num = (c == 'd' || c == 'i' || c == 'u');
        if (lng == 3)
          (void)va_arg(*ap, long);
        else if (lng == 4)
          (void)va_arg(*ap, long long);
        else if (lng == 5)
          (void)va_arg(*ap, intmax_t);
        else if (lng == 6)
          (void)va_arg(*ap, size_t);
        else if (lng == 7)
          (void)va_arg(*ap, ptrdiff_t);
        else
          (void)va_arg(*ap, int);
        break;
      case 'c':
        (void)va_arg(*ap, int);
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A':
        num = (c != 'a' && c != 'A');
        if (lng == 8)
          (void)va_arg(*ap, long double);
        else
          (void)va_arg(*ap, double);
        break;
      case 's':
      case 'p':
      case 'n':
        (void)va_arg(*ap, void *);
        break;
      case 'm':
        break;
      default:
        break;
    }
    if (convs == 1) {
      numeric = num;
      whole = (start == 0 && i + 1 == n);
    }
  }
  *single_numeric = convs == 1 && numeric && whole;
}

/* Formats f[0..n) (a piece of the caller's format) with a copy of *ap into *out (heap or the
 * given scratch), then advances *ap past its arguments. Returns the value length. */
static size_t cuzk__format_value(const char *f, size_t n, va_list *ap, char *scratch,
                                 size_t scratch_size, char **out, bool *numeric, bool *cut) {
  char fbuf[512];
  char *fz = n < sizeof fbuf ? fbuf : malloc(n + 1);
  *out = scratch;
  *numeric = false;
  if (!fz) {
    scratch[0] = '\0';
    *cut = true;
    cuzk__skip_args(f, n, ap, numeric);
    *numeric = false;
    return 0;
  }
  memcpy(fz, f, n);
  fz[n] = '\0';
  va_list cp;
  va_copy(cp, *ap);
  int r = vsnprintf(scratch, scratch_size, fz, cp);
  va_end(cp);
  size_t len = r < 0 ? 0 : (size_t)r;
  if (len >= scratch_size) {
    size_t want = len < CUZK__LOG_MAX_VALUE ? len : CUZK__LOG_MAX_VALUE;
    char *big = malloc(want + 1);
    if (big) {
      va_copy(cp, *ap);
      vsnprintf(big, want + 1, fz, cp);
      va_end(cp);
      *out = big;
      if (want < len) *cut = true;
      len = want;
    } else {
      *cut = true;
      len = scratch_size - 1;
    }
  }
  cuzk__skip_args(f, n, ap, numeric);
  if (fz != fbuf) free(fz);
  return len;
}

/* ---- the write path -------------------------------------------------------------------------- */

static void cuzk__timestamp(char out[64]) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

static void cuzk__header(cuzk__sb_t *b, cuzk_log_format_t fmt, cuzk_log_level_t level,
                         const char *component, const char *event) {
  char ts[64];
  cuzk__timestamp(ts);
  if (!component) component = "unknown";
  if (!event) event = "unknown";
  size_t cl = strnlen(component, CUZK__LOG_MAX_NAME), el = strnlen(event, CUZK__LOG_MAX_NAME);
  const char *ln = cuzk_log_level_name(level);
  if (fmt == CUZK_LOG_FORMAT_JSON) cuzk__sb_putc(b, '{');
  cuzk__field(b, fmt, true, "ts", 2, ts, strlen(ts), false);
  cuzk__field(b, fmt, false, "level", 5, ln, strlen(ln), false);
  cuzk__field(b, fmt, false, "component", 9, component, cl, false);
  cuzk__field(b, fmt, false, "event", 5, event, el, false);
}

/* line[len] is the '\n'. */
static void cuzk__emit(cuzk_log_level_t level, char *line, size_t len) {
  pthread_mutex_lock(&cuzk__log_mu);
  if (cuzk__log_cb) {
    line[len] = '\0';
    cuzk__log_cb(cuzk__log_cb_ctx, level, line, len);
    line[len] = '\n';
  } else {
    FILE *f = cuzk__log_file ? cuzk__log_file : stderr;
    fwrite(line, 1, len + 1, f);
    fflush(f);
  }
  pthread_mutex_unlock(&cuzk__log_mu);
}

void cuzk_log_write(cuzk_log_level_t level, const char *component, const char *event,
                    const char *fields_fmt, ...) {
  if (!cuzk_log_enabled(level)) return;
  cuzk_log_format_t fmt = cuzk_log_get_format();
  char stack[CUZK__LOG_STACK_LINE];
  cuzk__sb_t b = {stack, 0, sizeof stack, false, false};
  stack[0] = '\0';
  cuzk__header(&b, fmt, level, component, event);

  bool cut = false;
  if (fields_fmt) {
    va_list ap;
    va_start(ap, fields_fmt);
    const char *f = fields_fmt;
    size_t n = strlen(f);
    size_t pos = 0;
    while (pos < n) {
      size_t klen = cuzk__key_at(f + pos);
      const char *key = klen ? f + pos : "msg";
      size_t vstart = klen ? pos + klen + 1 : pos;
      if (!klen) klen = 3;
      size_t vend = vstart;
      while (vend < n && !(f[vend] == ' ' && cuzk__key_at(f + vend + 1))) vend++;
      char scratch[1024];
      char *val;
      bool numeric;
      size_t vlen = cuzk__format_value(f + vstart, vend - vstart, &ap, scratch, sizeof scratch,
                                       &val, &numeric, &cut);
      cuzk__field(&b, fmt, false, key, klen, val, vlen, numeric);
      if (val != scratch) free(val);
      pos = vend < n ? vend + 1 : n;
    }
    va_end(ap);
  }
  if (cut) cuzk__field(&b, fmt, false, "truncated", 9, "true", 4, true);
  if (fmt == CUZK_LOG_FORMAT_JSON) cuzk__sb_putc(&b, '}');
  cuzk__sb_putc(&b, '\n');

  if (b.oom) {
    /* Out of memory: fall back to the header alone, which fits in the stack buffer. */
    if (b.heap) free(b.p);
    b = (cuzk__sb_t){stack, 0, sizeof stack, false, false};
    cuzk__header(&b, fmt, level, component, event);
    cuzk__field(&b, fmt, false, "truncated", 9, "true", 4, true);
    if (fmt == CUZK_LOG_FORMAT_JSON) cuzk__sb_putc(&b, '}');
    cuzk__sb_putc(&b, '\n');
  }
  cuzk__emit(level, b.p, b.len - 1);
  if (b.heap) free(b.p);
}
