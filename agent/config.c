/* The agent's configuration: the key table and everything it drives (defaults, validation of the
 * libconfig file and of CUZK_* environment overrides, printing, diff and SIGHUP reload).
 *
 * libconfig 1.5 quirks handled here:
 *  - @include is resolved against config_set_include_dir(), which we set to the directory of the
 *    main file, so includes are relative to it whatever the current directory (1.5 otherwise uses
 *    the CWD). Nested includes are relative to that same directory; absolute include paths fail in
 *    1.5 (it prepends the include dir), and the error says so.
 *  - Integers written without an `L` suffix are silently truncated to 32 bits. We re-read the
 *    source line of every 32-bit integer we use and reject a literal that does not match.
 *  - Settings in included files carry the include path as written; we join it with the include
 *    dir when naming file:line.
 */
#include "agent/config.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <librdkafka/rdkafka.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the key table ----------------------------------------------------------------------- */

typedef enum {
  K_BOOL,    /* bool */
  K_INT,     /* int64_t in [min, max] */
  K_SIZE,    /* uint64_t bytes in [min, max]; with F_AUTO "auto" = 0 */
  K_STRING,  /* char *, checked by `check` */
  K_ENUM,    /* int index into `allowed` ("a|b|c") */
  K_TYPESET, /* unsigned bit set over the proof types ("allowed" lists them); min = least count */
  K_INTLIST, /* cuzk_config_intlist_t, elements in [min, max], no duplicates */
  K_STRLIST, /* cuzk_config_strlist_t, elements checked by `check`, no duplicates */
  K_PROPS,   /* cuzk_config_props_t, validated by librdkafka */
} cuzk__kind_t;

enum { F_RELOAD = 1, F_AUTO = 2 };

/* Returns NULL when s is acceptable, else a static reason. */
typedef const char *(*cuzk__check_fn)(const char *s);

typedef struct {
  const char *path;
  cuzk__kind_t kind;
  size_t off;
  const char *def; /* default, in the environment-variable syntax */
  int64_t min, max;
  const char *allowed;
  unsigned flags;
  cuzk__check_fn check;
  const char *doc;
} cuzk__key_t;

static const char *cuzk__chk_agent_id(const char *s);
static const char *cuzk__chk_listen(const char *s);
static const char *cuzk__chk_nonempty(const char *s);
static const char *cuzk__chk_topic_prefix(const char *s);
static const char *cuzk__chk_instance_id(const char *s);
static const char *cuzk__chk_brokers(const char *s);
static const char *cuzk__chk_circuit_id(const char *s);

#define O(f) offsetof(cuzk_config_t, f)
#define KiB (INT64_C(1) << 10)
#define GiB (INT64_C(1) << 30)
#define NOLIM 1, 0 /* min > max: unbounded */
#define TYPES "winning-post|window-post|snap-deals|porep-c2"

static const cuzk__key_t cuzk__keys[] = {
    /* agent */
    {"agent.id", K_STRING, O(agent.id), "", NOLIM, NULL, 0, cuzk__chk_agent_id,
     "Name of this agent in telemetry, status records and logs. Empty = the host name."},
    {"agent.log_level", K_ENUM, O(agent.log_level), "info", NOLIM, "debug|info|warn|error",
     F_RELOAD, NULL, "Least severe log level written."},
    {"agent.log_format", K_ENUM, O(agent.log_format), "logfmt", NOLIM, "logfmt|json", F_RELOAD,
     NULL, "Log line format: logfmt (ts= level= component= event= k=v) or one JSON object a line."},
    {"agent.status_interval_s", K_INT, O(agent.status_interval_s), "10", 1, 3600, NULL, F_RELOAD,
     NULL, "Seconds between AgentStatus records on <topic_prefix>.telemetry.agents."},
    {"agent.shutdown_grace_s", K_INT, O(agent.shutdown_grace_s), "120", 0, 86400, NULL, F_RELOAD,
     NULL,
     "On SIGTERM: seconds to finish in-flight jobs before handing the rest back (their offsets "
     "stay uncommitted, so another agent proves them)."},
    {"agent.http_listen", K_STRING, O(agent.http_listen), "127.0.0.1:9464", NOLIM, NULL, 0,
     cuzk__chk_listen,
     "Address of the HTTP server (/metrics, /healthz, /readyz, /status) as host:port or "
     "[v6addr]:port. Empty = no HTTP server."},
    {"agent.params_dir", K_STRING, O(agent.params_dir), "/var/lib/cuzk/params", NOLIM, NULL, 0,
     cuzk__chk_nonempty, "Directory of the Groth16 parameter files (*.params, parameters.json)."},
    {"agent.work_dir", K_STRING, O(agent.work_dir), "/var/lib/cuzk/work", NOLIM, NULL, 0,
     cuzk__chk_nonempty,
     "Directory for the agent's own files: cached constraint matrices, fetched payloads."},
    {"agent.allow_insecure_params", K_BOOL, O(agent.allow_insecure_params), "false", NOLIM, NULL, 0,
     NULL,
     "Accept parameter files from an insecure test setup (cuzk make-params). Never in production."},
    {"agent.max_job_bytes", K_SIZE, O(agent.max_job_bytes), "64MiB", 1 * KiB, 16 * GiB, NULL,
     F_RELOAD, NULL,
     "Largest job payload (vanilla proof), inline or fetched by reference; larger jobs are "
     "rejected. A size: bytes, or a number with B, KiB, MiB, GiB, TiB (or KB, MB, GB, TB)."},
    {"agent.payload_fetch_timeout_s", K_INT, O(agent.payload_fetch_timeout_s), "120", 1, 3600, NULL,
     F_RELOAD, NULL,
     "Seconds allowed to fetch a payload referenced by URI (file://, http://, https://)."},

    /* kafka */
    {"kafka.brokers", K_STRING, O(kafka.brokers), "", NOLIM, NULL, 0, cuzk__chk_brokers,
     "Bootstrap brokers, host:port[,host:port...]. Empty = librdkafka's embedded mock cluster "
     "(demo only: nothing leaves the process)."},
    {"kafka.topic_prefix", K_STRING, O(kafka.topic_prefix), "cuzk", NOLIM, NULL, 0,
     cuzk__chk_topic_prefix,
     "Topic names are <prefix>.jobs.<type>, <prefix>.results, <prefix>.telemetry.partitions, "
     "<prefix>.telemetry.agents, <prefix>.jobs.dead-letter."},
    {"kafka.group_id", K_STRING, O(kafka.group_id), "cuzk-provers", NOLIM, NULL, 0,
     cuzk__chk_nonempty, "Consumer group shared by all agents that take the same jobs."},
    {"kafka.group_instance_id", K_STRING, O(kafka.group_instance_id), "", NOLIM, NULL, 0,
     cuzk__chk_instance_id,
     "Static group membership id, unique per agent (for example host name + GPU): a restart "
     "within the session timeout keeps its partitions. Empty = dynamic membership."},
    {"kafka.enabled_types", K_TYPESET, O(kafka.enabled_types),
     "winning-post,window-post,snap-deals,porep-c2", 1, 0, TYPES, 0, NULL,
     "Proof types this agent takes: a non-empty list of winning-post, window-post, snap-deals, "
     "porep-c2."},
    {"kafka.framing", K_ENUM, O(kafka.framing), "single-object", NOLIM, "single-object|confluent",
     0, NULL,
     "Avro framing of every record: single-object (C3 01, CRC-64-AVRO fingerprint, body) or "
     "confluent (00, 4-byte schema id, body; needs confluent_schema_ids)."},
    {"kafka.confluent_schema_ids.proof_job", K_INT, O(kafka.confluent_schema_ids.proof_job), "0", 0,
     INT32_MAX, NULL, 0, NULL,
     "Schema registry ids, used only with framing = \"confluent\". ProofJob: 0 = accept any id "
     "whose schema is ProofJob-compatible, else only this id."},
    {"kafka.confluent_schema_ids.proof_result", K_INT, O(kafka.confluent_schema_ids.proof_result),
     "0", 0, INT32_MAX, NULL, 0, NULL,
     "Schema id written on ProofResult records (required with confluent)."},
    {"kafka.confluent_schema_ids.partition_timing", K_INT,
     O(kafka.confluent_schema_ids.partition_timing), "0", 0, INT32_MAX, NULL, 0, NULL,
     "Schema id written on PartitionTiming records (required with confluent)."},
    {"kafka.confluent_schema_ids.agent_status", K_INT, O(kafka.confluent_schema_ids.agent_status),
     "0", 0, INT32_MAX, NULL, 0, NULL,
     "Schema id written on AgentStatus records (required with confluent)."},
    {"kafka.confluent_schema_ids.dead_letter", K_INT, O(kafka.confluent_schema_ids.dead_letter),
     "0", 0, INT32_MAX, NULL, 0, NULL,
     "Schema id written on DeadLetter records (required with confluent)."},
    {"kafka.max_message_bytes", K_SIZE, O(kafka.max_message_bytes), "16MiB", 64 * KiB, 1000000000,
     NULL, 0, NULL,
     "Largest record fetched or produced (sets fetch.message.max.bytes and message.max.bytes). "
     "The brokers' and topics' limits must allow it."},
    {"kafka.inline_payload_max_bytes", K_SIZE, O(kafka.inline_payload_max_bytes), "8MiB", 0,
     1000000000, NULL, 0, NULL,
     "Largest payload accepted inline in a ProofJob; larger payloads come by reference {uri, "
     "sha256, size}. At most max_message_bytes and agent.max_job_bytes."},
    {"kafka.assignor", K_ENUM, O(kafka.assignor), "range", NOLIM, "range|roundrobin", 0, NULL,
     "Partition assignor (eager). cooperative-sticky is refused: librdkafka 2.0.2 has "
     "cooperative rebalancing bugs fixed only later."},
    {"kafka.poll_interval_ms", K_INT, O(kafka.poll_interval_ms), "50", 1, 100, NULL, 0, NULL,
     "Longest wait of one consumer poll; the poll thread never blocks longer (at most 100)."},
    {"kafka.transactional", K_BOOL, O(kafka.transactional), "false", NOLIM, NULL, 0, NULL,
     "Exactly-once: produce each result and commit its offsets in one transaction. Needs a real "
     "broker (the mock cluster has no transactions)."},
    {"kafka.properties", K_PROPS, O(kafka.properties), "", NOLIM, NULL, 0, NULL,
     "Extra librdkafka properties for the consumer and the producer, as a list of "
     "(\"name\", \"value\") pairs, passed verbatim to rd_kafka_conf_set and checked at load. "
     "Keys that other settings own (bootstrap.servers, group.id, ...) are refused."},
    {"kafka.consumer_properties", K_PROPS, O(kafka.consumer_properties), "", NOLIM, NULL, 0, NULL,
     "Extra librdkafka properties for the consumer only (applied after kafka.properties)."},
    {"kafka.producer_properties", K_PROPS, O(kafka.producer_properties), "", NOLIM, NULL, 0, NULL,
     "Extra librdkafka properties for the producer only (applied after kafka.properties)."},

    /* engine */
    {"engine.memory_budget", K_SIZE, O(engine.memory_budget), "auto", 1 * GiB, INT64_MAX, NULL,
     F_AUTO, NULL,
     "Host memory the engine may use (working buffers, pinned pool, host-resident SRS): a size, "
     "or \"auto\" = MemTotal - safety_margin."},
    {"engine.safety_margin", K_SIZE, O(engine.safety_margin), "8GiB", 0, INT64_MAX, NULL, 0, NULL,
     "Memory left to the system when memory_budget is \"auto\"."},
    {"engine.synthesis_workers", K_INT, O(engine.synthesis_workers), "0", 0, 1024, NULL, 0, NULL,
     "Partitions synthesized at once (witness + a/b/c). 0 = half the online CPUs."},
    {"engine.synthesis_threads", K_INT, O(engine.synthesis_threads), "0", 0, 1024, NULL, 0, NULL,
     "Threads of the pool the synthesis workers' a/b/c evaluation shares. 0 = CPUs minus workers."},
    {"engine.gpu_workers_per_device", K_INT, O(engine.gpu_workers_per_device), "2", 1, 8, NULL, 0,
     NULL, "GPU workers per device; they share the device lock around the kernel region."},
    {"engine.backend", K_ENUM, O(engine.backend), "auto", NOLIM, "auto|cpu|cuda", 0, NULL,
     "Proving backend: cuda (every CUDA device; fails at start without one or in a build without "
     "CUDA), cpu, or auto = cuda when the build has it and a device is present, else cpu."},
    {"engine.devices", K_INTLIST, O(engine.devices), "", 0, 63, NULL, 0, NULL,
     "CUDA device ordinals to use, e.g. [0, 1]. Empty = every device."},
    {"engine.verify_proofs", K_ENUM, O(engine.verify_proofs), "always", NOLIM,
     "always|sample|never", F_RELOAD, NULL,
     "Verify each partition proof before publishing it: always, sample (verify_sample_percent of "
     "partitions) or never."},
    {"engine.verify_sample_percent", K_INT, O(engine.verify_sample_percent), "10", 1, 100, NULL,
     F_RELOAD, NULL, "Percentage of partitions verified when verify_proofs = \"sample\"."},
    {"engine.pinned_pool.prewarm_types", K_TYPESET, O(engine.pinned_pool.prewarm_types), "", 0, 0,
     TYPES, 0, NULL,
     "Proof types whose a/b/c pinned buffers are allocated at start (paced), e.g. "
     "[\"porep-c2\"]. Empty = allocate on first use."},
    {"engine.pinned_pool.prewarm_pace_ms", K_INT, O(engine.pinned_pool.prewarm_pace_ms), "250", 0,
     60000, NULL, F_RELOAD, NULL,
     "Pause between two pre-warm allocations (pinned allocation serializes in the driver)."},
    {"engine.pinned_pool.max_bytes", K_SIZE, O(engine.pinned_pool.max_bytes), "0", 0, INT64_MAX,
     NULL, 0, NULL, "Cap on pinned pool bytes. 0 = only the memory budget limits it."},
    {"engine.srs.preload", K_STRLIST, O(engine.srs.preload), "", NOLIM, NULL, 0,
     cuzk__chk_circuit_id,
     "Circuits whose parameters are loaded at start, as <type>-<sector size>, sector size one of "
     "2k, 8m, 512m, 32g, 64g; e.g. [\"porep-c2-32g\", \"window-post-32g\"]."},
    {"engine.srs.device_resident", K_BOOL, O(engine.srs.device_resident), "true", NOLIM, NULL, 0,
     NULL, "Keep SRS points in GPU memory when they fit (no SRS bytes cross PCIe per proof)."},
    {"engine.srs.evict_idle_s", K_INT, O(engine.srs.evict_idle_s), "300", 0, 86400 * 7, NULL,
     F_RELOAD, NULL,
     "Under memory pressure, SRS entries unused for this many seconds may be evicted."},
    {"engine.timeline_file", K_STRING, O(engine.timeline_file), "", NOLIM, NULL, F_RELOAD, NULL,
     "Append TIMELINE events (one per stage of every partition) to this file. Empty = off."},
    {"engine.admission_reserve_critical", K_INT, O(engine.admission_reserve_critical), "1", 0, 64,
     NULL, F_RELOAD, NULL,
     "Engine slots kept free for CRITICAL work (WinningPoSt) when admitting other jobs."},
};
#define NKEYS (sizeof(cuzk__keys) / sizeof(cuzk__keys[0]))

