//! Rust types of elements: one a dtype, with their raw bits.
//!
//!  float16 and bfloat16
//! are `half`'s types; the float8 and 4-bit dtypes get small newtypes here.

use core::fmt;

use half::{bf16, f16};
use num_complex::Complex;

use super::convert::{bits_of_f64, convert_bits};
use super::table::DType;

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that holds one element of a dtype.
///
/// Implemented for `half::f16`, `half::bf16`, [`F8E4m3fn`], [`F8E5m2`], `f32`, `f64`,
/// [`I4`], [`U4`], `i8`, `u8`, `i16`, `u16`, `i32`, `u32`, `i64`, `u64`,
/// `Complex<f32>`, `Complex<f64>` and `bool`. Sealed: the table is closed.
///
/// ```
/// use nxrig::dtype::{Element, F8E4m3fn};
/// use nxrig::DType;
///
/// assert_eq!(<f32 as Element>::DTYPE, DType::Float32);
/// assert_eq!(F8E4m3fn::from_f64(1.8131605), F8E4m3fn(0x3f)); // one rounding, ties to even
/// assert_eq!(<i8 as Element>::from_f64(300.0), 127); // saturates
/// ```
pub trait Element: sealed::Sealed + Copy + Send + Sync + PartialEq + fmt::Debug + 'static {
    /// The dtype whose elements this type holds.
    const DTYPE: DType;
    /// The element's storage bits (a 4-bit value in the low nibble; a complex value's
    /// real bits low, imaginary bits above).
    fn to_bits(self) -> u128;
    /// The element of storage bits `bits`; bits above the dtype's width are ignored.
    fn from_bits(bits: u128) -> Self;
    /// The element nearest `x` as [`crate::dtype::convert_bits`] rounds: once, to
    /// nearest, ties to even; integers truncate and saturate.
    fn from_f64(x: f64) -> Self {
        Self::from_bits(bits_of_f64(Self::DTYPE, x))
    }
    /// The element as the nearest `f64` (a complex gives its real part).
    fn to_f64(self) -> f64 {
        f64::from_bits(convert_bits(Self::DTYPE, DType::Float64, self.to_bits()) as u64)
    }
}

macro_rules! prim {
    ($t:ty, $d:ident, $u:ty) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline]
            fn to_bits(self) -> u128 {
                <$u>::from_ne_bytes(self.to_ne_bytes()) as u128
            }
            #[inline]
            fn from_bits(bits: u128) -> Self {
                <$t>::from_ne_bytes((bits as $u).to_ne_bytes())
            }
        }
    };
}

prim!(f32, Float32, u32);
prim!(f64, Float64, u64);
prim!(i8, Int8, u8);
prim!(u8, Uint8, u8);
prim!(i16, Int16, u16);
prim!(u16, Uint16, u16);
prim!(i32, Int32, u32);
prim!(u32, Uint32, u32);
prim!(i64, Int64, u64);
prim!(u64, Uint64, u64);

impl sealed::Sealed for f16 {}
impl Element for f16 {
    const DTYPE: DType = DType::Float16;
    #[inline]
    fn to_bits(self) -> u128 {
        f16::to_bits(self) as u128
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        f16::from_bits(bits as u16)
    }
}

impl sealed::Sealed for bf16 {}
impl Element for bf16 {
    const DTYPE: DType = DType::Bfloat16;
    #[inline]
    fn to_bits(self) -> u128 {
        bf16::to_bits(self) as u128
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        bf16::from_bits(bits as u16)
    }
}

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline]
    fn to_bits(self) -> u128 {
        self as u128
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        bits & 0xff != 0
    }
}

impl sealed::Sealed for Complex<f32> {}
impl Element for Complex<f32> {
    const DTYPE: DType = DType::Complex64;
    #[inline]
    fn to_bits(self) -> u128 {
        self.re.to_bits() as u128 | (self.im.to_bits() as u128) << 32
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        Complex::new(
            f32::from_bits(bits as u32),
            f32::from_bits((bits >> 32) as u32),
        )
    }
}

impl sealed::Sealed for Complex<f64> {}
impl Element for Complex<f64> {
    const DTYPE: DType = DType::Complex128;
    #[inline]
    fn to_bits(self) -> u128 {
        self.re.to_bits() as u128 | (self.im.to_bits() as u128) << 64
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        Complex::new(
            f64::from_bits(bits as u64),
            f64::from_bits((bits >> 64) as u64),
        )
    }
}

