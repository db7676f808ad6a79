//! The host cast kernel: elements of one array converted into another of the same
//! shape, over any layouts: the typed loop of the dtype pair over runs of the walk
//! (contiguous or at a fixed stride), on the pool's threads where it is long. Seed:
//! `Nx_array` § Kernels (host kernels).

use super::split::split;
use crate::array::{door, AnyArray};
use crate::dtype::{lanes, DType};
use crate::error::Error;
use crate::layout::Runs;
use crate::rig::Buffer;

impl AnyArray {
    /// A fresh C-contiguous array on the same device holding each element converted
    /// into `dtype` by [`crate::dtype::convert_bits`] (one rounding; an equal dtype
    /// copies bits). Works over any layout: broadcast, negative strides, sub-byte
    /// elements at odd positions.
    ///
    /// # Errors
    /// What [`AnyArray::create`] returns, and the door's refusal of `self` (a dead
    /// buffer, memory held exclusive) as [`Error::Invalid`] naming `Nx_array.cast`.
    pub fn cast(&self, dtype: DType) -> Result<AnyArray, Error> {
        let out = AnyArray::create_to_fill(self.rig(), dtype, self.shape())?;
        cast_into(self, &out)?;
        Ok(out)
    }
}

/// Stores `src`'s elements converted into `dst`'s dtype into `dst`, a fresh
/// C-contiguous array of the same shape whose buffer `src` does not share.
pub(crate) fn cast_into(src: &AnyArray, dst: &AnyArray) -> Result<(), Error> {
    debug_assert_eq!(src.shape(), dst.shape());
    debug_assert!(dst.layout().is_contiguous());
    let mut r = Ok(());
    let a = door(&[dst], &[src], || r = cast_claimed(src, dst))?;
    super::answered("Nx_array.cast", a, &[dst, src])?;
    r
}

fn cast_claimed(src: &AnyArray, dst: &AnyArray) -> Result<(), Error> {
    let n = src.layout().numel();
    if n == 0 {
        return Ok(());
    }
    if src.rig() != dst.rig() {
        return Err(crate::error::Error::Invalid {
            op: "Nx_array.cast",
            reason: format!(
                "the arrays are on two devices ({} and {})",
                src.rig().name(),
                dst.rig().name()
            ),
            operands: String::new(),
        });
    }
    if src.buffer().gpu_memory().is_some() {
        return super::gpu::cast(src, dst, "Nx_array.cast");
    }
    let (sd, dd) = (src.dtype(), dst.dtype());
    // The typed loop of the pair; into the same dtype a copy of every bit.
    let run = if sd == dd {
        lanes::copier(sd)
    } else {
        lanes::converter(sd, dd)
    };
    let runs = Runs::new([src.layout(), dst.layout()]);
    let [is, id] = runs.inner();
    Buffer::read_write(src.buffer(), dst.buffer(), "Nx_array.cast", |s, d| {
        split(n, d, dst.layout().offset(), dd, |from, to, bytes, base| {
            runs.each(from, to, |[ps, pd], len| {
                run(s, ps, is, bytes, pd - base, id, len)
            })
        })
    })
}