/* ---- small helpers ----------------------------------------------------------------------- */

typedef struct {
  char *origin[NKEYS]; /* NULL = default */
  size_t nenv;
  char **env; /* the CUZK_AGENT_/KAFKA_/ENGINE_ variables applied, "NAME=value" */
} cuzk__priv_t;

typedef struct {
  cuzk_config_t *cfg;
  FILE *err;
  char *errbuf;
  size_t errlen;
  int nerr;
  const char *path; /* main file as given, or NULL */
  char *incdir;     /* directory of the main file */
  const char *text; /* the text of a string load */
  rd_kafka_conf_t *kconf;
} cuzk__ctx_t;

#define VAL(cfg, k, T) ((T *)((char *)(cfg) + (k)->off))

static const char *const cuzk__env_sections[] = {"CUZK_AGENT_", "CUZK_KAFKA_", "CUZK_ENGINE_"};

__attribute__((format(printf, 3, 4))) static void cuzk__err(cuzk__ctx_t *c, const char *where,
                                                            const char *fmt, ...) {
  va_list ap;
  c->nerr++;
  if (where) fprintf(c->err, "%s: ", where);
  va_start(ap, fmt);
  vfprintf(c->err, fmt, ap);
  va_end(ap);
  fputc('\n', c->err);
}

static char *cuzk__strdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d) abort(); /* configuration is loaded at start; no partial state to recover */
  return d;
}

static void *cuzk__xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) abort();
  return q;
}

static int cuzk__find_key(const char *path) {
  for (size_t i = 0; i < NKEYS; i++)
    if (strcmp(cuzk__keys[i].path, path) == 0) return (int)i;
  return -1;
}

static bool cuzk__is_section(const char *path) {
  size_t n = strlen(path);
  for (size_t i = 0; i < NKEYS; i++)
    if (strncmp(cuzk__keys[i].path, path, n) == 0 && cuzk__keys[i].path[n] == '.') return true;
  return false;
}

static void cuzk__env_name(const cuzk__key_t *k, char *buf, size_t n) {
  size_t j = (size_t)snprintf(buf, n, "CUZK_");
  for (const char *p = k->path; *p && j + 1 < n; p++)
    buf[j++] = *p == '.' ? '_' : (char)toupper((unsigned char)*p);
  buf[j] = '\0';
}

/* Index of s in "a|b|c", or -1. */
static int cuzk__enum_index(const char *allowed, const char *s) {
  size_t n = strlen(s);
  int i = 0;
  for (const char *p = allowed;; i++) {
    const char *e = strchr(p, '|');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, s, n) == 0) return i;
    if (!e) return -1;
    p = e + 1;
  }
}

static void cuzk__enum_name(const char *allowed, int idx, char *buf, size_t n) {
  const char *p = allowed;
  for (int i = 0; i < idx && p; i++) {
    p = strchr(p, '|');
    if (p) p++;
  }
  assert(p);
  const char *e = strchr(p, '|');
  size_t len = e ? (size_t)(e - p) : strlen(p);
  snprintf(buf, n, "%.*s", (int)len, p);
}

static void cuzk__enum_list(const char *allowed, char *buf, size_t n) {
  size_t j = 0;
  for (const char *p = allowed; *p && j + 3 < n; p++) {
    if (*p == '|') {
      buf[j++] = ',';
      buf[j++] = ' ';
    } else {
      buf[j++] = *p;
    }
  }
  buf[j] = '\0';
}

