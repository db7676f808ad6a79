#!/usr/bin/env python3
"""The main job on a bfloat16 checkpoint, nxrig against ml_dtypes: the MiniLM
checkpoint is first converted to bfloat16 (`nxrig convert`), then that file to
float16, float8_e4m3fn and float32 on the host, best of ROUNDS runs, rounds
alternating. nxrig: the whole command (a new process, reading the map, converting,
writing and syncing the file). ml_dtypes: the same job in this process (reading the
file, `astype` of each tensor, writing the .safetensors file and syncing it), and
its `astype` alone.

    scripts/fetch-checkpoint.sh && cargo build --release
    python3 benches/checkpoint_bf16.py [ROUNDS]
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NXRIG = os.path.join(ROOT, "target", "release", "nxrig")
SRC = os.path.join(ROOT, "data", "minilm", "model.safetensors")
TARGETS = {"float16": np.float16, "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float32": np.float32}


def tensors(path):
    """The bfloat16 tensors of a .safetensors file, as ml_dtypes arrays."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = []
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] != "BF16":
            continue
        a, b = t["data_offsets"]
        out.append(np.frombuffer(data[a:b], dtype=ml_dtypes.bfloat16).reshape(t["shape"]))
    return out


def job(src, dst, t, name):
    """The conversion job in Python: read, astype, write, fsync; returns astype's seconds."""
    with open(src, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out, at, conv = {}, 0, 0.0
    blobs = []
    code = {"float16": "F16", "float8_e4m3fn": "F8_E4M3", "float32": "F32"}[name]
    for k, v in header.items():
        if k == "__metadata__":
            out[k] = v
            continue
        a, b = v["data_offsets"]
        x = np.frombuffer(data[a:b], dtype=ml_dtypes.bfloat16)
        s = time.perf_counter()
        y = x.astype(t).tobytes()
        conv += time.perf_counter() - s
        out[k] = {"dtype": code, "shape": v["shape"], "data_offsets": [at, at + len(y)]}
        blobs.append(y)
        at += len(y)
    h = json.dumps(out).encode()
    h += b" " * (-len(h) % 8)
    with open(dst, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for y in blobs:
            f.write(y)
        f.flush()
        os.fsync(f.fileno())
    return conv


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    tmp = tempfile.mkdtemp()
    bf16 = os.path.join(tmp, "model.bfloat16.safetensors")
    subprocess.run([NXRIG, "convert", SRC, bf16, "--to", "bfloat16"], check=True, capture_output=True)
    ts = tensors(bf16)
    total = sum(t.size for t in ts)
    print(f"{len(ts)} bfloat16 tensors, {total} elements; best of {rounds} rounds, seconds")
    print("| bfloat16 into | nxrig convert | ml_dtypes, the same job | ml_dtypes astype alone | job / nxrig |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, t in TARGETS.items():
        best_nx = best_job = best_conv = float("inf")
        out = os.path.join(tmp, f"{name}.safetensors")
        ref = os.path.join(tmp, f"{name}.ml_dtypes.safetensors")
        for _ in range(rounds):
            s = time.perf_counter()
            subprocess.run([NXRIG, "convert", bf16, out, "--to", name], check=True, capture_output=True)
            best_nx = min(best_nx, time.perf_counter() - s)
            s = time.perf_counter()
            conv = job(bf16, ref, t, name)
            best_job = min(best_job, time.perf_counter() - s)
            best_conv = min(best_conv, conv)
        print(f"| {name} | {best_nx:.3f} | {best_job:.3f} | {best_conv:.3f} | {best_job / best_nx:.2f}x |")


if __name__ == "__main__":
    main()
