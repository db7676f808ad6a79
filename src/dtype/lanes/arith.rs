//! Typed elementwise operations besides the sum, one loop a dtype and operation:
//! `sub`, `mul`, `div`, `maximum`, `minimum`, `neg`, `abs` and the comparisons.
//! Floats natively (float16, bfloat16 and the float8s through float32: one correct
//! rounding for `- * /`, float32 having at least twice their precision plus two
//! bits), integers wrapping (division floors, as NumPy's `//`: `x // 0 = 0`), bool as
//! logic, complex by the textbook formulas with each real operation rounded. The NaN
//! rule is `add`'s: a NaN operand gives that NaN quieted (`x`'s first), a NaN made of
//! numbers (`inf - inf`, `0 * inf`, `0 / 0`) the positive quiet NaN.
//!
//! Which dtypes each operation takes is the kernels' table (`kernels::ops`); an
//! operation a dtype does not take has no loop here (`binary_run` says `None`).

use super::encode::{quiet32, quiet64};
use super::{at, Lane, BLOCK};
use crate::dtype::DType;

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
trait Signs: Lane {
    fn neg(a: Self::T) -> Self::T;
    fn abs(a: Self::T) -> Self::T;
}

/// A lane's values under the other operations (the narrow floats have none: they
/// compute as float32, `narrow_body`).
trait Ops: Signs {
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
float_signs!(Float8E4m3, 0x80u8);
float_signs!(Float8E5m2, 0x80u8);
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

/// One operand of a run: its bytes, first position and stride (elements).
pub(crate) type Strided<'a> = (&'a [u8], usize, isize);

/// An operation over `n` elements: `x`, `y`, then the output's bytes, first position
/// and stride. The output is apart from both operands.
pub(crate) type BinRun = fn(Strided<'_>, Strided<'_>, &mut [u8], usize, isize, usize);

/// The result of one pair, as the output lane's value.
trait Apply<L: Lane> {
    type Out: Lane;
    fn apply(a: L::T, b: L::T) -> <Self::Out as Lane>::T;
}

macro_rules! same {
    ($($op:ident $f:ident),*) => {$(
        struct $op;
        impl<L: Ops> Apply<L> for $op {
            type Out = L;
            #[inline(always)]
            fn apply(a: L::T, b: L::T) -> L::T {
                L::$f(a, b)
            }
        }
    )*};
}

same!(SubOp sub, MulOp mul, DivOp div, MaxOp maximum, MinOp minimum);

macro_rules! unary {
    ($($op:ident $f:ident),*) => {$(
        struct $op;
        impl<L: Signs> Apply<L> for $op {
            type Out = L;
            #[inline(always)]
            fn apply(a: L::T, _b: L::T) -> L::T {
                L::$f(a)
            }
        }
    )*};
}

unary!(NegOp neg, AbsOp abs);

macro_rules! compare {
    ($($op:ident $f:ident),*) => {$(
        struct $op;
        impl<L: Ops> Apply<L> for $op {
            type Out = super::Bool;
            #[inline(always)]
            fn apply(a: L::T, b: L::T) -> u8 {
                $f::<L>(a, b) as u8
            }
        }
    )*};
}

#[inline(always)]
fn eq<L: Ops>(a: L::T, b: L::T) -> bool {
    L::eq(a, b)
}

#[inline(always)]
fn ne<L: Ops>(a: L::T, b: L::T) -> bool {
    !L::eq(a, b)
}

#[inline(always)]
fn lt<L: Ops>(a: L::T, b: L::T) -> bool {
    L::lt(a, b)
}

#[inline(always)]
fn le<L: Ops>(a: L::T, b: L::T) -> bool {
    L::le(a, b)
}

// `x > y` and `x >= y` are `lt` and `le` with the operands swapped (`swapped`).
compare!(EqOp eq, NeOp ne, LtOp lt, LeOp le);

// In wasm the blocks' loads, stores and narrow floats' conversions are out of line:
// one copy a lane, shared by every operation's loop (inlined into each, those of 19
// lanes and 13 operations added 450 KB to the module). Natively they are inlined
// into each instruction set's version of the loop.

/// A block of lane `L` from `o` (elements `done..` of its run).
#[cfg_attr(target_arch = "wasm32", inline(never))]
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn load_block<L: Lane>(o: Strided<'_>, done: usize, buf: &mut [L::T]) {
    L::load(o.0, at(o.1, o.2, done), o.2, buf);
}

/// A block of lane `L` into `d` (elements `done..` of its run).
#[cfg_attr(target_arch = "wasm32", inline(never))]
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn store_block<L: Lane>(d: &mut [u8], pos: usize, stride: isize, done: usize, vals: &[L::T]) {
    L::store(d, at(pos, stride, done), stride, vals);
}

