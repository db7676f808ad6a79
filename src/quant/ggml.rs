//! GGUF's block-quantized tensors dequantized on the host: each ggml type's blocks into
//! float32, the values ggml's reference dequantization gives (and `gguf`'s NumPy one,
//! the oracle of the tests): a block's scales decoded from float16 (or E8M0, UE4M3),
//! each value the same float32 operations in the same order (a product, then a sum or
//! a difference, each rounded once; no fused multiply-add). A later cast rounds them
//! once more into the output's dtype.
//!
//! The layouts are ggml's (`ggml-common.h`), written here from its published block
//! structures; `QK_K` is 256.

use half::f16;

use super::ggml_grids::*;
use crate::error::Error;
use crate::formats::GgmlType;

/// Value `k` of entry `idx` of a grid whose indices take `bits` bits, as float32.
#[inline]
fn grid<T: Copy + Into<f32>>(grid: &[u32], values: &[T], bits: u32, idx: usize, k: usize) -> f32 {
    let mask = (1u32 << bits) - 1;
    values[((grid[idx] >> (bits * k as u32)) & mask) as usize].into()
}

/// The 8 signs of a 7-bit sign index (IQ2's and IQ3_XXS' `ksigns`): the eighth bit the
/// parity of the seven.
#[inline]
fn ksigns(i: u32) -> u32 {
    (i & 0x7F) | ((i & 0x7F).count_ones() & 1) << 7
}

/// `x` negated where bit `j` of `signs` is set.
#[inline]
fn signed(x: f32, signs: u32, j: usize) -> f32 {
    if (signs >> j) & 1 == 1 {
        -x
    } else {
        x
    }
}

/// IQ1's delta: 0.125, negative where the flag is set.
#[inline]
fn delta(negative: bool) -> f32 {
    if negative {
        -0.125
    } else {
        0.125
    }
}

/// A float16 at `b[at..at + 2]` as float32.
fn h(b: &[u8], at: usize) -> f32 {
    f16::from_le_bytes([b[at], b[at + 1]]).to_f32()
}

/// E2M1's values doubled, as ggml holds them for MXFP4 and NVFP4 (the scale halved).
const E2M1_DOUBLED: [i8; 16] = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];

/// IQ4_NL's and IQ4_XS's non-linear values.
pub(super) const IQ4_VALUES: [i8; 16] = [
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
];

/// An E8M0 scale halved (`ggml_e8m0_to_fp32_half`): 2^(x - 128), as bits.
fn e8m0_half(x: u8) -> f32 {
    let bits = if x < 2 {
        0x0020_0000u32 << x
    } else {
        (x as u32 - 1) << 23
    };
    f32::from_bits(bits)
}

/// An unsigned E4M3 scale (bias 7) halved, as NVFP4 holds it: the top bit ignored, 0
/// and 0x7F zero.
fn ue4m3_half(x: u8) -> f32 {
    if x == 0 || x == 0x7F {
        return 0.0;
    }
    let e = (x >> 3) & 0xF;
    let m = (x & 7) as f32;
    let v = if e == 0 {
        m * (1.0 / 512.0)
    } else {
        (1.0 + m / 8.0) * f32::from_bits(((e as u32 + 127 - 7) & 0xFF) << 23)
    };
    v * 0.5
}

/// Q4_K's and Q5_K's 6-bit scale and min of sub-block `k` (0..8) from their 12 bytes.
fn scale_min_k4(s: &[u8], k: usize) -> (f32, f32) {
    let (sc, m) = if k < 4 {
        (s[k] & 63, s[k + 4] & 63)
    } else {
        (
            (s[k + 4] & 0xF) | ((s[k - 4] >> 2) & 0x30),
            (s[k + 4] >> 4) | ((s[k] >> 2) & 0x30),
        )
    };
    (sc as f32, m as f32)
}

