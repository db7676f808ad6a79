//! The cast kernel's front door: elements of one array converted into another of the
//! same shape, over any layouts, through the door, on the arrays' device's backend
//! (`host/cast.rs`, `wgpu.rs`, `cuda.rs`).

use crate::array::{door_with, refused, AnyArray};
use crate::dtype::DType;
use crate::error::Error;
use crate::rig::backend::Backend;

const OP: &str = "AnyArray::cast";

impl AnyArray {
    /// A fresh C-contiguous array on the same device holding each element converted
    /// into `dtype` by [`crate::dtype::convert_bits`] (one rounding; an equal dtype
    /// copies bits). Works over any layout: broadcast, negative strides, sub-byte
    /// elements at odd positions.
    ///
    /// # Errors
    /// What [`AnyArray::create`] returns, and the door's refusal of `self` (a dead
    /// buffer, memory held exclusive) as [`Error::Invalid`]; each naming
    /// `AnyArray::cast`.
    pub fn cast(&self, dtype: DType) -> Result<AnyArray, Error> {
        let out =
            AnyArray::create_to_fill(self.rig(), dtype, self.shape()).map_err(|e| e.called(OP))?;
        cast_into(self, &out)?;
        Ok(out)
    }
}

/// Stores `src`'s elements converted into `dst`'s dtype into `dst`, a fresh
/// C-contiguous array of the same shape whose buffer `src` does not share.
pub(crate) fn cast_into(src: &AnyArray, dst: &AnyArray) -> Result<(), Error> {
    debug_assert_eq!(src.shape(), dst.shape());
    debug_assert!(dst.layout().is_contiguous());
    door_with(
        OP,
        &[dst],
        &[src],
        || cast_claimed(src, dst),
        |a| refused(OP, a, &[src]),
    )
}

fn cast_claimed(src: &AnyArray, dst: &AnyArray) -> Result<(), Error> {
    let n = src.layout().numel();
    if n == 0 {
        return Ok(());
    }
    if src.rig() != dst.rig() {
        return Err(Error::Invalid {
            op: OP,
            reason: format!(
                "the arrays are on two devices ({} and {})",
                src.rig().name(),
                dst.rig().name()
            ),
            operands: String::new(),
        });
    }
    match dst.rig().backend() {
        Backend::Host(_) => super::host::cast(src, dst, OP),
        Backend::Wgpu(g) => super::wgpu::cast(g, src, dst, OP),
        #[cfg(feature = "cuda")]
        Backend::Cuda(c) => super::cuda::cast(&c.0, src, dst, OP),
    }
}
