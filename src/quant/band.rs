//! A group's output a band of rows at a time: the byte runs of each input a band
//! needs (a piece of the weight and its scales, never a whole tensor).

use std::ops::Range;

use super::group::{Group, Part};
use super::scheme::Packing;

/// The most output elements a band holds: 4 Mi (32 MiB as float64); gpt-oss' bands
/// four times as many ([`Group::bands`]).
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
    /// expert of gpt-oss' experts; gpt-oss' of at most four times as many (a band of
    /// its transposed output reads a column strip of each input row: a whole expert,
    /// 2880 x 5760 in gpt-oss-20b and -120b, is read as one span, not twice over).
    pub fn bands(&self) -> Vec<Range<usize>> {
        match self.packing {
            Packing::Fp4Experts => self.bands_of(4 * BAND_ELEMENTS),
            _ => self.bands_of(BAND_ELEMENTS),
        }
    }

    /// [`Group::bands`] of at most `most` elements (or one aligned run of rows).
    pub(crate) fn bands_of(&self, most: usize) -> Vec<Range<usize>> {
        let (r, c) = self.rows_cols();
        let a = self.band_align();
        let step = ((most / c.max(1)) / a * a).max(a);
        // gpt-oss: bands inside one expert's K rows.
        let span = match self.packing {
            Packing::Fp4Experts => self.shape[self.shape.len() - 2].max(1),
            _ => r.max(1),
        };
        let mut out = Vec::new();
        let mut at = 0;
        while at < r {
            let end = at.saturating_add(step).min(r).min((at / span + 1) * span);
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
    pub(crate) fn scale_row(&self, r: u64) -> u64 {
        let rank = self.shape.len();
        let m = self.shape[rank - 2] as u64;
        let sr = self.scale.shape[rank - 2] as u64;
        (r / m.max(1)) * sr + (r % m.max(1)) / self.block[0] as u64
    }
}
