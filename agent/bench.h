/* `cuzk bench <what>`: each benchmark lives in its own agent/bench_*.c and is listed in the table
 * in agent/cmd_bench.c. Every benchmark prints a human table to stdout, or with --json a single
 * JSON object (one line) and nothing else on stdout. Main thread only. */
#ifndef CUZK_AGENT_BENCH_H
#define CUZK_AGENT_BENCH_H

#include <stdio.h>

typedef struct {
  const char *name;                  /* e.g. "fp" */
  const char *summary;               /* one line for `cuzk bench --help` */
  int (*run)(int argc, char **argv); /* argv[0] == name; returns a CUZK_EXIT_* code */
  void (*usage)(FILE *out);
} cuzk_bench_t;

/* Benchmarks, each defined in its agent/bench_*.c. */
extern const cuzk_bench_t cuzk_bench_fp;       /* bench_fp.c */
extern const cuzk_bench_t cuzk_bench_msm;      /* bench_gpu.c */
extern const cuzk_bench_t cuzk_bench_ntt;      /* bench_gpu.c */
extern const cuzk_bench_t cuzk_bench_pipeline; /* bench_pipeline.c */
extern const cuzk_bench_t cuzk_bench_poseidon; /* bench_poseidon.c */
extern const cuzk_bench_t cuzk_bench_prove;    /* bench_prove.c */

#endif
