//! A band of a group's output from its inputs' bytes: every element the exact value
//! of the scheme's formula (float64 holds it), written rounded ([`super::exact`]),
//! rows on several threads.

use std::ops::Range;

use super::exact::{rows, Odd, Rounded};
use super::group::{Group, Part};
use super::scheme::{GlobalOp, Nibbles, Packing};
use crate::array::AnyArray;
use crate::dtype::{CastMode, DType};
use crate::error::Error;

impl Group {
    /// The output rows `band` (C order, `band.len() * C` elements) from `bytes` (each
    /// input's runs of [`Group::reads`] joined, in its order): in bfloat16, float16,
    /// float32 or float64, each the exact value rounded once into `to` (in `mode`:
    /// saturating, a value past the largest finite is that finite); into another
    /// dtype, float32s rounded to odd ([`Group::dequantize_odd`]) for its cast to round
    /// once. With them, the greatest magnitude among the exact values (NaNs ignored),
    /// which says whether any may overflow `to`.
    ///
    /// # Errors
    /// [`Error::Format`] naming the tensor: a group index out of its range, a
    /// symmetric GPTQ checkpoint's zero point other than `2^(bits-1)`; what the casts
    /// of the scales return.
    pub fn dequantize(
        &self,
        band: &Range<usize>,
        bytes: &[Vec<u8>],
        to: DType,
        mode: CastMode,
    ) -> Result<(AnyArray, f64), Error> {
        // Saturating: every value past the largest finite (not a NaN) is that finite.
        let limit = match (mode, to) {
            (CastMode::Saturate, DType::Bfloat16 | DType::Float16 | DType::Float32) => {
                match to.max_value() {
                    crate::dtype::Scalar::Float(m) => m,
                    crate::dtype::Scalar::Int(m) => m as f64,
                }
            }
            _ => f64::INFINITY,
        };
        let n = band.len() * self.rows_cols().1;
        fn array<T: Rounded + crate::dtype::Element>(
            n: usize,
            v: Vec<T>,
        ) -> Result<AnyArray, Error> {
            Ok(AnyArray::from(crate::Array::from_vec(&[n], v)?))
        }
        Ok(match to {
            DType::Float64 => {
                let (v, p) = self.values::<f64>(band, bytes, limit)?;
                (array(n, v)?, p)
            }
            DType::Float32 => {
                let (v, p) = self.values::<f32>(band, bytes, limit)?;
                (array(n, v)?, p)
            }
            DType::Bfloat16 => {
                let (v, p) = self.values::<half::bf16>(band, bytes, limit)?;
                (array(n, v)?, p)
            }
            DType::Float16 => {
                let (v, p) = self.values::<half::f16>(band, bytes, limit)?;
                (array(n, v)?, p)
            }
            _ => self.dequantize_odd(band, bytes)?,
        })
    }

    /// The output rows `band` as float32s rounded to odd (a cast into bfloat16,
    /// float16 or a float8 then rounds each once), and their greatest magnitude.
    ///
    /// # Errors
    /// As [`Group::dequantize`].
    pub fn dequantize_odd(
        &self,
        band: &Range<usize>,
        bytes: &[Vec<u8>],
    ) -> Result<(AnyArray, f64), Error> {
        let n = band.len() * self.rows_cols().1;
        let (v, p) = self.values::<Odd>(band, bytes, f64::INFINITY)?;
        let v = bytemuck::cast_vec::<Odd, f32>(v);
        Ok((AnyArray::from(crate::Array::from_vec(&[n], v)?), p))
    }

