/* `cuzk prove`: one Groth16 proof from files, on the CPU or through an engine backend (--backend
 * gpu), without Kafka. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/backend_select.h"
#include "agent/cli.h"
#include "agent/groth16_cli.h"
#include "core/groth16/groth16.h"
#include "core/groth16/prove.h"
#include "core/groth16/snarkjs.h"
#include "core/groth16/verify.h"
#include "core/util/clock.h"
#include "core/util/file.h"

static void prove_usage(FILE *out) {
  fprintf(
      out,
      "Usage: cuzk prove --circuit NAME --params DIR|FILE --out FILE [--log-n N] [--num-public P]\n"
      "                  [--seed S] [--input FILE] [--trusted] [--require-secure] [--json]\n"
      "                  [--backend cpu|gpu]\n"
      "\n"
      "Synthesizes the circuit's witness, proves on the CPU and writes the 192-byte proof to\n"
      "FILE and the public inputs (snarkjs JSON: decimal strings, ONE excluded) to\n"
      "FILE.public.json. The proof is verified before it is written.\n"
      "\n"
      "  --circuit NAME      registered circuit (see 'cuzk setup --help')\n"
      "  --log-n, --num-public, --seed   circuit options, as given to 'cuzk setup'\n"
      "  --params DIR|FILE   the .params file, or the directory 'cuzk setup' wrote\n"
      "  --input FILE        the circuit's input (e.g. a vanilla proof); synthetic takes none\n"
      "  --out FILE          where to write the proof\n"
      "  --trusted           skip subgroup checks while loading the parameters\n"
      "  --require-secure    refuse parameters marked insecure (default: warn)\n"
      "  --json              print timings as one JSON object\n"
      "  --backend cpu|gpu   prove on the CPU (default) or on CUDA device 0 (the engine's\n"
      "                      backends; gpu fails with a clear error without CUDA or a device)\n"
      "\n"
      "Exit codes: 0 proof written, 1 failure, 2 usage error.\n");
}

/* The proof through the named engine backend (device 0). False after printing the reason. */
static bool prove_on_backend(const char *name, const cuzk_groth16_params_t *p, const cuzk_r1cs_t *r,
                             const cuzk_fr_t *wi, uint64_t ni, const cuzk_fr_t *wa, uint64_t na,
                             cuzk_groth16_proof_t *pf, cuzk_groth16_timings_t *tm, cuzk_backend_timings_t *bt) {
  char err[512];
  cuzk_err_t e;
  cuzk_backend_t *be = cuzk_agent_backend_new(name, &e, err, sizeof err);
  if (!be) {
    fprintf(stderr, "cuzk prove: --backend %s: %s (%s)\n", name, err, cuzk_err_name(e));
    return false;
  }
  cuzk_backend_srs_t *srs = NULL;
  uint8_t enc[CUZK_GROTH16_PROOF_BYTES];
  e = be->srs_attach(be, p, r, &srs, err, sizeof err);
  if (e == CUZK_OK) e = cuzk_agent_backend_prove(be, srs, r, wi, ni, wa, na, enc, tm, bt, err, sizeof err);
  if (e == CUZK_OK && (e = cuzk_groth16_proof_decode(pf, enc, 0)) != CUZK_OK)
    snprintf(err, sizeof err, "the backend's proof does not decode");
  if (srs) be->srs_detach(be, srs);
  cuzk_backend_free(be);
  if (e != CUZK_OK) fprintf(stderr, "cuzk prove: %s (%s)\n", err, cuzk_err_name(e));
  return e == CUZK_OK;
}

