#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=120
# The real agent serves HTTP on a free loopback port while it proves on the real broker: after
# two synthetic jobs come back (results read with kcat + python3-avro), /healthz and /readyz
# answer 200, /status parses as JSON (python3) with the agent id, and a real Prometheus that
# scrapes the agent every second returns cuzk_jobs_total{status="ok"} summing to >= 2 through its
# query API. The agent also refuses to start when its http_listen port is taken.
source "$(dirname "${BASH_SOURCE[0]}")/agent_lib.bash"
if ! command -v prometheus >/dev/null || ! command -v curl >/dev/null; then
  echo "SKIP: prometheus or curl not installed" >&2
  exit 77
fi
need_broker "$@"
setup_suite
make_params 10

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
hport=$(free_port)
pport=$(free_port)
while [ "$pport" = "$hport" ]; do pport=$(free_port); done

write_cfg "$work/a.cfg" agent-metrics
sed -i "s|  http_listen = \"\";|  http_listen = \"127.0.0.1:$hport\";|" "$work/a.cfg"
grep -q "127.0.0.1:$hport" "$work/a.cfg" || fail "http_listen not set in the config"
start_agent "$work/a.cfg" "$work/a.log"
pid_a=$agent_pid

cat > "$work/prometheus.yml" <<PCFG
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: cuzk-agent
    static_configs:
      - targets: ['127.0.0.1:$hport']
PCFG
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom-data" \
  --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$work/prometheus.log" 2>&1 &
agents+=($!)

submit m-1 window-post --circuit synthetic-10
submit m-2 winning-post --circuit synthetic-10
wait_results 2 60
log "2 results published"

code() { curl -s -o "$work/body" -w '%{http_code}' "http://127.0.0.1:$hport$1" || true; }
[ "$(code /healthz)" = 200 ] || { cat "$work/a.log"; fail "/healthz: $(cat "$work/body")"; }
ready=""
for _ in $(seq 50); do
  ready=$(code /readyz)
  [ "$ready" = 200 ] && break
  sleep 0.2
done
[ "$ready" = 200 ] || fail "/readyz $ready: $(cat "$work/body")"
[ "$(code /status)" = 200 ] || fail "/status"
/usr/bin/python3 - "$work/body" <<'PY' || fail "/status: $(cat "$work/body")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["agent_id"] == "agent-metrics", d
assert d["partitions_assigned"] > 0 and d["broker_up"] is True, d
assert d["engine"]["budget"]["total"] > 0, d
PY
log "ok: /healthz 200, /readyz 200, /status JSON"

# A second agent on the same port fails to start with a clear message.
write_cfg "$work/b.cfg" agent-clash
sed -i "s|  http_listen = \"\";|  http_listen = \"127.0.0.1:$hport\";|" "$work/b.cfg"
rc=0
timeout 20 "$cuzk" agent --config "$work/b.cfg" >"$work/b.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "agent with a taken port exited $rc"
grep -q "http_listen" "$work/b.log" || fail "no clear error: $(cat "$work/b.log")"
log "ok: taken port refused ($(head -1 "$work/b.log"))"

query() {
  curl -sf --get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
    /usr/bin/python3 -c 'import json,sys
d=json.load(sys.stdin)
assert d["status"]=="success", d
for r in d["data"]["result"]:
    print(r["value"][1])' 2>/dev/null || true
}
got=""
end=$(( $(date +%s) + 40 ))
while [ "$(date +%s)" -lt "$end" ]; do
  got=$(query 'sum(cuzk_jobs_total{job="cuzk-agent",status="ok"})')
  [ -n "$got" ] && /usr/bin/python3 -c "import sys; sys.exit(0 if float('$got') >= 2 else 1)" && break
  got=""
  sleep 0.5
done
[ -n "$got" ] || { tail -20 "$work/prometheus.log"; fail "Prometheus never returned cuzk_jobs_total{status=\"ok\"} >= 2"; }
log "ok: Prometheus scraped the agent: sum(cuzk_jobs_total{status=\"ok\"}) = $got"
parts=$(query 'sum(cuzk_partitions_total{job="cuzk-agent"})')
[ -n "$parts" ] || fail "no cuzk_partitions_total"
log "ok: partitions $parts, phases $(query 'count(cuzk_phase_duration_seconds_count{job="cuzk-agent"})')"
srs=$(query 'sum(cuzk_srs_resident_bytes{job="cuzk-agent"})')
awk -v v="${srs:-0}" 'BEGIN{exit !(v > 0)}' || fail "cuzk_srs_resident_bytes is ${srs:-absent}, want > 0 after proving"
log "ok: SRS resident bytes $srs"

stop_agent "$pid_a"
log "PASS"
