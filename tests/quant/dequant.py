#!/usr/bin/env python3
"""Block-scaled checkpoints dequantized by `nxrig convert`, against an oracle written
here from the published formulas:

    python3 tests/quant/dequant.py NXRIG OUTDIR [DEVICE ...]

Writes small model folders in each published layout (config.json or
hf_quant_config.json, a tokenizer and a generation config beside the tensors; one
checkpoint sharded with a weight's scale in the other shard; odd shapes whose edge
blocks are partial): DeepSeek-V3's FP8 blocks (`weight_scale_inv`), DeepSeek-V4's
(UE8M0 `scale`, FP4 routed experts in I8), gpt-oss' MXFP4 experts, NVIDIA ModelOpt's
NVFP4 and FP8, compressed-tensors' float-quantized (block, channel), NVFP4, MXFP4 and
pack-quantized (int4 asymmetric with a group index, int8 symmetric), GPTQ (v1 and v2,
with `g_idx`) and AWQ. Each is converted to bfloat16, float16 and float32 on each DEVICE (`host`
when none is given), and every output byte is compared with the oracle: the exact value
(Python's `Fraction`s: every element decoded with ml_dtypes, the formula in exact
arithmetic) rounded once to nearest even into the target, an overflow an infinity.
config.json must be rewritten without its quantization_config, the index without the
scales, and the other files copied byte for byte.

Then the refusals, each an error naming the tensor with nothing written: a weight
without its scale (across shards), a scale of the wrong shape, a symmetric GPTQ v1
checkpoint labelled gptq_v2, an unknown quant_method, a scheme named that pairs no
tensor, a folder of quantized-looking tensors with no configuration.

Exits 1 on a mismatch.

    python3 tests/quant/dequant.py --write OUTDIR

writes the same folders only (and `refuse-missing-scale`, `refuse-gptq-v1-as-v2`), for
the JavaScript tests (www/e2e-quant.mjs), which hold the browser's and Node's
conversions to `nxrig convert`'s, checked here against the oracle.
"""

import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from fractions import Fraction

import ml_dtypes
import numpy as np

RNG = np.random.default_rng(42)

# ---------------------------------------------------------------- files


# The files' bytes, as the checkpoint tests write and read them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checkpoint"))
from saturate import write_safetensors  # noqa: E402


def read_safetensors(path):
    """Each tensor's (dtype code, shape, bytes)."""
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8 : 8 + n])
    data = b[8 + n :]
    return {
        k: (v["dtype"], v["shape"], data[v["data_offsets"][0] : v["data_offsets"][1]])
        for k, v in header.items()
        if k != "__metadata__"
    }


# ---------------------------------------------------------------- the oracle

# Targets: (safetensors code, NumPy dtype, significand bits, least normal exponent, largest finite).
TARGETS = {
    "bfloat16": ("BF16", ml_dtypes.bfloat16, 8, -126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)),
    "float16": ("F16", np.float16, 11, -14, 65504.0),
    "float32": ("F32", np.float32, 24, -126, float(np.finfo(np.float32).max)),
}


class NegZero:
    """-0, which a Fraction cannot be: times or over a positive value, itself."""

    def __mul__(self, other):
        return self

    __rmul__ = __truediv__ = __mul__


NEG_ZERO = NegZero()


def round_once(x, p, emin, top):
    """The Fraction `x` rounded to nearest even to `p` significant bits (exponents
    below `emin` subnormal), as a float; past `top`, an infinity."""
    if x is NEG_ZERO:
        return -0.0
    if x == 0:
        return 0.0
    sign = -1.0 if x < 0 else 1.0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    q = Fraction(2) ** (e - p + 1)
    n = a / q
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1):
        fl += 1
    v = fl * q
    if v > Fraction(top):
        return sign * math.inf
    return sign * float(v)


def expected_bytes(exact, to, saturate=False):
    """The bytes of the exact values `exact` (an array of Fractions) rounded once into
    `to` (saturating: past the largest finite, that finite)."""
    _, dt, p, emin, top = TARGETS[to]
    flat = [round_once(x, p, emin, top) for x in exact.reshape(-1)]
    if saturate:
        flat = [math.copysign(top, v) if math.isinf(v) else v for v in flat]
    # Each value is now exact in `to`: NumPy's cast only changes its encoding.
    return np.array(flat, dtype=np.float64).astype(dt).tobytes()


