#!/usr/bin/env bash
# ops/prometheus: the fleet config and the alert rules pass promtool's checks, and the rules
# behave as intended on synthetic series (promtool test rules ops/prometheus/cuzk-alerts.test.yml).
# cuzk-test: labels=integration timeout=60
set -euo pipefail
if ! command -v promtool >/dev/null; then
  echo "SKIP: promtool not installed (Debian package 'prometheus')"
  exit 77
fi
SRC=${CUZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$SRC/ops/prometheus"
promtool check rules cuzk-alerts.yml
promtool check config prometheus.yml
promtool test rules cuzk-alerts.test.yml

# The test file must be able to fail: a wrong expectation is reported.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cp cuzk-alerts.yml "$TMP/"
sed 's/busy only 30%/busy only 31%/' cuzk-alerts.test.yml >"$TMP/mutated.test.yml"
if (cd "$TMP" && promtool test rules mutated.test.yml >/dev/null 2>&1); then
  echo "FAIL: a mutated expectation still passes"
  exit 1
fi
echo "ok: rules, config and rule tests"
