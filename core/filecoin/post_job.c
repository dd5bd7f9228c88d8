#include "core/filecoin/post_job.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ff/fr.h"

#define GIB (UINT64_C(1) << 30)

const char *cuzk_post_job_circuit(const cuzk_post_proof_info_t *info) {
  if (!info) return NULL;
  bool win = info->kind == CUZK_POST_WINNING;
  if (info->sector_size == 2048) return win ? "winning-post-2k" : "window-post-2k";
  if (info->sector_size == 32 * GIB) return win ? "winning-post-32g" : "window-post-32g";
  return NULL;
}

uint32_t cuzk_post_job_partition_count(const cuzk_post_proof_info_t *info, size_t n_sectors) {
  assert(info && info->sectors_per_partition > 0);
  if (info->kind == CUZK_POST_WINNING) return 1;
  size_t spp = info->sectors_per_partition;
  return (uint32_t)((n_sectors + spp - 1) / spp);
}

static void le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rd64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

cuzk_err_t cuzk_post_job_encode(uint8_t **out, size_t *out_len, const cuzk_post_job_spec_t *spec) {
  assert(out && out_len && spec && spec->prover_id && spec->randomness);
  assert(spec->n_sector_ids == 0 || spec->sector_ids);
  *out = NULL;
  *out_len = 0;
  size_t n = CUZK_POST_JOB_HEADER_BYTES + 8 * spec->n_sector_ids + spec->vanilla_len;
  uint8_t *b = malloc(n ? n : 1);
  if (!b) return CUZK_ERR_NOMEM;
  uint8_t *p = b;
  memcpy(p, CUZK_POST_JOB_MAGIC, 4);
  p[4] = CUZK_POST_JOB_VERSION, p[5] = p[6] = p[7] = 0;
  le64(p + 8, (uint64_t)spec->registered_proof);
  memcpy(p + 16, spec->prover_id, 32);
  memcpy(p + 48, spec->randomness, 32);
  le64(p + 80, spec->n_sector_ids);
  p += 88;
  for (size_t i = 0; i < spec->n_sector_ids; i++, p += 8) le64(p, spec->sector_ids[i]);
  le64(p, spec->vanilla_len);
  p += 8;
  if (spec->vanilla_len) memcpy(p, spec->vanilla, spec->vanilla_len);
  *out = b;
  *out_len = n;
  return CUZK_OK;
}

bool cuzk_post_job_is_encoded(const uint8_t *buf, size_t len) {
  return buf && len >= 4 && memcmp(buf, CUZK_POST_JOB_MAGIC, 4) == 0;
}

void cuzk_post_job_free(cuzk_post_job_t *job) {
  if (!job) return;
  cuzk_vanilla_post_free(job->vanilla);
  free(job->sector_ids);
  free(job);
}

/* The leaf position a path's indices spell, after checking the MerkleProof's variant and every
 * path length, sibling count and index against `shape` (no hashing). */
static cuzk_err_t path_leaf(const cuzk_merkle_proof_t *p, const cuzk_tree_shape_t *shape,
                            uint64_t *leaf, char *errstr, size_t errstr_size) {
  cuzk_merkle_kind_t want = shape->top_arity   ? CUZK_MERKLE_TOP
                            : shape->sub_arity ? CUZK_MERKLE_SUB
                                               : CUZK_MERKLE_SINGLE;
  if (p->kind != want)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "MerkleProof variant %d, the tree shape needs %d", (int)p->kind, (int)want);
  const cuzk_vanilla_path_t *paths[3] = {&p->base, &p->sub, &p->top};
  unsigned arity[3] = {shape->base_arity, shape->sub_arity, shape->top_arity};
  size_t len[3] = {shape->base_height, shape->sub_arity ? 1u : 0u, shape->top_arity ? 1u : 0u};
  uint64_t pos = 0, scale = 1;
  for (int k = 0; k < 3; k++) {
    if (paths[k]->len != len[k])
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                       "path %d has %zu levels, the tree shape needs %zu", k, paths[k]->len,
                       len[k]);
    for (size_t l = 0; l < len[k]; l++) {
      const cuzk_vanilla_path_elem_t *e = &paths[k]->elems[l];
      if (e->n_hashes != arity[k] - 1 || e->index >= arity[k])
        return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                         "path %d level %zu: %zu siblings, index %llu for arity %u", k, l,
                         e->n_hashes, (unsigned long long)e->index, arity[k]);
      pos += e->index * scale;
      scale *= arity[k];
    }
  }
  *leaf = pos;
  return CUZK_OK;
}

