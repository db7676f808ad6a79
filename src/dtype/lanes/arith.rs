//! The lanes' values under the elementwise operations besides the sum: `sub`, `mul`,
//! `div`, `maximum`, `minimum`, `neg`, `abs` and the comparisons (their loops, one a
//! dtype and operation, are in `arith_loops.rs`).
//! Floats natively (float16, bfloat16 and the float8s through float32: one correct
//! rounding for `- * /`, float32 having at least twice their precision plus two
//! bits), integers wrapping (division floors, as NumPy's `//`: `x // 0 = 0`), bool as
//! logic, complex by the textbook formulas with each real operation rounded. The NaN
//! rule is `add`'s: a NaN operand gives that NaN quieted (`x`'s first), a NaN made of
//! numbers (`inf - inf`, `0 * inf`, `0 / 0`) the positive quiet NaN.
//!
//! Which dtypes each operation takes is `arith_loops::takes`; an operation a dtype
//! does not take has no loop (`binary_run` says `None`).

use super::encode::{quiet32, quiet64};
use super::Lane;

/// The operations of two operands of one dtype, and of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Arith {
    /// `x - y`.
    Sub,
    /// `x * y`.
    Mul,
    /// `x / y` (integers: floor division).
    Div,
    /// The greater (NaN first, `+0` over `-0`).
    Maximum,
    /// The lesser (NaN first, `-0` under `+0`).
    Minimum,
    /// `-x` (`y` unread).
    Neg,
    /// `|x|` (`y` unread).
    Abs,
    /// `x == y`, into bool.
    Eq,
    /// `x != y`, into bool.
    Ne,
    /// `x < y`, into bool.
    Lt,
    /// `x <= y`, into bool.
    Le,
    /// `x > y`, into bool.
    Gt,
    /// `x >= y`, into bool.
    Ge,
}

/// A lane's values under negation and magnitude (every lane's, the narrow floats' on
/// their bits).
pub(super) trait Signs: Lane {
    fn neg(a: Self::T) -> Self::T;
    fn abs(a: Self::T) -> Self::T;
}

/// A lane's values under the other operations (the narrow floats have none: they
/// compute as float32, `narrow_body`).
pub(super) trait Ops: Signs {
    fn sub(a: Self::T, b: Self::T) -> Self::T;
    fn mul(a: Self::T, b: Self::T) -> Self::T;
    fn div(a: Self::T, b: Self::T) -> Self::T;
    fn maximum(a: Self::T, b: Self::T) -> Self::T;
    fn minimum(a: Self::T, b: Self::T) -> Self::T;
    fn eq(a: Self::T, b: Self::T) -> bool;
    fn lt(a: Self::T, b: Self::T) -> bool;
    fn le(a: Self::T, b: Self::T) -> bool;
}

/// `add`'s NaN rule around a float operation `$r` of `$x` and `$y`.
macro_rules! ruled {
    ($quiet:ident, $nan:expr, $x:ident, $y:ident, $r:expr) => {{
        let r = $r;
        if !r.is_nan() {
            r
        } else if $x.is_nan() {
            $quiet($x)
        } else if $y.is_nan() {
            $quiet($y)
        } else {
            $nan
        }
    }};
}