static size_t cuzk__edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return SIZE_MAX;
  size_t row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* A key or section path close to `path`, or NULL. Same leaf name in another section wins. */
static const char *cuzk__suggest(const char *path) {
  const char *leaf = strrchr(path, '.');
  leaf = leaf ? leaf + 1 : path;
  for (size_t i = 0; i < NKEYS; i++) {
    const char *kl = strrchr(cuzk__keys[i].path, '.') + 1;
    if (strcmp(kl, leaf) == 0) return cuzk__keys[i].path;
  }
  static const char *const sections[] = {
      "agent", "kafka", "engine", "kafka.confluent_schema_ids", "engine.pinned_pool", "engine.srs"};
  const char *best = NULL;
  size_t bd = SIZE_MAX, len = strlen(path);
  size_t limit = len / 5 > 2 ? len / 5 : 2;
  for (size_t i = 0; i < NKEYS + sizeof sections / sizeof sections[0]; i++) {
    const char *cand = i < NKEYS ? cuzk__keys[i].path : sections[i - NKEYS];
    size_t d = cuzk__edit_distance(path, cand);
    if (d < bd) {
      bd = d;
      best = cand;
    }
  }
  return bd <= limit ? best : NULL;
}

/* ---- string checks ----------------------------------------------------------------------- */

static bool cuzk__all_in(const char *s, const char *extra) {
  for (const char *p = s; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr(extra, *p)) return false;
  return true;
}

static const char *cuzk__chk_agent_id(const char *s) {
  if (strlen(s) > 200) return "longer than 200 characters";
  if (!cuzk__all_in(s, "._-:")) return "may only contain letters, digits and . _ - :";
  return NULL;
}

static const char *cuzk__chk_nonempty(const char *s) {
  return *s ? NULL : "must not be empty";
}

static const char *cuzk__chk_listen(const char *s) {
  if (!*s) return NULL;
  const char *colon = strrchr(s, ':');
  if (!colon || colon == s) return "expected host:port or [v6addr]:port";
  if (s[0] == '[' && colon[-1] != ']') return "expected [v6addr]:port";
  char *end;
  errno = 0;
  long port = strtol(colon + 1, &end, 10);
  if (!colon[1] || *end || errno || port < 1 || port > 65535) return "port must be 1..65535";
  for (const char *p = s; p < colon; p++)
    if (isspace((unsigned char)*p)) return "host contains a space";
  return NULL;
}

static const char *cuzk__chk_topic_prefix(const char *s) {
  if (!*s) return "must not be empty";
  if (strlen(s) > 200) return "longer than 200 characters";
  if (!cuzk__all_in(s, "._-")) return "Kafka topic names allow only letters, digits and . _ -";
  return NULL;
}

static const char *cuzk__chk_instance_id(const char *s) {
  if (strlen(s) > 249) return "longer than 249 characters";
  if (!cuzk__all_in(s, "._-:")) return "may only contain letters, digits and . _ - :";
  return NULL;
}

static const char *cuzk__chk_brokers(const char *s) {
  for (const char *p = s; *p; p++)
    if (isspace((unsigned char)*p)) return "contains white space (separate brokers with commas)";
  return NULL;
}

static const char *cuzk__chk_circuit_id(const char *s) {
  static const char *const sizes[] = {"2k", "8m", "512m", "32g", "64g"};
  if (cuzk__enum_index(TYPES, s) >= 0) return "missing the sector size, e.g. \"porep-c2-32g\"";
  const char *dash = strrchr(s, '-');
  if (!dash) return "expected <type>-<sector size>, e.g. \"porep-c2-32g\"";
  char type[32];
  size_t tl = (size_t)(dash - s);
  if (tl >= sizeof type) return "unknown proof type";
  memcpy(type, s, tl);
  type[tl] = '\0';
  if (cuzk__enum_index(TYPES, type) < 0)
    return "unknown proof type (winning-post, window-post, snap-deals, porep-c2)";
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (strcmp(dash + 1, sizes[i]) == 0) return NULL;
  return "unknown sector size (2k, 8m, 512m, 32g, 64g)";
}

/* ---- values ------------------------------------------------------------------------------ */

static void cuzk__props_clear(cuzk_config_props_t *p) {
  for (size_t i = 0; i < p->n; i++) {
    free(p->name[i]);
    free(p->value[i]);
  }
  free(p->name);
  free(p->value);
  memset(p, 0, sizeof *p);
}

static void cuzk__strlist_clear(cuzk_config_strlist_t *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

static void cuzk__value_clear(cuzk_config_t *cfg, const cuzk__key_t *k) {
  switch (k->kind) {
    case K_STRING:
      free(*VAL(cfg, k, char *));
      *VAL(cfg, k, char *) = NULL;
      break;
    case K_INTLIST:
      free(VAL(cfg, k, cuzk_config_intlist_t)->v);
      memset(VAL(cfg, k, cuzk_config_intlist_t), 0, sizeof(cuzk_config_intlist_t));
      break;
    case K_STRLIST:
      cuzk__strlist_clear(VAL(cfg, k, cuzk_config_strlist_t));
      break;
    case K_PROPS:
      cuzk__props_clear(VAL(cfg, k, cuzk_config_props_t));
      break;
    default:
      break;
  }
}

void cuzk_config_free(cuzk_config_t *cfg) {
  if (!cfg) return;
  for (size_t i = 0; i < NKEYS; i++) cuzk__value_clear(cfg, &cuzk__keys[i]);
  cuzk__priv_t *pv = cfg->cuzk__priv;
  if (pv) {
    for (size_t i = 0; i < NKEYS; i++) free(pv->origin[i]);
    for (size_t i = 0; i < pv->nenv; i++) free(pv->env[i]);
    free(pv->env);
    free(pv);
  }
  free(cfg->source_path);
  free(cfg);
}

static bool cuzk__props_equal(const cuzk_config_props_t *a, const cuzk_config_props_t *b) {
  if (a->n != b->n) return false;
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->name[i], b->name[i]) || strcmp(a->value[i], b->value[i])) return false;
  return true;
}

static bool cuzk__value_equal(const cuzk_config_t *a, const cuzk_config_t *b,
                              const cuzk__key_t *k) {
  switch (k->kind) {
    case K_BOOL:
      return *VAL(a, k, bool) == *VAL(b, k, bool);
    case K_INT:
      return *VAL(a, k, int64_t) == *VAL(b, k, int64_t);
    case K_SIZE:
      return *VAL(a, k, uint64_t) == *VAL(b, k, uint64_t);
    case K_STRING:
      return strcmp(*VAL(a, k, char *), *VAL(b, k, char *)) == 0;
    case K_ENUM:
      return *VAL(a, k, int) == *VAL(b, k, int);
    case K_TYPESET:
      return *VAL(a, k, unsigned) == *VAL(b, k, unsigned);
    case K_INTLIST: {
      const cuzk_config_intlist_t *x = VAL(a, k, cuzk_config_intlist_t);
      const cuzk_config_intlist_t *y = VAL(b, k, cuzk_config_intlist_t);
      return x->n == y->n && (x->n == 0 || memcmp(x->v, y->v, x->n * sizeof x->v[0]) == 0);
    }
    case K_STRLIST: {
      const cuzk_config_strlist_t *x = VAL(a, k, cuzk_config_strlist_t);
      const cuzk_config_strlist_t *y = VAL(b, k, cuzk_config_strlist_t);
      if (x->n != y->n) return false;
      for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->v[i], y->v[i])) return false;
      return true;
    }
    case K_PROPS:
      return cuzk__props_equal(VAL(a, k, cuzk_config_props_t), VAL(b, k, cuzk_config_props_t));
  }
  return false;
}

const char *cuzk_config_diff(const cuzk_config_t *a, const cuzk_config_t *b) {
  assert(a && b);
  for (size_t i = 0; i < NKEYS; i++)
    if (!cuzk__value_equal(a, b, &cuzk__keys[i])) return cuzk__keys[i].path;
  return NULL;
}

/* ---- accepting values (shared by the file, the environment and the defaults) -------------- */

static void cuzk__set_origin(cuzk__ctx_t *c, size_t ki, const char *where) {
  cuzk__priv_t *pv = c->cfg->cuzk__priv;
  free(pv->origin[ki]);
  pv->origin[ki] = where ? cuzk__strdup(where) : NULL;
}

static bool cuzk__range_ok(cuzk__ctx_t *c, const cuzk__key_t *k, const char *where, int64_t v) {
  if (k->min <= k->max && (v < k->min || v > k->max)) {
    cuzk__err(c, where, "%s: %lld is out of range [%lld, %lld]", k->path, (long long)v,
              (long long)k->min, (long long)k->max);
    return false;
  }
  return true;
}

static void cuzk__accept_int(cuzk__ctx_t *c, size_t ki, const char *where, int64_t v) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  if (!cuzk__range_ok(c, k, where, v)) return;
  *VAL(c->cfg, k, int64_t) = v;
  cuzk__set_origin(c, ki, where);
}

static void cuzk__accept_size(cuzk__ctx_t *c, size_t ki, const char *where, uint64_t v,
                              bool is_auto) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  if (!is_auto) {
    char a[32], b[32], x[32];
    if (v < (uint64_t)k->min || v > (uint64_t)k->max) {
      cuzk_config_format_size(v, x, sizeof x);
      cuzk_config_format_size((uint64_t)k->min, a, sizeof a);
      cuzk_config_format_size((uint64_t)k->max, b, sizeof b);
      if (k->max == INT64_MAX && v < (uint64_t)k->min)
        cuzk__err(c, where, "%s: %s is too small (at least %s)", k->path, x, a);
      else if (k->max == INT64_MAX)
        cuzk__err(c, where, "%s: %s is too large (at most 2^63 - 1 bytes)", k->path, x);
      else
        cuzk__err(c, where, "%s: %s is out of range [%s, %s]", k->path, x, a, b);
      return;
    }
  }
  *VAL(c->cfg, k, uint64_t) = is_auto ? 0 : v;
  cuzk__set_origin(c, ki, where);
}

