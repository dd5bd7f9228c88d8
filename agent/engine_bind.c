/* cuzk_agent_engine_new: the agent's engine vtable on core/engine (see agent_engine.h). Until the
 * engine implementation (core/engine/backend.h and engine.c) is part of the tree this returns
 * NULL with a sentence saying so. */
#include "agent/agent_engine.h"

#include <stdio.h>

cuzk_agent_engine_t *cuzk_agent_engine_new(const cuzk_agent_engine_conf_t *conf, char *errstr,
                                           size_t errstr_size) {
  (void)conf;
  snprintf(errstr, errstr_size,
           "the proving engine is not part of this build yet (core/engine/engine.c missing)");
  return NULL;
}