/// The float operations of one width (`f32`, `f64`), as free functions.
macro_rules! float_fns {
    ($m:ident, $t:ty, $bits:ty, $quiet:ident, $nan:expr) => {
        mod $m {
            use super::*;
            #[inline(always)]
            pub(super) fn add(x: $t, y: $t) -> $t {
                ruled!($quiet, $nan, x, y, x + y)
            }
            #[inline(always)]
            pub(super) fn sub(x: $t, y: $t) -> $t {
                ruled!($quiet, $nan, x, y, x - y)
            }
            #[inline(always)]
            pub(super) fn mul(x: $t, y: $t) -> $t {
                ruled!($quiet, $nan, x, y, x * y)
            }
            #[inline(always)]
            pub(super) fn div(x: $t, y: $t) -> $t {
                ruled!($quiet, $nan, x, y, x / y)
            }
            // The extrema as selects on bits, every one computed (so that the loops
            // vectorize): equal values (two zeros among them) by their bits' and (or),
            // then a NaN, `y`'s, then `x`'s, which wins.
            #[inline(always)]
            pub(super) fn maximum(x: $t, y: $t) -> $t {
                let (xb, yb) = (x.to_bits(), y.to_bits());
                let r = if x > y { xb } else { yb };
                let r = if x == y { xb & yb } else { r };
                let r = if y.is_nan() { $quiet(y).to_bits() } else { r };
                <$t>::from_bits(if x.is_nan() { $quiet(x).to_bits() } else { r })
            }
            #[inline(always)]
            pub(super) fn minimum(x: $t, y: $t) -> $t {
                let (xb, yb) = (x.to_bits(), y.to_bits());
                let r = if x < y { xb } else { yb };
                let r = if x == y { xb | yb } else { r };
                let r = if y.is_nan() { $quiet(y).to_bits() } else { r };
                <$t>::from_bits(if x.is_nan() { $quiet(x).to_bits() } else { r })
            }
        }
    };
}

float_fns!(f32s, f32, u32, quiet32, f32::from_bits(0x7fc0_0000));
float_fns!(
    f64s,
    f64,
    u64,
    quiet64,
    f64::from_bits(0x7ff8_0000_0000_0000)
);

/// The sign bit `$sign` of a float lane's bits flipped (`neg`) or cleared (`abs`).
macro_rules! float_signs {
    ($lane:ident, $sign:expr) => {
        impl Signs for super::$lane {
            #[inline(always)]
            fn neg(a: Self::T) -> Self::T {
                bits_of(sign_flip(a, $sign))
            }
            #[inline(always)]
            fn abs(a: Self::T) -> Self::T {
                bits_of(sign_clear(a, $sign))
            }
        }
    };
}

/// float32 or float64 computed by `$m` (`f32s`, `f64s`), its sign bit `$sign`.
macro_rules! float_ops {
    ($lane:ident, $m:ident, $sign:expr) => {
        float_signs!($lane, $sign);
        impl Ops for super::$lane {
            #[inline(always)]
            fn sub(a: Self::T, b: Self::T) -> Self::T {
                $m::sub(a, b)
            }
            #[inline(always)]
            fn mul(a: Self::T, b: Self::T) -> Self::T {
                $m::mul(a, b)
            }
            #[inline(always)]
            fn div(a: Self::T, b: Self::T) -> Self::T {
                $m::div(a, b)
            }
            #[inline(always)]
            fn maximum(a: Self::T, b: Self::T) -> Self::T {
                $m::maximum(a, b)
            }
            #[inline(always)]
            fn minimum(a: Self::T, b: Self::T) -> Self::T {
                $m::minimum(a, b)
            }
            #[inline(always)]
            fn eq(a: Self::T, b: Self::T) -> bool {
                a == b
            }
            #[inline(always)]
            fn lt(a: Self::T, b: Self::T) -> bool {
                a < b
            }
            #[inline(always)]
            fn le(a: Self::T, b: Self::T) -> bool {
                a <= b
            }
        }
    };
}

/// A value's sign bit flipped or cleared, on its bits (every value, NaNs too, as
/// NumPy's `-x` and `abs` on IEEE hardware).
trait Signed: Copy {
    type B: Copy
        + std::ops::BitXor<Output = Self::B>
        + std::ops::BitAnd<Output = Self::B>
        + std::ops::Not<Output = Self::B>;
    fn bits(self) -> Self::B;
    fn of(b: Self::B) -> Self;
}

macro_rules! signed_bits {
    ($t:ty, $b:ty, $to:expr, $of:expr) => {
        impl Signed for $t {
            type B = $b;
            #[inline(always)]
            fn bits(self) -> $b {
                $to(self)
            }
            #[inline(always)]
            fn of(b: $b) -> $t {
                $of(b)
            }
        }
    };
}

