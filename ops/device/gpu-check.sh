#!/usr/bin/env bash
# Runs on the GPU machine from a packed directory (ops/device/pack): GPU tests, then the
# benchmarks named in BENCH (default: a short NTT and MSM sweep). Logs go to $OUT.
# Environment: TESTS=0 skips tests; NTT_LOGN, MSM_LOGN, RUNS override the sweeps.
set -uo pipefail
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
./bin/cuzk version -v 2>&1 | tee -a "$OUT/gpu.txt"
status=0
if [[ ${TESTS:-1} != 0 ]]; then
  for t in bin/test_gpu_*; do
    s=$(date +%s.%N)
    timeout 120 "$t" >"$OUT/$(basename "$t").log" 2>&1
    rc=$?
    e=$(date +%s.%N)
    printf "%-16s rc=%d %6.1fs  %s\n" "$(basename "$t")" "$rc" "$(awk "BEGIN{print $e - $s}")" "$(tail -1 "$OUT/$(basename "$t").log")" | tee -a "$OUT/summary.txt"
    [[ $rc != 0 ]] && status=1 && tail -20 "$OUT/$(basename "$t").log"
  done
fi
if [[ -n ${NTT_LOGN:-} ]]; then
  ./bin/cuzk bench ntt --log-n "$NTT_LOGN" --runs "${RUNS:-5}" | tee -a "$OUT/bench.txt"
fi
if [[ -n ${MSM_LOGN:-} ]]; then
  CUZK_GPU_PROFILE=${PROFILE:-} ./bin/cuzk bench msm --curve g1 --log-n "$MSM_LOGN" --runs "${RUNS:-5}" ${MSM_WINDOW:+--window $MSM_WINDOW} | tee -a "$OUT/bench.txt"
fi
exit $status
