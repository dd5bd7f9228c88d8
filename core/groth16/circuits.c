#include "core/groth16/circuits.h"

#include <assert.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "core/circuits/post.h"
#include "core/circuits/synthetic.h"
#include "core/filecoin/post_job.h"
#include "core/filecoin/vanilla.h"

/* ---- synthetic ------------------------------------------------------------------------ */

static int synthetic_id(char *buf, size_t size, const cuzk_circuit_opts_t *o) {
  return snprintf(buf, size, "synthetic{log_n=%u,public=%u,seed=%llu}", o->log_n, o->num_public,
                  (unsigned long long)o->seed);
}

static cuzk_err_t synthetic_synth(cuzk_cs_t *cs, const cuzk_circuit_opts_t *o, const uint8_t *input,
                                  size_t input_len, uint32_t partition, char *errstr,
                                  size_t errstr_size) {
  (void)input_len;
  (void)partition; /* every partition of a synthetic job is the same circuit and witness */
  if (input)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                     "the synthetic circuit takes no input (its witness comes from the seed)");
  if (o->log_n < 2 || o->log_n > 30)
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "log_n %u outside 2..30", o->log_n);
  if (((uint64_t)o->num_public + 2) * 2 > (1ull << o->log_n))
    return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "%u public inputs do not fit 2^%u",
                     o->num_public, o->log_n);
  cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(o->log_n, o->num_public),
                               o->num_public, o->seed};
  return cuzk_synthetic_build(cs, &p, errstr, errstr_size);
}

static const cuzk_circuit_t cuzk__circuit_synthetic = {
    "synthetic",
    "random satisfiable R1CS with a Filecoin-like profile (domain 2^log_n)",
    {.log_n = 10, .num_public = 4, .seed = 1},
    synthetic_id,
    synthetic_synth,
    NULL,
};

/* ---- FallbackPoSt (core/circuits/post.h) ------------------------------------------------ */

/* The registered proof each PoSt circuit stands for (the circuit is the same for a window
 * proof's V1 and V1_1). */
static const cuzk_post_proof_info_t *post_info_of(const char *name) {
  int id = strcmp(name, "winning-post-2k") == 0    ? 0
           : strcmp(name, "winning-post-32g") == 0 ? 3
           : strcmp(name, "window-post-2k") == 0   ? 10
                                                   : 13;
  return cuzk_filecoin_post_info(id);
}


static int post_id(char *buf, size_t size, const char *name) {
  const cuzk_post_proof_info_t *in = post_info_of(name);
  return snprintf(buf, size, "fallback-post{%s,proof=%d,sector_size=%llu,sectors=%u,challenges=%u}",
                  name, in->id, (unsigned long long)in->sector_size, in->sectors_per_partition,
                  in->challenges_per_sector);
}

/* The input of a PoSt circuit: an encoded PoSt job (core/filecoin/post_job.h: checked against
 * the job and split into partitions), or raw vanilla bytes (`cuzk prove`): one bincode
 * FallbackPoStSectorProof or a Vec of them, split into partitions without job checks. */
typedef struct {
  cuzk_post_job_t *job;
  cuzk_vanilla_post_t *raw;
  uint32_t partitions;
} post_input_t;

static void post_input_free(post_input_t *in) {
  cuzk_post_job_free(in->job);
  cuzk_vanilla_post_free(in->raw);
}

static cuzk_err_t post_input_open(post_input_t *in, const cuzk_post_proof_info_t *info,
                                  const char *name, const uint8_t *input, size_t input_len,
                                  char *errstr, size_t errstr_size) {
  memset(in, 0, sizeof *in);
  cuzk_err_t e;
  if (cuzk_post_job_is_encoded(input, input_len)) {
    e = cuzk_post_job_open(&in->job, input, input_len, errstr, errstr_size);
    if (e != CUZK_OK) return e;
    const cuzk_post_proof_info_t *ji = in->job->info;
    if (ji->kind != info->kind || ji->sector_size != info->sector_size) {
      e = cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size,
                    "RegisteredPoStProof %d (%s) is not proven by circuit %s", ji->id, ji->name,
                    name);
      post_input_free(in);
      return e;
    }
    in->partitions = in->job->partitions;
    return CUZK_OK;
  }
  /* one bincode FallbackPoStSectorProof, or a Vec of them */
  e = cuzk_vanilla_post_decode(&in->raw, input, input_len, errstr, errstr_size);
  if (e != CUZK_OK) {
    char vec_err[8];
    if (cuzk_vanilla_post_decode_vec(&in->raw, input, input_len, vec_err, sizeof vec_err) !=
        CUZK_OK)
      return e;
  }
  in->partitions = cuzk_post_job_partition_count(info, in->raw->n_items);
  if (in->raw->n_items == 0 || (info->kind == CUZK_POST_WINNING && in->raw->n_items != 1)) {
    e = cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size, "%zu sector proofs for %s",
                  in->raw->n_items, name);
    post_input_free(in);
    return e;
  }
  return CUZK_OK;
}

