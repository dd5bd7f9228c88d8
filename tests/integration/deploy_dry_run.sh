#!/usr/bin/env bash
# ops/deploy/cuzk-host --dry-run on a sample env file: the docker command lines carry the flags
# we rely on (parsed back into argv by bash, not grepped), the rendered cuzk.cfg is accepted by
# the real config loader (`cuzk agent --check-config`) with the values from the env file, and bad
# env files are rejected with exit 2 naming the key. The systemd unit passes
# `systemd-analyze verify` (when available) with no diagnostics.
# cuzk-test: labels=integration timeout=60
set -euo pipefail
SRC=${CUZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUZK_BIN:-$SRC/build/agent/cuzk}
HOST=$SRC/ops/deploy/cuzk-host
[[ -x $BIN ]] || { echo "FAIL: cuzk binary not found at $BIN (set CUZK_BIN)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/host.env" <<EOF
# sample host
CUZK_KAFKA_BROKERS=kafka-1.example.net:9092,kafka-2.example.net:9092
CUZK_KAFKA_GROUP_ID=cuzk-provers
CUZK_AGENT_ID=gpu-host-7
CUZK_IMAGE="registry.example.net/cuzk:0.1.0"
CUZK_GPUS=0,1
CUZK_MEMORY_BUDGET=96GiB
CUZK_ENABLED_TYPES=porep-c2,snap-deals
export CUZK_STATIC_MEMBERSHIP=true
CUZK_KAFKA_PROPERTIES=security.protocol=ssl,ssl.ca.location=/etc/cuzk/ca.pem
CUZK_CONFIG_DIR=$TMP/etc
CUZK_PARAMS_DIR=/srv/params
CUZK_STOP_TIMEOUT=600
EOF

"$HOST" --env-file "$TMP/host.env" --dry-run up >"$TMP/up.out"
[[ ! -e $TMP/etc ]] || fail "dry run wrote files"

# The rendered config, checked by the real loader, and the values it holds.
sed -n '/^----- BEGIN .*cuzk.cfg -----$/,/^----- END .*cuzk.cfg -----$/{/^-----/d;p}' "$TMP/up.out" >"$TMP/cuzk.cfg"
[[ -s $TMP/cuzk.cfg ]] || fail "no rendered config in the dry-run output"
( unset "${!CUZK_AGENT_@}" "${!CUZK_KAFKA_@}" "${!CUZK_ENGINE_@}"
  "$BIN" agent --check-config "$TMP/cuzk.cfg" ) || fail "cuzk agent --check-config rejects the rendered config"
( unset "${!CUZK_AGENT_@}" "${!CUZK_KAFKA_@}" "${!CUZK_ENGINE_@}"
  "$BIN" agent --print-config --config "$TMP/cuzk.cfg" ) >"$TMP/effective.cfg"
for want in 'id = "gpu-host-7";' 'brokers = "kafka-1.example.net:9092,kafka-2.example.net:9092";' \
  'group_id = "cuzk-provers";' 'group_instance_id = "gpu-host-7";' 'memory_budget = "96GiB";' \
  'shutdown_grace_s = 570;' 'http_listen = "0.0.0.0:9464";'; do
  grep -qF -- "$want" "$TMP/effective.cfg" || fail "effective config lacks: $want"
done
types=$(grep -E '^\s*enabled_types = ' "$TMP/effective.cfg")
[[ $types == *'"porep-c2"'* && $types == *'"snap-deals"'* && $types != *window-post* && $types != *winning-post* ]] \
  || fail "enabled_types: $types"
grep -qF '("security.protocol", "ssl")' "$TMP/effective.cfg" || fail "kafka property missing"
echo "ok: rendered config accepted by cuzk agent --check-config"

# The docker run line, parsed back into argv.
line=$(grep '^+ docker run --detach' "$TMP/up.out") || fail "no docker run line"
eval "argv=(${line#+ })"
has() { # consecutive argv elements
  local n=$# i j
  for ((i = 0; i + n <= ${#argv[@]}; i++)); do
    for ((j = 0; j < n; j++)); do
      [[ ${argv[i + j]} == "${@:j+1:1}" ]] || continue 2
    done
    return 0
  done
  fail "docker run lacks: $*"
}
has --runtime=nvidia
has --gpus '"device=0,1"'
has --ulimit memlock=-1:-1
has --shm-size 16g
has --stop-timeout 600
has --stop-signal SIGTERM
has --restart unless-stopped
has --log-driver journald
has --log-opt tag=cuzk/gpu-host-7
has --publish 127.0.0.1:9464:9464
has --volume "$TMP/etc:/etc/cuzk:ro"
has --volume /srv/params:/var/lib/cuzk/params:ro
has registry.example.net/cuzk:0.1.0 agent --config /etc/cuzk/cuzk.cfg
[[ ${argv[-1]} == /etc/cuzk/cuzk.cfg ]] || fail "arguments after the config path"
grep -qF "+ docker pull registry.example.net/cuzk:0.1.0" "$TMP/up.out" || fail "no pull"
grep -qF "agent --check-config /etc/cuzk/cuzk.cfg" "$TMP/up.out" || fail "no config check before start"
grep -qF "+ docker stop --time 600 cuzk" "$TMP/up.out" || fail "old container not stopped gracefully"
echo "ok: docker run flags"

# (outputs captured before grep -q: an early grep exit would SIGPIPE the writer under pipefail)
out=$("$HOST" --env-file "$TMP/host.env" -n down)
grep -qF "+ docker stop --time 600 cuzk" <<<"$out" || fail "down"
out=$("$HOST" --env-file "$TMP/host.env" -n status)
grep -qF "http://127.0.0.1:9464/readyz" <<<"$out" || fail "status"
out=$("$HOST" --env-file "$TMP/host.env" -n logs -f)
grep -qF "+ docker logs --tail 200 --follow cuzk" <<<"$out" || fail "logs"
sed -e 's/^CUZK_GPUS=.*/CUZK_GPUS=all/' -e '$a CUZK_LOG_DRIVER=json-file' "$TMP/host.env" >"$TMP/all.env"
out=$("$HOST" --env-file "$TMP/all.env" -n up | grep '^+ docker run --detach')
eval "argv=(${out#+ })"
has --gpus all
has --log-opt max-size=100m
echo "ok: down, status, logs, --gpus all, json-file logs"

# Bad env files: exit 2, and the message names the problem.
reject() { # NAME EXPECTED-MESSAGE SED-EXPR...
  local name=$1 msg=$2
  shift 2
  sed "$@" "$TMP/host.env" >"$TMP/bad-$name.env"
  set +e
  "$HOST" --env-file "$TMP/bad-$name.env" --dry-run up >"$TMP/bad.out" 2>"$TMP/bad.err"
  local rc=$?
  set -e
  [[ $rc == 2 ]] || fail "$name: exit $rc, want 2"
  grep -qF -- "$msg" "$TMP/bad.err" || { cat "$TMP/bad.err"; fail "$name: message lacks '$msg'"; }
  ! grep -q '^+ docker' "$TMP/bad.out" || fail "$name: commands printed for a bad env file"
}
reject no-brokers "CUZK_KAFKA_BROKERS is required" -e '/^CUZK_KAFKA_BROKERS=/d'
reject no-image "CUZK_IMAGE is required" -e '/^CUZK_IMAGE=/d'
reject unknown-key "unknown key CUZK_KAFKA_BROKER" -e '$a CUZK_KAFKA_BROKER=x:1'
reject twice "CUZK_GPUS set twice" -e '$a CUZK_GPUS=0'
reject bad-gpus "CUZK_GPUS" -e 's/^CUZK_GPUS=.*/CUZK_GPUS=0;1/'
reject latest "not :latest" -e 's/^CUZK_IMAGE=.*/CUZK_IMAGE=cuzk:latest/'
reject untagged "CUZK_IMAGE: want name:tag" -e 's/^CUZK_IMAGE=.*/CUZK_IMAGE=cuzk/'
reject quote "quotes, backslashes" -e 's/^CUZK_AGENT_ID=.*/CUZK_AGENT_ID=x";evil="/'
reject dollar "quotes, backslashes" -e 's/^CUZK_AGENT_ID=.*/CUZK_AGENT_ID=$(reboot)/'
reject budget "CUZK_MEMORY_BUDGET" -e 's/^CUZK_MEMORY_BUDGET=.*/CUZK_MEMORY_BUDGET=96G/'
reject type "unknown proof type 'porep'" -e 's/^CUZK_ENABLED_TYPES=.*/CUZK_ENABLED_TYPES=porep/'
reject grace "CUZK_SHUTDOWN_GRACE_S" -e '$a CUZK_SHUTDOWN_GRACE_S=595'
reject brokers "CUZK_KAFKA_BROKERS: want host:port" -e 's/^CUZK_KAFKA_BROKERS=.*/CUZK_KAFKA_BROKERS=kafka-1/'
reject relpath "CUZK_PARAMS_DIR" -e 's|^CUZK_PARAMS_DIR=.*|CUZK_PARAMS_DIR=params|'
reject garbage "not KEY=VALUE" -e '$a this is not a setting'
reject property "CUZK_KAFKA_PROPERTIES" -e 's/^CUZK_KAFKA_PROPERTIES=.*/CUZK_KAFKA_PROPERTIES=novalue/'
set +e
"$HOST" --env-file "$TMP/host.env" --dry-run restart >/dev/null 2>&1
[[ $? == 2 ]] || fail "unknown command not a usage error"
"$HOST" --env-file "$TMP/missing.env" --dry-run up >/dev/null 2>&1
[[ $? == 2 ]] || fail "missing env file not a usage error"
set -e
echo "ok: bad env files rejected"

if command -v systemd-analyze >/dev/null; then
  sed "s|/usr/local/bin/cuzk|$BIN|g" "$SRC/ops/deploy/cuzk.service" >"$TMP/cuzk.service"
  diag=$(systemd-analyze verify "$TMP/cuzk.service" 2>&1 | grep -F "cuzk.service" || true)
  [[ -z $diag ]] || fail "systemd-analyze verify: $diag"
  for key in 'LimitMEMLOCK=infinity' 'TimeoutStopSec=300' 'Restart=on-failure' 'EnvironmentFile=-/etc/cuzk/cuzk.env'; do
    grep -qx -- "$key" "$SRC/ops/deploy/cuzk.service" || fail "cuzk.service lacks $key"
  done
  # the check must be able to fail
  sed 's/^Restart=on-failure/Restart=sometimes/' "$TMP/cuzk.service" >"$TMP/bad.service"
  out=$(systemd-analyze verify "$TMP/bad.service" 2>&1 || true)
  grep -qF "bad.service" <<<"$out" || fail "systemd-analyze missed a bad unit"
  echo "ok: systemd-analyze verify cuzk.service"
else
  echo "note: systemd-analyze not available; unit not verified"
fi
