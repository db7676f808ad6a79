//! The kernels of GPUs through wgpu: the WGSL that `crate::wgsl` generates from the
//! dtype table, dispatched through the rig. Called from the kernels' front doors (cast,
//! fill, add) when the arrays are on such a device; the door's claims are held by then.

use crate::array::AnyArray;
use crate::dtype::write_bits;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::wgpu::{Gpu, Operand};
use crate::wgsl::{add_kernel, cast_kernel, Kernel};

/// `src`'s elements converted into `dst`'s dtype (one rounding, the dtype table's
/// rule; into the same dtype, a copy of every bit), both on `g`'s device in two
/// memories, any layouts.
pub(crate) fn cast(g: &Gpu, src: &AnyArray, dst: &AnyArray, op: &'static str) -> Result<(), Error> {
    if src.dtype() == dst.dtype() {
        // A cast into the same dtype is a copy: every bit, signalling NaNs included.
        return crate::array::wgpu_transfer(g, src, dst, op);
    }
    let kernel = cast_kernel(src.dtype(), dst.dtype());
    run_kernel(g, &kernel, std::slice::from_ref(src), &[dst], op)
}

/// Every element of `out` (on a GPU) set to the raw `bits`: the strided blit from one
/// staged element at stride 0.
pub(crate) fn fill(g: &Gpu, out: &AnyArray, bits: u128, op: &'static str) -> Result<(), Error> {
    let db = out.wgpu_memory(op)?;
    let d = out.dtype();
    let base = out.wgpu_base(op)?;
    let mut one = [0u8; 16];
    write_bits(d, &mut one, 0, bits);
    let rig = out.rig();
    let src = g.staged(&one);
    let l = Layout::new(out.shape(), &vec![0; out.shape().len()], 0)?;
    rig.submit_as(op, &[], &[out.buffer()], || {
        g.blit_strided(op, d.bits(), &src, (&l, 0), db, (out.layout(), base))
    })?;
    Ok(())
}

/// `a`, or a copy of it on its device where it shares memory with one of `written`:
/// WebGPU binds no buffer as a kernel's source and destination at once.
pub(crate) fn apart(a: &AnyArray, written: &[&AnyArray]) -> Result<AnyArray, Error> {
    if written.iter().any(|o| o.buffer().same_memory(a.buffer())) {
        a.to_device(a.rig())
    } else {
        Ok(a.clone())
    }
}

/// The operands of a GPU job: `read` (each already apart from `written`, see
/// [`apart`]) then `written`, in binding order.
///
/// # Errors
/// [`Error::Invalid`] naming `op` for an array not on a GPU through wgpu.
pub(crate) fn operands<'a>(
    read: &'a [AnyArray],
    written: &[&'a AnyArray],
    op: &'static str,
) -> Result<Vec<Operand<'a>>, Error> {
    read.iter()
        .chain(written.iter().copied())
        .map(|a| {
            Ok(Operand {
                mem: a.wgpu_memory(op)?,
                layout: a.layout(),
                base: a.wgpu_base(op)?,
                bits: a.dtype().bits(),
            })
        })
        .collect()
}

/// `kernel` over `inputs` (broadcast to the outputs' shape) into `outputs`, on `g`'s
/// device; the caller holds the door's claims. An input over an output's memory is
/// read from a copy: WebGPU binds no buffer as a kernel's source and destination at
/// once.
pub(crate) fn run_kernel(
    g: &Gpu,
    kernel: &Kernel<'_>,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    op: &'static str,
) -> Result<(), Error> {
    let rig = outputs[0].rig();
    let inputs = inputs
        .iter()
        .map(|a| apart(a, outputs))
        .collect::<Result<Vec<_>, _>>()?;
    let ops = operands(&inputs, outputs, op)?;
    let reads: Vec<_> = inputs.iter().map(|a| a.buffer()).collect();
    let writes: Vec<_> = outputs.iter().map(|a| a.buffer()).collect();
    rig.submit_as(op, &reads, &writes, || g.run(op, kernel, &ops))?;
    Ok(())
}

/// `out = x + y` on one GPU (`x` and `y` broadcast to `out`'s layout already), by the
/// generated add kernel with the device's native types. An operand that shares
/// `out`'s memory (an add in place) is read from a copy: WebGPU binds no buffer as a
/// kernel's source and destination at once.
pub(crate) fn add(
    g: &Gpu,
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    let kernel = add_kernel(out.dtype(), g.native());
    run_kernel(g, &kernel, &[x.clone(), y.clone()], &[out], op)
}
