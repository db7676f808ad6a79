//! A group's output a band of rows at a time: the byte runs of each input a band
//! needs (a piece of the weight and its scales, never a whole tensor), and the
//! band's exact values from those bytes.

use std::ops::Range;

use super::group::{Group, Part};
use super::scheme::{GlobalOp, Nibbles, Packing};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;

/// The most output elements a band holds: 4 Mi (32 MiB as float64).
pub const BAND_ELEMENTS: usize = 4 << 20;

/// The byte runs of one input a band needs: `(offset from the tensor's first byte,
/// length)`, read and joined in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    /// The input: 0 the weight, 1 the scale, then the zero points, the group index and
    /// the per-tensor scale where the group has them ([`Group::inputs`]'s order).
    pub input: usize,
    /// The runs.
    pub runs: Vec<(u64, u64)>,
}

impl Group {
    /// The rows a band must start at a multiple of (packed zero points, gpt-oss'
    /// blocks of 32 inputs).
    fn band_align(&self) -> usize {
        match self.packing {
            Packing::Float8 | Packing::Fp4 => 1,
            Packing::Fp4Experts => 32,
            _ => (32 / self.bits) as usize,
        }
    }

    /// The output's bands: ranges of its rows (of [`Group::rows_cols`]) of at most
    /// [`BAND_ELEMENTS`] elements (or one aligned run of rows), none across an
    /// expert of gpt-oss' experts.
    pub fn bands(&self) -> Vec<Range<usize>> {
        let (r, c) = self.rows_cols();
        let a = self.band_align();
        let step = ((BAND_ELEMENTS / c.max(1)) / a * a).max(a);
        // gpt-oss: bands inside one expert's K rows.
        let span = match self.packing {
            Packing::Fp4Experts => self.shape[self.shape.len() - 2].max(1),
            _ => r.max(1),
        };
        let mut out = Vec::new();
        let mut at = 0;
        while at < r {
            let end = (at + step).min(r).min((at / span + 1) * span);
            out.push(at..end);
            at = end;
        }
        out
    }

