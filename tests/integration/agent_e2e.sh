#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=300
# The agent end to end on the real broker with the real engine (CPU backend, synthetic 2^10
# proofs, insecure test parameters from `cuzk setup`): jobs submitted with `cuzk submit` (inline
# and as a file:// reference) come back as OK results with 192-byte verified proofs; poison
# messages (random bytes, unknown fingerprint, valid Avro with invalid fields written by
# python3-avro, oversized) come back REJECTED with a DeadLetter each while the agent keeps
# going; PartitionTiming and AgentStatus records appear; then a second agent joins the group and
# both share the next jobs. Every record is read with kcat and decoded with python3-avro.
source "$(dirname "${BASH_SOURCE[0]}")/agent_lib.bash"
need_broker "$@"
t0=$(date +%s)
setup_suite
make_params 10

write_cfg "$work/a.cfg" agent-a
cat >> "$work/a.cfg" <<'CFG'
kafka: { max_message_bytes = "64KiB"; inline_payload_max_bytes = "32KiB"; };
CFG
# libconfig merges no sections: fold the extra keys into the kafka section instead
/usr/bin/python3 - "$work/a.cfg" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
extra = 'kafka: { max_message_bytes = "64KiB"; inline_payload_max_bytes = "32KiB"; };\n'
s = s.replace(extra, "").replace('  poll_interval_ms = 50;\n',
    '  poll_interval_ms = 50;\n  max_message_bytes = "64KiB";\n  inline_payload_max_bytes = "32KiB";\n')
open(p, "w").write(s)
PY
"$cuzk" agent --check-config "$work/a.cfg" >/dev/null
start_agent "$work/a.cfg" "$work/a.log"
pid_a=$agent_pid

# good jobs
head -c 4000 /dev/urandom > "$work/vanilla.bin"
submit good-1 winning-post --circuit synthetic-10
submit good-2 window-post --circuit synthetic-10
submit good-3 porep-c2 --circuit synthetic-10 --vanilla "$work/vanilla.bin" --inline-max 100
# poison
# (kcat -P FILE sends each file as one message; from stdin it would split at newlines)
{ printf '\x01'; head -c 300 /dev/urandom; } > "$work/junk.bin"
kcat -P -b "$KAFKA_BROKERS" -t "$prefix.jobs.window-post" -k junk "$work/junk.bin"
{ printf '\xc3\x01\x01\x02\x03\x04\x05\x06\x07\x08'; head -c 200 /dev/urandom; } > "$work/fp.bin"
kcat -P -b "$KAFKA_BROKERS" -t "$prefix.jobs.window-post" -k fingerprint "$work/fp.bin"
# a valid ProofJob body from python3-avro with invalid fields, behind our header
kcat -C -b "$KAFKA_BROKERS" -t "$prefix.jobs.winning-post" -o beginning -e -q -c 1 -f '%s' > "$work/job.bin"
/usr/bin/python3 - "$schemas/ProofJob.avsc" "$work/job.bin" "$work/bad.bin" <<'PY'
import io, sys, avro.io, avro.schema
schema = (getattr(avro.schema, "parse", None) or avro.schema.Parse)(open(sys.argv[1]).read())
header = open(sys.argv[2], "rb").read()[:10]
job = avro.io.DatumReader(schema).read(avro.io.BinaryDecoder(io.BytesIO(open(sys.argv[2], "rb").read()[10:])))
job["job_id"] = "bad-fields"
job["sector_size"] = 12345          # not a Filecoin sector size
buf = io.BytesIO()
avro.io.DatumWriter(schema).write(job, avro.io.BinaryEncoder(buf))
open(sys.argv[3], "wb").write(header + buf.getvalue())
PY
kcat -P -b "$KAFKA_BROKERS" -t "$prefix.jobs.winning-post" -k bad-fields "$work/bad.bin"
{ cat "$work/job.bin"; head -c 70000 /dev/zero; } > "$work/big.bin"
kcat -P -b "$KAFKA_BROKERS" -t "$prefix.jobs.winning-post" -k oversized "$work/big.bin"
# and a good job after the poison: the agent must still prove it
submit good-4 snap-deals --circuit synthetic-10

wait_results 8 120
kill -0 "$pid_a" || fail "agent A died"
dump results ProofResult > "$work/results.json"
dump jobs.dead-letter DeadLetter > "$work/dl.json"
dump telemetry.partitions PartitionTiming > "$work/timing.json"
dump telemetry.agents AgentStatus > "$work/status.json"
/usr/bin/python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
load = lambda f: [json.loads(l) for l in open(f"{w}/{f}")]
res = {r["job_id"]: r for r in load("results.json")}
for r in load("results.json"):
    assert "undecodable" not in r, r
    assert r["_key"] == r["job_id"], r
for j in ["good-1", "good-2", "good-3", "good-4"]:
    r = res[j]
    assert r["status"] == "OK", r
    assert len(r["proof"]) == 2 * 192 and r["partitions"] == 1 and r["verified"], r
    assert r["agent_id"] == "agent-a", r