/// One block `b` of `ty` dequantized into `y` (its elements).
fn block(ty: &str, b: &[u8], y: &mut [f32]) {
    match ty {
        "Q4_0" => {
            let d = h(b, 0);
            for j in 0..16 {
                y[j] = d * ((b[2 + j] & 0xF) as i8 - 8) as f32;
                y[j + 16] = d * ((b[2 + j] >> 4) as i8 - 8) as f32;
            }
        }
        "Q4_1" => {
            let (d, m) = (h(b, 0), h(b, 2));
            for j in 0..16 {
                y[j] = d * (b[4 + j] & 0xF) as f32 + m;
                y[j + 16] = d * (b[4 + j] >> 4) as f32 + m;
            }
        }
        "Q5_0" | "Q5_1" => {
            let one = ty == "Q5_1";
            let d = h(b, 0);
            let at = if one { 4 } else { 2 };
            let qh = u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
            let qs = &b[at + 4..at + 20];
            for e in 0..32 {
                let lo = if e < 16 { qs[e] & 0xF } else { qs[e - 16] >> 4 };
                let q = lo | (((qh >> e) & 1) as u8) << 4;
                y[e] = if one {
                    d * q as f32 + h(b, 2)
                } else {
                    d * (q as i8 - 16) as f32
                };
            }
        }
        "Q1_0" => {
            // A sign bit a value (least significant first): d where set, -d where not.
            let d = h(b, 0);
            for (j, y) in y.iter_mut().enumerate() {
                *y = if (b[2 + j / 8] >> (j % 8)) & 1 == 1 {
                    d
                } else {
                    -d
                };
            }
        }
        "Q8_0" => {
            let d = h(b, 0);
            for j in 0..32 {
                y[j] = (b[2 + j] as i8) as f32 * d;
            }
        }
        "Q2_K" => {
            let (scales, qs) = (&b[0..16], &b[16..80]);
            let (d, dmin) = (h(b, 80), h(b, 82));
            for e in 0..256 {
                let (half_, s, j) = (e / 128, (e / 32) % 4, e % 32);
                let q = (qs[half_ * 32 + j] >> (2 * s)) & 3;
                let sc = scales[e / 16];
                let dl = d * (sc & 0xF) as f32;
                let ml = dmin * (sc >> 4) as f32;
                y[e] = dl * q as f32 - ml;
            }
        }
        "Q3_K" => {
            let (hmask, qs, sc) = (&b[0..32], &b[32..96], &b[96..108]);
            let d = h(b, 108);
            let mut dl = [0f32; 16];
            for (k, dl) in dl.iter_mut().enumerate() {
                let l = if k < 8 { sc[k] & 0xF } else { sc[k - 8] >> 4 };
                let hi = (sc[8 + k % 4] >> (2 * (k / 4))) & 3;
                *dl = d * ((l | hi << 4) as i8 - 32) as f32;
            }
            for e in 0..256 {
                let (half_, s, j) = (e / 128, (e / 32) % 4, e % 32);
                let ql = (qs[half_ * 32 + j] >> (2 * s)) & 3;
                let qh = ((hmask[j] >> (e / 32)) & 1) ^ 1;
                y[e] = dl[e / 16] * (ql as i8 - (qh << 2) as i8) as f32;
            }
        }
        "Q4_K" | "Q5_K" => {
            let five = ty == "Q5_K";
            let (d, dmin) = (h(b, 0), h(b, 2));
            let sc = &b[4..16];
            let (qh, qs) = if five {
                (&b[16..48], &b[48..176])
            } else {
                (&b[0..0], &b[16..144])
            };
            for k in 0..8 {
                let (s, m) = scale_min_k4(sc, k);
                let (dk, mk) = (d * s, dmin * m);
                for i in 0..32 {
                    let e = k * 32 + i;
                    let mut q = (qs[(k / 2) * 32 + i] >> (4 * (k % 2))) & 0xF;
                    if five {
                        q |= ((qh[i] >> k) & 1) << 4;
                    }
                    y[e] = dk * q as f32 - mk;
                }
            }
        }
        "Q6_K" => {
            let (ql, qh, scales) = (&b[0..128], &b[128..192], &b[192..208]);
            let d = h(b, 208);
            for e in 0..256 {
                let (half_, r) = (e / 128, e % 128);
                let lo = (ql[half_ * 64 + r % 64] >> (4 * (r / 64))) & 0xF;
                let hi = (qh[half_ * 32 + r % 32] >> (2 * (r / 32))) & 3;
                let q = (lo | hi << 4) as i8 - 32;
                y[e] = d * (scales[e / 16] as i8) as f32 * q as f32;
            }
        }
        "TQ1_0" => {
            let (qs, qh) = (&b[0..48], &b[48..52]);
            let d = h(b, 52);
            const POW3: [u8; 5] = [1, 3, 9, 27, 81];
            let trit = |x: u8, p: usize| ((x.wrapping_mul(POW3[p]) as u16 * 3) >> 8) as i8 - 1;
            for p in 0..5 {
                for j in 0..32 {
                    y[p * 32 + j] = d * trit(qs[j], p) as f32;
                }
                for j in 0..16 {
                    y[160 + p * 16 + j] = d * trit(qs[32 + j], p) as f32;
                }
            }
            for p in 0..4 {
                for j in 0..4 {
                    y[240 + p * 4 + j] = d * trit(qh[j], p) as f32;
                }
            }
        }
        "TQ2_0" => {
            let d = h(b, 64);
            for (e, y) in y.iter_mut().enumerate() {
                let (c, s, j) = (e / 128, (e / 32) % 4, e % 32);
                let q = ((b[c * 32 + j] >> (2 * s)) & 3) as i8 - 1;
                *y = d * q as f32;
            }
        }
        "MXFP4" => {
            let d = e8m0_half(b[0]);
            for j in 0..16 {
                y[j] = d * E2M1_DOUBLED[(b[1 + j] & 0xF) as usize] as f32;
                y[j + 16] = d * E2M1_DOUBLED[(b[1 + j] >> 4) as usize] as f32;
            }
        }
        "NVFP4" => {
            for s in 0..4 {
                let d = ue4m3_half(b[s]);
                for j in 0..8 {
                    let q = b[4 + s * 8 + j];
                    y[s * 16 + j] = d * E2M1_DOUBLED[(q & 0xF) as usize] as f32;
                    y[s * 16 + 8 + j] = d * E2M1_DOUBLED[(q >> 4) as usize] as f32;
                }
            }
        }
        "IQ4_NL" => {
            let d = h(b, 0);
            for j in 0..16 {
                y[j] = d * IQ4_VALUES[(b[2 + j] & 0xF) as usize] as f32;
                y[j + 16] = d * IQ4_VALUES[(b[2 + j] >> 4) as usize] as f32;
            }
        }
        "IQ4_XS" => {
            let d = h(b, 0);
            let sh = u16::from_le_bytes([b[2], b[3]]);
            let (sl, qs) = (&b[4..8], &b[8..136]);
            for k in 0..8 {
                let l = (sl[k / 2] >> (4 * (k % 2))) & 0xF;
                let hi = ((sh >> (2 * k)) & 3) as u8;
                let dl = d * ((l | hi << 4) as i8 - 32) as f32;
                for j in 0..16 {
                    let q = qs[k * 16 + j];
                    y[k * 32 + j] = dl * IQ4_VALUES[(q & 0xF) as usize] as f32;
                    y[k * 32 + 16 + j] = dl * IQ4_VALUES[(q >> 4) as usize] as f32;
                }
            }
        }
        "IQ2_XXS" | "IQ3_XXS" => {
            let d = h(b, 0);
            let three = ty == "IQ3_XXS";
            // IQ2_XXS: 8 pairs of words (grid indices, then signs and the scale); IQ3_XXS:
            // 64 grid indices, then 8 words of signs and scales.
            for ib in 0..8 {
                let word =
                    |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
                let aux = if three {
                    word(2 + 64 + 4 * ib)
                } else {
                    word(2 + 8 * ib + 4)
                };
                let half_ = if three { 0.5 } else { 0.25 };
                let db = d * (0.5 + (aux >> 28) as f32) * half_;
                for l in 0..4 {
                    let signs = ksigns(aux >> (7 * l));
                    for j in 0..8 {
                        let g = if three {
                            let idx = b[2 + ib * 8 + l * 2 + j / 4] as usize;
                            grid(&IQ3XXS_GRID, &IQ3XXS_VALUES, 3, idx, j % 4)
                        } else {
                            let idx = b[2 + 8 * ib + l] as usize;
                            grid(&IQ2XXS_GRID, &IQ2XXS_VALUES, 2, idx, j)
                        };
                        y[ib * 32 + l * 8 + j] = signed(db * g, signs, j);
                    }
                }
            }
        }
        "IQ2_XS" => {
            let d = h(b, 0);
            let sc = &b[66..74];
            for g in 0..32 {
                let q = u16::from_le_bytes([b[2 + 2 * g], b[3 + 2 * g]]) as u32;
                let k = g / 2;
                let s = (sc[k / 2] >> (4 * (k % 2))) & 0xF;
                let db = d * (0.5 + s as f32) * 0.25;
                let signs = ksigns(q >> 9);
                for j in 0..8 {
                    let v = grid(&IQ2XS_GRID, &IQ2XS_VALUES, 2, (q & 511) as usize, j);
                    y[g * 8 + j] = signed(db * v, signs, j);
                }
            }
        }
        "IQ2_S" => {
            let d = h(b, 0);
            let (qs, signs, qh, sc) = (&b[2..34], &b[34..66], &b[66..74], &b[74..82]);
            for g in 0..32 {
                let k = g / 2;
                let s = (sc[k / 2] >> (4 * (k % 2))) & 0xF;
                let db = d * (0.5 + s as f32) * 0.25;
                let idx = qs[g] as usize | (((qh[g / 4] >> (2 * (g % 4))) & 3) as usize) << 8;
                for j in 0..8 {
                    let v = grid(&IQ2S_GRID, &IQ2S_VALUES, 2, idx, j);
                    y[g * 8 + j] = signed(db * v, signs[g] as u32, j);
                }
            }
        }
        "IQ3_S" => {
            let d = h(b, 0);
            let (qs, qh, signs, sc) = (&b[2..66], &b[66..74], &b[74..106], &b[106..110]);
            for e in 0..256 {
                let k = e / 32;
                let s = (sc[k / 2] >> (4 * (k % 2))) & 0xF;
                let db = d * (1 + 2 * s) as f32;
                let i = e / 4;
                let idx = qs[i] as usize | (((qh[i / 8] >> (i % 8)) & 1) as usize) << 8;
                let v = grid(&IQ3S_GRID, &IQ3S_VALUES, 3, idx, e % 4);
                y[e] = signed(db * v, signs[e / 8] as u32, e % 8);
            }
        }
        "IQ1_S" => {
            let d = h(b, 0);
            let (qs, qh) = (&b[2..34], &b[34..50]);
            for ib in 0..8 {
                let h16 = u16::from_le_bytes([qh[2 * ib], qh[2 * ib + 1]]) as u32;
                let dl = d * (2 * ((h16 >> 12) & 7) + 1) as f32;
                let dt = delta(h16 & 0x8000 != 0);
                for l in 0..4 {
                    let idx = qs[ib * 4 + l] as usize | (((h16 >> (3 * l)) & 7) as usize) << 8;
                    for j in 0..8 {
                        let v = grid(&IQ1S_GRID, &IQ1S_VALUES, 2, idx, j);
                        y[ib * 32 + l * 8 + j] = dl * (v + dt);
                    }
                }
            }
        }
        "IQ1_M" => {
            let (qs, qh, sc) = (&b[0..32], &b[32..48], &b[48..56]);
            let s: [u32; 4] =
                std::array::from_fn(|i| u16::from_le_bytes([sc[2 * i], sc[2 * i + 1]]) as u32);
            let bits = ((s[0] & 0xF000) >> 12)
                | ((s[1] & 0xF000) >> 8)
                | ((s[2] & 0xF000) >> 4)
                | (s[3] & 0xF000);
            let d = f16::from_bits(bits as u16).to_f32();
            for g in 0..32 {
                let k = g / 2;
                let dl = d * (2 * ((s[k / 4] >> (3 * (k % 4))) & 7) + 1) as f32;
                let v8 = (qh[g / 2] >> (4 * (g % 2))) as u32;
                let idx = qs[g] as usize | ((v8 & 7) as usize) << 8;
                let dt = delta(v8 & 8 != 0);
                for j in 0..8 {
                    let v = grid(&IQ1S_GRID, &IQ1S_VALUES, 2, idx, j);
                    y[g * 8 + j] = dl * (v + dt);
                }
            }
        }
        _ => unreachable!("checked by dequantizes"),
    }
}

