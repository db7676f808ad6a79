//! The kernels of CUDA devices: `src/kernels/cuda/nx_kernels.cu` (over
//! `include/nx_dtype.h`), compiled by NVRTC once per device and launched on its
//! stream. Called from the kernels' front doors (cast, fill, add, the other
//! elementwise operations: `nx_ops.cu`) when the arrays are on such a device; the
//! door's claims are held by then. The same source runs on the host in
//! `tests/kernels_c.rs` over every conversion vector, the add oracle and nxrig's
//! host operations.

use std::sync::Arc;

use crate::array::AnyArray;
use crate::dtype::operations::Operation;
use crate::dtype::write_bits;
use crate::error::Error;
use crate::rig::cuda::{arg, Cuda, Walk};

/// `src`'s elements converted into `dst`'s dtype by `nx_convert` (one rounding; into
/// the same dtype, a copy of every bit), both on `c`'s device, any layouts.
pub(crate) fn cast(
    c: &Arc<Cuda>,
    src: &AnyArray,
    dst: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    if src.dtype() == dst.dtype() {
        // A cast into the same dtype is a copy: every bit, signalling NaNs included.
        return crate::array::cuda_transfer(c, src, dst, op);
    }
    let (mut sp, mut dp) = (src.cuda_address(op)?, dst.cuda_address(op)?);
    let (mut sw, mut dw) = (Walk::of(src.layout()), Walk::of(dst.layout()));
    let (mut sd, mut dd) = (src.dtype().code() as i32, dst.dtype().code() as i32);
    let n = src.layout().numel();
    let mut count = n as i64;
    dst.rig().submit(&[src.buffer()], &[dst.buffer()], || {
        // SAFETY: nx_cast's parameters in order; both addresses are of live memory of
        // `c` under the door's claims, at the positions the walks give.
        unsafe {
            crate::array::cuda_source::launch(
                c,
                op,
                "nx_cast",
                n,
                &mut [
                    arg(&mut sp),
                    arg(&mut sw),
                    arg(&mut sd),
                    arg(&mut dp),
                    arg(&mut dw),
                    arg(&mut dd),
                    arg(&mut count),
                ],
            )
        }
    })?;
    Ok(())
}

/// Every element of `out` (on `c`'s device) set to the raw `bits`, from one staged
/// element in a scratch allocation freed on the stream after the kernel.
pub(crate) fn fill(
    c: &Arc<Cuda>,
    out: &AnyArray,
    bits: u128,
    op: &'static str,
) -> Result<(), Error> {
    let d = out.dtype();
    let mut one = [0u8; 16];
    write_bits(d, &mut one, 0, bits);
    let mut dp = out.cuda_address(op)?;
    let mut dw = Walk::of(out.layout());
    let mut code = d.code() as i32;
    let n = out.layout().numel();
    let mut count = n as i64;
    let rig = out.rig();
    rig.submit(&[], &[out.buffer()], || {
        let staged = c.scratch(rig.name(), op, &one)?;
        let mut bp = staged.at(0);
        // SAFETY: nx_fill's parameters in order; `out`'s address is of live memory of
        // `c` under the door's claims, the staged element's until after the kernel.
        unsafe {
            crate::array::cuda_source::launch(
                c,
                op,
                "nx_fill",
                n,
                &mut [
                    arg(&mut dp),
                    arg(&mut dw),
                    arg(&mut code),
                    arg(&mut bp),
                    arg(&mut count),
                ],
            )
        }
    })?;
    Ok(())
}

/// `out = x + y` on one CUDA device by `nx_add` (`x` and `y` broadcast to `out`'s
/// shape already; `out` may be identical to either: each thread reads an index's
/// operands before it writes that index).
pub(crate) fn add(
    c: &Arc<Cuda>,
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    let code = out.dtype().code() as i32;
    elementwise(c, "nx_add", &[x, y], out, &[code], op)
}

/// `out = a(x, y)` on one CUDA device by `nx_op2` (`x` and `y` of one dtype,
/// broadcast to `out`'s shape already; a unary operation reads `x` alone, given
/// twice; `out` of their dtype, or bool for a comparison, and may be identical to
/// either).
pub(crate) fn op2(
    c: &Arc<Cuda>,
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    a: Operation,
    op: &'static str,
) -> Result<(), Error> {
    // nx_ops.cu's NX_OP_* number the operations in the table's order.
    let ints = [x.dtype().code() as i32, a as i32];
    elementwise(c, "nx_op2", &[x, y], out, &ints, op)
}

/// `out = cond ? x : y` on one CUDA device by `nx_select` (all broadcast to `out`'s
/// shape already; `out` of `x`'s dtype).
pub(crate) fn select(
    c: &Arc<Cuda>,
    out: &AnyArray,
    cond: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    let code = x.dtype().code() as i32;
    elementwise(c, "nx_select", &[cond, x, y], out, &[code], op)
}

/// Launches nxrig's kernel `symbol` over `out`'s elements on `c`'s device, its
/// parameters each input's address and walk in order, then `out`'s, then `ints`, then
/// the count of elements (`nx_add`, `nx_op2`, `nx_select`).
fn elementwise(
    c: &Arc<Cuda>,
    symbol: &'static str,
    inputs: &[&AnyArray],
    out: &AnyArray,
    ints: &[i32],
    op: &'static str,
) -> Result<(), Error> {
    let mut operands = Vec::with_capacity(inputs.len() + 1);
    for a in inputs.iter().chain([&out]) {
        operands.push((a.cuda_address(op)?, Walk::of(a.layout())));
    }
    let mut ints = ints.to_vec();
    let n = out.layout().numel();
    let mut count = n as i64;
    let reads: Vec<_> = inputs.iter().map(|a| a.buffer()).collect();
    out.rig().submit(&reads, &[out.buffer()], || {
        let mut args = Vec::with_capacity(2 * operands.len() + ints.len() + 1);
        for (address, walk) in &mut operands {
            args.push(arg(address));
            args.push(arg(walk));
        }
        args.extend(ints.iter_mut().map(arg));
        args.push(arg(&mut count));
        // SAFETY: `symbol`'s parameters in order (each kernel of `nx_kernels.cu` and
        // `nx_ops.cu` named above takes its operands so); the addresses are of live
        // memory of `c` under the door's claims, at the positions the walks give.
        unsafe { crate::array::cuda_source::launch(c, op, symbol, n, &mut args) }
    })?;
    Ok(())
}
