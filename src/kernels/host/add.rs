//! The host add kernel: the typed sum of the dtype (`dtype::lanes`) over runs of the
//! walk, on the pool's threads where the output is long.

use super::split::split;
use crate::array::AnyArray;
use crate::dtype::lanes::{self, Operand};
use crate::error::Error;
use crate::layout::Runs;
use crate::rig::Buffer;

/// `out = x + y` on one host device, `x` and `y` broadcast to `out`'s layout already
/// (either may be `out` itself: an add in place); the caller holds the door's claims.
pub(crate) fn add(
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    let n = out.layout().numel();
    if n == 0 {
        return Ok(());
    }
    // An operand identical to `out` is read from `out`'s own bytes (an add in place);
    // one that shares `out`'s memory but no byte of it is copied first, so that no
    // byte slice aliases the one written.
    let apart = |a: &AnyArray| -> Result<AnyArray, Error> {
        if a.buffer().same_memory(out.buffer()) && !crate::array::identical(a, out) {
            a.copy()
        } else {
            Ok(a.clone())
        }
    };
    let (x, y) = (apart(x)?, apart(y)?);
    let in_place = |a: &AnyArray| a.buffer().same_memory(out.buffer());
    let layout = |a: &AnyArray| {
        if in_place(a) {
            *out.layout()
        } else {
            *a.layout()
        }
    };
    let (lx, ly) = (layout(&x), layout(&y));
    let runs = Runs::new([&lx, &ly, out.layout()]);
    let [ix, iy, io] = runs.inner();
    let run = lanes::adder(out.dtype());
    let (wb, xb, yb) = (out.buffer(), x.buffer(), y.buffer());
    let contiguous = out.layout().is_contiguous();
    Buffer::with_host_pointers(wb, &[xb, yb], op, |w, r| {
        // SAFETY: the pointers address the buffers' bytes, locked for the call (the
        // written memory for writing); a read buffer of the written memory is read
        // through `d` (Operand::Out), never through a slice of its own.
        let d = unsafe { std::slice::from_raw_parts_mut(w, wb.len()) };
        let operand = |a: &AnyArray, p: *const u8| {
            if in_place(a) {
                Operand::Out
            } else {
                Operand::Bytes(unsafe { std::slice::from_raw_parts(p, a.buffer().len()) })
            }
        };
        let (ox, oy) = (operand(&x, r[0]), operand(&y, r[1]));
        let body = |from: usize, to: usize, bytes: &mut [u8], base: usize| {
            runs.each(from, to, |[px, py, po], len| {
                // An operand read from the output is at the output's positions.
                let at = |o: Operand<'_>, p: usize| match o {
                    Operand::Out => p - base,
                    Operand::Bytes(_) => p,
                };
                run(
                    (ox, at(ox, px), ix),
                    (oy, at(oy, py), iy),
                    bytes,
                    po - base,
                    io,
                    len,
                )
            })
        };
        if contiguous {
            split(n, d, out.layout().offset(), out.dtype(), body);
        } else {
            body(0, n, d, 0);
        }
    })
}
