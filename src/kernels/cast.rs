//! The cast kernel's front door: elements of one array converted into another of the
//! same shape, over any layouts, through the door, on the arrays' device's backend
//! (`host/cast.rs`, `wgpu.rs`, `cuda.rs`).

use crate::array::{door_with, refused, AnyArray};
use crate::dtype::overflow::saturates;
use crate::dtype::{bits_of_f64, f64_of_bits, CastMode, DType, Specials};
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

    /// [`AnyArray::cast`] in `mode`: [`CastMode::Default`] is `cast`;
    /// [`CastMode::Saturate`] gives a value past `dtype`'s largest finite, and an
    /// infinity, the largest finite of its sign (a NaN stays a NaN, quieted), on
    /// every device. Where `dtype` has infinities it is `cast` clipped to its
    /// largest finite (`maximum`, `minimum`: exact); where it has only a NaN
    /// (float8_e4m3fn, the "fnuz" and unsigned float8s) the values are clipped in
    /// float64 first (exact for every source but 64-bit integers past 2^53, which
    /// overflow each of them anyway) and cast once. So a bfloat16 of 70000 is a
    /// float16 65504, a float32 of 500 a float8_e4m3fn 448.
    ///
    /// # Errors
    /// As [`AnyArray::cast`], naming `AnyArray::cast`.
    pub fn cast_with(&self, dtype: DType, mode: CastMode) -> Result<AnyArray, Error> {
        if mode == CastMode::Default || !saturates(self.dtype(), dtype) {
            return self.cast(dtype);
        }
        let f = dtype.float_format().expect("saturates: a float dtype");
        let max = f64_of_bits(dtype, f.max_bits() as u128);
        // `a` (of `dtype` or float64) clipped in place to +-max (to max alone where
        // the format has no sign: a negative value's NaN stays), the bounds 0-d
        // arrays on this device.
        let clip = |a: &AnyArray| -> Result<(), Error> {
            let bound = |v: f64| {
                AnyArray::of_bits(a.dtype(), &[], &[bits_of_f64(a.dtype(), v)])
                    .and_then(|b| b.to_device(self.rig()))
            };
            if f.signed() {
                super::maximum_into(a, a, &bound(-max)?)?;
            }
            super::minimum_into(a, a, &bound(max)?)
        };
        let called = |e: Error| e.called(OP);
        if f.specials == Specials::Ieee {
            let z = self.cast(dtype)?;
            clip(&z).map_err(called)?;
            return Ok(z);
        }
        let w = self.cast(DType::Float64)?;
        clip(&w).map_err(called)?;
        w.cast(dtype)
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
