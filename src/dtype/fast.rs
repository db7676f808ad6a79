//! Branch-free conversions of float32 into the narrow float dtypes, the encoders of
//! the typed loops (`lanes`). Each gives the same bits as [`super::convert_bits`] (tests
//! check them against it and against the committed oracle vectors); they exist only
//! to be fast, written so that the compiler vectorizes the loops.
//!
//! Subnormal results use the classic "add a magic number" step, which relies on the
//! default floating-point environment (round to nearest, no flush to zero), as Rust
//! itself does.

/// float32 bits into float16 bits, rounded to nearest, ties to even.
#[inline(always)]
pub fn f32_to_f16(x: u32) -> u16 {
    let sign = (x >> 16) & 0x8000;
    let a = x & 0x7fff_ffff;
    // Normal results: round the 13 dropped bits, then rebias (127 - 15 = 112).
    let normal = (a.wrapping_add(0x0fff + ((a >> 13) & 1)) >> 13).wrapping_sub(112 << 10);
    // Subnormal results: the float adder rounds a / 2^-24 for us.
    let sub = (f32::from_bits(a) + 0.5)
        .to_bits()
        .wrapping_sub(0x3f00_0000);
    let nan = 0x7e00 | ((a >> 13) & 0x3ff);
    let r = if a > 0x7f80_0000 {
        nan
    } else if a >= 0x477f_f000 {
        0x7c00
    } else if a >= 0x3880_0000 {
        normal
    } else {
        sub
    };
    (r | sign) as u16
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

/// float32 bits into float8_e4m3 bits, rounded to nearest, ties to even; beyond 464
/// in magnitude (the tie rounds to 448), infinity and NaN give NaN.
#[inline(always)]
pub fn f32_to_e4m3(x: u32) -> u8 {
    let sign = (x >> 24) & 0x80;
    let a = x & 0x7fff_ffff;
    let normal = (a.wrapping_add(0x7_ffff + ((a >> 20) & 1)) >> 20).wrapping_sub(120 << 3);
    // 2^14 has an ulp of 2^-9, float8_e4m3's subnormal step.
    let sub = (f32::from_bits(a) + 16384.0)
        .to_bits()
        .wrapping_sub(0x4680_0000);
    let r = if a > 0x43e8_0000 {
        0x7f
    } else if a >= 0x3c80_0000 {
        normal
    } else {
        sub
    };
    (r | sign) as u8
}

/// float32 bits into float8_e5m2 bits, rounded to nearest, ties to even.
#[inline(always)]
pub fn f32_to_e5m2(x: u32) -> u8 {
    let sign = (x >> 24) & 0x80;
    let a = x & 0x7fff_ffff;
    let normal = (a.wrapping_add(0xf_ffff + ((a >> 21) & 1)) >> 21).wrapping_sub(112 << 2);
    // 2^7 has an ulp of 2^-16, float8_e5m2's subnormal step.
    let sub = (f32::from_bits(a) + 128.0)
        .to_bits()
        .wrapping_sub(0x4300_0000);
    let nan = 0x7e | ((a >> 21) & 0x3);
    let r = if a > 0x7f80_0000 {
        nan
    } else if a >= 0x4770_0000 {
        0x7c
    } else if a >= 0x3880_0000 {
        normal
    } else {
        sub
    };
    (r | sign) as u8
}

#[cfg(test)]
mod tests {
    use super::super::{convert_bits, DType};
    use super::*;

    /// Every float32 whose low 12 bits are one of a few patterns (ties, just above and
    /// below them), across every exponent and sign: the fast kernels equal the exact one.
    #[test]
    fn fast_kernels_equal_the_exact_conversion() {
        let lows = [0u32, 1, 0x7ff, 0x800, 0x801, 0xfff];
        for hi in 0..(1u32 << 20) {
            for &lo in &lows {
                let x = (hi << 12) | lo;
                let w = x as u128;
                assert_eq!(
                    f32_to_f16(x) as u128,
                    convert_bits(DType::Float32, DType::Float16, w),
                    "f16 {x:#x}"
                );
                assert_eq!(
                    f32_to_bf16(x) as u128,
                    convert_bits(DType::Float32, DType::Bfloat16, w),
                    "bf16 {x:#x}"
                );
                assert_eq!(
                    f32_to_e4m3(x) as u128,
                    convert_bits(DType::Float32, DType::Float8E4m3, w),
                    "e4m3 {x:#x}"
                );
                assert_eq!(
                    f32_to_e5m2(x) as u128,
                    convert_bits(DType::Float32, DType::Float8E5m2, w),
                    "e5m2 {x:#x}"
                );
            }
        }
    }
}