    /// The byte runs each input needs for the output rows `band`.
    pub fn reads(&self, band: &Range<usize>) -> Vec<Read> {
        let (r0, r1) = (band.start as u64, band.end as u64);
        let (_, c) = self.rows_cols();
        let c = c as u64;
        let inputs: Vec<&Part> = self.inputs().collect();
        let size = |p: &Part| (p.dtype.bits() / 8) as u64;
        let whole = |p: &Part| {
            vec![(
                0,
                p.dtype.bytes(p.shape.iter().product()).unwrap_or(0) as u64,
            )]
        };
        // Rows [a, b) of a tensor viewed as [rows, row_bytes].
        let rows = |row_bytes: u64, a: u64, b: u64| vec![(a * row_bytes, (b - a) * row_bytes)];
        // Columns [a, b) (of `esize` bytes) of every row of a [rows, cols] tensor.
        let strip = |nrows: u64, ncols: u64, esize: u64, a: u64, b: u64| {
            (0..nrows)
                .map(|i| ((i * ncols + a) * esize, (b - a) * esize))
                .collect::<Vec<_>>()
        };
        let last = |p: &Part| *p.shape.last().unwrap_or(&1) as u64;
        let first = |p: &Part| p.shape[0] as u64;
        let mut out = Vec::new();
        let mut push = |input: usize, runs| out.push(Read { input, runs });
        match self.packing {
            Packing::Float8 => {
                push(0, rows(c, r0, r1));
                let s = &self.scale;
                if s.shape.iter().product::<usize>() == 1 {
                    push(1, whole(s));
                } else {
                    let (sr0, sr1) = (self.scale_row(r0), self.scale_row(r1 - 1) + 1);
                    push(1, rows(last(s) * size(s), sr0, sr1));
                }
            }
            Packing::Fp4 => {
                push(0, rows(c / 2, r0, r1));
                push(1, rows(last(&self.scale) * size(&self.scale), r0, r1));
            }
            Packing::Fp4Experts => {
                let k = self.shape[self.shape.len() - 2] as u64;
                let (e, k0, k1) = (r0 / k, r0 % k, (r1 - 1) % k + 1);
                let w = &self.weight;
                let n = w.shape[w.shape.len() - 3] as u64;
                let kb = w.shape[w.shape.len() - 2] as u64;
                let (b0, b1) = (k0 / 32, k1.div_ceil(32));
                let experts = |esize: u64| {
                    (0..n)
                        .map(|i| (((e * n + i) * kb + b0) * esize, (b1 - b0) * esize))
                        .collect::<Vec<_>>()
                };
                push(0, experts(16));
                push(1, experts(size(&self.scale)));
            }
            Packing::IntRows => {
                let per = (32 / self.bits) as u64;
                push(0, rows(c / per * 4, r0, r1));
                push(1, rows(last(&self.scale) * size(&self.scale), r0, r1));
                let mut k = 2;
                if let Some(z) = &self.zero {
                    push(k, rows(last(z) * 4, r0 / per, r1.div_ceil(per)));
                    k += 1;
                }
                if let Some(g) = &self.g_idx {
                    push(k, whole(g));
                }
            }
            Packing::IntGptq | Packing::IntAwq => {
                let per = (32 / self.bits) as u64;
                let w = &self.weight;
                if self.packing == Packing::IntGptq {
                    push(0, strip(first(w), last(w), 4, r0, r1));
                } else {
                    push(0, strip(first(w), last(w), 4, r0 / per, r1.div_ceil(per)));
                }
                let s = &self.scale;
                push(1, strip(first(s), last(s), size(s), r0, r1));
                let mut k = 2;
                if let Some(z) = &self.zero {
                    push(k, strip(first(z), last(z), 4, r0 / per, r1.div_ceil(per)));
                    k += 1;
                }
                if let Some(g) = &self.g_idx {
                    push(k, whole(g));
                }
            }
        }
        if let Some(g) = &self.global {
            let k = inputs.len() - 1;
            out.push(Read {
                input: k,
                runs: whole(g),
            });
        }
        out
    }

    /// A float8 scheme's scale row (of the scale viewed as `[rows, columns]`) for the
    /// output row `r`.
    fn scale_row(&self, r: u64) -> u64 {
        let rank = self.shape.len();
        let m = self.shape[rank - 2] as u64;
        let sr = self.scale.shape[rank - 2] as u64;
        (r / m.max(1)) * sr + (r % m.max(1)) / self.block[0] as u64
    }

