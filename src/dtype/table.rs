//! The dtype table: the 19 element formats of the field and their facts.
//!
//! Widths are in bits (int4 and uint4 are 4, never a
//! 0-byte sentinel); alignment is in bytes.

use core::fmt;
use core::str::FromStr;

use crate::error::Error;

/// An element format: one of the 19 dtypes of the field.
///
/// The discriminant is nxrig's dtype code (`nx_dtype.h`'s `NX_DTYPE_*`), stable across
/// releases.
///
/// ```
/// use nxrig::DType;
/// let d: DType = "float8_e4m3fn".parse()?;
/// assert_eq!((d, d.bits(), d.align(), d.dlpack()), (DType::Float8E4m3, 8, 1, (10, 8)));
/// assert_eq!(DType::Int4.bytes(5)?, 3); // two a byte
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DType {
    /// IEEE binary16: 1 sign, 5 exponent, 10 fraction bits.
    Float16 = 0,
    /// bfloat16: 1 sign, 8 exponent, 7 fraction bits.
    Bfloat16 = 1,
    /// float8 e4m3 ("fn"): bias 7, no infinity, NaN only at S.1111.111, max 448.
    Float8E4m3 = 2,
    /// float8 e5m2: bias 15, IEEE-like with infinities and NaNs.
    Float8E5m2 = 3,
    /// IEEE binary32.
    Float32 = 4,
    /// IEEE binary64.
    Float64 = 5,
    /// Signed 4-bit integer, two a byte, low nibble first.
    Int4 = 6,
    /// Unsigned 4-bit integer, two a byte, low nibble first.
    Uint4 = 7,
    /// Signed 8-bit integer.
    Int8 = 8,
    /// Unsigned 8-bit integer.
    Uint8 = 9,
    /// Signed 16-bit integer.
    Int16 = 10,
    /// Unsigned 16-bit integer.
    Uint16 = 11,
    /// Signed 32-bit integer.
    Int32 = 12,
    /// Unsigned 32-bit integer.
    Uint32 = 13,
    /// Signed 64-bit integer.
    Int64 = 14,
    /// Unsigned 64-bit integer.
    Uint64 = 15,
    /// Two float32: real, then imaginary.
    Complex64 = 16,
    /// Two float64: real, then imaginary.
    Complex128 = 17,
    /// One byte, 0 or 1.
    Bool = 18,
}

/// What kind of number a dtype holds, which decides how it converts.
///
/// ```
/// use nxrig::dtype::Class;
/// use nxrig::DType;
///
/// assert_eq!(DType::Bfloat16.class(), Class::Float);
/// assert_eq!(DType::Int4.class(), Class::Signed);
/// assert_eq!(DType::Complex64.class(), Class::Complex);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A binary floating-point format.
    Float,
    /// A two's complement signed integer.
    Signed,
    /// An unsigned integer.
    Unsigned,
    /// A pair of floats.
    Complex,
    /// A truth value.
    Bool,
}

/// The bit layout of a binary floating-point format.
///
/// ```
/// use nxrig::DType;
///
/// let e4m3 = DType::Float8E4m3.float_format().unwrap();
/// assert_eq!((e4m3.exponent_bits, e4m3.fraction_bits, e4m3.bias, e4m3.ieee), (4, 3, 7, false));
/// assert!(DType::Float16.float_format().unwrap().ieee);
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
    /// Whether the all-ones exponent means infinity and NaN (IEEE). When false (the
    /// float8 e4m3 "fn" variant) only the all-ones pattern is NaN and there is no
    /// infinity.
    pub ieee: bool,
}

impl FloatFormat {
    /// Total width in bits.
    #[inline]
    pub const fn bits(self) -> u32 {
        1 + self.exponent_bits + self.fraction_bits
    }
}

