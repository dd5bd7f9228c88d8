#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=300
# `cuzk telemetry` against a real agent session on the real broker: two agents (CPU backend,
# synthetic 2^10 circuits) prove jobs of two proof types; then `telemetry record` copies the
# partitions topic to a file, `telemetry report` renders it both from that file and straight from
# the topic, and `telemetry tail --max N` prints N record lines. The records are checked against
# kcat + python3-avro (tests/integration/telemetry_check.py does the independent busy %,
# percentile and structure checks). With TELEMETRY_KEEP=FILE the recorded file is copied there
# (that is how tests/data/telemetry/session.tel was made).
source "$(dirname "${BASH_SOURCE[0]}")/agent_lib.bash"
need_broker "$@"
setup_suite
make_params 10
write_cfg "$work/a.cfg" agent-a
write_cfg "$work/b.cfg" agent-b
start_agent "$work/a.cfg" "$work/a.log"
start_agent "$work/b.cfg" "$work/b.log"
sleep 3
# TELEMETRY_BURSTS bursts of TELEMETRY_PAIRS (window-post, porep-c2) pairs, 1.5 s apart, so
# that the timeline shows busy stretches and idle gaps
n=0
for b in $(seq 1 "${TELEMETRY_BURSTS:-1}"); do
  for i in $(seq 1 "${TELEMETRY_PAIRS:-4}"); do
    submit "wp-$b-$i" window-post --circuit synthetic-10 --partition $(( i % 2 ))
    submit "pc-$b-$i" porep-c2 --circuit synthetic-10 --partition $(( i % 2 ))
    n=$(( n + 2 ))
  done
  sleep 1.5
done
# an untrusted job id: must come out escaped in the report
submit '<script>alert(1)</script>&x' winning-post --circuit synthetic-10
n=$(( n + 1 ))
wait_results "$n" 180
stop_agent "${agents[@]}"
agents=()
topic="$prefix.telemetry.partitions"
dump telemetry.partitions PartitionTiming > "$work/kcat.jsonl"
want=$(grep -c '"job_id"' "$work/kcat.jsonl")
[ "$want" -ge "$n" ] || fail "only $want PartitionTiming records for $n jobs"

"$cuzk" telemetry record --brokers "$KAFKA_BROKERS" --topic "$topic" --out "$work/rec.tel" ||
  fail "telemetry record failed"
got=$(grep -vc '^#' "$work/rec.tel")
[ "$got" -eq "$want" ] || fail "recorded $got records, kcat saw $want"
if [ -n "${TELEMETRY_KEEP:-}" ]; then cp "$work/rec.tel" "$TELEMETRY_KEEP"; fi

"$cuzk" telemetry report --file "$work/rec.tel" --out "$work/file.html" || fail "report --file failed"
"$cuzk" telemetry report --brokers "$KAFKA_BROKERS" --prefix "$prefix" --out "$work/kafka.html" ||
  fail "report --brokers failed"
cmp -s "$work/file.html" "$work/kafka.html" || fail "report from the topic differs from the report from the file"
/usr/bin/python3 "$root/tests/integration/telemetry_check.py" "$schemas" "$work/rec.tel" "$work/file.html" ||
  fail "report check failed"

# a range that excludes everything is an error, a range that covers everything is the same report
if "$cuzk" telemetry report --file "$work/rec.tel" --until 1 --out "$work/none.html" 2>/dev/null; then
  fail "report with an empty range succeeded"
fi

"$cuzk" telemetry tail --brokers "$KAFKA_BROKERS" --prefix "$prefix" --max 3 > "$work/tail.txt" ||
  fail "tail failed"
[ "$(grep -c '^job=' "$work/tail.txt")" -eq 3 ] || fail "tail printed: $(cat "$work/tail.txt")"
grep -q '^-- busy over ' "$work/tail.txt" || fail "tail printed no busy summary"
grep -q 'pinned=' "$work/tail.txt" || fail "tail line lacks pinned"
log "ok: $want records"
