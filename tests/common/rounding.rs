//! Roundings of the tests' oracles, independent of nxrig's conversions: the float8 (and
//! float4) values by their definition, the nearest by searching all their patterns, the
//! nearest float16 or bfloat16 by a binary search over the patterns' exact values.
#![allow(dead_code)]

use half::{bf16, f16};

/// A float8 format as the tests know it, written here from its definition (not read
/// from nxrig's table): exponent and fraction widths, bias, and whether the all-ones
/// exponent holds infinities and NaNs (IEEE-like), or only S.1111.111 is NaN ("fn"),
/// or only 0x80, with no -0 ("fnuz"); or a format of 8 exponent bits alone, no sign and
/// no zero, NaN at 0xff (`unsigned`: float8_e8m0fnu, the OCP MX scale); or "fn"
/// without a sign bit (`fnu`: float8_e5m3fnu), a negative value its NaN; or a format
/// with neither infinity nor NaN (`finite`: float4_e2m1fn, 4 bits wide, and the
/// float6s, 6), which saturates, a NaN becoming a zero of the other sign (ml_dtypes').
#[derive(Clone, Copy, Debug)]
pub struct F8 {
    pub e: i32,
    pub m: i32,
    pub bias: i32,
    pub ieee: bool,
    pub fnuz: bool,
    pub unsigned: bool,
    pub fnu: bool,
    pub finite: bool,
}

/// The float8 format of `d`, `None` for a dtype that is not a float8.
pub fn f8_of(d: nxrig::DType) -> Option<F8> {
    use nxrig::DType;
    let f = |e, m, bias, ieee| {
        Some(F8 {
            e,
            m,
            bias,
            ieee,
            fnuz: false,
            unsigned: false,
            fnu: false,
            finite: false,
        })
    };
    let fnuz = |e, m, bias| {
        Some(F8 {
            e,
            m,
            bias,
            ieee: false,
            fnuz: true,
            unsigned: false,
            fnu: false,
            finite: false,
        })
    };
    match d {
        DType::Float8E4m3fn => f(4, 3, 7, false),
        DType::Float8E5m2 => f(5, 2, 15, true),
        DType::Float8E4m3 => f(4, 3, 7, true),
        DType::Float8E3m4 => f(3, 4, 3, true),
        DType::Float8E4m3fnuz => fnuz(4, 3, 8),
        DType::Float8E5m2fnuz => fnuz(5, 2, 16),
        DType::Float8E4m3b11fnuz => fnuz(4, 3, 11),
        DType::Float8E5m3fnu => Some(F8 {
            e: 5,
            m: 3,
            bias: 15,
            ieee: false,
            fnuz: false,
            unsigned: false,
            fnu: true,
            finite: false,
        }),
        DType::Float8E8m0fnu => Some(F8 {
            e: 8,
            m: 0,
            bias: 127,
            ieee: false,
            fnuz: false,
            unsigned: true,
            fnu: false,
            finite: false,
        }),
        // The OCP MX element formats: no infinity, no NaN.
        DType::Float4E2m1fn => Some(F8::finite(2, 1, 1)),
        DType::Float6E2m3fn => Some(F8::finite(2, 3, 1)),
        DType::Float6E3m2fn => Some(F8::finite(3, 2, 3)),
        _ => None,
    }
}

impl F8 {
    /// A signed format of `e` exponent and `m` fraction bits, bias `bias`, with neither
    /// infinity nor NaN (`finite`).
    fn finite(e: i32, m: i32, bias: i32) -> F8 {
        F8 {
            e,
            m,
            bias,
            ieee: false,
            fnuz: false,
            unsigned: false,
            fnu: false,
            finite: true,
        }
    }

