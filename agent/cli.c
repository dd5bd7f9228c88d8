#include "agent/cli.h"

#include <stdlib.h>

#include "core/util/log.h"

#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <librdkafka/rdkafka.h>
#include <libconfig.h>
#include <stdarg.h>
#include <string.h>

#ifdef CUZK_HAVE_CUDA
#include "cuda/cuzk_gpu.h"
#endif

/* The command table. Keep it sorted by name; `cuzk --help` prints it in this order. */
static const cuzk_cmd_t *const cuzk__cmds[] = {
    &cuzk_cmd_agent,
    &cuzk_cmd_bench,
    &cuzk_cmd_demo,
    &cuzk_cmd_gen,
    &cuzk_cmd_hash,
    &cuzk_cmd_inspect,
    &cuzk_cmd_prove,
    &cuzk_cmd_results,
    &cuzk_cmd_setup,
    &cuzk_cmd_submit,
    &cuzk_cmd_telemetry,
    &cuzk_cmd_verify,
    &cuzk_cmd_version,
};
#define CUZK__NCMDS (sizeof(cuzk__cmds) / sizeof(cuzk__cmds[0]))

const char *cuzk_version_string(void) {
  return CUZK_VERSION;
}
const char *cuzk_git_commit(void) {
  return CUZK_GIT_COMMIT;
}
const char *cuzk_build_type(void) {
  return CUZK_BUILD_TYPE;
}
int cuzk_cuda_built(void) {
#ifdef CUZK_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

int cuzk_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "cuzk%s%s: ", cmd ? " " : "", cmd ? cmd : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'cuzk%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
  return CUZK_EXIT_USAGE;
}

int cuzk_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
  }
  return 0;
}

static void cuzk__print_version(FILE *out) {
  fprintf(out, "cuzk %s\n", cuzk_version_string());
  fprintf(out, "commit: %s\n", cuzk_git_commit());
  fprintf(out, "build: %s\n", cuzk_build_type());
  fprintf(out, "cuda: %s\n", cuzk_cuda_built() ? "on" : "off");
}

static void cuzk__main_usage(FILE *out) {
  fprintf(out,
          "cuzk: GPU proving agent for Filecoin (Groth16 over BLS12-381)\n"
          "\n"
          "Usage: cuzk <command> [options]\n"
          "       cuzk --version | --help\n"
          "\n"
          "Commands:\n");
  for (size_t i = 0; i < CUZK__NCMDS; i++)
    if (cuzk__cmds[i]->summary)
      fprintf(out, "  %-12s %s\n", cuzk__cmds[i]->name, cuzk__cmds[i]->summary);
  fprintf(out,
          "\n"
          "Run 'cuzk <command> --help' for a command's options.\n"
          "Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.\n");
}

/* Commands with their own subcommands: the dispatcher answers --help only right after the command
 * name and leaves later ones to the subcommand (`cuzk bench fp --help`). */
static int cuzk__has_subcommands(const char *name) {
  static const char *const names[] = {"bench", "gen", "inspect", "telemetry"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return 1;
  return 0;
}

int cuzk_cli_main(int argc, char **argv) {
  /* CUZK_LOG_LEVEL=trace|debug|info|warn|error|off applies to every subcommand (the agent's
   * own config key, when set, overrides it) */
  const char *lv = getenv("CUZK_LOG_LEVEL");
  cuzk_log_level_t level;
  if (lv && *lv && cuzk_log_level_parse(lv, &level) == CUZK_OK) cuzk_log_set_level(level);
  if (argc < 2) {
    cuzk__main_usage(stderr);
    return CUZK_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
    cuzk__print_version(stdout);
    return CUZK_EXIT_OK;
  }
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
    if (strcmp(name, "help") == 0 && argc > 2) {
      for (size_t i = 0; i < CUZK__NCMDS; i++)
        if (strcmp(argv[2], cuzk__cmds[i]->name) == 0) {
          cuzk__cmds[i]->usage(stdout);
          return CUZK_EXIT_OK;
        }
      return cuzk_cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    }
    cuzk__main_usage(stdout);
    return CUZK_EXIT_OK;
  }
  if (name[0] == '-') return cuzk_cli_usage_error(NULL, "unknown option '%s'", name);
  for (size_t i = 0; i < CUZK__NCMDS; i++) {
    if (strcmp(name, cuzk__cmds[i]->name) == 0) {
      int help = cuzk__has_subcommands(name)
                     ? (argc > 2 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0))
                     : cuzk_cli_wants_help(argc - 1, argv + 1);
      if (help) {
        cuzk__cmds[i]->usage(stdout);
        return CUZK_EXIT_OK;
      }
      return cuzk__cmds[i]->run(argc - 1, argv + 1);
    }
  }
  static const cuzk_cmd_t *const hidden[] = {&cuzk_cmd_metrics_selftest};
  for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
    if (strcmp(name, hidden[i]->name) == 0) {
      if (cuzk_cli_wants_help(argc - 1, argv + 1)) {
        hidden[i]->usage(stdout);
        return CUZK_EXIT_OK;
      }
      return hidden[i]->run(argc - 1, argv + 1);
    }
  }
  return cuzk_cli_usage_error(NULL, "unknown command '%s'", name);
}

/* ---- cuzk version ------------------------------------------------------------------------ */

static void cuzk__version_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk version [--verbose]\n"
          "\n"
          "Prints the version, git commit, build type and whether the CUDA backend is built.\n"
          "  -v, --verbose   also list library versions and GPU devices\n");
}

static int cuzk__version_run(int argc, char **argv) {
  int verbose = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
      verbose = 1;
    else
      return cuzk_cli_usage_error("version", "unknown option '%s'", argv[i]);
  }
  cuzk__print_version(stdout);
  if (verbose) {
    printf("librdkafka: %s\n", rd_kafka_version_str());
    printf("libconfig: %d.%d.%d\n", LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR,
           LIBCONFIG_VER_REVISION);
    printf("openssl: %s\n", OpenSSL_version(OPENSSL_VERSION));
#ifdef CUZK_HAVE_CUDA
    int n = 0;
    cuzk_gpu_status_t st = cuzk_gpu_device_count(&n);
    if (st.code != 0)
      printf("gpus: none (%s)\n", st.message);
    else
      printf("gpus: %d\n", n);
#endif
  }
  return CUZK_EXIT_OK;
}

const cuzk_cmd_t cuzk_cmd_version = {"version", "print version and build information",
                                     cuzk__version_run, cuzk__version_usage};
