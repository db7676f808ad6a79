//! Float formats: the bit layout of a binary floating-point format and its special
//! values (`Specials`), with the facts every encoder reads of them, and the formats of
//! the table's float dtypes.

/// The bit layout of a binary floating-point format, and its conventions.
///
/// ```
/// use nxrig::dtype::Specials;
/// use nxrig::DType;
///
/// let e4m3 = DType::Float8E4m3fn.float_format().unwrap();
/// assert_eq!((e4m3.exponent_bits, e4m3.fraction_bits, e4m3.bias), (4, 3, 7));
/// assert_eq!(e4m3.specials, Specials::AllOnesNan);
/// assert_eq!(DType::Float16.float_format().unwrap().specials, Specials::Ieee);
/// assert_eq!(DType::Float8E4m3fnuz.float_format().unwrap().specials, Specials::NegZeroNan);
/// assert_eq!(DType::Int8.float_format(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFormat {
    /// Exponent field width in bits.
    pub exponent_bits: u32,
    /// Fraction (stored mantissa) width in bits.
    pub fraction_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// Which patterns are infinities and NaNs, and what a value past the largest
    /// finite becomes.
    pub specials: Specials,
}

/// A float format's special values: where its NaNs and infinities are (ml_dtypes'
/// conventions, whose names say them: "fn" finite with NaN, "fnuz" finite with NaN and
/// an unsigned zero).
///
/// A value past the largest finite (by half an ulp, or on that midpoint where the
/// largest finite pattern is odd) becomes the format's infinity where it has one, else
/// its NaN (else its largest finite, [`Specials::Finite`]); so do infinities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Specials {
    /// IEEE 754's: the all-ones exponent holds the infinities (fraction 0) and NaNs
    /// (any other fraction, which a NaN carries as its payload).
    Ieee,
    /// No infinity; NaN only where every exponent and fraction bit is 1, of either
    /// sign, without a payload ("fn": float8_e4m3fn).
    AllOnesNan,
    /// No infinity and no negative zero: the one NaN is the negative-zero pattern (the
    /// sign bit alone), and every other pattern is a number ("fnuz": AMD's float8s).
    /// A negative result that rounds to zero is +0.
    NegZeroNan,
    /// No sign bit and no zero ("fnu" without a zero: float8_e8m0fnu, the OCP MX
    /// formats' scale, of fraction width 0): the all-ones pattern is the one NaN, every
    /// other pattern `e` the power of two `2^(e - bias)` (an exponent field of 0 is
    /// normal: there are no subnormals). A positive value rounds to the nearest
    /// power, a tie up (`1.5 * 2^k` to `2^(k+1)`, as ml_dtypes); one under the least
    /// becomes the least. A zero, a negative value, an infinity, a NaN and a value
    /// that rounds past the largest become the NaN.
    UnsignedNoZero,
    /// No sign bit, otherwise as [`Specials::AllOnesNan`] ("fnu": float8_e5m3fnu): a
    /// zero and subnormals, no infinity, the all-ones pattern the one NaN. A negative
    /// value (any but a zero, which is +0: one that would round to zero too), an
    /// infinity and a value past the largest finite become the NaN.
    Unsigned,
    /// No infinity and no NaN: every pattern a number ("fn" of the OCP MX element
    /// formats: float4_e2m1fn, the float6s). A value past the largest finite and an infinity become
    /// the largest finite of their sign (they saturate); a NaN becomes a zero of the
    /// other sign (+NaN -0, -NaN +0: ml_dtypes' conversion, kept bit for bit).
    Finite,
}

