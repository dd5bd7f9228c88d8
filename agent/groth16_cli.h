/* Shared helpers of the Groth16 subcommands (setup, prove, verify, inspect, bench prove).
 * Main thread only. */
#ifndef CUZK_AGENT_GROTH16_CLI_H
#define CUZK_AGENT_GROTH16_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/groth16/circuits.h"

/* Matches argv[*i] against "--name VALUE" or "--name=VALUE". Returns 1 and sets *val (advancing
 * *i past a separate value) on a match, 0 when argv[*i] is another option, -1 when the value
 * is missing. */
int cuzk_g16_opt(int argc, char **argv, int *i, const char *name, const char **val);

/* Parses a decimal unsigned integer in [lo, hi]; false on anything else. */
bool cuzk_g16_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Circuit options from the common flags (--circuit, --log-n, --num-public, --seed). Returns 1 when
 * argv[*i] was one of them (consumed), 0 when not, or CUZK_EXIT_USAGE (2) + 10 on a bad value
 * (after printing the error for `cmd`). */
typedef struct {
  const cuzk_circuit_t *circuit;
  cuzk_circuit_opts_t opts;
  bool have_log_n, have_public, have_seed;
} cuzk_g16_circuit_args_t;
int cuzk_g16_circuit_arg(const char *cmd, int argc, char **argv, int *i,
                         cuzk_g16_circuit_args_t *a);
/* Applies the circuit's defaults to options not given. */
void cuzk_g16_circuit_finish(cuzk_g16_circuit_args_t *a);

/* Resolves `params` (a directory or a file) to a file with extension `ext` (".params" or ".vk"):
 * a file is taken as is; in a directory the circuit's stem is used when `ca` has a circuit,
 * else the only file with that extension. Writes the path to buf; false (with a message on
 * stderr) when nothing or more than one file matches. */
bool cuzk_g16_resolve(char *buf, size_t size, const char *params, const char *ext,
                      const cuzk_g16_circuit_args_t *ca, const char *cmd);

/* Writes text to path atomically; false with a message on stderr. */
bool cuzk_g16_write_text(const char *path, const char *text, const char *cmd);

#endif