static cuzk_err_t post_partitions(const char *name, uint32_t *out, const uint8_t *input,
                                  size_t input_len, char *errstr, size_t errstr_size) {
  *out = 1;
  if (!input) return CUZK_OK;
  post_input_t in;
  cuzk_err_t e = post_input_open(&in, post_info_of(name), name, input, input_len, errstr,
                                 errstr_size);
  if (e != CUZK_OK) return e;
  *out = in.partitions;
  post_input_free(&in);
  return CUZK_OK;
}

static cuzk_err_t post_synth(const char *name, cuzk_cs_t *cs, const cuzk_circuit_opts_t *o,
                             const uint8_t *input, size_t input_len, uint32_t partition,
                             char *errstr, size_t errstr_size) {
  (void)o;
  const cuzk_post_proof_info_t *info = post_info_of(name);
  if (!input) {
    if (partition != 0)
      return cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size,
                       "partition %u of a blank circuit", partition);
    return cuzk_post_circuit_build(cs, info, NULL, errstr, errstr_size);
  }
  post_input_t in;
  cuzk_err_t e = post_input_open(&in, info, name, input, input_len, errstr, errstr_size);
  if (e != CUZK_OK) return e;
  if (partition >= in.partitions) {
    e = cuzk_errf(CUZK_ERR_INVALID_ARG, errstr, errstr_size, "partition %u of a %u-partition job",
                  partition, in.partitions);
  } else {
    cuzk_vanilla_post_t view = {0};
    if (in.job) {
      e = cuzk_post_job_check_partition(in.job, partition, errstr, errstr_size);
      cuzk_post_job_partition(&view, in.job, partition);
    } else {
      size_t spp = info->kind == CUZK_POST_WINNING ? 1 : info->sectors_per_partition;
      size_t first = (size_t)partition * spp, left = in.raw->n_items - first;
      view.items = in.raw->items + first;
      view.n_items = left < spp ? left : spp;
    }
    if (e == CUZK_OK) e = cuzk_post_circuit_build(cs, info, &view, errstr, errstr_size);
  }
  post_input_free(&in);
  return e;
}

#define POST_CIRCUIT(fn, cname)                                                                \
  static int post_id_##fn(char *buf, size_t size, const cuzk_circuit_opts_t *o) {              \
    (void)o;                                                                                   \
    return post_id(buf, size, cname);                                                          \
  }                                                                                            \
  static cuzk_err_t post_synth_##fn(cuzk_cs_t *cs, const cuzk_circuit_opts_t *o,               \
                                    const uint8_t *input, size_t input_len, uint32_t part,     \
                                    char *errstr, size_t errstr_size) {                        \
    return post_synth(cname, cs, o, input, input_len, part, errstr, errstr_size);              \
  }                                                                                            \
  static cuzk_err_t post_parts_##fn(uint32_t *out, const cuzk_circuit_opts_t *o,               \
                                    const uint8_t *input, size_t input_len, char *errstr,      \
                                    size_t errstr_size) {                                      \
    (void)o;                                                                                   \
    return post_partitions(cname, out, input, input_len, errstr, errstr_size);                 \
  }

POST_CIRCUIT(2k_win, "winning-post-2k")
POST_CIRCUIT(2k_wdw, "window-post-2k")
POST_CIRCUIT(32g_win, "winning-post-32g")
POST_CIRCUIT(32g_wdw, "window-post-32g")

static const cuzk_circuit_t cuzk__circuit_winning_post_2k = {
    "winning-post-2k", "Filecoin WinningPoSt, 2KiB sectors (66 x 1 challenge; input: vanilla proof)",
    {0}, post_id_2k_win, post_synth_2k_win, post_parts_2k_win};
