#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=300
# The test broker end to end: fetch the pinned Kafka jars (SKIP, exit 77, when Maven Central is
# unreachable and none are present), start a KRaft broker, create cuzk's topics, move messages
# between independent clients (kcat on librdkafka; kafkajs, pure JavaScript, when the npm oracles
# are installed), and run tests/unit/test_kafka_real (librdkafka 2.0.2: idempotent producer,
# consumer group with manual offset store, pause/resume, restart, transactions).
# With $KAFKA_BROKERS already set (ops/test runs the suite under ops/kafka/with-broker) it uses
# that broker and leaves test_kafka_real to ctest, which runs it as its own test there.
set -euo pipefail
root="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
kafka="$root/ops/kafka"
t_start=$(date +%s)
log() { echo "kafka_broker: $*"; }
fail() { echo "kafka_broker: FAIL: $*" >&2; exit 1; }

own=0
if [ -z "${KAFKA_BROKERS:-}" ]; then
  own=1
  set +e
  "$kafka/fetch"
  rc=$?
  set -e
  if [ $rc -ne 0 ]; then
    if [ $rc -eq 3 ] && ! "$kafka/fetch" --check; then
      echo "SKIP: no Kafka jars in ops/kafka/dist and Maven Central is unreachable" >&2
      exit 77
    fi
    fail "ops/kafka/fetch exited $rc"
  fi
  dir="$(mktemp -d "${TMPDIR:-/tmp}/cuzk-it-kafka.XXXXXX")"
  keep=0
  cleanup() {
    "$kafka/stop" --dir "$dir" || true
    if [ "$keep" -eq 0 ]; then rm -rf "$dir"; else echo "kafka_broker: broker state kept in $dir" >&2; fi
  }
  trap cleanup EXIT
  trap 'keep=1' ERR
  out="$("$kafka/start" --dir "$dir")" || { keep=1; fail "broker did not start"; }
  export KAFKA_BROKERS="${out#KAFKA_BROKERS=}"
  log "own broker at $KAFKA_BROKERS ($(( $(date +%s) - t_start )) s incl. fetch check)"
else
  log "using broker $KAFKA_BROKERS"
fi
b="$KAFKA_BROKERS"
p="it$$"

# topics: the eight of DESIGN §7 under a fresh prefix, two partitions each
"$kafka/topics" --brokers "$b" -p 2 --cuzk "$p" >/dev/null
md="$(kcat -L -b "$b" -J)"
for s in jobs.winning-post jobs.window-post jobs.snap-deals jobs.porep-c2 results \
         telemetry.partitions telemetry.agents jobs.dead-letter; do
  echo "$md" | grep -q "\"topic\":\"$p.$s\",\"partitions\":\[{\"partition\":0" ||
    { echo "$md" >&2; fail "topic $p.$s missing"; }
done
# auto-creation is off: consuming an unknown topic must not create it
kcat -C -b "$b" -t "$p.no-such-topic" -e -q -m 2 >/dev/null 2>&1 || true
kcat -L -b "$b" -J | grep -q "\"topic\":\"$p.no-such-topic\",\"partitions\":\[{" &&
  fail "topic auto-creation is on"
log "topics created and listed"

# kcat -> kcat
jobs="$p.jobs.porep-c2"
printf 'job-%d:payload-%d\n' 1 1 2 2 3 3 4 4 5 5 6 6 | kcat -P -b "$b" -t "$jobs" -K: -X enable.idempotence=true
got="$(kcat -C -b "$b" -t "$jobs" -o beginning -e -q -f '%k=%s\n' | sort)"
want="$(printf 'job-%d=payload-%d\n' 1 1 2 2 3 3 4 4 5 5 6 6 | sort)"
[ "$got" = "$want" ] || fail "kcat round trip: got [$got] want [$want]"
log "kcat produce/consume: 6 messages"

# kafkajs <-> kcat, when the npm oracles are installed
oracles="${CUZK_ORACLES:-$root/tests/oracles}"
if [ -d "$oracles/node_modules/kafkajs" ] && command -v node >/dev/null; then
  export CUZK_ORACLES="$oracles"
  res="$p.results"
  node "$root/tests/integration/kafkajs_client.js" produce "$b" "$res" a=1 b=2 c=3
  got="$(kcat -C -b "$b" -t "$res" -o beginning -e -q -f '%k=%s\n' | sort | tr '\n' ' ')"
  [ "$got" = "a=1 b=2 c=3 " ] || fail "kafkajs -> kcat: got [$got]"
  got="$(node "$root/tests/integration/kafkajs_client.js" consume "$b" "$jobs" 6 | sort)"
  [ "$got" = "$want" ] || fail "kcat -> kafkajs: got [$got] want [$want]"
  log "kafkajs <-> kcat: ok"
else
  log "kafkajs not installed in $oracles (ops/install-deps): that cross-check skipped"
fi

if [ "$own" -eq 1 ]; then
  bin="${CUZK_TEST_KAFKA_REAL:-}"
  if [ -z "$bin" ] && [ -n "${CUZK_BIN:-}" ]; then
    bin="$(dirname "$CUZK_BIN")/../tests/test_kafka_real"
  fi
  [ -n "$bin" ] || bin="$root/build/tests/test_kafka_real"
  [ -x "$bin" ] || fail "test binary $bin not found (build first, or set CUZK_TEST_KAFKA_REAL)"
  "$bin"
fi
log "passed in $(( $(date +%s) - t_start )) s"
