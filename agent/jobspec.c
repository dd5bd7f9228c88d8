#include "agent/jobspec.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agent/payload.h"
#include "core/filecoin/post.h"
#include "core/util/clock.h"

void cuzk_jobspec_init(cuzk_jobspec_t *s, cuzk_proof_type_t type, const char *job_id,
                       const char *circuit, const uint8_t *payload, size_t payload_len) {
  memset(s, 0, sizeof *s);
  cuzk_proof_job_t *j = &s->job;
  j->job_id = (char *)job_id;
  j->proof_type = type;
  j->registered_proof = type == CUZK_PROOF_TYPE_WINDOW_POST ? 5 : 0; /* the 2 KiB member */
  j->sector_size = 2048;
  j->miner_id = 1000;
  j->prover_id = (cuzk_bytes_t){s->prover_id, 32};
  s->sector_id = 1;
  j->sector_ids = &s->sector_id;
  j->n_sector_ids = 1;
  cuzk_payload_sha256(s->randomness, (const uint8_t *)job_id, strlen(job_id));
  j->has_randomness = true;
  j->randomness = (cuzk_bytes_t){s->randomness, 32};
  j->created_at_ms = (int64_t)cuzk_wall_ms();
  j->payload = (cuzk_bytes_t){(uint8_t *)payload, payload_len};
  j->payload_format = type == CUZK_PROOF_TYPE_SNAP_DEALS ? CUZK_PAYLOAD_SNAP_VANILLA_BINCODE
                      : type == CUZK_PROOF_TYPE_POREP_C2 ? CUZK_PAYLOAD_POREP_C1_BINCODE
                                                         : CUZK_PAYLOAD_POST_VANILLA_BINCODE;
  if (circuit) {
    s->labels[0] = (cuzk_label_t){(char *)"circuit", (char *)circuit};
    j->labels = s->labels;
    j->n_labels = 1;
  }
}

void cuzk_jobspec_set_ref(cuzk_jobspec_t *s, const char *uri, const uint8_t *payload,
                          size_t payload_len) {
  snprintf(s->ref_uri, sizeof s->ref_uri, "%s", uri);
  s->job.payload_is_ref = true;
  s->job.payload = (cuzk_bytes_t){NULL, 0};
  s->job.payload_ref.uri = s->ref_uri;
  cuzk_payload_sha256(s->job.payload_ref.sha256, payload, payload_len);
  s->job.payload_ref.size = (int64_t)payload_len;
}

int cuzk_jobspec_set_post(cuzk_jobspec_t *s, int registered_proof, const uint8_t *prover_id,
                          int64_t miner_id, const uint8_t randomness[32], const int64_t *sector_ids,
                          size_t n_sector_ids) {
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(registered_proof);
  cuzk_proof_job_t *j = &s->job;
  bool win = j->proof_type == CUZK_PROOF_TYPE_WINNING_POST;
  if (!info || (j->proof_type != CUZK_PROOF_TYPE_WINDOW_POST && !win) ||
      (info->kind == CUZK_POST_WINNING) != win)
    return -1;
  j->registered_proof = registered_proof;
  j->sector_size = (int64_t)info->sector_size;
  j->miner_id = miner_id;
  if (prover_id) {
    memcpy(s->prover_id, prover_id, 32);
  } else {
    /* filecoin-ffi's prover id: the ID address payload (unsigned LEB128 actor id), zero-padded */
    memset(s->prover_id, 0, 32);
    uint64_t v = (uint64_t)miner_id;
    for (int i = 0; i < 10; i++) {
      s->prover_id[i] = (uint8_t)(v & 0x7f);
      v >>= 7;
      if (!v) break;
      s->prover_id[i] |= 0x80;
    }
  }
  j->prover_id = (cuzk_bytes_t){s->prover_id, 32};
  memcpy(s->randomness, randomness, 32);
  j->has_randomness = true;
  j->randomness = (cuzk_bytes_t){s->randomness, 32};
  j->sector_ids = (int64_t *)sector_ids;
  j->n_sector_ids = n_sector_ids;
  return 0;
}

int cuzk_jobspec_parse_type(const char *s, cuzk_proof_type_t *out) {
  static const char *names[] = {"winning-post", "window-post", "snap-deals", "porep-c2"};
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (cuzk_proof_type_t)i;
      return 1;
    }
  return 0;
}

const char *cuzk_jobspec_status_name(cuzk_result_status_t s) {
  static const char *n[] = {"OK", "REJECTED", "EXPIRED", "FAILED", "CANCELLED"};
  return (unsigned)s < 5 ? n[s] : "?";
}
