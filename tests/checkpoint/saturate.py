#!/usr/bin/env python3
"""`nxrig convert --saturate` and the overflow warning, against NumPy and ml_dtypes:

    python3 tests/checkpoint/saturate.py NXRIG OUTDIR [DEVICE ...]

A file of bfloat16 tensors whose values pass float16's and float8_e4m3fn's largest
finite (65504, 448; infinities and a NaN among them) beside one that does not, converted
to float16 and to float8_e4m3fn on each DEVICE (`host` when none is given):

- by default, every byte is NumPy's (float16) or ml_dtypes' (float8_e4m3fn) `astype`
  of the float32 values (infinities, NaNs), and the one-line warning on standard error
  names the tensor that overflowed (not the other) with NumPy's counts;
- with `--saturate`, every byte is `np.clip(x, -max, max).astype(...)` (a NaN stays),
  and the warning says they were saturated.

Exits 1 on a mismatch.
"""

import json
import os
import struct
import subprocess
import sys
import warnings

import ml_dtypes
import numpy as np


def write_safetensors(path, tensors):
    header, blobs, at = {}, [], 0
    for name, (code, a) in tensors.items():
        b = a.tobytes()
        header[name] = {"dtype": code, "shape": list(a.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8 : 8 + n])
    data = b[8 + n :]
    return {k: data[v["data_offsets"][0] : v["data_offsets"][1]] for k, v in header.items() if k != "__metadata__"}


def run(nxrig, *args):
    r = subprocess.run([nxrig, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"saturate.py: nxrig {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stderr


def main(nxrig, out, devices):
    warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's own overflow, expected
    rng = np.random.default_rng(11)
    big = (rng.standard_normal(256) * 30000).astype(np.float32)
    big[:4] = [np.inf, -np.inf, np.nan, 65504.0]
    big = big.astype(ml_dtypes.bfloat16).reshape(4, 64)
    small = (rng.standard_normal(64) * 100).astype(np.float32).astype(ml_dtypes.bfloat16)
    src = os.path.join(out, "overflowing.safetensors")
    write_safetensors(src, {"w.big": ("BF16", big), "w.small": ("BF16", small)})
    x = {"w.big": big.astype(np.float32), "w.small": small.astype(np.float32)}
    targets = [("float16", np.float16, 65504.0), ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 448.0)]
    for device in devices:
        for name, t, top in targets:
            for saturate in (False, True):
                dst = os.path.join(out, f"overflowing.{name}.{device}.{int(saturate)}.safetensors")
                args = ["convert", src, dst, "--to", name, "--device", device]
                said = run(nxrig, *(args + ["--saturate"] if saturate else args))
                got = read_safetensors(dst)
                for k, v in x.items():
                    want = (np.clip(v, -top, top) if saturate else v).astype(t)
                    if got[k] != want.tobytes():
                        g, w = np.frombuffer(got[k], np.uint8), np.frombuffer(want.tobytes(), np.uint8)
                        bad = int(np.count_nonzero(g != w)) if len(g) == len(w) else "all"
                        sys.exit(f"saturate.py: {k} into {name} on {device} (saturate {saturate}): "
                                 f"{bad} bytes differ from NumPy's")
                v = x["w.big"]
                finite = np.isfinite(v)
                # Past the largest finite once rounded: NumPy's own cast says where.
                over = int(np.count_nonzero(finite & ~np.isfinite(v.astype(np.float64).astype(t).astype(np.float64))))
                inf = int(np.count_nonzero(np.isinf(v)))
                line = [s for s in said.splitlines() if "warning" in s]
                assert len(line) == 1, said
                line = line[0]
                assert "w.big" in line and "w.small" not in line, line
                assert f"{over} finite values past {name}'s largest finite" in line, line
                if saturate:
                    assert "saturated to it" in line and "became" not in line, line
                elif name == "float16":
                    assert f"{over} became infinities" in line and "--saturate" in line, line
                else:
                    # No infinity in float8_e4m3fn: overflows and infinities become NaN.
                    assert f"{over + inf} became NaN" in line and "--saturate" in line, line
                print(f"{name} on {device}, saturate {saturate}: every byte NumPy's; {line}")
    dst = os.path.join(out, "overflowing.float32.safetensors")
    said = run(nxrig, "convert", src, dst, "--to", "float32")
    assert "warning" not in said, said
    print("into float32 (nothing overflows): no warning")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(f"usage: {sys.argv[0]} NXRIG OUTDIR [DEVICE ...]")
    main(sys.argv[1], sys.argv[2], sys.argv[3:] or ["host"])