    /// The band's values rounded as `T`, and their greatest magnitude (NaNs ignored).
    fn values<T: Rounded>(
        &self,
        band: &Range<usize>,
        bytes: &[Vec<u8>],
        limit: f64,
    ) -> Result<(Vec<T>, f64), Error> {
        let put = |x: f64| {
            // NaN compares false: it stays.
            T::of(if x.abs() > limit {
                limit.copysign(x)
            } else {
                x
            })
        };
        let (_, c) = self.rows_cols();
        let nrows = band.len();
        let Parts {
            scale,
            zero,
            g_idx,
            mul,
            div,
        } = self.parts(bytes)?;
        let mut out = vec![T::default(); nrows * c];
        let w = &bytes[0];
        let peak = match self.packing {
            Packing::Float8 => {
                let lut = table(self.weight.dtype, 256)?;
                let sc = *self.scale.shape.last().unwrap_or(&1);
                let whole = scale.len() == 1;
                let s0 = self.scale_row(band.start as u64);
                let b1 = self.block[1].max(1);
                let srow_of = |i: usize| {
                    if whole {
                        0
                    } else {
                        (self.scale_row((band.start + i) as u64) - s0) as usize * sc
                    }
                };
                if nrows * c >= 1024 * scale.len() {
                    // A scale's elements far outnumber its 256 codes (a 128 x 128
                    // block's 16384): each code's value rounded once a scale, then
                    // looked up. The peak is the tables' (an overflow then counted
                    // where a code that overflows may not occur: the count is exact).
                    let mut peak = 0f64;
                    let tables: Vec<[T; 256]> = scale
                        .iter()
                        .map(|&s| {
                            std::array::from_fn(|q| {
                                let x = lut[q] * s;
                                if !x.is_nan() {
                                    peak = peak.max(x.abs());
                                }
                                put(x)
                            })
                        })
                        .collect();
                    rows(&mut out, c, |i, row| {
                        let srow = srow_of(i);
                        let q = &w[i * c..(i + 1) * c];
                        for ((o, q), k) in row.chunks_mut(b1).zip(q.chunks(b1)).zip(0..) {
                            let t = &tables[if whole { 0 } else { srow + k }];
                            for (o, &q) in o.iter_mut().zip(q) {
                                *o = t[q as usize];
                            }
                        }
                        0.0
                    });
                    return Ok((out, peak));
                }
                rows(&mut out, c, |i, row| {
                    let mut peak = 0f64;
                    let srow = if whole {
                        &scale[..1]
                    } else {
                        let r = (self.scale_row((band.start + i) as u64) - s0) as usize * sc;
                        &scale[r..r + sc]
                    };
                    let q = &w[i * c..(i + 1) * c];
                    for ((o, q), k) in row.chunks_mut(b1).zip(q.chunks(b1)).zip(0..) {
                        let s = srow[if whole { 0 } else { k }];
                        for (o, &q) in o.iter_mut().zip(q) {
                            let x = lut[q as usize] * s;
                            peak = peak.max(x.abs());
                            *o = put(x);
                        }
                    }
                    peak
                })
            }
            Packing::Fp4 | Packing::Fp4Experts if self.scale.dtype.bits() == 8 => {
                // Scales of one byte (UE8M0, e4m3): a table of 16 values rounded once
                // for each code among the band's scales, then looked up.
                let (tables, peak) = self.code_tables(&bytes[1], (mul, div), &put)?;
                let codes = &bytes[1];
                let high = self.nibbles == Nibbles::HighFirst;
                if self.packing == Packing::Fp4 {
                    let sc = *self.scale.shape.last().unwrap_or(&1);
                    let block = self.block[1].max(2);
                    rows(&mut out, c, |i, row| {
                        let q = &w[i * c / 2..(i + 1) * c / 2];
                        let srow = &codes[i * sc..(i + 1) * sc];
                        for ((o, q), &s) in row.chunks_mut(block).zip(q.chunks(block / 2)).zip(srow)
                        {
                            let t = &tables[s as usize];
                            for (o, &b) in o.chunks_exact_mut(2).zip(q) {
                                let (e, d) = pair(b, high);
                                o[0] = t[e];
                                o[1] = t[d];
                            }
                        }
                        0.0
                    });
                } else {
                    let n = c;
                    let width = w.len() / n.max(1);
                    let kb = width / 16;
                    rows(&mut out, 32 * n, |blk, rows32| {
                        let t = rows32.len() / n.max(1);
                        for j in 0..n {
                            let table = &tables[codes[j * kb + blk] as usize];
                            let q = &w[j * width + blk * 16..][..t.div_ceil(2)];
                            for (b, &byte) in q.iter().enumerate() {
                                let (e, d) = pair(byte, high);
                                rows32[2 * b * n + j] = table[e];
                                if 2 * b + 1 < t {
                                    rows32[(2 * b + 1) * n + j] = table[d];
                                }
                            }
                        }
                        0.0
                    });
                }
                peak
            }
            Packing::Fp4 => {
                // A block's 16 values (one scale) rounded once, then looked up.
                let vals = fp4_values()?;
                let high = self.nibbles == Nibbles::HighFirst;
                let sc = *self.scale.shape.last().unwrap_or(&1);
                let block = self.block[1].max(2);
                rows(&mut out, c, |i, row| {
                    let mut peak = 0f64;
                    let srow = &scale[i * sc..(i + 1) * sc];
                    let q = &w[i * c / 2..(i + 1) * c / 2];
                    for ((o, q), &s) in row.chunks_mut(block).zip(q.chunks(block / 2)).zip(srow) {
                        let t = block_table(&vals, s, div, &put, &mut peak);
                        for (o, &b) in o.chunks_exact_mut(2).zip(q) {
                            let (e, d) = pair(b, high);
                            o[0] = t[e];
                            o[1] = t[d];
                        }
                    }
                    peak
                })
            }
            Packing::Fp4Experts => {
                // The strip: bytes [N, kb * 16], scales [N, kb]; the band: [rows of K, N].
                let vals = fp4_values()?;
                let high = self.nibbles == Nibbles::HighFirst;
                let n = c;
                let k0 = band.start % self.shape[self.shape.len() - 2];
                let b0 = k0 / 32 * 32;
                let width = w.len() / n.max(1);
                let kb = width / 16;
                // A block of 32 output rows (one scale each column) at a time: the
                // strip's 16 bytes of a column read once, written down the 32 rows.
                debug_assert_eq!(k0, b0, "gpt-oss' bands start at a block of 32");
                rows(&mut out, 32 * n, |blk, rows32| {
                    let mut peak = 0f64;
                    let t = rows32.len() / n.max(1);
                    for j in 0..n {
                        let table = block_table(&vals, scale[j * kb + blk], None, &put, &mut peak);
                        let q = &w[j * width + blk * 16..][..t.div_ceil(2)];
                        for (b, &byte) in q.iter().enumerate() {
                            let (e, d) = pair(byte, high);
                            rows32[2 * b * n + j] = table[e];
                            if 2 * b + 1 < t {
                                rows32[(2 * b + 1) * n + j] = table[d];
                            }
                        }
                    }
                    peak
                })
            }
            Packing::IntRows | Packing::IntGptq | Packing::IntAwq => {
                self.ints(band, w, &scale, (zero, g_idx), &mut out, &put)?
            }
        };
        Ok((out, peak))
    }