    /// The width in bits: the sign (none in an unsigned format), exponent and fraction.
    pub fn bits(self) -> u32 {
        (!self.unsigned && !self.fnu) as u32 + (self.e + self.m) as u32
    }
    /// The sign bit (0x80; 0x8 for float4, 0x20 for a float6).
    pub fn sign(self) -> u8 {
        1 << (self.bits() - 1)
    }
    /// The positive quiet NaN (an "fn" format's one NaN; a "fnuz" one's 0x80); for a
    /// format without NaN, what a positive NaN becomes (-0).
    pub fn nan(self) -> u8 {
        let all = (((1u32 << self.e) - 1) << self.m) as u8;
        if self.finite {
            self.sign()
        } else if self.unsigned {
            0xff
        } else if self.fnuz {
            0x80
        } else if self.ieee {
            all | 1 << (self.m - 1)
        } else {
            all | ((1 << self.m) - 1)
        }
    }
    /// The quiet bit (0 where NaN is one pattern).
    pub fn quiet_bit(self) -> u8 {
        if self.ieee {
            1 << (self.m - 1)
        } else {
            0
        }
    }
    /// The largest finite pattern.
    pub fn max_finite(self) -> u8 {
        let all = ((1u32 << self.e) - 1) << self.m;
        (if self.unsigned {
            0xfe
        } else if self.fnuz || self.finite {
            self.sign() as u32 - 1
        } else if self.ieee {
            all - 1
        } else {
            all | ((1 << self.m) - 2)
        }) as u8
    }
}

/// The value of a float8 pattern of format `f`, by its definition.
pub fn f8_value(bits: u8, f: F8) -> f64 {
    if f.unsigned {
        return if bits == 0xff {
            f64::NAN
        } else {
            2f64.powi(bits as i32 - f.bias)
        };
    }
    let (eb, mb, bias) = (f.e, f.m, f.bias);
    let s = if bits & f.sign() != 0 && !f.fnu {
        -1.0
    } else {
        1.0
    };
    let e = ((bits >> mb) & ((1 << eb) - 1)) as i32;
    let m = (bits & ((1 << mb) - 1)) as i32;
    let all = (1 << eb) - 1;
    if f.fnuz && bits == 0x80 {
        return f64::NAN;
    }
    if !f.fnuz && !f.finite && e == all && (if f.ieee { m != 0 } else { m == (1 << mb) - 1 }) {
        return f64::NAN;
    }
    if f.ieee && e == all {
        return s * f64::INFINITY;
    }
    if e == 0 {
        s * m as f64 * 2f64.powi(1 - bias - mb)
    } else {
        s * (1.0 + m as f64 / (1 << mb) as f64) * 2f64.powi(e - bias)
    }
}

/// The float8 pattern of format `f` nearest `x` (ties to the even pattern), by
/// searching all 256; past the largest finite value by half its ulp (or on that
/// midpoint where the largest pattern is odd) infinity, or NaN in an "fn" or "fnuz"
/// format; a zero is +0 in a "fnuz" format.
/// An unsigned format (no sign, no zero) takes the nearest power of two, a tie up; a
/// value under its least, the least; a NaN, a zero, a negative value or one from the
/// midpoint of its largest and the next power, its NaN. An "fnu" format: a negative
/// value its NaN, a zero of either sign +0. A format without NaN or infinity: past
/// the largest finite, the largest of the sign; a NaN, a zero of the other sign.
pub fn f8_nearest(x: f64, f: F8) -> u8 {
    if x.is_nan() && f.finite {
        return if x.is_sign_negative() { 0 } else { f.sign() };
    }
    if x.is_nan() || (f.fnu && x < 0.0) {
        return f.nan();
    }
    if f.fnu && x == 0.0 {
        return 0;
    }
    if f.unsigned {
        let top = f8_value(f.max_finite(), f);
        if x <= 0.0 || x >= 1.5 * top {
            return f.nan();
        }
        let mut best = (f64::INFINITY, 0u8);
        for b in 0..=f.max_finite() {
            let d = (f8_value(b, f) - x).abs();
            if d <= best.0 {
                best = (d, b); // a tie: the later, greater power
            }
        }
        return best.1;
    }
    let max = f8_value(f.max_finite(), f);
    let limit = max + (max - f8_value(f.max_finite() - 1, f)) / 2.0;
    if x.abs() > limit || (x.abs() == limit && f.max_finite() & 1 == 1) {
        let sign = if x < 0.0 { f.sign() } else { 0 };
        let all = ((1 << f.e) - 1) << f.m;
        return sign
            | if f.ieee {
                all
            } else if f.finite {
                f.max_finite()
            } else {
                f.nan()
            };
    }
    let mut best = (f64::INFINITY, 0u8);
    for b in 0..=((1u32 << f.bits()) - 1) as u8 {
        let v = f8_value(b, f);
        let sign_differs = !f.fnuz && v.is_sign_negative() != x.is_sign_negative();
        if !v.is_finite() || (v == 0.0 && sign_differs) {
            continue;
        }
        let d = (v - x).abs();
        if d < best.0 || (d == best.0 && b & 1 == 0 && best.1 & 1 == 1) {
            best = (d, b);
        }
    }
    best.1
}

