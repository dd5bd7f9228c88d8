/* Engine-internal: how the engine names, records and synthesizes circuits.
 *
 * A circuit id is "<name>-<log_n>" (e.g. "synthetic-14") or "<name>" (the circuit's default
 * size). Files for a circuit in params_dir / the PCE cache are "<stem>.params" / "<stem>.pce"
 * with the stem of `cuzk setup` ("v28-cuzk-<name>-<sha256(identifier)>").
 *
 * Thread-safe: everything here is pure or allocates per call.
 */
#ifndef CUZK_ENGINE_ENGINE_CIRCUIT_H
#define CUZK_ENGINE_ENGINE_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine/types.h"
#include "core/ff/fr.h"
#include "core/groth16/circuits.h"
#include "core/r1cs/r1cs.h"
#include "core/util/err.h"

typedef struct {
  char id[128];     /* canonical id: "<name>-<log_n>" */
  char name[64];
  char stem[160];   /* file stem */
  const cuzk_circuit_t *circuit; /* the registry entry (core/groth16/circuits.h) */
  cuzk_circuit_opts_t opts;
  cuzk_proof_type_t type;
  uint32_t default_partitions;
} cuzk__ecircuit_t;

/* Resolves `id`. CUZK_ERR_BAD_JOB for an unknown circuit or a bad size. */
cuzk_err_t cuzk__ecircuit_resolve(cuzk__ecircuit_t *out, const char *id, char *errstr, size_t errstr_size);
/* Record mode: the matrices (caller frees). */
cuzk_err_t cuzk__ecircuit_record(const cuzk__ecircuit_t *c, cuzk_r1cs_t **out, char *errstr,
                                 size_t errstr_size);
/* Witness mode for partition `partition` of a job with `payload` (may be empty): malloc'd inputs
 * (ONE first) and aux (caller frees). CUZK_ERR_BAD_VANILLA / BAD_JOB for a bad payload. */
cuzk_err_t cuzk__ecircuit_witness(const cuzk__ecircuit_t *c, const uint8_t *payload, size_t payload_len,
                                  uint32_t partition, cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                  uint64_t *n_aux, char *errstr, size_t errstr_size);

/* Same contract as cuzk__ecircuit_witness, with the circuit's recorded matrices `r` (may be
 * NULL) as a shortcut where the circuit has one: the synthetic circuit evaluates its witness
 * from them (cuzk_synthetic_witness_r1cs, same values, no builder); every other case, and matrices
 * that do not fit, go through the builder. */
cuzk_err_t cuzk__ecircuit_witness_pce(const cuzk__ecircuit_t *c, const cuzk_r1cs_t *r, const uint8_t *payload,
                                      size_t payload_len, uint32_t partition, cuzk_fr_t **inputs,
                                      uint64_t *n_inputs, cuzk_fr_t **aux, uint64_t *n_aux, char *errstr,
                                      size_t errstr_size);

/* The partitions of a job with `payload` (may be empty), validating the payload in full (PoSt:
 * core/filecoin/post_job.h): 1 for circuits without a partition rule. The circuit's typed error
 * (BAD_JOB, BAD_VANILLA, TRUNCATED, ...) otherwise. */
cuzk_err_t cuzk__ecircuit_partitions(const cuzk__ecircuit_t *c, const uint8_t *payload,
                                     size_t payload_len, uint32_t *out, char *errstr,
                                     size_t errstr_size);

#endif
