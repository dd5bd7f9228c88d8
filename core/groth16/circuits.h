/* The circuit registry used by `cuzk setup`, `cuzk prove` and `cuzk bench prove`: a table of
 * named circuits, each able to synthesize itself into a builder (core/r1cs/cs.h) in any mode.
 * To add a circuit, define a cuzk_circuit_t and list it in the table in core/groth16/circuits.c.
 *
 * Parameter files are named like rust-fil-proofs' cache: v28-cuzk-<name>-<sha256(identifier)>
 * with .params, .vk (and .params.insecure for test setups), where identifier is the circuit's
 * own description of its shape (including its options).
 *
 * Everything here is immutable and thread-safe.
 */
#ifndef CUZK_GROTH16_CIRCUITS_H
#define CUZK_GROTH16_CIRCUITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/r1cs/cs.h"
#include "core/r1cs/r1cs.h"
#include "core/util/err.h"

/* Shape options; each circuit documents which it reads. */
typedef struct {
  unsigned log_n;      /* size: Groth16 domain 2^log_n (sized circuits) */
  uint32_t num_public; /* public inputs besides ONE (synthetic) */
  uint64_t seed;       /* synthetic: shape and witness seed */
} cuzk_circuit_opts_t;

typedef struct {
  const char *name;
  const char *summary;
  cuzk_circuit_opts_t defaults;
  /* The shape identifier (hashed into file names). Returns the snprintf length. */
  int (*identifier)(char *buf, size_t size, const cuzk_circuit_opts_t *o);
  /* Synthesizes partition `partition` into cs (a fresh builder). `input` (may be NULL) is the
   * job's input, e.g. a vanilla proof; circuits without inputs reject a non-NULL one with
   * CUZK_ERR_INVALID_ARG. */
  cuzk_err_t (*synthesize)(cuzk_cs_t *cs, const cuzk_circuit_opts_t *o, const uint8_t *input,
                           size_t input_len, uint32_t partition, char *errstr, size_t errstr_size);
  /* Validates `input` and gives the job's partition count; NULL: always 1. */
  cuzk_err_t (*partitions)(uint32_t *out, const cuzk_circuit_opts_t *o, const uint8_t *input,
                           size_t input_len, char *errstr, size_t errstr_size);
} cuzk_circuit_t;

/* The registered circuits, NULL-terminated. */
extern const cuzk_circuit_t *const cuzk_circuits[];
/* The circuit called `name`, or NULL. */
const cuzk_circuit_t *cuzk_circuit_find(const char *name);

/* "v28-cuzk-<name>-<64 hex digits>" into buf (>= 128 bytes). */
void cuzk_circuit_file_stem(char *buf, size_t size, const cuzk_circuit_t *c,
                            const cuzk_circuit_opts_t *o);

/* Record mode: the constraint matrices (caller frees *out). */
cuzk_err_t cuzk_circuit_record(cuzk_r1cs_t **out, const cuzk_circuit_t *c,
                               const cuzk_circuit_opts_t *o, char *errstr, size_t errstr_size);
/* Partitions of a job of `c` with `input` (may be NULL), validating the input: 1 for circuits
 * without a partition rule. PoSt circuits: see core/filecoin/post_job.h (an encoded PoSt job is
 * checked in full; a raw vanilla proof list gives ceil(items / sectors per partition)). Errors are
 * the circuit's (BAD_JOB, BAD_VANILLA, TRUNCATED, ...). */
cuzk_err_t cuzk_circuit_partitions(uint32_t *out, const cuzk_circuit_t *c,
                                   const cuzk_circuit_opts_t *o, const uint8_t *input,
                                   size_t input_len, char *errstr, size_t errstr_size);
/* Witness mode for partition `partition` of the job: the inputs (ONE first) and aux values,
 * malloc'd (caller frees both). CUZK_ERR_INVALID_ARG for a partition beyond the job's. */
cuzk_err_t cuzk_circuit_witness_part(cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                     uint64_t *n_aux, const cuzk_circuit_t *c,
                                     const cuzk_circuit_opts_t *o, const uint8_t *input,
                                     size_t input_len, uint32_t partition, char *errstr,
                                     size_t errstr_size);
/* Witness mode for partition 0 (cuzk_circuit_witness_part). */
cuzk_err_t cuzk_circuit_witness(cuzk_fr_t **inputs, uint64_t *n_inputs, cuzk_fr_t **aux,
                                uint64_t *n_aux, const cuzk_circuit_t *c,
                                const cuzk_circuit_opts_t *o, const uint8_t *input,
                                size_t input_len, char *errstr, size_t errstr_size);

#endif
