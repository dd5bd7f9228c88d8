#!/usr/bin/env bash
# A real Prometheus scrapes `cuzk metrics-selftest` and its query API returns our series with
# the values the selftest sets (agent/http/selftest.c), including a label value with quotes and
# a backslash (escaping checked by Prometheus's own parser) and the consumer lag of the recorded
# librdkafka statistics sample. `promtool check metrics` lints the exposition text.
# cuzk-test: labels=integration timeout=90
set -euo pipefail

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "SKIP: prometheus/promtool not installed (Debian package 'prometheus')"
  exit 77
fi
SRC=${CUZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUZK_BIN:-$SRC/build/agent/cuzk}
[[ -x $BIN ]] || { echo "FAIL: cuzk binary not found at $BIN (set CUZK_BIN)"; exit 1; }

TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
MPORT=$(free_port)
PPORT=$(free_port)
while [[ $PPORT == "$MPORT" ]]; do PPORT=$(free_port); done

"$BIN" metrics-selftest --listen "127.0.0.1:$MPORT" --seconds 80 \
  --kafka-stats "$SRC/tests/unit/data/kafka_stats_consumer.json" >"$TMP/selftest.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$MPORT/healthz" >/dev/null && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$MPORT/healthz" >/dev/null || { cat "$TMP/selftest.log"; echo "FAIL: selftest did not start"; exit 1; }

curl -sf "http://127.0.0.1:$MPORT/metrics" >"$TMP/metrics.txt"
if ! promtool check metrics <"$TMP/metrics.txt" >"$TMP/lint.txt" 2>&1; then
  cat "$TMP/lint.txt"
  echo "FAIL: promtool check metrics"
  exit 1
fi
echo "ok: promtool check metrics"

# Every cuzk_* name the alert rules use is one we export (a typo would never fire).
python3 - "$SRC/ops/prometheus/cuzk-alerts.yml" "$TMP/metrics.txt" <<'PY'
import re, sys
used = set(re.findall(r"\b(cuzk_[a-z0-9_]+)", open(sys.argv[1]).read()))
fams = set(re.findall(r"^# TYPE (\S+) ", open(sys.argv[2]).read(), re.M))
missing = sorted(n for n in used if n not in fams)
if missing:
    sys.exit("FAIL: alert rules use unknown metrics: " + ", ".join(missing))
print("ok: the alert rules use only exported metrics (%d names)" % len(used))
PY
cp "$SRC/ops/prometheus/cuzk-alerts.yml" "$TMP/"

cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - cuzk-alerts.yml
scrape_configs:
  - job_name: cuzk
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
EOF
promtool check config "$TMP/prometheus.yml" >/dev/null
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/data" \
  --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$TMP/prometheus.log" 2>&1 &
PIDS+=($!)

# query EXPR -> prints "labels-json<TAB>value" per series (empty when no result yet)
query() {
  curl -sf --get "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys
d=json.load(sys.stdin)
assert d["status"]=="success", d
for r in d["data"]["result"]:
    print(json.dumps(r["metric"], sort_keys=True) + "\t" + r["value"][1])' 2>/dev/null || true
}

deadline=$((SECONDS + 45))
until [[ "$(query 'cuzk_jobs_total{type="porep-c2",status="ok"}' | cut -f2)" == 42 ]]; do
  if ((SECONDS > deadline)); then
    tail -20 "$TMP/prometheus.log"
    echo "FAIL: Prometheus never returned cuzk_jobs_total"
    exit 1
  fi
  sleep 0.5
done
echo "ok: Prometheus scraped cuzk_jobs_total = 42"

fail=0
expect() { # EXPR VALUE
  local got
  got=$(query "$1" | cut -f2)
  if [[ "$got" == "$2" ]]; then
    echo "ok: $1 = $2"
  else
    echo "FAIL: $1 = '$got', want '$2'"
    fail=1
  fi
}
expect 'up{job="cuzk"}' 1
expect 'cuzk_jobs_total{type="window-post",status="failed"}' 3
expect 'cuzk_gpu_busy_ratio{gpu="0"}' 0.75
expect 'cuzk_budget_total_bytes' 103079215104
expect 'cuzk_budget_used_bytes / cuzk_budget_total_bytes' 0.25
expect 'cuzk_gpu_h2d_bytes_total{gpu="0"}' 3221225472
expect 'cuzk_kafka_consumer_lag_messages{topic="cuzk.jobs.porep-c2",partition="0"}' 6
expect 'cuzk_kafka_consumer_lag_messages{topic="cuzk.jobs.snap-deals",partition="0"}' 2
expect 'sum(cuzk_kafka_consumer_lag_messages)' 8
expect 'cuzk_phase_duration_seconds_count{type="porep-c2",phase="gpu"}' 3
expect 'cuzk_phase_duration_seconds_sum{type="porep-c2",phase="gpu"}' 34.5
expect 'cuzk_phase_duration_seconds_bucket{type="porep-c2",phase="gpu",le="2.5"}' 1
expect 'cuzk_phase_duration_seconds_bucket{type="porep-c2",phase="gpu",le="+Inf"}' 3
expect 'cuzk_srs_resident_bytes{circuit="porep-32g",tier="device"}' 1000000000
expect 'count(cuzk_agent_info{agent="selftest"})' 1

# The alert rules evaluate without errors against the real series.
rules_py='import json,sys
d=json.load(sys.stdin)
rules=[r for g in d["data"]["groups"] for r in g["rules"]]
bad=[(r["name"], r.get("lastError","")) for r in rules if r["health"]!="ok"]
print("%d %s" % (len(rules), bad if bad else ""))'
for _ in $(seq 20); do
  rules_health=$(curl -sf "http://127.0.0.1:$PPORT/api/v1/rules" | python3 -c "$rules_py" || true)
  [[ $rules_health =~ ^[1-9][0-9]*\ $ ]] && break
  sleep 0.5
done
if [[ $rules_health =~ ^[1-9][0-9]*\ $ ]]; then
  echo "ok: ${rules_health% } alert rules loaded and healthy"
else
  echo "FAIL: alert rules: $rules_health"
  fail=1
fi

# The label value with quotes and a backslash, as Prometheus decoded it.
reason=$(query 'cuzk_dead_letters_total' | cut -f1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["reason"])')
if [[ "$reason" == 'bad "frame" \ x' ]]; then
  echo "ok: escaped label value round-trips: $reason"
else
  echo "FAIL: dead-letter reason label came back as '$reason'"
  fail=1
fi

# A counter that moves: two scrapes apart it has grown.
v1=$(query 'cuzk_partitions_total{type="porep-c2",status="ok"}' | cut -f2)
sleep 2.5
v2=$(query 'cuzk_partitions_total{type="porep-c2",status="ok"}' | cut -f2)
if python3 -c "import sys; sys.exit(0 if float('${v2:-0}') > float('${v1:-0}') > 0 else 1)"; then
  echo "ok: cuzk_partitions_total grows ($v1 -> $v2)"
else
  echo "FAIL: cuzk_partitions_total did not grow ($v1 -> $v2)"
  fail=1
fi
exit $fail
