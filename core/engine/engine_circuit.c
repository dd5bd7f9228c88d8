#include "core/engine/engine_circuit.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/circuits/synthetic.h"
#include "core/r1cs/cs.h"

/* Synthetic circuits take no payload; their shape and witness come from (log_n, public, seed) with
 * the defaults of `cuzk setup` (public 4, seed 1). */
static void ecircuit_stem(cuzk__ecircuit_t *c) {
  char ident[256];
  int n = snprintf(ident, sizeof ident, "synthetic{log_n=%u,public=%u,seed=%llu}", c->log_n, c->num_public,
                   (unsigned long long)c->seed);
  uint8_t md[32];
  unsigned mlen = 0;
  EVP_Digest(ident, (size_t)n, md, &mlen, EVP_sha256(), NULL);
  char hex[65];
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
  snprintf(c->stem, sizeof c->stem, "v28-cuzk-%s-%s", c->name, hex);
}

cuzk_err_t cuzk__ecircuit_resolve(cuzk__ecircuit_t *out, const char *id, char *errstr, size_t errstr_size) {
  memset(out, 0, sizeof *out);
  if (!id || !*id) return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "no circuit id");
  size_t len = strlen(id);
  if (len >= sizeof out->name + 8) return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "circuit id too long");
  const char *dash = strrchr(id, '-');
  unsigned log_n = 10;
  size_t name_len = len;
  if (dash && dash[1]) {
    char *end = NULL;
    unsigned long v = strtoul(dash + 1, &end, 10);
    if (end && *end == '\0') {
      if (v < 4 || v > 30)
        return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "circuit '%s': size 2^%lu outside 2^4..2^30", id, v);
      log_n = (unsigned)v;
      name_len = (size_t)(dash - id);
    }
  }
  if (name_len != strlen("synthetic") || strncmp(id, "synthetic", name_len) != 0)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "unknown circuit '%s'", id);
  snprintf(out->name, sizeof out->name, "synthetic");
  out->log_n = log_n;
  out->num_public = 4;
  out->seed = 1;
  out->type = CUZK_PROOF_SYNTHETIC;
  out->default_partitions = 1;
  snprintf(out->id, sizeof out->id, "%s-%u", out->name, log_n);
  ecircuit_stem(out);
  return CUZK_OK;
}

static cuzk_err_t ecircuit_synth(const cuzk__ecircuit_t *c, cuzk_cs_t *cs, char *errstr, size_t errstr_size) {
  cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(c->log_n, c->num_public), c->num_public,
                               c->seed};
  return cuzk_synthetic_build(cs, &p, errstr, errstr_size);
}

cuzk_err_t cuzk__ecircuit_record(const cuzk__ecircuit_t *c, cuzk_r1cs_t **out, char *errstr,
                                 size_t errstr_size) {
  *out = NULL;
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_RECORD, errstr, errstr_size);
  if (!cs) return CUZK_ERR_NOMEM;
  cuzk_err_t e = ecircuit_synth(c, cs, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_finish(cs, out, errstr, errstr_size);
  cuzk_cs_free(cs);
  return e;
}

cuzk_err_t cuzk__ecircuit_witness(const cuzk__ecircuit_t *c, const uint8_t *payload, size_t payload_len,
                                  uint32_t partition, cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                  uint64_t *n_aux, char *errstr, size_t errstr_size) {
  (void)payload, (void)partition;
  *inputs = *aux = NULL;
  *n_inputs = *n_aux = 0;
  if (payload_len != 0)
    return cuzk_errf(CUZK_ERR_BAD_VANILLA, errstr, errstr_size, "the synthetic circuit takes no payload");
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_WITNESS, errstr, errstr_size);
  if (!cs) return CUZK_ERR_NOMEM;
  cuzk_err_t e = ecircuit_synth(c, cs, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_error(cs, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_take_witness(cs, inputs, n_inputs, aux, n_aux);
  cuzk_cs_free(cs);
  return e;
}
