#!/usr/bin/env python3
"""Writes a small .safetensors file of the field's newer dtypes beside older ones:

    python3 tests/checkpoint/field_dtypes.py OUT.safetensors

every pattern of F8_E4M3FNUZ (as a 16 x 16 tensor) and of F8_E5M2FNUZ (256), MX
scales in F8_E8M0 (2 x 128: every pattern, and a row of powers of two), FP4 weights in
F4 (4 x 8: every pattern twice, packed two a byte, low nibble first), FP6 weights in
F6_E2M3 and F6_E3M2 (64 and 2 x 64: every pattern, packed four in three bytes, element i
at bits 6i..6i+6 of the little-endian bytes), an I8 tensor
and an F32 one, each tensor's bytes made here (the header by hand, as the format
says), so that `nxrig info` lists them and `nxrig convert` converts them, checked by
tests/checkpoint/check.py against ml_dtypes' casts.
"""

import json
import struct
import sys

import numpy as np


def six_bits(elements):
    """Elements 0..63, packed four in three bytes: element i at bits 6i..6i+6."""
    bits = np.unpackbits(np.array(elements, np.uint8)[:, None], axis=1, bitorder="little")
    return np.packbits(bits[:, :6].reshape(-1), bitorder="little").tobytes()


def main(path):
    every = np.arange(256, dtype=np.uint8).tobytes()
    tensors = [
        ("w.fnuz", "F8_E4M3FNUZ", [16, 16], every),
        ("w.e5m2fnuz", "F8_E5M2FNUZ", [256], every),
        ("w.scale", "F8_E8M0", [2, 128],
         every[::2] + bytes(range(60, 188))),
        ("w.fp4", "F4", [4, 8], bytes((2 * i) | ((2 * i + 1) << 4) for i in range(8)) * 2),
        ("w.fp6", "F6_E2M3", [64], six_bits(range(64))),
        ("w.fp6e3", "F6_E3M2", [2, 64], six_bits(list(range(64)) + list(range(63, -1, -1)))),
        ("q.int8", "I8", [4, 4], np.arange(-8, 8, dtype=np.int8).tobytes()),
        ("b.f32", "F32", [8], np.array([0.5, -2, 240, 248, 1e-9, -0.0, 57344, 61440],
                                       dtype="<f4").tobytes()),
    ]
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)
    print(f"{path}: {len(tensors)} tensors, {len(data)} bytes of data")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT.safetensors")
    main(sys.argv[1])
