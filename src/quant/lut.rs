//! A band as tables for a GPU: for each scale of the band (a block's, a row's, a
//! group's with its zero point), the value of every code of the weight's elements,
//! exact and rounded once into the output dtype on the host, as the host's
//! dequantization rounds them ([`super::dequant`]); a GPU then gathers each element's
//! entry by its code ([`super::gpu`]), so every device writes the same bytes. The
//! tables are small beside the band: 256 entries a 128 x 128 float8 block, 16 a float4
//! block of 16 or 32, `2^bits` an integer group of a row.

use std::ops::Range;

use super::dequant::Parts;
use super::exact::Rounded;
use super::group::Group;
use super::scheme::{Nibbles, Packing};
use super::tables::{block_table, float8_tables, fp4_values, table, words};
use crate::dtype::{CastMode, DType};
use crate::error::Error;

/// A band's tables and what the GPU's kernel reads with them.
pub struct Lut {
    /// The weight's packing: which kernel gathers.
    pub packing: Packing,
    /// The output's dtype: bfloat16, float16 (two a word) or float32.
    pub to: DType,
    /// The kernel's parameters: the band's elements first, then its packing's.
    pub params: Vec<u32>,
    /// The band's weight bytes as little-endian words (zeros past its end).
    pub words: Vec<u32>,
    /// The tables, one after the other, each entry an output's bits.
    pub tables: Vec<u32>,
    /// A float8 band's first table of each row; an integer band's group of each
    /// input column; else one zero.
    pub aux: Vec<u32>,
    /// The greatest magnitude among the tables' values (NaNs ignored): a band whose
    /// values may overflow is dequantized on the host, which counts them.
    pub peak: f64,
}

/// The bits of a rounded value, in the low bits of a word.
fn bits<T: Rounded>(t: T) -> u32 {
    let b = bytemuck::bytes_of(&t);
    let mut w = [0u8; 4];
    w[..b.len()].copy_from_slice(b);
    u32::from_le_bytes(w)
}

impl Group {
    /// The band `band` of this group as tables (see the module), from `bytes` as
    /// [`Group::dequantize`] takes them; `None` for an output dtype other than
    /// bfloat16, float16 and float32.
    ///
    /// # Errors
    /// As [`Group::dequantize`].
    pub fn lut(
        &self,
        band: &Range<usize>,
        bytes: &[Vec<u8>],
        to: DType,
        mode: CastMode,
    ) -> Result<Option<Lut>, Error> {
        let limit = match mode {
            CastMode::Saturate => match to.max_value() {
                crate::dtype::Scalar::Float(m) => m,
                crate::dtype::Scalar::Int(m) => m as f64,
            },
            _ => f64::INFINITY,
        };
        Ok(Some(match to {
            DType::Bfloat16 => self.tables::<half::bf16>(band, bytes, limit, to)?,
            DType::Float16 => self.tables::<half::f16>(band, bytes, limit, to)?,
            DType::Float32 => self.tables::<f32>(band, bytes, limit, to)?,
            _ => return Ok(None),
        }))
    }