signed_bits!(u8, u8, |x| x, |b| b);
signed_bits!(u16, u16, |x| x, |b| b);
signed_bits!(f32, u32, f32::to_bits, f32::from_bits);
signed_bits!(f64, u64, f64::to_bits, f64::from_bits);

#[inline(always)]
fn sign_flip<S: Signed>(a: S, sign: S::B) -> S::B {
    a.bits() ^ sign
}

#[inline(always)]
fn sign_clear<S: Signed>(a: S, sign: S::B) -> S::B {
    a.bits() & !sign
}

#[inline(always)]
fn bits_of<S: Signed>(b: S::B) -> S {
    S::of(b)
}

float_signs!(Float16, 0x8000u16);
float_signs!(Bfloat16, 0x8000u16);
impl<const CODE: u8> Signs for super::kinds::Float8<CODE> {
    #[inline(always)]
    fn neg(a: u8) -> u8 {
        bits_of(sign_flip(a, 0x80u8))
    }
    #[inline(always)]
    fn abs(a: u8) -> u8 {
        bits_of(sign_clear(a, 0x80u8))
    }
}
float_ops!(Float32, f32s, 0x8000_0000u32);
float_ops!(Float64, f64s, 0x8000_0000_0000_0000u64);

/// An integer lane of `$t` (computed in `$t`), its results wrapped by `$wrap`.
macro_rules! int_ops {
    ($lane:ident, $t:ty, |$r:ident| $wrap:expr) => {
        impl Signs for super::$lane {
            #[inline(always)]
            fn neg(a: $t) -> $t {
                let $r = (0 as $t).wrapping_sub(a);
                $wrap
            }
            #[inline(always)]
            fn abs(a: $t) -> $t {
                let $r = if below_zero(a) {
                    (0 as $t).wrapping_sub(a)
                } else {
                    a
                };
                $wrap
            }
        }
        impl Ops for super::$lane {
            #[inline(always)]
            fn sub(a: $t, b: $t) -> $t {
                let $r = a.wrapping_sub(b);
                $wrap
            }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t {
                let $r = a.wrapping_mul(b);
                $wrap
            }
            #[inline(always)]
            fn div(a: $t, b: $t) -> $t {
                if b == 0 {
                    return 0;
                }
                let q = a.wrapping_div(b);
                // Floor: a truncated quotient of a remainder against the divisor's
                // sign is one too high.
                let $r = if a.wrapping_rem(b) != 0 && (below_zero(a) != below_zero(b)) {
                    q.wrapping_sub(1)
                } else {
                    q
                };
                $wrap
            }
            #[inline(always)]
            fn maximum(a: $t, b: $t) -> $t {
                a.max(b)
            }
            #[inline(always)]
            fn minimum(a: $t, b: $t) -> $t {
                a.min(b)
            }
            #[inline(always)]
            fn eq(a: $t, b: $t) -> bool {
                a == b
            }
            #[inline(always)]
            fn lt(a: $t, b: $t) -> bool {
                a < b
            }
            #[inline(always)]
            fn le(a: $t, b: $t) -> bool {
                a <= b
            }
        }
    };
}

/// `a < 0` (false for every unsigned value).
#[inline(always)]
fn below_zero<T: PartialOrd + Default>(a: T) -> bool {
    a < T::default()
}

int_ops!(Int4, i8, |r| (r << 4) >> 4);
int_ops!(Uint4, u8, |r| r & 15);
int_ops!(Int8, i8, |r| r);
int_ops!(Uint8, u8, |r| r);
int_ops!(Int16, i16, |r| r);
int_ops!(Uint16, u16, |r| r);
int_ops!(Int32, i32, |r| r);
int_ops!(Uint32, u32, |r| r);
int_ops!(Int64, i64, |r| r);
int_ops!(Uint64, u64, |r| r);

