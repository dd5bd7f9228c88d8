#!/usr/bin/env python3
"""Independent Avro oracle for tests/unit/test_avro_oracle.c, built on python-avro (Debian
python3-avro 1.11).

Reads one JSON request on stdin, {"schema_dir": DIR, "ops": [...]}, and writes a JSON list with
one answer per op:
  {"op": "canonical", "name": N}             -> {"canonical": str, "fingerprint": int64}
  {"op": "decode", "name": N, "hex": H}      -> {"datum": ...}  (H: a single-object frame)
  {"op": "encode", "name": N, "datum": D, "schema": optional writer schema text}
                                             -> {"hex": single-object frame}
Datums are JSON: bytes and fixed as lowercase hex, enums as symbols, null unions as null.

logicalType attributes are removed before python-avro sees a schema: they do not change the
binary encoding, python-avro would turn timestamps into datetimes (overflowing on extreme
values), and python-avro 1.11.1's canonical form keeps {"type":"long"} for logical longs instead
of "long" (against the spec's PRIMITIVES rule). The CRC-64-AVRO fingerprint is computed here,
bit by bit from the polynomial, independently of the C table.

Exit 77 (skip) when python-avro is not importable.
"""
import io
import json
import os
import sys

try:
    import avro.io
    import avro.schema
except ImportError:
    print("SKIP: python3-avro is not installed for " + sys.executable, file=sys.stderr)
    sys.exit(77)

EMPTY = 0xC15D213AA4D7A795


def rabin(data: bytes) -> int:
    fp = EMPTY
    for b in data:
        fp ^= b
        for _ in range(8):
            fp = (fp >> 1) ^ (EMPTY if fp & 1 else 0)
    return fp


def strip_logical(node):
    if isinstance(node, dict):
        return {k: strip_logical(v) for k, v in node.items() if k != "logicalType"}
    if isinstance(node, list):
        return [strip_logical(v) for v in node]
    return node


def load(text):
    schema = avro.schema.parse(json.dumps(strip_logical(json.loads(text))))
    canonical = schema.canonical_form
    return schema, canonical, rabin(canonical.encode("utf-8"))


def non_null(s):
    return [b for b in s.schemas if b.type != "null"]


def to_json(s, v):
    t = s.type
    if t == "union":
        if v is None:
            return None
        branches = non_null(s)
        if isinstance(v, dict):
            b = next(b for b in branches if b.type == "record")
        elif isinstance(v, (bytes, bytearray)):
            b = next(b for b in branches if b.type in ("bytes", "fixed"))
        else:
            b = next(b for b in branches if b.type not in ("record", "bytes", "fixed"))
        return to_json(b, v)
    if t in ("record", "error"):
        return {f.name: to_json(f.type, v[f.name]) for f in s.fields}
    if t == "array":
        return [to_json(s.items, x) for x in v]
    if t == "map":
        return {k: to_json(s.values, x) for k, x in v.items()}
    if t in ("bytes", "fixed"):
        return bytes(v).hex()
    if t in ("float", "double"):
        return float(v)
    return v


def from_json(s, v):
    t = s.type
    if t == "union":
        if v is None:
            return None
        branches = non_null(s)
        if isinstance(v, dict):
            b = next(b for b in branches if b.type == "record")
        else:
            b = next(b for b in branches if b.type != "record")
        return from_json(b, v)
    if t in ("record", "error"):
        return {f.name: from_json(f.type, v[f.name]) for f in s.fields if f.name in v}
    if t == "array":
        return [from_json(s.items, x) for x in v]
    if t == "map":
        return {k: from_json(s.values, x) for k, x in v.items()}
    if t in ("bytes", "fixed"):
        return bytes.fromhex(v)
    if t in ("float", "double"):
        return float(v)
    return v


def main():
    req = json.load(sys.stdin)
    cache = {}

    def ours(name):
        if name not in cache:
            with open(os.path.join(req["schema_dir"], name + ".avsc"), encoding="utf-8") as f:
                cache[name] = load(f.read())
        return cache[name]

    out = []
    for op in req["ops"]:
        kind = op["op"]
        if kind == "canonical":
            _, canonical, fp = ours(op["name"])
            signed = fp - (1 << 64) if fp >= 1 << 63 else fp
            out.append({"canonical": canonical, "fingerprint": signed})
        elif kind == "decode":
            schema, _, fp = ours(op["name"])
            msg = bytes.fromhex(op["hex"])
            if msg[:2] != b"\xc3\x01":
                raise SystemExit("decode: not a single-object frame")
            if int.from_bytes(msg[2:10], "little") != fp:
                raise SystemExit("decode: fingerprint %s differs from python's %016x" % (msg[2:10].hex(), fp))
            body = io.BytesIO(msg[10:])
            datum = avro.io.DatumReader(schema).read(avro.io.BinaryDecoder(body))
            if body.tell() != len(msg) - 10:
                raise SystemExit("decode: %d trailing bytes" % (len(msg) - 10 - body.tell()))
            out.append({"datum": to_json(schema, datum)})
        elif kind == "encode":
            if op.get("schema"):
                schema, _, fp = load(op["schema"])
            else:
                schema, _, fp = ours(op["name"])
            buf = io.BytesIO()
            avro.io.DatumWriter(schema).write(from_json(schema, op["datum"]), avro.io.BinaryEncoder(buf))
            out.append({"hex": (b"\xc3\x01" + fp.to_bytes(8, "little") + buf.getvalue()).hex()})
        else:
            raise SystemExit("unknown op " + kind)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
