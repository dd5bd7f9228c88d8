#!/usr/bin/env bash
# Runs the GPU MSM tests and the MSM benchmarks on a CUDA machine and prints a short summary.
# Not registered as a test. Usage: tests/gpu/run_msm_device.sh BUILD_DIR [RUNS]
#   BUILD_DIR: a CUDA build (cmake -DCUZK_CUDA=ON -DCUZK_CUDA_ARCH=90a ...), already built.
#   RUNS: timed runs per bench point (default 5). CUZK_GPU_PROFILE=1 adds per-phase MSM lines.
set -u -o pipefail
build=${1:?usage: $0 BUILD_DIR [RUNS]}
runs=${2:-5}
cuzk="$build/agent/cuzk"
[ -x "$cuzk" ] || cuzk=$(find "$build" -maxdepth 3 -type f -name cuzk -perm -u+x | head -1)
[ -x "$cuzk" ] || { echo "no cuzk binary under $build" >&2; exit 2; }
log=$(mktemp -d)
status=0

echo "== GPU MSM tests"
for t in test_gpu_msm test_gpu_msm_core; do
  bin=$(find "$build" -maxdepth 3 -type f -name "$t" -perm -u+x | head -1)
  if [ -z "$bin" ]; then printf '%-22s %s\n' "$t" "MISSING"; status=1; continue; fi
  start=$(date +%s%N)
  "$bin" >"$log/$t.out" 2>&1
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  case $rc in 0) res=PASS ;; 77) res=SKIP ;; *) res="FAIL (rc $rc)"; status=1 ;; esac
  printf '%-22s %-12s %4d.%01d s   %s\n' "$t" "$res" $((ms / 1000)) $((ms % 1000 / 100)) "$(grep -m1 -o 'seed=[0-9]*' "$log/$t.out")"
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then grep -E 'FAIL|WRONG' "$log/$t.out" | head -20; fi
done

echo
echo "== MSM benchmarks (ms, median of $runs; bases on device; dev-nosplit = CUZK_GPU_MSM_NO_SPLIT01)"
bench() {
  "$cuzk" bench msm --runs "$runs" "$@" 2>"$log/bench.err" || { echo "bench $* failed:"; cat "$log/bench.err"; status=1; }
  [ -s "$log/bench.err" ] && grep '^msm ' "$log/bench.err" | awk '!seen[$2 " " $3 " " $4]++' | sed 's/^/    /'
  echo
}
for w in random filecoin; do
  bench --curve g1 --log-n 20..24 --witness "$w"
  bench --curve g2 --log-n 20..22 --witness "$w"
done
rm -rf "$log"
exit $status
