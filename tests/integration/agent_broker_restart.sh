#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=300
# The broker restarts under a running agent (same data directory and port): the agent keeps
# running through the outage, proves what was queued before it and what is submitted after it,
# and stops gracefully. Restarting a broker would disturb other tests sharing it, so this test
# always runs on a private broker of its own.
if [ -z "${CUZK_PRIVATE_BROKER:-}" ]; then
  export CUZK_PRIVATE_BROKER=1
  unset KAFKA_BROKERS KAFKA_DIR
fi
source "$(dirname "${BASH_SOURCE[0]}")/agent_lib.bash"
need_broker "$@"
[ -n "${KAFKA_DIR:-}" ] && [ -f "$KAFKA_DIR/kafka.pid" ] || fail "no private broker state (KAFKA_DIR)"
t0=$(date +%s)
setup_suite
make_params 10
write_cfg "$work/a.cfg" agent-r
start_agent "$work/a.cfg" "$work/a.log"
pid=$agent_pid
submit r-1 window-post --circuit synthetic-10
submit r-2 winning-post --circuit synthetic-10
wait_results 2 90

bpid=$(cat "$KAFKA_DIR/kafka.pid")
mapfile -d '' cmd < "/proc/$bpid/cmdline"
kill -TERM "$bpid"
for i in $(seq 1 300); do kill -0 "$bpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$bpid" 2>/dev/null && fail "broker did not stop"
log "broker stopped; down for 5 s"
sleep 5
kill -0 "$pid" 2>/dev/null || fail "agent died while the broker was down"
# nohup execs the JVM, so $! is the broker's pid; ops/kafka/stop (run by with-broker) reads it
cd "$KAFKA_DIR"
nohup "${cmd[@]}" >>"$KAFKA_DIR/kafka.out" 2>&1 </dev/null &
echo $! > "$KAFKA_DIR/kafka.pid"
cd - >/dev/null
end=$(( $(date +%s) + 90 ))
until kcat -L -b "$KAFKA_BROKERS" -m 2 -J 2>/dev/null | grep -q '"brokers":\[{"id":1'; do
  [ "$(date +%s)" -lt "$end" ] || fail "broker did not come back"
  sleep 0.5
done
log "broker back after $(( $(date +%s) - t0 )) s"
submit r-3 porep-c2 --circuit synthetic-10
submit r-4 snap-deals --circuit synthetic-10
wait_results 4 150
kill -0 "$pid" 2>/dev/null || fail "agent died"
stop_agent "$pid"
dump results ProofResult > "$work/results.json"
/usr/bin/python3 - "$work" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(f"{sys.argv[1]}/results.json")]
ok = {r["job_id"] for r in rs if r["status"] == "OK" and r["verified"]}
assert ok == {"r-1", "r-2", "r-3", "r-4"}, rs
print(f"ok: {len(rs)} results")
PY
grep -q "event=stopped" "$work/a.log" || fail "no graceful stop"
log "ok ($(( $(date +%s) - t0 )) s)"
