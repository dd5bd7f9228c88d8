#include "agent/bench.h"
#include "agent/cli.h"

#include <string.h>

/* Benchmarks, one per agent/bench_*.c. Keep sorted by name. */
static const cuzk_bench_t *const cuzk__benches[] = {
    &cuzk_bench_fp,
    &cuzk_bench_msm,
    &cuzk_bench_ntt,
    &cuzk_bench_pipeline,
    &cuzk_bench_poseidon,
    &cuzk_bench_prove,
};
#define CUZK__NBENCH (sizeof(cuzk__benches) / sizeof(cuzk__benches[0]))

static void cuzk__bench_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk bench <what> [options] [--json]\n"
          "\n"
          "Benchmarks print a table, or with --json one JSON object on stdout.\n"
          "\n"
          "What:\n");
  for (size_t i = 0; i < CUZK__NBENCH; i++)
    if (cuzk__benches[i])
      fprintf(out, "  %-10s %s\n", cuzk__benches[i]->name, cuzk__benches[i]->summary);
  fprintf(out, "\nRun 'cuzk bench <what> --help' for its options.\n");
}

static int cuzk__bench_run(int argc, char **argv) {
  if (argc < 2) return cuzk_cli_usage_error("bench", "which benchmark? (see 'cuzk bench --help')");
  for (size_t i = 0; i < CUZK__NBENCH; i++) {
    const cuzk_bench_t *b = cuzk__benches[i];
    if (b && strcmp(argv[1], b->name) == 0) {
      if (cuzk_cli_wants_help(argc - 1, argv + 1)) {
        b->usage(stdout);
        return CUZK_EXIT_OK;
      }
      return b->run(argc - 1, argv + 1);
    }
  }
  return cuzk_cli_usage_error("bench", "unknown benchmark '%s'", argv[1]);
}

const cuzk_cmd_t cuzk_cmd_bench = {"bench", "run a benchmark (fp, msm, ntt, poseidon, prove, pipeline)",
                                   cuzk__bench_run, cuzk__bench_usage};
