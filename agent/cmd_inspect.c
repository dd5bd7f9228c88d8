/* `cuzk inspect params|vk|proof FILE`: human (or JSON) summaries of Groth16 files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/inspect.h"
#include "agent/groth16_cli.h"
#include "core/groth16/groth16.h"
#include "core/groth16/snarkjs.h"
#include "core/util/file.h"

static void inspect_usage(FILE *out) {
  fprintf(
      out,
      "Usage: cuzk inspect params|vk|proof FILE [--json] [--snarkjs] [--trusted]\n"
      "       cuzk inspect vanilla --type window-post|winning-post FILE [--pub JSON] [--json]\n"
      "\n"
      "Decodes a bellperson .params, .vk or proof file (192 bytes per partition), checks every\n"
      "point (on curve, in the subgroup unless --trusted) and prints a summary.\n"
      "\n"
      "  --json      one JSON object\n"
      "  --snarkjs   vk/proof: print the snarkjs JSON (curve bls12381) instead\n"
      "  --trusted   skip subgroup checks (faster for large .params)\n"
      "\n"
      "Exit codes: 0 decoded, 1 invalid or unreadable file, 2 usage error.\n");
}

static void hex(char *out, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", in[i]);
}

static int inspect_run(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "vanilla") == 0) {
    if (cuzk_cli_wants_help(argc - 1, argv + 1)) {
      cuzk_inspect_vanilla_usage(stdout);
      return CUZK_EXIT_OK;
    }
    return cuzk_inspect_vanilla_main(argc - 1, argv + 1);
  }
  const char *what = NULL, *file = NULL;
  bool json = false, snark = false, trusted = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if (strcmp(argv[i], "--snarkjs") == 0)
      snark = true;
    else if (strcmp(argv[i], "--trusted") == 0)
      trusted = true;
    else if (argv[i][0] == '-' && argv[i][1])
      return cuzk_cli_usage_error("inspect", "unknown option '%s'", argv[i]);
    else if (!what)
      what = argv[i];
    else if (!file)
      file = argv[i];
    else
      return cuzk_cli_usage_error("inspect", "unexpected argument '%s'", argv[i]);
  }
  if (!what || !file)
    return cuzk_cli_usage_error("inspect", "need a kind (params, vk, proof) and a file");
  if (strcmp(what, "params") && strcmp(what, "vk") && strcmp(what, "proof"))
    return cuzk_cli_usage_error("inspect", "unknown kind '%s' (params, vk, proof)", what);
  if (snark && strcmp(what, "params") == 0)
    return cuzk_cli_usage_error("inspect", "--snarkjs applies to vk and proof");
  unsigned flags = trusted ? CUZK_GROTH16_TRUSTED : 0;
  char err[512], digest[33] = "";

  if (strcmp(what, "proof") == 0) {
    uint8_t *buf;
    size_t len, n;
    if (cuzk_file_read(file, (size_t)1 << 20, &buf, &len, err, sizeof err) != CUZK_OK) {
      fprintf(stderr, "cuzk inspect: %s\n", err);
      return CUZK_EXIT_FAIL;
    }
    cuzk_groth16_proof_t *pf;
    cuzk_err_t e = cuzk_groth16_proofs_decode(&pf, &n, buf, len, flags);
    if (e != CUZK_OK) {
      fprintf(stderr, "cuzk inspect: %s: %s (%zu bytes)\n", file, cuzk_err_str(e), len);
      free(buf);
      return CUZK_EXIT_FAIL;
    }
    if (snark) {
      printf("%s", n > 1 ? "[" : "");
      for (size_t k = 0; k < n; k++) {
        char *j = cuzk_snarkjs_proof_json(&pf[k]);
        printf("%s%s", k ? "," : "", j ? j : "null");
        free(j);
      }
      printf("%s\n", n > 1 ? "]" : "");
    } else {
      printf(json ? "{\"kind\":\"proof\",\"bytes\":%zu,\"partitions\":%zu,\"proofs\":["
                  : "proof: %zu bytes, %zu partition(s)\n",
             len, n);
      for (size_t k = 0; k < n; k++) {
        char a[97], b[193], c[97];
        const uint8_t *p = buf + k * CUZK_GROTH16_PROOF_BYTES;
        hex(a, p, 48), hex(b, p + 48, 96), hex(c, p + 144, 48);
        if (json)
          printf("%s{\"a\":\"%s\",\"b\":\"%s\",\"c\":\"%s\"}", k ? "," : "", a, b, c);
        else
          printf("  [%zu] A %s\n      B %s\n      C %s\n", k, a, b, c);
      }
      if (json) printf("]}\n");
    }
    free(pf);
    free(buf);
    return CUZK_EXIT_OK;
  }

  if (cuzk_groth16_file_digest(digest, file, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk inspect: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  if (strcmp(what, "vk") == 0) {
    cuzk_groth16_vk_t vk;
    if (cuzk_groth16_vk_load(&vk, file, flags, err, sizeof err) != CUZK_OK) {
      fprintf(stderr, "cuzk inspect: %s\n", err);
      return CUZK_EXIT_FAIL;
    }
    if (snark) {
      char *j = cuzk_snarkjs_vk_json(&vk);
      printf("%s\n", j ? j : "null");
      free(j);
    } else if (json) {
      printf("{\"kind\":\"vk\",\"bytes\":%zu,\"public_inputs\":%zu,\"ic\":%zu,\"digest\":\"%s\"}\n",
             cuzk_groth16_vk_size(&vk), vk.n_ic - 1, vk.n_ic, digest);
    } else {
      printf("verifying key: %zu bytes, %zu public inputs (+ ONE), blake2b digest %s\n",
             cuzk_groth16_vk_size(&vk), vk.n_ic - 1, digest);
    }
    cuzk_groth16_vk_clear(&vk);
    return CUZK_EXIT_OK;
  }

  cuzk_groth16_params_t *p;
  if (cuzk_groth16_params_load(&p, file, flags, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk inspect: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  size_t ni = p->vk.n_ic;
  if (json)
    printf(
        "{\"kind\":\"params\",\"bytes\":%zu,\"insecure\":%s,\"public_inputs\":%zu,\"domain\":%zu,"
        "\"h\":%zu,\"l\":%zu,\"a\":%zu,\"b_g1\":%zu,\"b_g2\":%zu,\"a_aux_density\":%zu,"
        "\"digest\":\"%s\",\"subgroup_checked\":%s}\n",
        cuzk_groth16_params_size(p), p->insecure ? "true" : "false", ni - 1, p->n_h + 1, p->n_h,
        p->n_l, p->n_a, p->n_b_g1, p->n_b_g2, p->n_a >= ni ? p->n_a - ni : 0, digest,
        trusted ? "false" : "true");
  else
    printf(
        "parameters: %zu bytes%s\n"
        "  public inputs %zu (+ ONE), aux %zu, domain %zu\n"
        "  h %zu, l %zu, a %zu (aux in A: %zu), b_g1 %zu, b_g2 %zu\n"
        "  blake2b digest (parameters.json) %s; points %s\n",
        cuzk_groth16_params_size(p), p->insecure ? ", INSECURE (test setup)" : "", ni - 1, p->n_l,
        p->n_h + 1, p->n_h, p->n_l, p->n_a, p->n_a >= ni ? p->n_a - ni : 0, p->n_b_g1, p->n_b_g2,
        digest, trusted ? "on curve (subgroup not checked)" : "on curve and in the subgroup");
  cuzk_groth16_params_free(p);
  return CUZK_EXIT_OK;
}

const cuzk_cmd_t cuzk_cmd_inspect = {"inspect", "summarize a .params, .vk or proof file",
                                     inspect_run, inspect_usage};
