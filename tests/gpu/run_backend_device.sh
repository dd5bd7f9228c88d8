#!/usr/bin/env bash
# Device run of the CUDA backend (not a registered test): the gpu-labelled tests, `cuzk bench
# prove --backend gpu` at 2^16 and 2^20 (CPU at 2^16 for comparison), and `cuzk bench pipeline
# --backend gpu --log-n 20 --jobs 8`, then a short table. Logs and JSON go to $OUT (or ./out-gpu).
#   tests/gpu/run_backend_device.sh BUILD_DIR
set -u
B=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
O=${OUT:-$PWD/out-gpu}
mkdir -p "$O"
BIN=$B/agent/cuzk
[ -x "$BIN" ] || BIN=$B/cuzk
export CUZK_VECTORS=${CUZK_VECTORS:-$(cd "$B/.." && pwd)/../shared/vectors}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | tee "$O/gpu.txt"

(cd "$B" && ctest -L gpu --output-on-failure --timeout 900) >"$O/ctest.log" 2>&1
ctest_rc=$?
run() { # name, args...
  local name=$1
  shift
  local t0=$(date +%s.%N)
  "$BIN" "$@" --json >"$O/$name.json" 2>"$O/$name.err"
  local rc=$?
  echo "$rc $(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null)" >"$O/$name.rc"
}
run prove16_gpu bench prove --backend gpu --log-n 16 --reps 3
run prove20_gpu bench prove --backend gpu --log-n 20 --reps 3
run prove16_cpu bench prove --backend cpu --log-n 16
run pipeline20_gpu bench pipeline --backend gpu --log-n 20 --jobs 8

echo "== ctest -L gpu: rc $ctest_rc"
grep -E "tests passed|Passed|Failed|\*\*\*|SKIP" "$O/ctest.log" | tail -20
python3 - "$O" <<'PY' || { echo "(python3 missing: raw JSON follows)"; cat "$O"/*.json; }
import json, os, sys
o = sys.argv[1]
def load(n):
    try:
        with open(os.path.join(o, n + ".json")) as f:
            return json.loads(f.read().strip().splitlines()[-1])
    except Exception as e:
        err = open(os.path.join(o, n + ".err")).read().strip()[-300:] if os.path.exists(os.path.join(o, n + ".err")) else ""
        return {"error": err or str(e)}
print("%-14s %8s %8s %8s %8s %8s %8s %8s %8s %9s" % ("bench", "prove", "ntt", "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2", "h2d GB/s", "vs cpu"))
cpu16 = load("prove16_cpu").get("prove_ms")
for n in ("prove16_gpu", "prove20_gpu", "prove16_cpu"):
    j = load(n)
    if "error" in j:
        print("%-14s FAILED: %s" % (n, j["error"])); continue
    sp = ""
    if n == "prove16_gpu" and cpu16: sp = "%.1fx" % (cpu16 / j["prove_ms"])
    print("%-14s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8s %9s" % (n, j["prove_ms"], j["ntt_ms"], j["msm_h_ms"], j["msm_l_ms"],
          j["msm_a_ms"], j["msm_b_g1_ms"], j["msm_b_g2_ms"], "%.2f" % j.get("h2d_gbps", 0), sp))
j = load("pipeline20_gpu")
if "error" in j:
    print("pipeline20_gpu FAILED: %s" % j["error"])
else:
    print("pipeline 2^20 x8: %.2f proofs/min, gpu_busy_ratio %.3f, h2d %.2f GB/s, gpu p50 %.1f ms, total p50 %.1f ms, "
          "pinned hits %d misses %d fallbacks %d" % (j["proofs_per_min"], j["gpu_busy_ratio"], j["h2d_gb_per_s"],
          j["gpu_p50_ms"], j["total_p50_ms"], j["pinned_hits"], j["pinned_misses"], j["pinned_fallbacks"]))
PY
exit $ctest_rc
