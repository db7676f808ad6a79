//! Typed sums, one loop a dtype: floats natively (float16, bfloat16 and the float8s
//! through float32, one correct rounding for them since float32 has at least twice
//! their precision plus two bits), integers wrapping, bool as or, complex per part.
//! The NaN rule is docs/numerics.md's on every device, fixed up without a branch per
//! element: a NaN operand gives that NaN quieted (`x`'s first), infinities of
//! opposite signs the positive quiet NaN (where x86 would give a negative one).

use super::decode::{bf16_to_f32, f16_to_f32};
use super::encode::{quiet32, quiet64, to_bf16, to_f16};
use super::kinds::Minifloat;
use super::{at, Lane, BLOCK};
use crate::dtype::{DType, Specials};

/// A lane that adds.
pub(crate) trait Sum: Lane + Sized {
    /// `a + b`, as `add` defines it.
    fn add(a: Self::T, b: Self::T) -> Self::T;
    /// `a + b` as the hardware gives it: equal to [`Sum::add`] wherever the result is
    /// not [`Sum::unruly`].
    #[inline(always)]
    fn plain(a: Self::T, b: Self::T) -> Self::T {
        Self::add(a, b)
    }
    /// [`Sum::plain`] of each element of `xs` and `ys` (one length) into `o`;
    /// whether any was [`Sum::unruly`].
    #[inline(always)]
    fn plain_run(o: &mut [Self::T], xs: &[Self::T], ys: &[Self::T]) -> bool {
        plain::<Self>(o, xs, ys)
    }
    /// Whether a plain sum may differ from [`Sum::add`] (a NaN, whose bits `add`
    /// fixes up).
    #[inline(always)]
    fn unruly(_r: Self::T) -> bool {
        false
    }
}

#[inline(always)]
fn add32(x: f32, y: f32) -> f32 {
    let r = x + y;
    let nan = if x.is_nan() {
        quiet32(x)
    } else if y.is_nan() {
        quiet32(y)
    } else {
        f32::from_bits(0x7fc0_0000)
    };
    if r.is_nan() {
        nan
    } else {
        r
    }
}

#[inline(always)]
fn add64(x: f64, y: f64) -> f64 {
    let r = x + y;
    let nan = if x.is_nan() {
        quiet64(x)
    } else if y.is_nan() {
        quiet64(y)
    } else {
        f64::from_bits(0x7ff8_0000_0000_0000)
    };
    if r.is_nan() {
        nan
    } else {
        r
    }
}

macro_rules! sum {
    ($lane:ident, |$a:ident, $b:ident| $e:expr) => {
        impl Sum for super::$lane {
            #[inline(always)]
            fn add($a: Self::T, $b: Self::T) -> Self::T {
                $e
            }
        }
    };
}

/// A narrow float lane, summed through float32: its plain sum the hardware's float32
/// sum rounded once into the lane (a NaN there only where some operand or sum was
/// one), the NaN rule's fix-up left to the rare blocks whose sums hold a NaN.
macro_rules! narrow_sum {
    ($lane:ident, $dec:ident, $enc:ident, |$r:ident| $nan:expr) => {
        impl Sum for super::$lane {
            #[inline(always)]
            fn add(a: Self::T, b: Self::T) -> Self::T {
                $enc(add32($dec(a), $dec(b)))
            }
            #[inline(always)]
            fn plain(a: Self::T, b: Self::T) -> Self::T {
                $enc($dec(a) + $dec(b))
            }
            #[inline(always)]
            fn unruly($r: Self::T) -> bool {
                $nan
            }
        }
    };
}

narrow_sum!(Float16, f16_to_f32, to_f16, |r| r & 0x7fff > 0x7c00);
narrow_sum!(Bfloat16, bf16_to_f32, to_bf16, |r| r & 0x7fff > 0x7f80);
/// The float8s: as [`narrow_sum`]'s where the format has infinities. One without
/// (float8_e4m3fn, the "fnuz" ones) makes a sum past its largest finite its NaN,
/// common enough (with e4m3fn, two operands over 232) that a block holding one, summed
/// twice, made the add 13% slower in wasm on such data (4 M elements in Node): it sums
/// by the rule throughout.
impl<const CODE: u8> Sum for Minifloat<CODE> {
    #[inline(always)]
    fn add(a: u8, b: u8) -> u8 {
        Self::encode(add32(Self::decode(a), Self::decode(b)))
    }
    #[inline(always)]
    fn plain(a: u8, b: u8) -> u8 {
        if matches!(Self::FORMAT.specials, Specials::Ieee) {
            Self::encode(Self::decode(a) + Self::decode(b))
        } else {
            Self::add(a, b)
        }
    }
    #[inline(always)]
    fn unruly(r: u8) -> bool {
        // A NaN (where the plain sum is the hardware's: IEEE's formats).
        let f = Self::FORMAT;
        matches!(f.specials, Specials::Ieee) && f.is_nan(r as u64)
    }
}
/// A float lane whose plain sum is the hardware's, fixed up only in the rare blocks
/// that hold a NaN.
macro_rules! float_sum {
    ($lane:ident, $full:ident, $nan:expr, $wasm:ident) => {
        impl Sum for super::$lane {
            #[inline(always)]
            fn add(a: Self::T, b: Self::T) -> Self::T {
                $full(a, b)
            }
            #[inline(always)]
            fn plain(a: Self::T, b: Self::T) -> Self::T {
                a + b
            }
            #[inline(always)]
            fn unruly(r: Self::T) -> bool {
                $nan(r)
            }
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            #[inline(always)]
            fn plain_run(o: &mut [Self::T], xs: &[Self::T], ys: &[Self::T]) -> bool {
                super::wasm_sum::$wasm(o, xs, ys)
            }
        }
    };
}