/// A block of a narrow float lane `L` as float32 values (exact).
#[cfg_attr(target_arch = "wasm32", inline(never))]
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn decode_block<L: Lane>(raw: &[L::T], out: &mut [f32]) {
    for (o, &r) in out.iter_mut().zip(raw) {
        *o = L::put::<super::Float32>(r);
    }
}

/// float32 values rounded once into a narrow float lane `L`.
#[cfg_attr(target_arch = "wasm32", inline(never))]
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn encode_block<L: Lane>(vals: &[f32], out: &mut [L::T]) {
    for (o, &v) in out.iter_mut().zip(vals) {
        *o = L::from_f32(v);
    }
}

/// How a narrow float operation's results reach the output: float32 values rounded
/// once into the lane, bools as they are.
trait Back<L: Lane>: Lane {
    fn back(
        vals: &[Self::T],
        raw: &mut [L::T],
        d: &mut [u8],
        pos: usize,
        stride: isize,
        done: usize,
    );
}

impl<L: Lane> Back<L> for super::Float32 {
    #[inline(always)]
    fn back(vals: &[f32], raw: &mut [L::T], d: &mut [u8], pos: usize, stride: isize, done: usize) {
        encode_block::<L>(vals, raw);
        store_block::<L>(d, pos, stride, done, raw);
    }
}

impl<L: Lane> Back<L> for super::Bool {
    #[inline(always)]
    fn back(vals: &[u8], _raw: &mut [L::T], d: &mut [u8], pos: usize, stride: isize, done: usize) {
        store_block::<super::Bool>(d, pos, stride, done, vals);
    }
}

/// An operation of float32 whose results a narrow float lane `L` takes back.
trait NarrowOp<L: Lane>: Apply<super::Float32, Out = Self::To> {
    type To: Back<L>;
}

impl<L: Lane, O: Apply<super::Float32>> NarrowOp<L> for O
where
    O::Out: Back<L>,
{
    type To = O::Out;
}

/// Applies `O` (an operation of float32) to `n` elements of a narrow float lane `L`,
/// a block at a time: decoded into float32, computed, and (for float32 results)
/// rounded back once into `L`: the same bits as [`body`] of `L`'s own operations.
#[inline(always)]
fn narrow_body<L: Lane, O: NarrowOp<L>>(
    x: Strided<'_>,
    y: Strided<'_>,
    d: &mut [u8],
    d_pos: usize,
    d_stride: isize,
    n: usize,
) {
    let mut raw = [L::T::default(); BLOCK];
    let (mut xs, mut ys) = ([0f32; BLOCK], [0f32; BLOCK]);
    let mut os = [<O::To as Lane>::T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        load_block::<L>(x, done, &mut raw[..k]);
        decode_block::<L>(&raw[..k], &mut xs[..k]);
        load_block::<L>(y, done, &mut raw[..k]);
        decode_block::<L>(&raw[..k], &mut ys[..k]);
        for ((o, &a), &b) in os[..k].iter_mut().zip(&xs[..k]).zip(&ys[..k]) {
            *o = O::apply(a, b);
        }
        O::To::back(&os[..k], &mut raw[..k], d, d_pos, d_stride, done);
        done += k;
    }
}

/// Applies `O` to `n` elements, a block at a time.
#[inline(always)]
fn body<L: Lane, O: Apply<L>>(
    x: Strided<'_>,
    y: Strided<'_>,
    d: &mut [u8],
    d_pos: usize,
    d_stride: isize,
    n: usize,
) {
    // Contiguous, whole bytes, aligned: straight over typed slices.
    if let ((xb, xp, 1), (yb, yp, 1), 1) = (x, y, d_stride) {
        if !L::DT.is_sub_byte() {
            let (w, wo) = (
                std::mem::size_of::<L::T>(),
                std::mem::size_of::<<O::Out as Lane>::T>(),
            );
            let xv = bytemuck::try_cast_slice::<u8, L::T>(&xb[xp * w..(xp + n) * w]);
            let yv = bytemuck::try_cast_slice::<u8, L::T>(&yb[yp * w..(yp + n) * w]);
            let dv = bytemuck::try_cast_slice_mut::<u8, <O::Out as Lane>::T>(
                &mut d[d_pos * wo..(d_pos + n) * wo],
            );
            if let (Ok(xv), Ok(yv), Ok(dv)) = (xv, yv, dv) {
                for ((o, &a), &b) in dv.iter_mut().zip(xv).zip(yv) {
                    *o = O::apply(a, b);
                }
                return;
            }
        }
    }
    let mut xs = [L::T::default(); BLOCK];
    let mut ys = [L::T::default(); BLOCK];
    let mut os = [<O::Out as Lane>::T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        load_block::<L>(x, done, &mut xs[..k]);
        load_block::<L>(y, done, &mut ys[..k]);
        for ((o, &a), &b) in os[..k].iter_mut().zip(&xs[..k]).zip(&ys[..k]) {
            *o = O::apply(a, b);
        }
        store_block::<O::Out>(d, d_pos, d_stride, done, &os[..k]);
        done += k;
    }
}

