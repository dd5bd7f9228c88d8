/* `cuzk verify`: checks a (multi-partition) Groth16 proof against a verifying key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/groth16_cli.h"
#include "core/groth16/groth16.h"
#include "core/groth16/snarkjs.h"
#include "core/groth16/verify.h"
#include "core/util/file.h"

static void verify_usage(FILE *out) {
  fprintf(
      out,
      "Usage: cuzk verify --params DIR|FILE --proof FILE [--public FILE] [--circuit NAME ...]\n"
      "                   [--json]\n"
      "\n"
      "Verifies the proof (192 bytes per partition, concatenated) against the verifying key.\n"
      "\n"
      "  --params DIR|FILE  a .vk or .params file, or a directory holding one .vk (or name the\n"
      "                     circuit with --circuit/--log-n/--num-public/--seed to pick its file)\n"
      "  --proof FILE       the proof\n"
      "  --public FILE      public inputs as a JSON array of decimal strings (ONE excluded);\n"
      "                     for k partitions either k·n values in partition order or n values\n"
      "                     shared by all. Default: <proof>.public.json\n"
      "  --json             print the verdict as one JSON object\n"
      "\n"
      "Exit codes: 0 the proof is valid, 1 invalid (or unreadable), 2 usage error.\n");
}

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static int verify_run(int argc, char **argv) {
  cuzk_g16_circuit_args_t ca = {0};
  const char *params = NULL, *proof = NULL, *pub = NULL, *v;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    int m = cuzk_g16_circuit_arg("verify", argc, argv, &i, &ca);
    if (m > 1) return m - 10;
    if (m == 1) continue;
    const char *names[3] = {"--params", "--proof", "--public"};
    const char **dst[3] = {&params, &proof, &pub};
    int hit = 0;
    for (int k = 0; k < 3 && !hit; k++) {
      m = cuzk_g16_opt(argc, argv, &i, names[k], &v);
      if (m < 0) return cuzk_cli_usage_error("verify", "%s needs a value", names[k]);
      if (m > 0) *dst[k] = v, hit = 1;
    }
    if (hit) continue;
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else
      return cuzk_cli_usage_error("verify", "unknown option '%s'", argv[i]);
  }
  if (!params) return cuzk_cli_usage_error("verify", "--params is required");
  if (!proof) return cuzk_cli_usage_error("verify", "--proof is required");
  cuzk_g16_circuit_finish(&ca);

  char kpath[4096], pubpath[4200], err[512];
  if (!cuzk_g16_resolve(kpath, sizeof kpath, params, ".vk", &ca, "verify")) return CUZK_EXIT_FAIL;
  if (!pub) snprintf(pubpath, sizeof pubpath, "%s.public.json", proof), pub = pubpath;

  int rc = CUZK_EXIT_FAIL;
  cuzk_groth16_vk_t vk = {0};
  cuzk_groth16_params_t *p = NULL;
  uint8_t *pbuf = NULL, *jbuf = NULL;
  size_t plen, jlen, nproofs = 0, npub = 0;
  cuzk_groth16_proof_t *proofs = NULL;
  cuzk_fr_t *xs = NULL, *all = NULL;
  cuzk_groth16_pvk_t *pvk = NULL;
  const char *verdict = "invalid";
  cuzk_err_t e;
  if (ends_with(kpath, ".params")) {
    e = cuzk_groth16_params_load(&p, kpath, 0, err, sizeof err);
  } else {
    e = cuzk_groth16_vk_load(&vk, kpath, 0, err, sizeof err);
  }
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s\n", err);
    goto done;
  }
  const cuzk_groth16_vk_t *key = p ? &p->vk : &vk;
  if (cuzk_file_read(proof, (size_t)1 << 20, &pbuf, &plen, err, sizeof err) != CUZK_OK ||
      cuzk_file_read(pub, (size_t)64 << 20, &jbuf, &jlen, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s\n", err);
    goto done;
  }
  e = cuzk_groth16_proofs_decode(&proofs, &nproofs, pbuf, plen, 0);
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s: %s (%zu bytes)\n", proof, cuzk_err_str(e), plen);
    goto report;
  }
  e = cuzk_snarkjs_public_parse(&xs, &npub, (const char *)jbuf);
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s: %s\n", pub, cuzk_err_str(e));
    goto report;
  }
  size_t per = key->n_ic - 1;
  if (npub != per && npub != per * nproofs) {
    fprintf(stderr,
            "cuzk verify: %s holds %zu public inputs; the key expects %zu per partition (%zu "
            "partitions)\n",
            pub, npub, per, nproofs);
    goto report;
  }
  all = malloc((per * nproofs + 1) * sizeof *all);
  if (!all) goto done;
  for (size_t k = 0; k < nproofs; k++)
    memcpy(all + k * per, npub == per ? xs : xs + k * per, per * sizeof *all);
  pvk = cuzk_groth16_pvk_new(key, err, sizeof err);
  if (!pvk) {
    fprintf(stderr, "cuzk verify: %s\n", err);
    goto done;
  }
  e = nproofs == 1 ? cuzk_groth16_verify(pvk, &proofs[0], all, per)
                   : cuzk_groth16_verify_batch(pvk, proofs, nproofs, all, per);
  if (e == CUZK_OK) {
    verdict = "valid";
    rc = CUZK_EXIT_OK;
  } else if (e != CUZK_ERR_VERIFY_FAILED) {
    fprintf(stderr, "cuzk verify: %s\n", cuzk_err_str(e));
  }
report:
  if (json)
    printf(
        "{\"valid\":%s,\"partitions\":%zu,\"public_inputs\":%zu,\"vk\":\"%s\",\"reason\":\"%s\"}\n",
        rc == CUZK_EXIT_OK ? "true" : "false", nproofs, key->n_ic ? key->n_ic - 1 : 0, kpath,
        rc == CUZK_EXIT_OK ? "" : cuzk_err_name(e));
  else
    printf("%s: %s (%zu partition%s)\n", proof, verdict, nproofs, nproofs == 1 ? "" : "s");
done:
  cuzk_groth16_pvk_free(pvk);
  free(all);
  free(xs);
  free(proofs);
  free(pbuf);
  free(jbuf);
  cuzk_groth16_vk_clear(&vk);
  cuzk_groth16_params_free(p);
  return rc;
}

const cuzk_cmd_t cuzk_cmd_verify = {"verify", "verify a Groth16 proof (exit 0 valid, 1 invalid)",
                                    verify_run, verify_usage};
