#include "agent/agent_config.h"

#include <string.h>

void cuzk_agent_conf_from_config(cuzk_agent_conf_t *o, const cuzk_config_t *c) {
  cuzk_agent_conf_init(o);
  o->agent_id = c->agent.id;
  o->http_listen = c->agent.http_listen;
  o->brokers = c->kafka.brokers;
  o->topic_prefix = c->kafka.topic_prefix;
  o->group_id = c->kafka.group_id;
  o->group_instance_id = c->kafka.group_instance_id;
  o->enabled_types = c->kafka.enabled_types;
  o->framing = c->kafka.framing == CUZK_FRAMING_CONFLUENT ? 1 : 0;
  const int64_t ids[5] = {
      c->kafka.confluent_schema_ids.proof_job, c->kafka.confluent_schema_ids.proof_result,
      c->kafka.confluent_schema_ids.partition_timing, c->kafka.confluent_schema_ids.agent_status,
      c->kafka.confluent_schema_ids.dead_letter};
  for (int i = 0; i < 5; i++) o->confluent_ids[i] = ids[i] > 0 ? (int32_t)ids[i] : -1;
  o->max_message_bytes = (size_t)c->kafka.max_message_bytes;
  o->max_job_bytes = (size_t)c->agent.max_job_bytes;
  o->poll_interval_ms = (int)c->kafka.poll_interval_ms;
  o->status_interval_s = (int)c->agent.status_interval_s;
  o->shutdown_grace_s = (int)c->agent.shutdown_grace_s;
  o->payload_fetch_timeout_s = (int)c->agent.payload_fetch_timeout_s;
  o->assignor = c->kafka.assignor == CUZK_ASSIGNOR_ROUNDROBIN ? "roundrobin" : "range";
  o->props = (cuzk_agent_props_t){c->kafka.properties.n, c->kafka.properties.name,
                                  c->kafka.properties.value};
  o->consumer_props =
      (cuzk_agent_props_t){c->kafka.consumer_properties.n, c->kafka.consumer_properties.name,
                           c->kafka.consumer_properties.value};
  o->producer_props =
      (cuzk_agent_props_t){c->kafka.producer_properties.n, c->kafka.producer_properties.name,
                           c->kafka.producer_properties.value};
  o->reserve_critical = (unsigned)c->engine.admission_reserve_critical;
}

cuzk_err_t cuzk_agent_engine_conf_from_config(cuzk_agent_engine_conf_t *o, const cuzk_config_t *c,
                                              char *errstr, size_t errstr_size) {
  memset(o, 0, sizeof *o);
  cuzk_err_t e = cuzk_config_memory_budget(c, NULL, &o->memory_budget, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  o->synthesis_workers = (unsigned)c->engine.synthesis_workers;
  o->synthesis_threads = (unsigned)c->engine.synthesis_threads;
  o->gpu_workers_per_device = (unsigned)c->engine.gpu_workers_per_device;
  o->verify = c->engine.verify_proofs == CUZK_VERIFY_ALWAYS   ? 0
              : c->engine.verify_proofs == CUZK_VERIFY_SAMPLE ? 1
                                                              : 2;
  o->verify_sample_percent = (unsigned)c->engine.verify_sample_percent;
  o->params_dir = c->agent.params_dir;
  o->allow_insecure_params = c->agent.allow_insecure_params;
  o->timeline_file = c->engine.timeline_file;
  o->prefer_gpu = c->engine.backend != CUZK_BACKEND_CPU;
  o->backend = c->engine.backend == CUZK_BACKEND_CPU    ? "cpu"
               : c->engine.backend == CUZK_BACKEND_CUDA ? "cuda"
                                                        : "auto";
  return CUZK_OK;
}

void cuzk_agent_apply_log_config(const cuzk_config_t *c) {
  /* config's debug..error are log.h's DEBUG..ERROR (1..4); formats share their order */
  cuzk_agent_apply_log((int)c->agent.log_level + 1,
                       c->agent.log_format == CUZK_LOG_FORMAT_JSON ? 1 : 0);
}
