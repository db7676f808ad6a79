//! Arrays on GPU devices: element moves by the rig's strided blit, and the async form
//! of placement that the browser needs to bring GPU memory back. Seed: `Nx_array`
//! § Placement; DESIGN.md decision 7.

use super::any::AnyArray;
use super::placement::rename;
use crate::error::Error;
use crate::rig::{Buffer, Rig};

impl AnyArray {
    /// The position, in elements, of the buffer's first byte in its memory, which the
    /// GPU kernels add to the layout's positions.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` where that byte is not on an element boundary (a
    /// complex array over a view that starts inside an element's width).
    pub(crate) fn gpu_base(&self, op: &'static str) -> Result<usize, Error> {
        // Bits in 64-bit arithmetic: on wasm32 a byte position from 512 MiB up has
        // more bits than a usize holds.
        let bits = self.dtype.bits() as u64;
        let start_bits = self.buffer.start() as u64 * 8;
        if start_bits % bits != 0 {
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

    /// The bytes of a C-contiguous array whose first element starts on a byte: a view
    /// of just them, `numel` elements' bytes from the first element's byte. `None` for
    /// other layouts.
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer.
    pub(crate) fn own_bytes(&self) -> Option<Result<Buffer, Error>> {
        let (d, l) = (self.dtype, &self.layout);
        let first_bits = l.offset() as u64 * d.bits() as u64;
        if !l.is_contiguous() || first_bits % 8 != 0 {
            return None;
        }
        let len = d.bytes(l.numel()).ok()?;
        Some(self.buffer.view((first_bits / 8) as usize, len))
    }

    /// [`AnyArray::to_device`] that never blocks: GPU memory comes back through an
    /// async read. In the browser, the way to bring a GPU array to the host. The same
    /// placement as the blocking form (one compact form computed once, its bytes then
    /// read back without blocking): the same layout and the same bits, for every view.
    ///
    /// # Errors
    /// As [`AnyArray::to_device`].
    pub async fn to_device_async(&self, rig: &Rig) -> Result<AnyArray, Error> {
        const OP: &str = "Nx_array.to_device";
        if self.buffer.gpu_memory().is_none() || self.rig() == rig {
            return self.to_device(rig);
        }
        // Compact on its own GPU (a kernel, not a wait), then read its bytes back.
        let c = self.compact(OP)?;
        // Host memory is every host device's: straight onto `rig` where it is one.
        let on = if rig.host_addressable() {
            rig.clone()
        } else {
            Rig::host()
        };
        let host = match &c.bytes {
            None => c.place(self.dtype, &on),
            Some(b) => {
                let bytes = b.read_async().await.map_err(|e| rename(e, OP))?;
                c.on_host(self.dtype, &on, &bytes)
            }
        }?;
        if on == *rig {
            Ok(host)
        } else {
            host.to_device(rig)
        }
    }
}

/// Moves `src`'s elements into `dst` (same shape and dtype, one GPU, two memories) by
/// the strided blit. The caller holds the door's claims.
pub(crate) fn transfer_on_gpu(
    src: &AnyArray,
    dst: &AnyArray,
    op: &'static str,
) -> Result<(), Error> {
    let (Some((sb, _)), Some((db, _))) = (src.buffer.gpu_memory(), dst.buffer.gpu_memory()) else {
        unreachable!("nxrig bug: a GPU transfer of host memory")
    };
    let (sbase, dbase) = (src.gpu_base(op)?, dst.gpu_base(op)?);
    let rig = dst.rig();
    let g = rig.gpu().expect("GPU memory is on a GPU");
    rig.submit(&[&src.buffer], &[&dst.buffer], || {
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
