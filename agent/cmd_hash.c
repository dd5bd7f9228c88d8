/* `cuzk hash poseidon`: Filecoin's Poseidon on 32-byte little-endian field elements. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "core/hash/poseidon.h"
#include "core/util/hex.h"

static void cuzk__hash_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk hash poseidon --arity N [--tag HEX | --custom-tag ID] HEX...\n"
          "\n"
          "Hashes N field elements with Poseidon as Filecoin uses it (neptune; arity 2, 4, 8 or\n"
          "11) and prints the result. Inputs and output are 32-byte little-endian hex (Filecoin's\n"
          "domain encoding: comm_r, comm_c, tree nodes), optionally prefixed with 0x.\n"
          "  --arity N         number of inputs: 2, 4, 8 or 11\n"
          "  --tag HEX         domain tag (32-byte little-endian hex) instead of the Merkle tag\n"
          "                    2^arity - 1\n"
          "  --custom-tag ID   neptune custom domain tag ID * 2^40 (SnapDeals H_gen: 1)\n"
          "Exit codes: 0 success, 2 usage error (bad hex, non-canonical element, wrong count).\n");
}

static int parse_fr_le(const char *hex, cuzk_fr_t *out) {
  uint8_t le[32];
  if (cuzk_hex_decode_exact(le, 32, hex, strlen(hex), CUZK_HEX_ALLOW_0X) != CUZK_OK) return -1;
  return cuzk_fr_from_le(out, le) == CUZK_OK ? 0 : -2;
}

static int cuzk__hash_run(int argc, char **argv) {
  if (argc < 2) return cuzk_cli_usage_error("hash", "which hash? (only 'poseidon')");
  if (strcmp(argv[1], "poseidon") != 0)
    return cuzk_cli_usage_error("hash", "unknown hash '%s' (only 'poseidon')", argv[1]);
  unsigned arity = 0;
  int have_tag = 0;
  cuzk_fr_t tag, in[CUZK_POSEIDON_MAX_WIDTH];
  size_t n = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--arity") == 0 && i + 1 < argc) {
      char *end;
      errno = 0;
      unsigned long v = strtoul(argv[++i], &end, 10);
      if (errno || *end || !cuzk_poseidon_arity_supported((unsigned)v) || v > 11)
        return cuzk_cli_usage_error("hash", "--arity must be 2, 4, 8 or 11, not '%s'", argv[i]);
      arity = (unsigned)v;
    } else if (strcmp(a, "--tag") == 0 && i + 1 < argc) {
      if (parse_fr_le(argv[++i], &tag) != 0)
        return cuzk_cli_usage_error("hash", "--tag: '%s' is not a canonical 32-byte LE element",
                                    argv[i]);
      have_tag = 1;
    } else if (strcmp(a, "--custom-tag") == 0 && i + 1 < argc) {
      char *end;
      errno = 0;
      unsigned long long id = strtoull(argv[++i], &end, 10);
      if (errno || *end || id == 0 || id > 256)
        return cuzk_cli_usage_error("hash", "--custom-tag must be 1..256");
      cuzk_poseidon_custom_tag(&tag, id);
      have_tag = 1;
    } else if (a[0] == '-' && a[1] == '-') {
      return cuzk_cli_usage_error("hash", "unknown option '%s'", a);
    } else {
      if (n == CUZK_POSEIDON_MAX_WIDTH - 1) return cuzk_cli_usage_error("hash", "too many inputs");
      int r = parse_fr_le(a, &in[n]);
      if (r == -1) return cuzk_cli_usage_error("hash", "'%s' is not 32 bytes of hex", a);
      if (r == -2)
        return cuzk_cli_usage_error("hash", "'%s' is not below the field modulus (LE)", a);
      n++;
    }
  }
  if (!arity) return cuzk_cli_usage_error("hash", "--arity is required");
  if (n != arity)
    return cuzk_cli_usage_error("hash", "arity %u needs %u inputs, got %zu", arity, arity, n);
  cuzk_fr_t out;
  if (have_tag)
    cuzk_poseidon_hash_tagged(&out, arity, &tag, in);
  else
    cuzk_poseidon_hash(&out, arity, in);
  uint8_t le[32];
  char hex[65];
  cuzk_fr_to_le(le, &out);
  cuzk_hex_encode(hex, sizeof hex, le, 32);
  printf("%s\n", hex);
  return CUZK_EXIT_OK;
}

const cuzk_cmd_t cuzk_cmd_hash = {"hash", "hash field elements (poseidon)", cuzk__hash_run,
                                  cuzk__hash_usage};