static const cuzk_circuit_t cuzk__circuit_window_post_2k = {
    "window-post-2k",
    "Filecoin WindowPoSt partition, 2KiB sectors (2 sectors x 10 challenges; input: vanilla)",
    {0}, post_id_2k_wdw, post_synth_2k_wdw, post_parts_2k_wdw};
static const cuzk_circuit_t cuzk__circuit_winning_post_32g = {
    "winning-post-32g", "Filecoin WinningPoSt, 32GiB sectors (66 x 1 challenge; input: vanilla)",
    {0}, post_id_32g_win, post_synth_32g_win, post_parts_32g_win};
static const cuzk_circuit_t cuzk__circuit_window_post_32g = {
    "window-post-32g",
    "Filecoin WindowPoSt partition, 32GiB sectors (2349 sectors x 10 challenges; input: vanilla)",
    {0}, post_id_32g_wdw, post_synth_32g_wdw, post_parts_32g_wdw};

/* ---- registry ------------------------------------------------------------------------- */

const cuzk_circuit_t *const cuzk_circuits[] = {
    &cuzk__circuit_synthetic,
    &cuzk__circuit_winning_post_2k,
    &cuzk__circuit_window_post_2k,
    &cuzk__circuit_winning_post_32g,
    &cuzk__circuit_window_post_32g,
    NULL,
};

const cuzk_circuit_t *cuzk_circuit_find(const char *name) {
  for (size_t i = 0; cuzk_circuits[i]; i++)
    if (strcmp(cuzk_circuits[i]->name, name) == 0) return cuzk_circuits[i];
  return NULL;
}

void cuzk_circuit_file_stem(char *buf, size_t size, const cuzk_circuit_t *c,
                            const cuzk_circuit_opts_t *o) {
  char id[512];
  int n = c->identifier(id, sizeof id, o);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof id) n = sizeof id - 1;
  uint8_t md[32];
  unsigned mlen = 0;
  EVP_Digest(id, (size_t)n, md, &mlen, EVP_sha256(), NULL);
  char hex[65];
  for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
  snprintf(buf, size, "v28-cuzk-%s-%s", c->name, hex);
}

cuzk_err_t cuzk_circuit_record(cuzk_r1cs_t **out, const cuzk_circuit_t *c,
                               const cuzk_circuit_opts_t *o, char *errstr, size_t errstr_size) {
  *out = NULL;
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD, errstr, errstr_size);
  if (!cs) return CUZK_ERR_NOMEM;
  cuzk_err_t e = c->synthesize(cs, o, NULL, 0, 0, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_finish(cs, out, errstr, errstr_size);
  cuzk_cs_free(cs);
  return e;
}

cuzk_err_t cuzk_circuit_partitions(uint32_t *out, const cuzk_circuit_t *c,
                                   const cuzk_circuit_opts_t *o, const uint8_t *input,
                                   size_t input_len, char *errstr, size_t errstr_size) {
  assert(out && c && o);
  *out = 1;
  if (!c->partitions) return CUZK_OK;
  return c->partitions(out, o, input, input_len, errstr, errstr_size);
}

cuzk_err_t cuzk_circuit_witness_part(cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                     uint64_t *n_aux, const cuzk_circuit_t *c,
                                     const cuzk_circuit_opts_t *o, const uint8_t *input,
                                     size_t input_len, uint32_t partition, char *errstr,
                                     size_t errstr_size) {
  *inputs = *aux = NULL;
  *n_inputs = *n_aux = 0;
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_WITNESS, errstr, errstr_size);
  if (!cs) return CUZK_ERR_NOMEM;
  cuzk_err_t e = c->synthesize(cs, o, input, input_len, partition, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_error(cs, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_take_witness(cs, inputs, n_inputs, aux, n_aux);
  cuzk_cs_free(cs);
  return e;
}

cuzk_err_t cuzk_circuit_witness(cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                uint64_t *n_aux, const cuzk_circuit_t *c,
                                const cuzk_circuit_opts_t *o, const uint8_t *input,
                                size_t input_len, char *errstr, size_t errstr_size) {
  return cuzk_circuit_witness_part(inputs, n_inputs, aux, n_aux, c, o, input, input_len, 0,
                                   errstr, errstr_size);
}