impl Signs for super::Bool {
    // Any nonzero byte is true; results are 0 or 1. `neg` is not taken by bool
    // (`binary_run`); it is given as the identity.
    #[inline(always)]
    fn neg(a: u8) -> u8 {
        (a != 0) as u8
    }
    #[inline(always)]
    fn abs(a: u8) -> u8 {
        (a != 0) as u8
    }
}

impl Ops for super::Bool {
    // `sub` and `div` are not taken by bool (`binary_run`); they are given as `xor`
    // and `and`.
    #[inline(always)]
    fn sub(a: u8, b: u8) -> u8 {
        ((a != 0) ^ (b != 0)) as u8
    }
    #[inline(always)]
    fn mul(a: u8, b: u8) -> u8 {
        (a != 0 && b != 0) as u8
    }
    #[inline(always)]
    fn div(a: u8, b: u8) -> u8 {
        Self::mul(a, b)
    }
    #[inline(always)]
    fn maximum(a: u8, b: u8) -> u8 {
        (a != 0 || b != 0) as u8
    }
    #[inline(always)]
    fn minimum(a: u8, b: u8) -> u8 {
        Self::mul(a, b)
    }
    #[inline(always)]
    fn eq(a: u8, b: u8) -> bool {
        (a != 0) == (b != 0)
    }
    #[inline(always)]
    fn lt(a: u8, b: u8) -> bool {
        a == 0 && b != 0
    }
    #[inline(always)]
    fn le(a: u8, b: u8) -> bool {
        a == 0 || b != 0
    }
}

/// A complex lane of parts computed by `$m`: `sub`, `mul`, `neg` and equality
/// (`binary_run` gives it no ordering, `div`, `abs`, `maximum` or `minimum`; those
/// are given here as the parts' own, unused).
macro_rules! complex_ops {
    ($lane:ident, $m:ident, $sign:expr) => {
        impl Signs for super::$lane {
            #[inline(always)]
            fn neg(a: Self::T) -> Self::T {
                [
                    bits_of(sign_flip(a[0], $sign)),
                    bits_of(sign_flip(a[1], $sign)),
                ]
            }
            #[inline(always)]
            fn abs(a: Self::T) -> Self::T {
                [
                    bits_of(sign_clear(a[0], $sign)),
                    bits_of(sign_clear(a[1], $sign)),
                ]
            }
        }
        impl Ops for super::$lane {
            #[inline(always)]
            fn sub(a: Self::T, b: Self::T) -> Self::T {
                [$m::sub(a[0], b[0]), $m::sub(a[1], b[1])]
            }
            #[inline(always)]
            fn mul(a: Self::T, b: Self::T) -> Self::T {
                [
                    $m::sub($m::mul(a[0], b[0]), $m::mul(a[1], b[1])),
                    $m::add($m::mul(a[0], b[1]), $m::mul(a[1], b[0])),
                ]
            }
            #[inline(always)]
            fn div(a: Self::T, b: Self::T) -> Self::T {
                [$m::div(a[0], b[0]), $m::div(a[1], b[1])]
            }
            #[inline(always)]
            fn maximum(a: Self::T, b: Self::T) -> Self::T {
                [$m::maximum(a[0], b[0]), $m::maximum(a[1], b[1])]
            }
            #[inline(always)]
            fn minimum(a: Self::T, b: Self::T) -> Self::T {
                [$m::minimum(a[0], b[0]), $m::minimum(a[1], b[1])]
            }
            #[inline(always)]
            fn eq(a: Self::T, b: Self::T) -> bool {
                a[0] == b[0] && a[1] == b[1]
            }
            #[inline(always)]
            fn lt(a: Self::T, b: Self::T) -> bool {
                a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])
            }
            #[inline(always)]
            fn le(a: Self::T, b: Self::T) -> bool {
                Self::lt(a, b) || Self::eq(a, b)
            }
        }
    };
}

complex_ops!(Complex64, f32s, 0x8000_0000u32);
complex_ops!(Complex128, f64s, 0x8000_0000_0000_0000u64);
