/* Building ProofJob records for operator tools, the demo and tests (`cuzk submit`, `cuzk demo`).
 *
 * Ownership: a cuzk_jobspec_t holds the job plus the storage its pointers refer to; the strings
 * and payload given to cuzk_jobspec_init are borrowed (keep them alive while the job is used).
 * Threads: pure.
 */
#ifndef CUZK_AGENT_JOBSPEC_H
#define CUZK_AGENT_JOBSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "agent/avro/records.h"

typedef struct {
  cuzk_proof_job_t job;
  uint8_t prover_id[32], randomness[32];
  int64_t sector_id;
  cuzk_label_t labels[2];
  char ref_uri[4096 + 8];
} cuzk_jobspec_t;

/* A valid job of `type` for the 2 KiB sector size (registered proof, sector id 1, zero prover id,
 * randomness from the job id's hash, the type's binary payload format), created now. `circuit`
 * (may be NULL) becomes the label "circuit", which selects the engine circuit (e.g.
 * "synthetic-10"); without it the agent uses "<type>-<sector size>". The payload is inline. */
void cuzk_jobspec_init(cuzk_jobspec_t *s, cuzk_proof_type_t type, const char *job_id,
                       const char *circuit, const uint8_t *payload, size_t payload_len);

/* Replaces the inline payload with a reference {uri, sha256(payload), payload_len}. */
void cuzk_jobspec_set_ref(cuzk_jobspec_t *s, const char *uri, const uint8_t *payload,
                          size_t payload_len);

/* Makes the job a PoSt job for `registered_proof` (sector size from it): prover id (32 bytes;
 * NULL: from miner_id as filecoin-ffi derives it, LEB128 actor id zero-padded), randomness
 * (32 bytes), the challenged sector ids in
 * the payload's order. Copies the prover id and randomness; sector_ids stay borrowed. The payload
 * stays what cuzk_jobspec_init set: bincode Vec<FallbackPoStSectorProof>, one per sector id
 * (core/filecoin/post_job.h). Returns 0, or -1 when registered_proof is not a PoSt proof of the
 * job's type. */
int cuzk_jobspec_set_post(cuzk_jobspec_t *s, int registered_proof, const uint8_t *prover_id,
                          int64_t miner_id, const uint8_t randomness[32], const int64_t *sector_ids,
                          size_t n_sector_ids);

/* Parses "winning-post", "window-post", "snap-deals", "porep-c2". */
int cuzk_jobspec_parse_type(const char *s, cuzk_proof_type_t *out);

/* "OK", "REJECTED", "EXPIRED", "FAILED", "CANCELLED"; "?" out of range. */
const char *cuzk_jobspec_status_name(cuzk_result_status_t s);

#endif
