#include "core/engine/engine_circuit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/circuits/synthetic.h"

cuzk_err_t cuzk__ecircuit_resolve(cuzk__ecircuit_t *out, const char *id, char *errstr, size_t errstr_size) {
  memset(out, 0, sizeof *out);
  if (!id || !*id) return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "no circuit id");
  size_t len = strlen(id);
  if (len >= sizeof out->name)
    return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "circuit id '%.40s...' too long", id);
  char name[sizeof out->name];
  memcpy(name, id, len + 1);
  long log_n = -1;
  char *dash = strrchr(name, '-');
  if (dash && dash[1]) {
    char *end = NULL;
    long v = strtol(dash + 1, &end, 10);
    if (end && *end == '\0' && dash[1] >= '0' && dash[1] <= '9') {
      log_n = v;
      *dash = '\0';
    }
  }
  const cuzk_circuit_t *c = cuzk_circuit_find(name);
  if (!c) return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "unknown circuit '%s'", id);
  out->circuit = c;
  out->opts = c->defaults;
  if (log_n >= 0) {
    if (log_n < 4 || log_n > 30)
      return cuzk_errf(CUZK_ERR_BAD_JOB, errstr, errstr_size, "circuit '%s': size 2^%ld outside 2^4..2^30", id,
                       log_n);
    out->opts.log_n = (unsigned)log_n;
  }
  snprintf(out->name, sizeof out->name, "%s", name);
  snprintf(out->id, sizeof out->id, "%s-%u", name, out->opts.log_n);
  cuzk_circuit_file_stem(out->stem, sizeof out->stem, c, &out->opts);
  out->type = strcmp(name, "synthetic") == 0          ? CUZK_PROOF_SYNTHETIC
              : strncmp(name, "winning-post-", 13) == 0 ? CUZK_PROOF_WINNING_POST
              : strncmp(name, "window-post-", 12) == 0  ? CUZK_PROOF_WINDOW_POST
                                                        : CUZK_PROOF__COUNT;
  out->default_partitions = 1;
  return CUZK_OK;
}

cuzk_err_t cuzk__ecircuit_record(const cuzk__ecircuit_t *c, cuzk_r1cs_t **out, char *errstr,
                                 size_t errstr_size) {
  return cuzk_circuit_record(out, c->circuit, &c->opts, errstr, errstr_size);
}

cuzk_err_t cuzk__ecircuit_witness(const cuzk__ecircuit_t *c, const uint8_t *payload, size_t payload_len,
                                  uint32_t partition, cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                  uint64_t *n_aux, char *errstr, size_t errstr_size) {
  cuzk_err_t e = cuzk_circuit_witness_part(inputs, n_inputs, aux, n_aux, c->circuit, &c->opts,
                                           payload_len ? payload : NULL, payload_len, partition,
                                           errstr, errstr_size);
  if (e == CUZK_ERR_INVALID_ARG) e = CUZK_ERR_BAD_VANILLA;
  return e;
}

/* A witness vector of `bytes`, released with free(): large ones are 2 MiB aligned and asked to be
 * backed by huge pages, since first-touch faults on 4 KiB pages cost about as much as computing
 * the values (measured: ≈ 30 ns per 32-byte element on the developer VM). */
static void *eng_witness_alloc(size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  if (bytes < huge) return malloc(bytes ? bytes : 1);
  void *p = NULL;
  if (posix_memalign(&p, huge, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  (void)madvise(p, bytes / huge * huge, MADV_HUGEPAGE);
#endif
  return p;
}

cuzk_err_t cuzk__ecircuit_witness_pce(const cuzk__ecircuit_t *c, const cuzk_r1cs_t *r, const uint8_t *payload,
                                      size_t payload_len, uint32_t partition, cuzk_fr_t **inputs,
                                      uint64_t *n_inputs, cuzk_fr_t **aux, uint64_t *n_aux, char *errstr,
                                      size_t errstr_size) {
  if (r && c->type == CUZK_PROOF_SYNTHETIC && payload_len == 0) {
    cuzk_synthetic_params_t p = {cuzk_synthetic_constraints_for_log(c->opts.log_n, c->opts.num_public),
                                 c->opts.num_public, c->opts.seed};
    uint64_t ni = (uint64_t)p.num_public + 1, na = p.num_constraints;
    cuzk_fr_t *in = malloc(ni * sizeof *in), *ax = eng_witness_alloc(na * sizeof *ax);
    if (!in || !ax) {
      free(in), free(ax);
      return cuzk_errf(CUZK_ERR_NOMEM, errstr, errstr_size, "no memory for a witness of %llu values",
                       (unsigned long long)(ni + na));
    }
    if (cuzk_synthetic_witness_r1cs(r, &p, in, ax, errstr, errstr_size) == CUZK_OK) {
      *inputs = in, *aux = ax, *n_inputs = ni, *n_aux = na;
      return CUZK_OK;
    }
    free(in), free(ax);
  }
  return cuzk__ecircuit_witness(c, payload, payload_len, partition, inputs, n_inputs, aux, n_aux, errstr,
                                errstr_size);
}

cuzk_err_t cuzk__ecircuit_partitions(const cuzk__ecircuit_t *c, const uint8_t *payload,
                                     size_t payload_len, uint32_t *out, char *errstr,
                                     size_t errstr_size) {
  cuzk_err_t e = cuzk_circuit_partitions(out, c->circuit, &c->opts, payload_len ? payload : NULL,
                                         payload_len, errstr, errstr_size);
  if (e == CUZK_ERR_INVALID_ARG) e = CUZK_ERR_BAD_VANILLA;
  return e;
}
