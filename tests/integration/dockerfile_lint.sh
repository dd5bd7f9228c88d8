#!/usr/bin/env bash
# Lints the Dockerfile's structure (there is no Docker engine here): two stages on the pinned
# CUDA 13.0 devel/runtime Ubuntu 24.04 images, a CUDA build for sm_90, no -dev packages and no
# remote ADD in the image, a non-root USER, HEALTHCHECK on /healthz, the documented VOLUMEs,
# EXPOSE, ENTRYPOINT and CMD; .dockerignore keeps build outputs and .git out of the context.
# Uses hadolint as well when it is installed (it is not packaged in Debian 12). The checker is
# run on mutated copies too, so that each check is seen to fail.
# cuzk-test: labels=integration timeout=60
set -euo pipefail
SRC=${CUZK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/lint.py" <<'PY'
import json, re, sys

def instructions(text):
    """(keyword, args) per instruction, continuation lines joined, comments dropped."""
    out, cur = [], ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if cur and line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        cur += line
        kw, _, args = cur.strip().partition(" ")
        out.append((kw.upper(), args.strip()))
        cur = ""
    if cur:
        kw, _, args = cur.strip().partition(" ")
        out.append((kw.upper(), args.strip()))
    return out

def lint(path, ignore_path):
    errs = []
    ins = instructions(open(path).read())
    args = {}
    for kw, a in ins:
        if kw == "ARG" and "=" in a and not stages_seen(ins, kw, a):
            k, v = a.split("=", 1)
            args[k] = v
    def expand(s):
        return re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), s)
    stages, cur = [], None
    for kw, a in ins:
        if kw == "FROM":
            cur = {"from": expand(a), "ins": []}
            stages.append(cur)
        elif cur is not None:
            cur["ins"].append((kw, a))
    if len(stages) < 2:
        errs.append("need a multi-stage build (>= 2 FROM)")
        return errs
    first, last = stages[0], stages[-1]
    m = re.fullmatch(r"nvidia/cuda:13\.0\.\d+-devel-ubuntu24\.04\s+AS\s+(\w+)", first["from"], re.I)
    if not m:
        errs.append("first stage must be FROM nvidia/cuda:13.0.x-devel-ubuntu24.04 AS <name>: %s" % first["from"])
    build_name = m.group(1) if m else "build"
    if not re.fullmatch(r"nvidia/cuda:13\.0\.\d+-runtime-ubuntu24\.04(\s+AS\s+\w+)?", last["from"], re.I):
        errs.append("final stage must be FROM nvidia/cuda:13.0.x-runtime-ubuntu24.04: %s" % last["from"])
    for st in stages:
        if re.search(r":latest\b", st["from"]) or ":" not in st["from"].split()[0]:
            errs.append("unpinned base image: " + st["from"])
    build_runs = " ".join(a for kw, a in first["ins"] if kw == "RUN")
    if "-DCUZK_CUDA=ON" not in build_runs or "-DCUZK_CUDA_ARCH=90" not in build_runs:
        errs.append("build stage must configure with -DCUZK_CUDA=ON -DCUZK_CUDA_ARCH=90")
    for st in stages:
        for kw, a in st["ins"]:
            if kw == "ADD" and re.search(r"\b(https?|ftp)://", a):
                errs.append("ADD of a remote URL: " + a)
            if kw == "RUN" and "apt-get install" in a:
                if "--no-install-recommends" not in a:
                    errs.append("apt-get install without --no-install-recommends")
                if "rm -rf /var/lib/apt/lists" not in a:
                    errs.append("apt lists not removed in the same RUN")
            if kw == "RUN" and re.search(r"\b(curl|wget)\b[^|;&]*\|\s*(ba)?sh", a):
                errs.append("pipes a download into a shell: " + a)
    final = last["ins"]
    for kw, a in final:
        if kw == "RUN" and "apt-get install" in a and re.search(r"\S+-dev\b", a):
            errs.append("final stage installs -dev packages: " + a)
        if kw == "COPY" and "--from=" in a and not re.search(r"--from=%s\b" % build_name, a):
            errs.append("final stage copies from something other than the build stage: " + a)
    users = [a for kw, a in final if kw == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        errs.append("final stage must end as a non-root USER")
    kws = [kw for kw, _ in final]
    if "USER" in kws and "ENTRYPOINT" in kws and kws.index("ENTRYPOINT") < len(kws) - 1 - kws[::-1].index("USER"):
        errs.append("ENTRYPOINT before the final USER")
    hc = [a for kw, a in final if kw == "HEALTHCHECK"]
    if not hc or not re.search(r"CMD\s+curl\s+-f\s+http://127\.0\.0\.1:9464/healthz", hc[-1]):
        errs.append("HEALTHCHECK must run curl -f http://127.0.0.1:9464/healthz")
    def json_arg(kw):
        vals = [a for k, a in final if k == kw]
        if not vals:
            return None
        try:
            return json.loads(vals[-1])
        except ValueError:
            return "not-json"
    if json_arg("ENTRYPOINT") != ["cuzk"]:
        errs.append('ENTRYPOINT must be ["cuzk"] (exec form)')
    if json_arg("CMD") != ["agent", "--config", "/etc/cuzk/cuzk.cfg"]:
        errs.append('CMD must be ["agent", "--config", "/etc/cuzk/cuzk.cfg"]')
    vols = set()
    for kw, a in final:
        if kw == "VOLUME":
            try:
                vols.update(json.loads(a))
            except ValueError:
                vols.update(a.split())
    for v in ("/etc/cuzk", "/var/lib/cuzk/params"):
        if v not in vols:
            errs.append("missing VOLUME " + v)
    if not any(kw == "EXPOSE" and "9464" in a.split() for kw, a in final):
        errs.append("missing EXPOSE 9464")
    try:
        ign = [l.strip() for l in open(ignore_path) if l.strip() and not l.startswith("#")]
    except OSError:
        ign = []
        errs.append("missing .dockerignore")
    for need in (".git", "build"):
        if need not in ign:
            errs.append(".dockerignore must exclude " + need)
    return errs

def stages_seen(ins, kw, a):
    """True when this ARG comes after the first FROM (a stage-local ARG)."""
    for k, x in ins:
        if k == "FROM":
            return True
        if (k, x) == (kw, a):
            return False
    return False

errs = lint(sys.argv[1], sys.argv[2])
for e in errs:
    print("dockerfile-lint: " + e)
sys.exit(1 if errs else 0)
PY

python3 "$TMP/lint.py" "$SRC/Dockerfile" "$SRC/.dockerignore"
echo "ok: Dockerfile structure"

# The image's CUZK_* environment must be accepted by the config loader (unknown CUZK_AGENT_*
# variables are errors there), on top of the config the image ships.
BIN=${CUZK_BIN:-$SRC/build/agent/cuzk}
if [[ -x $BIN ]]; then
  mapfile -t image_env < <(python3 - "$SRC/Dockerfile" <<'PY'
import re, sys
text = re.sub(r"\\\n", " ", open(sys.argv[1]).read())
for line in text.splitlines():
    if line.startswith("ENV "):
        for k, v in re.findall(r"(CUZK_[A-Z0-9_]+)=(\S+)", line):
            print(k + "=" + v)
PY
  )
  ((${#image_env[@]})) || { echo "FAIL: no CUZK_* ENV in the Dockerfile"; exit 1; }
  env "${image_env[@]}" "$BIN" agent --check-config "$SRC/ops/cuzk.example.cfg"
  echo "ok: image environment (${image_env[*]}) accepted by cuzk agent --check-config"
fi

if command -v hadolint >/dev/null; then
  hadolint --ignore DL3008 "$SRC/Dockerfile"
  echo "ok: hadolint"
else
  echo "note: hadolint not installed (apt-cache policy hadolint: not in Debian 12); structural checks only"
fi

# Each mutation must be caught.
mutate() { # NAME SED-EXPR
  sed -e "$2" "$SRC/Dockerfile" >"$TMP/Dockerfile.$1"
  if cmp -s "$SRC/Dockerfile" "$TMP/Dockerfile.$1"; then
    echo "FAIL: mutation $1 changed nothing"
    exit 1
  fi
  if python3 "$TMP/lint.py" "$TMP/Dockerfile.$1" "$SRC/.dockerignore" >/dev/null; then
    echo "FAIL: mutation $1 not caught"
    exit 1
  fi
}
mutate root-user 's/^USER cuzk/USER root/'
mutate no-healthcheck '/^HEALTHCHECK/,/healthz/d'
mutate shell-entrypoint 's/^ENTRYPOINT \["cuzk"\]/ENTRYPOINT cuzk/'
mutate devel-runtime 's/-runtime-ubuntu24.04/-devel-ubuntu24.04/'
mutate remote-add 's|^COPY . .|ADD https://example.com/src.tar.gz /src/|'
mutate no-cuda 's/-DCUZK_CUDA=ON/-DCUZK_CUDA=OFF/'
mutate dev-in-runtime 's/      curl ca-certificates/      curl ca-certificates libssl-dev/'
mutate no-params-volume 's|VOLUME \["/etc/cuzk", "/var/lib/cuzk/params"\]|VOLUME ["/etc/cuzk"]|'
mutate wrong-cmd 's|^CMD \["agent"|CMD ["prove"|'
mutate no-expose '/^EXPOSE 9464/d'
mutate cuda12 's/^ARG CUDA_VERSION=13.0.1/ARG CUDA_VERSION=12.6.0/'
printf 'build\n' >"$TMP/dockerignore.bad"
if python3 "$TMP/lint.py" "$SRC/Dockerfile" "$TMP/dockerignore.bad" >/dev/null; then
  echo "FAIL: .dockerignore without .git not caught"
  exit 1
fi
echo "ok: every mutation caught"