/* Checks sector i of the job against its vanilla proof (see cuzk_post_job_open); the inclusion
 * paths are hashed only when `hash_paths`. */
static cuzk_err_t check_sector(const cuzk_post_job_t *j, size_t i, bool hash_paths, char *errstr,
                               size_t errstr_size) {
  const cuzk_post_proof_info_t *info = j->info;
  const cuzk_post_sector_proof_t *it = &j->vanilla->items[i];
  if (it->sector_id != j->sector_ids[i])
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "vanilla proof %zu is for sector %llu, the job names sector %llu", i,
                     (unsigned long long)it->sector_id, (unsigned long long)j->sector_ids[i]);
  if (it->n_sectors != 1)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "sector %llu: %zu sector proofs, expected 1",
                     (unsigned long long)it->sector_id, it->n_sectors);
  const cuzk_sector_proof_t *sp = &it->sectors[0];
  if (sp->n_proofs != info->challenges_per_sector)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "sector %llu: %zu inclusion proofs, %s has %u challenges per sector",
                     (unsigned long long)it->sector_id, sp->n_proofs, info->name,
                     info->challenges_per_sector);
  cuzk_err_t e = cuzk_vanilla_comm_r_check(sp->comm_c, sp->comm_r_last, it->comm_r, NULL);
  if (e != CUZK_OK)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "sector %llu: comm_r is not Poseidon2(comm_c, comm_r_last) (%s)",
                     (unsigned long long)it->sector_id, cuzk_err_name(e));
  uint64_t want[66];
  assert(info->challenges_per_sector <= 66);
  uint64_t sector_index = info->kind == CUZK_POST_WINNING ? 0 : i;
  cuzk_filecoin_sector_challenges(want, info, j->randomness, it->sector_id, sector_index);
  for (size_t c = 0; c < sp->n_proofs; c++) {
    uint64_t leaf = 0;
    char why[256];
    e = path_leaf(&sp->proofs[c], &info->shape, &leaf, why, sizeof why);
    if (e == CUZK_OK && hash_paths)
      e = cuzk_vanilla_merkle_verify(&sp->proofs[c], &info->shape, sp->comm_r_last, NULL, why,
                                     sizeof why);
    if (e != CUZK_OK)
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size, "sector %llu challenge %zu: %s",
                       (unsigned long long)it->sector_id, c, why);
    if (leaf != want[c])
      return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                       "sector %llu challenge %zu: the proof opens leaf %llu, the job's "
                       "randomness challenges leaf %llu",
                       (unsigned long long)it->sector_id, c, (unsigned long long)leaf,
                       (unsigned long long)want[c]);
  }
  return CUZK_OK;
}