macro_rules! byte_float {
    ($(#[$doc:meta])* $name:ident, $d:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(transparent)]
        pub struct $name(pub u8);

        impl $name {
            /// The element of bits `b`.
            #[inline]
            pub const fn from_byte(b: u8) -> Self {
                Self(b)
            }
            /// The element's bits.
            #[inline]
            pub const fn to_byte(self) -> u8 {
                self.0
            }
            /// `x` rounded once to nearest (ties to even; to the greater power for
            /// an unsigned format of powers of two).
            pub fn from_f32(x: f32) -> Self {
                Self(convert_bits(DType::Float32, DType::$d, x.to_bits() as u128) as u8)
            }
            /// The element's value, exactly.
            pub fn to_f32(self) -> f32 {
                f32::from_bits(convert_bits(DType::$d, DType::Float32, self.0 as u128) as u32)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:#04x} = {})", stringify!($name), self.0, self.to_f32())
            }
        }

        impl sealed::Sealed for $name {}
        impl Element for $name {
            const DTYPE: DType = DType::$d;
            #[inline]
            fn to_bits(self) -> u128 {
                self.0 as u128
            }
            #[inline]
            fn from_bits(bits: u128) -> Self {
                Self(bits as u8)
            }
        }
    };
}

byte_float!(
    /// A float8 e4m3 ("fn") element: bias 7, no infinity, NaN only at S.1111.111.
    F8E4m3fn,
    Float8E4m3fn
);
byte_float!(
    /// A float8 e5m2 element: bias 15, with infinities and NaNs.
    F8E5m2,
    Float8E5m2
);
byte_float!(
    /// A float8 e8m0fnu element (an OCP MX scale): the power of two 2^(b - 127) of its
    /// byte b, NaN at 0xff; no sign, no zero.
    ///
    /// ```
    /// use nxrig::dtype::F8E8m0fnu;
    /// assert_eq!(F8E8m0fnu::from_f32(1.0).to_byte(), 0x7f);
    /// assert_eq!(F8E8m0fnu::from_f32(3.0).to_f32(), 4.0); // a tie: up
    /// assert_eq!(F8E8m0fnu::from_byte(0).to_f32(), 2f32.powi(-127));
    /// assert!(F8E8m0fnu::from_f32(0.0).to_f32().is_nan()); // no zero
    /// ```
    F8E8m0fnu,
    Float8E8m0fnu
);

/// A signed 4-bit integer, -8 to 7.
///
/// ```
/// use nxrig::dtype::I4;
/// use nxrig::Array;
///
/// let a = Array::<I4>::of_array(&[3], &[I4::new(-8).unwrap(), I4::new(7).unwrap(), I4::new(-1).unwrap()])?;
/// assert_eq!(a.buffer().len(), 2); // packed two a byte
/// assert_eq!(a.get(&[2])?.get(), -1);
/// assert_eq!(I4::new(8), None); // outside -8..=7
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct I4(i8);

impl I4 {
    /// `v` as an int4, `None` outside -8..=7.
    pub const fn new(v: i8) -> Option<I4> {
        if v >= -8 && v <= 7 {
            Some(I4(v))
        } else {
            None
        }
    }
    /// The value.
    pub const fn get(self) -> i8 {
        self.0
    }
}

/// An unsigned 4-bit integer, 0 to 15.
///
/// ```
/// use nxrig::dtype::U4;
/// use nxrig::Array;
///
/// let a = Array::<U4>::of_array(&[2], &[U4::new(15).unwrap(), U4::new(1).unwrap()])?;
/// assert_eq!(a.any().to_bytes()?, [0x1f]); // the first element in the low nibble
/// assert_eq!(U4::new(16), None);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct U4(u8);

impl U4 {
    /// `v` as a uint4, `None` above 15.
    pub const fn new(v: u8) -> Option<U4> {
        if v <= 15 {
            Some(U4(v))
        } else {
            None
        }
    }
    /// The value.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl fmt::Debug for I4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "I4({})", self.0)
    }
}

impl fmt::Debug for U4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "U4({})", self.0)
    }
}

impl sealed::Sealed for I4 {}
impl Element for I4 {
    const DTYPE: DType = DType::Int4;
    #[inline]
    fn to_bits(self) -> u128 {
        (self.0 as u8 & 0xf) as u128
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        I4(((bits as u8) << 4) as i8 >> 4)
    }
}

impl sealed::Sealed for U4 {}
impl Element for U4 {
    const DTYPE: DType = DType::Uint4;
    #[inline]
    fn to_bits(self) -> u128 {
        self.0 as u128
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        U4(bits as u8 & 0xf)
    }
}
