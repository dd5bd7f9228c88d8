/* Structured logging: one line per event, logfmt by default, JSON optional.
 *
 *   CUZK_INFO("engine", "job_done", "job_id=%s dur_ms=%d", id, ms);
 *   logfmt: ts=2026-12-02T11:00:00.123Z level=info component=engine event=job_done job_id=abc
 * dur_ms=12 json:
 * {"ts":"2026-12-02T11:00:00.123Z","level":"info","component":"engine","event":"job_done",
 *            "job_id":"abc","dur_ms":12}
 *
 * The fields format is a printf format made of `key=value` segments separated by single spaces
 * (a segment starts where a space is followed by `key=`, key in [A-Za-z0-9_.-]). Each value is
 * formatted on its own and then escaped for the output format, so values may hold spaces, quotes,
 * `=` or control characters: logfmt quotes such values ("a b", \" \\ \n \r \t, \u00XX), JSON
 * escapes them and replaces invalid UTF-8 bytes with \u00XX. In JSON a value whose segment is a
 * single integer or floating conversion (%d %i %u %f %e %g, any flags/length) and whose text is a
 * JSON number is written as a number; everything else is a string. Text before the first `key=`
 * becomes the field `msg`. Pass NULL as the format when an event has no fields (an empty string
 * literal trips -Wformat-zero-length).
 *
 * The level is checked before anything is formatted: arguments of a disabled CUZK_LOG are not
 * evaluated.
 *
 * Threads: every function may be called from any thread. Settings are atomics; the write of a
 * line to the sink happens under one internal mutex, so lines never interleave. A callback sink
 * runs under that mutex and must not log itself.
 * Ownership: the FILE given to cuzk_log_set_sink stays owned by the caller (it must outlive its
 * use as the sink); the line passed to a callback is valid only during the call.
 */
#ifndef CUZK_UTIL_LOG_H
#define CUZK_UTIL_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/util/err.h"

typedef enum {
  CUZK_LOG_TRACE = 0,
  CUZK_LOG_DEBUG = 1,
  CUZK_LOG_INFO = 2,
  CUZK_LOG_WARN = 3,
  CUZK_LOG_ERROR = 4,
  CUZK_LOG_OFF = 5, /* only as a threshold: disables every level */
} cuzk_log_level_t;

typedef enum {
  CUZK_LOG_FORMAT_LOGFMT = 0,
  CUZK_LOG_FORMAT_JSON = 1,
} cuzk_log_format_t;

/* Receives one finished line without the trailing newline (NUL-terminated, `len` bytes). */
typedef void (*cuzk_log_callback_t)(void *ctx, cuzk_log_level_t level, const char *line,
                                    size_t len);

/* The lowercase name of a level ("trace".."error", "off"); "unknown" outside the enum. */
const char *cuzk_log_level_name(cuzk_log_level_t level);

/* Parses "trace", "debug", "info", "warn" (or "warning"), "error", "off", case-insensitively.
 * CUZK_ERR_PARSE (out untouched) for anything else, including NULL. */
cuzk_err_t cuzk_log_level_parse(const char *s, cuzk_log_level_t *out);

/* Parses "logfmt" or "json", case-insensitively; CUZK_ERR_PARSE otherwise. */
cuzk_err_t cuzk_log_format_parse(const char *s, cuzk_log_format_t *out);

/* Threshold: events below `level` are dropped. Default CUZK_LOG_INFO. */
void cuzk_log_set_level(cuzk_log_level_t level);
cuzk_log_level_t cuzk_log_get_level(void);

/* Default CUZK_LOG_FORMAT_LOGFMT. */
void cuzk_log_set_format(cuzk_log_format_t format);
cuzk_log_format_t cuzk_log_get_format(void);

/* Lines go to `f` (NULL = stderr, the default), each followed by '\n' and flushed. Replaces a
 * callback sink. Takes the log mutex, so once it returns no line is still being written to the
 * previous sink. */
void cuzk_log_set_sink(FILE *f);

/* Lines go to `fn(ctx, ...)` instead of a FILE; fn == NULL restores stderr. Same mutex rule. */
void cuzk_log_set_callback(cuzk_log_callback_t fn, void *ctx);

/* Reads CUZK_LOG_LEVEL and CUZK_LOG_FORMAT (each optional). On a bad value returns CUZK_ERR_CONFIG
 * with a sentence in errstr and changes nothing; otherwise applies both. */
cuzk_err_t cuzk_log_init_from_env(char *errstr, size_t errstr_size);

extern _Atomic int cuzk__log_threshold;

/* True when an event at `level` would be written. Cheap: one relaxed atomic load. */
static inline bool cuzk_log_enabled(cuzk_log_level_t level) {
  return (int)level >= atomic_load_explicit(&cuzk__log_threshold, memory_order_relaxed) &&
         level < CUZK_LOG_OFF;
}

/* Formats and writes one event if `level` is enabled. `fields_fmt` may be NULL. Prefer the macros,
 * which skip argument evaluation when the level is disabled. Never fails: an allocation failure
 * truncates the line (ending it with `truncated=true`). */
void cuzk_log_write(cuzk_log_level_t level, const char *component, const char *event,
                    const char *fields_fmt, ...) __attribute__((format(printf, 4, 5)));

/* CUZK_LOG(CUZK_LOG_INFO, "engine", "job_done", "job_id=%s", id) */
#define CUZK_LOG(level, component, event, ...)                                               \
  do {                                                                                       \
    if (cuzk_log_enabled(level)) cuzk_log_write((level), (component), (event), __VA_ARGS__); \
  } while (0)

#define CUZK_TRACE(component, event, ...) CUZK_LOG(CUZK_LOG_TRACE, component, event, __VA_ARGS__)
#define CUZK_DEBUG(component, event, ...) CUZK_LOG(CUZK_LOG_DEBUG, component, event, __VA_ARGS__)
#define CUZK_INFO(component, event, ...) CUZK_LOG(CUZK_LOG_INFO, component, event, __VA_ARGS__)
#define CUZK_WARN(component, event, ...) CUZK_LOG(CUZK_LOG_WARN, component, event, __VA_ARGS__)
#define CUZK_ERROR(component, event, ...) CUZK_LOG(CUZK_LOG_ERROR, component, event, __VA_ARGS__)

#endif