static int prove_run(int argc, char **argv) {
  cuzk_g16_circuit_args_t ca = {0};
  const char *params = NULL, *input = NULL, *out = NULL, *backend = "cpu", *v;
  bool trusted = false, require_secure = false, json = false;
  for (int i = 1; i < argc; i++) {
    int m = cuzk_g16_circuit_arg("prove", argc, argv, &i, &ca);
    if (m > 1) return m - 10;
    if (m == 1) continue;
    const char *names[4] = {"--params", "--input", "--out", "--backend"};
    const char **dst[4] = {&params, &input, &out, &backend};
    int hit = 0;
    for (int k = 0; k < 4 && !hit; k++) {
      m = cuzk_g16_opt(argc, argv, &i, names[k], &v);
      if (m < 0) return cuzk_cli_usage_error("prove", "%s needs a value", names[k]);
      if (m > 0) *dst[k] = v, hit = 1;
    }
    if (hit) continue;
    if (strcmp(argv[i], "--trusted") == 0)
      trusted = true;
    else if (strcmp(argv[i], "--require-secure") == 0)
      require_secure = true;
    else if (strcmp(argv[i], "--json") == 0)
      json = true;
    else
      return cuzk_cli_usage_error("prove", "unknown option '%s'", argv[i]);
  }
  if (!ca.circuit) return cuzk_cli_usage_error("prove", "--circuit is required");
  if (!params) return cuzk_cli_usage_error("prove", "--params is required");
  if (!out) return cuzk_cli_usage_error("prove", "--out is required");
  if (strcmp(backend, "cpu") != 0 && strcmp(backend, "gpu") != 0 && strcmp(backend, "cuda") != 0)
    return cuzk_cli_usage_error("prove", "--backend must be cpu or gpu, not '%s'", backend);
  const bool on_gpu = strcmp(backend, "cpu") != 0;
  if (on_gpu && !cuzk_cuda_built())
    return cuzk_cli_usage_error("prove", "--backend gpu: this build has no CUDA backend (%s)",
                                cuzk_err_name(CUZK_ERR_UNSUPPORTED));
  cuzk_g16_circuit_finish(&ca);

  char ppath[4096], err[512];
  if (!cuzk_g16_resolve(ppath, sizeof ppath, params, ".params", &ca, "prove"))
    return CUZK_EXIT_FAIL;
  int rc = CUZK_EXIT_FAIL;
  uint8_t *in_buf = NULL;
  size_t in_len = 0;
  cuzk_groth16_params_t *p = NULL;
  cuzk_r1cs_t *r = NULL;
  cuzk_fr_t *wi = NULL, *wa = NULL;
  cuzk_groth16_pvk_t *pvk = NULL;
  char *pub_json = NULL;
  uint64_t t0 = cuzk_now_us();
  if (cuzk_groth16_params_load(&p, ppath, trusted ? CUZK_GROTH16_TRUSTED : 0, err, sizeof err) !=
      CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err);
    goto done;
  }
  uint64_t t_load = cuzk_now_us() - t0;
  if (cuzk_groth16_params_check_secure(p, !require_secure) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s: %s\n", ppath, cuzk_err_str(CUZK_ERR_INSECURE_PARAMS));
    goto done;
  }
  if (p->insecure)
    fprintf(stderr, "cuzk prove: WARNING: %s comes from an insecure test setup\n", ppath);
  if (input &&
      cuzk_file_read(input, (size_t)4 << 30, &in_buf, &in_len, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err);
    goto done;
  }
  t0 = cuzk_now_us();
  if (cuzk_circuit_record(&r, ca.circuit, &ca.opts, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err);
    goto done;
  }
  uint64_t t_record = cuzk_now_us() - t0;
  cuzk_groth16_timings_t tm = {0};
  t0 = cuzk_now_us();
  uint64_t ni, na;
  if (cuzk_circuit_witness(&wi, &ni, &wa, &na, ca.circuit, &ca.opts, in_buf, in_len, err,
                           sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err);
    goto done;
  }
  tm.synth_us = cuzk_now_us() - t0;
  cuzk_groth16_proof_t pf;
  cuzk_backend_timings_t bt = {0};
  if (on_gpu) {
    if (!prove_on_backend(backend, p, r, wi, ni, wa, na, &pf, &tm, &bt)) goto done;
  } else if (cuzk_groth16_prove(&pf, p, r, wi, ni, wa, na, NULL, &tm, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err);
    goto done;
  }
  pvk = cuzk_groth16_pvk_new(&p->vk, err, sizeof err);
  t0 = cuzk_now_us();
  cuzk_err_t ve = pvk ? cuzk_groth16_verify(pvk, &pf, wi + 1, ni - 1) : CUZK_ERR_NOMEM;
  uint64_t t_verify = cuzk_now_us() - t0;
  if (ve != CUZK_OK) {
    fprintf(stderr, "cuzk prove: the new proof does not verify (%s)\n", cuzk_err_str(ve));
    goto done;
  }
  uint8_t enc[CUZK_GROTH16_PROOF_BYTES];
  cuzk_groth16_proof_encode(enc, &pf);
  if (cuzk_file_write_atomic(out, enc, sizeof enc, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err);
    goto done;
  }
  char pubpath[4200];
  snprintf(pubpath, sizeof pubpath, "%s.public.json", out);
  pub_json = cuzk_snarkjs_public_json(wi + 1, ni - 1);
  if (!pub_json || !cuzk_g16_write_text(pubpath, pub_json, "prove")) goto done;
  if (json) {
    printf(
        "{\"backend\":\"%s\",\"circuit\":\"%s\",\"log_n\":%u,\"constraints\":%llu,\"proof\":\"%s\",\"public\":\"%s\","
        "\"insecure_params\":%s,\"load_ms\":%.1f,\"record_ms\":%.1f,\"synth_ms\":%.1f,\"spmv_ms\":%"
        ".1f,"
        "\"ntt_ms\":%.1f,\"msm_h_ms\":%.1f,\"msm_l_ms\":%.1f,\"msm_a_ms\":%.1f,\"msm_b_g1_ms\":%."
        "1f,"
        "\"msm_b_g2_ms\":%.1f,\"epilogue_ms\":%.1f,\"prove_ms\":%.1f,\"verify_ms\":%.1f,"
        "\"h2d_bytes\":%llu,\"h2d_ms\":%.3f}\n",
        on_gpu ? "cuda" : "cpu", ca.circuit->name, ca.opts.log_n, (unsigned long long)cuzk_r1cs_num_constraints(r), out,
        pubpath, p->insecure ? "true" : "false", t_load / 1e3, t_record / 1e3, tm.synth_us / 1e3,
        tm.spmv_us / 1e3, tm.ntt_us / 1e3, tm.msm_h_us / 1e3, tm.msm_l_us / 1e3, tm.msm_a_us / 1e3,
        tm.msm_b_g1_us / 1e3, tm.msm_b_g2_us / 1e3, tm.epilogue_us / 1e3, tm.total_us / 1e3,
        t_verify / 1e3, (unsigned long long)bt.h2d_bytes, bt.h2d_us / 1e3);
  } else {
    printf("wrote %s (192 bytes) and %s (%s backend)\n", out, pubpath, on_gpu ? "cuda" : "cpu");
    printf(
        "prove %.1f ms (synth %.1f, spmv %.1f, ntt %.1f, msm h %.1f l %.1f a %.1f b_g1 %.1f b_g2 "
        "%.1f, "
        "epilogue %.1f); verify %.1f ms\n",
        tm.total_us / 1e3, tm.synth_us / 1e3, tm.spmv_us / 1e3, tm.ntt_us / 1e3, tm.msm_h_us / 1e3,
        tm.msm_l_us / 1e3, tm.msm_a_us / 1e3, tm.msm_b_g1_us / 1e3, tm.msm_b_g2_us / 1e3,
        tm.epilogue_us / 1e3, t_verify / 1e3);
  }
  rc = CUZK_EXIT_OK;
done:
  free(pub_json);
  cuzk_groth16_pvk_free(pvk);
  free(wi);
  free(wa);
  cuzk_r1cs_free(r);
  cuzk_groth16_params_free(p);
  free(in_buf);
  return rc;
}

const cuzk_cmd_t cuzk_cmd_prove = {"prove", "prove one job from files on the CPU or a GPU (no Kafka)",
                                   prove_run, prove_usage};
