//! The strided blit: elements of one width moved bit for bit between two layouts by
//! the generated transfer kernel. Placement, not arithmetic (DESIGN.md decision 7): it
//! stands in for the copy engine, which WebGPU gives only 4-byte-aligned contiguous
//! ranges. Elements narrower than a word are stored with atomics, so no neighbour's
//! bits change.

use super::Gpu;
use crate::error::Error;
use crate::layout::Layout;
use crate::wgsl::{transfer_module, walk_params, walk_params3};

impl Gpu {
    /// Moves the elements of `src`, `bits` wide at `src_layout`'s positions counted from
    /// element `src_base` of `src_buf`, into `dst_layout`'s positions from `dst_base` of
    /// `dst_buf`, in C order of the shape they share.
    ///
    /// # Errors
    /// [`Error::Invalid`] if a position does not fit the kernel's 32-bit arithmetic or a
    /// buffer is over the device's storage binding size (splitting is not done yet), or
    /// the device reported an error.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn blit_strided(
        &self,
        op: &'static str,
        bits: u32,
        src_buf: &wgpu::Buffer,
        src: (&Layout, usize),
        dst_buf: &wgpu::Buffer,
        dst: (&Layout, usize),
    ) -> Result<(), Error> {
        let params = self.walk(op, src, dst, &[src_buf, dst_buf])?;
        let n = src.0.numel() as u32;
        self.dispatch(
            op,
            &format!("transfer{bits}"),
            || transfer_module(bits),
            &params,
            &[src_buf, dst_buf],
            n,
        )
    }

    /// Bytes `s0..s0 + len` of `src` into `d0..d0 + len` of `dst` (different buffers),
    /// changing no other byte of `dst`.
    ///
    /// # Errors
    /// As [`Gpu::blit_strided`].
    pub(crate) fn blit_bytes(
        &self,
        op: &'static str,
        src: &wgpu::Buffer,
        s0: usize,
        dst: &wgpu::Buffer,
        d0: usize,
        len: usize,
    ) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        if s0 % 4 == 0 && d0 % 4 == 0 && len % 4 == 0 {
            let mut enc = self.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(src, s0 as u64, dst, d0 as u64, len as u64);
            self.queue.submit([enc.finish()]);
            return self.reported(op);
        }
        let l = Layout::contiguous(&[len])?;
        self.blit_strided(op, 8, src, (&l, s0), dst, (&l, d0))
    }

    /// [`Gpu::walk`] with a second source `src2`.
    ///
    /// # Errors
    /// As [`Gpu::blit_strided`].
    pub(crate) fn walk3(
        &self,
        op: &'static str,
        src: (&Layout, usize),
        dst: (&Layout, usize),
        src2: (&Layout, usize),
        buffers: &[&wgpu::Buffer],
    ) -> Result<Vec<u8>, Error> {
        self.fit(op, buffers)?;
        walk_params3(src, dst, Some(src2)).ok_or_else(|| too_far(op))
    }

    /// The walk's parameters for `src` and `dst`, after checking that `buffers` fit a
    /// storage binding.
    ///
    /// # Errors
    /// As [`Gpu::blit_strided`].
    pub(crate) fn walk(
        &self,
        op: &'static str,
        src: (&Layout, usize),
        dst: (&Layout, usize),
        buffers: &[&wgpu::Buffer],
    ) -> Result<Vec<u8>, Error> {
        self.fit(op, buffers)?;
        walk_params(src, dst).ok_or_else(|| too_far(op))
    }

    /// `Err` naming `op` unless every buffer fits a storage binding.
    fn fit(&self, op: &'static str, buffers: &[&wgpu::Buffer]) -> Result<(), Error> {
        let most = self.limits().max_storage_buffer_binding_size;
        for b in buffers {
            if b.size() > most {
                return Err(Error::Invalid {
                    op,
                    reason: format!(
                        "a memory of {} bytes is over the device's storage binding size of {most} bytes (splitting across bindings is not done yet)",
                        b.size()
                    ),
                    operands: String::new(),
                });
            }
        }
        Ok(())
    }
}

fn too_far(op: &'static str) -> Error {
    Error::Invalid {
        op,
        reason: "a position is past the GPU kernels' 32-bit arithmetic (2^31 elements; splitting is not done yet)".into(),
        operands: String::new(),
    }
}