/// Whether nxrig dequantizes `ty` (every quantized type of ggml's but Q8_1 and Q8_K,
/// which are not stored in files).
pub fn dequantizes(ty: GgmlType) -> bool {
    matches!(
        ty.name,
        "Q1_0"
            | "Q4_0"
            | "Q4_1"
            | "Q5_0"
            | "Q5_1"
            | "Q8_0"
            | "Q2_K"
            | "Q3_K"
            | "Q4_K"
            | "Q5_K"
            | "Q6_K"
            | "TQ1_0"
            | "TQ2_0"
            | "MXFP4"
            | "NVFP4"
            | "IQ4_NL"
            | "IQ4_XS"
            | "IQ2_XXS"
            | "IQ2_XS"
            | "IQ2_S"
            | "IQ3_XXS"
            | "IQ3_S"
            | "IQ1_S"
            | "IQ1_M"
    )
}

/// Whole blocks of `ty` (`blocks`, a multiple of its block's bytes) dequantized into
/// float32: `blocks.len() / block_bytes * block` values, natively on rayon's pool.
///
/// ```
/// use nxrig::formats::GgmlType;
/// use nxrig::quant::dequantize_ggml;
///
/// // Q8_0: a float16 scale (0.5), then 32 int8s.
/// let mut b = half::f16::from_f32(0.5).to_le_bytes().to_vec();
/// b.extend((0..32).map(|i| (i as i8 - 16) as u8));
/// let y = dequantize_ggml(GgmlType::of_code(8).unwrap(), &b)?;
/// assert_eq!((y[0], y[31]), (-8.0, 7.5));
/// # Ok::<(), nxrig::Error>(())
/// ```
///
/// # Errors
/// [`Error::Format`] (path `ggml`): a type nxrig does not dequantize, or bytes that are
/// not whole blocks.
pub fn dequantize_ggml(ty: GgmlType, blocks: &[u8]) -> Result<Vec<f32>, Error> {
    let bb = ty.block_bytes as usize;
    let mut y = vec![0f32; blocks.len() / bb * ty.block as usize];
    dequantize_ggml_each(
        ty,
        blocks,
        bytemuck::cast_slice_mut(&mut y),
        4 * ty.block as usize,
        |v, o| o.copy_from_slice(bytemuck::cast_slice(v)),
    )?;
    Ok(y)
}

