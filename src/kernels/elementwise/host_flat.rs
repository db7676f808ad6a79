//! The host body of an elementwise kernel over C-contiguous operands of one shape
//! (the common case: no broadcast, no strides): the output's elements split over the
//! host's threads, each range taken a block at a time, where an operand of the
//! compute type is handed to the body in place (its bytes as `&[C]`, the output's as
//! `&mut [C]`) and any other is decoded into (or encoded from) a block of the compute
//! type by the typed cast loops. No copy of an operand that needs no conversion.

use super::{Compute, HostBody};
use crate::array::AnyArray;
use crate::dtype::lanes::converter;
use crate::error::Error;
use crate::kernels::host::split::split;
use crate::rig::Buffer;

/// Elements a block at most: the blocks of a few operands stay in the L1 cache (4 KiB
/// each in a 32-bit compute type; 8192 ran int8 x * x + 1 at half the speed).
const BLOCK: usize = 1 << 10;

/// Whether [`run`] takes `inputs` (broadcast to the output's shape already) into
/// `outputs`: one output, every operand C-contiguous, on one host device, and no
/// input over the output's memory (which its block would alias).
pub(crate) fn takes(inputs: &[AnyArray], outputs: &[&AnyArray]) -> bool {
    let [out] = outputs else {
        return false;
    };
    out.layout().is_contiguous()
        && inputs.iter().all(|a| {
            a.layout().is_contiguous()
                && a.rig() == out.rig()
                && !a.buffer().same_memory(out.buffer())
        })
}

/// `f` over `inputs` into `outputs[0]`, where [`takes`] says so; the caller holds the
/// door's claims.
///
/// # Errors
/// [`Error::ReadOnly`], [`Error::Lost`] from the buffers' access.
pub(crate) fn run<C: Compute>(
    f: &HostBody<C>,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    op: &'static str,
) -> Result<(), Error> {
    let out = outputs[0];
    let n = out.layout().numel();
    if n == 0 {
        return Ok(());
    }
    let reads: Vec<&Buffer> = inputs.iter().map(AnyArray::buffer).collect();
    let decode: Vec<_> = inputs
        .iter()
        .map(|a| converter(a.dtype(), C::DTYPE))
        .collect();
    let encode = converter(C::DTYPE, out.dtype());
    // An input that an earlier one repeats (the same elements of the same dtype, as
    // `x * x` passes `x` twice) takes that one's chunk.
    let repeats: Vec<Option<usize>> = inputs
        .iter()
        .enumerate()
        .map(|(j, a)| {
            inputs[..j].iter().position(|b| {
                b.dtype() == a.dtype()
                    && b.layout() == a.layout()
                    && b.buffer().same_memory(a.buffer())
                    && b.buffer().start() == a.buffer().start()
            })
        })
        .collect();
    let size = std::mem::size_of::<C>();
    Buffer::with_host_pointers(out.buffer(), &reads, op, |w, r| {
        // SAFETY: the pointers address the buffers' bytes, locked for the call (the
        // written memory for writing); no input shares the written memory (`takes`).
        let d = unsafe { std::slice::from_raw_parts_mut(w, out.buffer().len()) };
        let ins: Vec<&[u8]> = r
            .iter()
            .zip(&reads)
            .map(|(&p, b)| unsafe { std::slice::from_raw_parts(p, b.len()) })
            .collect();
        let o0 = out.layout().offset();
        split(n, d, o0, out.dtype(), |from, to, bytes, base| {
            let mut scratch = vec![vec![C::zeroed(); BLOCK.min(to - from)]; inputs.len() + 1];
            let (outs, bufs) = scratch.split_last_mut().expect("an output's block");
            for s in (from..to).step_by(BLOCK) {
                let len = BLOCK.min(to - s);
                let mut chunks: Vec<&[C]> = Vec::with_capacity(inputs.len());
                for (j, buf) in bufs.iter_mut().enumerate() {
                    let chunk = match repeats[j] {
                        Some(k) => chunks[k],
                        None => {
                            let pos = inputs[j].layout().offset() + s;
                            let own = (inputs[j].dtype() == C::DTYPE)
                                .then(|| typed::<C>(&ins[j][pos * size..(pos + len) * size]))
                                .flatten();
                            own.unwrap_or_else(|| {
                                let b = bytemuck::cast_slice_mut(&mut buf[..len]);
                                decode[j](ins[j], pos, 1, b, 0, 1, len);
                                &buf[..len]
                            })
                        }
                    };
                    chunks.push(chunk);
                }
                let at = o0 + s - base;
                let range = at * size..(at + len) * size;
                let own = (out.dtype() == C::DTYPE)
                    .then(|| bytemuck::try_cast_slice_mut::<u8, C>(&mut bytes[range]).ok())
                    .flatten();
                match own {
                    Some(o) => f(&chunks, &mut [o]),
                    None => {
                        f(&chunks, &mut [&mut outs[..len]]);
                        encode(bytemuck::cast_slice(&outs[..len]), 0, 1, bytes, at, 1, len);
                    }
                }
            }
        });
    })
}

/// `bytes` as elements of `C` where they are aligned for it.
fn typed<C: Compute>(bytes: &[u8]) -> Option<&[C]> {
    bytemuck::try_cast_slice(bytes).ok()
}
