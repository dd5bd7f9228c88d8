#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=300
# kill -9 of the agent in the middle of a queue of 30 real (synthetic 2^12, CPU) jobs: a restarted
# agent in the same group publishes a result for every job (none lost); a job proved twice
# (finished but not yet committed at the kill) repeats under the same job_id; offsets listed as
# completed in the commit metadata are skipped rather than proved again. The agent uses static
# membership (kafka.group_instance_id), so the restarted one takes the same assignment back.
source "$(dirname "${BASH_SOURCE[0]}")/agent_lib.bash"
need_broker "$@"
t0=$(date +%s)
setup_suite
make_params 12
write_cfg "$work/a.cfg" agent-k agent-k-host1
n=30
for i in $(seq 1 $n); do
  submit "k-$i" porep-c2 --circuit synthetic-12 --partition 0
done
start_agent "$work/a.cfg" "$work/a1.log"
pid=$agent_pid
# wait for the first results, then kill -9 while the rest are queued or proving
end=$(( $(date +%s) + 90 ))
while ! grep -q "event=result_published" "$work/a1.log"; do
  [ "$(date +%s)" -lt "$end" ] || fail "no result within 90 s"
  sleep 0.1
done
sleep 0.1
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
before=$(grep -c "event=result_published" "$work/a1.log" || true)
log "killed after $before of $n results"
[ "$before" -lt "$n" ] || fail "all jobs finished before the kill; the test proves nothing"

start_agent "$work/a.cfg" "$work/a2.log"
pid=$agent_pid
wait_results "$n" 150
stop_agent "$pid"
dump results ProofResult > "$work/results.json"
/usr/bin/python3 - "$work" "$n" <<'PY'
import json, sys
w, n = sys.argv[1], int(sys.argv[2])
rs = [json.loads(l) for l in open(f"{w}/results.json")]
ids = [r["job_id"] for r in rs]
assert set(ids) == {f"k-{i}" for i in range(1, n + 1)}, sorted(set(ids))
assert all(r["status"] == "OK" and r["verified"] and r["_key"] == r["job_id"] for r in rs), rs
dups = sorted({i for i in ids if ids.count(i) > 1})
print(f"ok: {len(set(ids))} jobs, {len(rs)} results, repeated: {dups}")
PY
skipped=$(grep -c "event=skip_completed" "$work/a2.log" || true)
submitted=$(grep -c "event=job_submitted" "$work/a2.log" || true)
log "restarted agent: $submitted proved, $skipped skipped as already completed"
[ $(( submitted + skipped )) -le "$n" ] || fail "the restarted agent took more offsets than exist"
log "ok ($(( $(date +%s) - t0 )) s)"
