#!/usr/bin/env python3
"""GGUF files read by `nxrig info` and `nxrig convert`, against llama.cpp's own Python
package (`gguf`, whose GGUFWriter writes the files and whose GGUFReader is the oracle
of their headers):

    python3 tests/gguf/gguf_check.py NXRIG OUTDIR [DEVICE ...]

Writes a file with a key-value of every GGUF value type (a long array of strings as a
vocabulary is, a short array of integers) and a tensor of every plain ggml type (F32,
F16, BF16, F64, I8 to I64) beside two block-quantized ones (Q8_0, Q4_0), then:

- `nxrig info --json`: every tensor's name, type, C-order shape (ggml's `ne`
  reversed), bytes and absolute offset equal to GGUFReader's; the metadata's values
  equal to the reader's (a long array given as its type and length);
- `nxrig convert --to float16` of the plain tensors' file: every output element equal to
  NumPy's and ml_dtypes' one rounding of the input's values, the integers kept, the
  scalar key-values in `__metadata__` as strings;
- every block-quantized type nxrig dequantizes (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, TQ1_0,
  TQ2_0 and MXFP4 quantized by gguf; random blocks with finite scales of Q2_K to Q6_K,
  IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ4_NL, IQ4_XS, NVFP4 and
  Q1_0) converted into float32 on each DEVICE (`host` when none is given; `gpu:kernel`
  the GPU with NXRIG_GGML_ON_CPU=1, its own kernels on a CPU adapter): every value
  equal to `gguf.quants.dequantize`'s, bit for bit (Q1_0's, which gguf does not
  dequantize, to ggml's formula in NumPy); into float16
  and bfloat16 equal to NumPy's and ml_dtypes' one rounding of them;
- the same file split in three by GGUFWriter: listed as one checkpoint, converted into
  a folder of three shards and an index, byte for byte the single file's;
- `nxrig info` without `--json`: the version, alignment and every `general.*` scalar;
  a split's shards without the split's own `split.*` keys in `__metadata__`;
- refusals, exit 2 with one line naming the file (and the tensor): a ggml block type
  as `--to` (it is read, not written), a type not
  dequantized (Q8_K, which files do not hold), nothing written; a file cut inside its header, a tensor past the end,
  an unknown ggml type, an alignment that is not a power of two.

Exits 1 on a mismatch.

    python3 tests/gguf/gguf_check.py --write OUTDIR

writes `quant.gguf` (a tensor of every type nxrig dequantizes) and its split in three
(`split-00001-of-00003.gguf`, ...) only, for the
JavaScript tests (www/e2e-quant.mjs), which hold the browser's and Node's conversions
of it to `nxrig convert`'s, checked here against gguf's.
"""

import json
import os
import struct
import subprocess
import sys

import gguf
import ml_dtypes
import numpy as np

RNG = np.random.default_rng(7)


