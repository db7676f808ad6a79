//! Copying bytes between buffers: copy, blit, fill.
//!
//! Each runs as work on the destination's device: it holds read claims on its buffers
//! until it returns and is ordered by the stamps like any submission.

use super::buffer::Buffer;
use crate::error::Error;

impl Buffer {
    /// Copies `len` bytes from `src` at byte `src_start` into `dst` at byte `dst_start`,
    /// as `memmove` does where the ranges overlap, between any two devices: on one GPU
    /// by the copy engine where the range is whole words, else by the strided blit;
    /// into a GPU through its queue; out of a GPU through a staging buffer (blocking:
    /// native only). No byte of `dst` outside the range changes.
    ///
    /// # Errors
    /// [`Error::Invalid`] if a range is not inside its buffer, or for a copy out of a
    /// GPU in the browser; what [`super::Rig::submit`] returns.
    pub fn blit(
        src: &Buffer,
        src_start: usize,
        dst: &Buffer,
        dst_start: usize,
        len: usize,
    ) -> Result<(), Error> {
        const OP: &str = "Buffer::blit";
        let bad = |what: &str, start: usize, b: &Buffer| Error::Invalid {
            op: OP,
            reason: format!(
                "{what} bytes {start}..{start}+{len} are not inside a buffer of {} bytes",
                b.len()
            ),
            operands: String::new(),
        };
        if src_start.checked_add(len).is_none_or(|e| e > src.len()) {
            return Err(bad("source", src_start, src));
        }
        if dst_start.checked_add(len).is_none_or(|e| e > dst.len()) {
            return Err(bad("destination", dst_start, dst));
        }
        Buffer::blit_checked(src, src_start, dst, dst_start, len)
    }

    /// Copies all of `src` into `dst`, of the same length.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the lengths differ; what [`Buffer::blit`] returns.
    pub fn copy(src: &Buffer, dst: &Buffer) -> Result<(), Error> {
        if src.len() != dst.len() {
            return Err(Error::Invalid {
                op: "Buffer::copy",
                reason: format!("a buffer of {} bytes into one of {}", src.len(), dst.len()),
                operands: String::new(),
            });
        }
        Buffer::blit(src, 0, dst, 0, src.len())
    }

    /// Sets every byte of `dst` to `byte`.
    ///
    /// # Errors
    /// What [`super::Rig::submit`] returns.
    pub fn fill(dst: &Buffer, byte: u8) -> Result<(), Error> {
        dst.fill_bytes(byte)
    }
}
