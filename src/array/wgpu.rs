//! Arrays on a GPU through wgpu: where an array's elements start in its wgpu buffers,
//! and element moves by the strided blit.

use super::any::AnyArray;
use crate::error::Error;
use crate::rig::wgpu::{Gpu, GpuMemory};

impl AnyArray {
    /// The position, in elements, of the buffer's first byte in its memory, which the
    /// wgpu kernels add to the layout's positions.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` where that byte is not on an element boundary (a
    /// complex array over a view that starts inside an element's width).
    pub(crate) fn wgpu_base(&self, op: &'static str) -> Result<usize, Error> {
        // Bits in 64-bit arithmetic: on wasm32 a byte position from 512 MiB up has
        // more bits than a usize holds.
        let bits = self.dtype.bits() as u64;
        let start_bits = self.buffer.start() as u64 * 8;
        if !start_bits.is_multiple_of(bits) {
            return Err(Error::Invalid {
                op,
                reason: format!(
                    "a GPU kernel addresses whole elements of the memory, and the buffer starts at byte {}, inside a {}-byte element",
                    self.buffer.start(),
                    bits / 8
                ),
                operands: super::any::describe(self.dtype, &self.layout),
            });
        }
        Ok((start_bits / bits) as usize)
    }

    /// The wgpu buffers of the array's memory.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` for memory of another backend (an array on
    /// another device than the kernel's).
    pub(crate) fn wgpu_memory(&self, op: &'static str) -> Result<&GpuMemory, Error> {
        self.buffer
            .wgpu_memory()
            .map(|m| m.0)
            .ok_or_else(|| Error::Invalid {
                op,
                reason: format!(
                    "the array is on {}, not on the GPU device of the kernel",
                    self.rig().name()
                ),
                operands: super::any::describe(self.dtype, &self.layout),
            })
    }
}

/// Moves `src`'s elements into `dst` (same shape and dtype, on `g`'s device, two
/// memories) by the strided blit. The caller holds the door's claims.
pub(crate) fn transfer(
    g: &Gpu,
    src: &AnyArray,
    dst: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    let (sb, db) = (src.wgpu_memory(op)?, dst.wgpu_memory(op)?);
    let (sbase, dbase) = (src.wgpu_base(op)?, dst.wgpu_base(op)?);
    let rig = dst.rig();
    rig.submit_as(op, &[&src.buffer], &[&dst.buffer], || {
        g.blit_strided(
            op,
            src.dtype.bits(),
            sb,
            (&src.layout, sbase),
            db,
            (&dst.layout, dbase),
        )
    })?;
    Ok(())
}