def fractions(a):
    """A float array (exact in float64) as an array of Fractions."""
    out = np.empty(a.shape, dtype=object)
    for i, v in np.ndenumerate(a.astype(np.float64)):
        out[i] = NEG_ZERO if v == 0 and math.copysign(1.0, v) < 0 else Fraction(float(v))
    return out


# ---------------------------------------------------------------- the elements

# Each e2m1 code's value, decoded by ml_dtypes (its float4_e2m1fn, one a byte).
E2M1_TABLE = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64)


def e4m3_codes(shape, lo=0.01, hi=400.0, signed=True):
    """Random float8_e4m3fn bytes (no NaN), magnitudes between lo and hi, and their values."""
    mag = np.exp(RNG.uniform(np.log(lo), np.log(hi), size=shape))
    v = mag * (RNG.choice([-1.0, 1.0], size=shape) if signed else 1.0)
    f = v.astype(ml_dtypes.float8_e4m3fn)
    return f.view(np.uint8), f.astype(np.float64)


def e8m0(exps):
    """UE8M0 exponents as bytes, and their values 2^(e - 127)."""
    e = np.asarray(exps, dtype=np.uint8)
    return e, np.array([float(x) for x in e.view(ml_dtypes.float8_e8m0fnu).reshape(-1)]).reshape(e.shape)


