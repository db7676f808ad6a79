#!/usr/bin/env python3
"""`.npy` files of ml_dtypes' arrays (NumPy saves them as void elements, `|V1` or `<V2`)
read by `nxrig` with `--npy-dtype`, every value against ml_dtypes:

    python3 tests/checkpoint/npy_void.py NXRIG OUTDIR

For each dtype, an array of varied values saved with `np.save`, listed by `nxrig info
--npy-dtype`, converted to float32 (`--tensors '*'`, so that the integers convert too)
and read back with NumPy: exactly `a.astype(np.float32)`. Without `--npy-dtype`, and with
one of another width, `nxrig info` is refused naming the flag or the widths. Exits 1 on a
mismatch.
"""

import os
import subprocess
import sys

import ml_dtypes
import numpy as np

CASES = [
    ("bfloat16", ml_dtypes.bfloat16, "<V2"),
    ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, "<V1"),
    ("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, "<V1"),
    ("float6_e3m2fn", ml_dtypes.float6_e3m2fn, "<V1"),
    ("float4_e2m1fn", ml_dtypes.float4_e2m1fn, "<V1"),  # one a byte in the file
    ("int4", ml_dtypes.int4, "<V1"),
]


def run(nxrig, *args, fail=False):
    r = subprocess.run([nxrig, *args], capture_output=True, text=True)
    if (r.returncode != 0) != fail:
        sys.exit(f"npy_void.py: nxrig {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout + r.stderr


def main(nxrig, out):
    rng = np.random.default_rng(7)
    for name, t, descr in CASES:
        if name == "int4":
            a = np.arange(-8, 8).astype(t).reshape(4, 4)
        else:
            x = (rng.standard_normal(300) * 4).astype(np.float32)
            if name == "float8_e8m0fnu":  # powers of two, no sign: positive values
                x = np.abs(x)
            a = x.astype(t).reshape(3, 100)
        src = os.path.join(out, f"{name}.npy")
        np.save(src, a)
        with open(src, "rb") as f:
            assert descr.encode() in f.read(128), f"{name}: NumPy wrote another type string"
        listed = run(nxrig, "info", src, "--npy-dtype", name)
        assert name in listed and str(list(a.shape)) in listed, listed
        dst = os.path.join(out, f"{name}.f32.npy")
        run(nxrig, "convert", src, dst, "--npy-dtype", name, "--to", "float32", "--tensors", "*")
        got, want = np.load(dst), a.astype(np.float32)
        if got.shape != want.shape or got.tobytes() != want.tobytes():
            bad = int(np.count_nonzero(got.view(np.uint32) != want.view(np.uint32)))
            print(f"npy_void.py: {name}: {bad} of {want.size} values differ from ml_dtypes'",
                  file=sys.stderr)
            sys.exit(1)
        print(f"{name} ({descr}): {a.size} values, as ml_dtypes gives them")
    said = run(nxrig, "info", os.path.join(out, "bfloat16.npy"), fail=True)
    assert "--npy-dtype" in said, said
    said = run(nxrig, "info", os.path.join(out, "bfloat16.npy"), "--npy-dtype", "uint8", fail=True)
    assert "2 bytes each" in said, said
    said = run(nxrig, "info", os.path.join(out, "int4.f32.npy"), "--npy-dtype", "bfloat16", fail=True)
    assert "names itself" in said, said
    print("void elements without --npy-dtype, or of another width, or a file that names its dtype: refused")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} NXRIG OUTDIR")
    main(sys.argv[1], sys.argv[2])
