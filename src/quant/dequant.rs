//! A band of a group's output from its inputs' bytes: every element the exact value
//! of the scheme's formula (float64 holds it), written rounded ([`super::exact`]),
//! rows on several threads. The float paths are here (float8 blocks, float4 blocks);
//! the integer schemes' are `ints.rs`, the tables of codes' values `tables.rs`.

use std::ops::Range;

use super::exact::{rows, Odd, Rounded};
use super::group::{Group, Part};
use super::scheme::{GlobalOp, Nibbles, Packing};
use super::tables::{block_table, float8_tables, floats, fp4_values, pair, table};
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
                    let (tables, peak) = float8_tables(&lut, &scale, &put);
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
                // gpt-oss' scales are bytes (U8, F8_E8M0): the scheme's table says so.
                return Err(Error::Format {
                    path: String::new(),
                    tensor: Some(self.scale.name.clone()),
                    reason: format!("nxrig bug: gpt-oss scales of {}", self.scale.dtype),
                });
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
                    ggml: None,
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
