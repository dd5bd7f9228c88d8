/* The agent's configuration: a libconfig file (default /etc/cuzk/cuzk.cfg), then environment
 * overrides CUZK_<SECTION>_<KEY>, validated against one key table (agent/config.c) that also
 * drives the defaults, `cuzk agent --print-config` and the documentation in ops/cuzk.example.cfg.
 *
 * Ownership: a cuzk_config_t comes from cuzk_config_load*() / cuzk_config_new_defaults() /
 * cuzk_config_reload() and is freed with cuzk_config_free(); every string and list inside it is
 * owned by it. A loaded config is immutable: readers on any thread may share it; a SIGHUP reload
 * builds a new one and the caller swaps the pointer.
 * Threads: loading calls libconfig and librdkafka's conf API only; it is safe on any thread but
 * meant for the main thread (startup and SIGHUP).
 *
 * Only the libconfig 1.5 API is used (Debian 12); see config.c for the 1.5 quirks handled
 * (@include resolution, 32-bit truncation of integers written without an L suffix).
 */
#ifndef CUZK_AGENT_CONFIG_H
#define CUZK_AGENT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util/err.h"

#define CUZK_CONFIG_DEFAULT_PATH "/etc/cuzk/cuzk.cfg"

/* Proof types as named in config, topics and records. Bit i of a type set is type i. */
typedef enum {
  CUZK_CONFIG_TYPE_WINNING_POST = 0, /* "winning-post" */
  CUZK_CONFIG_TYPE_WINDOW_POST = 1,  /* "window-post" */
  CUZK_CONFIG_TYPE_SNAP_DEALS = 2,   /* "snap-deals" */
  CUZK_CONFIG_TYPE_POREP_C2 = 3,     /* "porep-c2" */
  CUZK_CONFIG_TYPE__COUNT
} cuzk_config_proof_type_t;
#define CUZK_CONFIG_TYPESET_ALL ((1u << CUZK_CONFIG_TYPE__COUNT) - 1u)

/* The enum values follow the order of the allowed strings in the key table. */
typedef enum {
  CUZK_LOG_DEBUG,
  CUZK_LOG_INFO,
  CUZK_LOG_WARN,
  CUZK_LOG_ERROR
} cuzk_config_log_level_t;
typedef enum { CUZK_LOG_FORMAT_LOGFMT, CUZK_LOG_FORMAT_JSON } cuzk_config_log_format_t;
typedef enum { CUZK_FRAMING_SINGLE_OBJECT, CUZK_FRAMING_CONFLUENT } cuzk_config_framing_t;
typedef enum { CUZK_ASSIGNOR_RANGE, CUZK_ASSIGNOR_ROUNDROBIN } cuzk_config_assignor_t;
typedef enum { CUZK_VERIFY_ALWAYS, CUZK_VERIFY_SAMPLE, CUZK_VERIFY_NEVER } cuzk_config_verify_t;
typedef enum { CUZK_BACKEND_AUTO, CUZK_BACKEND_CPU, CUZK_BACKEND_CUDA } cuzk_config_backend_t;

typedef struct {
  size_t n;
  char **v;
} cuzk_config_strlist_t;

typedef struct {
  size_t n;
  int64_t *v;
} cuzk_config_intlist_t;

/* librdkafka properties, in file order, passed verbatim to rd_kafka_conf_set(). */
typedef struct {
  size_t n;
  char **name;
  char **value;
} cuzk_config_props_t;

typedef struct {
  struct {
    char *id; /* never empty after loading ("" in the file = hostname) */
    cuzk_config_log_level_t log_level;
    cuzk_config_log_format_t log_format;
    int64_t status_interval_s;
    int64_t shutdown_grace_s;
    char *http_listen; /* "host:port", or "" = no HTTP server */
    char *params_dir;
    char *work_dir;
    bool allow_insecure_params;
    uint64_t max_job_bytes;
    int64_t payload_fetch_timeout_s;
  } agent;
  struct {
    char *brokers; /* "" = librdkafka's embedded mock cluster (demo only) */
    char *topic_prefix;
    char *group_id;
    char *group_instance_id; /* "" = dynamic membership */
    unsigned enabled_types;  /* bit set over cuzk_config_proof_type_t, never 0 */
    cuzk_config_framing_t framing;
    struct { /* Confluent schema ids; 0 = unset */
      int64_t proof_job, proof_result, partition_timing, agent_status, dead_letter;
    } confluent_schema_ids;
    uint64_t max_message_bytes;
    uint64_t inline_payload_max_bytes;
    cuzk_config_assignor_t assignor;
    int64_t poll_interval_ms;
    bool transactional;
    cuzk_config_props_t properties;
    cuzk_config_props_t consumer_properties;
    cuzk_config_props_t producer_properties;
  } kafka;
  struct {
    uint64_t memory_budget; /* bytes; 0 = "auto" (see cuzk_config_memory_budget) */
    uint64_t safety_margin;
    int64_t synthesis_workers; /* 0 = auto */
    int64_t synthesis_threads; /* 0 = auto */
    int64_t gpu_workers_per_device;
    cuzk_config_backend_t backend; /* auto = cuda when built and a device is present */
    cuzk_config_intlist_t devices; /* empty = all */
    cuzk_config_verify_t verify_proofs;
    int64_t verify_sample_percent;
    struct {
      unsigned prewarm_types; /* bit set over cuzk_config_proof_type_t */
      int64_t prewarm_pace_ms;
      uint64_t max_bytes; /* 0 = limited by the memory budget only */
    } pinned_pool;
    struct {
      cuzk_config_strlist_t preload; /* circuit ids "<type>-<sector size>", e.g. "porep-c2-32g" */
      bool device_resident;
      int64_t evict_idle_s;
    } srs;
    char *timeline_file; /* "" = off */
    int64_t admission_reserve_critical;
  } engine;

  /* Internal: where each key's value came from, and the env overrides applied (for reload). */
  char *source_path; /* the file loaded, or NULL */
  void *cuzk__priv;
} cuzk_config_t;