def run(nxrig, *args, env=None):
    p = subprocess.run([nxrig, *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def plain_tensors():
    """name -> (array written, ggml type or None)."""
    f32 = RNG.standard_normal((3, 64)).astype(np.float32) * 1000
    f32[0, :4] = [np.inf, -np.inf, np.nan, 65520.0]
    bf16 = RNG.standard_normal((2, 5, 8)).astype(ml_dtypes.bfloat16)
    return {
        "tok_embd.weight": (f32, None),
        "f16.weight": (RNG.standard_normal(40).astype(np.float16), None),
        "bf16.weight": (bf16.view(np.uint16), gguf.GGMLQuantizationType.BF16),
        "f64.bias": (RNG.standard_normal((4, 3)), None),
        "i8.ids": (RNG.integers(-128, 127, 9).astype(np.int8), None),
        "i16.ids": (RNG.integers(-30000, 30000, 9).astype(np.int16), None),
        "i32.ids": (RNG.integers(-2**31, 2**31 - 1, 9).astype(np.int32), None),
        "i64.ids": (RNG.integers(-2**62, 2**62, 9).astype(np.int64), None),
    }


VOCAB = [f"tok{i}\u00e9" for i in range(100)]


def write(path, tensors, quantized):
    w = gguf.GGUFWriter(path, "llama")
    w.add_uint8("t.u8", 200)
    w.add_int8("t.i8", -5)
    w.add_uint16("t.u16", 60000)
    w.add_int16("t.i16", -30000)
    w.add_uint32("t.u32", 4000000000)
    w.add_int32("t.i32", -2000000000)
    w.add_float32("t.f32", 0.5)
    w.add_bool("t.bool", True)
    w.add_string("t.str", "h\u00e9llo")
    w.add_uint64("t.u64", 2**63 + 5)
    w.add_int64("t.i64", -(2**62))
    w.add_float64("t.f64", 1.25)
    w.add_array("tokenizer.ggml.tokens", VOCAB)
    w.add_array("t.short", [1, 2, 3])
    for name, (a, raw) in tensors.items():
        w.add_tensor(name, a, raw_dtype=raw)
    for name, ty in quantized:
        x = RNG.standard_normal((4, 64)).astype(np.float32)
        w.add_tensor(name, gguf.quants.quantize(x, ty), raw_dtype=ty)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def check_info(nxrig, path):
    code, out, err = run(nxrig, "info", path, "--json")
    if code != 0:
        fail(f"info {path}: {err}")
    got = json.loads(out)
    r = gguf.GGUFReader(path)
    names = {t["name"]: t for t in got["tensors"]}
    if len(names) != len(r.tensors):
        fail(f"info lists {len(names)} tensors, the reader {len(r.tensors)}")
    for t in r.tensors:
        g = names[t.name]
        ty = gguf.GGMLQuantizationType(t.tensor_type)
        plain = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "F64": "float64",
                 "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64"}
        want = (plain.get(ty.name, ty.name), [int(x) for x in reversed(t.shape)], int(t.n_bytes), int(t.data_offset))
        have = (g["dtype"], g["shape"], g["bytes"], g["offset"])
        if have != want:
            fail(f"{t.name}: info says {have}, the reader {want}")
    meta = got["metadata"]
    for key, field in r.fields.items():
        if key.startswith("GGUF."):
            continue
        want = field.contents()
        if isinstance(want, list) and len(want) > 64:
            want = {"type": "string", "length": len(want)}
        if meta[key] != want:
            fail(f"metadata {key}: info says {meta[key]!r}, the reader {want!r}")
    # Without --json: the version, alignment and every `general.*` scalar under the
    # tensors.
    code, text, err = run(nxrig, "info", path)
    version = int(r.fields["GGUF.version"].contents())
    if code != 0 or f"GGUF version {version}, alignment " not in text:
        fail(f"info {path} does not say its version: {text[-300:]!r} {err}")
    for key, field in r.fields.items():
        v = field.contents()
        if key.startswith("general.") and not isinstance(v, list) and f"  {key} = {json.dumps(v)}" not in text:
            fail(f"info {path} does not print {key} = {json.dumps(v)}")
    print(f"info: {len(r.tensors)} tensors and {len(meta)} key-values equal to GGUFReader's")


def read_safetensors(path):
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    meta = h.pop("__metadata__", {})
    out = {}
    for name, t in h.items():
        s, e = t["data_offsets"]
        out[name] = (t["dtype"], t["shape"], b[8 + n + s:8 + n + e])
    return out, meta


Q = gguf.GGMLQuantizationType
# The types gguf quantizes (from float32 values), and those it only dequantizes: random
# blocks, their float16 scales (at these byte offsets of a block) set finite.
QUANTIZED = [Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1, Q.Q8_0, Q.TQ1_0, Q.TQ2_0, Q.MXFP4]
RANDOM = {Q.Q2_K: [80, 82], Q.Q3_K: [108], Q.Q4_K: [0, 2], Q.Q5_K: [0, 2], Q.Q6_K: [208],
          Q.IQ4_NL: [0], Q.IQ4_XS: [0], Q.NVFP4: [], Q.IQ2_XXS: [0], Q.IQ2_XS: [0],
          Q.IQ2_S: [0], Q.IQ3_XXS: [0], Q.IQ3_S: [0], Q.IQ1_S: [0], Q.IQ1_M: [], Q.Q1_0: [0]}


def quant_tensors():
    """name -> (type, the block bytes as a (rows, bytes) uint8 array)."""
    out = {}
    for ty in QUANTIZED:
        block, _ = gguf.GGML_QUANT_SIZES[ty]
        x = (RNG.standard_normal((3, 2 * block)) * 4).astype(np.float32)
        out[f"q.{ty.name.lower()}"] = (ty, gguf.quants.quantize(x, ty))
    for ty, scales in RANDOM.items():
        block, size = gguf.GGML_QUANT_SIZES[ty]
        b = RNG.integers(0, 256, (3 * 2, size), dtype=np.uint8)
        for at in scales:
            b[:, at:at + 2] = (RNG.standard_normal(len(b)) * 0.1).astype(np.float16).view(np.uint8).reshape(-1, 2)
        if ty == Q.IQ1_M:
            # Its float16 scale is the top nibbles of its four 16-bit scale words.
            d = (RNG.standard_normal(len(b)) * 0.1).astype(np.float16).view(np.uint16)
            words = b[:, 48:56].copy().view(np.uint16)
            for i in range(4):
                words[:, i] = (words[:, i] & 0x0FFF) | (((d >> (4 * i)) & 0xF) << 12)
            b[:, 48:56] = words.view(np.uint8)
        out[f"r.{ty.name.lower()}"] = (ty, b.reshape(3, 2 * size))
    return out


def write_quant(path, tensors, split_max_tensors=0):
    w = gguf.GGUFWriter(path, "llama", split_max_tensors=split_max_tensors)
    for name, (ty, b) in tensors.items():
        w.add_tensor(name, b, raw_dtype=ty)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def q1_0(b):
    """Q1_0 (ggml type 41, which gguf lists but does not dequantize), in NumPy from
    ggml's `dequantize_row_q1_0`: a block of 128 is a float16 d and 16 bytes of sign
    bits, least significant first; a set bit is d, a clear one -d."""
    blocks = b.reshape(-1, 18)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    bits = np.unpackbits(blocks[:, 2:], axis=1, bitorder="little")
    return np.where(bits == 1, d, -d).reshape(b.shape[0], -1)


def dequantized(b, ty):
    """The float32 values of blocks `b` of `ty`: gguf's dequantization, or the
    published formula where gguf has none."""
    return q1_0(b) if ty == Q.Q1_0 else gguf.quants.dequantize(b, ty)


def check_dequantized(nxrig, path, outdir, tensors, devices):
    """Every type into float32 (gguf.quants.dequantize's values, bit for bit), float16
    and bfloat16 (ml_dtypes' one rounding of them), on each device."""
    want32 = {name: dequantized(b, ty) for name, (ty, b) in tensors.items()}
    for dev in devices:
        for to, code, np_t in [("float32", "F32", np.float32), ("float16", "F16", np.float16), ("bfloat16", "BF16", ml_dtypes.bfloat16)]:
            out = os.path.join(outdir, f"quant-{dev.replace(':', '-')}-{to}.safetensors")
            # `gpu:kernel`: the GPU's own kernels, which a CPU adapter (lavapipe) runs
            # only where NXRIG_GGML_ON_CPU=1 says so (else the host dequantizes).
            name, _, kernel = dev.partition(":")
            env = dict(os.environ, NXRIG_GGML_ON_CPU="1") if kernel else None
            c, _, err = run(nxrig, "convert", path, out, "--to", to, "--device", name, env=env)
            if c != 0:
                fail(f"convert {path} --to {to} on {dev}: {err}")
            got, _ = read_safetensors(out)
            for name, w in want32.items():
                dt, shape, b = got[name]
                with np.errstate(over="ignore"):
                    want = w.astype(np_t)
                if (dt, shape) != (code, list(w.shape)):
                    fail(f"{name} on {dev}: {dt} {shape}, want {code} {list(w.shape)}")
                if b != want.tobytes():
                    g = np.frombuffer(b, dtype=np_t).reshape(w.shape)
                    bits = f"u{want.itemsize}"
                    k = int(np.flatnonzero(g.view(bits) != want.view(bits))[0])
                    fail(f"{name} ({tensors[name][0].name}) into {to} on {dev}: element {k} is {g.flat[k]!r}, gguf.quants.dequantize rounded gives {want.flat[k]!r}")
    names = sorted({tensors[n][0].name for n in tensors})
    print(f"dequantized: {', '.join(names)} into float32, float16 and bfloat16 on {' and '.join(devices)}, equal to gguf.quants.dequantize rounded once")


def check_split(nxrig, outdir, tensors):
    """The same tensors split in three files by GGUFWriter: listed as one
    checkpoint whichever split is named, converted into a folder of three
    `.safetensors` shards and an index, each tensor's bytes the single file's."""
    write_quant(os.path.join(outdir, "split.gguf"), tensors, split_max_tensors=-(-len(tensors) // 3))
    names = [f"split-{k:05d}-of-00003.gguf" for k in (1, 2, 3)]
    for n in names:
        if not os.path.exists(os.path.join(outdir, n)):
            fail(f"GGUFWriter did not write {n}")
    code, out, err = run(nxrig, "info", os.path.join(outdir, names[1]), "--json")
    if code != 0:
        fail(f"info of a split: {err}")
    listed = json.loads(out)["tensors"]
    if sorted(t["name"] for t in listed) != sorted(tensors) or {t["shard"] for t in listed} != set(names):
        fail(f"info of a split lists {[(t['name'], t.get('shard')) for t in listed]}")
    folder = os.path.join(outdir, "split-f16")
    code, _, err = run(nxrig, "convert", os.path.join(outdir, names[0]), folder, "--to", "float16")
    if code != 0:
        fail(f"convert of a split: {err}")
    want, _ = read_safetensors(os.path.join(outdir, "quant-host-float16.safetensors"))
    with open(os.path.join(folder, "split.safetensors.index.json")) as f:
        index = json.load(f)
    got = {}
    for k in (1, 2, 3):
        shard = f"split-{k:05d}-of-00003.safetensors"
        part, meta = read_safetensors(os.path.join(folder, shard))
        if any(k.startswith("split.") for k in meta):
            fail(f"{shard} keeps the split's own keys: {sorted(meta)}")
        for name in part:
            if index["weight_map"].get(name) != shard:
                fail(f"the index maps {name} to {index['weight_map'].get(name)}, not {shard}")
        got.update(part)
    if got != want:
        fail("the split's conversion differs from the single file's")
    if index["metadata"]["total_size"] != sum(len(b) for _, _, b in got.values()):
        fail(f"the index's total_size {index['metadata']['total_size']}")
    print(f"split: 3 files listed as one and converted into 3 shards and an index, equal to the single file's")
    last = os.path.join(outdir, names[2])
    os.rename(last, last + ".away")
    refused(nxrig, "a split missing", ["info", os.path.join(outdir, names[0])], names[2])
    os.rename(last + ".away", last)


def check_convert(nxrig, path, outdir, tensors):
    out = os.path.join(outdir, "plain-f16.safetensors")
    code, _, err = run(nxrig, "convert", path, out, "--to", "float16")
    if code != 0:
        fail(f"convert {path}: {err}")
    got, meta = read_safetensors(out)
    for name, (a, raw) in tensors.items():
        if raw == gguf.GGMLQuantizationType.BF16:
            a = a.view(ml_dtypes.bfloat16)
        if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16:
            # One rounding (float64's straight into float16); past float16's range an
            # infinity.
            with np.errstate(over="ignore"):
                want = ("F16", a.astype(np.float16) if a.dtype == np.float64 else a.astype(np.float32).astype(np.float16))
        else:
            code_of = {np.int8: "I8", np.int16: "I16", np.int32: "I32", np.int64: "I64"}
            want = (code_of[a.dtype.type], a)
        dt, shape, b = got[name]
        if (dt, shape) != (want[0], list(a.shape)):
            fail(f"{name}: converted as {dt} {shape}, want {want[0]} {list(a.shape)}")
        if b != want[1].tobytes():
            fail(f"{name}: the converted bytes differ from NumPy's rounding")
    for k, v in [("t.u8", "200"), ("t.str", "h\u00e9llo"), ("t.bool", "true"), ("t.u64", str(2**63 + 5)), ("t.f32", "0.5")]:
        if meta.get(k) != v:
            fail(f"__metadata__[{k}] is {meta.get(k)!r}, want {v!r}")
    if "tokenizer.ggml.tokens" in meta:
        fail("an array key-value went into __metadata__")
    print(f"convert: {len(tensors)} tensors into float16 equal to NumPy's and ml_dtypes' rounding, the scalars in __metadata__")


def refused(nxrig, what, args, *needles):
    code, out, err = run(nxrig, *args)
    if code != 2:
        fail(f"{what}: exit {code}, want 2 ({err})")
    line = err.strip()
    if "\n" in line or not all(n in line for n in needles):
        fail(f"{what}: {line!r} does not say {needles}")
    print(f"refused ({what}): {line}")


def patched(src, dst, edit):
    with open(src, "rb") as f:
        b = bytearray(f.read())
    edit(b)
    with open(dst, "wb") as f:
        f.write(b)


def main():
    if sys.argv[1] == "--write":
        os.makedirs(sys.argv[2], exist_ok=True)
        qt = quant_tensors()
        write_quant(os.path.join(sys.argv[2], "quant.gguf"), qt)
        write_quant(os.path.join(sys.argv[2], "split.gguf"), qt, split_max_tensors=-(-len(qt) // 3))
        return
    nxrig, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    tensors = plain_tensors()
    mixed = os.path.join(outdir, "mixed.gguf")
    write(mixed, tensors, [("blk.0.attn_q.weight", gguf.GGMLQuantizationType.Q8_0),
                           ("blk.0.ffn_up.weight", gguf.GGMLQuantizationType.Q4_0)])
    check_info(nxrig, mixed)
    plain = os.path.join(outdir, "plain.gguf")
    write(plain, tensors, [])
    check_info(nxrig, plain)
    check_convert(nxrig, plain, outdir, tensors)
    quant = os.path.join(outdir, "quant.gguf")
    qt = quant_tensors()
    write_quant(quant, qt)
    check_info(nxrig, quant)
    check_dequantized(nxrig, quant, outdir, qt, sys.argv[3:] or ["host"])
    check_split(nxrig, outdir, qt)
    iq = os.path.join(outdir, "iq.gguf")
    write_quant(iq, {"blk.0.attn_k.weight": (Q.Q8_K, RNG.integers(0, 256, (2, 292), dtype=np.uint8))})
    check_info(nxrig, iq)
    out = os.path.join(outdir, "never.safetensors")
    refused(nxrig, "a type not dequantized", ["convert", iq, out, "--to", "float16"], "iq.gguf", "blk.0.attn_k.weight", "ggml type Q8_K")
    refused(nxrig, "a block type as the target", ["convert", quant, out, "--to", "q4_k_m"], "Q4_K is one of GGUF's block-quantized types", "--to takes a dtype")
    if os.path.exists(out):
        fail("a refused conversion left its output")
    r = gguf.GGUFReader(plain)
    cut = os.path.join(outdir, "cut.gguf")
    patched(plain, cut, lambda b: b.__delitem__(slice(1200, None)))
    refused(nxrig, "a file cut in its header", ["info", cut], "cut.gguf", "past the file's end")
    last = max(r.tensors, key=lambda t: t.data_offset)
    short = os.path.join(outdir, "short.gguf")
    patched(plain, short, lambda b: b.__delitem__(slice(int(last.data_offset) + 4, None)))
    refused(nxrig, "a tensor past the end", ["info", short], "short.gguf", last.name, "past the file's end")
    # The first tensor's info: its name (a u64 length and the bytes), its dimension
    # count (u32) and dimensions (u64 each), then its type (u32).
    t0 = r.tensors[0]
    ty_at = t0.field.offset + 8 + len(t0.name.encode()) + 4 + 8 * len(t0.shape)
    bad = os.path.join(outdir, "badtype.gguf")
    patched(plain, bad, lambda b: b.__setitem__(slice(ty_at, ty_at + 4), struct.pack("<I", 99)))
    refused(nxrig, "an unknown ggml type", ["info", bad], "badtype.gguf", t0.name, "ggml type 99")
    bad_align = os.path.join(outdir, "align.gguf")
    w = gguf.GGUFWriter(bad_align, "llama")
    w.add_uint32("general.alignment", 24)
    w.add_tensor("x", np.zeros(4, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    refused(nxrig, "an alignment not a power of two", ["info", bad_align], "align.gguf", "general.alignment")
    print("gguf: ok")


if __name__ == "__main__":
    main()