float_sum!(Float32, add32, |r: f32| r.is_nan(), f32s);
float_sum!(Float64, add64, |r: f64| r.is_nan(), f64s);
sum!(Int4, |a, b| Self::wrap(a.wrapping_add(b)));
sum!(Uint4, |a, b| Self::wrap(a.wrapping_add(b)));
sum!(Int2, |a, b| Self::wrap(a.wrapping_add(b)));
sum!(Uint2, |a, b| Self::wrap(a.wrapping_add(b)));
sum!(Int1, |a, b| Self::wrap(a.wrapping_add(b)));
sum!(Uint1, |a, b| Self::wrap(a.wrapping_add(b)));
/// An integer lane, whose sum wraps (in wasm four simd128 vectors a step).
macro_rules! int_sum {
    ($($lane:ident $wasm:ident)*) => {$(
        impl Sum for super::$lane {
            #[inline(always)]
            fn add(a: Self::T, b: Self::T) -> Self::T {
                a.wrapping_add(b)
            }
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            #[inline(always)]
            fn plain_run(o: &mut [Self::T], xs: &[Self::T], ys: &[Self::T]) -> bool {
                super::wasm_sum::$wasm(o, xs, ys)
            }
        }
    )*};
}

int_sum!(Int8 i8s Uint8 u8s Int16 i16s Uint16 u16s Int32 i32s Uint32 u32s Int64 i64s Uint64 u64s);
/// A complex lane, summed per part: its plain sum the hardware's, fixed up only in
/// blocks where some part of some sum is a NaN (in wasm by the part's own loop).
macro_rules! complex_sum {
    ($lane:ident, $full:ident, $wasm:ident) => {
        impl Sum for super::$lane {
            #[inline(always)]
            fn add(a: Self::T, b: Self::T) -> Self::T {
                [$full(a[0], b[0]), $full(a[1], b[1])]
            }
            #[inline(always)]
            fn plain(a: Self::T, b: Self::T) -> Self::T {
                [a[0] + b[0], a[1] + b[1]]
            }
            #[inline(always)]
            fn unruly(r: Self::T) -> bool {
                r[0].is_nan() | r[1].is_nan()
            }
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            #[inline(always)]
            fn plain_run(o: &mut [Self::T], xs: &[Self::T], ys: &[Self::T]) -> bool {
                super::wasm_sum::$wasm(
                    bytemuck::cast_slice_mut(o),
                    bytemuck::cast_slice(xs),
                    bytemuck::cast_slice(ys),
                )
            }
        }
    };
}

complex_sum!(Complex64, add32, f32s);
complex_sum!(Complex128, add64, f64s);
/// complex32 and bcomplex32: each part summed as its float lane sums.
macro_rules! narrow_complex_sum {
    ($($lane:ident $part:ident)*) => {$(
        impl Sum for super::$lane {
            #[inline(always)]
            fn add(a: Self::T, b: Self::T) -> Self::T {
                [super::$part::add(a[0], b[0]), super::$part::add(a[1], b[1])]
            }
            #[inline(always)]
            fn plain(a: Self::T, b: Self::T) -> Self::T {
                [super::$part::plain(a[0], b[0]), super::$part::plain(a[1], b[1])]
            }
            #[inline(always)]
            fn unruly(r: Self::T) -> bool {
                super::$part::unruly(r[0]) | super::$part::unruly(r[1])
            }
        }
    )*};
}

narrow_complex_sum!(Complex32 Float16 Bcomplex32 Bfloat16);
sum!(Bool, |a, b| ((a | b) != 0) as u8);

/// Where an operand of a sum is: bytes of its own, or the output's bytes (an add in
/// place, whose operand is identical to the output).
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    /// Bytes apart from the output's.
    Bytes(&'a [u8]),
    /// The output's own bytes.
    Out,
}