/// The formats of the float dtypes.
pub(crate) const F16: FloatFormat = FloatFormat {
    exponent_bits: 5,
    fraction_bits: 10,
    bias: 15,
    ieee: true,
};
pub(crate) const BF16: FloatFormat = FloatFormat {
    exponent_bits: 8,
    fraction_bits: 7,
    bias: 127,
    ieee: true,
};
pub(crate) const E4M3: FloatFormat = FloatFormat {
    exponent_bits: 4,
    fraction_bits: 3,
    bias: 7,
    ieee: false,
};
pub(crate) const E5M2: FloatFormat = FloatFormat {
    exponent_bits: 5,
    fraction_bits: 2,
    bias: 15,
    ieee: true,
};
pub(crate) const F32: FloatFormat = FloatFormat {
    exponent_bits: 8,
    fraction_bits: 23,
    bias: 127,
    ieee: true,
};
pub(crate) const F64: FloatFormat = FloatFormat {
    exponent_bits: 11,
    fraction_bits: 52,
    bias: 1023,
    ieee: true,
};

/// DLPack's type codes (`DLDataTypeCode`) for the dtypes that DLPack has.
pub mod dlpack {
    /// `kDLInt`.
    pub const INT: u8 = 0;
    /// `kDLUInt`.
    pub const UINT: u8 = 1;
    /// `kDLFloat`.
    pub const FLOAT: u8 = 2;
    /// `kDLBfloat`.
    pub const BFLOAT: u8 = 4;
    /// `kDLComplex`.
    pub const COMPLEX: u8 = 5;
    /// `kDLBool`.
    pub const BOOL: u8 = 6;
    /// `kDLFloat8_e4m3fn`.
    pub const FLOAT8_E4M3FN: u8 = 10;
    /// `kDLFloat8_e5m2`.
    pub const FLOAT8_E5M2: u8 = 12;
}

impl DType {
    /// Every dtype, in code order.
    pub const ALL: [DType; 19] = [
        DType::Float16,
        DType::Bfloat16,
        DType::Float8E4m3,
        DType::Float8E5m2,
        DType::Float32,
        DType::Float64,
        DType::Int4,
        DType::Uint4,
        DType::Int8,
        DType::Uint8,
        DType::Int16,
        DType::Uint16,
        DType::Int32,
        DType::Uint32,
        DType::Int64,
        DType::Uint64,
        DType::Complex64,
        DType::Complex128,
        DType::Bool,
    ];

    /// nxrig's code for the dtype: its index in [`DType::ALL`], `NX_DTYPE_*` in C.
    #[inline]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The dtype of `code`, or `None` for a code of no dtype.
    pub const fn of_code(code: u8) -> Option<DType> {
        if (code as usize) < Self::ALL.len() {
            Some(Self::ALL[code as usize])
        } else {
            None
        }
    }

