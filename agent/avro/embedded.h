/* The schemas/<Name>.avsc files, embedded at build time (embed_schemas.cmake) so that the single
 * `cuzk` binary carries the schemas it writes with. Internal to agent/avro. */
#ifndef CUZK_AGENT_AVRO_EMBEDDED_H
#define CUZK_AGENT_AVRO_EMBEDDED_H

#include <stddef.h>

typedef struct {
  const char *name; /* file name without .avsc, e.g. "ProofJob" */
  const char *json; /* NUL-terminated file contents */
  size_t len;       /* bytes without the NUL */
} cuzk__avro_embedded_t;

extern const cuzk__avro_embedded_t cuzk__avro_embedded[];
extern const size_t cuzk__avro_embedded_count;

#endif
