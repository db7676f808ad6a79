//! Arrays on a CUDA device: the device address of an array's buffer, and element moves
//! by the transfer kernel of `nx_kernels.cu` (any layouts, every dtype, 4-bit elements
//! at any position).

use std::sync::Arc;

use super::any::AnyArray;
use crate::error::Error;
use crate::rig::cuda::{arg, Cuda, Walk};

impl AnyArray {
    /// The device address of the buffer's first byte, which the layout's positions
    /// count from (a 4-bit element's nibble too).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` for memory of another backend (an array on
    /// another device than the kernel's).
    pub(crate) fn cuda_address(&self, op: &'static str) -> Result<u64, Error> {
        self.buffer
            .cuda_memory()
            .map(|(m, start)| m.at(start))
            .ok_or_else(|| Error::Invalid {
                op,
                reason: format!(
                    "the array is on {}, not on the CUDA device of the kernel",
                    self.rig().name()
                ),
                operands: super::any::describe(self.dtype, &self.layout),
            })
    }
}

/// Moves `src`'s elements into `dst` (same shape and dtype, both on `c`'s device,
/// sharing no byte unless identical) by the transfer kernel. The caller holds the
/// door's claims.
pub(crate) fn transfer(
    c: &Arc<Cuda>,
    src: &AnyArray,
    dst: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    let (mut sp, mut dp) = (src.cuda_address(op)?, dst.cuda_address(op)?);
    let (mut sw, mut dw) = (Walk::of(&src.layout), Walk::of(&dst.layout));
    let mut code = src.dtype.code() as i32;
    let n = src.layout.numel();
    let mut count = n as i64;
    dst.rig().submit(&[&src.buffer], &[&dst.buffer], || {
        // SAFETY: nx_transfer's parameters in order; both addresses are of live
        // memory of `c` under the door's claims, at the positions the walks give.
        unsafe {
            crate::array::cuda_source::launch(
                c,
                op,
                "nx_transfer",
                n,
                &mut [
                    arg(&mut sp),
                    arg(&mut sw),
                    arg(&mut dp),
                    arg(&mut dw),
                    arg(&mut code),
                    arg(&mut count),
                ],
            )
        }
    })?;
    Ok(())
}