want = {"junk": "CUZK_ERR_PARSE", "fingerprint": "CUZK_ERR_SCHEMA", "bad-fields": "CUZK_ERR_BAD_JOB",
        "oversized": "CUZK_ERR_TOO_LARGE"}
for j, code in want.items():
    r = res[j]
    assert r["status"] == "REJECTED" and r["error"]["code"] == code, r
    assert r["proof"] is None, r
dl = load("dl.json")
assert len(dl) == 4, dl
assert sorted(d["reason"] for d in dl) == sorted(want.values()), dl
for d in dl:
    assert d["topic"].endswith((".jobs.window-post", ".jobs.winning-post")) and d["offset"] >= 0, d
    assert d["agent_id"] == "agent-a"
big = [d for d in dl if d["reason"] == "CUZK_ERR_TOO_LARGE"][0]
assert big["value_size"] > 70000 and len(big["value"]) // 2 <= big["value_size"], big["value_size"]
tm = load("timing.json")
good = {t["job_id"] for t in tm}
assert {"good-1", "good-2", "good-3", "good-4"} <= good, good
for t in tm:
    assert t["synthetic"] and t["gpu"] == -1 and t["finish_end"] >= t["enqueued"], t
    assert t["_key"] == t["job_id"]
types = {t["job_id"]: t["proof_type"] for t in tm}
assert types["good-1"] == "WINNING_POST" and types["good-4"] == "SNAP_DEALS", types
st = load("status.json")
assert st and all(s["agent_id"] == "agent-a" for s in st), st
print(f"ok: {len(res)} results, {len(dl)} dead letters, {len(tm)} timings, {len(st)} statuses")
PY
# the operator tool reads the same results
"$cuzk" results --brokers "$KAFKA_BROKERS" --prefix "$prefix" --job-id good-3 > "$work/cli.txt" ||
  fail "cuzk results --job-id good-3 did not report OK"
grep -q "job_id=good-3 status=OK proof_bytes=192 partitions=1 verified=true agent=agent-a" "$work/cli.txt" ||
  fail "cuzk results printed: $(cat "$work/cli.txt")"
"$cuzk" results --brokers "$KAFKA_BROKERS" --prefix "$prefix" > "$work/cli_all.txt"
[ "$(grep -c "^job_id=" "$work/cli_all.txt")" -eq 8 ] || fail "cuzk results listed $(wc -l < "$work/cli_all.txt") lines, want 8"
grep -q "job_id=junk status=REJECTED .*error=CUZK_ERR_PARSE" "$work/cli_all.txt" || fail "no REJECTED line for junk"
log "single agent ok ($(( $(date +%s) - t0 )) s)"

# a second agent joins the group; jobs on both partitions of each topic are shared
write_cfg "$work/b.cfg" agent-b
start_agent "$work/b.cfg" "$work/b.log"
pid_b=$agent_pid
sleep 8  # rebalance
for i in 1 2 3 4 5 6 7 8; do
  submit "share-$i" window-post --circuit synthetic-10 --partition $(( i % 2 ))
done
wait_results 16 120
dump results ProofResult > "$work/results2.json"
/usr/bin/python3 - "$work" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(f"{sys.argv[1]}/results2.json")]
share = {r["job_id"]: r for r in rs if r["job_id"].startswith("share-")}
assert len(share) == 8 and all(r["status"] == "OK" and r["verified"] for r in share.values()), share
by = {}
for r in share.values():
    by[r["agent_id"]] = by.get(r["agent_id"], 0) + 1
assert set(by) == {"agent-a", "agent-b"}, by
print("ok: shared", by)
PY
# SIGHUP: a reloadable change applies; a change to a key that is not reloadable is refused
sed -i 's/status_interval_s = 2;/status_interval_s = 3;/' "$work/a.cfg"
kill -HUP "$pid_a"
sed -i 's/status_interval_s = 2;/status_interval_s = 3;/; s/group_id = "[^"]*"/group_id = "other"/' "$work/b.cfg"
kill -HUP "$pid_b"
sleep 1
grep -q "event=reconfigured status_interval_s=3" "$work/a.log" || fail "SIGHUP did not reconfigure agent A"
grep -q "kafka.group_id: changed" "$work/b.log" || fail "SIGHUP did not refuse a group_id change"
kill -0 "$pid_a" && kill -0 "$pid_b" || fail "an agent died on SIGHUP"
stop_agent "$pid_a" "$pid_b"
grep -q "event=stopped" "$work/a.log" || fail "agent A did not log a graceful stop"
if grep -q "level=error" "$work/a.log" "$work/b.log"; then
  grep "level=error" "$work/a.log" "$work/b.log" | head -5 >&2
  fail "error lines in the agents' logs"
fi
log "ok ($(( $(date +%s) - t0 )) s)"
