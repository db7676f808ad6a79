#!/usr/bin/env python3
"""Dequantizing block-scaled checkpoints on the host against a plain cast of the same
bytes, and against NumPy computing the same formula, side by side:

    cargo build --release -p nxrig-cli
    python3 benches/dequant.py [--gib 1] [--rounds 3] [--dir /tmp] [--only fp8-block|mxfp4] [--no-numpy]
    python3 benches/dequant.py --gib 1 --make DIR      # the folders only

Makes two model folders of `--gib` GiB of weights at run time (removed after):

- **fp8-block**: DeepSeek-V3's layout, float8_e4m3fn weights [8192, 16384] with float32
  scales per 128 x 128 block; its plain twin: the same weights with no scales, cast
  float8_e4m3fn -> bfloat16 (`--scheme none`);
- **mxfp4**: gpt-oss' layout, experts' blocks [32, 2880, 90, 16] with UE8M0 scales per
  32; its plain twin: a float4_e2m1fn tensor of the same bytes cast to bfloat16 (the
  same elements out).

Rounds alternate: `nxrig convert DIR OUT --to bfloat16` of the scheme, of its twin, and
NumPy's `W = w.astype(float32) * repeat(scale)` then `astype(bfloat16)` over the same
tensors (ml_dtypes' float8 and float4 decoding; NumPy's float32 product is not the
exact one, it is only the time of the same work). Each keeps its best time; prints
GB/s of input and the ratios dequant / cast and NumPy / dequant.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NXRIG = os.path.join(ROOT, "target", "release", "nxrig")


def write_safetensors(path, tensors):
    header, at = {}, 0
    for name, (code, a) in tensors.items():
        header[name] = {"dtype": code, "shape": list(a.shape), "data_offsets": [at, at + a.nbytes]}
        at += a.nbytes
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for _, a in tensors.values():
            f.write(np.ascontiguousarray(a).tobytes())


def folder(d, tensors, config):
    os.makedirs(d, exist_ok=True)
    write_safetensors(os.path.join(d, "model.safetensors"), tensors)
    if config is not None:
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config, f)


def make(base, gib, rng):
    """The folders, and NumPy's work over each scheme's tensors."""
    # fp8-block: tensors of 128 MiB.
    m, n = 8192, 16384
    count = max(1, int(gib * 8))
    w = rng.integers(0, 256, size=(m, n), dtype=np.uint8)
    w[(w & 0x7F) == 0x7F] = 0x3C  # no NaN
    s = rng.uniform(1e-3, 1e-2, size=(m // 128, n // 128)).astype(np.float32)
    fp8 = {f"model.layers.{i}.mlp.down_proj.weight": ("F8_E4M3", w) for i in range(count)}
    fp8.update({f"model.layers.{i}.mlp.down_proj.weight_scale_inv": ("F32", s) for i in range(count)})
    folder(os.path.join(base, "fp8-block"), fp8, {"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})
    folder(os.path.join(base, "fp8-cast"), {k: v for k, v in fp8.items() if k.endswith(".weight")}, None)

    def numpy_fp8():
        out = None
        for _ in range(count):
            x = w.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
            x *= np.repeat(np.repeat(s, 128, 0), 128, 1)
            out = x.astype(ml_dtypes.bfloat16)
        return out

    # mxfp4: experts' blocks of 265 MB.
    e, rows, kb = 32, 2880, 90
    count4 = max(1, round(gib * (1 << 30) / (e * rows * kb * 16)))
    blocks = rng.integers(0, 256, size=(e, rows, kb, 16), dtype=np.uint8)
    scales = rng.integers(118, 130, size=(e, rows, kb), dtype=np.uint8)
    mx = {f"model.layers.{i}.mlp.experts.down_proj_blocks": ("U8", blocks) for i in range(count4)}
    mx.update({f"model.layers.{i}.mlp.experts.down_proj_scales": ("U8", scales) for i in range(count4)})
    folder(os.path.join(base, "mxfp4"), mx, {"quantization_config": {"quant_method": "mxfp4"}})
    f4 = {f"model.layers.{i}.mlp.experts.down_proj": ("F4", blocks.reshape(e, rows, kb * 16)) for i in range(count4)}
    write_f4(os.path.join(base, "mxfp4-cast"), f4)
    lut = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float32)

    def numpy_mxfp4():
        out = None
        for _ in range(count4):
            lo, hi = lut[blocks & 0xF], lut[blocks >> 4]
            v = np.stack([lo, hi], -1).reshape(e, rows, kb, 32)
            v *= np.ldexp(np.float32(1), scales.astype(np.int32) - 127)[..., None]
            out = v.reshape(e, rows, kb * 32).transpose(0, 2, 1).astype(ml_dtypes.bfloat16)
        return out

    return [("fp8-block", numpy_fp8), ("mxfp4", numpy_mxfp4)]


def write_f4(d, tensors):
    """A folder of float4_e2m1fn tensors: `(code, bytes [.., C / 2])`, the shape in elements."""
    os.makedirs(d, exist_ok=True)
    header, at = {}, 0
    for name, (_, a) in tensors.items():
        shape = list(a.shape[:-1]) + [a.shape[-1] * 2]
        header[name] = {"dtype": "F4", "shape": shape, "data_offsets": [at, at + a.nbytes]}
        at += a.nbytes
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(d, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for _, a in tensors.values():
            f.write(a.tobytes())


def convert(src, dst, *extra):
    shutil.rmtree(dst, ignore_errors=True)
    t = time.perf_counter()
    subprocess.run([NXRIG, "convert", src, dst, "--to", "bfloat16", *extra], check=True, capture_output=True)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--only", choices=["fp8-block", "mxfp4"])
    ap.add_argument("--no-numpy", action="store_true", help="leave NumPy's formula out (its column then reads 0)")
    ap.add_argument("--make", metavar="DIR", help="only write the four folders into DIR (for benches/web/dequant.mjs)")
    a = ap.parse_args()
    if a.make:
        make(a.make, a.gib, np.random.default_rng(1))
        return
    base = tempfile.mkdtemp(prefix="nxrig-dequant-", dir=a.dir)
    try:
        rng = np.random.default_rng(1)
        work = make(base, a.gib, rng)
        print(f"{'scheme':10} {'bytes in':>12} {'dequant s':>10} {'cast s':>8} {'numpy s':>8} {'GB/s':>6} {'dequant/cast':>13} {'numpy/dequant':>14}")
        for name, numpy_work in work:
            if a.only and name != a.only:
                continue
            src = os.path.join(base, name)
            twin = os.path.join(base, {"fp8-block": "fp8-cast", "mxfp4": "mxfp4-cast"}[name])
            size = os.path.getsize(os.path.join(src, "model.safetensors"))
            best = {"dequant": 1e9, "cast": 1e9, "numpy": 1e9}
            for _ in range(a.rounds):
                best["dequant"] = min(best["dequant"], convert(src, os.path.join(base, "out")))
                best["cast"] = min(best["cast"], convert(twin, os.path.join(base, "out"), "--scheme", "none"))
                if a.no_numpy:
                    best["numpy"] = 0.0
                    continue
                t = time.perf_counter()
                numpy_work()
                best["numpy"] = min(best["numpy"], time.perf_counter() - t)
            print(
                f"{name:10} {size:>12} {best['dequant']:>10.3f} {best['cast']:>8.3f} {best['numpy']:>8.3f} "
                f"{size / best['dequant'] / 1e9:>6.2f} {best['dequant'] / best['cast']:>12.2f}x {best['numpy'] / best['dequant']:>13.2f}x",
                flush=True,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
