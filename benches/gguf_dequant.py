#!/usr/bin/env python3
"""GGUF dequantization into float16: `nxrig convert` against llama.cpp's own NumPy
dequantization (`gguf.quants.dequantize`, then `astype(float16)`), side by side:

    cargo build --release -p nxrig-cli && cargo build --release --example convert_in_memory
    python3 benches/gguf_dequant.py [--mib 256] [--rounds 3] [--dir /tmp]

(`npm run bench:gguf` sets the browser's and Node's conversions of the same files
beside NumPy: benches/web/gguf.mjs, which calls `--make DIR` and `--numpy FILE TYPE`.)

Makes one GGUF file a type (Q4_K, Q8_0) of `--mib` MiB of blocks at run time (random
blocks, their float16 scales set finite; removed after). Rounds alternate:
`examples/convert_in_memory FILE float16` (a new process: the header read, the blocks
dequantized and rounded a piece at a time into a sink that drops them: nothing
written), NumPy over the same file (the tensor's bytes read with `np.fromfile`,
dequantized, rounded: nothing written), and `nxrig convert FILE OUT --to float16` (the
same, the output written to a file: the disk's part). Each keeps its best time; prints
GB/s of blocks in and the ratio NumPy / nxrig in memory.
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time

import gguf
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NXRIG = os.path.join(ROOT, "target", "release", "nxrig")
EXAMPLE = os.path.join(ROOT, "target", "release", "examples", "convert_in_memory")
Q = gguf.GGMLQuantizationType
# Each type's float16 scales, at these byte offsets of a block.
SCALES = {Q.Q4_K: [0, 2], Q.Q8_0: [0]}


def make(path, ty, mib):
    block, size = gguf.GGML_QUANT_SIZES[ty]
    rows = 4096
    per_row = max(1, (mib << 20) // rows // size)
    rng = np.random.default_rng(1)
    b = rng.integers(0, 256, (rows * per_row, size), dtype=np.uint8)
    for at in SCALES[ty]:
        b[:, at:at + 2] = (rng.standard_normal(len(b)) * 0.01).astype(np.float16).view(np.uint8).reshape(-1, 2)
    w = gguf.GGUFWriter(path, "llama")
    w.add_tensor("w", b.reshape(rows, per_row * size), raw_dtype=ty)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return b.nbytes


def in_memory(path):
    t = time.perf_counter()
    subprocess.run([EXAMPLE, path, "float16"], check=True, capture_output=True)
    return time.perf_counter() - t


def nxrig(path, out):
    t = time.perf_counter()
    subprocess.run([NXRIG, "convert", path, out, "--to", "float16"], check=True, capture_output=True)
    dt = time.perf_counter() - t
    os.remove(out)
    return dt


def numpy(path, ty):
    t = time.perf_counter()
    r = gguf.GGUFReader(path)
    tensor = r.tensors[0]
    raw = np.fromfile(path, dtype=np.uint8, count=int(tensor.n_bytes), offset=int(tensor.data_offset))
    y = gguf.quants.dequantize(raw, ty).astype(np.float16)
    dt = time.perf_counter() - t
    assert y.size == int(tensor.n_elements)
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    # For benches/web/gguf.mjs: write the files into a folder, or time NumPy once.
    ap.add_argument("--make", metavar="DIR")
    ap.add_argument("--numpy", nargs=2, metavar=("FILE", "TYPE"))
    a = ap.parse_args()
    if a.make:
        for ty in SCALES:
            make(os.path.join(a.make, f"{ty.name}.gguf"), ty, a.mib)
        return
    if a.numpy:
        print(numpy(a.numpy[0], Q[a.numpy[1]]))
        return
    work = tempfile.mkdtemp(prefix="nxrig-gguf-bench-", dir=a.dir)
    try:
        print("| type | bytes in | nxrig in memory s | NumPy s | nxrig convert s | nxrig in memory GB/s | NumPy GB/s | NumPy / nxrig in memory |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for ty in SCALES:
            path = os.path.join(work, f"{ty.name}.gguf")
            n = make(path, ty, a.mib)
            best = {"mem": float("inf"), "numpy": float("inf"), "cli": float("inf")}
            for _ in range(a.rounds):
                best["mem"] = min(best["mem"], in_memory(path))
                best["numpy"] = min(best["numpy"], numpy(path, ty))
                best["cli"] = min(best["cli"], nxrig(path, os.path.join(work, "out.safetensors")))
            os.remove(path)
            x, y, z = best["mem"], best["numpy"], best["cli"]
            print(f"| {ty.name} | {n:,} | {x:.3f} | {y:.3f} | {z:.3f} | {n / x / 1e9:.2f} | {n / y / 1e9:.2f} | {y / x:.1f}x |".replace(",", " "))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
