//! The host cast kernel: elements of one array converted into another of the same
//! shape, over any layouts. Seed: `Nx_array` § Kernels (host kernels).

use crate::array::{door, AnyArray};
use crate::dtype::DType;
use crate::dtype::{convert_bits, convert_run, read_bits, write_bits};
use crate::error::Error;

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

/// Elements per run handed to a thread of the contiguous kernel.
#[cfg(not(target_arch = "wasm32"))]
const PARALLEL_MIN: usize = 1 << 20;

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
    let d0 = dst.layout().offset();
    src.buffer().read_as("Nx_array.cast", |s| {
        dst.buffer().write_as("Nx_array.cast", |d| {
            if src.layout().is_contiguous() {
                let s0 = src.layout().offset();
                contiguous(sd, s, s0, dd, d, d0, n);
            } else {
                let mut i = d0;
                src.layout().for_each_position(|p| {
                    let b = read_bits(sd, s, p);
                    // Into the same dtype, a copy: every bit, as the contiguous run does.
                    write_bits(dd, d, i, if sd == dd { b } else { convert_bits(sd, dd, b) });
                    i += 1;
                });
            }
        })
    })?
}

/// Converts a contiguous run, split across threads when it is long and both dtypes
/// are byte-addressed.
fn contiguous(
    sd: crate::DType,
    s: &[u8],
    s0: usize,
    dd: crate::DType,
    d: &mut [u8],
    d0: usize,
    n: usize,
) {
    #[cfg(not(target_arch = "wasm32"))]
    if n >= 2 * PARALLEL_MIN && !sd.is_sub_byte() && !dd.is_sub_byte() {
        let threads = std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(n / PARALLEL_MIN);
        if threads > 1 {
            let (sw, dw) = (sd.storage_bytes(), dd.storage_bytes());
            let per = n.div_ceil(threads);
            let s = &s[s0 * sw..(s0 + n) * sw];
            let d = &mut d[d0 * dw..(d0 + n) * dw];
            std::thread::scope(|scope| {
                for (sc, dc) in s.chunks(per * sw).zip(d.chunks_mut(per * dw)) {
                    scope.spawn(move || convert_run(sd, sc, 0, dd, dc, 0, sc.len() / sw));
                }
            });
            return;
        }
    }
    convert_run(sd, s, s0, dd, d, d0, n);
}
