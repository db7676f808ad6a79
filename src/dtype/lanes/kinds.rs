//! The lanes: each dtype as a Rust type, with how a value of any other dtype
//! becomes one of its elements (rounded once) and how its elements become any other
//! dtype's (`put`). Floats into integers are clamped and converted unchecked;
//! narrow floats from float64 or wide integers go through float32 rounded to odd
//! (`encode.rs`).

use super::decode::{bf16_to_f32, f16_to_f32, minifloat_table};
use super::encode::*;
use super::{at, Lane};
use crate::dtype::fast::f32_to_narrow;
use crate::dtype::{DType, FloatFormat};

/// The target side of an integer dtype `$t`: floats truncate and saturate (NaN 0),
/// integers wrap. A float is clamped first (to `$lo..=$hi` for dtypes of 16 bits or
/// fewer; for the wide ones raised to `$lo`, and `MAX` from `$end` up) and converted
/// unchecked, which vectorizes (a saturating `as` does not).
macro_rules! int_target {
    ($t:ty, wide $lo:expr, $end:expr) => {
        #[inline(always)]
        fn from_f32(x: f32) -> $t {
            // wasm's saturating conversion is one vector instruction: `as` is it.
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            if x.is_nan() {
                0
            } else if x >= $end {
                <$t>::MAX
            } else {
                // SAFETY: `x` is a number inside the range of the integer (or below
                // it, then raised to its least).
                unsafe { x.max($lo).to_int_unchecked::<$t>() }
            }
        }
        #[inline(always)]
        fn from_f64(x: f64) -> $t {
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            if x.is_nan() {
                0
            } else if x >= $end {
                <$t>::MAX
            } else {
                // SAFETY: as above.
                unsafe { x.max($lo).to_int_unchecked::<$t>() }
            }
        }
        int_target!(@ints $t);
    };
    ($t:ty, $lo:expr, $hi:expr) => {
        #[inline(always)]
        fn from_f32(x: f32) -> $t {
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            {
                let c = if x.is_nan() { 0.0 } else { x.clamp($lo, $hi) };
                // SAFETY: `c` is finite and inside the range of i32.
                unsafe { c.to_int_unchecked::<i32>() as $t }
            }
        }
        #[inline(always)]
        fn from_f64(x: f64) -> $t {
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            {
                let c = if x.is_nan() { 0.0 } else { x.clamp($lo, $hi) };
                // SAFETY: `c` is finite and inside the range of i32.
                unsafe { c.to_int_unchecked::<i32>() as $t }
            }
        }
        int_target!(@ints $t);
    };
    (@ints $t:ty) => {
        #[inline(always)]
        fn from_i64(x: i64) -> $t {
            x as $t
        }
        #[inline(always)]
        fn from_u64(x: u64) -> $t {
            x as $t
        }
        #[inline(always)]
        fn from_i32(x: i32) -> $t {
            x as $t
        }
        #[inline(always)]
        fn from_small(x: i32) -> $t {
            x as $t
        }
    };
}

/// The target side of a narrow float whose float32 encoder is `$enc`.
macro_rules! narrow_target {
    ($t:ty, $enc:path) => {
        #[inline(always)]
        fn from_f32(x: f32) -> $t {
            $enc(x)
        }
        #[inline(always)]
        fn from_f64(x: f64) -> $t {
            $enc(odd_f32(x))
        }
        #[inline(always)]
        fn from_i64(x: i64) -> $t {
            $enc(odd_f32_of_i64(x))
        }
        #[inline(always)]
        fn from_u64(x: u64) -> $t {
            $enc(odd_f32_of_u64(x))
        }
        #[inline(always)]
        fn from_i32(x: i32) -> $t {
            $enc(odd_f32_of_i32(x))
        }
        #[inline(always)]
        fn from_small(x: i32) -> $t {
            $enc(x as f32)
        }
    };
}

