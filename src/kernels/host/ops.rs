//! The host's other elementwise operations (the operations' table's rows, their loops
//! `dtype::lanes::op_loops`; the select, `lanes::select`) over
//! runs of the walk, on the pool's threads where the output is C-contiguous and long.

use super::split::split;
use crate::array::AnyArray;
use crate::dtype::lanes::{BinRun, SelectRun, Strided};
use crate::dtype::operations::Operation;
use crate::error::Error;
use crate::layout::Runs;
use crate::rig::Buffer;

/// The loop a host operation runs over each run of the walk.
pub(crate) enum Loop {
    /// Two operands (`x`, `y`; a unary operation reads `x` twice).
    Binary(BinRun),
    /// A condition and two operands.
    Select(SelectRun),
}

/// `inputs` (broadcast to `out`'s layout already) through `run` into `out`, on one
/// host device; the caller holds the door's claims. An input that shares `out`'s
/// memory is read from a copy, so that no byte slice aliases the one written.
pub(crate) fn apply(
    out: &AnyArray,
    inputs: &[&AnyArray],
    run: Loop,
    op: &'static str,
) -> Result<(), Error> {
    let n = out.layout().numel();
    if n == 0 {
        return Ok(());
    }
    let apart = |a: &AnyArray| -> Result<AnyArray, Error> {
        if a.buffer().same_memory(out.buffer()) {
            a.copy()
        } else {
            Ok(a.clone())
        }
    };
    let ins = inputs
        .iter()
        .map(|a| apart(a))
        .collect::<Result<Vec<_>, _>>()?;
    // Three inputs at most: a binary operation's last is its second again.
    let third = ins.get(2).unwrap_or(&ins[1]);
    let runs = Runs::new([
        ins[0].layout(),
        ins[1].layout(),
        third.layout(),
        out.layout(),
    ]);
    let [i0, i1, i2, io] = runs.inner();
    let wb = out.buffer();
    let reads: Vec<&Buffer> = [&ins[0], &ins[1], third].map(|a| a.buffer()).to_vec();
    let contiguous = out.layout().is_contiguous();
    Buffer::with_host_pointers(wb, &reads, op, |w, r| {
        // SAFETY: the pointers address the buffers' bytes, locked for the call (the
        // written memory for writing); no input shares the written memory.
        let d = unsafe { std::slice::from_raw_parts_mut(w, wb.len()) };
        let bytes = |k: usize| unsafe { std::slice::from_raw_parts(r[k], reads[k].len()) };
        let (b0, b1, b2) = (bytes(0), bytes(1), bytes(2));
        let body = |from: usize, to: usize, out: &mut [u8], base: usize| {
            runs.each(from, to, |[p0, p1, p2, po], len| {
                let (s0, s1, s2): (Strided<'_>, Strided<'_>, Strided<'_>) =
                    ((b0, p0, i0), (b1, p1, i1), (b2, p2, i2));
                match run {
                    Loop::Binary(f) => f(s0, s1, out, po - base, io, len),
                    Loop::Select(f) => f(s0, s1, s2, out, po - base, io, len),
                }
            })
        };
        if contiguous {
            split(n, d, out.layout().offset(), out.dtype(), body);
        } else {
            body(0, n, d, 0);
        }
    })
}

/// The loop of `op` over dtype `d` (a unary operation's reads its one input twice),
/// or `None` where `d` does not take it.
pub(crate) fn binary(op: Operation, d: crate::DType) -> Option<Loop> {
    crate::dtype::lanes::binary_run(op, d).map(Loop::Binary)
}