static void cuzk__accept_size_text(cuzk__ctx_t *c, size_t ki, const char *where, const char *s) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  if ((k->flags & F_AUTO) && strcmp(s, "auto") == 0) {
    cuzk__accept_size(c, ki, where, 0, true);
    return;
  }
  uint64_t v;
  char why[256];
  if (cuzk_config_parse_size(s, &v, why, sizeof why) != CUZK_OK) {
    cuzk__err(c, where, "%s: %s%s", k->path, why, (k->flags & F_AUTO) ? ", or \"auto\"" : "");
    return;
  }
  cuzk__accept_size(c, ki, where, v, false);
}

static void cuzk__accept_string(cuzk__ctx_t *c, size_t ki, const char *where, const char *s) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  if (k->kind == K_ENUM) {
    int idx = cuzk__enum_index(k->allowed, s);
    if (idx < 0) {
      char list[256];
      cuzk__enum_list(k->allowed, list, sizeof list);
      if (k->off == O(kafka.assignor) && strcmp(s, "cooperative-sticky") == 0)
        cuzk__err(c, where,
                  "%s: \"cooperative-sticky\" is refused: librdkafka 2.0.2 has cooperative "
                  "rebalancing bugs; use one of %s",
                  k->path, list);
      else
        cuzk__err(c, where, "%s: expected one of %s; got \"%s\"", k->path, list, s);
      return;
    }
    *VAL(c->cfg, k, int) = idx;
  } else {
    assert(k->kind == K_STRING);
    const char *why = k->check ? k->check(s) : NULL;
    if (why) {
      cuzk__err(c, where, "%s: \"%s\": %s", k->path, s, why);
      return;
    }
    free(*VAL(c->cfg, k, char *));
    *VAL(c->cfg, k, char *) = cuzk__strdup(s);
  }
  cuzk__set_origin(c, ki, where);
}

static bool cuzk__accept_bool_text(cuzk__ctx_t *c, size_t ki, const char *where, const char *s) {
  static const char *const yes[] = {"true", "1", "yes", "on"}, *const no[] = {"false", "0", "no",
                                                                              "off"};
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
      *VAL(c->cfg, &cuzk__keys[ki], bool) = strcasecmp(s, yes[i]) == 0;
      cuzk__set_origin(c, ki, where);
      return true;
    }
  }
  cuzk__err(c, where, "%s: expected true or false; got \"%s\"", cuzk__keys[ki].path, s);
  return false;
}

/* Lists arrive as arrays of strings (and of ints for K_INTLIST) with one `where` per element. */
typedef struct {
  size_t n;
  const char **s;
  int64_t *i;
  char **where;
} cuzk__items_t;

static void cuzk__accept_list(cuzk__ctx_t *c, size_t ki, const char *where,
                              const cuzk__items_t *it) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  int bad = 0;
  if (k->kind == K_TYPESET) {
    unsigned set = 0;
    for (size_t j = 0; j < it->n; j++) {
      int idx = cuzk__enum_index(k->allowed, it->s[j]);
      if (idx < 0) {
        char list[256];
        cuzk__enum_list(k->allowed, list, sizeof list);
        cuzk__err(c, it->where[j], "%s: unknown proof type \"%s\" (expected %s)", k->path, it->s[j],
                  list);
        bad++;
      } else if (set & (1u << idx)) {
        cuzk__err(c, it->where[j], "%s: \"%s\" is listed twice", k->path, it->s[j]);
        bad++;
      } else {
        set |= 1u << idx;
      }
    }
    if (!bad && (int64_t)it->n < k->min) {
      cuzk__err(c, where, "%s: must list at least %lld proof type", k->path, (long long)k->min);
      bad++;
    }
    if (bad) return;
    *VAL(c->cfg, k, unsigned) = set;
  } else if (k->kind == K_INTLIST) {
    for (size_t j = 0; j < it->n; j++) {
      if (!cuzk__range_ok(c, k, it->where[j], it->i[j])) bad++;
      for (size_t m = 0; m < j; m++)
        if (it->i[m] == it->i[j]) {
          cuzk__err(c, it->where[j], "%s: %lld is listed twice", k->path, (long long)it->i[j]);
          bad++;
          break;
        }
    }
    if (bad) return;
    cuzk_config_intlist_t *l = VAL(c->cfg, k, cuzk_config_intlist_t);
    free(l->v);
    l->n = it->n;
    l->v = cuzk__xrealloc(NULL, it->n * sizeof l->v[0]);
    if (it->n) memcpy(l->v, it->i, it->n * sizeof l->v[0]);
  } else {
    assert(k->kind == K_STRLIST);
    for (size_t j = 0; j < it->n; j++) {
      const char *why = k->check ? k->check(it->s[j]) : NULL;
      if (why) {
        cuzk__err(c, it->where[j], "%s: \"%s\": %s", k->path, it->s[j], why);
        bad++;
      }
      for (size_t m = 0; m < j; m++)
        if (strcmp(it->s[m], it->s[j]) == 0) {
          cuzk__err(c, it->where[j], "%s: \"%s\" is listed twice", k->path, it->s[j]);
          bad++;
          break;
        }
    }
    if (bad) return;
    cuzk_config_strlist_t *l = VAL(c->cfg, k, cuzk_config_strlist_t);
    cuzk__strlist_clear(l);
    l->n = it->n;
    l->v = cuzk__xrealloc(NULL, it->n * sizeof l->v[0]);
    for (size_t j = 0; j < it->n; j++) l->v[j] = cuzk__strdup(it->s[j]);
  }
  cuzk__set_origin(c, ki, where);
}

/* librdkafka properties owned by other settings or by the agent's design (DESIGN §7). */
static const struct {
  const char *name, *owner;
} cuzk__owned_props[] = {
    {"bootstrap.servers", "kafka.brokers"},
    {"metadata.broker.list", "kafka.brokers"},
    {"group.id", "kafka.group_id"},
    {"group.instance.id", "kafka.group_instance_id"},
    {"partition.assignment.strategy", "kafka.assignor"},
    {"transactional.id", "kafka.transactional"},
    {"message.max.bytes", "kafka.max_message_bytes"},
    {"fetch.message.max.bytes", "kafka.max_message_bytes"},
    {"enable.auto.offset.store", "the agent (offsets are stored after each result is delivered)"},
    {"enable.auto.commit", "the agent (offsets are stored after each result is delivered)"},
    {"enable.idempotence", "the agent (the producer is always idempotent)"},
};

static void cuzk__accept_props(cuzk__ctx_t *c, size_t ki, const char *where, size_t n,
                               const char *const *names, const char *const *values,
                               char *const *wheres) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  int bad = 0;
  for (size_t j = 0; j < n; j++) {
    const char *w = wheres[j];
    if (!names[j]) { /* malformed, already reported */
      bad++;
      continue;
    }
    for (size_t m = 0; m < sizeof cuzk__owned_props / sizeof cuzk__owned_props[0]; m++)
      if (strcmp(names[j], cuzk__owned_props[m].name) == 0) {
        cuzk__err(c, w, "%s: property '%s' is set by %s", k->path, names[j],
                  cuzk__owned_props[m].owner);
        bad++;
        goto next;
      }
    for (size_t m = 0; m < j; m++)
      if (names[m] && strcmp(names[m], names[j]) == 0) {
        cuzk__err(c, w, "%s: property '%s' is listed twice", k->path, names[j]);
        bad++;
        goto next;
      }
    char kerr[512];
    kerr[0] = '\0';
    if (rd_kafka_conf_set(c->kconf, names[j], values[j], kerr, sizeof kerr) != RD_KAFKA_CONF_OK) {
      cuzk__err(c, w, "%s: librdkafka refuses (\"%s\", \"%s\"): %s", k->path, names[j], values[j],
                kerr);
      bad++;
    }
  next:;
  }
  if (bad) return;
  cuzk_config_props_t *p = VAL(c->cfg, k, cuzk_config_props_t);
  cuzk__props_clear(p);
  p->n = n;
  p->name = cuzk__xrealloc(NULL, n * sizeof(char *));
  p->value = cuzk__xrealloc(NULL, n * sizeof(char *));
  for (size_t j = 0; j < n; j++) {
    p->name[j] = cuzk__strdup(names[j]);
    p->value[j] = cuzk__strdup(values[j]);
  }
  cuzk__set_origin(c, ki, where);
}

/* ---- values from text (environment variables and the table's defaults) ------------------- */

/* Splits "a,b\,c" at unescaped commas ("\\" is a backslash); trims blanks. "" = no items. */
static size_t cuzk__split(const char *s, char ***out) {
  size_t n = 0, cap = 0;
  char **v = NULL;
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  if (!*p) {
    *out = NULL;
    return 0;
  }
  for (;;) {
    size_t len = 0;
    char *item = cuzk__xrealloc(NULL, strlen(p) + 1);
    while (*p && *p != ',') {
      if (*p == '\\' && (p[1] == ',' || p[1] == '\\')) p++;
      item[len++] = *p++;
    }
    while (len && isspace((unsigned char)item[len - 1])) len--;
    item[len] = '\0';
    char *start = item;
    while (isspace((unsigned char)*start)) start++;
    memmove(item, start, strlen(start) + 1);
    if (n == cap) v = cuzk__xrealloc(v, (cap = cap ? 2 * cap : 4) * sizeof *v);
    v[n++] = item;
    if (!*p) break;
    p++;
  }
  *out = v;
  return n;
}