    /// The exact values of the output rows `band` (C order, `band.len() * C` of
    /// them) from `bytes`, each input's runs of [`Group::reads`] joined, in its order.
    ///
    /// # Errors
    /// [`Error::Format`] naming the tensor: a group index out of its range; what the
    /// casts of the inputs return.
    pub fn dequantize(&self, band: &Range<usize>, bytes: &[Vec<u8>]) -> Result<Vec<f64>, Error> {
        let (_, c) = self.rows_cols();
        let nrows = band.len();
        let scale = floats(&self.scale, &bytes[1])?;
        let mut next = 2;
        let mut take = |p: &Option<Part>| {
            p.as_ref().map(|_| {
                next += 1;
                &bytes[next - 1][..]
            })
        };
        let zero = take(&self.zero);
        let g_idx = take(&self.g_idx);
        let global = take(&self.global);
        let mut out = match self.packing {
            Packing::Float8 => {
                let q = floats_of(self.weight.dtype, &bytes[0])?;
                let mut out = q;
                if scale.len() == 1 {
                    out.iter_mut().for_each(|v| *v *= scale[0]);
                } else {
                    let sc = *self.scale.shape.last().unwrap_or(&1);
                    let s0 = self.scale_row(band.start as u64);
                    for (i, row) in out.chunks_mut(c.max(1)).enumerate() {
                        let srow = (self.scale_row((band.start + i) as u64) - s0) as usize * sc;
                        for (j, v) in row.iter_mut().enumerate() {
                            *v *= scale[srow + j / self.block[1]];
                        }
                    }
                }
                out
            }
            Packing::Fp4 => {
                let q = fp4(&bytes[0], self.nibbles)?;
                let sc = *self.scale.shape.last().unwrap_or(&1);
                let mut out = q;
                for (i, row) in out.chunks_mut(c.max(1)).enumerate() {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v *= scale[i * sc + j / self.block[1]];
                    }
                }
                out
            }
            Packing::Fp4Experts => {
                // The strip: [N, kb * 32] values, scales [N, kb]; the band: [k1 - k0, N].
                let q = fp4(&bytes[0], self.nibbles)?;
                let n = c;
                let k0 = band.start % self.shape[self.shape.len() - 2];
                let b0 = k0 / 32 * 32;
                let width = q.len() / n.max(1);
                let kb = width / 32;
                let mut out = vec![0.0; nrows * n];
                for (i, row) in out.chunks_mut(n.max(1)).enumerate() {
                    let k = k0 + i - b0;
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = q[j * width + k] * scale[j * kb + k / 32];
                    }
                }
                out
            }
            Packing::IntRows | Packing::IntGptq | Packing::IntAwq => {
                self.ints(band, &bytes[0], &scale, zero, g_idx)?
            }
        };
        if let (Some(g), Some(op)) = (global, self.global_op()) {
            let g = floats(self.global.as_ref().expect("a per-tensor scale"), g)?[0];
            match op {
                GlobalOp::Mul => out.iter_mut().for_each(|v| *v *= g),
                // The one rounding of float64 here is innocuous: an e2m1 times an e4m3
                // (6 bits) over a float32 (24) is never within 2^-53 of a midpoint of
                // a float32 or narrower (exact quotients land on the midpoint itself).
                GlobalOp::Div => out.iter_mut().for_each(|v| *v /= g),
            }
        }
        Ok(out)
    }

    /// The integer schemes' band: `(q - z) * s`, `[band, K]` of the output.
    fn ints(
        &self,
        band: &Range<usize>,
        weight: &[u8],
        scale: &[f64],
        zero: Option<&[u8]>,
        g_idx: Option<&[u8]>,
    ) -> Result<Vec<f64>, Error> {
        let bits = self.bits;
        let per = (32 / bits) as usize;
        let mask = (1u32 << bits) - 1;
        let (_, k) = self.rows_cols();
        let words = |b: &[u8]| -> Vec<u32> {
            b.chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        };
        let w = words(weight);
        let z = zero.map(words);
        let gi: Option<Vec<usize>> = match g_idx {
            None => None,
            Some(b) => {
                let groups = match self.packing {
                    Packing::IntRows => self.scale.shape[1],
                    _ => self.scale.shape[0],
                };
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
                Some(v.iter().map(|&g| g as usize).collect())
            }
        };
        let group = |col: usize| gi.as_ref().map_or(col / self.block[1], |g| g[col]);
        let n0 = band.start;
        let nrows = band.len();
        let mut out = vec![0.0; nrows * k];
        match self.packing {
            Packing::IntRows => {
                // weight [band, K / per], scale [band, groups], zero [band / per.., groups].
                let wc = k / per;
                let sc = scale.len() / nrows.max(1);
                let zrow0 = n0 / per;
                let offset = 1i64 << (bits - 1);
                for i in 0..nrows {
                    for col in 0..k {
                        let word = w[i * wc + col / per];
                        let q = ((word >> (bits * (col % per) as u32)) & mask) as i64 - offset;
                        let g = group(col);
                        let zp = match &z {
                            None => 0,
                            Some(z) => {
                                let r = n0 + i;
                                let word = z[(r / per - zrow0) * sc + g];
                                ((word >> (bits * (r % per) as u32)) & mask) as i64 - offset
                            }
                        };
                        out[i * k + col] = (q - zp) as f64 * scale[i * sc + g];
                    }
                }
            }
            Packing::IntGptq => {
                // qweight strip [K / per, band], scales [groups, band], qzeros [groups, zw].
                let z = z.as_ref().expect("GPTQ's zero points");
                let zw = z.len() / self.scale.shape[0].max(1);
                let zbase = (n0 / per) * per;
                for (col, rowk) in (0..k).map(|col| (col, group(col))) {
                    for i in 0..nrows {
                        let word = w[(col / per) * nrows + i];
                        let q = ((word >> (bits * (col % per) as u32)) & mask) as i64;
                        let n = n0 + i - zbase;
                        let zword = z[rowk * zw + n / per];
                        let mut zp = ((zword >> (bits * (n % per) as u32)) & mask) as i64;
                        if self.zeros_minus_one {
                            zp += 1;
                        }
                        if self.symmetric && zp != 1 << (bits - 1) {
                            return Err(self.wrong_zero(zp));
                        }
                        out[i * k + col] = (q - zp) as f64 * scale[rowk * nrows + i];
                    }
                }
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
                for col in 0..k {
                    let g = group(col);
                    for i in 0..nrows {
                        let shift = 4 * slot[i % 8] as u32;
                        let q = ((w[col * ww + i / 8] >> shift) & 0xf) as i64;
                        let zp = ((z[g * ww + i / 8] >> shift) & 0xf) as i64;
                        out[i * k + col] = (q - zp) as f64 * scale[g * nrows + i];
                    }
                }
            }
        }
        Ok(out)
    }
}

