#!/usr/bin/env bash
# cuzk-test: labels=integration timeout=60
# `cuzk telemetry report --file` on the telemetry recorded from a real agent session
# (tests/data/telemetry/session.tel): the HTML parses, has one SVG timeline per GPU, and its
# busy %, partition/job counts, pinned share and latency percentiles match an independent
# computation over the same records decoded with python3-avro (telemetry_check.py); the
# untrusted job id '<script>alert(1)</script>&x' comes out escaped. No broker needed.
set -euo pipefail
root="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cuzk="${CUZK_BIN:-$root/build/agent/cuzk}"
fail() { echo "telemetry_report_file: FAIL: $*" >&2; exit 1; }
/usr/bin/python3 -c 'import avro.io' 2>/dev/null || { echo "SKIP: python3-avro missing" >&2; exit 77; }
data="$root/tests/data/telemetry/session.tel"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$cuzk" telemetry report --file "$data" --out "$work/r.html" 2>/dev/null || fail "report failed"
/usr/bin/python3 "$root/tests/integration/telemetry_check.py" "$root/schemas" "$data" "$work/r.html" ||
  fail "default report"
"$cuzk" telemetry report --file "$data" --resolution 50 --title '<b>t</b>' --out "$work/r50.html" 2>/dev/null ||
  fail "report --resolution 50 failed"
/usr/bin/python3 "$root/tests/integration/telemetry_check.py" "$root/schemas" "$data" "$work/r50.html" 50 ||
  fail "50 ms report"
grep -q '&lt;b&gt;t&lt;/b&gt;' "$work/r50.html" || fail "title not escaped"
# every record finished after 2026-01-01: --since keeps all, --until drops all
"$cuzk" telemetry report --file "$data" --since 2026-01-01T00:00:00Z --out "$work/s.html" 2>/dev/null ||
  fail "--since failed"
cmp -s "$work/r.html" "$work/s.html" || fail "--since before the data changed the report"
rc=0; "$cuzk" telemetry report --file "$data" --until 2026-01-01T00:00:00Z --out "$work/u.html" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "--until before the data: exit $rc, want 1"
rc=0; "$cuzk" telemetry report --file "$data" --resolution 0 --out "$work/x.html" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "--resolution 0: exit $rc, want 2"
rc=0; "$cuzk" telemetry report --file "$work/none.tel" --out "$work/x.html" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "missing file: exit $rc, want 1"
rc=0; "$cuzk" telemetry report --file "$data" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "no --out: exit $rc, want 2"
echo "telemetry_report_file: ok"
