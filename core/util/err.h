/* cuzk error codes: one enum for the whole project.
 *
 * Every fallible function returns cuzk_err_t (CUZK_OK == 0). Constructors that can fail for a
 * reason also take `char *errstr, size_t errstr_size` and write a human sentence there.
 * The table is an X-macro: X(NAME, retriable, "message"). Append new codes at the end of their
 * group; never renumber (codes appear in telemetry and dead-letter records).
 */
#ifndef CUZK_UTIL_ERR_H
#define CUZK_UTIL_ERR_H

#include <stdbool.h>
#include <stddef.h>

#define CUZK_ERR_MAP(X)                                                                      \
  /* generic */                                                                              \
  X(OK, false, "success")                                                                    \
  X(NOMEM, true, "out of memory")                                                            \
  X(INVALID_ARG, false, "invalid argument")                                                  \
  X(IO, true, "input/output error")                                                          \
  X(NOT_FOUND, false, "not found")                                                           \
  X(TOO_LARGE, false, "input exceeds the size limit")                                        \
  X(TRUNCATED, false, "input is truncated")                                                  \
  X(TIMEOUT, true, "timed out")                                                              \
  X(CLOSED, false, "closed")                                                                 \
  X(BUSY, true, "resource busy, try again")                                                  \
  X(CANCELLED, false, "cancelled")                                                           \
  X(UNSUPPORTED, false, "not supported")                                                     \
  X(INTERNAL, false, "internal error")                                                       \
  X(PARSE, false, "malformed input")                                                         \
  X(CONFIG, false, "configuration error")                                                    \
  X(USAGE, false, "usage error")                                                             \
  X(CHECKSUM, false, "checksum mismatch")                                                    \
  X(VERSION, false, "unsupported format version")                                            \
  /* encodings and arithmetic */                                                             \
  X(NON_CANONICAL, false, "field element is not canonical (not below the modulus)")          \
  X(BAD_FLAGS, false, "point encoding has invalid flag bits")                                \
  X(NOT_ON_CURVE, false, "point is not on the curve")                                        \
  X(NOT_IN_SUBGROUP, false, "point is not in the prime-order subgroup")                      \
  X(NO_SQRT, false, "element has no square root")                                            \
  X(NOT_INVERTIBLE, false, "element is not invertible")                                      \
  /* circuits, proofs, parameters */                                                         \
  X(UNSATISFIED, false, "constraint system is not satisfied")                                \
  X(BAD_PARAMS, false, "parameters file is invalid")                                         \
  X(INSECURE_PARAMS, false, "parameters come from an insecure test setup")                   \
  X(BAD_PROOF, false, "proof is malformed")                                                  \
  X(VERIFY_FAILED, false, "proof did not verify")                                            \
  X(BAD_VANILLA, false, "vanilla proof is invalid")                                          \
  X(BAD_JOB, false, "job is invalid")                                                        \
  X(EXPIRED, false, "job deadline passed")                                                   \
  /* engine and devices */                                                                   \
  X(BUDGET, true, "memory budget exhausted")                                                 \
  X(GPU, true, "GPU error")                                                                  \
  X(NO_DEVICE, false, "no GPU device present")                                               \
  X(BACKEND, true, "proving backend failed")                                                 \
  /* agent */                                                                                \
  X(KAFKA, true, "Kafka error")                                                              \
  X(AVRO, false, "Avro encoding error")                                                      \
  X(SCHEMA, false, "unknown or incompatible schema")                                         \
  X(HTTP, true, "HTTP error")

typedef enum {
#define CUZK__ERR_ENUM(name, retriable, msg) CUZK_ERR_##name,
  CUZK_ERR_MAP(CUZK__ERR_ENUM)
#undef CUZK__ERR_ENUM
  CUZK_ERR__COUNT
} cuzk_err_t;

#define CUZK_OK CUZK_ERR_OK

/* A static human-readable message for `err`; "unknown error" for values outside the enum. */
const char *cuzk_err_str(cuzk_err_t err);
/* The code's name, e.g. "CUZK_ERR_NOT_ON_CURVE"; "CUZK_ERR_UNKNOWN" outside the enum. */
const char *cuzk_err_name(cuzk_err_t err);
/* True when repeating the same operation later may succeed (I/O, memory, timeouts, GPU). */
bool cuzk_err_is_retriable(cuzk_err_t err);

/* Formats into errstr (when non-NULL and errstr_size > 0), printf-style, always NUL-terminated.
 * Returns `err` so callers can write `return cuzk_errf(CUZK_ERR_IO, errstr, n, "...", ...);`. */
cuzk_err_t cuzk_errf(cuzk_err_t err, char *errstr, size_t errstr_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
