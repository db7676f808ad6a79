#!/usr/bin/env python3
"""Splits a .safetensors checkpoint into shards, as model hubs publish them, and checks
a converted sharded checkpoint.

    python3 tests/checkpoint/shard.py split IN.safetensors DIR N
        DIR/model-0000K-of-0000N.safetensors (tensors dealt out in order of name, each
        shard about the same bytes) and DIR/model.safetensors.index.json
        ({"metadata": {"total_size": ...}, "weight_map": {...}}), written here with the
        standard library alone (the oracle does not share nxrig's writer).
    python3 tests/checkpoint/shard.py check SRC_DIR OUT_DIR DTYPE
        OUT_DIR's index maps the same tensors to the same shard names, its total_size is
        the bytes of every tensor of its shards, and each shard passes check.py against
        its source (every byte against ml_dtypes).
"""

import json
import os
import struct
import subprocess
import sys

INDEX = "model.safetensors.index.json"


def read(path):
    with open(path, "rb") as f:
        b = f.read()
    (n,) = struct.unpack("<Q", b[:8])
    header = json.loads(b[8 : 8 + n])
    return header, b[8 + n :]


def write(path, tensors):
    """tensors: [(name, dtype, shape, bytes)] in the order to store them."""
    header, at = {}, 0
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + len(data)]}
        at += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for t in tensors:
            f.write(t[3])


def split(src, out, n):
    header, data = read(src)
    header.pop("__metadata__", None)
    names = sorted(header)
    total = sum(header[k]["data_offsets"][1] - header[k]["data_offsets"][0] for k in names)
    os.makedirs(out, exist_ok=True)
    shards, cur, size = [], [], 0
    for k in names:
        b, e = header[k]["data_offsets"]
        cur.append((k, header[k]["dtype"], header[k]["shape"], data[b:e]))
        size += e - b
        if size >= total * (len(shards) + 1) / n and len(shards) < n - 1:
            shards.append(cur)
            cur = []
    shards.append(cur)
    weight_map = {}
    for i, s in enumerate(shards):
        name = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        write(os.path.join(out, name), s)
        weight_map.update({t[0]: name for t in s})
    with open(os.path.join(out, INDEX), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    print(f"{src}: {len(names)} tensors into {len(shards)} shards in {out}")


def check(src, out, dtype):
    with open(os.path.join(src, INDEX)) as f:
        want = json.load(f)
    with open(os.path.join(out, INDEX)) as f:
        got = json.load(f)
    if got["weight_map"] != want["weight_map"]:
        sys.exit("shard.py: the converted index maps the tensors otherwise")
    total = 0
    for shard in sorted(set(got["weight_map"].values())):
        header, _ = read(os.path.join(out, shard))
        header.pop("__metadata__", None)
        total += sum(v["data_offsets"][1] - v["data_offsets"][0] for v in header.values())
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run(
            [sys.executable, os.path.join(here, "check.py"), os.path.join(src, shard), os.path.join(out, shard), dtype],
            check=True,
        )
    if got["metadata"]["total_size"] != total:
        sys.exit(f"shard.py: total_size {got['metadata']['total_size']}, the shards hold {total}")
    print(f"{out}: the index and every shard are right ({total} bytes)")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "split":
        split(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
