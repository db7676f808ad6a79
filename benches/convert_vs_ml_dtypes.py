#!/usr/bin/env python3
"""nxrig's host cast against ml_dtypes' astype, side by side in one process tree.

The same 64 MiB of float32 (normal(0, 1) scaled to cover float8's range, plus some
NaN and inf) go into float16, bfloat16, float8_e4m3fn and float8_e5m2. Rounds alternate
between ml_dtypes (in this process) and nxrig (examples/cast_throughput, a child
process), so both see the same machine load; each side reports its best time.

    cargo build --release --example cast_throughput
    python3 benches/convert_vs_ml_dtypes.py [ROUNDS]
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "target", "release", "examples", "cast_throughput")
sys.path.insert(0, os.path.join(ROOT, "tests"))
from numpy_dtypes import NP_TYPE  # noqa: E402

TARGETS = {d: NP_TYPE[d] for d in ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")}


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    n = (64 << 20) // 4
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(n, dtype=np.float32) * 64).astype(np.float32)
    x[::1000] = np.nan
    x[1::1000] = np.inf
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        f.write(x.tobytes())
        path = f.name
    try:
        print(f"{n} float32 elements (64 MiB), best of {rounds} rounds, G elements/s")
        print(f"{'target':12} {'ml_dtypes':>10} {'nxrig':>10} {'ratio':>7}")
        for name, t in TARGETS.items():
            best_ml, best_nx = float("inf"), float("inf")
            for _ in range(rounds):
                s = time.perf_counter()
                y = x.astype(t)
                best_ml = min(best_ml, time.perf_counter() - s)
                del y
                out = subprocess.run([EXE, path, name, "3"], check=True, capture_output=True, text=True)
                best_nx = min(best_nx, float(out.stdout.split()[0]))
            ml, nx = n / best_ml / 1e9, n / best_nx / 1e9
            print(f"{name:12} {ml:10.3f} {nx:10.3f} {nx / ml:6.2f}x")
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