impl Group {
    /// The refusal of a symmetric GPTQ checkpoint's zero point `zp` that is not
    /// `2^(bits-1)`: its format misread (v1 as v2, or v2 as v1).
    fn wrong_zero(&self, zp: i64) -> Error {
        let half = 1i64 << (self.bits - 1);
        let said = if self.zeros_minus_one {
            "gptq (v1: stored minus one)"
        } else {
            "gptq_v2 (stored as they are)"
        };
        let hint = if self.zeros_minus_one == (zp > half) {
            "the checkpoint looks like v2: its config.json's checkpoint_format should be gptq_v2"
        } else {
            "the checkpoint looks like v1: its config.json's checkpoint_format should be gptq"
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

/// `bytes` of `p`'s dtype as float64s (a `U8` scale read as UE8M0 exponents).
fn floats(p: &Part, bytes: &[u8]) -> Result<Vec<f64>, Error> {
    let d = if p.dtype == DType::Uint8 {
        DType::Float8E8m0fnu
    } else {
        p.dtype
    };
    floats_of(d, bytes)
}

/// `bytes` of the float dtype `d` as float64s, each exactly.
fn floats_of(d: DType, bytes: &[u8]) -> Result<Vec<f64>, Error> {
    let n = bytes.len() * 8 / d.bits() as usize;
    let a = AnyArray::of_bytes(d, &[n], bytes.to_vec())?;
    a.cast(DType::Float64)?.expect::<f64>()?.to_vec()
}

/// Bytes of two e2m1 each as float64s, the even element's nibble first.
fn fp4(bytes: &[u8], nibbles: Nibbles) -> Result<Vec<f64>, Error> {
    let b = match nibbles {
        Nibbles::LowFirst => bytes.to_vec(),
        Nibbles::HighFirst => bytes.iter().map(|b| b.rotate_left(4)).collect(),
    };
    let n = b.len() * 2;
    let a = AnyArray::of_bytes(DType::Float4E2m1fn, &[n], b)?;
    a.cast(DType::Float64)?.expect::<f64>()?.to_vec()
}
