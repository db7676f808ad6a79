//! The strided blit: elements of one width moved bit for bit between two layouts by
//! the runtime's own kernel, `z = a` on raw bits. Placement, not arithmetic: it
//! stands in for the copy engine, which WebGPU gives only 4-byte-aligned contiguous
//! ranges. Elements narrower than a word are stored with atomics (or whole words of
//! their own), so no neighbour's bits change.

use super::memory::GpuMemory;
use super::plan::Operand;
use super::Gpu;
use crate::dtype::DType;
use crate::error::Error;
use crate::layout::Layout;
use crate::wgsl::{Kernel, Slot};

/// The kernel that moves elements `bits` wide bit for bit (those of the first dtype
/// of that width, unconverted).
fn transfer(bits: u32) -> Kernel<'static> {
    let d = DType::ALL
        .into_iter()
        .find(|d| d.bits() == bits)
        .expect("nxrig bug: a width no dtype has");
    let slot = |name, output| Slot {
        name,
        dtype: d,
        output,
    };
    Kernel::new(vec![slot("a", false), slot("z", true)], None, "z = a;").expect("two operands")
}

impl Gpu {
    /// Moves the elements of `src`, `bits` wide at `src.0`'s positions counted from
    /// element `src.1` of `src_mem`, into `dst.0`'s positions from `dst.1` of `dst_mem`,
    /// in C order of the shape they share.
    ///
    /// # Errors
    /// [`Error::Device`] if the device reported an error; [`Error::Lost`] once it is lost.
    pub(crate) fn blit_strided(
        &self,
        op: &'static str,
        bits: u32,
        src_mem: &GpuMemory,
        src: (&Layout, usize),
        dst_mem: &GpuMemory,
        dst: (&Layout, usize),
    ) -> Result<(), Error> {
        self.run(
            op,
            &transfer(bits),
            &[
                Operand {
                    mem: src_mem,
                    layout: src.0,
                    base: src.1,
                    bits,
                },
                Operand {
                    mem: dst_mem,
                    layout: dst.0,
                    base: dst.1,
                    bits,
                },
            ],
        )
    }

    /// Bytes `s0..s0 + len` of `src` into `d0..d0 + len` of `dst` (different
    /// memories), changing no other byte of `dst`: by the copy engine where the range is
    /// whole words, else by the strided blit.
    ///
    /// # Errors
    /// As [`Gpu::blit_strided`].
    pub(crate) fn blit_bytes(
        &self,
        op: &'static str,
        src: &GpuMemory,
        s0: usize,
        dst: &GpuMemory,
        d0: usize,
        len: usize,
    ) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        if s0.is_multiple_of(4) && d0.is_multiple_of(4) && len.is_multiple_of(4) {
            let mut enc = self.device.create_command_encoder(&Default::default());
            for (sc, so, n, done) in src.segments(s0, len) {
                for (dc, doff, m, within) in dst.segments(d0 + done, n) {
                    enc.copy_buffer_to_buffer(
                        &src.buffers()[sc],
                        (so + within) as u64,
                        &dst.buffers()[dc],
                        doff as u64,
                        m as u64,
                    );
                }
            }
            self.queue.submit([enc.finish()]);
            return self.reported(op);
        }
        let l = Layout::contiguous(&[len])?;
        self.blit_strided(op, 8, src, (&l, s0), dst, (&l, d0))
    }
}