    /// The dtype's name: `"float16"`, `"bfloat16"`, `"float8_e4m3"`, ..., `"bool"`.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Float16 => "float16",
            DType::Bfloat16 => "bfloat16",
            DType::Float8E4m3 => "float8_e4m3",
            DType::Float8E5m2 => "float8_e5m2",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Int4 => "int4",
            DType::Uint4 => "uint4",
            DType::Int8 => "int8",
            DType::Uint8 => "uint8",
            DType::Int16 => "int16",
            DType::Uint16 => "uint16",
            DType::Int32 => "int32",
            DType::Uint32 => "uint32",
            DType::Int64 => "int64",
            DType::Uint64 => "uint64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
            DType::Bool => "bool",
        }
    }

    /// Width of one element in bits: 4 for int4 and uint4, 8 for bool.
    pub const fn bits(self) -> u32 {
        match self {
            DType::Int4 | DType::Uint4 => 4,
            DType::Float8E4m3 | DType::Float8E5m2 | DType::Int8 | DType::Uint8 | DType::Bool => 8,
            DType::Float16 | DType::Bfloat16 | DType::Int16 | DType::Uint16 => 16,
            DType::Float32 | DType::Int32 | DType::Uint32 => 32,
            DType::Float64 | DType::Int64 | DType::Uint64 | DType::Complex64 => 64,
            DType::Complex128 => 128,
        }
    }

    /// Alignment in bytes of an element's storage: its width for dtypes of a byte or
    /// more, 1 for sub-byte dtypes, one component's width for complex dtypes.
    pub const fn align(self) -> usize {
        match self {
            DType::Int4 | DType::Uint4 => 1,
            DType::Complex64 => 4,
            DType::Complex128 => 8,
            d => (d.bits() / 8) as usize,
        }
    }

    /// Bytes that `n` elements occupy, packed: `ceil(n * bits / 8)`.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the byte count overflows `usize`. The bit count is
    /// reckoned in 128-bit arithmetic, so on wasm32 every byte count below 4 GiB is
    /// found (a 32-bit bit count would overflow from 512 MiB).
    pub fn bytes(self, n: usize) -> Result<usize, Error> {
        let bits = n as u128 * self.bits() as u128;
        usize::try_from(bits.div_ceil(8)).map_err(|_| Error::TooLarge {
            op: "DType::bytes",
            what: "byte count",
            dtype: self.name(),
        })
    }

    /// Bytes of one element's storage in a byte-addressed record: 1 for sub-byte dtypes.
    #[inline]
    pub const fn storage_bytes(self) -> usize {
        let b = self.bits() as usize;
        if b < 8 {
            1
        } else {
            b / 8
        }
    }

    /// True for int4 and uint4, whose elements are narrower than a byte.
    #[inline]
    pub const fn is_sub_byte(self) -> bool {
        self.bits() < 8
    }

    /// What kind of number the dtype holds.
    pub const fn class(self) -> Class {
        match self {
            DType::Float16
            | DType::Bfloat16
            | DType::Float8E4m3
            | DType::Float8E5m2
            | DType::Float32
            | DType::Float64 => Class::Float,
            DType::Int4 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => Class::Signed,
            DType::Uint4 | DType::Uint8 | DType::Uint16 | DType::Uint32 | DType::Uint64 => {
                Class::Unsigned
            }
            DType::Complex64 | DType::Complex128 => Class::Complex,
            DType::Bool => Class::Bool,
        }
    }

    /// True for the float dtypes (not complex).
    #[inline]
    pub const fn is_float(self) -> bool {
        matches!(self.class(), Class::Float)
    }

    /// The bit layout of a float dtype, or of one component of a complex dtype.
    pub const fn float_format(self) -> Option<FloatFormat> {
        match self {
            DType::Float16 => Some(F16),
            DType::Bfloat16 => Some(BF16),
            DType::Float8E4m3 => Some(E4M3),
            DType::Float8E5m2 => Some(E5M2),
            DType::Float32 | DType::Complex64 => Some(F32),
            DType::Float64 | DType::Complex128 => Some(F64),
            _ => None,
        }
    }

    /// DLPack's `(code, bits)` for the dtype (`DLDataType` with one lane).
    pub const fn dlpack(self) -> (u8, u8) {
        let code = match self.class() {
            Class::Signed => dlpack::INT,
            Class::Unsigned => dlpack::UINT,
            Class::Complex => dlpack::COMPLEX,
            Class::Bool => dlpack::BOOL,
            Class::Float => match self {
                DType::Bfloat16 => dlpack::BFLOAT,
                DType::Float8E4m3 => dlpack::FLOAT8_E4M3FN,
                DType::Float8E5m2 => dlpack::FLOAT8_E5M2,
                _ => dlpack::FLOAT,
            },
        };
        (code, self.bits() as u8)
    }

    /// The least value the dtype holds: `-max` for floats (the largest finite
    /// magnitude, negated), the integer minimum, 0 for bool. Complex dtypes give their
    /// component's.
    pub fn min_value(self) -> Scalar {
        match self.class() {
            Class::Signed => Scalar::Int(-(1i128 << (self.bits() - 1))),
            Class::Unsigned | Class::Bool => Scalar::Int(0),
            Class::Float | Class::Complex => Scalar::Float(-self.max_finite()),
        }
    }

    /// The greatest value the dtype holds: the largest finite float (448 for
    /// float8_e4m3), the integer maximum, 1 for bool.
    pub fn max_value(self) -> Scalar {
        match self.class() {
            Class::Signed => Scalar::Int((1i128 << (self.bits() - 1)) - 1),
            Class::Unsigned => Scalar::Int((1i128 << self.bits()) - 1),
            Class::Bool => Scalar::Int(1),
            Class::Float | Class::Complex => Scalar::Float(self.max_finite()),
        }
    }

    fn max_finite(self) -> f64 {
        let f = self.float_format().expect("float or complex dtype");
        let emax = if f.ieee {
            (1 << f.exponent_bits) - 2 - f.bias
        } else {
            (1 << f.exponent_bits) - 1 - f.bias
        };
        // e4m3fn's top exponent keeps mantissas 000..110 as numbers.
        let frac_max = if f.ieee {
            (1u64 << f.fraction_bits) - 1
        } else {
            (1u64 << f.fraction_bits) - 2
        };
        let m = (1u64 << f.fraction_bits) + frac_max;
        (m as f64) * 2f64.powi(emax - f.fraction_bits as i32)
    }
}