/// One operand of a run: where, its first position and its stride (elements).
pub(crate) type At<'a> = (Operand<'a>, usize, isize);

/// A sum of `n` elements: `x`, `y`, then the output's bytes, first position, stride.
pub(crate) type AddRun = fn(At<'_>, At<'_>, &mut [u8], usize, isize, usize);

#[inline(always)]
fn load<L: Lane>(o: At<'_>, out: &[u8], done: usize, buf: &mut [L::T]) {
    let (bytes, pos, stride) = match o {
        (Operand::Bytes(b), p, s) => (b, p, s),
        (Operand::Out, p, s) => (out, p, s),
    };
    L::load(bytes, at(pos, stride, done), stride, buf);
}

/// Elements of a contiguous sum checked for NaNs at once: one [`BLOCK`] natively,
/// where a stretch with a NaN is summed again whole; 16 blocks in wasm, where a check
/// and a call of [`Sum::plain_run`] every block costs more than it saves, and a
/// stretch with a NaN is summed again only in its blocks whose sums hold one
/// (BENCHMARKS.md, "Choices the measurements made").
const STRETCH: usize = if cfg!(target_arch = "wasm32") {
    16 * BLOCK
} else {
    BLOCK
};

/// Plain sums of `xs` and `ys` into `o` (one length); whether any was
/// [`Sum::unruly`].
#[inline(always)]
fn plain<L: Sum>(o: &mut [L::T], xs: &[L::T], ys: &[L::T]) -> bool {
    let mut unruly = false;
    for ((o, &a), &b) in o.iter_mut().zip(xs).zip(ys) {
        *o = L::plain(a, b);
        unruly |= L::unruly(*o);
    }
    unruly
}

/// Adds `n` elements of lane `L`: straight over typed slices where all three runs are
/// contiguous, whole bytes, aligned and apart; otherwise in blocks (an operand that
/// is the output is read a block before that block is written).
#[inline(always)]
fn add_body<L: Sum>(x: At<'_>, y: At<'_>, d: &mut [u8], d_pos: usize, d_stride: isize, n: usize) {
    let w = std::mem::size_of::<L::T>();
    if let ((Operand::Bytes(xb), xp, 1), (Operand::Bytes(yb), yp, 1), 1) = (x, y, d_stride) {
        if L::IN_PLACE {
            let dv = bytemuck::try_cast_slice_mut::<u8, L::T>(&mut d[d_pos * w..(d_pos + n) * w]);
            let xv = bytemuck::try_cast_slice::<u8, L::T>(&xb[xp * w..(xp + n) * w]);
            let yv = bytemuck::try_cast_slice::<u8, L::T>(&yb[yp * w..(yp + n) * w]);
            if let (Ok(dv), Ok(xv), Ok(yv)) = (dv, xv, yv) {
                // Plain sums a stretch at a time (checked for NaNs once a stretch:
                // few checks to slow the loop); in a stretch with a NaN, the blocks
                // whose sums hold one are summed again in full (for integers
                // `unruly` is false and all of this goes).
                for ((o, xs), ys) in dv
                    .chunks_mut(STRETCH)
                    .zip(xv.chunks(STRETCH))
                    .zip(yv.chunks(STRETCH))
                {
                    if !L::plain_run(o, xs, ys) {
                        continue;
                    }
                    // Only the blocks whose sums hold a NaN are summed again.
                    for ((o, xs), ys) in o
                        .chunks_mut(BLOCK)
                        .zip(xs.chunks(BLOCK))
                        .zip(ys.chunks(BLOCK))
                    {
                        if STRETCH == BLOCK || o.iter().fold(false, |u, &r| u | L::unruly(r)) {
                            for ((o, &a), &b) in o.iter_mut().zip(xs).zip(ys) {
                                *o = L::add(a, b);
                            }
                        }
                    }
                }
                return;
            }
        }
    }
    let mut xs = [L::T::default(); BLOCK];
    let mut ys = [L::T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        load::<L>(x, d, done, &mut xs[..k]);
        load::<L>(y, d, done, &mut ys[..k]);
        for (a, &b) in xs[..k].iter_mut().zip(&ys[..k]) {
            *a = L::add(*a, b);
        }
        L::store(d, at(d_pos, d_stride, done), d_stride, &xs[..k]);
        done += k;
    }
}

super::tier::versions!(add -> AddRun = add_body<L: Sum>(
    x: At<'_>, y: At<'_>, d: &mut [u8], d_pos: usize, d_stride: isize, n: usize
));

macro_rules! each {
    ($d:expr, $($L:ident)*) => {
        match $d { $(DType::$L => add::<super::$L>(),)* }
    };
}

/// The typed sum of dtype `d`.
pub(crate) fn adder(d: DType) -> AddRun {
    super::super::variants::every_dtype!(each!(d,))
}
