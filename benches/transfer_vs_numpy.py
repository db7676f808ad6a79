#!/usr/bin/env python3
"""nxrig's transfer of 64 MiB of float32 against memcpy and NumPy, side by side.

The same copies (4096 x 4096 float32 into a C-contiguous array) from four layouts:
contiguous, 2-D transposed, flipped on both axes, broadcast from a row. NumPy runs in
this process (np.copyto into a preallocated array); nxrig in a child process
(examples/transfer_throughput), which also times a memcpy of the same bytes. Best of
ROUNDS each, in GB/s of bytes written.

    cargo build --release --example transfer_throughput
    python3 benches/transfer_vs_numpy.py [ROUNDS]
"""
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "target", "release", "examples", "transfer_throughput")


def best(rounds, f):
    t = float("inf")
    for _ in range(rounds):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    n = 4096
    a = np.arange(n * n, dtype=np.float32).reshape(n, n)
    out = np.empty_like(a)
    views = {
        "contiguous": a,
        "transposed": a.T,
        "flipped": a[::-1, ::-1],
        "broadcast": np.broadcast_to(a[0:1], (n, n)),
    }
    gb = a.nbytes / 1e9
    numpy = {k: best(rounds, lambda v=v: np.copyto(out, v)) for k, v in views.items()}
    res = subprocess.run([EXE, str(rounds)], check=True, capture_output=True, text=True).stdout
    nx = dict((l.split()[0], float(l.split()[1])) for l in res.splitlines())
    print(f"64 MiB float32 4096x4096 into C order, best of {rounds}, GB/s written")
    print(f"{'layout':12} {'memcpy':>8} {'nxrig':>8} {'numpy':>8} {'nx/memcpy':>10} {'nx/numpy':>9}")
    for k in views:
        m, x, p = gb / nx["memcpy"], gb / nx[k], gb / numpy[k]
        print(f"{k:12} {m:8.2f} {x:8.2f} {p:8.2f} {x / m:9.2f}x {x / p:8.2f}x")


if __name__ == "__main__":
    main()