/// A dtype's bound: an exact integer or a float.
///
/// ```
/// use nxrig::dtype::Scalar;
/// use nxrig::DType;
///
/// assert_eq!(DType::Float8E4m3.max_value(), Scalar::Float(448.0));
/// assert_eq!(DType::Int4.min_value(), Scalar::Int(-8));
/// assert_eq!(DType::Bool.max_value(), Scalar::Int(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An integer bound (fits every integer dtype's range).
    Int(i128),
    /// A float bound.
    Float(f64),
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = Error;

    /// Parses a dtype's name (`"bfloat16"`), or a common alias: NumPy/ml_dtypes names
    /// (`"float8_e4m3fn"`, `"bool_"`), short names (`"f16"`, `"bf16"`, `"f32"`, `"i8"`,
    /// `"u8"`, `"c64"`) and safetensors codes (`"F16"`, `"BF16"`, `"F8_E4M3"`).
    ///
    /// # Errors
    /// [`Error::UnknownDtype`] for any other string.
    fn from_str(s: &str) -> Result<Self, Error> {
        let lower = s.to_ascii_lowercase();
        let d = match lower.as_str() {
            "float16" | "f16" | "half" => DType::Float16,
            "bfloat16" | "bf16" => DType::Bfloat16,
            "float8_e4m3" | "float8_e4m3fn" | "f8_e4m3" | "f8e4m3" | "e4m3" => DType::Float8E4m3,
            "float8_e5m2" | "f8_e5m2" | "f8e5m2" | "e5m2" => DType::Float8E5m2,
            "float32" | "f32" | "float" => DType::Float32,
            "float64" | "f64" | "double" => DType::Float64,
            "int4" | "i4" => DType::Int4,
            "uint4" | "u4" => DType::Uint4,
            "int8" | "i8" => DType::Int8,
            "uint8" | "u8" => DType::Uint8,
            "int16" | "i16" => DType::Int16,
            "uint16" | "u16" => DType::Uint16,
            "int32" | "i32" => DType::Int32,
            "uint32" | "u32" => DType::Uint32,
            "int64" | "i64" => DType::Int64,
            "uint64" | "u64" => DType::Uint64,
            "complex64" | "c64" => DType::Complex64,
            "complex128" | "c128" => DType::Complex128,
            "bool" | "bool_" => DType::Bool,
            _ => return Err(Error::UnknownDtype { name: s.to_owned() }),
        };
        Ok(d)
    }
}
