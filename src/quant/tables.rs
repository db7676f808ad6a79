//! The values of codes: a dtype's codes as float64s, exactly; a float8 scale's 256
//! values and a float4 block's 16, each rounded once into the output's type. The host's
//! dequantization looks codes up in them ([`super::dequant`]), and a GPU's tables are
//! made of the same ([`super::lut`]).

use super::group::{Group, Part};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;

impl Group {
    /// A float4 band whose scales are one byte each (`codes`, the scale's bytes): for
    /// each code among them, its block's 16 values rounded once by `put` (a
    /// per-tensor scale that multiplies folded in, one that divides by `div`); the
    /// greatest magnitude among them.
    pub(super) fn code_tables<T: Copy + Default>(
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
pub(super) fn floats(p: &Part, bytes: &[u8]) -> Result<Vec<f64>, Error> {
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

/// A float8 weight's tables: for each scale `s`, the value of each of its 256 codes
/// (`values`, [`table`]) times `s`, rounded once by `put`; and the greatest magnitude
/// among them (NaNs ignored).
pub(super) fn float8_tables<T: Copy>(
    values: &[f64],
    scale: &[f64],
    put: &impl Fn(f64) -> T,
) -> (Vec<[T; 256]>, f64) {
    let mut peak = 0f64;
    let tables = scale
        .iter()
        .map(|&s| {
            std::array::from_fn(|q| {
                let x = values[q] * s;
                if !x.is_nan() {
                    peak = peak.max(x.abs());
                }
                put(x)
            })
        })
        .collect();
    (tables, peak)
}