/// The float16 (`bf` false) or bfloat16 pattern nearest `x`, ties to the even pattern,
/// infinity from the midpoint past the largest finite value on: a binary search over
/// the patterns' exact values, so that the oracle's one rounding owes nothing to a
/// conversion's code. (half 2.7's own `from_f64` drops the low 32 bits of the float64
/// before rounding where it has no hardware path: in wasm float16, and bfloat16
/// everywhere; in wasm it rounded -455.25 + 0.12481689453125 to 0xdf1c, not 0xdf1d.)
pub fn nearest16(x: f64, bf: bool) -> u16 {
    let value = |p: u16| {
        if bf {
            bf16::from_bits(p).to_f64()
        } else {
            f16::from_bits(p).to_f64()
        }
    };
    let (inf, quiet, beyond) = if bf {
        (0x7f80u16, 0x7fc0u16, 2f64.powi(128))
    } else {
        (0x7c00, 0x7e00, 65536.0)
    };
    if x.is_nan() {
        return quiet;
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let m = x.abs();
    // The pattern above the largest finite one counts as 2^(emax + 1) for rounding.
    let at = |p: u16| if p == inf { beyond } else { value(p) };
    if m >= beyond {
        return sign | inf;
    }
    let (mut lo, mut hi) = (0u16, inf);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if value(mid) <= m {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (below, above) = (m - at(lo), at(hi) - m);
    sign | if below < above || (below == above && lo % 2 == 0) {
        lo
    } else {
        hi
    }
}

/// The six dtypes the kernel suites run (`tests/elementwise.rs`, `elementwise_c.rs`,
/// `raw_kernels.rs`): each class of compute type, a packed one, the narrow floats.
pub const KERNEL_DTYPES: [nxrig::DType; 6] = [
    nxrig::DType::Bfloat16,
    nxrig::DType::Float8E4m3fn,
    nxrig::DType::Float16,
    nxrig::DType::Float32,
    nxrig::DType::Int32,
    nxrig::DType::Int4,
];

/// The value of element `bits` of `d` (one of [`KERNEL_DTYPES`]), by the dtype's
/// definition.
pub fn value(d: nxrig::DType, bits: u128) -> f64 {
    use nxrig::DType;
    match d {
        DType::Bfloat16 => bf16::from_bits(bits as u16).to_f64(),
        DType::Float16 => f16::from_bits(bits as u16).to_f64(),
        DType::Float8E4m3fn => f8_value(bits as u8, f8_of(d).unwrap()),
        DType::Float32 => f32::from_bits(bits as u32) as f64,
        DType::Int32 => bits as u32 as i32 as f64,
        DType::Int4 => (((bits as u8) << 4) as i8 >> 4) as f64,
        d => panic!("no oracle for {d}"),
    }
}