super::tier::versions!(run -> BinRun = body<L: Lane, O: Apply<L>>(
    x: Strided<'_>, y: Strided<'_>, d: &mut [u8], d_pos: usize, d_stride: isize, n: usize
));

super::tier::versions!(narrow -> BinRun = narrow_body<L: Lane, O: NarrowOp<L>>(
    x: Strided<'_>, y: Strided<'_>, d: &mut [u8], d_pos: usize, d_stride: isize, n: usize
));

macro_rules! by_op {
    ($L:ty, $op:expr) => {
        match $op {
            Arith::Sub => run::<$L, SubOp>(),
            Arith::Mul => run::<$L, MulOp>(),
            Arith::Div => run::<$L, DivOp>(),
            Arith::Maximum => run::<$L, MaxOp>(),
            Arith::Minimum => run::<$L, MinOp>(),
            Arith::Neg => run::<$L, NegOp>(),
            Arith::Abs => run::<$L, AbsOp>(),
            Arith::Eq => run::<$L, EqOp>(),
            Arith::Ne => run::<$L, NeOp>(),
            Arith::Lt => run::<$L, LtOp>(),
            Arith::Le => run::<$L, LeOp>(),
            // Read with x and y swapped (`swapped`).
            Arith::Gt => run::<$L, LtOp>(),
            Arith::Ge => run::<$L, LeOp>(),
        }
    };
}

/// A narrow float lane's loops: through float32 ([`narrow_body`]) but for the sign
/// bit's `neg` and `abs`.
macro_rules! narrow_by_op {
    ($L:ty, $op:expr) => {
        match $op {
            Arith::Sub => narrow::<$L, SubOp>(),
            Arith::Mul => narrow::<$L, MulOp>(),
            Arith::Div => narrow::<$L, DivOp>(),
            Arith::Maximum => narrow::<$L, MaxOp>(),
            Arith::Minimum => narrow::<$L, MinOp>(),
            Arith::Neg => run::<$L, NegOp>(),
            Arith::Abs => run::<$L, AbsOp>(),
            Arith::Eq => narrow::<$L, EqOp>(),
            Arith::Ne => narrow::<$L, NeOp>(),
            // Read with x and y swapped (`swapped`).
            Arith::Lt | Arith::Gt => narrow::<$L, LtOp>(),
            Arith::Le | Arith::Ge => narrow::<$L, LeOp>(),
        }
    };
}

macro_rules! each {
    ($d:expr, $op:expr, narrow: $($N:ident)*; $($L:ident)*) => {
        match $d {
            $(DType::$N => narrow_by_op!(super::$N, $op),)*
            $(DType::$L => by_op!(super::$L, $op),)*
        }
    };
}

/// The loop of `op` over dtype `d` (its operands swapped where [`swapped`] says so),
/// or `None` where `d` does not take `op`: bool
/// has no `sub`, `div` or `neg`; complex no `div`, `maximum`, `minimum`, `abs` or
/// ordering.
pub(crate) fn binary_run(op: Arith, d: DType) -> Option<BinRun> {
    if !takes(op, d) {
        return None;
    }
    Some(
        each!(d, op, narrow: Float16 Bfloat16 Float8E4m3 Float8E5m2; Float32 Float64
        Int4 Uint4 Int8 Uint8 Int16 Uint16 Int32 Uint32 Int64 Uint64 Complex64 Complex128 Bool),
    )
}

/// Whether [`binary_run`]'s loop of `op` reads its operands swapped: `x > y` is
/// `y < x`, `x >= y` is `y <= x` (fewer loops in the wasm module).
pub(crate) fn swapped(op: Arith) -> bool {
    matches!(op, Arith::Gt | Arith::Ge)
}

/// Whether dtype `d` takes `op` (NumPy's rule, less complex division, extrema,
/// magnitude and ordering).
pub(crate) fn takes(op: Arith, d: DType) -> bool {
    use crate::dtype::Class;
    match d.class() {
        Class::Bool => !matches!(op, Arith::Sub | Arith::Div | Arith::Neg),
        Class::Complex => matches!(
            op,
            Arith::Sub | Arith::Mul | Arith::Neg | Arith::Eq | Arith::Ne
        ),
        _ => true,
    }
}
