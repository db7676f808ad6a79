//! The typed select: `out = cond ? x : y`, a bool condition (any nonzero byte true)
//! choosing between two operands of one dtype, their bits moved as they are (one
//! loop a width).

use super::{at, Bool, Lane, BLOCK};
use crate::dtype::DType;

pub(crate) use super::arith_loops::Strided;

/// A select of `n` elements: the condition, `x`, `y`, then the output's bytes, first
/// position and stride. The output is apart from the operands.
pub(crate) type SelectRun =
    fn(Strided<'_>, Strided<'_>, Strided<'_>, &mut [u8], usize, isize, usize);

#[inline(always)]
fn body<L: Lane>(
    c: Strided<'_>,
    x: Strided<'_>,
    y: Strided<'_>,
    d: &mut [u8],
    d_pos: usize,
    d_stride: isize,
    n: usize,
) {
    let mut cs = [0u8; BLOCK];
    let mut xs = [L::T::default(); BLOCK];
    let mut ys = [L::T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        Bool::load(c.0, at(c.1, c.2, done), c.2, &mut cs[..k]);
        L::load(x.0, at(x.1, x.2, done), x.2, &mut xs[..k]);
        L::load(y.0, at(y.1, y.2, done), y.2, &mut ys[..k]);
        for ((a, &b), &t) in xs[..k].iter_mut().zip(&ys[..k]).zip(&cs[..k]) {
            if t == 0 {
                *a = b;
            }
        }
        L::store(d, at(d_pos, d_stride, done), d_stride, &xs[..k]);
        done += k;
    }
}

fn run<L: Lane>() -> SelectRun {
    body::<L>
}

/// The select of dtype `d`: a lane of its width (the bits move as they are, so one
/// loop a width serves every dtype of it).
pub(crate) fn selector(d: DType) -> SelectRun {
    match d.bits() {
        4 => run::<super::Uint4>(),
        8 => run::<super::Uint8>(),
        16 => run::<super::Uint16>(),
        32 => run::<super::Uint32>(),
        64 => run::<super::Uint64>(),
        _ => run::<super::Complex128>(),
    }
}