    fn tables<T: Rounded>(
        &self,
        band: &Range<usize>,
        bytes: &[Vec<u8>],
        limit: f64,
        to: DType,
    ) -> Result<Lut, Error> {
        let mut peak = 0f64;
        let rounded = |x: f64| {
            bits(T::of(if x.abs() > limit {
                limit.copysign(x)
            } else {
                x
            }))
        };
        let mut put = |x: f64| {
            if !x.is_nan() {
                peak = peak.max(x.abs());
            }
            rounded(x)
        };
        let (_, c) = self.rows_cols();
        let nrows = band.len();
        let n = (nrows * c) as u32;
        let Parts {
            scale,
            zero,
            g_idx,
            div,
            ..
        } = self.parts(bytes)?;
        let w = &bytes[0];
        let mut padded = w.clone();
        padded.resize(w.len().next_multiple_of(4).max(4), 0);
        let words_of_w = words(&padded);
        let high = u32::from(self.nibbles == Nibbles::HighFirst);
        let mut aux = vec![0u32];
        let mut tables = Vec::new();
        let params = match self.packing {
            Packing::Float8 => {
                let values = table(self.weight.dtype, 256)?;
                let whole = scale.len() == 1;
                let sc = *self.scale.shape.last().unwrap_or(&1);
                let s0 = self.scale_row(band.start as u64);
                let (t, p) = float8_tables(&values, &scale, &rounded);
                tables = t.concat();
                // The tables' greatest magnitude, the band's peak.
                put(p);
                aux = (0..nrows)
                    .map(|i| {
                        if whole {
                            0
                        } else {
                            ((self.scale_row((band.start + i) as u64) - s0) as usize * sc) as u32
                        }
                    })
                    .collect();
                let b1 = if whole { c } else { self.block[1].max(1) };
                vec![n, c as u32, b1 as u32]
            }
            Packing::Fp4 | Packing::Fp4Experts => {
                let vals = fp4_values()?;
                for &s in &scale {
                    let mut p = 0f64;
                    let t = block_table(&vals, s, div, &|x| x, &mut p);
                    tables.extend(t.iter().map(|&x| put(x)));
                }
                if self.packing == Packing::Fp4 {
                    let sc = *self.scale.shape.last().unwrap_or(&1);
                    vec![n, c as u32, sc as u32, self.block[1].max(2) as u32, high]
                } else {
                    let width = w.len() / c.max(1);
                    vec![n, c as u32, width as u32, (width / 16) as u32, high]
                }
            }
            Packing::IntRows | Packing::IntGptq | Packing::IntAwq => {
                let bits = self.bits;
                let per = (32 / bits) as usize;
                let mask = (1u32 << bits) - 1;
                let codes = 1i64 << bits;
                let k = c;
                let (groups, group) = self.groups(k, g_idx)?;
                aux = group.iter().map(|&g| g as u32).collect();
                let z = zero.map(words);
                let field = |word: u32, at: usize| ((word >> (bits * at as u32)) & mask) as i64;
                match self.packing {
                    Packing::IntRows => {
                        // Tables [band, groups]: (q - offset - zp) * s.
                        let offset = 1i64 << (bits - 1);
                        let zrow0 = band.start / per;
                        for i in 0..nrows {
                            let r = band.start + i;
                            for g in 0..groups {
                                let zp = match &z {
                                    None => 0,
                                    Some(z) => {
                                        field(z[(r / per - zrow0) * groups + g], r % per) - offset
                                    }
                                };
                                let s = scale[i * groups + g];
                                for q in 0..codes {
                                    tables.push(put((q - offset - zp) as f64 * s));
                                }
                            }
                        }
                        vec![
                            n,
                            k as u32,
                            (k / per) as u32,
                            per as u32,
                            bits,
                            groups as u32,
                        ]
                    }
                    Packing::IntGptq => {
                        // Tables [groups, band]: (q - zp) * s.
                        let z = z.as_ref().expect("GPTQ's zero points");
                        let zp = self.gptq_zeros(z, groups, nrows)?;
                        for (&zp, &s) in zp.iter().zip(&scale) {
                            for q in 0..codes {
                                tables.push(put((q - zp) as f64 * s));
                            }
                        }
                        vec![n, k as u32, nrows as u32, per as u32, bits]
                    }
                    _ => {
                        // AWQ: tables [groups, band], its zero points in AWQ's order.
                        const SLOT: [usize; 8] = [0, 4, 1, 5, 2, 6, 3, 7];
                        let z = z.as_ref().expect("AWQ's zero points");
                        let ww = nrows.div_ceil(8);
                        for g in 0..groups {
                            for i in 0..nrows {
                                let zp = field(z[g * ww + i / 8], SLOT[i % 8]);
                                let s = scale[g * nrows + i];
                                for q in 0..codes {
                                    tables.push(put((q - zp) as f64 * s));
                                }
                            }
                        }
                        vec![n, k as u32, nrows as u32, ww as u32, bits]
                    }
                }
            }
        };
        Ok(Lut {
            packing: self.packing,
            to,
            params,
            words: words_of_w,
            tables,
            aux,
            peak,
        })
    }
}
