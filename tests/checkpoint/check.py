#!/usr/bin/env python3
"""Checks a converted safetensors checkpoint against NumPy / ml_dtypes.

    python3 tests/checkpoint/check.py IN.safetensors OUT.safetensors DTYPE

DTYPE is one of float16, bfloat16, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz,
float8_e5m2fnuz, float4_e2m1fn (packed two a byte), float6_e2m3fn and float6_e3m2fn
(packed four in three bytes). Every tensor of IN must be in
OUT under the same name (and OUT must have no other tensor). A float tensor of IN (F32)
must appear in OUT with DTYPE's safetensors code, the same shape, and exactly the bytes of
`np.frombuffer(in, '<f4').astype(<ml_dtypes type>).tobytes()`; any other tensor must be
byte-identical with the same dtype and shape. Prints a summary line; exits 1 on a mismatch
(naming the first mismatched tensor and byte index), 2 on usage or format errors.
"""

import json
import struct
import sys

import ml_dtypes
import numpy as np

TARGETS = {
    "float16": ("F16", np.float16),
    "bfloat16": ("BF16", ml_dtypes.bfloat16),
    "float8_e4m3fn": ("F8_E4M3", ml_dtypes.float8_e4m3fn),
    "float8_e5m2": ("F8_E5M2", ml_dtypes.float8_e5m2),
    "float8_e4m3fnuz": ("F8_E4M3FNUZ", ml_dtypes.float8_e4m3fnuz),
    "float8_e5m2fnuz": ("F8_E5M2FNUZ", ml_dtypes.float8_e5m2fnuz),
    "float4_e2m1fn": ("F4", ml_dtypes.float4_e2m1fn),  # packed two a byte, low nibble first
    "float6_e2m3fn": ("F6_E2M3", ml_dtypes.float6_e2m3fn),  # packed four in three bytes
    "float6_e3m2fn": ("F6_E3M2", ml_dtypes.float6_e3m2fn),
}

# safetensors float dtype codes -> little-endian NumPy source types
FLOAT_SOURCES = {
    "F32": "<f4",
    "F64": "<f8",
    "F16": "<f2",
    "BF16": ml_dtypes.bfloat16,
    "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E5M2": ml_dtypes.float8_e5m2,
    "F8_E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "F8_E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
    "F8_E8M0": ml_dtypes.float8_e8m0fnu,
    "F4": ml_dtypes.float4_e2m1fn,  # two a byte, low nibble first
    "F6_E2M3": ml_dtypes.float6_e2m3fn,  # element i at bits 6i..6i+6 of the bytes
    "F6_E3M2": ml_dtypes.float6_e3m2fn,
}

# The width each code packs an element in, where under a byte.
PACKED_BITS = {"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}


def unpacked(src, bits):
    """Element i from bits [bits * i, bits * (i + 1)) of the little-endian bytes, one a
    byte (ml_dtypes' layout): the bits in order, `bits` at a time."""
    b = np.unpackbits(np.frombuffer(src, np.uint8), bitorder="little").reshape(-1, bits)
    return (b << np.arange(bits, dtype=np.uint8)).sum(axis=1).astype(np.uint8)


def packed(elements, bits):
    """unpacked's inverse: the low `bits` of each byte, in order, as bytes."""
    b = np.unpackbits(elements.view(np.uint8)[:, None], axis=1, bitorder="little")[:, :bits]
    return np.packbits(b.reshape(-1), bitorder="little").tobytes()


def source_values(code, src):
    """A float tensor's values from its bytes (F4 and the F6s unpacked: ml_dtypes holds
    one a byte)."""
    if code in PACKED_BITS:
        return unpacked(src, PACKED_BITS[code]).view(FLOAT_SOURCES[code])
    return np.frombuffer(src, FLOAT_SOURCES[code])


def die(msg):
    print(f"check.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    """Returns (header dict without __metadata__, data bytes after the header)."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        die(f"{path}: too short for a safetensors file")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        die(f"{path}: header length {n} beyond the end of the file")
    try:
        header = json.loads(raw[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        die(f"{path}: bad header: {e}")
    header.pop("__metadata__", None)
    data = memoryview(raw)[8 + n :]
    for name, t in header.items():
        b, e = t["data_offsets"]
        if not (0 <= b <= e <= len(data)):
            die(f"{path}: tensor {name}: data_offsets {b},{e} out of range")
    return header, data


def tensor_bytes(data, t):
    b, e = t["data_offsets"]
    return bytes(data[b:e])


def first_diff(a, b):
    n = min(len(a), len(b))
    x = np.frombuffer(a, np.uint8, n) != np.frombuffer(b, np.uint8, n)
    idx = np.flatnonzero(x)
    return int(idx[0]) if idx.size else n


def main(argv):
    if len(argv) != 4 or argv[3] not in TARGETS:
        die(f"usage: {argv[0]} IN.safetensors OUT.safetensors {{{','.join(TARGETS)}}}")
    in_path, out_path, dtype = argv[1:]
    code, np_type = TARGETS[dtype]
    hin, din = load(in_path)
    hout, dout = load(out_path)

    problems = []  # (tensor, message)
    converted = 0
    mismatched = 0
    for name in hin:  # header order
        ti = hin[name]
        to = hout.get(name)
        if to is None:
            problems.append((name, "missing from OUT"))
            continue
        src = tensor_bytes(din, ti)
        got = tensor_bytes(dout, to)
        if ti["dtype"] in FLOAT_SOURCES:
            converted += 1
            want_dtype = code
            out = source_values(ti["dtype"], src).astype(np_type)
            if code in PACKED_BITS:
                expect = packed(out, PACKED_BITS[code])
            else:
                expect = out.tobytes()
        else:
            want_dtype = ti["dtype"]
            expect = src
        if to["dtype"] != want_dtype:
            problems.append((name, f"dtype {to['dtype']}, expected {want_dtype}"))
            continue
        if list(to["shape"]) != list(ti["shape"]):
            problems.append((name, f"shape {to['shape']}, expected {ti['shape']}"))
            continue
        if got != expect:
            i = first_diff(got, expect)
            bad = int(np.count_nonzero(
                np.frombuffer(got[: len(expect)], np.uint8) != np.frombuffer(expect[: len(got)], np.uint8)
            )) + abs(len(got) - len(expect))
            mismatched += bad
            if len(got) != len(expect):
                msg = f"{len(got)} bytes, expected {len(expect)}; first difference at byte {i}"
            else:
                msg = (f"{bad} mismatched bytes; first at byte {i}: "
                       f"0x{got[i]:02x}, expected 0x{expect[i]:02x}")
            problems.append((name, msg))
    for name in hout:
        if name not in hin:
            problems.append((name, "in OUT but not in IN"))

    print(f"checkpoint {dtype}: {len(hin)} tensors, {converted} converted, "
          f"{mismatched} mismatched bytes"
          + (f", {len(problems)} tensors with problems" if problems else ""))
    if problems:
        name, msg = problems[0]
        print(f"first mismatch: tensor {name}: {msg}", file=sys.stderr)
        for name, msg in problems[1:10]:
            print(f"  also: tensor {name}: {msg}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
