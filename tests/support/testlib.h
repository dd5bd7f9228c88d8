/* Helpers shared by the test binaries (not part of the product).
 *
 * Conventions: tests use cmocka; random tests take their seed from cuzk_test_seed(), which
 * prints it ("seed=N") and honours CUZK_TEST_SEED for reproduction; exit code 77 means SKIP.
 */
#ifndef CUZK_TESTS_TESTLIB_H
#define CUZK_TESTS_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#define CUZK_TEST_SKIP 77

/* The seed for this run: $CUZK_TEST_SEED if set, else fresh from the clock and pid. Printed
 * once to stderr as "seed=<n>". */
uint64_t cuzk_test_seed(void);

/* A small deterministic PRNG (splitmix64) for test inputs; not for secrets. */
typedef struct {
  uint64_t s;
} cuzk_test_rng_t;
void cuzk_test_rng_init(cuzk_test_rng_t *r, uint64_t seed);
uint64_t cuzk_test_rng_next(cuzk_test_rng_t *r);
void cuzk_test_rng_bytes(cuzk_test_rng_t *r, void *out, size_t n);

/* Directory of ../shared/vectors ($CUZK_VECTORS), or NULL when it is absent. */
const char *cuzk_test_vectors_dir(void);

/* Path of a file under the vectors directory into buf; returns NULL (and prints a clear
 * "SKIP: ..." line) when the vectors are absent. */
const char *cuzk_test_vector_path(char *buf, size_t n, const char *rel);

/* Directory of the npm oracles (tests/oracles), or NULL when node_modules is missing. */
const char *cuzk_test_oracles_dir(void);

/* Runs `node <oracles>/<script>` with `input` on stdin; returns malloc'd stdout (NUL-terminated)
 * or NULL on failure (non-zero exit is a failure). The caller frees. */
char *cuzk_test_run_node(const char *script, const char *input);

/* Runs a shell command with `input` on stdin, capturing stdout (malloc'd) and the exit status. */
char *cuzk_test_run_cmd(const char *cmd, const char *input, int *status);

#endif