macro_rules! lane {
    ($name:ident, $t:ty, $io:ident $(($($arg:expr),*))?, { $($body:tt)* }) => {
        #[doc = concat!("The ", stringify!($name), " lane.")]
        pub(crate) struct $name;
        impl Lane for $name {
            type T = $t;
            const DT: DType = DType::$name;
            $io!($($($arg),*)?);
            $($body)*
        }
    };
}

lane!(Float16, u16, bytes_io, {
    narrow_target!(u16, to_f16);
    #[inline(always)]
    fn put<D: Lane>(x: u16) -> D::T {
        D::from_f32(f16_to_f32(x))
    }
});
lane!(Bfloat16, u16, bytes_io, {
    narrow_target!(u16, to_bf16);
    #[inline(always)]
    fn put<D: Lane>(x: u16) -> D::T {
        D::from_f32(bf16_to_f32(x))
    }
});
/// A minifloat lane (a float of 8 bits, 6 or 4) of any format, that of the dtype of code
/// `CODE` in the table: its patterns read as float32 from a table built from the
/// format, float32 rounded into it by the encoder generic over the format (folded for
/// this one). A float8 or float6 loads and stores as bytes, a float4 as nibbles (low
/// first).
pub(crate) struct Minifloat<const CODE: u8>;

impl<const CODE: u8> Minifloat<CODE> {
    /// The dtype.
    const DTYPE: DType = match DType::of_code(CODE) {
        Some(d) => d,
        None => panic!("a dtype's code"),
    };
    /// Its format.
    pub(crate) const FORMAT: FloatFormat = match Self::DTYPE.float_format() {
        Some(f) if f.bits() <= 8 => f,
        _ => panic!("a float of 8 bits or fewer"),
    };
    /// Every pattern's float32 bits (a reference: one table in memory a format; a
    /// float4's 16 patterns repeat through it, the high nibble ignored).
    const DECODE: &'static [u32; 256] = &minifloat_table(Self::FORMAT);
    /// Whether it is a float4, two a byte (a float6 is held one a byte).
    const NIBBLES: bool = Self::DTYPE.bits() == 4;

    /// Bits as float32, exactly.
    #[inline(always)]
    pub(crate) fn decode(b: u8) -> f32 {
        f32::from_bits(Self::DECODE[b as usize])
    }

    /// float32 into the format's bits, rounded once.
    #[inline(always)]
    pub(crate) fn encode(x: f32) -> u8 {
        f32_to_narrow(x.to_bits(), Self::FORMAT) as u8
    }
}

/// The loads and stores of a whole-byte lane and of an unsigned nibble one, as
/// functions of their own (`io.rs`'s macros, expanded once each).
struct ByteIo;
impl ByteIo {
    bytes_io!(u8);
}
struct NibbleIo;
impl NibbleIo {
    nibble_io!(false, u8);
}

impl<const CODE: u8> Lane for Minifloat<CODE> {
    type T = u8;
    const DT: DType = Self::DTYPE;
    #[inline(always)]
    fn load(bytes: &[u8], pos: usize, stride: isize, out: &mut [u8]) {
        if Self::NIBBLES {
            NibbleIo::load(bytes, pos, stride, out)
        } else {
            ByteIo::load(bytes, pos, stride, out)
        }
    }
    #[inline(always)]
    fn store(bytes: &mut [u8], pos: usize, stride: isize, vals: &[u8]) {
        if Self::NIBBLES {
            NibbleIo::store(bytes, pos, stride, vals)
        } else {
            ByteIo::store(bytes, pos, stride, vals)
        }
    }
    narrow_target!(u8, Self::encode);
    #[inline(always)]
    fn put<D: Lane>(x: u8) -> D::T {
        D::from_f32(Self::decode(x))
    }
}

