#!/usr/bin/env python3
"""nxrig's host kernels against NumPy (ml_dtypes for bfloat16, the float8s, float6s and
float4, the 4-, 2- and 1-bit integers, complex32 and bcomplex32), side by side in one process tree: every cast of the dtype x dtype matrix,
add of every dtype (x + x), a kernel of the user's own (`--only xy1`: x * x + 1,
computed by `kernels::Elementwise` in float32 for floats and in int32 for integers,
NumPy's in the dtype), the shipped
operations (`--only ops`: sub, mul, div, maximum and lt, x with itself), and the
transposed copy of every dtype (4096 x 4096 for
float32). Sources are 64 MiB of their own dtype (fewer elements for the wide ones).
Rounds alternate NumPy (in this process) and nxrig (examples/host_kernels, a child
process), so both see the same machine load; each side keeps its best time. Prints
G elements/s, the ratio nxrig / NumPy for each kernel, every kernel under 1x, and
the minimum and median ratio.

Each round also times a one-thread memcpy of the source's bytes (NumPy `copyto` into
a buffer made once), so the table shows how near each side comes to the machine's
memory bandwidth at that moment: `mem` is a kernel's bytes (read and written) per
second over the memcpy's, best against best (nxrig's threads can pass 1). A kernel
under 1x where both sides are at 0.8 of the memcpy or more is bound by memory, and
its ratio is the machine's noise.

    cargo build --release --example host_kernels
    python3 benches/host_vs_numpy.py [--rounds 3] [--reps 1] [--mib 64] [--only cast|add|xy1|ops|transpose] [--src DTYPES] [--dst DTYPES]

`--reps N` times N calls a side in each round (each side's best kept, as across
rounds): fewer readings spoiled by a moment of the machine's load.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "target", "release", "examples", "host_kernels")
sys.path.insert(0, os.path.join(ROOT, "tests"))
from numpy_dtypes import NP_TYPE as DTYPES  # noqa: E402

# The dtypes nxrig packs two a byte (NumPy and ml_dtypes hold them one a byte).
PACKED = ("int4", "uint4", "float4_e2m1fn")


def source(name, n, rng):
    """n elements of dtype `name`: normal values scaled over float8's range for the
    floats (a few NaN and inf), the whole range for the integers."""
    t = DTYPES[name]
    narrow = {"int4": (-8, 8), "uint4": (0, 16), "int2": (-2, 2), "uint2": (0, 4),
              "int1": (-1, 1), "uint1": (0, 2)}
    if name in narrow:
        lo, hi = narrow[name]
        return rng.integers(lo, hi, n, dtype=np.int8).astype(t)
    if name == "bool":
        return rng.integers(0, 2, n, dtype=np.uint8).astype(np.bool_)
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        return rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    x = rng.standard_normal(n, dtype=np.float64) * (3 if name == "float4_e2m1fn" else 64)
    if "complex" in name:
        x = x + 1j * (rng.standard_normal(n) * 64)
    x[::1000] = np.nan
    x[1::1000] = np.inf
    return x.astype(t)


def raw(name, a):
    """The bytes nxrig reads: int4, uint4 and float4_e2m1fn packed two a byte, low nibble
    first."""
    if name in PACKED:
        b = a.view(np.uint8) & 15
        if len(b) % 2:
            b = np.append(b, 0)
        return (b[0::2] | (b[1::2] << 4)).astype(np.uint8).tobytes()
    return a.tobytes()


def target_width(label):
    """Bytes a target element of the kernel `label` (its last word) takes."""
    t = label.split()[-1]
    return 0.5 if t in PACKED else np.dtype(DTYPES[t]).itemsize


def line(r):
    return f"{r[0]:32} {r[1]:8.3f} {r[2]:8.3f} {r[2] / r[1]:7.2f}x  mem {r[3]:5.2f} {r[4]:5.2f}"


class Nxrig:
    def __init__(self):
        self.p = subprocess.Popen([EXE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()


def timed(f):
    s = time.perf_counter()
    y = f()
    t = time.perf_counter() - s
    del y
    return t


def best_of(f, k):
    """The least seconds of k calls of f."""
    return min(timed(f) for _ in range(k))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=1, help="calls a side in each round")
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--only", choices=["cast", "add", "xy1", "ops", "transpose"])
    ap.add_argument("--src", help="only these source dtypes (comma-separated)")
    ap.add_argument("--dst", help="only casts into these dtypes (comma-separated)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    nx = Nxrig()
    rows = []
    missing = []
    tmp = tempfile.mkdtemp()
    for name in DTYPES:
        if args.src and name not in args.src.split(","):
            continue
        width = 0.5 if name in PACKED else np.dtype(DTYPES[name]).itemsize
        n = int((args.mib << 20) / width)
        side = int(np.sqrt(n))
        n = side * side
        a = source(name, n, rng)
        scratch = np.empty_like(a)
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(raw(name, a))
        assert nx.ask(f"load {name} {n} {path}") == "ok"
        kernels = []
        if args.only in (None, "cast"):
            kernels += [(f"cast {name} -> {t}", lambda t=t: a.astype(DTYPES[t]), f"cast {t} {args.reps}") for t in DTYPES
                        if not args.dst or t in args.dst.split(",")]
        if args.only in (None, "add") and not args.dst:
            kernels.append((f"add {name} -> {name}", lambda: a + a if name != "bool" else a | a, f"add {args.reps}"))
        if args.only == "xy1" and not args.dst:
            kernels.append((f"xy1 {name} -> {name}", lambda: a * a + a.dtype.type(1), f"xy1 {args.reps}"))
        if args.only == "ops" and not args.dst:
            # nxrig's sub, mul, div (integers: floor, as //), maximum and lt beside
            # NumPy's, x with itself; what NumPy or ml_dtypes lacks runs nxrig alone.
            floats = np.dtype(DTYPES[name]).kind in "fcV"
            numpy_ops = {
                "sub": lambda: a - a,
                "mul": lambda: a * a,
                "div": (lambda: a / a) if floats else (lambda: a // a),
                "maximum": lambda: np.maximum(a, a),
                "lt": lambda: a < a,
            }
            for op, f in numpy_ops.items():
                if name == "bool" and op in ("sub", "div"):
                    continue
                if "complex" in name and op in ("div", "maximum", "lt"):
                    continue
                to = "bool" if op == "lt" else name
                kernels.append((f"{op} {name} -> {to}", f, f"op {op} {args.reps}"))
        for label, numpy_side, command in kernels:
            try:
                numpy_side()
            except (TypeError, ValueError) as e:
                # ml_dtypes has no such cast (int4 -> uint4, say): nxrig alone.
                nx_best = min(float(nx.ask(command)) for _ in range(args.rounds))
                missing.append((label, n / nx_best / 1e9, str(e).split("\n")[0]))
                print(f"{label:32} {'-':>8} {missing[-1][1]:8.3f}  (NumPy: {missing[-1][2]})", flush=True)
                continue
            np_best = nx_best = mc_best = float("inf")
            for _ in range(args.rounds):
                np_best = min(np_best, best_of(numpy_side, args.reps))
                nx_best = min(nx_best, float(nx.ask(command)))
                mc_best = min(mc_best, best_of(lambda: np.copyto(scratch, a), args.reps))
            out_bytes = n * target_width(label)
            mem = lambda t: (a.nbytes + out_bytes) / t / (2 * a.nbytes / mc_best)
            rows.append((label, n / np_best / 1e9, n / nx_best / 1e9, mem(np_best), mem(nx_best)))
            print(line(rows[-1]), flush=True)
        if args.only in (None, "transpose") and not args.dst:
            m = a.reshape(side, side)
            assert nx.ask(f"load {name} {side}x{side} {path}") == "ok"
            np_best = nx_best = mc_best = float("inf")
            for _ in range(args.rounds):
                np_best = min(np_best, best_of(lambda: np.ascontiguousarray(m.T), args.reps))
                nx_best = min(nx_best, float(nx.ask(f"transpose {args.reps}")))
                mc_best = min(mc_best, best_of(lambda: np.copyto(scratch, a), args.reps))
            mem = lambda t: mc_best / t
            rows.append((f"transpose {name}", n / np_best / 1e9, n / nx_best / 1e9, mem(np_best), mem(nx_best)))
            print(line(rows[-1]), flush=True)
        os.unlink(path)
    ratios = [r[2] / r[1] for r in rows]
    print(f"\n{len(rows)} kernels, G elements/s (NumPy, nxrig); ratio min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x")
    slow = [r for r in rows if r[2] < r[1]]
    print(f"{len(slow)} under 1x (mem: NumPy, nxrig):" + "".join(f"\n  {r[0]}: {r[2] / r[1]:.2f}x  mem {r[3]:.2f}, {r[4]:.2f}" for r in slow))
    bound = [r for r in slow if min(r[3], r[4]) >= 0.8]
    print(f"{len(bound)} of them with both sides at 0.8 of a memcpy or more (bound by memory)")
    if missing:
        print(f"{len(missing)} NumPy/ml_dtypes does not compute: " + ", ".join(m[0] for m in missing))


if __name__ == "__main__":
    main()