    /// The band's inputs besides the weight, from `bytes` (each input's, in order).
    pub(super) fn parts<'b>(&self, bytes: &'b [Vec<u8>]) -> Result<Parts<'b>, Error> {
        let mut scale = floats(&self.scale, &bytes[1])?;
        let mut next = 2;
        let mut take = |p: &Option<Part>| {
            p.as_ref().map(|_| {
                next += 1;
                &bytes[next - 1][..]
            })
        };
        let zero = take(&self.zero);
        let g_idx = take(&self.g_idx);
        let global = match take(&self.global) {
            Some(b) => Some(floats(self.global.as_ref().expect("a per-tensor scale"), b)?[0]),
            None => None,
        };
        // A per-tensor scale that multiplies is folded into the block scales: an e4m3
        // times a float32 is exact in float64. One that divides is divided by last
        // (rounded once in float64, innocuously: an e2m1 times an e4m3, 6 bits, over a
        // float32, 24, is never within 2^-53 of a midpoint of float32 or narrower, and
        // an exact quotient is the midpoint itself).
        let (mul, div) = match (global, self.global_op()) {
            (Some(g), Some(GlobalOp::Mul)) => {
                scale.iter_mut().for_each(|s| *s *= g);
                (Some(g), None)
            }
            (Some(g), Some(GlobalOp::Div)) => (None, Some(g)),
            _ => (None, None),
        };
        Ok(Parts {
            scale,
            zero,
            g_idx,
            mul,
            div,
        })
    }

    /// A float4 band whose scales are one byte each (`codes`, the scale's bytes): for
    /// each code among them, its block's 16 values rounded once by `put` (a
    /// per-tensor scale that multiplies folded in, one that divides by `div`); the
    /// greatest magnitude among them.
    fn code_tables<T: Copy + Default>(
        &self,
        codes: &[u8],
        (mul, div): (Option<f64>, Option<f64>),
        put: &impl Fn(f64) -> T,
    ) -> Result<(Vec<[T; 16]>, f64), Error> {
        let mut present = [false; 256];
        for &c in codes {
            present[c as usize] = true;
        }
        let all: Vec<u8> = (0..=255).collect();
        let mut value = floats(&self.scale, &all)?;
        if let Some(g) = mul {
            value.iter_mut().for_each(|s| *s *= g);
        }
        let vals = fp4_values()?;
        let mut peak = 0f64;
        let tables = (0..256)
            .map(|c| {
                if present[c] {
                    block_table(&vals, value[c], div, put, &mut peak)
                } else {
                    [T::default(); 16]
                }
            })
            .collect();
        Ok((tables, peak))
    }

    /// An integer scheme's count of groups, and each of the `k` input columns' group
    /// (from `g_idx` where the checkpoint has one, each checked below the count).
    pub(super) fn groups(
        &self,
        k: usize,
        g_idx: Option<&[u8]>,
    ) -> Result<(usize, Vec<usize>), Error> {
        let groups = match self.packing {
            Packing::IntRows => self.scale.shape[1],
            _ => self.scale.shape[0],
        };
        let group: Vec<usize> = match g_idx {
            None => (0..k).map(|col| col / self.block[1].max(1)).collect(),
            Some(b) => {
                let v = words(b);
                if let Some(bad) = v.iter().find(|&&g| g as usize >= groups) {
                    return Err(Error::Format {
                        path: String::new(),
                        tensor: self.g_idx.as_ref().map(|p| p.name.clone()),
                        reason: format!(
                            "group index {} is not below its {groups} groups",
                            *bad as i32
                        ),
                    });
                }
                v.iter().map(|&g| g as usize).collect()
            }
        };
        Ok((groups, group))
    }

    /// GPTQ's zero points of a band of `nrows` output rows (`[groups, nrows]`), each
    /// as it is meant (v1's plus one), checked where the checkpoint is symmetric.
    pub(super) fn gptq_zeros(
        &self,
        z: &[u32],
        groups: usize,
        nrows: usize,
    ) -> Result<Vec<i64>, Error> {
        let per = (32 / self.bits) as usize;
        let mask = (1u32 << self.bits) - 1;
        let zw = z.len() / groups.max(1);
        let half = 1i64 << (self.bits - 1);
        let mut zp = vec![0i64; groups * nrows];
        for g in 0..groups {
            for i in 0..nrows {
                let mut v = ((z[g * zw + i / per] >> (self.bits * (i % per) as u32)) & mask) as i64;
                if self.zeros_minus_one {
                    v += 1;
                }
                if self.symmetric && v != half {
                    return Err(self.wrong_zero(v));
                }
                zp[g * nrows + i] = v;
            }
        }
        Ok(zp)
    }

    /// The integer schemes' band: `(q - z) * s`, `[band, K]` of the output.
    fn ints<T: Rounded>(
        &self,
        band: &Range<usize>,
        weight: &[u8],
        scale: &[f64],
        (zero, g_idx): (Option<&[u8]>, Option<&[u8]>),
        out: &mut [T],
        put: &(impl Fn(f64) -> T + Sync),
    ) -> Result<f64, Error> {
        let bits = self.bits;
        let per = (32 / bits) as usize;
        let mask = (1u32 << bits) - 1;
        let (_, k) = self.rows_cols();
        let w = words(weight);
        let z = zero.map(words);
        // Each input column's group.
        let (groups, group) = self.groups(k, g_idx)?;
        let n0 = band.start;
        let nrows = band.len();
        let field = |word: u32, at: usize| ((word >> (bits * at as u32)) & mask) as i64;
        let peak = match self.packing {
            Packing::IntRows => {
                // weight [band, K / per], scale [band, groups], zero [band / per, groups].
                let wc = k / per;
                let zrow0 = n0 / per;
                let offset = 1i64 << (bits - 1);
                rows(out, k, |i, row| {
                    let mut peak = 0f64;
                    let r = n0 + i;
                    for (col, o) in row.iter_mut().enumerate() {
                        let q = field(w[i * wc + col / per], col % per) - offset;
                        let g = group[col];
                        let zp = match &z {
                            None => 0,
                            Some(z) => field(z[(r / per - zrow0) * groups + g], r % per) - offset,
                        };
                        let x = (q - zp) as f64 * scale[i * groups + g];
                        peak = peak.max(x.abs());
                        *o = put(x);
                    }
                    peak
                })
            }
            Packing::IntGptq => {
                // qweight strip [K / per, band], scales [groups, band], qzeros [groups, zw].
                let z = z.as_ref().expect("GPTQ's zero points");
                // Each zero point of the band, checked where the checkpoint is symmetric.
                let zp = self.gptq_zeros(z, groups, nrows)?;
                rows(out, k, |i, row| {
                    let mut peak = 0f64;
                    for (col, o) in row.iter_mut().enumerate() {
                        let g = group[col];
                        let q = field(w[(col / per) * nrows + i], col % per);
                        let x = (q - zp[g * nrows + i]) as f64 * scale[g * nrows + i];
                        peak = peak.max(x.abs());
                        *o = put(x);
                    }
                    peak
                })
            }
            _ => {
                // AWQ: qweight strip [K, band / 8], scales [groups, band], qzeros [groups, band / 8].
                const ORDER: [usize; 8] = [0, 2, 4, 6, 1, 3, 5, 7];
                let mut slot = [0usize; 8];
                for (i, &o) in ORDER.iter().enumerate() {
                    slot[o] = i;
                }
                let z = z.as_ref().expect("AWQ's zero points");
                let ww = nrows.div_ceil(8);
                rows(out, k, |i, row| {
                    let mut peak = 0f64;
                    let (word, at) = (i / 8, slot[i % 8]);
                    for (col, o) in row.iter_mut().enumerate() {
                        let g = group[col];
                        let q = field(w[col * ww + word], at);
                        let zp = field(z[g * ww + word], at);
                        let x = (q - zp) as f64 * scale[g * nrows + i];
                        peak = peak.max(x.abs());
                        *o = put(x);
                    }
                    peak
                })
            }
        };
        Ok(peak)
    }

    /// The refusal of a symmetric GPTQ checkpoint's zero point `zp` that is not
    /// `2^(bits-1)`: its format misread (v1 as v2, or v2 as v1).
    fn wrong_zero(&self, zp: i64) -> Error {
        let half = 1i64 << (self.bits - 1);
        let said = if self.zeros_minus_one {
            "gptq (v1: stored minus one)"
        } else {
            "gptq_v2 (stored as they are)"
        };
        // v1 stores half - 1, v2 half: read as the other, a zero point is one off.
        let hint = match (self.zeros_minus_one, zp.cmp(&half)) {
            (true, std::cmp::Ordering::Greater) => {
                "the checkpoint looks like v2: its config.json's checkpoint_format should be gptq_v2"
            }
            (false, std::cmp::Ordering::Less) => {
                "the checkpoint looks like v1: its config.json's checkpoint_format should be gptq"
            }
            _ => "the zero points are not a symmetric checkpoint's: its config.json's sym should be false",
        };
        Error::Format {
            path: String::new(),
            tensor: Some(self.weight.name.clone()),
            reason: format!(
                "a zero point of {zp} where a symmetric {}-bit GPTQ checkpoint has {half}, reading its zero points as checkpoint_format {said}: {hint}",
                self.bits
            ),
        }
    }
}

