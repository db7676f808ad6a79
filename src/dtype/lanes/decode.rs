//! The narrow floats read as float32, exactly, without a branch the compiler cannot
//! turn into a select: float16 by a shift and a power-of-two product, bfloat16 by a
//! shift, the float8s and float4 from tables that a `const fn` builds from their
//! formats (`kinds.rs`'s `Minifloat`). A NaN comes out quiet, its sign and payload kept (docs/numerics.md's NaN rule).
//!
//! The product relies on the default floating-point environment (subnormal inputs
//! not flushed), as [`super::super::fast`] and Rust itself do.

use super::super::format::{FloatFormat, Specials};

/// 2^112, the distance between float16's exponent bias and float32's.
const F16_SCALE: f32 = f32::from_bits(0x7780_0000);

/// float16 bits as float32.
#[inline(always)]
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let h = h as u32;
    let sign = (h & 0x8000) << 16;
    let mag = (h & 0x7fff) << 13;
    // Normal and subnormal values: exact, the subnormals normalized by the product.
    let scaled = (f32::from_bits(mag) * F16_SCALE).to_bits();
    // Infinities and NaNs: all exponent bits, quiet where a NaN.
    let special = mag | 0x7f80_0000 | if h & 0x3ff != 0 { 0x0040_0000 } else { 0 };
    f32::from_bits(
        sign | if h & 0x7c00 == 0x7c00 {
            special
        } else {
            scaled
        },
    )
}

/// bfloat16 bits as float32.
#[inline(always)]
pub(crate) fn bf16_to_f32(b: u16) -> f32 {
    let x = (b as u32) << 16;
    let nan = x & 0x7fff_ffff > 0x7f80_0000;
    f32::from_bits(if nan { x | 0x0040_0000 } else { x })
}

/// The float32 bits of a minifloat pattern of format `f` (a float8's, or a float4's in
/// the low nibble, the high ignored): a format of one NaN
/// (float8_e4m3fn's all-ones patterns, a "fnuz" format's 0x80) reads it as the canonical
/// quiet NaN of its sign, and has numbers where IEEE's all-ones exponent has its
/// infinities and NaNs; a format of powers of two without sign or zero
/// (float8_e8m0fnu) reads an exponent field of 0 as its least power, 2^-bias.
const fn minifloat_bits(b: u8, f: FloatFormat) -> u32 {
    let (ebits, mbits, bias) = (f.exponent_bits, f.fraction_bits, f.bias);
    let sign = if f.signed() {
        (((b as u32) >> (f.bits() - 1)) & 1) << 31
    } else {
        0
    };
    let e = ((b as u32) >> mbits) & ((1 << ebits) - 1);
    let m = (b as u32) & ((1 << mbits) - 1);
    let all = (1 << ebits) - 1;
    if f.is_nan(b as u64) {
        return match f.specials {
            Specials::Ieee => sign | 0x7fc0_0000 | (m << (23 - mbits)),
            _ => sign | 0x7fc0_0000,
        };
    }
    if matches!(f.specials, Specials::Ieee) && e == all {
        return sign | 0x7f80_0000;
    }
    if e == 0 && matches!(f.specials, Specials::UnsignedNoZero) {
        // 2^-bias: normal in float32, or (from 2^-127) subnormal.
        return if bias < 127 {
            ((127 - bias) as u32) << 23
        } else {
            1 << (149 - bias)
        };
    }
    if e == 0 {
        if m == 0 {
            return sign;
        }
        // Subnormal: normalize the fraction.
        let mut m = m;
        let mut exp = 1 - bias;
        while m & (1 << mbits) == 0 {
            m <<= 1;
            exp -= 1;
        }
        let frac = (m & ((1 << mbits) - 1)) << (23 - mbits);
        return sign | (((exp + 127) as u32) << 23) | frac;
    }
    sign | (((e as i32 - bias + 127) as u32) << 23) | (m << (23 - mbits))
}

/// The float32 bits of every byte read as a pattern of the minifloat format `f` (a
/// float8's or a float4's).
pub(crate) const fn minifloat_table(f: FloatFormat) -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = minifloat_bits(i as u8, f);
        i += 1;
    }
    t
}