static void cuzk__set_from_text(cuzk__ctx_t *c, size_t ki, const char *where, const char *s) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  switch (k->kind) {
    case K_BOOL:
      cuzk__accept_bool_text(c, ki, where, s);
      return;
    case K_INT: {
      char *end;
      errno = 0;
      long long v = strtoll(s, &end, 10);
      if (!*s || *end || errno) {
        cuzk__err(c, where, "%s: expected an integer; got \"%s\"", k->path, s);
        return;
      }
      cuzk__accept_int(c, ki, where, v);
      return;
    }
    case K_SIZE:
      cuzk__accept_size_text(c, ki, where, s);
      return;
    case K_STRING:
    case K_ENUM:
      cuzk__accept_string(c, ki, where, s);
      return;
    default:
      break;
  }
  char **items;
  size_t n = cuzk__split(s, &items);
  char **wheres = cuzk__xrealloc(NULL, n * sizeof *wheres);
  for (size_t j = 0; j < n; j++) wheres[j] = (char *)where;
  if (k->kind == K_PROPS) {
    const char **names = cuzk__xrealloc(NULL, n * sizeof *names);
    const char **values = cuzk__xrealloc(NULL, n * sizeof *values);
    for (size_t j = 0; j < n; j++) {
      char *eq = strchr(items[j], '=');
      if (!eq || eq == items[j]) {
        cuzk__err(c, where, "%s: expected name=value; got \"%s\"", k->path, items[j]);
        names[j] = values[j] = NULL;
        continue;
      }
      *eq = '\0';
      names[j] = items[j];
      values[j] = eq + 1;
    }
    cuzk__accept_props(c, ki, where, n, names, values, wheres);
    free(names);
    free(values);
  } else {
    cuzk__items_t it = {n, (const char **)items, cuzk__xrealloc(NULL, n * sizeof(int64_t)), wheres};
    bool ok = true;
    if (k->kind == K_INTLIST)
      for (size_t j = 0; j < n; j++) {
        char *end;
        errno = 0;
        it.i[j] = strtoll(items[j], &end, 10);
        if (!items[j][0] || *end || errno) {
          cuzk__err(c, where, "%s: expected a comma-separated list of integers; got \"%s\"",
                    k->path, items[j]);
          ok = false;
        }
      }
    if (ok) cuzk__accept_list(c, ki, where, &it);
    free(it.i);
  }
  for (size_t j = 0; j < n; j++) free(items[j]);
  free(items);
  free(wheres);
}

/* ---- values from the libconfig file ------------------------------------------------------ */

static const char *cuzk__lc_type_name(int t) {
  switch (t) {
    case CONFIG_TYPE_GROUP:
      return "group";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
      return "integer";
    case CONFIG_TYPE_FLOAT:
      return "float";
    case CONFIG_TYPE_STRING:
      return "string";
    case CONFIG_TYPE_BOOL:
      return "boolean";
    case CONFIG_TYPE_ARRAY:
      return "array";
    case CONFIG_TYPE_LIST:
      return "list";
  }
  return "nothing";
}

/* The name of a file libconfig reports (a setting's or an error's), as a user finds it from the
 * current directory. libconfig 1.5 reports an included file by its @include path as written,
 * relative to the include dir; from 1.7 on the include function returns the joined path. */
static void cuzk__file_name(const cuzk__ctx_t *c, const char *f, char *buf, size_t n) {
  if (!f) snprintf(buf, n, "%s", c->path ? c->path : "<string>");
#if LIBCONFIG_VER_MAJOR == 1 && LIBCONFIG_VER_MINOR < 7
  else if (f[0] != '/' && c->incdir && !(c->path && strcmp(f, c->path) == 0))
    snprintf(buf, n, "%s/%s", c->incdir, f);
#endif
  else
    snprintf(buf, n, "%s", f);
}

/* "file:line" of a setting, the file named as a user finds it (joined with the include dir). */
static char *cuzk__where(cuzk__ctx_t *c, const config_setting_t *s) {
  char f[PATH_MAX];
  cuzk__file_name(c, config_setting_source_file(s), f, sizeof f);
  char *w = NULL;
  if (asprintf(&w, "%s:%u", f, (unsigned)config_setting_source_line(s)) < 0) abort();
  return w;
}

/* Line `line` (1-based) of the file a setting came from, into buf; false when unavailable. */
static bool cuzk__source_text(cuzk__ctx_t *c, const config_setting_t *s, char *buf, size_t n) {
  const char *f = config_setting_source_file(s);
  unsigned line = config_setting_source_line(s);
  if (line == 0) return false;
  if (!f && c->text) {
    const char *p = c->text;
    for (unsigned i = 1; i < line && p; i++) {
      p = strchr(p, '\n');
      if (p) p++;
    }
    if (!p) return false;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len >= n) len = n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return true;
  }
  if (!f) return false;
  char path[PATH_MAX];
  cuzk__file_name(c, f, path, sizeof path);
  FILE *fp = fopen(path, "r");
  if (!fp) return false;
  bool ok = false;
  for (unsigned i = 1; fgets(buf, (int)n, fp); i++) {
    size_t len = strlen(buf);
    bool whole = len && buf[len - 1] == '\n';
    if (i == line) {
      ok = true;
      break;
    }
    while (!whole && fgets(buf, (int)n, fp)) {
      len = strlen(buf);
      whole = len && buf[len - 1] == '\n';
    }
  }
  fclose(fp);
  return ok;
}

/* libconfig 1.5 stores an integer literal without `L` in 32 bits, silently truncating larger
 * ones. Returns false (and reports) when the literal on the setting's line is not the value. */
static bool cuzk__int_literal_ok(cuzk__ctx_t *c, const cuzk__key_t *k, const config_setting_t *s,
                                 const char *where) {
  if (config_setting_type(s) != CONFIG_TYPE_INT) return true;
  char line[4096];
  const char *name = config_setting_name(s);
  if (!name || !cuzk__source_text(c, s, line, sizeof line)) return true;
  size_t nl = strlen(name);
  for (const char *p = line; (p = strstr(p, name)) != NULL; p += nl) {
    if (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-')) continue;
    const char *q = p + nl;
    while (*q == ' ' || *q == '\t') q++;
    if (*q != '=' && *q != ':') continue;
    q++;
    while (*q == ' ' || *q == '\t') q++;
    char *end;
    errno = 0;
    long long lit = strtoll(q, &end, 0);
    if (end == q) return true;
    if (errno == ERANGE || lit != config_setting_get_int(s)) {
      int len = (int)strspn(q, "+-0123456789abcdefABCDEFxX");
      cuzk__err(c, where,
                "%s: %.*s does not fit in 32 bits and libconfig %d.%d truncates it; write %.*sL "
                "(64-bit integer)%s",
                k->path, len, q, LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR, len, q,
                k->kind == K_SIZE ? " or a size string such as \"64GiB\"" : "");
      return false;
    }
    return true;
  }
  return true;
}

static void cuzk__type_err(cuzk__ctx_t *c, const char *where, const cuzk__key_t *k,
                           const config_setting_t *s) {
  static const char *const expected[] = {
      [K_BOOL] = "boolean",
      [K_INT] = "integer",
      [K_SIZE] = "size (integer or string such as \"8GiB\")",
      [K_STRING] = "string",
      [K_ENUM] = "string",
      [K_TYPESET] = "list of strings",
      [K_INTLIST] = "list of integers",
      [K_STRLIST] = "list of strings",
      [K_PROPS] = "list of (\"name\", \"value\") pairs",
  };
  cuzk__err(c, where, "%s: expected %s, got %s", k->path, expected[k->kind],
            cuzk__lc_type_name(config_setting_type(s)));
}

static void cuzk__set_from_setting(cuzk__ctx_t *c, size_t ki, const config_setting_t *s) {
  const cuzk__key_t *k = &cuzk__keys[ki];
  char *where = cuzk__where(c, s);
  int t = config_setting_type(s);
  bool is_int = t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
  bool is_seq = t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST;
  switch (k->kind) {
    case K_BOOL:
      if (t != CONFIG_TYPE_BOOL) goto type_err;
      *VAL(c->cfg, k, bool) = config_setting_get_bool(s) != 0;
      cuzk__set_origin(c, ki, where);
      break;
    case K_INT:
      if (!is_int) goto type_err;
      if (cuzk__int_literal_ok(c, k, s, where))
        cuzk__accept_int(c, ki, where, config_setting_get_int64(s));
      break;
    case K_SIZE:
      if (t == CONFIG_TYPE_STRING) {
        cuzk__accept_size_text(c, ki, where, config_setting_get_string(s));
      } else if (is_int) {
        if (!cuzk__int_literal_ok(c, k, s, where)) break;
        long long v = config_setting_get_int64(s);
        if (v < 0)
          cuzk__err(c, where, "%s: %lld is negative", k->path, v);
        else
          cuzk__accept_size(c, ki, where, (uint64_t)v, false);
      } else {
        goto type_err;
      }
      break;
    case K_STRING:
    case K_ENUM:
      if (t != CONFIG_TYPE_STRING) goto type_err;
      cuzk__accept_string(c, ki, where, config_setting_get_string(s));
      break;
    case K_TYPESET:
    case K_STRLIST:
    case K_INTLIST: {
      if (!is_seq) goto type_err;
      size_t n = (size_t)config_setting_length(s);
      cuzk__items_t it = {n, cuzk__xrealloc(NULL, n * sizeof(char *)),
                          cuzk__xrealloc(NULL, n * sizeof(int64_t)),
                          cuzk__xrealloc(NULL, n * sizeof(char *))};
      bool ok = true;
      for (size_t j = 0; j < n; j++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)j);
        it.where[j] = cuzk__where(c, e);
        int et = config_setting_type(e);
        if (k->kind == K_INTLIST) {
          if (et != CONFIG_TYPE_INT && et != CONFIG_TYPE_INT64) {
            cuzk__err(c, it.where[j], "%s[%zu]: expected integer, got %s", k->path, j,
                      cuzk__lc_type_name(et));
            ok = false;
          } else {
            it.i[j] = config_setting_get_int64(e);
          }
        } else if (et != CONFIG_TYPE_STRING) {
          cuzk__err(c, it.where[j], "%s[%zu]: expected string, got %s", k->path, j,
                    cuzk__lc_type_name(et));
          ok = false;
        } else {
          it.s[j] = config_setting_get_string(e);
        }
      }
      if (ok) cuzk__accept_list(c, ki, where, &it);
      for (size_t j = 0; j < n; j++) free(it.where[j]);
      free(it.s);
      free(it.i);
      free(it.where);
      break;
    }
    case K_PROPS: {
      if (!is_seq) goto type_err;
      size_t n = (size_t)config_setting_length(s);
      const char **names = cuzk__xrealloc(NULL, n * sizeof(char *));
      const char **values = cuzk__xrealloc(NULL, n * sizeof(char *));
      char **wheres = cuzk__xrealloc(NULL, n * sizeof(char *));
      for (size_t j = 0; j < n; j++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)j);
        wheres[j] = cuzk__where(c, e);
        int et = config_setting_type(e);
        const config_setting_t *a = NULL, *b = NULL;
        if ((et == CONFIG_TYPE_LIST || et == CONFIG_TYPE_ARRAY) && config_setting_length(e) == 2) {
          a = config_setting_get_elem(e, 0);
          b = config_setting_get_elem(e, 1);
        }
        if (!a || config_setting_type(a) != CONFIG_TYPE_STRING ||
            config_setting_type(b) != CONFIG_TYPE_STRING) {
          cuzk__err(c, wheres[j], "%s[%zu]: expected a (\"name\", \"value\") pair of strings",
                    k->path, j);
          names[j] = values[j] = NULL;
          continue;
        }
        names[j] = config_setting_get_string(a);
        values[j] = config_setting_get_string(b);
      }
      cuzk__accept_props(c, ki, where, n, names, values, wheres);
      for (size_t j = 0; j < n; j++) free(wheres[j]);
      free(names);
      free(values);
      free(wheres);
      break;
    }
  }
  free(where);
  return;
