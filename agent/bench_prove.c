/* `cuzk bench prove`: Groth16 proving time per phase (CPU, or the CUDA backend) on the synthetic circuit. The test
 * setup (insecure, untimed in the proof numbers) runs first; then `reps` proofs, each verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/backend_select.h"
#include "agent/bench.h"
#include "agent/cli.h"
#include "agent/groth16_cli.h"
#include "core/groth16/prove.h"
#include "core/groth16/setup.h"
#include "core/groth16/verify.h"
#include "core/util/pool.h"
#include "core/util/clock.h"

static void bench_prove_usage(FILE *out) {
  fprintf(
      out,
      "Usage: cuzk bench prove [--backend cpu|gpu] [--log-n N] [--num-public P] [--reps R] [--json]\n"
      "\n"
      "Proves the synthetic circuit (domain 2^N, default 14) R times (default 1) on the CPU, or\n"
      "with --backend gpu through the CUDA backend on device 0 (SRS uploaded once, untimed),\n"
      "after an insecure test setup, verifies each proof, and prints the best time per phase:\n"
      "synth (witness), spmv, ntt (H), msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2, epilogue, total\n"
      "(gpu: plus h2d bytes and GB/s). Results are labelled synthetic.\n");
}

static int bench_prove_run(int argc, char **argv) {
  uint64_t log_n = 14, pub = 4, reps = 1;
  bool json = false, on_gpu = false;
  const char *v;
  for (int i = 1; i < argc; i++) {
    int m;
    if ((m = cuzk_g16_opt(argc, argv, &i, "--backend", &v)) != 0) {
      if (m < 0 || (strcmp(v, "cpu") != 0 && strcmp(v, "gpu") != 0 && strcmp(v, "cuda") != 0))
        return cuzk_cli_usage_error("bench prove", "--backend must be cpu or gpu");
      on_gpu = strcmp(v, "cpu") != 0;
      if (on_gpu && !cuzk_cuda_built())
        return cuzk_cli_usage_error("bench prove", "--backend gpu: this build has no CUDA backend (%s)",
                                    cuzk_err_name(CUZK_ERR_UNSUPPORTED));
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--log-n", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 4, 28, &log_n))
        return cuzk_cli_usage_error("bench prove", "--log-n needs an integer in 4..28");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--num-public", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 0, 1000, &pub))
        return cuzk_cli_usage_error("bench prove", "--num-public needs an integer in 0..1000");
    } else if ((m = cuzk_g16_opt(argc, argv, &i, "--reps", &v)) != 0) {
      if (m < 0 || !cuzk_g16_parse_u64(v, 1, 1000, &reps))
        return cuzk_cli_usage_error("bench prove", "--reps needs an integer in 1..1000");
    } else if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      return cuzk_cli_usage_error("bench prove", "unknown option '%s'", argv[i]);
    }
  }
  const cuzk_circuit_t *c = cuzk_circuit_find("synthetic");
  cuzk_circuit_opts_t o = {(unsigned)log_n, (uint32_t)pub, 1};
  char err[512];
  int rc = CUZK_EXIT_FAIL;
  cuzk_r1cs_t *r = NULL;
  cuzk_groth16_params_t *p = NULL;
  cuzk_groth16_pvk_t *pvk = NULL;
  cuzk_backend_t *be = NULL;
  cuzk_backend_srs_t *srs = NULL;
  cuzk_backend_timings_t best_bt = {0};
  uint64_t t_attach = 0;
  if (on_gpu && !(be = cuzk_agent_backend_new("cuda", NULL, err, sizeof err))) goto fail;
  uint64_t t0 = cuzk_now_us();
  if (cuzk_circuit_record(&r, c, &o, err, sizeof err) != CUZK_OK) goto fail;
  uint64_t t_record = cuzk_now_us() - t0;
  cuzk_groth16_toxic_t tw;
  cuzk_groth16_toxic_from_seed(&tw, 1);
  t0 = cuzk_now_us();
  if (cuzk_groth16_setup(&p, r, &tw, err, sizeof err) != CUZK_OK) goto fail;
  uint64_t t_setup = cuzk_now_us() - t0;
  pvk = cuzk_groth16_pvk_new(&p->vk, err, sizeof err);
  if (!pvk) goto fail;
  if (on_gpu) {
    t0 = cuzk_now_us();
    if (be->srs_attach(be, p, r, &srs, err, sizeof err) != CUZK_OK) goto fail;
    t_attach = cuzk_now_us() - t0;
  }
  cuzk_groth16_timings_t best = {0};
  best.total_us = UINT64_MAX;
  for (uint64_t k = 0; k < reps; k++) {
    cuzk_fr_t *wi, *wa;
    uint64_t ni, na;
    cuzk_groth16_timings_t tm = {0};
    t0 = cuzk_now_us();
    if (cuzk_circuit_witness(&wi, &ni, &wa, &na, c, &o, NULL, 0, err, sizeof err) != CUZK_OK)
      goto fail;
    tm.synth_us = cuzk_now_us() - t0;
    cuzk_groth16_proof_t pf;
    cuzk_backend_timings_t bt = {0};
    cuzk_err_t e;
    if (on_gpu) {
      uint8_t enc[CUZK_GROTH16_PROOF_BYTES];
      e = cuzk_agent_backend_prove(be, srs, r, wi, ni, wa, na, enc, &tm, &bt, err, sizeof err);
      if (e == CUZK_OK && cuzk_groth16_proof_decode(&pf, enc, 0) != CUZK_OK) {
        snprintf(err, sizeof err, "the backend's proof does not decode");
        e = CUZK_ERR_BAD_PROOF;
      }
    } else {
      e = cuzk_groth16_prove(&pf, p, r, wi, ni, wa, na, NULL, &tm, err, sizeof err);
    }
    if (e == CUZK_OK && cuzk_groth16_verify(pvk, &pf, wi + 1, ni - 1) != CUZK_OK) {
      snprintf(err, sizeof err, "proof did not verify");
      e = CUZK_ERR_VERIFY_FAILED;
    }
    free(wi);
    free(wa);
    if (e != CUZK_OK) goto fail;
    if (tm.total_us + tm.synth_us < best.total_us + best.synth_us) best = tm, best_bt = bt;
  }
  unsigned threads = cuzk_pool_global() ? cuzk_pool_size(cuzk_pool_global()) : 1;
  const char *bname = on_gpu ? "cuda" : "cpu";
  const double h2d_gbs = best_bt.h2d_us ? (double)best_bt.h2d_bytes / (best_bt.h2d_us * 1e3) : 0.0;
  if (json) {
    printf(
        "{\"bench\":\"prove\",\"backend\":\"%s\",\"circuit\":\"synthetic\",\"log_n\":%u,"
        "\"constraints\":%llu,\"public\":%u,\"threads\":%u,\"reps\":%llu,\"record_ms\":%.1f,"
        "\"setup_ms\":%.1f,"
        "\"synth_ms\":%.1f,\"spmv_ms\":%.1f,\"ntt_ms\":%.1f,\"msm_h_ms\":%.1f,\"msm_l_ms\":%.1f,"
        "\"msm_a_ms\":%.1f,\"msm_b_g1_ms\":%.1f,\"msm_b_g2_ms\":%.1f,\"epilogue_ms\":%.1f,"
        "\"prove_ms\":%.1f,\"srs_attach_ms\":%.1f,\"gpu_kernel_ms\":%.2f,\"h2d_bytes\":%llu,"
        "\"h2d_gbps\":%.2f}\n",
        bname, o.log_n, (unsigned long long)cuzk_r1cs_num_constraints(r), o.num_public, threads,
        (unsigned long long)reps, t_record / 1e3, t_setup / 1e3, best.synth_us / 1e3,
        best.spmv_us / 1e3, best.ntt_us / 1e3, best.msm_h_us / 1e3, best.msm_l_us / 1e3,
        best.msm_a_us / 1e3, best.msm_b_g1_us / 1e3, best.msm_b_g2_us / 1e3, best.epilogue_us / 1e3,
        best.total_us / 1e3, t_attach / 1e3, best_bt.kernel_us / 1e3,
        (unsigned long long)best_bt.h2d_bytes, h2d_gbs);
  } else {
    printf("%s prove, synthetic 2^%u (%llu constraints, %u public), %u threads, best of %llu\n",
           bname, o.log_n, (unsigned long long)cuzk_r1cs_num_constraints(r), o.num_public, threads,
           (unsigned long long)reps);
    printf("  (record %.1f ms, insecure setup %.1f ms: not part of the proof)\n", t_record / 1e3,
           t_setup / 1e3);
    printf("  %-10s %10.1f ms\n", "synth", best.synth_us / 1e3);
    printf("  %-10s %10.1f ms\n", "spmv", best.spmv_us / 1e3);
    printf("  %-10s %10.1f ms\n", "ntt", best.ntt_us / 1e3);
    printf("  %-10s %10.1f ms\n", "msm_h", best.msm_h_us / 1e3);
    printf("  %-10s %10.1f ms\n", "msm_l", best.msm_l_us / 1e3);
    printf("  %-10s %10.1f ms\n", "msm_a", best.msm_a_us / 1e3);
    printf("  %-10s %10.1f ms\n", "msm_b_g1", best.msm_b_g1_us / 1e3);
    printf("  %-10s %10.1f ms\n", "msm_b_g2", best.msm_b_g2_us / 1e3);
    printf("  %-10s %10.1f ms\n", "epilogue", best.epilogue_us / 1e3);
    printf("  %-10s %10.1f ms (+ synth %.1f ms)\n", "prove", best.total_us / 1e3,
           best.synth_us / 1e3);
    if (on_gpu)
      printf("  %-10s %10.1f ms (prove_start wall); h2d %.1f MB at %.2f GB/s; srs upload %.1f ms\n",
             "gpu", best_bt.kernel_us / 1e3, best_bt.h2d_bytes / 1e6, h2d_gbs, t_attach / 1e3);
  }
  rc = CUZK_EXIT_OK;
  goto done;
fail:
  fprintf(stderr, "cuzk bench prove: %s\n", err);
done:
  if (srs) be->srs_detach(be, srs);
  cuzk_backend_free(be);
  cuzk_groth16_pvk_free(pvk);
  cuzk_groth16_params_free(p);
  cuzk_r1cs_free(r);
  return rc;
}

const cuzk_bench_t cuzk_bench_prove = {"prove", "Groth16 proof per phase, CPU or GPU (synthetic circuit)",
                                       bench_prove_run, bench_prove_usage};
