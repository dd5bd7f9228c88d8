#include "agent/kafka/topics.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const cuzk__topic_suffix[CUZK_TOPIC__COUNT] = {
    [CUZK_TOPIC_JOBS_WINNING_POST] = "jobs.winning-post",
    [CUZK_TOPIC_JOBS_WINDOW_POST] = "jobs.window-post",
    [CUZK_TOPIC_JOBS_SNAP_DEALS] = "jobs.snap-deals",
    [CUZK_TOPIC_JOBS_POREP_C2] = "jobs.porep-c2",
    [CUZK_TOPIC_RESULTS] = "results",
    [CUZK_TOPIC_TELEMETRY_PARTITIONS] = "telemetry.partitions",
    [CUZK_TOPIC_TELEMETRY_AGENTS] = "telemetry.agents",
    [CUZK_TOPIC_DEAD_LETTER] = "jobs.dead-letter",
};

static bool cuzk__topic_char_ok(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

cuzk_err_t cuzk_topics_validate_prefix(const char *prefix, char *errstr, size_t errstr_size) {
  if (!prefix || !*prefix)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size, "topic prefix is empty");
  size_t n = strnlen(prefix, CUZK_TOPICS_PREFIX_MAX + 1);
  if (n > CUZK_TOPICS_PREFIX_MAX)
    return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                     "topic prefix is longer than %d bytes (topic names are limited to %d)",
                     CUZK_TOPICS_PREFIX_MAX, CUZK_TOPICS_NAME_MAX);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)prefix[i];
    if (!cuzk__topic_char_ok((char)c)) {
      if (c >= 0x20 && c < 0x7f)
        return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                         "topic prefix has '%c' at byte %zu; Kafka topics allow only "
                         "[A-Za-z0-9._-]",
                         c, i);
      return cuzk_errf(CUZK_ERR_CONFIG, errstr, errstr_size,
                       "topic prefix has byte 0x%02x at %zu; Kafka topics allow only "
                       "[A-Za-z0-9._-]",
                       c, i);
    }
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_topics_init(cuzk_topics_t *out, const char *prefix, char *errstr,
                            size_t errstr_size) {
  assert(out);
  memset(out, 0, sizeof *out);
  if (!prefix) prefix = CUZK_TOPICS_DEFAULT_PREFIX;
  cuzk_err_t err = cuzk_topics_validate_prefix(prefix, errstr, errstr_size);
  if (err != CUZK_OK) return err;
  for (int t = 0; t < CUZK_TOPIC__COUNT; t++) {
    int k = snprintf(out->names[t], sizeof out->names[t], "%s.%s", prefix, cuzk__topic_suffix[t]);
    assert(k > 0 && (size_t)k < sizeof out->names[t]);
    (void)k;
  }
  return CUZK_OK;
}

const char *cuzk_topics_name(const cuzk_topics_t *topics, cuzk_topic_t t) {
  assert(topics);
  if ((int)t < 0 || t >= CUZK_TOPIC__COUNT) return NULL;
  return topics->names[t];
}

const char *cuzk_topics_suffix(cuzk_topic_t t) {
  if ((int)t < 0 || t >= CUZK_TOPIC__COUNT) return NULL;
  return cuzk__topic_suffix[t];
}

bool cuzk_topics_lookup(const cuzk_topics_t *topics, const char *name, cuzk_topic_t *out) {
  assert(topics && out);
  if (!name) return false;
  for (int t = 0; t < CUZK_TOPIC__COUNT; t++) {
    if (topics->names[t][0] && strcmp(topics->names[t], name) == 0) {
      *out = (cuzk_topic_t)t;
      return true;
    }
  }
  return false;
}

bool cuzk_topics_is_job(cuzk_topic_t t) {
  return t >= CUZK_TOPIC_JOBS_WINNING_POST && t <= CUZK_TOPIC_JOBS_POREP_C2;
}

const char *cuzk_topics_proof_type(cuzk_topic_t t) {
  if (!cuzk_topics_is_job(t)) return NULL;
  return cuzk__topic_suffix[t] + sizeof "jobs." - 1;
}

bool cuzk_topics_for_proof_type(const char *proof_type, cuzk_topic_t *out) {
  assert(out);
  if (!proof_type) return false;
  for (int t = CUZK_TOPIC_JOBS_WINNING_POST; t <= CUZK_TOPIC_JOBS_POREP_C2; t++) {
    if (strcmp(cuzk_topics_proof_type((cuzk_topic_t)t), proof_type) == 0) {
      *out = (cuzk_topic_t)t;
      return true;
    }
  }
  return false;
}
