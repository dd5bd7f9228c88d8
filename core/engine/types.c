#include "core/engine/types.h"

#include <string.h>

static const char *const cuzk__type_names[CUZK_PROOF__COUNT] = {
    "winning-post", "window-post", "snap-deals", "porep-c2", "synthetic"};

const char *cuzk_proof_type_name(cuzk_proof_type_t t) {
  return (unsigned)t < CUZK_PROOF__COUNT ? cuzk__type_names[t] : NULL;
}

bool cuzk_proof_type_parse(const char *s, cuzk_proof_type_t *out) {
  for (int i = 0; s && i < CUZK_PROOF__COUNT; i++)
    if (strcmp(s, cuzk__type_names[i]) == 0) {
      *out = (cuzk_proof_type_t)i;
      return true;
    }
  return false;
}

cuzk_priority_t cuzk_proof_type_priority(cuzk_proof_type_t t) {
  switch (t) {
    case CUZK_PROOF_WINNING_POST:
      return CUZK_PRIO_CRITICAL;
    case CUZK_PROOF_WINDOW_POST:
      return CUZK_PRIO_HIGH;
    default:
      return CUZK_PRIO_NORMAL;
  }
}

const char *cuzk_priority_name(cuzk_priority_t p) {
  static const char *const names[CUZK_PRIO__COUNT] = {"normal", "high", "critical"};
  return (unsigned)p < CUZK_PRIO__COUNT ? names[p] : NULL;
}
