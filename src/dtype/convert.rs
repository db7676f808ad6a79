//! Conversion of one element from any dtype into any dtype, correctly rounded.
//!
//! Every source is decoded
//! into an exact value (a NaN with its payload, an infinity, a finite `mant * 2^exp`,
//! or an exact integer) and encoded into the target with one rounding, to nearest,
//! ties to even. The rules:
//!
//! - float into float: one rounding; overflow gives infinity, or NaN for a format
//!   without one (float8_e4m3fn, the "fnuz" float8s); a zero keeps its sign, but
//!   becomes +0 in a format without -0 ("fnuz"); a format of powers of two without
//!   sign or zero (float8_e8m0fnu) rounds a tie up, raises a value under its least to
//!   it, and gives its NaN for a zero or a negative value; an unsigned format with a
//!   zero (float8_e5m3fnu) gives its NaN for a negative value but a zero (+0);
//! - a NaN stays a NaN of its sign with the quiet bit set and its high payload bits
//!   kept; a format of one NaN (of each sign for float8_e4m3fn, 0x80 for "fnuz") has
//!   no payload and reads as the canonical quiet NaN of its sign;
//! - float into integer truncates toward zero and saturates, NaN gives 0;
//! - integer into integer wraps modulo 2^bits; integer into float rounds once;
//! - anything nonzero (NaN included; a complex if either part is) is true as bool;
//! - complex into a real dtype keeps the real part; real into complex has imaginary +0.
//!
//! Elements travel as raw bits in a `u128` (sub-byte values in the low nibble,
//! complex as real bits, then imaginary bits above them).

use super::format::{FloatFormat, Specials};
use super::table::{Class, DType};

/// An exact value of a float (or complex component).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Num {
    /// A NaN; `payload` is the fraction field left-aligned to bit 63.
    Nan { neg: bool, payload: u64 },
    /// An infinity.
    Inf { neg: bool },
    /// The finite value `(-1)^neg * mant * 2^exp` (`mant` 0 is a signed zero).
    Fin { neg: bool, mant: u64, exp: i32 },
}

/// An exact value of a non-complex element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decoded {
    Int(i128),
    Float(Num),
}

#[inline]
fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Decodes the bits of a float of format `f`.
pub(crate) fn decode_float(f: FloatFormat, bits: u64) -> Num {
    let m = f.fraction_bits;
    let e_all = (1u64 << f.exponent_bits) - 1;
    // Bits above the format's are ignored (an unsigned format's sign bit among them).
    let neg = f.signed() && bits & f.sign_bit() != 0;
    let e = (bits >> m) & e_all;
    let frac = bits & ((1u64 << m) - 1);
    if f.is_nan(bits) {
        // IEEE's NaN carries its fraction; the others' one NaN reads as the quiet one.
        let payload = match f.specials {
            Specials::Ieee => frac << (64 - m),
            _ => 1 << 63,
        };
        return Num::Nan { neg, payload };
    }
    if f.specials == Specials::Ieee && e == e_all {
        return Num::Inf { neg };
    }
    if e == 0 && f.specials != Specials::UnsignedNoZero {
        Num::Fin {
            neg,
            mant: frac,
            exp: 1 - f.bias - m as i32,
        }
    } else {
        Num::Fin {
            neg,
            mant: frac | (1u64 << m),
            exp: e as i32 - f.bias - m as i32,
        }
    }
}

