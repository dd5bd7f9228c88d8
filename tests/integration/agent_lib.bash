# Shared helpers of the agent integration tests (sourced; not a test itself).
# Each test runs against $KAFKA_BROKERS (ops/test exports it) or, standalone, re-executes itself
# under ops/kafka/with-broker (exit 77 = SKIP when no broker can be had).
set -euo pipefail
root="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cuzk="${CUZK_BIN:-$root/build/agent/cuzk}"
schemas="$root/schemas"
name="$(basename "$0" .sh)"
log() { echo "$name: $*"; }
fail() { echo "$name: FAIL: $*" >&2; exit 1; }

# Re-executes the calling script under its own broker unless $KAFKA_BROKERS is set.
need_broker() {
  if [ -z "${KAFKA_BROKERS:-}" ]; then
    command -v java >/dev/null || { echo "SKIP: no java for the test broker" >&2; exit 77; }
    exec "$root/ops/kafka/with-broker" bash "$0" "$@"
  fi
  command -v kcat >/dev/null || { echo "SKIP: kcat missing" >&2; exit 77; }
  /usr/bin/python3 -c 'import avro.io' 2>/dev/null || { echo "SKIP: python3-avro missing" >&2; exit 77; }
  [ -x "$cuzk" ] || fail "no cuzk binary at $cuzk"
}

# A unique prefix and work directory; topics created; cleanup of agents on exit.
agents=()
setup_suite() {
  prefix="it$(date +%s%N | tail -c 9)$RANDOM"
  work="$(mktemp -d "${TMPDIR:-/tmp}/cuzk-$name.XXXXXX")"
  trap 'for p in "${agents[@]}"; do kill -9 "$p" 2>/dev/null || true; done; if [ "${keep_work:-0}" = 1 ]; then echo "$name: work dir kept: $work" >&2; else rm -rf "$work"; fi' EXIT
  trap 'keep_work=1' ERR
  "$root/ops/kafka/topics" --brokers "$KAFKA_BROKERS" -p 2 --cuzk "$prefix" >/dev/null
  log "broker $KAFKA_BROKERS prefix $prefix work $work"
}

# make_params LOG_N: insecure synthetic parameters in $work/params through `cuzk setup`.
make_params() {
  "$cuzk" setup --circuit synthetic --log-n "$1" --out "$work/params" >/dev/null
}

# write_cfg FILE AGENT_ID [GROUP_INSTANCE_ID]
write_cfg() {
  cat > "$1" <<CFG
agent: {
  id = "$2";
  log_level = "info";
  status_interval_s = 2;
  shutdown_grace_s = 10;
  http_listen = "";
  params_dir = "$work/params";
  work_dir = "$work";
  allow_insecure_params = true;
};
kafka: {
  brokers = "$KAFKA_BROKERS";
  topic_prefix = "$prefix";
  group_id = "$prefix-provers";
  group_instance_id = "${3:-}";
  poll_interval_ms = 50;
  consumer_properties = ( ("session.timeout.ms", "6000"), ("heartbeat.interval.ms", "500") );
};
engine: {
  memory_budget = "2GiB";
};
CFG
}

# start_agent CFG LOG: starts `cuzk agent` in the background; its pid in $agent_pid.
declare -A agent_log=()
start_agent() {
  "$cuzk" agent --config "$1" >>"$2" 2>&1 &
  agent_pid=$!
  agents+=("$agent_pid")
  agent_log[$agent_pid]="$2"
}

# submit JOB_ID TYPE [extra args...]
submit() {
  local id="$1" type="$2"
  shift 2
  "$cuzk" submit --brokers "$KAFKA_BROKERS" --prefix "$prefix" --type "$type" --job-id "$id" "$@" >/dev/null
}

# dump SUFFIX RECORD: every message of <prefix>.SUFFIX read by kcat, decoded by python3-avro,
# one JSON object per line on stdout.
dump() {
  local f="$work/dump.$1.bin"
  kcat -C -b "$KAFKA_BROKERS" -t "$prefix.$1" -o beginning -e -q -f '%k\t%R%s' > "$f"
  /usr/bin/python3 "$root/tests/integration/avro_dump.py" "$schemas" "$2" "$f"
}

# wait_results N TIMEOUT_S: until the results topic holds at least N distinct job ids.
wait_results() {
  local want="$1" end=$(( $(date +%s) + $2 )) n=0
  while [ "$(date +%s)" -lt "$end" ]; do
    n=$(dump results ProofResult | /usr/bin/python3 -c 'import json,sys; print(len({json.loads(l)["job_id"] for l in sys.stdin if "job_id" in json.loads(l)}))')
    [ "$n" -ge "$want" ] && return 0
    sleep 1
  done
  fail "only $n of $want results within $2 s"
}

# stop_agent PID...: SIGTERM to every PID at once (agents of one group leave together, so none
# waits in a rebalance the others' departures start), then wait; fails when one does not exit 0
# within 60 s, showing the end of its log.
stop_agent() {
  local p i rc
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "$@"; do
    for i in $(seq 1 600); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$p" 2>/dev/null; then
      [ -n "${agent_log[$p]:-}" ] && tail -25 "${agent_log[$p]}" >&2
      fail "agent $p did not stop within 60 s of SIGTERM"
    fi
    rc=0
    wait "$p" || rc=$?
    [ "$rc" -eq 0 ] || fail "agent $p exited $rc after SIGTERM"
  done
}