/// A band's inputs besides the weight: the block scales as float64s (a per-tensor
/// scale that multiplies folded in), the zero points' and group indices' bytes, and a
/// per-tensor scale that divides.
pub(super) struct Parts<'b> {
    pub scale: Vec<f64>,
    pub zero: Option<&'b [u8]>,
    pub g_idx: Option<&'b [u8]>,
    /// The per-tensor scale that multiplies, folded into `scale`.
    pub mul: Option<f64>,
    pub div: Option<f64>,
}

/// `x / d` where there is a divisor, else `x`.
#[inline(always)]
pub(super) fn over(x: f64, d: Option<f64>) -> f64 {
    match d {
        Some(d) => x / d,
        None => x,
    }
}

/// Little-endian 32-bit words.
pub(super) fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// `bytes` of `p`'s dtype as float64s (a `U8` scale read as UE8M0 exponents), each
/// exactly.
fn floats(p: &Part, bytes: &[u8]) -> Result<Vec<f64>, Error> {
    let d = if p.dtype == DType::Uint8 {
        DType::Float8E8m0fnu
    } else {
        p.dtype
    };
    floats_of(d, bytes)
}

/// `bytes` of the float dtype `d` as float64s, each exactly (the table's cast).
fn floats_of(d: DType, bytes: &[u8]) -> Result<Vec<f64>, Error> {
    let n = bytes.len() * 8 / d.bits() as usize;
    let a = AnyArray::of_bytes(d, &[n], bytes.to_vec())?;
    a.cast(DType::Float64)?.expect::<f64>()?.to_vec()
}

