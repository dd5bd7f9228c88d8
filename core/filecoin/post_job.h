/* A PoSt proving job as the engine receives it: the job's context (registered proof, prover id,
 * randomness, challenged sector ids) together with the vanilla proofs, so that the registry's
 * PoSt circuits can check the vanilla proofs against the job and build each partition.
 *
 * Vanilla payload of a ProofJob (what orchestrators send; DESIGN §5): bincode
 * Vec<FallbackPoStSectorProof> (u64 LE count, then the items back to back), one item per
 * challenged sector in the order of the job's sector_ids; a single bare FallbackPoStSectorProof
 * is accepted where the job has one sector. Each item holds exactly one SectorProof with the
 * proof type's challenges (66 for WinningPoSt, 10 for WindowPoSt).
 *
 * Engine payload (this module's encoding; internal, little-endian):
 *   "CZPJ" | u32 version = 1 | i64 registered_proof | prover_id [32] | randomness [32] |
 *   u64 n | n x u64 sector_id | u64 vanilla_len | vanilla bytes (exactly to the end)
 *
 * Partitions: WinningPoSt 1; WindowPoSt ceil(n / sectors_per_partition), partition k holds the
 * sectors k*spp .. min(n, (k+1)*spp) - 1 (the circuit pads a short partition by repeating its
 * last sector). The prover id is carried but does not enter the circuit.
 *
 * Ownership: cuzk_post_job_t owns its sector ids and decoded vanilla; free with
 * cuzk_post_job_free. Encoded buffers are malloc'd for the caller. Threads: reentrant; an opened
 * job may be read from any thread.
 */
#ifndef CUZK_FILECOIN_POST_JOB_H
#define CUZK_FILECOIN_POST_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/filecoin/post.h"
#include "core/filecoin/vanilla.h"
#include "core/util/err.h"

#define CUZK_POST_JOB_MAGIC "CZPJ"
#define CUZK_POST_JOB_VERSION 1u
/* magic 4 + version 4 + proof 8 + prover 32 + randomness 32 + count 8 + vanilla length 8 */
#define CUZK_POST_JOB_HEADER_BYTES 96u
/* Jobs with at most this many inclusion paths (sectors x challenges) have every path hashed at
 * open (WinningPoSt: 66); larger ones (a 32GiB WindowPoSt partition has 23,490, ~10 s of
 * Poseidon) have theirs hashed per partition by cuzk_post_job_check_partition, on the worker
 * that synthesizes it. */
#define CUZK_POST_JOB_ADMIT_PATHS 4096u

typedef struct {
  int64_t registered_proof;
  const uint8_t *prover_id;  /* 32 bytes */
  const uint8_t *randomness; /* 32 bytes, a canonical little-endian Fr as given to the prover */
  const uint64_t *sector_ids;
  size_t n_sector_ids;
  const uint8_t *vanilla; /* the ProofJob payload */
  size_t vanilla_len;
} cuzk_post_job_spec_t;

typedef struct {
  const cuzk_post_proof_info_t *info;
  uint8_t prover_id[32], randomness[32];
  uint64_t *sector_ids;
  size_t n_sectors;
  cuzk_vanilla_post_t *vanilla; /* n_sectors items, in sector_ids order */
  uint32_t partitions;
  bool paths_verified; /* open() hashed every inclusion path (small jobs) */
} cuzk_post_job_t;

/* The registry circuit for a registered PoSt proof ("winning-post-2k", "window-post-32g", ...),
 * or NULL when this build has none for it. */
const char *cuzk_post_job_circuit(const cuzk_post_proof_info_t *info);

/* Partitions for n sectors of `info`: 1 for WinningPoSt, ceil(n / spp) for WindowPoSt. */
uint32_t cuzk_post_job_partition_count(const cuzk_post_proof_info_t *info, size_t n_sectors);

/* Encodes `spec` (the engine payload above) into a malloc'd *out. CUZK_ERR_NOMEM. */
cuzk_err_t cuzk_post_job_encode(uint8_t **out, size_t *out_len, const cuzk_post_job_spec_t *spec);

/* True when buf starts with the engine payload's magic. */
bool cuzk_post_job_is_encoded(const uint8_t *buf, size_t len);

/* Decodes an engine payload and checks the vanilla proofs against the job, all sectors:
 * CUZK_ERR_BAD_JOB (bad header, unknown registered proof, no sectors, more than one sector for
 * WinningPoSt, non-canonical randomness), CUZK_ERR_BAD_VANILLA (undecodable vanilla, sector
 * count or ids differ from the job's, a sector without exactly one SectorProof of the type's
 * challenge count, wrong tree shape, comm_r != Poseidon2(comm_c, comm_r_last), a challenged leaf
 * (spelled by the path indices) that differs from the derivation from the job's randomness, an
 * inclusion path that does not hash to comm_r_last: small jobs only, see
 * CUZK_POST_JOB_ADMIT_PATHS), or the decoder's TRUNCATED / TOO_LARGE; NOMEM. The sentence names the
 * sector and challenge. *out is NULL on error. */
cuzk_err_t cuzk_post_job_open(cuzk_post_job_t **out, const uint8_t *buf, size_t len, char *errstr,
                              size_t errstr_size);

void cuzk_post_job_free(cuzk_post_job_t *job);

/* Hashes the inclusion paths of partition k's sectors unless open() did (paths_verified):
 * CUZK_ERR_BAD_VANILLA naming the sector and challenge. Asserts k < job->partitions. */
cuzk_err_t cuzk_post_job_check_partition(const cuzk_post_job_t *job, uint32_t k, char *errstr,
                                         size_t errstr_size);

/* A view (no copy; valid while `job` lives) of partition `k`'s sectors, for
 * cuzk_post_circuit_build. Asserts k < job->partitions. */
void cuzk_post_job_partition(cuzk_vanilla_post_t *view, const cuzk_post_job_t *job, uint32_t k);

#endif