/// The lane of each minifloat dtype, named as its variant.
macro_rules! minifloat_lanes {
    ($($d:ident)*) => {
        $(
            #[doc = concat!("The ", stringify!($d), " lane.")]
            pub(crate) type $d = Minifloat<{ DType::$d.code() }>;
        )*
    };
}
crate::dtype::variants::minifloats!(minifloat_lanes!());
/// float32 and float64: `from_f32` and `from_f64` the functions that round (or quiet
/// a NaN) into `$t`, integers by `as` (rounded once), `put` through `D::$put`.
macro_rules! float_lane {
    ($name:ident, $t:ty, $f32:ident, $f64:ident, $put:ident) => {
        lane!($name, $t, bytes_io, {
            #[inline(always)]
            fn from_f32(x: f32) -> $t {
                $f32(x)
            }
            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                $f64(x)
            }
            #[inline(always)]
            fn from_i64(x: i64) -> $t {
                x as $t
            }
            #[inline(always)]
            fn from_u64(x: u64) -> $t {
                x as $t
            }
            #[inline(always)]
            fn from_i32(x: i32) -> $t {
                x as $t
            }
            #[inline(always)]
            fn from_small(x: i32) -> $t {
                x as $t
            }
            #[inline(always)]
            fn put<D: Lane>(x: $t) -> D::T {
                D::$put(x)
            }
        });
    };
}

float_lane!(Float32, f32, quiet32, f64_to_f32, from_f32);
float_lane!(Float64, f64, f32_to_f64, quiet64, from_f64);

/// The integers narrower than a byte (one a byte in registers): int4 and uint4 (`$io`
/// nibbles, two a byte in memory), int2, uint2, int1 and uint1 (one a byte in memory,
/// in its low bits) of `$bits` bits: floats clamped to `$lo..=$hi` and converted as the
/// byte lane `$byte` does, integers wrapped to the width ([`Lane::wrap`]: the dtype's
/// bits kept, sign-extended for the signed ones).
macro_rules! small_int_lane {
    ($name:ident, $t:ty, $io:ident($($arg:expr),*), $byte:ident, $lo:literal, $hi:literal, $bits:literal) => {
        lane!($name, $t, $io($($arg),*), {
            #[inline(always)]
            fn from_f32(x: f32) -> $t {
                $byte::from_f32(x.clamp($lo, $hi))
            }
            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                $byte::from_f64(x.clamp($lo, $hi))
            }
            #[inline(always)]
            fn from_i64(x: i64) -> $t {
                Self::wrap(x as $t)
            }
            #[inline(always)]
            fn from_u64(x: u64) -> $t {
                Self::wrap(x as $t)
            }
            #[inline(always)]
            fn from_small(x: i32) -> $t {
                Self::wrap(x as $t)
            }
            #[inline(always)]
            fn put<D: Lane>(x: $t) -> D::T {
                D::from_small(x as i32)
            }
            #[inline(always)]
            fn wrap(x: $t) -> $t {
                // A shift up and back: arithmetic (sign-extending) for i8, logical for u8.
                (x << (8 - $bits)) >> (8 - $bits)
            }
            #[inline(always)]
            fn stored(x: $t) -> $t {
                x & ((1 << $bits) - 1)
            }
        });
    };
}

small_int_lane!(Int4, i8, nibble_io(true), Int8, -8.0, 7.0, 4);
small_int_lane!(Uint4, u8, nibble_io(false), Uint8, 0.0, 15.0, 4);
small_int_lane!(Int2, i8, low_bits_io(true, 2), Int8, -2.0, 1.0, 2);
small_int_lane!(Uint2, u8, low_bits_io(false, 2), Uint8, 0.0, 3.0, 2);
small_int_lane!(Int1, i8, low_bits_io(true, 1), Int8, -1.0, 0.0, 1);
small_int_lane!(Uint1, u8, low_bits_io(false, 1), Uint8, 0.0, 1.0, 1);

macro_rules! int_lane {
    ($name:ident, $t:ty, $put:ident, $wide:ty, $($range:tt)*) => {
        lane!($name, $t, bytes_io, {
            int_target!($t, $($range)*);
            #[inline(always)]
            fn put<D: Lane>(x: $t) -> D::T { D::$put(x as $wide) }
        });
    };
}

