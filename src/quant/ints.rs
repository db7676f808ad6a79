//! The integer schemes' band (compressed-tensors' `pack-quantized`, GPTQ, AWQ): `(q -
//! z) * s` of each input column's group, its zero points as the checkpoint's format
//! means them (GPTQ v1's plus one), a symmetric checkpoint's checked.

use std::ops::Range;

use super::exact::{rows, Rounded};
use super::group::Group;
use super::scheme::Packing;
use super::tables::words;
use crate::error::Error;

impl Group {
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
    pub(super) fn ints<T: Rounded>(
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
                "the checkpoint looks like v2: --scheme gptq-v2 reads it so (its config.json's checkpoint_format should be gptq_v2)"
            }
            (false, std::cmp::Ordering::Less) => {
                "the checkpoint looks like v1: --scheme gptq reads it so (its config.json's checkpoint_format should be gptq)"
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
