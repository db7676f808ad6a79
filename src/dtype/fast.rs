//! Branch-free conversions of float32 into the narrow float dtypes, the encoders of
//! the typed loops (`lanes`). Each gives the same bits as [`super::convert_bits`] (tests
//! check them against it and against the committed oracle vectors); they exist only
//! to be fast, written so that the compiler vectorizes the loops.
//!
//! Subnormal results use the classic "add a magic number" step, which relies on the
//! default floating-point environment (round to nearest, no flush to zero), as Rust
//! itself does.

use super::format::{FloatFormat, Specials, F16};

/// float32 bits into the bits of a narrow float of format `f` (a float whose exponent
/// is under float32's: float16, the float8s, float4), rounded to nearest, ties to even; past
/// the largest finite, infinity where the format has one (a NaN keeps its sign and high
/// payload bits, quiet), else the format's NaN, which infinities and NaNs give too; a
/// zero is +0 where the format has no -0. A format of powers of two without sign or
/// zero (float8_e8m0fnu) rounds a tie up, raises a value under its least to it, and
/// gives its NaN for zeros and negative values; an unsigned format with a zero
/// (float8_e5m3fnu) gives its NaN for a negative value, -0 excepted (+0); a format
/// without infinity or NaN (float4_e2m1fn) saturates, and gives a NaN a zero of the
/// other sign.
///
/// Generic over the format: called with a constant `f` (as [`f32_to_f16`] does), the
/// compiler folds every constant below into the lines that were written by hand per
/// format. Normal results round the dropped fraction bits and rebias; subnormal ones
/// let the float adder round `a / 2^emin_sub` (a magic number of the subnormal step's
/// ulp).
#[inline(always)]
pub fn f32_to_narrow(x: u32, f: FloatFormat) -> u32 {
    let m = f.fraction_bits;
    let emask = (1u32 << f.exponent_bits) - 1;
    let fmask = (1u32 << m) - 1;
    let drop = 23 - m;
    let bits = f.bits();
    let sign = (x >> (32 - bits)) & (1 << (bits - 1));
    let a = x & 0x7fff_ffff;
    let normal = (a.wrapping_add((1 << (drop - 1)) - 1 + ((a >> drop) & 1)) >> drop)
        .wrapping_sub(((127 - f.bias) as u32) << m);
    // 2^(24 - bias - m) has an ulp of 2^(1 - bias - m), the format's subnormal step.
    let magic = f32::from_bits(((24 - f.bias - m as i32 + 127) as u32) << 23);
    let sub = (f32::from_bits(a) + magic)
        .to_bits()
        .wrapping_sub(magic.to_bits());
    let (limit, min_normal) = narrow_bounds(f);
    let finite = if a >= min_normal { normal } else { sub };
    match f.specials {
        Specials::Ieee => {
            let nan = (emask << m) | (1 << (m - 1)) | ((a >> drop) & fmask);
            sign | if a > 0x7f80_0000 {
                nan
            } else if a >= limit {
                emask << m
            } else {
                finite
            }
        }
        // The largest finite is even (S.1111.110): its midpoint with the NaN rounds to it.
        Specials::AllOnesNan => {
            sign | if a > limit {
                (emask << m) | fmask
            } else {
                finite
            }
        }
        // The largest finite is odd (S.1111.111): its midpoint rounds past it, to the NaN
        // (0x80, as infinities and NaNs); a zero is +0.
        Specials::NegZeroNan => {
            if a >= limit {
                1 << (bits - 1)
            } else if finite == 0 {
                0
            } else {
                sign | finite
            }
        }
        // Powers of two (fraction width 0): adding half an exponent step rounds a tie
        // up; under the midpoint of the least power and the next, the least.
        Specials::UnsignedNoZero => {
            let least_mid = power_least_mid(f);
            // A negative value's bits (the sign's up) are all past `limit`.
            if x == 0 || x >= limit {
                emask
            } else if a < least_mid {
                0
            } else {
                ((a + (1 << 22)) >> 23) - (127 - f.bias) as u32
            }
        }
        // No infinity or NaN: past the largest finite, the largest of the sign; a NaN
        // a zero of the other sign (ml_dtypes').
        Specials::Finite => {
            if a > 0x7f80_0000 {
                sign ^ (1 << (bits - 1))
            } else if a >= limit {
                sign | (emask << m) | fmask
            } else {
                sign | finite
            }
        }
        // As AllOnesNan's without a sign: a negative value's bits (the sign's up) are
        // past `limit`, all but -0's.
        Specials::Unsigned => {
            if x == 0x8000_0000 {
                0
            } else if x > limit {
                (emask << m) | fmask
            } else {
                finite
            }
        }
    }
}