def pack_nibbles(codes):
    """e2m1 codes [.., C] into bytes [.., C / 2]: the even element in the low nibble."""
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def pack_words(vals, bits, axis):
    """Unsigned integers of `bits` packed into int32 words along `axis`, least
    significant bits first (element k of a word at bits `bits * k`)."""
    per = 32 // bits
    v = np.moveaxis(vals.astype(np.uint64), axis, -1)
    pad = (-v.shape[-1]) % per
    v = np.concatenate([v, np.zeros(v.shape[:-1] + (pad,), np.uint64)], axis=-1)
    v = v.reshape(v.shape[:-1] + (v.shape[-1] // per, per))
    w = np.zeros(v.shape[:-1], np.uint64)
    for k in range(per):
        w |= v[..., k] << np.uint64(bits * k)
    return np.moveaxis(w.astype(np.uint32).view(np.int32), -1, axis)


AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]


def pack_awq(vals):
    """4-bit values [R, N] into int32 [R, N / 8]: nibble i of word j holds column 8j + AWQ_ORDER[i]."""
    r, n = vals.shape
    w = np.zeros((r, n // 8), np.uint64)
    for i, col in enumerate(AWQ_ORDER):
        w |= vals[:, col::8].astype(np.uint64) << np.uint64(4 * i)
    return w.astype(np.uint32).view(np.int32)


def half(a, code="F16"):
    dt = {"F16": np.float16, "BF16": ml_dtypes.bfloat16, "F32": np.float32}[code]
    x = np.asarray(a).astype(dt)
    return x, x.astype(np.float64)


# ---------------------------------------------------------------- the layouts
# Each returns (files {name: {tensor: (code, array)}}, config or None, hf_quant_config or
# None, expected {output name: (exact Fractions, shape)}, kept {name: (code, array)}).


def deepseek_v3():
    m, n = 260, 140  # edge blocks of 4 x 12 rows/columns
    wb, wv = e4m3_codes((m, n))
    s = RNG.uniform(0.001, 0.02, size=(3, 2)).astype(np.float32)
    exact = fractions(wv) * np.repeat(np.repeat(fractions(s), 128, 0), 128, 1)[:m, :n]
    norm = RNG.standard_normal(16).astype(ml_dtypes.bfloat16)
    head = RNG.standard_normal((8, 16)).astype(ml_dtypes.bfloat16)
    files = {
        "model-00001-of-00002.safetensors": {
            "model.layers.0.mlp.down_proj.weight": ("F8_E4M3", wb.view(np.uint8)),
            "model.norm.weight": ("BF16", norm.view(np.uint16)),
        },
        # The scale in the other shard than its weight.
        "model-00002-of-00002.safetensors": {
            "model.layers.0.mlp.down_proj.weight_scale_inv": ("F32", s),
            "lm_head.weight": ("BF16", head.view(np.uint16)),
        },
    }
    config = {
        "architectures": ["DeepseekV3ForCausalLM"],
        "torch_dtype": "bfloat16",
        "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]},
    }
    expected = {"model.layers.0.mlp.down_proj.weight": exact}
    plain = {"model.norm.weight": norm.astype(np.float64), "lm_head.weight": head.astype(np.float64)}
    return files, config, None, expected, plain


def deepseek_v4():
    m, n = 200, 136
    wb, wv = e4m3_codes((m, n))
    sb, sv = e8m0(RNG.integers(110, 125, size=(2, 2)))
    exact = fractions(wv) * np.repeat(np.repeat(fractions(sv), 128, 0), 128, 1)[:m, :n]
    # A routed expert: FP4 pairs in I8, a UE8M0 scale each 32 inputs.
    o, k = 24, 64
    codes = RNG.integers(0, 16, size=(o, k)).astype(np.uint8)
    eb, ev = e8m0(RNG.integers(120, 134, size=(o, k // 32)))
    exact_e = fractions(E2M1_TABLE[codes]) * np.repeat(fractions(ev), 32, 1)
    files = {
        "model.safetensors": {
            "layers.0.attn.wq_a.weight": ("F8_E4M3", wb),
            "layers.0.attn.wq_a.scale": ("F8_E8M0", sb),
            "layers.0.ffn.experts.0.w1.weight": ("I8", pack_nibbles(codes).view(np.int8)),
            "layers.0.ffn.experts.0.w1.scale": ("F8_E8M0", eb),
        }
    }
    config = {
        "expert_dtype": "fp4",
        "torch_dtype": "bfloat16",
        "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "scale_fmt": "ue8m0", "weight_block_size": [128, 128]},
    }
    return files, config, None, {"layers.0.attn.wq_a.weight": exact, "layers.0.ffn.experts.0.w1.weight": exact_e}, {}


def gpt_oss():
    e, rows, k = 2, 48, 64
    codes = RNG.integers(0, 16, size=(e, rows, k)).astype(np.uint8)
    # Exponents from subnormal bfloat16 to past its largest finite (infinities).
    exps = RNG.integers(120, 135, size=(e, rows, k // 32))
    exps[0, 0, 0], exps[0, 1, 0], exps[1, 2, 1] = 254, 2, 1
    sb, sv = e8m0(exps)
    blocks = pack_nibbles(codes).reshape(e, rows, k // 32, 16)
    exact = fractions(E2M1_TABLE[codes]) * np.repeat(fractions(sv), 32, 2)
    exact = exact.transpose(0, 2, 1)  # [E, K, rows], as GptOssExperts holds it
    bias = RNG.standard_normal((e, rows)).astype(ml_dtypes.bfloat16)
    # A second weight inside bfloat16's and float16's range: dequantized on a GPU
    # (the first, which overflows, on the host, which counts its infinities).
    d_rows, d_k = 40, 96
    d_codes = RNG.integers(0, 16, size=(e, d_rows, d_k)).astype(np.uint8)
    d_sb, d_sv = e8m0(RNG.integers(118, 136, size=(e, d_rows, d_k // 32)))
    d_exact = (fractions(E2M1_TABLE[d_codes]) * np.repeat(fractions(d_sv), 32, 2)).transpose(0, 2, 1)
    files = {
        "model.safetensors": {
            "model.layers.0.mlp.experts.gate_up_proj_blocks": ("U8", blocks),
            "model.layers.0.mlp.experts.gate_up_proj_scales": ("U8", sb),
            "model.layers.0.mlp.experts.gate_up_proj_bias": ("BF16", bias.view(np.uint16)),
            "model.layers.0.mlp.experts.down_proj_blocks": ("U8", pack_nibbles(d_codes).reshape(e, d_rows, d_k // 32, 16)),
            "model.layers.0.mlp.experts.down_proj_scales": ("U8", d_sb),
        }
    }
    config = {
        "torch_dtype": "bfloat16",
        "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "lm_head"]},
    }
    return files, config, None, {"model.layers.0.mlp.experts.gate_up_proj": exact, "model.layers.0.mlp.experts.down_proj": d_exact}, {"model.layers.0.mlp.experts.gate_up_proj_bias": bias.astype(np.float64)}


def fp4_block(n, k, block, scale_codes, scale_values):
    codes = RNG.integers(0, 16, size=(n, k)).astype(np.uint8)
    exact = fractions(E2M1_TABLE[codes]) * np.repeat(fractions(scale_values), block, 1)
    return pack_nibbles(codes), exact


def modelopt_nvfp4():
    n, k = 32, 80
    sc, sv = e4m3_codes((n, k // 16), 0.5, 400.0, signed=False)
    packed, exact = fp4_block(n, k, 16, sc, sv)
    g = np.array(0.000123, dtype=np.float32)
    exact = exact * Fraction(float(g))
    files = {
        "model.safetensors": {
            "model.layers.0.self_attn.q_proj.weight": ("U8", packed),
            "model.layers.0.self_attn.q_proj.weight_scale": ("F8_E4M3", sc),
            "model.layers.0.self_attn.q_proj.weight_scale_2": ("F32", g.reshape(())),
            "model.layers.0.self_attn.q_proj.input_scale": ("F32", np.array(0.5, np.float32).reshape(())),
        }
    }
    hf = {"producer": {"name": "modelopt", "version": "0.29.0"}, "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16, "exclude_modules": ["lm_head"]}}
    return files, {"torch_dtype": "bfloat16"}, hf, {"model.layers.0.self_attn.q_proj.weight": exact}, {}


def ct_nvfp4():
    n, k = 32, 64
    sc, sv = e4m3_codes((n, k // 16), 0.5, 400.0, signed=False)
    packed, exact = fp4_block(n, k, 16, sc, sv)
    g = np.array([3.7e4], dtype=np.float32)  # the reciprocal of ModelOpt's
    exact = exact / Fraction(float(g[0]))
    files = {
        "model.safetensors": {
            "model.layers.0.mlp.up_proj.weight_packed": ("U8", packed),
            "model.layers.0.mlp.up_proj.weight_scale": ("F8_E4M3", sc),
            "model.layers.0.mlp.up_proj.weight_global_scale": ("F32", g),
            "model.layers.0.mlp.up_proj.input_global_scale": ("F32", np.array([1.5], np.float32)),
        }
    }
    config = {
        "torch_dtype": "bfloat16",
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "ignore": ["lm_head"],
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "symmetric": True, "strategy": "tensor_group", "group_size": 16}}},
        },
    }
    return files, config, None, {"model.layers.0.mlp.up_proj.weight": exact}, {}


def ct_mxfp4():
    n, k = 16, 96
    sb, sv = e8m0(RNG.integers(118, 130, size=(n, k // 32)))
    packed, exact = fp4_block(n, k, 32, sb, sv)
    files = {"model.safetensors": {"model.layers.0.mlp.up_proj.weight_packed": ("U8", packed), "model.layers.0.mlp.up_proj.weight_scale": ("U8", sb)}}
    config = {
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "mxfp4-pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "strategy": "group", "group_size": 32, "symmetric": True}}},
        },
    }
    return files, config, None, {"model.layers.0.mlp.up_proj.weight": exact}, {}


def ct_fp8_block():
    m, n = 136, 200
    wb, wv = e4m3_codes((m, n))
    s, sv = half(RNG.uniform(0.001, 0.01, size=(2, 2)), "BF16")
    exact = fractions(wv) * np.repeat(np.repeat(fractions(sv), 128, 0), 128, 1)[:m, :n]
    c, cv = e4m3_codes((40, 24))
    cs = RNG.uniform(0.001, 0.01, size=(40, 1)).astype(np.float32)
    files = {
        "model.safetensors": {
            "model.layers.0.mlp.gate_proj.weight": ("F8_E4M3", wb),
            "model.layers.0.mlp.gate_proj.weight_scale": ("BF16", s.view(np.uint16)),
        }
    }
    config = {
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "float-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128], "symmetric": True}}},
        },
    }
    return files, config, None, {"model.layers.0.mlp.gate_proj.weight": exact}, {}


def ct_fp8_channel():
    m, n = 40, 24
    wb, wv = e4m3_codes((m, n))
    s = RNG.uniform(0.001, 0.01, size=(m, 1)).astype(np.float32)
    exact = fractions(wv) * fractions(s)
    files = {"model.safetensors": {"model.layers.0.mlp.gate_proj.weight": ("F8_E4M3", wb), "model.layers.0.mlp.gate_proj.weight_scale": ("F32", s), "model.layers.0.mlp.gate_proj.input_scale": ("F32", np.array([0.1], np.float32))}}
    config = {
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "float-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True}}},
        },
    }
    return files, config, None, {"model.layers.0.mlp.gate_proj.weight": exact}, {}


def ct_int4():
    out, inn, group = 48, 96, 32
    groups = inn // group
    q = RNG.integers(-8, 8, size=(out, inn))
    z = RNG.integers(-8, 8, size=(out, groups))
    s, sv = half(RNG.uniform(0.001, 0.05, size=(out, groups)), "BF16")
    g_idx = RNG.permutation(np.repeat(np.arange(groups), group)).astype(np.int32)
    exact = fractions(q - z[:, g_idx]) * fractions(sv[:, g_idx])
    files = {
        "model.safetensors": {
            "model.layers.0.mlp.down_proj.weight_packed": ("I32", pack_words(q + 8, 4, 1)),
            "model.layers.0.mlp.down_proj.weight_scale": ("BF16", s.view(np.uint16)),
            "model.layers.0.mlp.down_proj.weight_zero_point": ("I32", pack_words(z + 8, 4, 0)),
            "model.layers.0.mlp.down_proj.weight_g_idx": ("I32", g_idx),
            "model.layers.0.mlp.down_proj.weight_shape": ("I64", np.array([out, inn], np.int64)),
        }
    }
    config = {
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": group, "symmetric": False, "actorder": "group"}}},
        },
    }
    return files, config, None, {"model.layers.0.mlp.down_proj.weight": exact}, {}


def ct_int8():
    out, inn = 16, 64
    q = RNG.integers(-128, 128, size=(out, inn))
    s, sv = half(RNG.uniform(0.001, 0.05, size=(out, 1)), "F16")
    exact = fractions(q) * fractions(sv)
    files = {"model.safetensors": {"model.layers.0.mlp.up_proj.weight_packed": ("I32", pack_words(q + 128, 8, 1)), "model.layers.0.mlp.up_proj.weight_scale": ("F16", s.view(np.uint16)), "model.layers.0.mlp.up_proj.weight_shape": ("I64", np.array([out, inn], np.int64))}}
    config = {
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": True}}},
        },
    }
    return files, config, None, {"model.layers.0.mlp.up_proj.weight": exact}, {}


def gptq(v2, symmetric=False, bits=4):
    k, n, group = 96, 40, 32
    groups = k // group
    top = 1 << bits
    q = RNG.integers(0, top, size=(k, n))
    z = np.full((groups, n), top // 2) if symmetric else RNG.integers(1, top, size=(groups, n))
    s, sv = half(RNG.uniform(0.001, 0.05, size=(groups, n)), "F16")
    g_idx = RNG.permutation(np.repeat(np.arange(groups), group)).astype(np.int32)
    exact = (fractions(q - z[g_idx, :]) * fractions(sv[g_idx, :])).T  # [N, K]
    stored_z = z if v2 else z - 1
    files = {
        "model.safetensors": {
            "model.layers.0.self_attn.o_proj.qweight": ("I32", pack_words(q, bits, 0)),
            "model.layers.0.self_attn.o_proj.qzeros": ("I32", pack_words(stored_z, bits, 1)),
            "model.layers.0.self_attn.o_proj.scales": ("F16", s.view(np.uint16)),
            "model.layers.0.self_attn.o_proj.g_idx": ("I32", g_idx),
        }
    }
    qc = {"quant_method": "gptq", "bits": bits, "group_size": group, "desc_act": True, "sym": symmetric}
    if v2:
        qc["checkpoint_format"] = "gptq_v2"
    return files, {"quantization_config": qc}, None, {"model.layers.0.self_attn.o_proj.weight": exact}, {}


def awq():
    k, n, group = 64, 48, 32
    groups = k // group
    q = RNG.integers(0, 16, size=(k, n))
    z = RNG.integers(0, 16, size=(groups, n))
    s, sv = half(RNG.uniform(0.001, 0.05, size=(groups, n)), "F16")
    gk = np.arange(k) // group
    exact = (fractions(q - z[gk, :]) * fractions(sv[gk, :])).T
    files = {
        "model.safetensors": {
            "model.layers.0.mlp.down_proj.qweight": ("I32", pack_awq(q)),
            "model.layers.0.mlp.down_proj.qzeros": ("I32", pack_awq(z)),
            "model.layers.0.mlp.down_proj.scales": ("F16", s.view(np.uint16)),
        }
    }
    qc = {"quant_method": "awq", "bits": 4, "group_size": group, "version": "gemm", "zero_point": True}
    return files, {"quantization_config": qc}, None, {"model.layers.0.mlp.down_proj.weight": exact}, {}


LAYOUTS = {
    "deepseek-v3": deepseek_v3,
    "deepseek-v4": deepseek_v4,
    "gpt-oss": gpt_oss,
    "modelopt-nvfp4": modelopt_nvfp4,
    "ct-nvfp4": ct_nvfp4,
    "ct-mxfp4": ct_mxfp4,
    "ct-fp8-block": ct_fp8_block,
    "ct-fp8-channel": ct_fp8_channel,
    "ct-int4": ct_int4,
    "ct-int8": ct_int8,
    "gptq-v1": lambda: gptq(False),
    "gptq-v2": lambda: gptq(True),
    "awq": awq,
}

OTHERS = {"tokenizer.json": b'{"version": "1.0", "model": {"type": "BPE"}}\n', "generation_config.json": b'{"do_sample": true}\n'}


def write_folder(d, files, config, hf):
    os.makedirs(d)
    for name, tensors in files.items():
        write_safetensors(os.path.join(d, name), tensors)
    if len(files) > 1:
        weight_map = {t: f for f, ts in files.items() for t in ts}
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f)
    if config is not None:
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config, f)
    if hf is not None:
        with open(os.path.join(d, "hf_quant_config.json"), "w") as f:
            json.dump(hf, f)
    for name, b in OTHERS.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(b)


def nxrig_run(nxrig, *args):
    return subprocess.run([nxrig, *args], capture_output=True, text=True)


SCHEME_NAMES = {"fp8-block", "fp8", "mxfp4", "nvfp4", "nvfp4-pack-quantized", "mxfp4-pack-quantized", "pack-quantized", "gptq", "awq"}


def check_layout(nxrig, out, name, devices, fails):
    files, config, hf, expected, plain = LAYOUTS[name]()
    src = os.path.join(out, name)
    write_folder(src, files, config, hf)
    info = nxrig_run(nxrig, "info", src)
    if info.returncode != 0 or "scheme:" not in info.stdout:
        fails.append(f"{name}: nxrig info: {info.returncode}: {info.stderr}{info.stdout}")
        return
    # --json: the scheme by its name (--scheme's), and each weight dequantized.
    j = json.loads(nxrig_run(nxrig, "info", src, "--json").stdout)
    if j.get("scheme") not in SCHEME_NAMES or len(j.get("dequantized", [])) != len(expected):
        fails.append(f"{name}: nxrig info --json: scheme {j.get('scheme')!r}, {len(j.get('dequantized', []))} dequantized of {len(expected)}")
    for to in TARGETS:
        first = None
        for device in devices:
            dst = os.path.join(out, f"{name}-{to}-{device}")
            r = nxrig_run(nxrig, "convert", src, dst, "--to", to, "--device", device)
            if r.returncode != 0:
                fails.append(f"{name} to {to} on {device}: exit {r.returncode}: {r.stderr}")
                continue
            # On a GPU every weight is dequantized there, but gpt-oss' first, whose
            # values overflow (the host counts them).
            if device != "host" and not re.search(r"dequantized from \S+ (\(\d+ )?on " + device, r.stderr + r.stdout):
                fails.append(f"{name} to {to} on {device}: not dequantized on the device: {r.stderr}{r.stdout}")
            got = {}
            for f in sorted(os.listdir(dst)):
                if f.endswith(".safetensors"):
                    got.update(read_safetensors(os.path.join(dst, f)))
            code = TARGETS[to][0]
            for t, exact in expected.items():
                if t not in got:
                    fails.append(f"{name} to {to} on {device}: no output tensor {t!r} (have {sorted(got)})")
                    continue
                dtype, shape, b = got[t]
                want = expected_bytes(exact, to)
                if dtype != code or shape != list(exact.shape) or b != want:
                    bad = [i for i in range(0, min(len(b), len(want)), 2) if b[i : i + 2] != want[i : i + 2]]
                    fails.append(f"{name} to {to} on {device}: {t!r}: {dtype} {shape}, expected {code} {list(exact.shape)}; {len(bad)} elements differ, first at byte {bad[:1]}")
            for t, v in plain.items():
                want = v.astype(TARGETS[to][1]).tobytes()
                if t not in got or got[t][2] != want:
                    fails.append(f"{name} to {to} on {device}: the plain tensor {t!r} is not its cast")
            # Nothing of the scheme is left: scales, zero points, activation scales.
            left = [t for t in got if t not in expected and t not in plain]
            if left:
                fails.append(f"{name} to {to} on {device}: tensors left: {left}")
            cfg_path = os.path.join(dst, "config.json")
            if config is not None:
                cfg = json.load(open(cfg_path))
                if "quantization_config" in cfg or cfg.get("torch_dtype") != to or "expert_dtype" in cfg:
                    fails.append(f"{name} to {to} on {device}: config.json not rewritten: {cfg}")
            if os.path.exists(os.path.join(dst, "hf_quant_config.json")):
                fails.append(f"{name} to {to} on {device}: hf_quant_config.json was copied")
            for o, b in OTHERS.items():
                p = os.path.join(dst, o)
                if not os.path.exists(p) or open(p, "rb").read() != b:
                    fails.append(f"{name} to {to} on {device}: {o} not copied as it was")
            ix = os.path.join(dst, "model.safetensors.index.json")
            if os.path.exists(ix):
                wm = json.load(open(ix))["weight_map"]
                if sorted(wm) != sorted(got):
                    fails.append(f"{name} to {to} on {device}: the index maps {sorted(wm)}, the shards hold {sorted(got)}")
            if name == "gpt-oss":
                if "warning" not in r.stderr:
                    fails.append(f"{name} to {to} on {device}: no overflow warning for the infinities: {r.stderr!r}")
                # Saturating: the largest finite instead of the infinities.
                sat = dst + "-saturate"
                r = nxrig_run(nxrig, "convert", src, sat, "--to", to, "--device", device, "--saturate")
                t = "model.layers.0.mlp.experts.gate_up_proj"
                b = read_safetensors(os.path.join(sat, "model.safetensors"))[t][2] if r.returncode == 0 else b""
                if b != expected_bytes(expected[t], to, saturate=True) or "saturated" not in r.stderr:
                    fails.append(f"{name} to {to} on {device} --saturate: not the saturated oracle: {r.stderr!r}")
                shutil.rmtree(sat, ignore_errors=True)
            # Every device writes the same bytes.
            outs = {f: open(os.path.join(dst, f), "rb").read() for f in sorted(os.listdir(dst))}
            if first is None:
                first = outs
            elif outs != first:
                fails.append(f"{name} to {to}: {device}'s files are not {devices[0]}'s")
    print(f"  {name}: {sum(e.size for e in expected.values())} elements dequantized, to {', '.join(TARGETS)} on {', '.join(devices)}", flush=True)


def refuse(nxrig, out, name, files, config, expect, fails, args=()):
    src = os.path.join(out, "refuse-" + name)
    write_folder(src, files, config, None)
    dst = os.path.join(out, "refuse-" + name + "-out")
    r = nxrig_run(nxrig, "convert", src, dst, "--to", "bfloat16", *args)
    if r.returncode != 2 or expect not in r.stderr:
        fails.append(f"refusal {name}: exit {r.returncode}, expected 2 and {expect!r} in: {r.stderr!r}")
    elif os.path.exists(dst):
        fails.append(f"refusal {name}: {dst} was written")
    else:
        print(f"  refused: {name}: {r.stderr.strip()}", flush=True)


def refusals(nxrig, out, fails):
    files, config, _, _, _ = deepseek_v3()
    # A weight whose scale is missing from every shard.
    f = {k: dict(v) for k, v in files.items()}
    del f["model-00002-of-00002.safetensors"]["model.layers.0.mlp.down_proj.weight_scale_inv"]
    refuse(nxrig, out, "missing-scale", f, config, 'tensor "model.layers.0.mlp.down_proj.weight": a weight (fp8-block) without its scale', fails)
    # A scale of the wrong shape: [2, 2] for a [260, 140] weight in blocks of 128.
    f = {k: dict(v) for k, v in files.items()}
    f["model-00002-of-00002.safetensors"]["model.layers.0.mlp.down_proj.weight_scale_inv"] = ("F32", np.ones((2, 2), np.float32))
    refuse(nxrig, out, "scale-shape", f, config, "shape [2, 2], expected [3, 2]", fails)
    # A scale without its weight.
    f = {k: dict(v) for k, v in files.items()}
    del f["model-00001-of-00002.safetensors"]["model.layers.0.mlp.down_proj.weight"]
    refuse(nxrig, out, "orphan-scale", f, config, "without its weight", fails)
    # A symmetric GPTQ v1 checkpoint labelled gptq_v2: its zero points are one short.
    gptq_v1_sym = gptq(False, symmetric=True)
    files, config, _, _, _ = gptq_v1_sym
    config["quantization_config"]["checkpoint_format"] = "gptq_v2"
    refuse(nxrig, out, "gptq-v1-as-v2", files, config, 'tensor "model.layers.0.self_attn.o_proj.qweight": a zero point of 7 where a symmetric 4-bit GPTQ checkpoint has 8, reading its zero points as checkpoint_format gptq_v2 (stored as they are): the checkpoint looks like v1', fails)
    # ... which --scheme gptq settles (v1's zero points, whatever the files say).
    dst = os.path.join(out, "gptq-v1-settled")
    r = nxrig_run(nxrig, "convert", os.path.join(out, "refuse-gptq-v1-as-v2"), dst, "--to", "bfloat16", "--scheme", "gptq")
    (_, _, _, exact, _) = gptq_v1_sym
    got = read_safetensors(os.path.join(dst, "model.safetensors")) if r.returncode == 0 else {}
    t = "model.layers.0.self_attn.o_proj.weight"
    if r.returncode != 0 or t not in got or got[t][2] != expected_bytes(exact[t], "bfloat16"):
        fails.append(f"--scheme gptq on the v1 checkpoint labelled v2: exit {r.returncode} {r.stderr}")
    else:
        print("  settled: gptq-v1-as-v2 with --scheme gptq: the exact values", flush=True)
    # An unknown quant_method.
    refuse(nxrig, out, "unknown-method", files, {"quantization_config": {"quant_method": "hqq"}}, 'quant_method "hqq" is not a scheme nxrig knows; --scheme', fails)
    # A scheme named that pairs nothing: GPTQ's on gpt-oss' MXFP4 experts.
    g_files, g_config, _, _, _ = gpt_oss()
    refuse(nxrig, out, "wrong-scheme", g_files, g_config, "--scheme: gptq: no weight of the checkpoint has its partners in this scheme", fails, args=("--scheme", "gptq"))
    # Quantized-looking tensors and no configuration.
    refuse(nxrig, out, "no-config", files, None, "--scheme", fails)
    # The index of a folder with its config.json, given alone: the refusal says to give
    # the folder.
    r = nxrig_run(nxrig, "convert", os.path.join(out, "deepseek-v3", "model.safetensors.index.json"), os.path.join(out, "index-alone"), "--to", "bfloat16")
    if r.returncode != 2 or "holds a config.json: give the folder to read it" not in r.stderr or os.path.exists(os.path.join(out, "index-alone")):
        fails.append(f"refusal index-alone: exit {r.returncode}: {r.stderr!r}")
    # A compressed-tensors weight whose weight_shape says fewer inputs than its packed
    # words hold (a packing padded past the input axis): refused, not written padded.
    c_files, c_config, _, _, _ = ct_int4()
    c_files["model.safetensors"]["model.layers.0.mlp.down_proj.weight_shape"] = ("I64", np.array([48, 95], np.int64))
    refuse(nxrig, out, "padded-packing", c_files, c_config, 'tensor "model.layers.0.mlp.down_proj.weight_shape": the unpacked shape [48, 95], but the packed weight "model.layers.0.mlp.down_proj.weight_packed" holds [48, 96]', fails)


def main(nxrig, out, devices):
    t = time.time()
    fails = []
    for name in LAYOUTS:
        check_layout(nxrig, out, name, devices, fails)
    refusals(nxrig, out, fails)
    for f in fails:
        print("FAIL:", f)
    print(f"dequant.py: {len(LAYOUTS)} layouts, {len(fails)} failures, {time.time() - t:.1f} s")
    sys.exit(1 if fails else 0)


def write_all(out):
    for name, layout in LAYOUTS.items():
        files, config, hf, _, _ = layout()
        write_folder(os.path.join(out, name), files, config, hf)
    files, config, _, _, _ = deepseek_v3()
    del files["model-00002-of-00002.safetensors"]["model.layers.0.mlp.down_proj.weight_scale_inv"]
    write_folder(os.path.join(out, "refuse-missing-scale"), files, config, None)
    files, config, _, _, _ = gptq(False, symmetric=True)
    config["quantization_config"]["checkpoint_format"] = "gptq_v2"
    write_folder(os.path.join(out, "refuse-gptq-v1-as-v2"), files, config, None)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if sys.argv[1] == "--write":
        write_all(sys.argv[2])
        sys.exit(0)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    main(sys.argv[1], out, sys.argv[3:] or ["host"])
