#include "core/groth16/circuits.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "core/circuits/synthetic.h"

/* ---- synthetic ------------------------------------------------------------------------ */

static int synthetic_id(char *buf, size_t size, const cuzk_circuit_opts_t *o) {
  return snprintf(buf, size, "synthetic{log_n=%u,public=%u,seed=%llu}", o->log_n, o->num_public,
                  (unsigned long long)o->seed);
}

static cuzk_err_t synthetic_synth(cuzk_cs_t *cs, const cuzk_circuit_opts_t *o, const uint8_t *input,
                                  size_t input_len, char *errstr, size_t errstr_size) {
  (void)input_len;
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
};

/* ---- registry ------------------------------------------------------------------------- */

const cuzk_circuit_t *const cuzk_circuits[] = {
    &cuzk__circuit_synthetic,
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
  cuzk_err_t e = c->synthesize(cs, o, NULL, 0, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_finish(cs, out, errstr, errstr_size);
  cuzk_cs_free(cs);
  return e;
}

cuzk_err_t cuzk_circuit_witness(cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                uint64_t *n_aux, const cuzk_circuit_t *c,
                                const cuzk_circuit_opts_t *o, const uint8_t *input,
                                size_t input_len, char *errstr, size_t errstr_size) {
  *inputs = *aux = NULL;
  *n_inputs = *n_aux = 0;
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_WITNESS, errstr, errstr_size);
  if (!cs) return CUZK_ERR_NOMEM;
  cuzk_err_t e = c->synthesize(cs, o, input, input_len, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_error(cs, errstr, errstr_size);
  if (e == CUZK_OK) e = cuzk_cs_take_witness(cs, inputs, n_inputs, aux, n_aux);
  cuzk_cs_free(cs);
  return e;
}
