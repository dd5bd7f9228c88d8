/* The `cuzk` command line: subcommand table, exit codes, shared option helpers. */
#ifndef CUZK_AGENT_CLI_H
#define CUZK_AGENT_CLI_H

#include <stdio.h>

/* Documented exit codes of every subcommand. */
enum {
  CUZK_EXIT_OK = 0,    /* success (for verify: the proof is valid) */
  CUZK_EXIT_FAIL = 1,  /* runtime failure (for verify: the proof is invalid) */
  CUZK_EXIT_USAGE = 2, /* usage or configuration error */
};

/* One subcommand. `run` gets argv with argv[0] == the subcommand name and returns an exit code.
 * `usage` prints the full help to `out`. Both are called from the main thread only. A NULL
 * `summary` hides the command from `cuzk --help` (it still runs). */
typedef struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
  void (*usage)(FILE *out);
} cuzk_cmd_t;

/* Dispatches argv (as given to main) and returns the process exit code. */
int cuzk_cli_main(int argc, char **argv);

/* Prints "cuzk <cmd>: <message>\nTry 'cuzk <cmd> --help'.\n" to stderr; returns CUZK_EXIT_USAGE. */
int cuzk_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True when argv holds -h or --help before any "--". */
int cuzk_cli_wants_help(int argc, char **argv);

/* Version facts for `cuzk --version`, `cuzk version` and status records. */
const char *cuzk_version_string(void); /* e.g. "0.1.0" */
const char *cuzk_git_commit(void);     /* short hash or "unknown" */
const char *cuzk_build_type(void);     /* CMake build type */
int cuzk_cuda_built(void);             /* 1 when the CUDA backend is compiled in */

/* Subcommands, each in its own agent/cmd_*.c. */
extern const cuzk_cmd_t cuzk_cmd_agent;
extern const cuzk_cmd_t cuzk_cmd_bench;
extern const cuzk_cmd_t cuzk_cmd_demo;
extern const cuzk_cmd_t cuzk_cmd_gen;
extern const cuzk_cmd_t cuzk_cmd_hash;
extern const cuzk_cmd_t cuzk_cmd_inspect;
extern const cuzk_cmd_t cuzk_cmd_prove;
extern const cuzk_cmd_t cuzk_cmd_results;
extern const cuzk_cmd_t cuzk_cmd_setup;
extern const cuzk_cmd_t cuzk_cmd_submit;
extern const cuzk_cmd_t cuzk_cmd_telemetry;
extern const cuzk_cmd_t cuzk_cmd_verify;
extern const cuzk_cmd_t cuzk_cmd_version;
/* Hidden (not listed in --help): test helpers. */
extern const cuzk_cmd_t cuzk_cmd_metrics_selftest;

#endif
