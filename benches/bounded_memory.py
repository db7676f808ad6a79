#!/usr/bin/env python3
"""Peak memory and seconds of `nxrig info` and `nxrig convert --to bfloat16` on a
synthetic 4 GiB float32 checkpoint of 16 tensors of 256 MiB (a sparse file: its data
reads as zeros), side by side with another build of nxrig where one is given (rounds
alternate). Peak memory is the maximum resident set (the input's pages that the map
brings in count: the figure to read is what lies beyond them).

    cargo build --release
    python3 benches/bounded_memory.py [--baseline OTHER_NXRIG] [--rounds 2] [--dir DIR]
"""
import argparse
import json
import os
import resource
import struct
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def checkpoint(path, tensors=16, mib=256):
    header, at = {}, 0
    n = mib * 2**20 // 4
    for i in range(tensors):
        header[f"layer{i:02d}.weight"] = {"dtype": "F32", "shape": [n], "data_offsets": [at, at + 4 * n]}
        at += 4 * n
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        f.truncate(8 + len(h) + at)
    return at


def run(cmd):
    """(seconds, peak resident MiB) of cmd, a child of its own."""
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    secs = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd} failed")
    return secs, ru.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--dir")
    a = ap.parse_args()
    bins = {"nxrig": os.path.join(ROOT, "target", "release", "nxrig")}
    if a.baseline:
        bins["baseline"] = a.baseline
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        src = os.path.join(d, "big.safetensors")
        size = checkpoint(src)
        best = {}
        for _ in range(a.rounds):
            for name, exe in bins.items():
                out = os.path.join(d, f"{name}.bf16.safetensors")
                for job, cmd in [("info", [exe, "info", src]), ("convert", [exe, "convert", src, out, "--to", "bfloat16"])]:
                    s, m = run(cmd)
                    k = (name, job)
                    best[k] = min(best.get(k, (s, m)), (s, m))
                if os.path.exists(out):
                    os.remove(out)
        print(f"# {size / 2**30:.0f} GiB float32 in 16 tensors (sparse), best of {a.rounds}")
        print(f"{'build':10} {'job':8} {'seconds':>8} {'peak MiB':>9}")
        for (name, job), (s, m) in sorted(best.items()):
            print(f"{name:10} {job:8} {s:8.2f} {m:9.0f}")


if __name__ == "__main__":
    main()