impl FloatFormat {
    /// Total width in bits.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.signed() as u32 + self.exponent_bits + self.fraction_bits
    }

    /// True where the format has a sign bit (every format but an unsigned one,
    /// [`Specials::UnsignedNoZero`] and [`Specials::Unsigned`]).
    #[inline]
    pub const fn signed(self) -> bool {
        !matches!(self.specials, Specials::UnsignedNoZero | Specials::Unsigned)
    }

    /// The sign bit: the bit above the exponent (past the format's width where it has
    /// no sign).
    #[inline]
    pub(crate) const fn sign_bit(self) -> u64 {
        1 << (self.exponent_bits + self.fraction_bits)
    }

    /// The largest finite pattern (its magnitude bits; the sign clear).
    pub(crate) const fn max_bits(self) -> u64 {
        let all = self.sign_bit() - 1;
        match self.specials {
            Specials::Ieee => ((1 << self.exponent_bits) - 1) << self.fraction_bits,
            Specials::AllOnesNan => all,
            Specials::NegZeroNan | Specials::Finite => all + 1,
            Specials::UnsignedNoZero | Specials::Unsigned => all,
        }
        .wrapping_sub(1)
    }

    /// True for a NaN pattern (bits above the format's ignored).
    pub(crate) const fn is_nan(self, bits: u64) -> bool {
        let b = bits & ((self.sign_bit() << 1) - 1);
        let mag = b & (self.sign_bit() - 1);
        let inf = ((1 << self.exponent_bits) - 1) << self.fraction_bits;
        match self.specials {
            Specials::Ieee => mag > inf,
            Specials::AllOnesNan => mag == self.sign_bit() - 1,
            Specials::NegZeroNan => b == self.sign_bit(),
            Specials::UnsignedNoZero | Specials::Unsigned => mag == self.sign_bit() - 1,
            Specials::Finite => false,
        }
    }

    /// What a value past the largest finite of sign `neg` becomes (an infinity too):
    /// the infinity, or the format's NaN (an unsigned format's NaN for any negative
    /// value), or the largest finite of the sign where the format has neither.
    pub(crate) const fn overflow(self, neg: bool) -> u64 {
        let sign = if neg { self.sign_bit() } else { 0 };
        match self.specials {
            Specials::Ieee => sign | ((1 << self.exponent_bits) - 1) << self.fraction_bits,
            Specials::AllOnesNan => sign | (self.sign_bit() - 1),
            Specials::NegZeroNan => self.sign_bit(),
            Specials::UnsignedNoZero | Specials::Unsigned => self.sign_bit() - 1,
            Specials::Finite => sign | (self.sign_bit() - 1),
        }
    }

    /// The NaN of sign `neg` with the fraction `payload` (left-aligned to bit 63, the
    /// quiet bit set): IEEE's keeps the payload's high bits; the others have one NaN
    /// (of each sign for "fn"); a format without NaN gives a zero of the other sign
    /// ([`Specials::Finite`]).
    pub(crate) const fn nan(self, neg: bool, payload: u64) -> u64 {
        match self.specials {
            Specials::Ieee => {
                let m = self.fraction_bits;
                self.overflow(neg) | (1 << (m - 1)) | (payload >> (64 - m))
            }
            Specials::Finite => self.zero(!neg),
            _ => self.overflow(neg),
        }
    }

    /// A zero of sign `neg` (+0 where the format has no negative zero; the NaN where
    /// it has no zero).
    pub(crate) const fn zero(self, neg: bool) -> u64 {
        match self.specials {
            Specials::NegZeroNan | Specials::Unsigned => 0,
            Specials::UnsignedNoZero => self.sign_bit() - 1,
            _ if neg => self.sign_bit(),
            _ => 0,
        }
    }
}

