#!/usr/bin/env bash
# cuzk setup → prove → verify → inspect on the synthetic circuit, with the documented exit codes:
# verify 0 for a valid proof, 1 for a tampered proof or wrong public input, 2 for usage errors.
# When the npm oracles are installed, snarkjs also verifies the exported vk/proof/public JSON.
# cuzk-test: labels=integration timeout=300
set -u
BIN=${CUZK_BIN:-build/agent/cuzk}
ORACLES=${CUZK_ORACLES:-$(dirname "$0")/../oracles}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect CODE cmd...
  local want=$1; shift
  "$@" >"$D/out" 2>"$D/err"; local got=$?
  [ "$got" = "$want" ] || { cat "$D/out" "$D/err" >&2; fail "exit $got, want $want: $*"; }
}

for c in setup prove verify inspect; do expect 0 "$BIN" "$c" --help; done
expect 0 "$BIN" bench prove --help
expect 2 "$BIN" setup --circuit synthetic --out "$D" --bogus
expect 2 "$BIN" setup --circuit nope --out "$D"
expect 2 "$BIN" setup --out "$D"
expect 2 "$BIN" setup --circuit synthetic --log-n x --out "$D"
expect 2 "$BIN" prove --circuit synthetic --params "$D"
expect 2 "$BIN" verify --proof "$D/p"
expect 2 "$BIN" inspect params
expect 2 "$BIN" inspect bogus "$D/x"
# --backend gpu: a usage error (2) in a build without CUDA, a typed NO_DEVICE failure (1) in a CUDA
# build on a machine without a device, a proof (0) where a GPU exists
rc=0
out=$("$BIN" bench prove --backend gpu --log-n 10 2>&1) || rc=$?
case $rc in
  2) grep -qi "cuda" <<<"$out" || fail "bench prove --backend gpu (no CUDA): $out" ;;
  1) grep -qi "needs a CUDA device" <<<"$out" || fail "bench prove --backend gpu (no device): $out" ;;
  0) ;;
  *) fail "bench prove --backend gpu exited $rc: $out" ;;
esac

expect 0 "$BIN" setup --circuit synthetic --log-n 10 --num-public 3 --out "$D/params" --insecure-seed 7
ls "$D"/params/*.params.insecure >/dev/null || fail "no insecure marker"
# --insecure-seed is reproducible: a second setup with the same seed writes the same bytes
expect 0 "$BIN" setup --circuit synthetic --log-n 10 --num-public 3 --out "$D/again" --insecure-seed 7
cmp -s "$D"/params/*.params "$D"/again/*.params || fail "same --insecure-seed, different .params"
expect 0 "$BIN" setup --circuit synthetic --log-n 10 --num-public 3 --out "$D/other" --insecure-seed 8
cmp -s "$D"/params/*.params "$D"/other/*.params && fail "different --insecure-seed, same .params"
expect 0 "$BIN" prove --circuit synthetic --log-n 10 --num-public 3 --params "$D/params" --out "$D/p"
grep -q "insecure" "$D/err" || fail "prove did not warn about insecure parameters"
expect 1 "$BIN" prove --circuit synthetic --log-n 10 --num-public 3 --params "$D/params" --out "$D/q" --require-secure
expect 1 "$BIN" prove --circuit synthetic --log-n 11 --num-public 3 --params "$D/params" --out "$D/q"
[ "$(stat -c %s "$D/p")" = 192 ] || fail "proof is not 192 bytes"
expect 0 "$BIN" verify --params "$D/params" --proof "$D/p"
expect 0 "$BIN" verify --params "$D"/params/*.vk --proof "$D/p" --public "$D/p.public.json" --json
grep -q '"valid":true' "$D/out" || fail "verify --json did not say valid"
expect 0 "$BIN" verify --params "$D"/params/*.params --proof "$D/p"

# two partitions: the same proof twice with shared public inputs (batch path)
cat "$D/p" "$D/p" > "$D/p2"
cp "$D/p.public.json" "$D/p2.public.json"
expect 0 "$BIN" verify --params "$D/params" --proof "$D/p2"

# tampered proof: flip a bit of C's x coordinate
cp "$D/p" "$D/bad"
python3 - "$D/bad" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[191] ^= 1; open(sys.argv[1], 'wb').write(b)
PY
cp "$D/p.public.json" "$D/bad.public.json"
expect 1 "$BIN" verify --params "$D/params" --proof "$D/bad"
# wrong public input
python3 - "$D/p.public.json" "$D/wrong.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1])); v[0] = str(int(v[0]) + 1); json.dump(v, open(sys.argv[2], 'w'))
PY
expect 1 "$BIN" verify --params "$D/params" --proof "$D/p" --public "$D/wrong.json"
# non-canonical public input (r) and wrong count
echo '["52435875175126190479447740508185965837690552500527637822603658699938581184513","1","2"]' > "$D/big.json"
expect 1 "$BIN" verify --params "$D/params" --proof "$D/p" --public "$D/big.json"
echo '["1"]' > "$D/short.json"
expect 1 "$BIN" verify --params "$D/params" --proof "$D/p" --public "$D/short.json"
head -c 100 "$D/p" > "$D/trunc"
expect 1 "$BIN" verify --params "$D/params" --proof "$D/trunc" --public "$D/p.public.json"

expect 0 "$BIN" inspect params "$D"/params/*.params --json
grep -q '"insecure":true' "$D/out" || fail "inspect params did not report insecure"
expect 0 "$BIN" inspect vk "$D"/params/*.vk
expect 0 "$BIN" inspect proof "$D/p" --json
expect 1 "$BIN" inspect proof "$D/trunc"
expect 1 "$BIN" inspect params "$D/p"

if [ -d "$ORACLES/node_modules/snarkjs" ]; then
  "$BIN" inspect vk "$D"/params/*.vk --snarkjs > "$D/vk.json" || fail "export vk"
  "$BIN" inspect proof "$D/p" --snarkjs > "$D/proof.json" || fail "export proof"
  "$BIN" inspect proof "$D/bad" --snarkjs --trusted > "$D/badproof.json" 2>/dev/null || true
  for case in "proof.json p.public.json 1" "proof.json wrong.json 0"; do
    set -- $case
    got=$(printf '[{"vk":%s,"proof":%s,"public":%s}]' "$(cat "$D/vk.json")" "$(cat "$D/$1")" "$(cat "$D/$2")" |
      node "$ORACLES/snarkjs_verify.js" | cut -d' ' -f1)
    [ "$got" = "$3" ] || fail "snarkjs said $got for $1 with $2, want $3"
  done
else
  echo "SKIP part: snarkjs oracle not installed"
fi
echo "OK"
