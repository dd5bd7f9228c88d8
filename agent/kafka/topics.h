/* Kafka topic names of a cuzk deployment (DESIGN §7) and the proof type ↔ job topic mapping.
 *
 * Names are `<prefix>.<suffix>` with prefix `cuzk` by default. The job topics' suffixes are
 * `jobs.<proof type name>`, with the names of core/engine/types.h ("winning-post", ...), and the
 * CUZK_TOPIC_JOBS_* values equal the matching cuzk_proof_type_t values (the synthetic benchmark
 * type has no topic).
 *
 * Ownership: cuzk_topics_t is a plain value holding its own copies of the names; no allocation.
 * Threads: functions are pure; a filled cuzk_topics_t may be read from any thread.
 */
#ifndef CUZK_AGENT_KAFKA_TOPICS_H
#define CUZK_AGENT_KAFKA_TOPICS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util/err.h"

typedef enum {
  CUZK_TOPIC_JOBS_WINNING_POST = 0,
  CUZK_TOPIC_JOBS_WINDOW_POST = 1,
  CUZK_TOPIC_JOBS_SNAP_DEALS = 2,
  CUZK_TOPIC_JOBS_POREP_C2 = 3,
  CUZK_TOPIC_RESULTS = 4,
  CUZK_TOPIC_TELEMETRY_PARTITIONS = 5,
  CUZK_TOPIC_TELEMETRY_AGENTS = 6,
  CUZK_TOPIC_DEAD_LETTER = 7,
  CUZK_TOPIC__COUNT
} cuzk_topic_t;

#define CUZK_TOPICS_DEFAULT_PREFIX "cuzk"
/* Kafka's limit on a topic name's length. */
#define CUZK_TOPICS_NAME_MAX 249
/* Longest suffix, ".telemetry.partitions" (21 bytes), leaves 249 - 21 = 228 for the prefix. */
#define CUZK_TOPICS_PREFIX_MAX 228

typedef struct {
  char names[CUZK_TOPIC__COUNT][CUZK_TOPICS_NAME_MAX + 1];
} cuzk_topics_t;

/* Checks that `prefix` yields legal Kafka topic names: 1..CUZK_TOPICS_PREFIX_MAX bytes of
 * [A-Za-z0-9._-]. Errors: CONFIG with a sentence in errstr naming the offending character or
 * length. */
cuzk_err_t cuzk_topics_validate_prefix(const char *prefix, char *errstr, size_t errstr_size);

/* Fills out with every topic name under `prefix` (NULL: CUZK_TOPICS_DEFAULT_PREFIX).
 * Errors: those of cuzk_topics_validate_prefix; out is then zeroed. */
cuzk_err_t cuzk_topics_init(cuzk_topics_t *out, const char *prefix, char *errstr,
                            size_t errstr_size);

/* The full name of topic t, or NULL when t is out of range. */
const char *cuzk_topics_name(const cuzk_topics_t *topics, cuzk_topic_t t);

/* The suffix of t after "<prefix>.", e.g. "jobs.porep-c2"; NULL out of range. */
const char *cuzk_topics_suffix(cuzk_topic_t t);

/* Which of the topics `name` is (exact match); false for any other name or NULL. */
bool cuzk_topics_lookup(const cuzk_topics_t *topics, const char *name, cuzk_topic_t *out);

/* The job topic for a proof type name ("winning-post", "window-post", "snap-deals",
 * "porep-c2"); false for other names (including "synthetic") and NULL. */
bool cuzk_topics_for_proof_type(const char *proof_type, cuzk_topic_t *out);

/* The proof type name a job topic carries; NULL for topics that are not job topics. */
const char *cuzk_topics_proof_type(cuzk_topic_t t);

/* True for the four job topics. */
bool cuzk_topics_is_job(cuzk_topic_t t);

#endif
