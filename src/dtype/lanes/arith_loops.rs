//! The loops of the elementwise operations besides the sum, generic over a lane and
//! an operation's meaning ([`Apply`]), over blocks or straight over typed slices; the
//! narrow floats' through float32 (or float64, [`Computes`]). The meanings and the
//! dispatch from an operation and a dtype are `op_loops.rs`'s, written from the table.

use super::{at, Lane, BLOCK};

/// One operand of a run: its bytes, first position and stride (elements).
pub(crate) type Strided<'a> = (&'a [u8], usize, isize);

/// An operation over `n` elements: `x`, `y`, then the output's bytes, first position
/// and stride. The output is apart from both operands.
pub(crate) type BinRun = fn(Strided<'_>, Strided<'_>, &mut [u8], usize, isize, usize);

/// The result of one pair (a unary operation reads `a` alone), as the output lane's
/// value: an operation's meaning over lane `L` (written from the operations' table,
/// `op_loops.rs`).
pub(super) trait Apply<L: Lane> {
    type Out: Lane;
    fn apply(a: L::T, b: L::T) -> <Self::Out as Lane>::T;
}

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

/// A block of a narrow float lane `L` as values of lane `C` (float32 or float64:
/// exact).
#[cfg_attr(target_arch = "wasm32", inline(never))]
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn decode_block<L: Lane, C: Lane>(raw: &[L::T], out: &mut [C::T]) {
    for (o, &r) in out.iter_mut().zip(raw) {
        *o = L::put::<C>(r);
    }
}

/// Values of lane `C` (float32 or float64) rounded once into a narrow float lane `L`.
#[cfg_attr(target_arch = "wasm32", inline(never))]
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn encode_block<L: Lane, C: Lane>(vals: &[C::T], out: &mut [L::T]) {
    for (o, &v) in out.iter_mut().zip(vals) {
        *o = C::put::<L>(v);
    }
}

/// The lane a narrow float lane computes its operations in: float32, whose range
/// and precision hold every product and quotient of a narrow float's values to be
/// rounded once, or float64 for a format whose least value squared underflows
/// float32 (float8_e8m0fnu: 2^-127 * 2^-127).
pub(super) trait Computes: Lane {
    type In: Lane;
}

/// `Through<WIDE>`'s lane: float64 where `WIDE`, else float32.
pub(super) struct Through<const WIDE: bool>;

/// The lane of a [`Through`].
pub(super) trait Pick {
    type Lane: Lane;
}

impl Pick for Through<false> {
    type Lane = super::Float32;
}

impl Pick for Through<true> {
    type Lane = super::Float64;
}

/// Whether a narrow float of format `f` computes through float64: where the square of
/// its least positive value is under float32's least (2^-149).
pub(super) const fn computes_wide(f: crate::dtype::FloatFormat) -> bool {
    // A format of powers of two has no subnormals: its least is its exponent 0's power.
    let least = if matches!(f.specials, crate::dtype::Specials::UnsignedNoZero) {
        -f.bias
    } else {
        1 - f.bias - f.fraction_bits as i32
    };
    2 * least < -149
}

/// How a narrow float operation's results reach the output: float32 or float64 values
/// rounded once into the lane, bools as they are.
pub(super) trait Back<L: Lane>: Lane {
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
        encode_block::<L, Self>(vals, raw);
        store_block::<L>(d, pos, stride, done, raw);
    }
}

impl<L: Lane> Back<L> for super::Float64 {
    #[inline(always)]
    fn back(vals: &[f64], raw: &mut [L::T], d: &mut [u8], pos: usize, stride: isize, done: usize) {
        encode_block::<L, Self>(vals, raw);
        store_block::<L>(d, pos, stride, done, raw);
    }
}

impl<L: Lane> Back<L> for super::Complex64 {
    #[inline(always)]
    fn back(
        vals: &[[f32; 2]],
        raw: &mut [L::T],
        d: &mut [u8],
        pos: usize,
        stride: isize,
        done: usize,
    ) {
        encode_block::<L, Self>(vals, raw);
        store_block::<L>(d, pos, stride, done, raw);
    }
}

impl<L: Lane> Back<L> for super::Bool {
    #[inline(always)]
    fn back(vals: &[u8], _raw: &mut [L::T], d: &mut [u8], pos: usize, stride: isize, done: usize) {
        store_block::<super::Bool>(d, pos, stride, done, vals);
    }
}

/// An operation of lane `C` (float32 or float64) whose results a narrow float lane
/// `L` takes back.
pub(super) trait NarrowOp<L: Lane, C: Lane>: Apply<C, Out = Self::To> {
    type To: Back<L>;
}

impl<L: Lane, C: Lane, O: Apply<C>> NarrowOp<L, C> for O
where
    O::Out: Back<L>,
{
    type To = O::Out;
}

/// Applies `O` (an operation of lane `C`, float32 or float64) to `n` elements of a
/// narrow float lane `L`, a block at a time: decoded into `C`, computed, and (for
/// float results) rounded back once into `L`: the same bits as [`body`] of `L`'s own
/// operations.
#[inline(always)]
fn narrow_body<L: Lane, C: Lane, O: NarrowOp<L, C>>(
    x: Strided<'_>,
    y: Strided<'_>,
    d: &mut [u8],
    d_pos: usize,
    d_stride: isize,
    n: usize,
) {
    let mut raw = [L::T::default(); BLOCK];
    let (mut xs, mut ys) = ([C::T::default(); BLOCK], [C::T::default(); BLOCK]);
    let mut os = [<O::To as Lane>::T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        load_block::<L>(x, done, &mut raw[..k]);
        decode_block::<L, C>(&raw[..k], &mut xs[..k]);
        load_block::<L>(y, done, &mut raw[..k]);
        decode_block::<L, C>(&raw[..k], &mut ys[..k]);
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
        if L::IN_PLACE && <O::Out as Lane>::IN_PLACE {
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

super::tier::versions!(narrow -> BinRun = narrow_body<L: Lane, C: Lane, O: NarrowOp<L, C>>(
    x: Strided<'_>, y: Strided<'_>, d: &mut [u8], d_pos: usize, d_stride: isize, n: usize
));

/// The loop of `O` over lane `L`, natively.
pub(super) fn native_loop<L: Lane, O: Apply<L>>() -> BinRun {
    run::<L, O>()
}

/// The loop of `O` (an operation of lane `C`, float32 or float64) over a narrow
/// float lane `L`: decoded into `C`, computed, rounded back once.
pub(super) fn narrow_loop<L: Lane, C: Lane, O: NarrowOp<L, C>>() -> BinRun {
    narrow::<L, C, O>()
}