/// The float32 magnitudes (bits, sign clear) that bound a narrow float format `f`'s
/// normal results: from the first a value rounds past the largest finite (that and
/// half an ulp more), and the second is its least normal. The host's encoder and the
/// WGSL one share them.
pub(crate) const fn narrow_bounds(f: FloatFormat) -> (u32, u32) {
    let drop = 23 - f.fraction_bits;
    let max = f.max_bits() as u32;
    let emax = (max >> f.fraction_bits) as i32 - f.bias;
    let top = max & ((1 << f.fraction_bits) - 1);
    let limit = (((emax + 127) as u32) << 23) | (top << drop) | (1 << (drop - 1));
    (limit, ((128 - f.bias) as u32) << 23)
}

/// The float32 bits of the midpoint of an unsigned format of powers of two's least
/// power and the next (1.5 * 2^-bias): under it, a value becomes the least. The host's
/// encoder and the WGSL one share it.
pub(crate) fn power_least_mid(f: FloatFormat) -> u32 {
    // 0.75 of 2^(1 - bias), the least normal of a format with a sign: exact.
    (f32::from_bits(narrow_bounds(f).1) * 0.75).to_bits()
}

/// float32 bits into float16 bits, rounded to nearest, ties to even.
#[inline(always)]
pub fn f32_to_f16(x: u32) -> u16 {
    f32_to_narrow(x, F16) as u16
}

/// float32 bits into bfloat16 bits, rounded to nearest, ties to even.
#[inline(always)]
pub fn f32_to_bf16(x: u32) -> u16 {
    let rounded = x.wrapping_add(0x7fff + ((x >> 16) & 1)) >> 16;
    let nan = (x >> 16) | 0x40;
    (if x & 0x7fff_ffff > 0x7f80_0000 {
        nan
    } else {
        rounded
    }) as u16
}

#[cfg(test)]
mod tests {
    use super::super::{convert_bits, DType};
    use super::*;

    /// Every float32 whose low 12 bits are one of a few patterns (ties, just above and
    /// below them), across every exponent and sign: the fast encoders equal the exact
    /// conversion, bfloat16's and [`f32_to_narrow`] for every narrow float of the table.
    #[test]
    fn fast_kernels_equal_the_exact_conversion() {
        let narrow: Vec<(DType, FloatFormat)> = DType::ALL
            .into_iter()
            .filter(|&d| d != DType::Bfloat16 && d.bits() <= 16)
            .filter_map(|d| Some((d, d.float_format()?)))
            .collect();
        assert!(narrow.len() >= 3, "float16 and the float8s");
        let lows = [0u32, 1, 0x7ff, 0x800, 0x801, 0xfff];
        for hi in 0..(1u32 << 20) {
            for &lo in &lows {
                let x = (hi << 12) | lo;
                let w = x as u128;
                assert_eq!(
                    f32_to_bf16(x) as u128,
                    convert_bits(DType::Float32, DType::Bfloat16, w),
                    "bf16 {x:#x}"
                );
                for &(d, f) in &narrow {
                    let want = convert_bits(DType::Float32, d, w);
                    assert_eq!(f32_to_narrow(x, f) as u128, want, "{d} {x:#x}");
                }
            }
        }
        assert_eq!(f32_to_f16(0x3f80_0000), 0x3c00);
    }
}
