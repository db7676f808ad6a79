//! GPU memory: one or more wgpu buffers ("chunks") holding an allocation's bytes in
//! order. An allocation over the device's `maxBufferSize` is split across chunks of
//! equal size (a multiple of 256 bytes, so that no element straddles two); each
//! chunk is padded to whole words, and the padding never shows.
//! Memory that came from [`crate::rig::Rig`]'s allocations gives its buffers back to
//! the device's pool when it is dropped.

use super::pool::{self, Shared};

/// The bytes of one GPU allocation: `len` bytes over [`GpuMemory::buffers`], byte `b`
/// at byte `b % chunk` of buffer `b / chunk`.
///
/// ```
/// use nxrig::rig::{Buffer, Kind};
/// use nxrig::Rig;
///
/// if let Ok(gpu) = Rig::by_name("gpu") {
///     let b = Buffer::create(&gpu, 10, Kind::Device)?;
///     let (m, start) = b.wgpu_memory().expect("GPU memory");
///     assert_eq!((m.len(), start), (10, 0));
///     assert_eq!(m.buffers()[0].size(), 12); // padded to whole words, never seen
/// }
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Debug)]
pub struct GpuMemory {
    buffers: Vec<wgpu::Buffer>,
    chunk: usize,
    len: usize,
    /// Where the buffers go when the memory is dropped (none: they are dropped).
    pool: Option<Shared>,
    /// Set once the buffers were handed to another library: they never go back to
    /// the pool, whatever `pool` says.
    exported: std::sync::atomic::AtomicBool,
}

/// A piece of a byte range that lies in one chunk: (chunk, byte in the chunk, bytes,
/// bytes of the range before it).
pub(crate) type Segment = (usize, usize, usize, usize);

impl GpuMemory {
    pub(crate) fn new(buffers: Vec<wgpu::Buffer>, chunk: usize, len: usize) -> GpuMemory {
        debug_assert!(chunk.is_multiple_of(256) || buffers.len() == 1);
        GpuMemory {
            buffers,
            chunk,
            len,
            pool: None,
            exported: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Keeps the buffers out of the pool for good: another library holds them, so no
    /// later allocation may reuse them.
    pub(crate) fn never_pool(&self) {
        self.exported
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The memory, giving its buffers back to `pool` when dropped.
    pub(crate) fn pooled(mut self, pool: &Shared) -> GpuMemory {
        self.pool = Some(pool.clone());
        self
    }

    /// One wgpu buffer holding `len` bytes.
    pub(crate) fn single(b: wgpu::Buffer, len: usize) -> GpuMemory {
        let chunk = b.size() as usize;
        GpuMemory::new(vec![b], chunk.max(1), len)
    }

    /// The wgpu buffers, in byte order.
    pub fn buffers(&self) -> &[wgpu::Buffer] {
        &self.buffers
    }

    /// Bytes of each buffer but the last (which holds the rest).
    pub fn chunk(&self) -> usize {
        self.chunk
    }

    /// The allocation's length in bytes (without padding).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an allocation of no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes `start..start + len` cut where chunks end.
    pub(crate) fn segments(&self, start: usize, len: usize) -> Vec<Segment> {
        let mut out = Vec::new();
        let mut done = 0;
        while done < len {
            let b = start + done;
            let (c, off) = (b / self.chunk, b % self.chunk);
            let n = (self.chunk - off).min(len - done);
            out.push((c, off, n, done));
            done += n;
        }
        out
    }
}

impl Drop for GpuMemory {
    fn drop(&mut self) {
        if self.exported.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Some(p) = self.pool.take() {
            let mut p = pool::lock(&p);
            for b in self.buffers.drain(..) {
                p.keep(b);
            }
        }
    }
}
