//! Values into each dtype, rounded once: the target side of the typed conversions.
//!
//! Float32 and narrower sources reach a target as a float32 (exact); float64, int32,
//! uint32, 64-bit integer sources as a float64 or an integer; complex as two parts.
//! Where a narrow float (float16, bfloat16, float8) is made from a float64 or a
//! 64-bit integer, the value is first rounded *to odd* into float32 (truncated, the
//! last bit set if anything was dropped), which loses nothing that the one rounding
//! to nearest even into at most 11 bits can see (float32 has 24 >= 11 + 2 bits): the
//! result equals a direct rounding of the source, with no double rounding.

use super::super::fast::{f32_to_bf16, f32_to_f16};

/// `x` with a NaN made quiet (its sign and payload kept).
#[inline(always)]
pub(crate) fn quiet32(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(x.to_bits() | 0x0040_0000)
    } else {
        x
    }
}

/// `x` with a NaN made quiet (its sign and payload kept).
#[inline(always)]
pub(crate) fn quiet64(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(x.to_bits() | 0x0008_0000_0000_0000)
    } else {
        x
    }
}

/// float32 into float64, exact; a NaN keeps its sign and payload and is quiet.
#[inline(always)]
pub(crate) fn f32_to_f64(x: f32) -> f64 {
    let b = x.to_bits() as u64;
    let nan = (b & 0x8000_0000) << 32 | 0x7ff8_0000_0000_0000 | (b & 0x003f_ffff) << 29;
    if x.is_nan() {
        f64::from_bits(nan)
    } else {
        x as f64
    }
}

/// float64 into float32, rounded to nearest even; a NaN keeps its sign and its high
/// payload bits and is quiet.
#[inline(always)]
pub(crate) fn f64_to_f32(x: f64) -> f32 {
    let b = x.to_bits();
    let nan = ((b >> 32) as u32 & 0x8000_0000) | 0x7fc0_0000 | ((b >> 29) as u32 & 0x003f_ffff);
    if x.is_nan() {
        f32::from_bits(nan)
    } else {
        x as f32
    }
}

/// float64 into float32 rounded to odd: toward zero, then the last bit set if the
/// value was not exact (overflow gives the largest finite float32, odd). NaNs as
/// [`f64_to_f32`].
#[inline(always)]
pub(crate) fn odd_f32(x: f64) -> f32 {
    let r = x as f32;
    let back = r as f64;
    let rb = r.to_bits();
    // One step toward zero where the nearest was away from it (inf included).
    let t = if back.abs() > x.abs() { rb - 1 } else { rb };
    let odd = if back != x { t | 1 } else { t };
    if x.is_nan() {
        f64_to_f32(x)
    } else {
        f32::from_bits(odd)
    }
}

/// The magnitude `u` as a float32 rounded to odd (exact below 2^24), in integer
/// arithmetic: the 24 leading bits kept, the last of them set if any bit below was
/// dropped, so the conversion to float32 is exact.
#[inline(always)]
fn odd_f32_magnitude(u: u64) -> f32 {
    let shift = (64 - u.leading_zeros()).saturating_sub(24);
    let t = u >> shift << shift;
    (t | ((u != t) as u64) << shift) as f32
}

/// `x` as a float32 rounded to odd.
#[inline(always)]
pub(crate) fn odd_f32_of_i64(x: i64) -> f32 {
    let m = odd_f32_magnitude(x.unsigned_abs());
    if x < 0 {
        -m
    } else {
        m
    }
}

/// `x` as a float32 rounded to odd.
#[inline(always)]
pub(crate) fn odd_f32_of_u64(x: u64) -> f32 {
    odd_f32_magnitude(x)
}

/// `x` as a float32 rounded to odd (exact below 2^24), in integer arithmetic.
#[inline(always)]
pub(crate) fn odd_f32_of_i32(x: i32) -> f32 {
    let u = x.unsigned_abs();
    let shift = (32 - u.leading_zeros()).saturating_sub(24);
    let t = u >> shift << shift;
    // The sticky bit is the last of the 24 kept, so the value stays exact.
    let m = (t | ((u != t) as u32) << shift) as f32;
    if x < 0 {
        -m
    } else {
        m
    }
}

/// float32 into float16 bits (one rounding).
#[inline(always)]
pub(crate) fn to_f16(x: f32) -> u16 {
    f32_to_f16(x.to_bits())
}

/// float32 into bfloat16 bits (one rounding).
#[inline(always)]
pub(crate) fn to_bf16(x: f32) -> u16 {
    f32_to_bf16(x.to_bits())
}