/// The value of each of the `n` codes of the one-byte dtype `d`.
pub(super) fn table(d: DType, n: usize) -> Result<Vec<f64>, Error> {
    floats_of(d, &(0..n).map(|b| b as u8).collect::<Vec<_>>())
}

/// Each e2m1 code's value (the table's float4_e2m1fn, two a byte).
pub(super) fn fp4_values() -> Result<[f64; 16], Error> {
    let bytes: Vec<u8> = (0..8).map(|b| (2 * b) | ((2 * b + 1) << 4)).collect();
    let v = floats_of(DType::Float4E2m1fn, &bytes)?;
    Ok(std::array::from_fn(|c| v[c]))
}

/// The codes of a byte of two e2m1s: the even element's, then the odd one's.
#[inline(always)]
pub(super) fn pair(b: u8, high_first: bool) -> (usize, usize) {
    let (lo, hi) = ((b & 15) as usize, (b >> 4) as usize);
    if high_first {
        (hi, lo)
    } else {
        (lo, hi)
    }
}

/// The 16 values of a float4 block of scale `s` (divided by `div` where given), each
/// rounded once by `put`; `peak` raised to their greatest magnitude.
#[inline(always)]
pub(super) fn block_table<T: Copy + Default>(
    vals: &[f64; 16],
    s: f64,
    div: Option<f64>,
    put: &impl Fn(f64) -> T,
    peak: &mut f64,
) -> [T; 16] {
    let mut t = [T::default(); 16];
    for (t, &v) in t.iter_mut().zip(vals) {
        let x = over(v * s, div);
        *peak = peak.max(x.abs());
        *t = put(x);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Entry;
    use crate::quant::{Choice, Grouping, Quantization};

    /// Each layout's weight dequantized band by band (bands of a few rows, each input
    /// read as [`Group::reads`] says) equals it dequantized in one band.
    #[test]
    fn bands_read_what_the_whole_reads() {
        type Case<'a> = (&'a str, &'a [(&'a str, DType, &'a [usize])]);
        let cases: &[Case] = &[
            (
                r#"{"quantization_config": {"quant_method": "fp8", "weight_block_size": [8, 16]}}"#,
                &[
                    ("l.weight", DType::Float8E4m3fn, &[21, 40]),
                    ("l.weight_scale_inv", DType::Float32, &[3, 3]),
                ],
            ),
            (
                r#"{"quantization_config": {"quant_method": "mxfp4"}}"#,
                &[
                    ("e.p_blocks", DType::Uint8, &[2, 24, 3, 16]),
                    ("e.p_scales", DType::Uint8, &[2, 24, 3]),
                ],
            ),
            (
                r#"{"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 16, "checkpoint_format": "gptq_v2"}}"#,
                &[
                    ("l.qweight", DType::Int32, &[4, 24]),
                    ("l.qzeros", DType::Int32, &[2, 3]),
                    ("l.scales", DType::Float16, &[2, 24]),
                ],
            ),
            (
                r#"{"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 16}}"#,
                &[
                    ("l.qweight", DType::Int32, &[32, 3]),
                    ("l.qzeros", DType::Int32, &[2, 3]),
                    ("l.scales", DType::Float16, &[2, 24]),
                ],
            ),
            (
                r#"{"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
                    "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 16}}}}}"#,
                &[
                    ("l.weight_packed", DType::Int32, &[24, 4]),
                    ("l.weight_scale", DType::Float32, &[24, 2]),
                    ("l.weight_zero_point", DType::Int32, &[3, 2]),
                ],
            ),
            (
                r#"{"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}"#,
                &[
                    ("l.weight", DType::Uint8, &[9, 16]),
                    ("l.weight_scale", DType::Float8E4m3fn, &[9, 2]),
                    ("l.weight_scale_2", DType::Float32, &[]),
                ],
            ),
        ];
        let mut seed = 7u64;
        let mut byte = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u8
        };
        for (config, tensors) in cases {
            let config: serde_json::Value = serde_json::from_str(config).unwrap();
            let q = Quantization::detect(Some(&config), None, &Choice::default())
                .unwrap()
                .unwrap();
            let entries: Vec<Entry> = tensors
                .iter()
                .map(|(n, d, s)| Entry {
                    name: (*n).into(),
                    dtype: *d,
                    shape: s.to_vec(),
                    start: 0,
                    len: d.bytes(s.iter().product()).unwrap() as u64,
                    fortran: false,
                    big_endian: false,
                    file_bits: d.bits(),
                })
                .collect();
            let g =
                Grouping::new(entries.iter().enumerate().map(|(i, e)| (0, i, "f", e)), &q).unwrap();
            let g = &g.groups[0];
            // Random bytes, scales kept finite and moderate, zero points in range.
            let data: Vec<Vec<u8>> = g
                .inputs()
                .enumerate()
                .map(|(k, p)| {
                    let n = p.dtype.bytes(p.shape.iter().product()).unwrap();
                    (0..n)
                        .map(|i| match (k, p.dtype) {
                            (1, DType::Float32) if i % 4 == 3 => 0x3c,
                            (1, DType::Float16) if i % 2 == 1 => 0x2c,
                            (1, DType::Uint8) => 120 + byte() % 10,
                            (_, DType::Float8E4m3fn) => byte() & 0x77,
                            (_, DType::Float32) if i % 4 == 3 => 0x3f,
                            _ => byte(),
                        })
                        .collect()
                })
                .collect();
            let run = |band: &Range<usize>| {
                let mut bytes = vec![Vec::new(); data.len()];
                for r in g.reads(band) {
                    for (off, len) in r.runs {
                        bytes[r.input]
                            .extend_from_slice(&data[r.input][off as usize..(off + len) as usize]);
                    }
                }
                let (a, _) = g
                    .dequantize(band, &bytes, DType::Float32, CastMode::Default)
                    .unwrap();
                a.expect::<f32>().unwrap().to_vec().unwrap()
            };
            // The largest bands: the whole output (an expert each, for gpt-oss').
            let whole: Vec<f32> = g.bands_of(usize::MAX).iter().flat_map(run).collect();
            let bands = g.bands_of(g.rows_cols().1 * 3);
            assert!(bands.len() > 2, "{}: {bands:?}", g.name);
            let pieces: Vec<f32> = bands.iter().flat_map(run).collect();
            assert_eq!(
                whole.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                pieces.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "{}: bands {bands:?}",
                g.name
            );
            assert!(whole.iter().any(|x| *x != 0.0), "{}", g.name);
        }
    }
}