int_lane!(Int8, i8, from_small, i32, -128.0, 127.0);
int_lane!(Uint8, u8, from_small, i32, 0.0, 255.0);
int_lane!(Int16, i16, from_small, i32, -32768.0, 32767.0);
int_lane!(Uint16, u16, from_small, i32, 0.0, 65535.0);
int_lane!(Int32, i32, from_i32, i32, wide - 2147483648.0, 2147483648.0);
int_lane!(Uint32, u32, from_i64, i64, wide 0.0, 4294967296.0);
int_lane!(
    Int64,
    i64,
    from_i64,
    i64,
    wide - 9223372036854775808.0,
    9223372036854775808.0
);
int_lane!(Uint64, u64, from_u64, u64, wide 0.0, 18446744073709551616.0);

/// A complex dtype of two parts of lane `$part` (Rust type `$c`, zero `$zero`): a real
/// value is its real part (the imaginary part +0), each part converted as `$part`
/// converts it; its element into another dtype as a complex64 or complex128 value
/// (`$put`, exact: the parts decoded by `$dec`).
macro_rules! complex_lane {
    ($name:ident, $c:ty, $zero:expr, $part:ident, $put:ident, $dec:expr) => {
        lane!($name, [$c; 2], bytes_io, {
            #[inline(always)]
            fn from_f32(x: f32) -> [$c; 2] {
                [$part::from_f32(x), $zero]
            }
            #[inline(always)]
            fn from_f64(x: f64) -> [$c; 2] {
                [$part::from_f64(x), $zero]
            }
            #[inline(always)]
            fn from_i64(x: i64) -> [$c; 2] {
                [$part::from_i64(x), $zero]
            }
            #[inline(always)]
            fn from_u64(x: u64) -> [$c; 2] {
                [$part::from_u64(x), $zero]
            }
            #[inline(always)]
            fn from_i32(x: i32) -> [$c; 2] {
                [$part::from_i32(x), $zero]
            }
            #[inline(always)]
            fn from_small(x: i32) -> [$c; 2] {
                [$part::from_small(x), $zero]
            }
            #[inline(always)]
            fn from_c64(re: f32, im: f32) -> [$c; 2] {
                [$part::from_f32(re), $part::from_f32(im)]
            }
            #[inline(always)]
            fn from_c128(re: f64, im: f64) -> [$c; 2] {
                [$part::from_f64(re), $part::from_f64(im)]
            }
            #[inline(always)]
            fn put<D: Lane>(x: [$c; 2]) -> D::T {
                D::$put($dec(x[0]), $dec(x[1]))
            }
        });
    };
}

complex_lane!(Complex64, f32, 0.0, Float32, from_c64, |x| x);
complex_lane!(Complex128, f64, 0.0, Float64, from_c128, |x| x);
complex_lane!(Complex32, u16, 0, Float16, from_c64, f16_to_f32);
complex_lane!(Bcomplex32, u16, 0, Bfloat16, from_c64, bf16_to_f32);
lane!(Bool, u8, bytes_io, {
    #[inline(always)]
    fn from_f32(x: f32) -> u8 {
        (x != 0.0) as u8
    }
    #[inline(always)]
    fn from_f64(x: f64) -> u8 {
        (x != 0.0) as u8
    }
    #[inline(always)]
    fn from_i64(x: i64) -> u8 {
        (x != 0) as u8
    }
    #[inline(always)]
    fn from_u64(x: u64) -> u8 {
        (x != 0) as u8
    }
    #[inline(always)]
    fn from_small(x: i32) -> u8 {
        (x != 0) as u8
    }
    #[inline(always)]
    fn from_c64(re: f32, im: f32) -> u8 {
        (re != 0.0 || im != 0.0) as u8
    }
    #[inline(always)]
    fn from_c128(re: f64, im: f64) -> u8 {
        (re != 0.0 || im != 0.0) as u8
    }
    #[inline(always)]
    fn put<D: Lane>(x: u8) -> D::T {
        D::from_small((x != 0) as i32)
    }
});
