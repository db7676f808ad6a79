//! The CUDA C body of an elementwise kernel on a CUDA device: its source
//! (`cuda_source.rs`) for the operands' dtypes, compiled by NVRTC once a device and
//! dtype signature, launched over every operand's walk; the door's claims are held by
//! then. An output may be identical to an input: each thread reads an index's
//! operands before it writes that index.

use std::sync::Arc;

use super::cuda_source::{at_body_lines, source, SYMBOL};
use super::{Compute, Elementwise};
use crate::array::cuda_source::with;
use crate::array::AnyArray;
use crate::error::Error;
use crate::rig::cuda::{arg, Cuda, Walk};

/// `k`'s CUDA `body` over `inputs` (broadcast to the outputs' shape) into `outputs`,
/// on `c`'s device.
///
/// # Errors
/// [`Error::Invalid`] naming `op`: a compute type the body cannot have, a body that
/// does not compile (NVRTC's messages at the body's lines); what the device says.
pub(super) fn run<C: Compute>(
    k: &Elementwise<C>,
    c: &Arc<Cuda>,
    body: &str,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    op: &'static str,
) -> Result<(), Error> {
    let invalid = |reason: String| Error::Invalid {
        op,
        reason,
        operands: String::new(),
    };
    let arrays: Vec<&AnyArray> = inputs.iter().chain(outputs.iter().copied()).collect();
    let src = source(
        &k.name,
        &k.slots(arrays.iter().map(|a| a.dtype())),
        C::DTYPE,
        body,
    )
    .map_err(invalid)?;
    let key = k.key("elementwise", &src);
    let mut addresses = arrays
        .iter()
        .map(|a| a.cuda_address(op))
        .collect::<Result<Vec<u64>, _>>()?;
    let mut walks: Vec<Walk> = arrays.iter().map(|a| Walk::of(a.layout())).collect();
    let n = outputs[0].layout().numel();
    let mut count = n as i64;
    let reads: Vec<_> = inputs.iter().map(|a| a.buffer()).collect();
    let writes: Vec<_> = outputs.iter().map(|a| a.buffer()).collect();
    outputs[0].rig().submit(&reads, &writes, || {
        let mut args = Vec::with_capacity(2 * arrays.len() + 1);
        for (a, w) in addresses.iter_mut().zip(walks.iter_mut()) {
            args.push(arg(a));
            args.push(arg(w));
        }
        args.push(arg(&mut count));
        // SAFETY: nx_user's parameters in order (each operand's address and walk, then
        // the count); every address is of live memory of `c` under the door's claims,
        // at the positions the walks give.
        unsafe { c.launch_source(op, (&key, SYMBOL), || with(&src), n, &mut args) }.map_err(|e| {
            match e {
                Error::Invalid { op, reason, .. } => invalid_at(op, &reason),
                e => e,
            }
        })
    })?;
    Ok(())
}

/// A compile error with its places said as the body's lines.
fn invalid_at(op: &'static str, reason: &str) -> Error {
    Error::Invalid {
        op,
        reason: at_body_lines(reason),
        operands: String::new(),
    }
}
