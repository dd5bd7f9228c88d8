/* `cuzk inspect circuit`: the size of a Filecoin PoSt circuit, synthesized in COUNT mode
 * (nothing materialized), so even the 125M-constraint WindowPoSt 32GiB answers in seconds. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "agent/cli.h"
#include "agent/inspect.h"
#include "core/circuits/post.h"
#include "core/filecoin/post.h"
#include "core/r1cs/cs.h"

#define CMD "inspect circuit"

void cuzk_inspect_circuit_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk inspect circuit --type window-post|winning-post --sector-size S [--json]\n"
          "\n"
          "Synthesizes the FallbackPoSt partition circuit in count mode and prints its\n"
          "constraints, public inputs (ONE excluded), aux variables and Groth16 domain size\n"
          "(the least power of two >= constraints + inputs including ONE).\n"
          "  --type T          window-post or winning-post\n"
          "  --sector-size S   2KiB, 8MiB, 512MiB, 32GiB, 64GiB (also 2k, 32g, ... or bytes)\n"
          "  --json            one JSON object on stdout instead of text\n"
          "Exit codes: 0 printed, 1 synthesis failed, 2 usage error.\n");
}

/* Bytes of "2KiB", "2k", "32GiB", "32g", "2048", ...; 0 when malformed. */
static uint64_t parse_size(const char *s) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s) return 0;
  uint64_t mul = 1;
  if (*end) {
    char u = (char)(*end | 0x20);
    mul = u == 'k' ? 1ull << 10 : u == 'm' ? 1ull << 20 : u == 'g' ? 1ull << 30 : 0;
    if (!mul) return 0;
    const char *rest = end + 1;
    if (*rest && strcasecmp(rest, "ib") != 0 && strcasecmp(rest, "b") != 0) return 0;
  }
  return (uint64_t)v * mul;
}

int cuzk_inspect_circuit_main(int argc, char **argv) {
  const char *type = NULL, *size = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((strcmp(a, "--type") == 0 || strcmp(a, "--sector-size") == 0)) {
      if (i + 1 >= argc) return cuzk_cli_usage_error(CMD, "%s needs a value", a);
      if (a[2] == 't')
        type = argv[++i];
      else
        size = argv[++i];
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else {
      return cuzk_cli_usage_error(CMD, "unexpected argument '%s'", a);
    }
  }
  if (!type || !size) return cuzk_cli_usage_error(CMD, "--type and --sector-size are required");
  cuzk_post_kind_t kind;
  if (strcmp(type, "window-post") == 0)
    kind = CUZK_POST_WINDOW;
  else if (strcmp(type, "winning-post") == 0)
    kind = CUZK_POST_WINNING;
  else
    return cuzk_cli_usage_error(CMD, "--type must be window-post or winning-post, not '%s'", type);
  uint64_t bytes = parse_size(size);
  const cuzk_post_proof_info_t *info = NULL;
  /* window: the V1_1 proofs (10..14; the circuit is V1's); winning: 0..4 */
  for (int id = kind == CUZK_POST_WINDOW ? 10 : 0; id < (kind == CUZK_POST_WINDOW ? 15 : 5); id++) {
    const cuzk_post_proof_info_t *p = cuzk_filecoin_post_info(id);
    if (p && p->sector_size == bytes) info = p;
  }
  if (!info) return cuzk_cli_usage_error(CMD, "unknown sector size '%s'", size);

  char err[256];
  cuzk_cs_t *cs = cuzk_cs_new(CUZK_CS_COUNT, err, sizeof err);
  if (!cs) {
    fprintf(stderr, "cuzk %s: %s\n", CMD, err);
    return CUZK_EXIT_FAIL;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cuzk_err_t e = cuzk_post_circuit_build(cs, info, NULL, err, sizeof err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk %s: %s\n", CMD, err);
    cuzk_cs_free(cs);
    return CUZK_EXIT_FAIL;
  }
  uint64_t m = cuzk_cs_num_constraints(cs), ni = cuzk_cs_num_inputs(cs),
           na = cuzk_cs_num_aux(cs), dom = 1;
  unsigned log = 0;
  while (dom < m + ni) {
    dom <<= 1;
    log++;
  }
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  unsigned sectors =
      kind == CUZK_POST_WINNING ? info->challenges_per_sector : info->sectors_per_partition;
  unsigned chal = kind == CUZK_POST_WINNING ? 1 : info->challenges_per_sector;
  if (json)
    printf("{\"type\":\"%s\",\"proof\":\"%s\",\"sector_size\":%llu,\"sectors\":%u,"
           "\"challenges_per_sector\":%u,\"constraints\":%llu,\"public_inputs\":%llu,"
           "\"aux\":%llu,\"domain_size\":%llu,\"domain_log2\":%u,\"synth_ms\":%.1f}\n",
           type, info->name, (unsigned long long)info->sector_size, sectors, chal,
           (unsigned long long)m, (unsigned long long)(ni - 1), (unsigned long long)na,
           (unsigned long long)dom, log, ms);
  else
    printf("%s (%s): %u sectors x %u challenges\n"
           "constraints    %llu\npublic inputs  %llu (ONE excluded)\naux variables  %llu\n"
           "domain size    %llu (2^%u)\ncounted in %.1f ms\n",
           type, info->name, sectors, chal, (unsigned long long)m, (unsigned long long)(ni - 1),
           (unsigned long long)na, (unsigned long long)dom, log, ms);
  cuzk_cs_free(cs);
  return CUZK_EXIT_OK;
}
