#!/usr/bin/env bash
# Device run of the GPU Poseidon (not a registered test): test_gpu_poseidon, then `cuzk gen
# vanilla --gpu` for a 32GiB WinningPoSt sector (2^30 leaves; the CPU hashes only the challenged
# chunks and cross-checks their roots), a small 8-8-0 tree with and without --gpu (bytes must
# match), and a short table. Logs and proofs go to $OUT (or ./out-poseidon).
#   tests/gpu/run_poseidon_device.sh BUILD_DIR
set -u
B=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
O=${OUT:-$PWD/out-poseidon}
mkdir -p "$O"
BIN=$B/agent/cuzk
[ -x "$BIN" ] || BIN=$B/cuzk
T=$B/tests/test_gpu_poseidon
export CUZK_VECTORS=${CUZK_VECTORS:-$(cd "$B/.." && pwd)/../shared/vectors}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | tee "$O/gpu.txt"

timed() { # name, command...: stdout/stderr to $O/name.log, "rc seconds" to $O/name.rc
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$O/$name.log" 2>&1
  local rc=$?
  t1=$(date +%s.%N)
  echo "$rc $(python3 -c "print('%.2f' % ($t1 - $t0))" 2>/dev/null || echo '?')" >"$O/$name.rc"
  return $rc
}
timed test "$T"
timed gen32_gpu "$BIN" gen vanilla --gpu --type winning-post --sector-size 32GiB --seed 1 \
  --out "$O/winning32g_gpu.bin"
timed small_cpu "$BIN" gen vanilla --type winning-post --sector-size 32GiB --base-height 5 \
  --seed 3 --out "$O/small_cpu.bin"
timed small_gpu "$BIN" gen vanilla --gpu --type winning-post --sector-size 32GiB --base-height 5 \
  --seed 3 --out "$O/small_gpu.bin"
if cmp -s "$O/small_cpu.bin" "$O/small_gpu.bin"; then same=yes; else same=NO; fi

echo "== test_gpu_poseidon: rc $(cut -d' ' -f1 "$O/test.rc"), $(cut -d' ' -f2 "$O/test.rc") s"
grep -E "^arity|^chunk roots|^post_gen|FAIL|^ok|FAILED|SKIP" "$O/test.log" | head -30
printf "%-26s %4s %9s  %s\n" "run" "rc" "seconds" "summary"
for n in gen32_gpu small_cpu small_gpu; do
  read -r rc s <"$O/$n.rc"
  sum="$(grep -oE 'comm_r [0-9a-f]{16}' "$O/$n.log") $(grep -oE 'leaves [0-9]+ bytes [0-9]+ seconds [0-9.]+ leaves/s [0-9.e+]+ threads [0-9]+ gpu [01]' "$O/$n.log") $(grep 'cuzk gen' "$O/$n.log" | cut -c1-120)"
  printf "%-26s %4s %9s  %s\n" "$n" "$rc" "$s" "$sum"
done
echo "8-8-0 base height 5: --gpu bytes == CPU bytes: $same"
[ "$(cut -d' ' -f1 "$O/test.rc")" = 0 ] && [ "$(cut -d' ' -f1 "$O/gen32_gpu.rc")" = 0 ] && [ "$same" = yes ]
