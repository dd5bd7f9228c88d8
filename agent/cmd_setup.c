/* `cuzk setup`: insecure Groth16 parameters for a registered circuit (test setups only). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/cli.h"
#include "agent/groth16_cli.h"
#include "core/groth16/groth16.h"
#include "core/groth16/setup.h"
#include "core/util/clock.h"

static void setup_usage(FILE *out) {
  fprintf(out,
          "Usage: cuzk setup --circuit NAME --out DIR [--log-n N] [--num-public P] [--seed S]\n"
          "                  [--insecure-seed N]\n"
          "\n"
          "Generates INSECURE Groth16 parameters (known toxic waste) for a circuit and writes\n"
          "DIR/<stem>.params, DIR/<stem>.vk and the marker DIR/<stem>.params.insecure, where\n"
          "<stem> is v28-cuzk-<circuit>-<sha256 of the circuit's shape>.\n"
          "\n"
          "  --circuit NAME       registered circuit:");
  for (size_t k = 0; cuzk_circuits[k]; k++) fprintf(out, " %s", cuzk_circuits[k]->name);
  fprintf(out,
          "\n"
          "  --log-n N            size: Groth16 domain 2^N (synthetic; default 10)\n"
          "  --num-public P       public inputs besides ONE (synthetic; default 4)\n"
          "  --seed S             circuit shape/witness seed (synthetic; default 1)\n"
          "  --insecure-seed N    derive the toxic waste from N (reproducible); default: CSPRNG\n"
          "  --out DIR            output directory (created if missing)\n"
          "  --json               print the result as one JSON object\n"
          "\n"
          "Exit codes: 0 written, 1 failure, 2 usage error.\n");
}

static int setup_run(int argc, char **argv) {
  cuzk_g16_circuit_args_t ca = {0};
  const char *out = NULL, *v;
  bool have_seed = false, json = false;
  uint64_t tseed = 0;
  for (int i = 1; i < argc; i++) {
    int m = cuzk_g16_circuit_arg("setup", argc, argv, &i, &ca);
    if (m > 1) return m - 10;
    if (m == 1) continue;
    if ((m = cuzk_g16_opt(argc, argv, &i, "--out", &v)) != 0) {
      if (m < 0) return cuzk_cli_usage_error("setup", "--out needs a value");
      out = v;
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--insecure-seed", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 0, UINT64_MAX, &tseed))
        return cuzk_cli_usage_error("setup", "--insecure-seed needs an unsigned integer");
      have_seed = true;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      return cuzk_cli_usage_error("setup", "unknown option '%s'", argv[i]);
    }
  }
  if (!ca.circuit) return cuzk_cli_usage_error("setup", "--circuit is required");
  if (!out) return cuzk_cli_usage_error("setup", "--out is required");
  cuzk_g16_circuit_finish(&ca);
  if (mkdir(out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "cuzk setup: %s: %s\n", out, strerror(errno));
    return CUZK_EXIT_FAIL;
  }
  char err[512];
  uint64_t t0 = cuzk_now_us();
  cuzk_r1cs_t *r;
  if (cuzk_circuit_record(&r, ca.circuit, &ca.opts, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk setup: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  uint64_t t1 = cuzk_now_us();
  cuzk_groth16_toxic_t tw;
  if (have_seed)
    cuzk_groth16_toxic_from_seed(&tw, tseed);
  else if (cuzk_groth16_toxic_random(&tw) != CUZK_OK) {
    fprintf(stderr, "cuzk setup: CSPRNG failed\n");
    cuzk_r1cs_free(r);
    return CUZK_EXIT_FAIL;
  }
  cuzk_groth16_params_t *p;
  cuzk_err_t e = cuzk_groth16_setup(&p, r, &tw, err, sizeof err);
  memset(&tw, 0, sizeof tw);
  uint64_t t2 = cuzk_now_us();
  if (e != CUZK_OK) {
    fprintf(stderr, "cuzk setup: %s\n", err);
    cuzk_r1cs_free(r);
    return CUZK_EXIT_FAIL;
  }
  char stem[200], ppath[4096], vpath[4096];
  cuzk_circuit_file_stem(stem, sizeof stem, ca.circuit, &ca.opts);
  snprintf(ppath, sizeof ppath, "%s/%s.params", out, stem);
  snprintf(vpath, sizeof vpath, "%s/%s.vk", out, stem);
  int rc = CUZK_EXIT_OK;
  char digest[33], jpath[4096];
  snprintf(jpath, sizeof jpath, "%s/parameters.json", out);
  /* recording the digest lets the engine load these files without the subgroup checks (the
   * trust rule in core/groth16/groth16.h) */
  if (cuzk_groth16_params_save_digest(p, ppath, digest, err, sizeof err) != CUZK_OK ||
      cuzk_groth16_digest_record(jpath, ppath, digest, err, sizeof err) != CUZK_OK ||
      cuzk_groth16_vk_save(&p->vk, vpath, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk setup: %s\n", err);
    rc = CUZK_EXIT_FAIL;
  }
  uint64_t t3 = cuzk_now_us();
  if (rc == CUZK_EXIT_OK) {
    if (json)
      printf(
          "{\"circuit\":\"%s\",\"log_n\":%u,\"public\":%u,\"seed\":%llu,\"constraints\":%llu,"
          "\"params\":\"%s\",\"vk\":\"%s\",\"params_bytes\":%zu,\"insecure\":true,"
          "\"record_ms\":%.1f,\"setup_ms\":%.1f,\"write_ms\":%.1f}\n",
          ca.circuit->name, ca.opts.log_n, ca.opts.num_public, (unsigned long long)ca.opts.seed,
          (unsigned long long)cuzk_r1cs_num_constraints(r), ppath, vpath,
          cuzk_groth16_params_size(p), (t1 - t0) / 1e3, (t2 - t1) / 1e3, (t3 - t2) / 1e3);
    else
      printf(
          "wrote %s (%zu bytes)\nwrote %s\nINSECURE test parameters (marker %s.insecure)\n"
          "constraints %llu, inputs %llu, aux %llu; record %.1f ms, setup %.1f ms, write %.1f ms\n",
          ppath, cuzk_groth16_params_size(p), vpath, ppath,
          (unsigned long long)cuzk_r1cs_num_constraints(r),
          (unsigned long long)cuzk_r1cs_num_inputs(r), (unsigned long long)cuzk_r1cs_num_aux(r),
          (t1 - t0) / 1e3, (t2 - t1) / 1e3, (t3 - t2) / 1e3);
  }
  cuzk_groth16_params_free(p);
  cuzk_r1cs_free(r);
  return rc;
}

const cuzk_cmd_t cuzk_cmd_setup = {
    "setup", "generate insecure test Groth16 parameters for a circuit", setup_run, setup_usage};
