#!/usr/bin/env python3
"""Writes www/sample.safetensors, the demo page's small sample checkpoint: a few
float32 tensors (values like a small model's weights), one float64, one int64."""
import json
import pathlib
import struct

import numpy as np

rng = np.random.default_rng(7)
tensors = {
    "embed.weight": (rng.standard_normal((64, 32)) * 0.05).astype(np.float32),
    "layer.0.weight": (rng.standard_normal((32, 32)) * 0.2).astype(np.float32),
    "layer.0.bias": (rng.standard_normal(32) * 0.01).astype(np.float32),
    "norm.scale": (1 + rng.standard_normal(32) * 0.1).astype(np.float64),
    "position_ids": np.arange(8, dtype=np.int64),
}
codes = {np.float32: "F32", np.float64: "F64", np.int64: "I64"}
header, data = {"__metadata__": {"source": "nxrig sample"}}, b""
for name in sorted(tensors):
    a = tensors[name]
    raw = a.tobytes()
    header[name] = {"dtype": codes[a.dtype.type], "shape": list(a.shape), "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
h = json.dumps(header, separators=(",", ":")).encode()
h += b" " * (-len(h) % 8)
out = pathlib.Path(__file__).resolve().parent.parent / "www" / "sample.safetensors"
out.write_bytes(struct.pack("<Q", len(h)) + h + data)
print(out, out.stat().st_size, "bytes")
