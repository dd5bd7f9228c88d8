/* Proof types and priorities shared by the engine, the agent and the circuits. */
#ifndef CUZK_ENGINE_TYPES_H
#define CUZK_ENGINE_TYPES_H

#include <stdbool.h>

typedef enum {
  CUZK_PROOF_WINNING_POST = 0,
  CUZK_PROOF_WINDOW_POST = 1,
  CUZK_PROOF_SNAP_DEALS = 2,
  CUZK_PROOF_POREP_C2 = 3,
  CUZK_PROOF_SYNTHETIC = 4, /* benchmark circuits; results are labelled synthetic everywhere */
  CUZK_PROOF__COUNT
} cuzk_proof_type_t;

/* Larger value = more urgent. CRITICAL work goes first at the next partition boundary. */
typedef enum {
  CUZK_PRIO_NORMAL = 0,
  CUZK_PRIO_HIGH = 1,
  CUZK_PRIO_CRITICAL = 2,
  CUZK_PRIO__COUNT
} cuzk_priority_t;

/* "winning-post", "window-post", "snap-deals", "porep-c2", "synthetic"; NULL out of range. */
const char *cuzk_proof_type_name(cuzk_proof_type_t t);
/* Parses the names above; returns false for anything else. */
bool cuzk_proof_type_parse(const char *s, cuzk_proof_type_t *out);
/* WinningPoSt → CRITICAL, WindowPoSt → HIGH, the rest → NORMAL. */
cuzk_priority_t cuzk_proof_type_priority(cuzk_proof_type_t t);
/* "critical", "high", "normal"; NULL out of range. */
const char *cuzk_priority_name(cuzk_priority_t p);

#endif
