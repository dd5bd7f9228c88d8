/* Mapping of the loaded configuration (agent/config.h) onto the agent's and the engine's
 * settings. The outputs borrow strings from cfg: keep cfg alive while they are used.
 * Threads: pure, any thread. */
#ifndef CUZK_AGENT_AGENT_CONFIG_H
#define CUZK_AGENT_AGENT_CONFIG_H

#include "agent/agent.h"
#include "agent/config.h"

/* Fills out from cfg (engine, tick and callbacks left NULL). */
void cuzk_agent_conf_from_config(cuzk_agent_conf_t *out, const cuzk_config_t *cfg);

/* Fills out from cfg; the memory budget is resolved ("auto" reads /proc/meminfo). */
cuzk_err_t cuzk_agent_engine_conf_from_config(cuzk_agent_engine_conf_t *out,
                                              const cuzk_config_t *cfg, char *errstr,
                                              size_t errstr_size);

/* Applies cfg's agent.log_level and agent.log_format to core/util/log. */
void cuzk_agent_apply_log_config(const cuzk_config_t *cfg);

#endif
