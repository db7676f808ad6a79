//! Copying bytes between buffers: copy, blit, fill. Seed: `Rig.Buffer` (Copying).
//!
//! Each runs as work on the destination's device: it holds read claims on its buffers
//! until it returns and is ordered by the stamps like any submission.

use super::buffer::Buffer;
use super::memory::Memory;
use crate::error::Error;

impl Buffer {
    /// Copies `len` bytes from `src` at byte `src_start` into `dst` at byte `dst_start`,
    /// as `memmove` does where the ranges overlap, between any two devices: on one GPU
    /// by the copy engine where the range is whole words, else by the strided blit;
    /// into a GPU through its queue; out of a GPU through a staging buffer (blocking:
    /// native only). No byte of `dst` outside the range changes. Seed: `Rig.Buffer.blit`.
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
        const OP: &str = "Rig.Buffer.blit";
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
        if src.gpu_memory().is_some() || dst.gpu_memory().is_some() {
            return blit_gpu(src, src_start, dst, dst_start, len);
        }
        let (s0, d0) = (src.start() + src_start, dst.start() + dst_start);
        dst.rig().submit(&[src], &[dst], || {
            Memory::bytes_pair(&src.memory, &dst.memory, |s, d| match s {
                Some(s) => d[d0..d0 + len].copy_from_slice(&s[s0..s0 + len]),
                None => d.copy_within(s0..s0 + len, d0),
            });
            Ok(())
        })?;
        Ok(())
    }

    /// Copies all of `src` into `dst`, of the same length. Seed: `Rig.Buffer.copy`.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the lengths differ; what [`Buffer::blit`] returns.
    pub fn copy(src: &Buffer, dst: &Buffer) -> Result<(), Error> {
        if src.len() != dst.len() {
            return Err(Error::Invalid {
                op: "Rig.Buffer.copy",
                reason: format!("a buffer of {} bytes into one of {}", src.len(), dst.len()),
                operands: String::new(),
            });
        }
        Buffer::blit(src, 0, dst, 0, src.len())
    }

    /// Sets every byte of `dst` to `byte`. Seed: `Rig.Buffer.fill`.
    ///
    /// # Errors
    /// What [`super::Rig::submit`] returns.
    pub fn fill(dst: &Buffer, byte: u8) -> Result<(), Error> {
        const OP: &str = "Rig.Buffer.fill";
        if dst.gpu_memory().is_some() {
            return dst
                .rig()
                .submit(&[], &[dst], || {
                    dst.gpu_upload(OP, 0, &vec![byte; dst.len()])
                })
                .map(|_| ());
        }
        let d0 = dst.start();
        dst.rig().submit(&[], &[dst], || {
            dst.memory.bytes_mut(|d| d[d0..d0 + dst.len()].fill(byte));
            Ok(())
        })?;
        Ok(())
    }
}

/// [`Buffer::blit`] where a memory is on a GPU.
fn blit_gpu(
    src: &Buffer,
    src_start: usize,
    dst: &Buffer,
    dst_start: usize,
    len: usize,
) -> Result<(), Error> {
    const OP: &str = "Rig.Buffer.blit";
    if len == 0 {
        return Ok(());
    }
    let r = dst.rig().clone();
    match (src.gpu_memory(), dst.gpu_memory()) {
        (Some((sb, s0)), Some((db, d0))) if src.rig() == dst.rig() => {
            let g = r.gpu().expect("GPU memory is on a GPU");
            let (s0, d0) = (s0 + src_start, d0 + dst_start);
            r.submit(&[src], &[dst], || {
                if src.same_memory(dst) {
                    // WebGPU binds or copies one buffer as source and destination at
                    // once nowhere: go through a fresh one.
                    let t = g.create(OP, len, false)?;
                    g.blit_bytes(OP, sb, s0, &t, 0, len)?;
                    g.blit_bytes(OP, &t, 0, db, d0, len)
                } else {
                    g.blit_bytes(OP, sb, s0, db, d0, len)
                }
            })?;
        }
        (None, Some(_)) => {
            let s0 = src.start() + src_start;
            r.submit(&[src], &[dst], || {
                src.memory
                    .bytes(|b| dst.gpu_upload(OP, dst_start, &b[s0..s0 + len]))
            })?;
        }
        (Some(_), _) => {
            let part = src.view(src_start, len)?;
            r.submit(&[src], &[dst], || {
                let bytes = part.gpu_read_blocking(OP)?;
                match dst.gpu_memory() {
                    Some(_) => dst.gpu_upload(OP, dst_start, &bytes),
                    None => {
                        let d0 = dst.start() + dst_start;
                        dst.memory
                            .bytes_mut(|d| d[d0..d0 + len].copy_from_slice(&bytes));
                        Ok(())
                    }
                }
            })?;
        }
        (None, None) => unreachable!("host blits do not come here"),
    }
    Ok(())
}