type_err:
  cuzk__type_err(c, where, k, s);
  free(where);
}

static void cuzk__walk(cuzk__ctx_t *c, const config_setting_t *group, const char *prefix) {
  int n = config_setting_length(group);
  for (int i = 0; i < n; i++) {
    const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
    const char *name = config_setting_name(s);
    char path[256];
    snprintf(path, sizeof path, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", name);
    int ki = cuzk__find_key(path);
    if (ki >= 0) {
      cuzk__set_from_setting(c, (size_t)ki, s);
      continue;
    }
    char *where = cuzk__where(c, s);
    if (cuzk__is_section(path)) {
      if (config_setting_type(s) == CONFIG_TYPE_GROUP)
        cuzk__walk(c, s, path);
      else
        cuzk__err(c, where, "%s: expected group, got %s", path,
                  cuzk__lc_type_name(config_setting_type(s)));
    } else {
      const char *sug = cuzk__suggest(path);
      if (sug)
        cuzk__err(c, where, "unknown key '%s' (did you mean '%s'?)", path, sug);
      else
        cuzk__err(c, where, "unknown key '%s'", path);
    }
    free(where);
  }
}

/* After a libconfig parse error: name the file and line, and explain @include failures. */
static void cuzk__parse_error(cuzk__ctx_t *c, config_t *lc) {
  const char *f = config_error_file(lc);
  int line = config_error_line(lc);
  const char *text = config_error_text(lc);
  char fbuf[PATH_MAX];
  cuzk__file_name(c, f, fbuf, sizeof fbuf);
  char where[PATH_MAX + 32];
  snprintf(where, sizeof where, "%s:%d", fbuf, line);
  if (!text) text = "cannot read the file";
  if (strstr(text, "include")) {
    /* Find the @include on that line to say which path was tried. */
    char buf[4096] = "";
    FILE *fp = fopen(fbuf, "r");
    for (int i = 1; fp && fgets(buf, sizeof buf, fp); i++)
      if (i == line) break;
    if (fp) fclose(fp);
    char *q = strstr(buf, "@include");
    char inc[PATH_MAX] = "";
    if (q && (q = strchr(q, '"'))) {
      char *e = strchr(q + 1, '"');
      if (e) snprintf(inc, sizeof inc, "%.*s", (int)(e - q - 1), q + 1);
    }
    if (inc[0] == '/' && c->incdir && (LIBCONFIG_VER_MAJOR == 1 && LIBCONFIG_VER_MINOR < 7))
      cuzk__err(c, where,
                "%s '%s': libconfig %d.%d cannot @include an absolute path; write it relative "
                "to %s",
                text, inc, LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR, c->incdir);
    else if (inc[0])
      cuzk__err(c, where,
                "%s '%s' (looked for %s%s%s; @include paths are relative to the "
                "directory of the main file)",
                text, inc, inc[0] == '/' || !c->incdir ? "" : c->incdir,
                inc[0] == '/' || !c->incdir ? "" : "/", inc);
    else
      cuzk__err(c, where, "%s", text);
    return;
  }
  cuzk__err(c, where, "%s", text);
}

/* ---- environment ------------------------------------------------------------------------- */

static void cuzk__apply_env(cuzk__ctx_t *c, const char *const *envp) {
  cuzk__priv_t *pv = c->cfg->cuzk__priv;
  for (const char *const *e = envp; e && *e; e++) {
    bool ours = false;
    for (size_t s = 0; s < 3; s++)
      if (strncmp(*e, cuzk__env_sections[s], strlen(cuzk__env_sections[s])) == 0) ours = true;
    const char *eq = strchr(*e, '=');
    if (!ours || !eq) continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
    pv->env = cuzk__xrealloc(pv->env, (pv->nenv + 1) * sizeof *pv->env);
    pv->env[pv->nenv++] = cuzk__strdup(*e);
    int ki = -1;
    for (size_t i = 0; i < NKEYS && ki < 0; i++) {
      char en[256];
      cuzk__env_name(&cuzk__keys[i], en, sizeof en);
      if (strcmp(en, name) == 0) ki = (int)i;
    }
    if (ki < 0) {
      const char *best = NULL;
      size_t bd = 3;
      for (size_t i = 0; i < NKEYS; i++) {
        char en[256];
        cuzk__env_name(&cuzk__keys[i], en, sizeof en);
        size_t d = cuzk__edit_distance(name, en);
        if (d < bd) {
          bd = d;
          best = cuzk__keys[i].path;
        }
      }
      char where[300];
      snprintf(where, sizeof where, "env %s", name);
      if (best) {
        char en[256];
        cuzk__env_name(&cuzk__keys[cuzk__find_key(best)], en, sizeof en);
        cuzk__err(c, where, "no such setting (did you mean %s?)", en);
      } else {
        cuzk__err(c, where,
                  "no such setting (CUZK_AGENT_*, CUZK_KAFKA_* and CUZK_ENGINE_* "
                  "variables name configuration keys)");
      }
      continue;
    }
    char where[300];
    snprintf(where, sizeof where, "env %s", name);
    cuzk__set_from_text(c, (size_t)ki, where, eq + 1);
  }
}

/* ---- whole-config rules ------------------------------------------------------------------ */

static const char *cuzk__origin_of(const cuzk_config_t *cfg, size_t off) {
  const cuzk__priv_t *pv = cfg->cuzk__priv;
  for (size_t i = 0; i < NKEYS; i++)
    if (cuzk__keys[i].off == off) return pv->origin[i] ? pv->origin[i] : "default";
  return "default";
}

static void cuzk__cross_check(cuzk__ctx_t *c) {
  const cuzk_config_t *g = c->cfg;
  char a[32], b[32];
  if (g->kafka.inline_payload_max_bytes > g->kafka.max_message_bytes) {
    cuzk_config_format_size(g->kafka.inline_payload_max_bytes, a, sizeof a);
    cuzk_config_format_size(g->kafka.max_message_bytes, b, sizeof b);
    cuzk__err(c, cuzk__origin_of(g, O(kafka.inline_payload_max_bytes)),
              "kafka.inline_payload_max_bytes (%s) exceeds kafka.max_message_bytes (%s)", a, b);
  }
  if (g->kafka.inline_payload_max_bytes > g->agent.max_job_bytes) {
    cuzk_config_format_size(g->kafka.inline_payload_max_bytes, a, sizeof a);
    cuzk_config_format_size(g->agent.max_job_bytes, b, sizeof b);
    cuzk__err(c, cuzk__origin_of(g, O(kafka.inline_payload_max_bytes)),
              "kafka.inline_payload_max_bytes (%s) exceeds agent.max_job_bytes (%s)", a, b);
  }
  if (g->kafka.framing == CUZK_FRAMING_CONFLUENT) {
    static const struct {
      size_t off;
      const char *name;
    } ids[] = {
        {O(kafka.confluent_schema_ids.proof_result), "proof_result"},
        {O(kafka.confluent_schema_ids.partition_timing), "partition_timing"},
        {O(kafka.confluent_schema_ids.agent_status), "agent_status"},
        {O(kafka.confluent_schema_ids.dead_letter), "dead_letter"},
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
      if (*(const int64_t *)((const char *)g + ids[i].off) == 0)
        cuzk__err(c, cuzk__origin_of(g, O(kafka.framing)),
                  "kafka.framing is \"confluent\" but kafka.confluent_schema_ids.%s is not set",
                  ids[i].name);
  }
  if (g->kafka.brokers[0] == '\0') {
    if (g->kafka.transactional)
      cuzk__err(c, cuzk__origin_of(g, O(kafka.transactional)),
                "kafka.transactional needs real brokers: the embedded mock cluster (kafka.brokers "
                "= \"\") has no transactions");
    if (g->kafka.group_instance_id[0])
      cuzk__err(c, cuzk__origin_of(g, O(kafka.group_instance_id)),
                "kafka.group_instance_id needs real brokers: the embedded mock cluster "
                "(kafka.brokers = \"\") has no static membership");
  }
}

static void cuzk__finalize(cuzk__ctx_t *c) {
  if (c->cfg->agent.id[0] == '\0') {
    char host[256];
    if (gethostname(host, sizeof host) != 0 || !host[0]) {
      cuzk__err(c, cuzk__origin_of(c->cfg, O(agent.id)),
                "agent.id is empty and the host name is unavailable: set agent.id");
      return;
    }
    host[sizeof host - 1] = '\0';
    const char *why = cuzk__chk_agent_id(host);
    if (why) {
      cuzk__err(c, cuzk__origin_of(c->cfg, O(agent.id)),
                "agent.id is empty and the host name \"%s\" is not a valid id (%s): set agent.id",
                host, why);
      return;
    }
    free(c->cfg->agent.id);
    c->cfg->agent.id = cuzk__strdup(host);
  }
}

/* ---- loading ----------------------------------------------------------------------------- */

static cuzk_config_t *cuzk__raw_defaults(void) {
  cuzk_config_t *cfg = calloc(1, sizeof *cfg);
  if (!cfg) return NULL;
  cfg->cuzk__priv = calloc(1, sizeof(cuzk__priv_t));
  if (!cfg->cuzk__priv) {
    free(cfg);
    return NULL;
  }
  cuzk__ctx_t c = {.cfg = cfg};
  c.err = open_memstream(&c.errbuf, &c.errlen);
  c.kconf = rd_kafka_conf_new();
  if (!c.err || !c.kconf) abort();
  for (size_t i = 0; i < NKEYS; i++) cuzk__set_from_text(&c, i, NULL, cuzk__keys[i].def);
  fclose(c.err);
  rd_kafka_conf_destroy(c.kconf);
  if (c.nerr) {
    fprintf(stderr, "cuzk: the configuration key table has a bad default:\n%s", c.errbuf);
    abort();
  }
  free(c.errbuf);
  return cfg;
}

static char *cuzk__dirname(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return cuzk__strdup(".");
  if (slash == path) return cuzk__strdup("/");
  char *d = cuzk__strdup(path);
  d[slash - path] = '\0';
  return d;
}

static cuzk_err_t cuzk__load(cuzk_config_t **out, const char *path, const char *text,
                             const char *const *envp, char *errstr, size_t errstr_size) {
  assert(out);
  *out = NULL;
  cuzk__ctx_t c = {.path = path, .text = text};
  c.cfg = cuzk__raw_defaults();
  if (!c.cfg) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "out of memory");
  c.err = open_memstream(&c.errbuf, &c.errlen);
  c.kconf = rd_kafka_conf_new();
  if (!c.err || !c.kconf) abort();
  if (path) c.cfg->source_path = cuzk__strdup(path);

  if (path || text) {
    config_t lc;
    config_init(&lc);
    int ok;
    if (path) {
      c.incdir = cuzk__dirname(path);
      config_set_include_dir(&lc, c.incdir);
      FILE *fp = fopen(path, "r");
      if (!fp) {
        cuzk__err(&c, path, "cannot open: %s", strerror(errno));
        ok = -1;
      } else {
        fclose(fp);
        ok = config_read_file(&lc, path);
      }
    } else {
      ok = config_read_string(&lc, text);
    }
    if (ok == 0) cuzk__parse_error(&c, &lc);
    if (ok == 1) cuzk__walk(&c, config_root_setting(&lc), NULL);
    config_destroy(&lc);
  }
  cuzk__apply_env(&c, envp);
  if (!c.nerr) cuzk__cross_check(&c);
  if (!c.nerr) cuzk__finalize(&c);

  fclose(c.err);
  rd_kafka_conf_destroy(c.kconf);
  free(c.incdir);
  if (c.nerr) {
    size_t len = c.errlen;
    while (len && c.errbuf[len - 1] == '\n') c.errbuf[--len] = '\0';
    cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size, "%s", c.errbuf);
    free(c.errbuf);
    cuzk_config_free(c.cfg);
    return CUZK_ERR_CONFIG;
  }
  free(c.errbuf);
  *out = c.cfg;
  return CUZK_OK;
}

