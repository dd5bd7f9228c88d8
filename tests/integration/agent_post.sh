#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=600
# PoSt jobs through the agent on the real broker (CPU engine, insecure 2KiB parameters from
# `cuzk setup`): a WinningPoSt job and a 3-sector WindowPoSt job (2 partitions, the second padded)
# built by `cuzk submit` from vanilla proofs of `cuzk gen vanilla` come back OK; every partition
# proof is then verified by `cuzk verify` against public inputs assembled here in Python
# (comm_r, then the challenged leaves from hashlib SHA-256 of randomness || sector id ||
# challenge index), independently of the agent; a partition proof checked against the other
# partition's inputs fails. Poison PoSt jobs (truncated vanilla, wrong randomness) come back
# REJECTED with a DeadLetter each and the agent keeps proving.
source "$(dirname "${BASH_SOURCE[0]}")/agent_lib.bash"
need_broker "$@"
t0=$(date +%s)
setup_suite
"$cuzk" setup --circuit winning-post-2k --out "$work/params" >/dev/null &
p1=$!
"$cuzk" setup --circuit window-post-2k --out "$work/params" >/dev/null
wait "$p1"
log "setup done ($(( $(date +%s) - t0 )) s)"

R=$(/usr/bin/python3 -c 'import os; b = bytearray(os.urandom(32)); b[31] &= 0x3f; print(b.hex())')
/usr/bin/python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes.fromhex(sys.argv[2]))' "$work/rand.bin" "$R"
"$cuzk" gen vanilla --type winning-post --sector-size 2KiB --proof 0 --seed 5 --randomness "$R" \
  --sector-id 7 --out "$work/win.v" > "$work/win.gen"
"$cuzk" gen vanilla --type window-post --sector-size 2KiB --proof 10 --seed 9 --randomness "$R" \
  --sector-id 21 --sectors 3 --out "$work/wdw.v" > "$work/wdw.gen"
head -c -1 "$work/wdw.v" > "$work/trunc.v"
"$cuzk" inspect vanilla --type winning-post "$work/win.v" --randomness "$R" >/dev/null ||
  fail "cuzk inspect vanilla rejected the generated WinningPoSt proof"
"$cuzk" inspect vanilla --type window-post --proof 10 "$work/wdw.v" --randomness "$R" >/dev/null ||
  fail "cuzk inspect vanilla rejected the generated WindowPoSt proofs"
# the 8-8-0 (32GiB) encoding on a small tree: sub-tree MerkleProofs, chunked on the pool
"$cuzk" gen vanilla --type winning-post --sector-size 32GiB --base-height 3 --out "$work/sub.v" \
  | grep -q "proof 3 (StackedDrgWinning32GiBV1) sectors 1 leaves 4096" || fail "gen --base-height"

write_cfg "$work/a.cfg" agent-post
start_agent "$work/a.cfg" "$work/a.log"
pid=$agent_pid
submit win-1 winning-post --vanilla "$work/win.v" --randomness "$work/rand.bin" --miner-id 1000
submit wdw-trunc window-post --vanilla "$work/trunc.v" --randomness "$R" --sector-ids 21,22,23
R2=$(/usr/bin/python3 -c 'import sys; b = bytearray.fromhex(sys.argv[1]); b[0] ^= 1; print(b.hex())' "$R")
submit wdw-rand window-post --vanilla "$work/wdw.v" --randomness "$R2" --sector-ids 21,22,23
submit wdw-1 window-post --vanilla "$work/wdw.v" --randomness "$R" --sector-ids 21,22,23
wait_results 4 180
kill -0 "$pid" || fail "agent died"
dump results ProofResult > "$work/results.json"
dump jobs.dead-letter DeadLetter > "$work/dl.json"
/usr/bin/python3 - "$work" "$R" <<'PY'
import hashlib, json, sys
w, R = sys.argv[1], bytes.fromhex(sys.argv[2])
load = lambda f: [json.loads(l) for l in open(f"{w}/{f}")]
res = {r["job_id"]: r for r in load("results.json")}
comm_r = {}
for f in ("win.gen", "wdw.gen"):
    for line in open(f"{w}/{f}"):
        p = line.split()
        if p[0] == "sector":
            comm_r[int(p[1])] = int.from_bytes(bytes.fromhex(p[3]), "little")
def leaf(sector, idx, leaves=64):
    d = hashlib.sha256(R + sector.to_bytes(8, "little") + idx.to_bytes(8, "little")).digest()
    return int.from_bytes(d[:8], "little") % leaves
def sector_inputs(s, challenges):
    return [comm_r[s]] + [leaf(s, n) for n in range(challenges)]
for j, parts in (("win-1", 1), ("wdw-1", 2)):
    r = res[j]
    assert r["status"] == "OK", r
    assert r["partitions"] == parts and r["verified"] and len(r["proof"]) == 2 * 192 * parts, r
proofs = {"win-0": res["win-1"]["proof"][:384], "wdw-0": res["wdw-1"]["proof"][:384],
          "wdw-1": res["wdw-1"]["proof"][384:]}
pubs = {"win-0": sum(([comm_r[7], leaf(7, n)] for n in range(66)), []),
        "wdw-0": sector_inputs(21, 10) + sector_inputs(22, 10),
        "wdw-1": sector_inputs(23, 10) * 2}  # the short partition repeats its last sector
for k in proofs:
    open(f"{w}/{k}.proof", "wb").write(bytes.fromhex(proofs[k]))
    json.dump([str(x) for x in pubs[k]], open(f"{w}/{k}.json", "w"))
for j, code in (("wdw-trunc", "CUZK_ERR_TRUNCATED"), ("wdw-rand", "CUZK_ERR_BAD_VANILLA")):
    r = res[j]
    assert r["status"] == "REJECTED" and r["error"]["code"] == code and r["proof"] is None, r
dl = load("dl.json")
assert sorted(d["reason"] for d in dl) == ["CUZK_ERR_BAD_VANILLA", "CUZK_ERR_TRUNCATED"], dl
print("ok: results", {j: res[j]["status"] for j in sorted(res)}, "dead letters", len(dl))
PY
vk() { ls "$work"/params/v28-cuzk-"$1"-*.vk; }
for k in win-0 wdw-0 wdw-1; do
  c=winning-post-2k
  [ "${k%-*}" = wdw ] && c=window-post-2k
  "$cuzk" verify --params "$(vk $c)" --proof "$work/$k.proof" --public "$work/$k.json" >/dev/null ||
    fail "cuzk verify rejected partition proof $k"
done
rc=0
"$cuzk" verify --params "$(vk window-post-2k)" --proof "$work/wdw-1.proof" --public "$work/wdw-0.json" \
  >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "partition 1's proof verified against partition 0's inputs (exit $rc)"
grep -q "event=job_submitted job_id=wdw-1 circuit=window-post-2k" "$work/a.log" || fail "no job_submitted line for wdw-1"
stop_agent "$pid"
log "ok ($(( $(date +%s) - t0 )) s)"
