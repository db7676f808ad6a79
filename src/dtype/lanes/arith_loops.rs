//! The loops of the elementwise operations besides the sum (`arith.rs`'s values), one
//! a dtype and operation, over blocks or straight over typed slices; the narrow
//! floats' through float32; the dispatch from an operation and a dtype.

use super::arith::{Arith, Ops, Signs};
use super::{at, Lane, BLOCK};
use crate::dtype::DType;

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

/// A lane's loops of the operations: through float32 for the narrow floats (every
/// float8 format alike), natively for the others.
trait Loops: Lane {
    fn loop_of(op: Arith) -> BinRun;
}

impl<const CODE: u8> Loops for super::kinds::Float8<CODE> {
    fn loop_of(op: Arith) -> BinRun {
        narrow_by_op!(Self, op)
    }
}

macro_rules! loops {
    (narrow: $($N:ident)*; $($L:ident)*) => {
        $(impl Loops for super::$N {
            fn loop_of(op: Arith) -> BinRun {
                narrow_by_op!(Self, op)
            }
        })*
        $(impl Loops for super::$L {
            fn loop_of(op: Arith) -> BinRun {
                by_op!(Self, op)
            }
        })*
    };
}

loops!(narrow: Float16 Bfloat16; Float32 Float64 Int4 Uint4 Int8 Uint8 Int16 Uint16 Int32
    Uint32 Int64 Uint64 Complex64 Complex128 Bool);

macro_rules! each {
    ($d:expr, $op:expr, $($L:ident)*) => {
        match $d {
            $(DType::$L => <super::$L as Loops>::loop_of($op),)*
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
    Some(crate::dtype::table::every_dtype!(each!(d, op,)))
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