cuzk_err_t cuzk_config_load(cuzk_config_t **out, const char *path, const char *const *envp,
                            char *errstr, size_t errstr_size) {
  return cuzk__load(out, path, NULL, envp, errstr, errstr_size);
}

cuzk_err_t cuzk_config_load_string(cuzk_config_t **out, const char *text, const char *const *envp,
                                   char *errstr, size_t errstr_size) {
  assert(text);
  return cuzk__load(out, NULL, text, envp, errstr, errstr_size);
}

cuzk_config_t *cuzk_config_new_defaults(void) {
  cuzk_config_t *cfg = NULL;
  char err[512];
  if (cuzk__load(&cfg, NULL, NULL, NULL, err, sizeof err) != CUZK_OK) return NULL;
  return cfg;
}

const char *cuzk_config_origin(const cuzk_config_t *cfg, const char *path) {
  assert(cfg && path);
  int ki = cuzk__find_key(path);
  if (ki < 0) return NULL;
  const cuzk__priv_t *pv = cfg->cuzk__priv;
  return pv->origin[ki] ? pv->origin[ki] : "default";
}

const char *cuzk_config_proof_type_name(cuzk_config_proof_type_t t) {
  static const char *const names[] = {"winning-post", "window-post", "snap-deals", "porep-c2"};
  return (unsigned)t < CUZK_CONFIG_TYPE__COUNT ? names[t] : NULL;
}

/* ---- printing ---------------------------------------------------------------------------- */

static void cuzk__print_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '"':
        fputs("\\\"", out);
        break;
      case '\\':
        fputs("\\\\", out);
        break;
      case '\n':
        fputs("\\n", out);
        break;
      case '\t':
        fputs("\\t", out);
        break;
      case '\r':
        fputs("\\r", out);
        break;
      case '\f':
        fputs("\\f", out);
        break;
      default:
        if (*p < 0x20 || *p == 0x7f)
          fprintf(out, "\\x%02X", *p);
        else
          fputc(*p, out);
    }
  }
  fputc('"', out);
}

static void cuzk__print_int(FILE *out, long long v) {
  /* libconfig 1.5 needs the L suffix beyond 32 bits (see cuzk__int_literal_ok). */
  fprintf(out, "%lld%s", v, (v > INT32_MAX || v < INT32_MIN) ? "L" : "");
}

static void cuzk__print_value(FILE *out, const cuzk_config_t *cfg, const cuzk__key_t *k) {
  char buf[64];
  switch (k->kind) {
    case K_BOOL:
      fputs(*VAL(cfg, k, bool) ? "true" : "false", out);
      break;
    case K_INT:
      cuzk__print_int(out, (long long)*VAL(cfg, k, int64_t));
      break;
    case K_SIZE: {
      uint64_t v = *VAL(cfg, k, uint64_t);
      if (v == 0 && (k->flags & F_AUTO)) {
        fputs("\"auto\"", out);
        break;
      }
      cuzk_config_format_size(v, buf, sizeof buf);
      if (v && strchr("0123456789", buf[strlen(buf) - 1]) == NULL)
        cuzk__print_string(out, buf);
      else
        cuzk__print_int(out, (long long)v);
      break;
    }
    case K_STRING:
      cuzk__print_string(out, *VAL(cfg, k, char *));
      break;
    case K_ENUM:
      cuzk__enum_name(k->allowed, *VAL(cfg, k, int), buf, sizeof buf);
      cuzk__print_string(out, buf);
      break;
    case K_TYPESET: {
      unsigned set = *VAL(cfg, k, unsigned);
      const char *sep = "";
      fputc('[', out);
      for (int i = 0; i < CUZK_CONFIG_TYPE__COUNT; i++)
        if (set & (1u << i)) {
          fputs(sep, out);
          cuzk__print_string(out, cuzk_config_proof_type_name((cuzk_config_proof_type_t)i));
          sep = ", ";
        }
      fputc(']', out);
      break;
    }
    case K_INTLIST: {
      const cuzk_config_intlist_t *l = VAL(cfg, k, cuzk_config_intlist_t);
      fputc('[', out);
      for (size_t i = 0; i < l->n; i++) {
        if (i) fputs(", ", out);
        cuzk__print_int(out, (long long)l->v[i]);
      }
      fputc(']', out);
      break;
    }
    case K_STRLIST: {
      const cuzk_config_strlist_t *l = VAL(cfg, k, cuzk_config_strlist_t);
      fputc('[', out);
      for (size_t i = 0; i < l->n; i++) {
        if (i) fputs(", ", out);
        cuzk__print_string(out, l->v[i]);
      }
      fputc(']', out);
      break;
    }
    case K_PROPS: {
      const cuzk_config_props_t *p = VAL(cfg, k, cuzk_config_props_t);
      fputc('(', out);
      for (size_t i = 0; i < p->n; i++) {
        fputs(i ? ", (" : "(", out);
        cuzk__print_string(out, p->name[i]);
        fputs(", ", out);
        cuzk__print_string(out, p->value[i]);
        fputc(')', out);
      }
      fputc(')', out);
      break;
    }
  }
}

