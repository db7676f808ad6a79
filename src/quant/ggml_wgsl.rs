//! GGUF's block-quantized types as WGSL: for each type ggml's dequantization of one
//! element, `value(o, j)` (element `j` of the block at byte `o` of the blocks), as
//! the float32 bits [`super::ggml`] gives on the host. The same float32 operations in
//! the same order: every product of a block's scales and codes is exact in float32
//! (a float16's 11 bits by codes and sub-scales of at most 13), so that the one
//! rounding of a sum or a difference is the only one, with or without a fused
//! multiply-add; a float16 is decoded in integers (its subnormals too), and MXFP4's
//! powers of two are built as bits (an E8M0 scale of 2^-128 gives float32 subnormals,
//! which a GPU may flush). Tables are read from the operand `g`: 16 words of the
//! type's values as float32 bits, then an IQ type's grid.

/// What every type's module starts with: bytes, float16s, signs and grids.
pub(super) const COMMON: &str = "
fn b8(b: u32) -> u32 {
    return (load_w(b >> 2u) >> ((b & 3u) * 8u)) & 255u;
}

fn u16_at(b: u32) -> u32 {
    return b8(b) | (b8(b + 1u) << 8u);
}

fn u32_at(b: u32) -> u32 {
    return u16_at(b) | (u16_at(b + 2u) << 16u);
}

fn sx8(v: u32) -> i32 {
    return bitcast<i32>(v << 24u) >> 24u;
}

