#!/usr/bin/python3
"""Independent check of a `cuzk telemetry report` HTML file against the telemetry file it was
rendered from: records decoded with python3-avro (single-object framing parsed here), busy % and
latency percentiles recomputed here, HTML parsed with html.parser.
Usage: telemetry_check.py SCHEMAS_DIR FILE.tel REPORT.html [RESOLUTION_MS]"""
import base64, io, json, math, sys
from html.parser import HTMLParser
import avro.io, avro.schema

schemas, tel, html_path = sys.argv[1:4]
res_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 200.0
schema = avro.schema.parse(open(f"{schemas}/PartitionTiming.avsc").read())
reader = avro.io.DatumReader(schema)

lines = open(tel).read().splitlines()
assert lines[0] == "# cuzk-telemetry v1", lines[0]
recs = []
for l in lines[1:]:
    if not l or l.startswith("#"):
        continue
    b = base64.b64decode(l, validate=True)
    assert b[:2] == b"\xc3\x01", "not single-object framing"
    recs.append(reader.read(avro.io.BinaryDecoder(io.BytesIO(b[10:]))))
assert recs, "no records"

def ts(v):  # python3-avro may decode timestamp-micros as datetime
    if isinstance(v, int):
        return v
    import datetime
    d = v - datetime.datetime(1970, 1, 1, tzinfo=v.tzinfo)
    return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds

for r in recs:
    for k in ("enqueued", "budget_granted", "synth_start", "synth_end", "gpu_queued", "gpu_start",
              "gpu_end", "finish_end"):
        r[k] = ts(r[k])

t0 = min(r["enqueued"] for r in recs)
t1 = max(r["finish_end"] for r in recs)
gpus = {}
for r in recs:
    gpus.setdefault((r["agent_id"], r["gpu"]), []).append(r)
busy = {}
for key, rs in gpus.items():
    iv = sorted((max(t0, min(t1, r["gpu_start"])), max(t0, min(t1, r["gpu_end"]))) for r in rs)
    tot, cs, ce = 0, None, None
    for s, e in iv:
        if e <= s:
            continue
        if cs is not None and s <= ce:
            ce = max(ce, e)
            continue
        if cs is not None:
            tot += ce - cs
        cs, ce = s, e
    if cs is not None:
        tot += ce - cs
    busy[key] = 100.0 * tot / (t1 - t0)

def pct(v, q):
    v = sorted(v)
    return v[max(1, math.ceil(q * len(v))) - 1]

lat = {}
for r in recs:
    lat.setdefault(r["proof_type"], []).append(r["finish_end"] - r["enqueued"])

VOID = {"meta", "br", "img", "input", "link", "hr", "rect", "line", "circle", "polyline"}
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.svgs, self.tables, self.cur, self.cell, self.h3 = [], [], {}, None, None, []
        self.intitle = False
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "script" or tag == "link" or any(k.startswith("on") for k in a):
            raise AssertionError(f"active content: <{tag} {a}>")
        for k in ("src", "href"):
            if k in a:
                raise AssertionError(f"external reference {k}={a[k]}")
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "svg":
            self.svgs.append(a.get("class"))
        if tag == "table":
            self.cur = a.get("id")
            self.tables[self.cur] = []
        if tag == "tr" and self.cur:
            self.tables[self.cur].append([])
        if tag in ("td", "th"):
            self.cell = ""
        if tag == "h3":
            self.h3.append("")
    def handle_startendtag(self, tag, a):
        self.handle_starttag(tag, a)
        if tag not in VOID:
            self.stack.pop()
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag in ("td", "th") and self.cur:
            self.tables[self.cur][-1].append(self.cell)
            self.cell = None
        if tag == "table":
            self.cur = None
    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d
        if self.stack and self.stack[-1] == "h3":
            self.h3[-1] += d

raw = open(html_path, encoding="utf-8").read()
p = P()
p.feed(raw)
p.close()
assert p.stack == [], f"unclosed tags {p.stack}"
assert "<script" not in raw.lower(), "a raw <script in the report"
if any("<script>" in r["job_id"] for r in recs):
    assert "&lt;script&gt;" in raw, "escaped job id missing"

assert p.svgs.count("timeline") == len(gpus), f"{p.svgs.count('timeline')} timelines for {len(gpus)} GPUs"
summary = {(row[0], int(row[1])): row for row in p.tables["summary"][1:]}
assert len(summary) == len(gpus), summary
for key, b in busy.items():
    row = summary[key]
    assert abs(float(row[4]) - b) <= 0.006, f"busy {key}: report {row[4]}, computed {b:.4f}"
    assert int(row[3]) == len(gpus[key]), f"partitions {key}"
    assert int(row[2]) == len({r["job_id"] for r in gpus[key]}), f"jobs {key}"
    pinned = 100.0 * sum(r["is_pinned"] for r in gpus[key]) / len(gpus[key])
    assert abs(float(row[8]) - pinned) <= 0.06, f"pinned {key}"
latency = {row[0]: row for row in p.tables["latency"][1:]}
assert set(latency) == set(lat), (latency.keys(), lat.keys())
for t, v in lat.items():
    row = latency[t]
    assert int(row[1]) == len(v)
    for col, q in ((2, 0.5), (3, 0.9), (4, 0.99), (5, 1.0)):
        assert abs(float(row[col]) * 1000 - pct(v, q)) <= 0.6, f"{t} q={q}: {row[col]} vs {pct(v, q)}"
assert f"timeline resolution {res_ms:.0f} ms" in raw
print(f"ok: {len(recs)} records, {len(gpus)} GPUs, busy " +
      ", ".join(f"{k[0]}/{k[1]}={v:.2f}%" for k, v in sorted(busy.items())))
