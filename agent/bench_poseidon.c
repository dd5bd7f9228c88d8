/* `cuzk bench poseidon`: single-thread Poseidon hashes per second for one arity (the hash the
 * tree builders call, the batch API, and the textbook reference permutation), the Fr
 * multiplication floor, and a breakdown of one fast permutation into its parts. Main thread
 * only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/bench.h"
#include "agent/cli.h"
#include "core/ff/fr.h"
#include "core/hash/poseidon.h"

static volatile uint64_t sink;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk bench poseidon [--arity N] [--quick] [--json]\n"
          "\n"
          "Single-thread Poseidon (neptune parameters) for arity N (2, 4, 8 or 11; default 8):\n"
          "hashes per second of cuzk_poseidon_hash (chained: each output feeds the next input),\n"
          "of cuzk_poseidon_hash_many on independent inputs, and of the textbook reference\n"
          "permutation; the Fr multiplication time; the Fr multiplication count of one fast hash\n"
          "times that time (the floor of a multiply-bound hash); and ns per part of one fast\n"
          "permutation (all full rounds, all partial rounds, one dense MDS product, one S-box).\n"
          "Each figure is the median of several timed runs.\n"
          "\n"
          "Options:\n"
          "  --arity N  2, 4, 8 or 11 (default 8)\n"
          "  --quick    few iterations (for tests), numbers are noisier\n"
          "  --json     print one JSON object instead of the table\n");
}

static int run(int argc, char **argv) {
  int json = 0, quick = 0;
  unsigned arity = 8;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--arity") == 0 && i + 1 < argc) {
      char *end;
      unsigned long a = strtoul(argv[++i], &end, 10);
      if (*end || !cuzk_poseidon_arity_supported((unsigned)a))
        return cuzk_cli_usage_error("bench poseidon", "--arity must be 2, 4, 8 or 11");
      arity = (unsigned)a;
    } else
      return cuzk_cli_usage_error("bench poseidon", "unknown option '%s'", argv[i]);
  }
  const cuzk_poseidon_params_t *p = cuzk_poseidon_params(arity);
  if (!p) {
    fprintf(stderr, "cuzk bench poseidon: out of memory\n");
    return CUZK_EXIT_FAIL;
  }
  const int runs = quick ? 3 : 9;
  const long nh = quick ? 200 : 4000; /* hashes per run */
  enum { BATCH = 64 };
  cuzk_fr_t in[CUZK_POSEIDON_MAX_WIDTH], h, st[CUZK_POSEIDON_MAX_WIDTH];
  cuzk_fr_t *bin = malloc((size_t)BATCH * arity * sizeof *bin), bout[BATCH];
  if (!bin) {
    fprintf(stderr, "cuzk bench poseidon: out of memory\n");
    return CUZK_EXIT_FAIL;
  }
  for (unsigned i = 0; i < arity; i++) cuzk_fr_from_u64(&in[i], 1000 + i);
  for (size_t i = 0; i < (size_t)BATCH * arity; i++) cuzk_fr_from_u64(&bin[i], 7 * i + 3);
  double v[16], hash_ns, many_ns, ref_ns, mul_ns;

  for (int r = 0; r < runs; r++) {
    double t0 = now_ns();
    for (long i = 0; i < nh; i++) {
      cuzk_poseidon_hash(&h, arity, in);
      in[i % arity] = h;
    }
    v[r] = (now_ns() - t0) / nh;
  }
  hash_ns = median(v, runs);
  sink ^= h.l[0];

  for (int r = 0; r < runs; r++) {
    double t0 = now_ns();
    for (long i = 0; i < nh / BATCH + 1; i++) {
      cuzk_poseidon_hash_many(bout, arity, bin, BATCH);
      bin[i % (BATCH * arity)] = bout[0];
    }
    v[r] = (now_ns() - t0) / ((nh / BATCH + 1) * BATCH);
  }
  many_ns = median(v, runs);
  sink ^= bout[BATCH - 1].l[0];

  for (int r = 0; r < runs; r++) {
    long n = nh / 4 + 1;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
      st[0] = p->merkle_tag;
      memcpy(&st[1], in, arity * sizeof *in);
      cuzk_poseidon_permute(p, st);
      in[i % arity] = st[1];
    }
    v[r] = (now_ns() - t0) / n;
  }
  ref_ns = median(v, runs);
  sink ^= st[1].l[0];

  cuzk_fr_t a = in[0], b = in[1];
  for (int r = 0; r < runs; r++) {
    long n = quick ? 20000 : 400000;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) cuzk_fr_mul(&a, &a, &b);
    v[r] = (now_ns() - t0) / n;
  }
  mul_ns = median(v, runs);
  sink ^= a.l[0];

  cuzk_poseidon_parts_t parts[16];
  for (int r = 0; r < runs; r++) cuzk__poseidon_parts(&parts[r], arity, quick ? 50 : 1000);
  double full_ns, partial_ns, mds_ns, sbox_ns;
  for (int r = 0; r < runs; r++) v[r] = parts[r].full_rounds_ns;
  full_ns = median(v, runs);
  for (int r = 0; r < runs; r++) v[r] = parts[r].partial_rounds_ns;
  partial_ns = median(v, runs);
  for (int r = 0; r < runs; r++) v[r] = parts[r].mds_ns;
  mds_ns = median(v, runs);
  for (int r = 0; r < runs; r++) v[r] = parts[r].sbox_ns;
  sbox_ns = median(v, runs);
  unsigned muls = cuzk_poseidon_mul_count(p, 0);
  free(bin);

  if (json) {
    printf("{\"arity\": %u, \"hash_per_s\": %.0f, \"hash_many_per_s\": %.0f, "
           "\"ref_per_s\": %.0f, \"hash_ns\": %.1f, \"fr_mul_ns\": %.2f, \"fr_muls\": %u, "
           "\"ref_fr_muls\": %u, \"floor_ns\": %.1f, \"full_rounds_ns\": %.1f, "
           "\"partial_rounds_ns\": %.1f, \"mds_ns\": %.1f, \"sbox_ns\": %.1f}\n",
           arity, 1e9 / hash_ns, 1e9 / many_ns, 1e9 / ref_ns, hash_ns, mul_ns, muls,
           cuzk_poseidon_mul_count(p, 1), muls * mul_ns, full_ns, partial_ns, mds_ns, sbox_ns);
  } else {
    printf("Poseidon arity %u (t = %u), one thread\n", arity, p->width);
    printf("%-28s %12.0f /s  (%.1f us)\n", "hash", 1e9 / hash_ns, hash_ns / 1e3);
    printf("%-28s %12.0f /s  (%.1f us)\n", "hash_many (batch 64)", 1e9 / many_ns, many_ns / 1e3);
    printf("%-28s %12.0f /s  (%.1f us)\n", "reference permutation", 1e9 / ref_ns, ref_ns / 1e3);
    printf("%-28s %12.2f ns\n", "Fr mul", mul_ns);
    printf("%-28s %12u (reference %u)\n", "Fr mul-equivalents / hash", muls,
           cuzk_poseidon_mul_count(p, 1));
    printf("%-28s %12.1f us\n", "floor (muls x Fr mul)", muls * mul_ns / 1e3);
    printf("%-28s %12.1f us\n", "  all full rounds", full_ns / 1e3);
    printf("%-28s %12.1f us\n", "  all partial rounds", partial_ns / 1e3);
    printf("%-28s %12.1f ns\n", "  one dense MDS product", mds_ns);
    printf("%-28s %12.1f ns\n", "  one S-box", sbox_ns);
    if (quick) printf("(--quick: few iterations, noisy)\n");
  }
  (void)sink;
  return CUZK_EXIT_OK;
}

const cuzk_bench_t cuzk_bench_poseidon = {
    "poseidon", "single-thread Poseidon hashes/s and per-part breakdown", run, usage};