fn half_of(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 31u;
    let m = h & 1023u;
    if (e == 0u) {
        return bitcast<f32>(sign | bitcast<u32>(f32(m) * bitcast<f32>(0x33800000u)));
    }
    if (e == 31u) {
        return bitcast<f32>(sign | 0x7F800000u | (m << 13u));
    }
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

fn f16_at(b: u32) -> f32 {
    return half_of(u16_at(b));
}

fn nib(b: u32, high: bool) -> u32 {
    return select(b & 15u, b >> 4u, high);
}

fn ksigns(i: u32) -> u32 {
    let x = i & 127u;
    return x | ((countOneBits(x) & 1u) << 7u);
}

fn signed(x: f32, s: u32, j: u32) -> f32 {
    return select(x, -x, ((s >> j) & 1u) == 1u);
}

fn val(i: u32) -> f32 {
    return bitcast<f32>(load_g(i));
}

fn grid(idx: u32, k: u32, bits: u32) -> f32 {
    return val((load_g(16u + idx) >> (bits * k)) & ((1u << bits) - 1u));
}

fn delta(negative: bool) -> f32 {
    return select(0.125, -0.125, negative);
}

fn e2m1_doubled(m: u32) -> u32 {
    return select(m, (2u + (m & 1u)) << (max(m >> 1u, 1u) - 1u), m >= 4u);
}

fn e2m1_signed(q: u32) -> f32 {
    return f32(i32(e2m1_doubled(q & 7u)) * select(1, -1, q >= 8u));
}

fn pow2_times(m: u32, s: i32, negative: bool) -> u32 {
    if (m == 0u) {
        return 0u;
    }
    let sign = select(0u, 0x80000000u, negative);
    let p = firstLeadingBit(m);
    let e = s + i32(p);
    if (e > 127) {
        return sign | 0x7F800000u;
    }
    let frac = (m << (23u - p)) & 0x7FFFFFu;
    if (e >= -126) {
        return sign | (u32(e + 127) << 23u) | frac;
    }
    return sign | ((0x800000u | frac) >> u32(-126 - e));
}

fn ue4m3_half(x: u32) -> f32 {
    if (x == 0u || x == 0x7Fu) {
        return 0.0;
    }
    let e = (x >> 3u) & 15u;
    let m = f32(x & 7u);
    var v: f32;
    if (e == 0u) {
        v = m * (1.0 / 512.0);
    } else {
        v = (1.0 + m * 0.125) * bitcast<f32>(((e + 120u) & 255u) << 23u);
    }
    return v * 0.5;
}

fn scale_min_k4(o: u32, k: u32) -> vec2<f32> {
    if (k < 4u) {
        return vec2<f32>(f32(b8(o + 4u + k) & 63u), f32(b8(o + 8u + k) & 63u));
    }
    let a = b8(o + 8u + k);
    return vec2<f32>(
        f32((a & 15u) | ((b8(o + k) >> 2u) & 48u)),
        f32((a >> 4u) | ((b8(o + 4u + k) >> 2u) & 48u)),
    );
}
";

/// `fn value(o: u32, j: u32) -> u32` of the ggml type named `name`: the float32 bits
/// of element `j` (0 to the block's elements) of the block at byte `o`; `None` for a
/// type nxrig does not dequantize.
pub(super) fn value(name: &str) -> Option<&'static str> {
    Some(match name {
        "Q4_0" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let q = nib(b8(o + 2u + (j & 15u)), j >= 16u);
    return bitcast<u32>(f16_at(o) * f32(i32(q) - 8));
}
"
        }
        "Q4_1" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let q = nib(b8(o + 4u + (j & 15u)), j >= 16u);
    return bitcast<u32>(f16_at(o) * f32(q) + f16_at(o + 2u));
}
"
        }
        "Q5_0" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let qh = u32_at(o + 2u);
    let q = nib(b8(o + 6u + (j & 15u)), j >= 16u) | (((qh >> j) & 1u) << 4u);
    return bitcast<u32>(f16_at(o) * f32(i32(q) - 16));
}
"
        }
        "Q5_1" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let qh = u32_at(o + 4u);
    let q = nib(b8(o + 8u + (j & 15u)), j >= 16u) | (((qh >> j) & 1u) << 4u);
    return bitcast<u32>(f16_at(o) * f32(q) + f16_at(o + 2u));
}
"
        }
        "Q8_0" => {
            "
fn value(o: u32, j: u32) -> u32 {
    return bitcast<u32>(f32(sx8(b8(o + 2u + j))) * f16_at(o));
}
"
        }
        "Q1_0" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let d = f16_at(o);
    return bitcast<u32>(select(-d, d, ((b8(o + 2u + j / 8u) >> (j & 7u)) & 1u) == 1u));
}
"
        }
        "Q2_K" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let q = (b8(o + 16u + (j / 128u) * 32u + (j & 31u)) >> (2u * ((j / 32u) & 3u))) & 3u;
    let sc = b8(o + j / 16u);
    let dl = f16_at(o + 80u) * f32(sc & 15u);
    let ml = f16_at(o + 82u) * f32(sc >> 4u);
    return bitcast<u32>(dl * f32(q) - ml);
}
"
        }
        "Q3_K" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let k = j / 16u;
    let sb = b8(o + 96u + (k & 7u));
    let l = select(sb >> 4u, sb & 15u, k < 8u);
    let hi = (b8(o + 104u + (k & 3u)) >> (2u * (k / 4u))) & 3u;
    let dl = f16_at(o + 108u) * f32(i32(l | (hi << 4u)) - 32);
    let ql = (b8(o + 32u + (j / 128u) * 32u + (j & 31u)) >> (2u * ((j / 32u) & 3u))) & 3u;
    let qh = ((b8(o + (j & 31u)) >> (j / 32u)) & 1u) ^ 1u;
    return bitcast<u32>(dl * f32(i32(ql) - i32(qh << 2u)));
}
"
        }
        "Q4_K" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let k = j / 32u;
    let sm = scale_min_k4(o, k);
    let q = (b8(o + 16u + (k / 2u) * 32u + (j & 31u)) >> (4u * (k & 1u))) & 15u;
    return bitcast<u32>((f16_at(o) * sm.x) * f32(q) - f16_at(o + 2u) * sm.y);
}
"
        }
        "Q5_K" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let k = j / 32u;
    let i = j & 31u;
    let sm = scale_min_k4(o, k);
    let lo = (b8(o + 48u + (k / 2u) * 32u + i) >> (4u * (k & 1u))) & 15u;
    let q = lo | (((b8(o + 16u + i) >> k) & 1u) << 4u);
    return bitcast<u32>((f16_at(o) * sm.x) * f32(q) - f16_at(o + 2u) * sm.y);
}
"
        }
        "Q6_K" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let h = j / 128u;
    let r = j & 127u;
    let lo = (b8(o + h * 64u + (r & 63u)) >> (4u * (r / 64u))) & 15u;
    let hi = (b8(o + 128u + h * 32u + (r & 31u)) >> (2u * (r / 32u))) & 3u;
    let q = i32(lo | (hi << 4u)) - 32;
    return bitcast<u32>(f16_at(o + 208u) * f32(sx8(b8(o + 192u + j / 16u))) * f32(q));
}
"
        }
        "TQ1_0" => {
            "
fn value(o: u32, j: u32) -> u32 {
    var x: u32;
    var p: u32;
    if (j < 160u) {
        p = j / 32u;
        x = b8(o + (j & 31u));
    } else if (j < 240u) {
        p = (j - 160u) / 16u;
        x = b8(o + 32u + ((j - 160u) & 15u));
    } else {
        p = (j - 240u) / 4u;
        x = b8(o + 48u + ((j - 240u) & 3u));
    }
    var pw = 1u;
    for (var t = 0u; t < p; t++) {
        pw = pw * 3u;
    }
    let trit = i32((((x * pw) & 255u) * 3u) >> 8u) - 1;
    return bitcast<u32>(f16_at(o + 52u) * f32(trit));
}
"
        }
        "TQ2_0" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let q = i32((b8(o + (j / 128u) * 32u + (j & 31u)) >> (2u * ((j / 32u) & 3u))) & 3u) - 1;
    return bitcast<u32>(f16_at(o + 64u) * f32(q));
}
"
        }
        "MXFP4" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let q = nib(b8(o + 1u + (j & 15u)), j >= 16u);
    return pow2_times(e2m1_doubled(q & 7u), i32(b8(o)) - 128, q >= 8u);
}
"
        }
        "NVFP4" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let s = j / 16u;
    let jj = j & 15u;
    let q = nib(b8(o + 4u + s * 8u + (jj & 7u)), jj >= 8u);
    return bitcast<u32>(ue4m3_half(b8(o + s)) * e2m1_signed(q));
}
"
        }
        "IQ4_NL" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let q = nib(b8(o + 2u + (j & 15u)), j >= 16u);
    return bitcast<u32>(f16_at(o) * val(q));
}
"
        }
        "IQ4_XS" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let k = j / 32u;
    let l = (b8(o + 4u + k / 2u) >> (4u * (k & 1u))) & 15u;
    let hi = (u16_at(o + 2u) >> (2u * k)) & 3u;
    let dl = f16_at(o) * f32(i32(l | (hi << 4u)) - 32);
    let jj = j & 31u;
    let q = nib(b8(o + 8u + k * 16u + (jj & 15u)), jj >= 16u);
    return bitcast<u32>(dl * val(q));
}
"
        }
        "IQ2_XXS" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let ib = j / 32u;
    let l = (j & 31u) / 8u;
    let jj = j & 7u;
    let aux = u32_at(o + 6u + 8u * ib);
    let db = f16_at(o) * (0.5 + f32(aux >> 28u)) * 0.25;
    let g = grid(b8(o + 2u + 8u * ib + l), jj, 2u);
    return bitcast<u32>(signed(db * g, ksigns(aux >> (7u * l)), jj));
}
"
        }
        "IQ3_XXS" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let ib = j / 32u;
    let l = (j & 31u) / 8u;
    let jj = j & 7u;
    let aux = u32_at(o + 66u + 4u * ib);
    let db = f16_at(o) * (0.5 + f32(aux >> 28u)) * 0.5;
    let g = grid(b8(o + 2u + ib * 8u + l * 2u + jj / 4u), jj & 3u, 3u);
    return bitcast<u32>(signed(db * g, ksigns(aux >> (7u * l)), jj));
}
"
        }
        "IQ2_XS" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let g8 = j / 8u;
    let jj = j & 7u;
    let q = u16_at(o + 2u + 2u * g8);
    let k = g8 / 2u;
    let s = (b8(o + 66u + k / 2u) >> (4u * (k & 1u))) & 15u;
    let db = f16_at(o) * (0.5 + f32(s)) * 0.25;
    return bitcast<u32>(signed(db * grid(q & 511u, jj, 2u), ksigns(q >> 9u), jj));
}
"
        }
        "IQ2_S" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let g8 = j / 8u;
    let jj = j & 7u;
    let k = g8 / 2u;
    let s = (b8(o + 74u + k / 2u) >> (4u * (k & 1u))) & 15u;
    let db = f16_at(o) * (0.5 + f32(s)) * 0.25;
    let idx = b8(o + 2u + g8) | (((b8(o + 66u + g8 / 4u) >> (2u * (g8 & 3u))) & 3u) << 8u);
    return bitcast<u32>(signed(db * grid(idx, jj, 2u), b8(o + 34u + g8), jj));
}
"
        }
        "IQ3_S" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let k = j / 32u;
    let s = (b8(o + 106u + k / 2u) >> (4u * (k & 1u))) & 15u;
    let db = f16_at(o) * f32(1u + 2u * s);
    let i = j / 4u;
    let idx = b8(o + 2u + i) | (((b8(o + 66u + i / 8u) >> (i & 7u)) & 1u) << 8u);
    return bitcast<u32>(signed(db * grid(idx, j & 3u, 3u), b8(o + 74u + j / 8u), j & 7u));
}
"
        }
        "IQ1_S" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let ib = j / 32u;
    let l = (j & 31u) / 8u;
    let h16 = u16_at(o + 34u + 2u * ib);
    let dl = f16_at(o) * f32(2u * ((h16 >> 12u) & 7u) + 1u);
    let idx = b8(o + 2u + ib * 4u + l) | (((h16 >> (3u * l)) & 7u) << 8u);
    return bitcast<u32>(dl * (grid(idx, j & 7u, 2u) + delta((h16 & 0x8000u) != 0u)));
}
"
        }
        "IQ1_M" => {
            "
fn value(o: u32, j: u32) -> u32 {
    let bits = ((u16_at(o + 48u) & 0xF000u) >> 12u) | ((u16_at(o + 50u) & 0xF000u) >> 8u)
        | ((u16_at(o + 52u) & 0xF000u) >> 4u) | (u16_at(o + 54u) & 0xF000u);
    let g8 = j / 8u;
    let k = g8 / 2u;
    let sk = u16_at(o + 48u + 2u * (k / 4u));
    let dl = half_of(bits) * f32(2u * ((sk >> (3u * (k & 3u))) & 7u) + 1u);
    let v8 = b8(o + 32u + g8 / 2u) >> (4u * (g8 & 1u));
    let idx = b8(o + g8) | ((v8 & 7u) << 8u);
    return bitcast<u32>(dl * (grid(idx, j & 7u, 2u) + delta((v8 & 8u) != 0u)));
}
"
        }
        _ => return None,
    })
}
