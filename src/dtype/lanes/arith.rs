//! The helpers the operations' rows call in their host expressions
//! (`dtype/operations/rows.rs`): float32's and float64's arithmetic under `add`'s NaN rule
//! (a NaN operand gives that NaN quieted, `x`'s first; a NaN made of numbers, `inf -
//! inf`, `0 * inf`, `0 / 0`, the positive quiet NaN), the extrema (a NaN first, `-0`
//! below `+0`), and integer division that floors, as NumPy's `//` (`x // 0 = 0`).
//! Floats are computed natively (float16, bfloat16 and the float8s through float32:
//! one correct rounding for `- * /`, float32 having at least twice their precision
//! plus two bits).

use super::encode::{quiet32, quiet64};

/// float32 and float64, as the rows' float expressions see them.
pub(crate) trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    /// The raw bits.
    type Bits: Copy + std::ops::BitAnd<Output = Self::Bits> + std::ops::BitOr<Output = Self::Bits>;
    /// The positive quiet NaN.
    const NAN: Self;
    fn is_nan(self) -> bool;
    /// A NaN quieted (others as they are).
    fn quiet(self) -> Self;
    fn to_bits(self) -> Self::Bits;
    fn from_bits(b: Self::Bits) -> Self;
}

macro_rules! real {
    ($($t:ident $bits:ident $quiet:ident $nan:literal)*) => {$(
        impl Real for $t {
            type Bits = $bits;
            const NAN: $t = <$t>::from_bits($nan);
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn quiet(self) -> $t {
                $quiet(self)
            }
            #[inline(always)]
            fn to_bits(self) -> $bits {
                <$t>::to_bits(self)
            }
            #[inline(always)]
            fn from_bits(b: $bits) -> $t {
                <$t>::from_bits(b)
            }
        }
    )*};
}

real!(f32 u32 quiet32 0x7fc0_0000 f64 u64 quiet64 0x7ff8_0000_0000_0000);

/// `add`'s NaN rule around `r`, the result of an operation of `x` and `y`.
#[inline(always)]
fn ruled<F: Real>(x: F, y: F, r: F) -> F {
    if !r.is_nan() {
        r
    } else if x.is_nan() {
        x.quiet()
    } else if y.is_nan() {
        y.quiet()
    } else {
        F::NAN
    }
}

/// `x + y` under the NaN rule.
#[inline(always)]
pub(crate) fn sum<F: Real>(x: F, y: F) -> F {
    ruled(x, y, x + y)
}

/// `x - y` under the NaN rule.
#[inline(always)]
pub(crate) fn difference<F: Real>(x: F, y: F) -> F {
    ruled(x, y, x - y)
}

/// `x * y` under the NaN rule.
#[inline(always)]
pub(crate) fn product<F: Real>(x: F, y: F) -> F {
    ruled(x, y, x * y)
}

/// `x / y` under the NaN rule.
#[inline(always)]
pub(crate) fn quotient<F: Real>(x: F, y: F) -> F {
    ruled(x, y, x / y)
}

// The extrema as selects on bits, every one computed (so that the loops vectorize):
// equal values (two zeros among them) by their bits' and (or), then a NaN, `y`'s,
// then `x`'s, which wins.

/// The greater of `x` and `y` (a NaN first, `+0` over `-0`).
#[inline(always)]
pub(crate) fn maximum<F: Real>(x: F, y: F) -> F {
    let (xb, yb) = (x.to_bits(), y.to_bits());
    let r = if x > y { xb } else { yb };
    let r = if x == y { xb & yb } else { r };
    let r = if y.is_nan() { y.quiet().to_bits() } else { r };
    F::from_bits(if x.is_nan() { x.quiet().to_bits() } else { r })
}

/// The lesser of `x` and `y` (a NaN first, `-0` under `+0`).
#[inline(always)]
pub(crate) fn minimum<F: Real>(x: F, y: F) -> F {
    let (xb, yb) = (x.to_bits(), y.to_bits());
    let r = if x < y { xb } else { yb };
    let r = if x == y { xb | yb } else { r };
    let r = if y.is_nan() { y.quiet().to_bits() } else { r };
    F::from_bits(if x.is_nan() { x.quiet().to_bits() } else { r })
}

/// An integer type, as the rows' integer expressions see it.
pub(crate) trait Int: Copy + PartialOrd + Default {
    fn wrapping_div(self, b: Self) -> Self;
    fn wrapping_rem(self, b: Self) -> Self;
    /// `self - 1`, wrapping.
    fn less_one(self) -> Self;
}

macro_rules! int {
    ($($t:ty)*) => {$(
        impl Int for $t {
            #[inline(always)]
            fn wrapping_div(self, b: $t) -> $t {
                <$t>::wrapping_div(self, b)
            }
            #[inline(always)]
            fn wrapping_rem(self, b: $t) -> $t {
                <$t>::wrapping_rem(self, b)
            }
            #[inline(always)]
            fn less_one(self) -> $t {
                self.wrapping_sub(1)
            }
        }
    )*};
}

int!(i8 u8 i16 u16 i32 u32 i64 u64);

/// `a < 0` (false for every unsigned value).
#[inline(always)]
pub(crate) fn below_zero<T: PartialOrd + Default>(a: T) -> bool {
    a < T::default()
}

/// `x // y`, NumPy's floor division, wrapping (`x // 0` is 0, `MIN // -1` is `MIN`).
#[inline(always)]
pub(crate) fn floor_div<I: Int>(x: I, y: I) -> I {
    if y == I::default() {
        return I::default();
    }
    let q = x.wrapping_div(y);
    // Floor: a truncated quotient of a remainder against the divisor's sign is one
    // too high.
    if x.wrapping_rem(y) != I::default() && (below_zero(x) != below_zero(y)) {
        q.less_one()
    } else {
        q
    }
}