/* Loads `path` (NULL: no file, defaults only), then applies overrides from `envp` (a
 * NULL-terminated "NAME=value" array such as `environ`; NULL: none). Every problem found is written
 * to errstr, one per line, each naming "file:line:" or the variable. Returns CUZK_OK and *out, or
 * CUZK_ERR_CONFIG (CUZK_ERR_NOMEM) and *out == NULL. */
cuzk_err_t cuzk_config_load(cuzk_config_t **out, const char *path, const char *const *envp,
                            char *errstr, size_t errstr_size);

/* As cuzk_config_load, but parses `text` (errors name "<string>:line"). @include resolves
 * relative to the current directory. */
cuzk_err_t cuzk_config_load_string(cuzk_config_t **out, const char *text, const char *const *envp,
                                   char *errstr, size_t errstr_size);

/* The default configuration (agent.id = hostname). NULL when out of memory. */
cuzk_config_t *cuzk_config_new_defaults(void);

void cuzk_config_free(cuzk_config_t *cfg);

/* SIGHUP: loads `path` again with the env overrides `old` was loaded with. When a key that is not
 * reloadable differs, returns CUZK_ERR_UNSUPPORTED with every such key named in errstr
 * ("kafka.brokers: changed from \"a\" to \"b\", but it is not reloadable; restart the agent");
 * when the file is invalid, CUZK_ERR_CONFIG. On CUZK_OK *out is the new config (the caller frees
 * the old one once no reader holds it). */
cuzk_err_t cuzk_config_reload(const cuzk_config_t *old, const char *path, cuzk_config_t **out,
                              char *errstr, size_t errstr_size);

/* The first key (table order) whose value differs between a and b, or NULL when equal. */
const char *cuzk_config_diff(const cuzk_config_t *a, const cuzk_config_t *b);

/* Where key `path` got its value: "default", "FILE:LINE" or "env CUZK_...". NULL: unknown key. */
const char *cuzk_config_origin(const cuzk_config_t *cfg, const char *path);

enum {
  CUZK_CONFIG_PRINT_ORIGINS = 1, /* add "# set at FILE:LINE" or "# set at env VAR" to keys set */
};
/* Writes cfg as libconfig text, each key preceded by its doc string, default and reload rule as
 * comments. The output loads back to an equal config. With cfg == NULL writes the table defaults
 * (agent.id = ""), the form ops/cuzk.example.cfg is made from. */
void cuzk_config_print(FILE *out, const cuzk_config_t *cfg, int flags);

/* The memory budget in bytes: engine.memory_budget, or for "auto" MemTotal − safety_margin with
 * MemTotal read from `meminfo_path` (NULL: /proc/meminfo). CUZK_ERR_CONFIG when auto leaves
 * nothing. */
cuzk_err_t cuzk_config_memory_budget(const cuzk_config_t *cfg, const char *meminfo_path,
                                     uint64_t *out, char *errstr, size_t errstr_size);

/* Name of proof type t ("winning-post", ...), or NULL outside the enum. */
const char *cuzk_config_proof_type_name(cuzk_config_proof_type_t t);

/* ---- size strings ---------------------------------------------------------------------------
 * "<number>[ ]<unit>" with unit B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB, TB (powers
 * of 1000, as in IEC 80000-13); no unit = bytes. The number may have a decimal fraction when the
 * result is a whole number of bytes ("1.5GiB"). Anything else (K, G, Gb, gib, -1, 1e9, "") is
 * rejected. */
cuzk_err_t cuzk_config_parse_size(const char *s, uint64_t *out, char *errstr, size_t errstr_size);
/* Formats bytes with the largest binary unit that divides it exactly ("64MiB", "1000B" -> "1000").
 */
void cuzk_config_format_size(uint64_t bytes, char *buf, size_t n);

/* ---- the key table (introspection for docs and tests) --------------------------------------- */
typedef struct {
  const char *path;      /* "engine.srs.preload" */
  const char *env;       /* "CUZK_ENGINE_SRS_PRELOAD" */
  const char *type_name; /* "integer", "size", "string", "boolean", "enum", "list", ... */
  const char *allowed;   /* "a|b|c" for enums and type lists, else NULL */
  int64_t min, max;      /* for integers, sizes and list elements; min > max = unbounded */
  bool reloadable;
  const char *doc;
  const char *default_text; /* the default as a libconfig literal, e.g. "\"64MiB\"" */
} cuzk_config_key_info_t;

size_t cuzk_config_key_count(void);
/* Key i in table order (sections contiguous), or NULL when i is out of range. */
const cuzk_config_key_info_t *cuzk_config_key(size_t i);

#endif