cuzk_err_t cuzk_post_job_open(cuzk_post_job_t **out, const uint8_t *buf, size_t len, char *errstr,
                              size_t errstr_size) {
  assert(out);
  *out = NULL;
  if (!buf || len < CUZK_POST_JOB_HEADER_BYTES || !cuzk_post_job_is_encoded(buf, len))
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "not a PoSt job payload");
  if (buf[4] != CUZK_POST_JOB_VERSION || buf[5] || buf[6] || buf[7])
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "PoSt job payload version %u", buf[4]);
  int64_t rp = (int64_t)rd64(buf + 8);
  const cuzk_post_proof_info_t *info = cuzk_filecoin_post_info(rp);
  if (!info)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "unknown RegisteredPoStProof %lld",
                     (long long)rp);
  uint64_t n = rd64(buf + 80);
  size_t rest = len - 88;
  if (n == 0 || n > rest / 8 || rest - 8 * n < 8)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                     "PoSt job payload: %llu sector ids do not fit %zu bytes",
                     (unsigned long long)n, len);
  const uint8_t *ids = buf + 88;
  uint64_t vlen = rd64(ids + 8 * n);
  const uint8_t *van = ids + 8 * n + 8;
  if (vlen != (uint64_t)(buf + len - van))
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                     "PoSt job payload: vanilla length %llu, %zu bytes follow",
                     (unsigned long long)vlen, (size_t)(buf + len - van));
  if (info->kind == CUZK_POST_WINNING && n != 1)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                     "%s proves one sector, the job names %llu", info->name, (unsigned long long)n);
  cuzk_fr_t r;
  if (cuzk_fr_from_le(&r, buf + 48) != CUZK_OK)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                     "randomness is not a canonical field element (mask the top bits as the "
                     "prover's caller does)");
  cuzk_post_job_t *j = calloc(1, sizeof *j);
  if (!j) return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "out of memory");
  j->info = info;
  memcpy(j->prover_id, buf + 16, 32);
  memcpy(j->randomness, buf + 48, 32);
  j->n_sectors = (size_t)n;
  j->sector_ids = malloc(8 * n);
  if (!j->sector_ids) {
    cuzk_post_job_free(j);
    return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "out of memory");
  }
  for (uint64_t i = 0; i < n; i++) j->sector_ids[i] = rd64(ids + 8 * i);
  cuzk_err_t e = cuzk_vanilla_post_decode_vec(&j->vanilla, van, (size_t)vlen, errstr, errstr_size);
  if (e != CUZK_OK && n == 1) {
    char single_err[512];
    if (cuzk_vanilla_post_decode(&j->vanilla, van, (size_t)vlen, single_err, sizeof single_err) ==
        CUZK_OK)
      e = CUZK_OK;
  }
  if (e != CUZK_OK) {
    cuzk_post_job_free(j);
    if (e == CUZK_ERR_NOMEM) return e;
    char why[768];
    snprintf(why, sizeof why, "%s", errstr ? errstr : "");
    return cuzk_errf(e, errstr, errstr_size, "vanilla proofs: %s", why);
  }
  if (j->vanilla->n_items != n) {
    size_t got = j->vanilla->n_items;
    cuzk_post_job_free(j);
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size,
                     "the payload holds %zu sector proofs, the job names %llu sectors", got,
                     (unsigned long long)n);
  }
  j->paths_verified = j->n_sectors * info->challenges_per_sector <= CUZK_POST_JOB_ADMIT_PATHS;
  for (size_t i = 0; i < j->n_sectors; i++) {
    e = check_sector(j, i, j->paths_verified, errstr, errstr_size);
    if (e != CUZK_OK) {
      cuzk_post_job_free(j);
      return e;
    }
  }
  j->partitions = cuzk_post_job_partition_count(info, j->n_sectors);
  *out = j;
  return CUZK_OK;
}

void cuzk_post_job_partition(cuzk_vanilla_post_t *view, const cuzk_post_job_t *job, uint32_t k) {
  assert(view && job && k < job->partitions);
  size_t spp = job->info->kind == CUZK_POST_WINNING ? 1 : job->info->sectors_per_partition;
  size_t first = (size_t)k * spp;
  size_t cnt = job->n_sectors - first < spp ? job->n_sectors - first : spp;
  view->items = job->vanilla->items + first;
  view->n_items = cnt;
  view->arena_ = NULL;
}

cuzk_err_t cuzk_post_job_check_partition(const cuzk_post_job_t *job, uint32_t k, char *errstr,
                                         size_t errstr_size) {
  assert(job && k < job->partitions);
  if (job->paths_verified) return CUZK_OK;
  cuzk_vanilla_post_t view;
  cuzk_post_job_partition(&view, job, k);
  size_t first = (size_t)(view.items - job->vanilla->items);
  for (size_t i = first; i < first + view.n_items; i++) {
    cuzk_err_t e = check_sector(job, i, true, errstr, errstr_size);
    if (e != CUZK_OK) return e;
  }
  return CUZK_OK;
}