static char *cuzk__value_text(const cuzk_config_t *cfg, const cuzk__key_t *k) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) abort();
  cuzk__print_value(m, cfg, k);
  fclose(m);
  return buf;
}

/* ---- key introspection ------------------------------------------------------------------- */

static cuzk_config_key_info_t cuzk__info[NKEYS];
static pthread_once_t cuzk__info_once = PTHREAD_ONCE_INIT;

static void cuzk__info_init(void) {
  static const char *const type_names[] = {
      [K_BOOL] = "boolean",
      [K_INT] = "integer",
      [K_SIZE] = "size",
      [K_STRING] = "string",
      [K_ENUM] = "enum",
      [K_TYPESET] = "list of proof types",
      [K_INTLIST] = "list of integers",
      [K_STRLIST] = "list of strings",
      [K_PROPS] = "list of (name, value) pairs",
  };
  cuzk_config_t *raw = cuzk__raw_defaults();
  if (!raw) abort();
  for (size_t i = 0; i < NKEYS; i++) {
    const cuzk__key_t *k = &cuzk__keys[i];
    char env[256];
    cuzk__env_name(k, env, sizeof env);
    bool bounded = k->kind == K_INT || k->kind == K_SIZE || k->kind == K_INTLIST;
    cuzk__info[i] = (cuzk_config_key_info_t){
        .path = k->path,
        .env = cuzk__strdup(env),
        .type_name = type_names[k->kind],
        .allowed = k->allowed,
        .min = bounded ? k->min : 1,
        .max = bounded ? k->max : 0,
        .reloadable = (k->flags & F_RELOAD) != 0,
        .doc = k->doc,
        .default_text = cuzk__value_text(raw, k),
    };
  }
  cuzk_config_free(raw);
}

size_t cuzk_config_key_count(void) {
  return NKEYS;
}

const cuzk_config_key_info_t *cuzk_config_key(size_t i) {
  if (i >= NKEYS) return NULL;
  pthread_once(&cuzk__info_once, cuzk__info_init);
  return &cuzk__info[i];
}

static void cuzk__print_comment(FILE *out, int indent, const char *text) {
  const int width = 96 - indent - 2;
  const char *p = text;
  while (*p) {
    int len = (int)strlen(p);
    if (len > width) {
      len = width;
      while (len > 0 && p[len] != ' ') len--;
      if (len == 0) len = width;
    }
    fprintf(out, "%*s# %.*s\n", indent, "", len, p);
    p += len;
    while (*p == ' ') p++;
  }
}

void cuzk_config_print(FILE *out, const cuzk_config_t *cfg, int flags) {
  assert(out);
  cuzk_config_t *raw = NULL;
  if (!cfg) {
    cfg = raw = cuzk__raw_defaults();
    if (!raw) abort();
  }
  const cuzk__priv_t *pv = cfg->cuzk__priv;
  char cur[256] = ""; /* the group path now open, e.g. "engine.srs" */
  int depth = 0;
  for (size_t i = 0; i < NKEYS; i++) {
    const cuzk__key_t *k = &cuzk__keys[i];
    const cuzk_config_key_info_t *info = cuzk_config_key(i);
    const char *leaf = strrchr(k->path, '.');
    char group[256];
    snprintf(group, sizeof group, "%.*s", (int)(leaf - k->path), k->path);
    leaf++;
    /* close groups until cur is a prefix of group */
    while (depth > 0) {
      size_t cl = strlen(cur);
      if (strncmp(group, cur, cl) == 0 && (group[cl] == '\0' || group[cl] == '.')) break;
      depth--;
      fprintf(out, "%*s};\n", 2 * depth, "");
      char *dot = strrchr(cur, '.');
      if (dot)
        *dot = '\0';
      else
        cur[0] = '\0';
    }
    /* open the remaining components */
    while (strcmp(cur, group) != 0) {
      size_t cl = strlen(cur);
      const char *rest = group + cl + (cl ? 1 : 0);
      const char *dot = strchr(rest, '.');
      int nl = dot ? (int)(dot - rest) : (int)strlen(rest);
      fprintf(out, "\n%*s%.*s = {\n", 2 * depth, "", nl, rest);
      snprintf(cur + cl, sizeof cur - cl, "%s%.*s", cl ? "." : "", nl, rest);
      depth++;
    }
    int ind = 2 * depth;
    fputc('\n', out);
    cuzk__print_comment(out, ind, k->doc);
    if (k->allowed && k->kind == K_ENUM) {
      char list[256];
      cuzk__enum_list(k->allowed, list, sizeof list);
      fprintf(out, "%*s# one of: %s\n", ind, "", list);
    }
    fprintf(out, "%*s# default: %s\n", ind, "", info->default_text);
    fprintf(out, "%*s# env %s; %s\n", ind, "", info->env,
            info->reloadable ? "reloadable (SIGHUP)" : "restart to change");
    if ((flags & CUZK_CONFIG_PRINT_ORIGINS) && pv->origin[i])
      fprintf(out, "%*s# set at %s\n", ind, "", pv->origin[i]);
    fprintf(out, "%*s%s = ", ind, "", leaf);
    cuzk__print_value(out, cfg, k);
    fputs(";\n", out);
  }
  while (depth > 0) {
    depth--;
    fprintf(out, "%*s};\n", 2 * depth, "");
  }
  cuzk_config_free(raw);
}

/* ---- reload ------------------------------------------------------------------------------ */

cuzk_err_t cuzk_config_reload(const cuzk_config_t *old, const char *path, cuzk_config_t **out,
                              char *errstr, size_t errstr_size) {
  assert(old && out);
  *out = NULL;
  const cuzk__priv_t *pv = old->cuzk__priv;
  char **envp = cuzk__xrealloc(NULL, (pv->nenv + 1) * sizeof *envp);
  for (size_t i = 0; i < pv->nenv; i++) envp[i] = pv->env[i];
  envp[pv->nenv] = NULL;
  cuzk_config_t *fresh = NULL;
  cuzk_err_t err = cuzk__load(&fresh, path, NULL, (const char *const *)envp, errstr, errstr_size);
  free(envp);
  if (err != CUZK_OK) return err;

  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) abort();
  int refused = 0;
  for (size_t i = 0; i < NKEYS; i++) {
    const cuzk__key_t *k = &cuzk__keys[i];
    if ((k->flags & F_RELOAD) || cuzk__value_equal(old, fresh, k)) continue;
    char *a = cuzk__value_text(old, k), *b = cuzk__value_text(fresh, k);
    fprintf(m, "%s%s: changed from %s to %s, but it is not reloadable; restart the agent",
            refused ? "\n" : "", k->path, a, b);
    free(a);
    free(b);
    refused++;
  }
  fclose(m);
  if (refused) {
    cuzk_errf(CUZK_ERR_UNSUPPORTED, errstr, errstr_size, "%s", buf);
    free(buf);
    cuzk_config_free(fresh);
    return CUZK_ERR_UNSUPPORTED;
  }
  free(buf);
  *out = fresh;
  return CUZK_OK;
}

/* ---- memory budget ----------------------------------------------------------------------- */

cuzk_err_t cuzk_config_memory_budget(const cuzk_config_t *cfg, const char *meminfo_path,
                                     uint64_t *out, char *errstr, size_t errstr_size) {
  assert(cfg && out);
  if (cfg->engine.memory_budget) {
    *out = cfg->engine.memory_budget;
    return CUZK_OK;
  }
  const char *p = meminfo_path ? meminfo_path : "/proc/meminfo";
  FILE *fp = fopen(p, "r");
  if (!fp)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                     "engine.memory_budget = \"auto\": cannot read %s: %s", p, strerror(errno));
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  while (fgets(line, sizeof line, fp))
    if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) {
      found = true;
      break;
    }
  fclose(fp);
  if (!found)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                     "engine.memory_budget = \"auto\": no MemTotal line in %s", p);
  uint64_t total = (uint64_t)kib * 1024;
  if (total <= cfg->engine.safety_margin + (uint64_t)GiB) {
    char a[32], b[32];
    cuzk_config_format_size(total, a, sizeof a);
    cuzk_config_format_size(cfg->engine.safety_margin, b, sizeof b);
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                     "engine.memory_budget = \"auto\": MemTotal %s minus safety_margin %s leaves "
                     "less than 1GiB; set engine.memory_budget or lower engine.safety_margin",
                     a, b);
  }
  *out = total - cfg->engine.safety_margin;
  return CUZK_OK;
}