/// Whole blocks of `ty` dequantized a few at a time, their float32 values never whole
/// in memory: `each(values, out)` is given each run of blocks' values (8192 or so, in
/// order: a cache's worth) and its part of `out`, `out_block` bytes a block (the
/// caller's rounding of them, written there), natively on rayon's pool; returns what
/// each returned, in order.
///
/// # Errors
/// As [`dequantize_ggml`]; `out` not `out_block` bytes a block.
pub fn dequantize_ggml_each<R: Send>(
    ty: GgmlType,
    blocks: &[u8],
    out: &mut [u8],
    out_block: usize,
    each: impl Fn(&[f32], &mut [u8]) -> R + Sync + Send,
) -> Result<Vec<R>, Error> {
    let bb = ty.block_bytes as usize;
    let n = ty.block as usize;
    let fail = |reason: String| Error::Format {
        path: "ggml".into(),
        tensor: None,
        reason,
    };
    if !dequantizes(ty) {
        return Err(fail(format!(
            "ggml type {}: nxrig does not yet dequantize it",
            ty.name
        )));
    }
    if !blocks.len().is_multiple_of(bb) {
        return Err(fail(format!(
            "{} bytes are not whole blocks of {} ({bb} bytes)",
            blocks.len(),
            ty.name
        )));
    }
    if out.len() != blocks.len() / bb * out_block {
        return Err(fail(format!(
            "an output of {} bytes for {} blocks of {} at {out_block} bytes a block",
            out.len(),
            blocks.len() / bb,
            ty.name
        )));
    }
    // A run of about 8192 values (32 KiB of float32) at a time, a task of 64 KiB of
    // blocks or more.
    let per = (8192 / n).max(1);
    let task = per * (65536 / (per * bb)).max(1);
    let work = |(b, o): (&[u8], &mut [u8])| {
        let mut y = vec![0f32; per * n];
        let mut r = Vec::with_capacity(b.len().div_ceil(per * bb));
        for (b, o) in b.chunks(per * bb).zip(o.chunks_mut(per * out_block)) {
            let y = &mut y[..b.len() / bb * n];
            for (b, y) in b.chunks_exact(bb).zip(y.chunks_exact_mut(n)) {
                block(ty.name, b, y);
            }
            r.push(each(y, o));
        }
        r
    };
    let r = crate::kernels::zip_chunks(blocks, task * bb, out, task * out_block, work);
    Ok(r.into_iter().flatten().collect())
}