/// Encodes `x` into format `f` with one rounding to nearest, ties to even (ties up
/// for a format of powers of two, [`encode_power`]).
pub(crate) fn encode_float(f: FloatFormat, x: Num) -> u64 {
    if f.specials == Specials::UnsignedNoZero {
        return encode_power(f, x);
    }
    let m = f.fraction_bits;
    let e_all = (1u64 << f.exponent_bits) - 1;
    let sign = |neg: bool| if neg { f.sign_bit() } else { 0 };
    match x {
        Num::Nan { neg, payload } => f.nan(neg, payload),
        Num::Inf { neg } => f.overflow(neg),
        Num::Fin { neg, mant: 0, .. } => f.zero(neg),
        // An unsigned format's NaN for a negative value, one that would round to zero too.
        Num::Fin { neg: true, .. } if !f.signed() => f.overflow(true),
        Num::Fin { neg, mant, exp } => {
            let len = 64 - mant.leading_zeros() as i32;
            let e = exp + len - 1; // unbiased exponent of the leading bit
            let emin = 1 - f.bias;
            // An exponent past every finite value.
            let emax = e_all as i32 - f.bias;
            if e > emax {
                return f.overflow(neg);
            }
            let ulp_exp = e.max(emin) - m as i32;
            let shift = ulp_exp - exp;
            let q: u64 = if shift <= 0 {
                mant << (-shift) as u32
            } else if shift > 64 {
                0
            } else {
                let wide = mant as u128;
                let q = wide >> shift;
                let rem = wide - (q << shift);
                let half = 1u128 << (shift - 1);
                let up = rem > half || (rem == half && q & 1 == 1);
                (q + up as u128) as u64
            };
            let bits = if e >= emin {
                (((e + f.bias - 1) as u64) << m) + q
            } else {
                q
            };
            if bits > f.max_bits() {
                f.overflow(neg)
            } else if bits == 0 {
                f.zero(neg)
            } else {
                sign(neg) | bits
            }
        }
    }
}

/// Encodes `x` into a format of powers of two without sign or zero (fraction width 0,
/// [`Specials::UnsignedNoZero`]): to the nearest power, a tie (`1.5 * 2^k`) up; under
/// the least, the least; a zero, a negative value, an infinity, a NaN or a value
/// rounding past the largest, the NaN (every bit set).
fn encode_power(f: FloatFormat, x: Num) -> u64 {
    let nan = f.overflow(false);
    let Num::Fin {
        neg: false,
        mant,
        exp,
    } = x
    else {
        return nan;
    };
    if mant == 0 {
        return nan;
    }
    let len = 64 - mant.leading_zeros() as i32;
    // The bit under the leading one: at or past the midpoint, the next power.
    let up = len >= 2 && (mant >> (len - 2)) & 1 == 1;
    let field = (exp + len - 1 + up as i32 + f.bias).max(0) as u64;
    if field >= nan {
        nan
    } else {
        field
    }
}

fn decode(src: DType, bits: u128) -> Decoded {
    match src.class() {
        Class::Float => {
            let f = src.float_format().expect("float dtype");
            Decoded::Float(decode_float(f, bits as u64))
        }
        Class::Signed => {
            let b = src.packed_bits();
            let v = (bits & mask(b)) as i128;
            Decoded::Int((v << (128 - b)) >> (128 - b))
        }
        Class::Unsigned => Decoded::Int((bits & mask(src.packed_bits())) as i128),
        Class::Bool => Decoded::Int((bits & 0xff != 0) as i128),
        Class::Complex => unreachable_complex(),
    }
}

#[cold]
#[inline(never)]
fn unreachable_complex() -> ! {
    panic!("nxrig bug: a complex dtype reached the scalar conversion")
}

fn is_nonzero(d: Decoded) -> bool {
    match d {
        Decoded::Int(v) => v != 0,
        Decoded::Float(Num::Fin { mant, .. }) => mant != 0,
        Decoded::Float(_) => true,
    }
}

/// The integer `v` as an exact finite value.
fn num_of_int(v: i128) -> Num {
    Num::Fin {
        neg: v < 0,
        mant: v.unsigned_abs() as u64,
        exp: 0,
    }
}

/// Truncates toward zero and saturates into `[lo, hi]`; NaN gives 0.
fn float_to_int(x: Num, lo: i128, hi: i128) -> i128 {
    match x {
        Num::Nan { .. } => 0,
        Num::Inf { neg } => {
            if neg {
                lo
            } else {
                hi
            }
        }
        Num::Fin { neg, mant, exp } => {
            let mag: i128 = if exp >= 0 {
                if exp >= 64 || (mant as u128) << exp > (1u128 << 100) {
                    1i128 << 100
                } else {
                    ((mant as u128) << exp) as i128
                }
            } else if exp <= -64 {
                0
            } else {
                (mant >> (-exp) as u32) as i128
            };
            let v = if neg { -mag } else { mag };
            v.clamp(lo, hi)
        }
    }
}

fn int_range(dst: DType) -> (i128, i128) {
    let b = dst.packed_bits();
    match dst.class() {
        Class::Signed => (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1),
        _ => (0, (1i128 << b) - 1),
    }
}