/// The formats of the float dtypes.
pub(crate) const F16: FloatFormat = FloatFormat {
    exponent_bits: 5,
    fraction_bits: 10,
    bias: 15,
    specials: Specials::Ieee,
};
pub(crate) const BF16: FloatFormat = FloatFormat {
    exponent_bits: 8,
    fraction_bits: 7,
    bias: 127,
    specials: Specials::Ieee,
};
pub(crate) const E4M3: FloatFormat = FloatFormat {
    exponent_bits: 4,
    fraction_bits: 3,
    bias: 7,
    specials: Specials::AllOnesNan,
};
/// The IEEE-like float8 e4m3 (ml_dtypes' `float8_e4m3`).
pub(crate) const E4M3_IEEE: FloatFormat = FloatFormat {
    exponent_bits: 4,
    fraction_bits: 3,
    bias: 7,
    specials: Specials::Ieee,
};
pub(crate) const E3M4: FloatFormat = FloatFormat {
    exponent_bits: 3,
    fraction_bits: 4,
    bias: 3,
    specials: Specials::Ieee,
};
/// AMD's float8s (ml_dtypes' `float8_e4m3fnuz`, `float8_e5m2fnuz`) and Graphcore's
/// `float8_e4m3b11fnuz`: no infinity, no -0, NaN at 0x80.
pub(crate) const E4M3FNUZ: FloatFormat = FloatFormat {
    exponent_bits: 4,
    fraction_bits: 3,
    bias: 8,
    specials: Specials::NegZeroNan,
};
pub(crate) const E5M2FNUZ: FloatFormat = FloatFormat {
    exponent_bits: 5,
    fraction_bits: 2,
    bias: 16,
    specials: Specials::NegZeroNan,
};
pub(crate) const E4M3B11FNUZ: FloatFormat = FloatFormat {
    exponent_bits: 4,
    fraction_bits: 3,
    bias: 11,
    specials: Specials::NegZeroNan,
};
pub(crate) const E5M2: FloatFormat = FloatFormat {
    exponent_bits: 5,
    fraction_bits: 2,
    bias: 15,
    specials: Specials::Ieee,
};
/// The OCP MX formats' scale (ml_dtypes' `float8_e8m0fnu`): a power of two from
/// 2^-127 to 2^127, NaN at 0xff.
pub(crate) const E8M0: FloatFormat = FloatFormat {
    exponent_bits: 8,
    fraction_bits: 0,
    bias: 127,
    specials: Specials::UnsignedNoZero,
};
/// The OCP MX formats' FP4 (ml_dtypes' `float4_e2m1fn`, safetensors' `F4`): 0.5 (a
/// subnormal) to 6, no infinity, no NaN.
pub(crate) const E2M1: FloatFormat = FloatFormat {
    exponent_bits: 2,
    fraction_bits: 1,
    bias: 1,
    specials: Specials::Finite,
};
/// The OCP MX formats' FP6 E2M3 (ml_dtypes' `float6_e2m3fn`, safetensors' `F6_E2M3`):
/// 0.125 (a subnormal) to 7.5, no infinity, no NaN.
pub(crate) const E2M3: FloatFormat = FloatFormat {
    exponent_bits: 2,
    fraction_bits: 3,
    bias: 1,
    specials: Specials::Finite,
};
/// The OCP MX formats' FP6 E3M2 (ml_dtypes' `float6_e3m2fn`, safetensors' `F6_E3M2`):
/// 0.0625 (a subnormal) to 28, no infinity, no NaN.
pub(crate) const E3M2: FloatFormat = FloatFormat {
    exponent_bits: 3,
    fraction_bits: 2,
    bias: 3,
    specials: Specials::Finite,
};
/// ml_dtypes' `float8_e5m3fnu`: unsigned, 2^-17 (0x01, subnormal) to 114688 (0xfe), NaN
/// at 0xff.
pub(crate) const E5M3FNU: FloatFormat = FloatFormat {
    exponent_bits: 5,
    fraction_bits: 3,
    bias: 15,
    specials: Specials::Unsigned,
};
pub(crate) const F32: FloatFormat = FloatFormat {
    exponent_bits: 8,
    fraction_bits: 23,
    bias: 127,
    specials: Specials::Ieee,
};
pub(crate) const F64: FloatFormat = FloatFormat {
    exponent_bits: 11,
    fraction_bits: 52,
    bias: 1023,
    specials: Specials::Ieee,
};