/// Converts one non-complex element.
fn convert_real(src: DType, dst: DType, bits: u128) -> u128 {
    let d = decode(src, bits);
    match dst.class() {
        Class::Bool => is_nonzero(d) as u128,
        Class::Signed | Class::Unsigned => {
            let v = match d {
                Decoded::Int(v) => v,
                Decoded::Float(x) => {
                    let (lo, hi) = int_range(dst);
                    float_to_int(x, lo, hi)
                }
            };
            (v as u128) & mask(dst.packed_bits())
        }
        Class::Float => {
            let f = dst.float_format().expect("float dtype");
            let x = match d {
                Decoded::Int(v) => num_of_int(v),
                Decoded::Float(x) => x,
            };
            encode_float(f, x) as u128
        }
        Class::Complex => unreachable_complex(),
    }
}

/// The real component dtype of a complex dtype.
pub(crate) fn component(d: DType) -> DType {
    match d {
        DType::Complex64 => DType::Float32,
        DType::Complex128 => DType::Float64,
        DType::Complex32 => DType::Float16,
        DType::Bcomplex32 => DType::Bfloat16,
        other => other,
    }
}

/// Converts the element `bits` of dtype `src` into dtype `dst`, rounding once.
///
/// `bits` holds the element's storage bits: a sub-byte value in its low nibble, a
/// complex value as real bits with imaginary bits above them. Bits above the source's
/// width are ignored. The result holds the target's bits the same way, with every bit
/// above its width zero.
///
/// ```
/// use nxrig::dtype::convert_bits;
/// use nxrig::DType;
/// // float64 0.499994 into float16: the carry reaches the exponent, 0.5.
/// assert_eq!(convert_bits(DType::Float64, DType::Float16, 0.499994f64.to_bits() as u128), 0x3800);
/// // A NaN with payload only in its low bits stays a NaN.
/// assert_eq!(convert_bits(DType::Float64, DType::Float16, 0x7FF0000000000001), 0x7E00);
/// // Float into integer truncates and saturates; NaN gives 0.
/// assert_eq!(convert_bits(DType::Float32, DType::Uint8, 300f32.to_bits() as u128), 255);
/// ```
pub fn convert_bits(src: DType, dst: DType, bits: u128) -> u128 {
    let src_complex = src.class() == Class::Complex;
    let dst_complex = dst.class() == Class::Complex;
    if !src_complex && !dst_complex {
        return convert_real(src, dst, bits);
    }
    let (sc, dc) = (component(src), component(dst));
    if src_complex {
        let w = sc.bits();
        let re = bits & mask(w);
        let im = (bits >> w) & mask(w);
        if dst_complex {
            let r = convert_real(sc, dc, re);
            let i = convert_real(sc, dc, im);
            r | (i << dc.bits())
        } else if dst == DType::Bool {
            (convert_real(sc, DType::Bool, re) | convert_real(sc, DType::Bool, im)) & 1
        } else {
            convert_real(sc, dst, re)
        }
    } else {
        // Real into complex: imaginary +0.
        convert_real(src, dc, bits)
    }
}

/// The dtype's bits of the value `x`: rounded once to nearest,
/// ties to even, for float dtypes; truncated and saturated for integers; `x != 0` for
/// bool; `(x, +0)` for complex.
pub fn bits_of_f64(dst: DType, x: f64) -> u128 {
    convert_bits(DType::Float64, dst, x.to_bits() as u128)
}

/// The element `bits` of dtype `src` as the nearest `f64` (exact for every dtype but
/// 64-bit integers beyond 2^53; complex gives its real part).
pub fn f64_of_bits(src: DType, bits: u128) -> f64 {
    f64::from_bits(convert_bits(src, DType::Float64, bits) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trips_every_f16_pattern() {
        let f = DType::Float16.float_format().unwrap();
        for b in 0..=u16::MAX as u64 {
            // A NaN comes back quiet, its payload kept; every other pattern unchanged.
            let want = if b & 0x7fff > 0x7c00 { b | 0x200 } else { b };
            assert_eq!(encode_float(f, decode_float(f, b)), want, "{b:#x}");
        }
    }

    #[test]
    fn e4m3_nan_reads_as_canonical_quiet_nan() {
        assert_eq!(
            convert_bits(DType::Float8E4m3fn, DType::Float16, 0xff),
            0xfe00
        );
        assert_eq!(
            convert_bits(DType::Float8E4m3fn, DType::Float16, 0x7f),
            0x7e00
        );
    }
}
