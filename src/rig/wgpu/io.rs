//! GPU memory: wgpu buffers (chunks, over the largest buffer) padded to the 4-byte copy
//! alignment, written through the queue, read back through mapped staging buffers. The padding never shows: a write
//! of a range that is not whole words goes through the strided blit, which changes
//! only the range's bytes, and a read returns exactly the bytes asked for (case K11).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use wgpu::util::DeviceExt;

use super::memory::GpuMemory;
use super::Gpu;
use crate::error::Error;
use crate::rig::device::Rig;
use crate::rig::timeline::Stamp;

/// WebGPU's copy alignment, in bytes.
pub(crate) const COPY_ALIGN: usize = 4;

fn round_up(x: usize) -> usize {
    x.div_ceil(COPY_ALIGN) * COPY_ALIGN
}

impl Gpu {
    /// A zeroed allocation of `len` bytes that kernels bind as storage and copies read
    /// and write: one buffer (padded to whole words, at least one), or, over the
    /// device's largest buffer, chunks of that size (rounded down to 256 bytes).
    ///
    /// # Errors
    /// [`Error::Invalid`] if the device cannot make a buffer.
    pub(crate) fn create(&self, op: &'static str, len: usize) -> Result<GpuMemory, Error> {
        let most = (self.limits().max_buffer_size as usize).max(256);
        let chunk = if round_up(len.max(1)) <= most {
            round_up(len.max(1))
        } else {
            most / 256 * 256
        };
        let count = len.max(1).div_ceil(chunk);
        let buffers = (0..count)
            .map(|c| {
                let size = round_up((len.max(1) - c * chunk).min(chunk)) as u64;
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("nxrig memory"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .collect();
        self.reported(op)?;
        Ok(GpuMemory::new(buffers, chunk, len))
    }

    /// A memory holding `data` (padded with zeros to whole words), to be bound as a
    /// kernel's source.
    pub(crate) fn staged(&self, data: &[u8]) -> GpuMemory {
        let mut v = data.to_vec();
        v.resize(round_up(data.len().max(1)), 0);
        let b = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("nxrig upload"),
                contents: &v,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            });
        GpuMemory::single(b, data.len())
    }

    /// Writes `data` at byte `start` of `mem`, changing no other byte of it: a queue
    /// write where a chunk's part of the range is whole words (or ends the memory,
    /// whose padding no one sees), else an upload and a byte blit.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the device reported an error.
    pub(crate) fn upload(
        &self,
        op: &'static str,
        mem: &GpuMemory,
        start: usize,
        data: &[u8],
    ) -> Result<(), Error> {
        for (c, off, n, done) in mem.segments(start, data.len()) {
            let part = &data[done..done + n];
            let ends = c * mem.chunk() + off + n == mem.len();
            if off % COPY_ALIGN == 0 && (n % COPY_ALIGN == 0 || ends) {
                if n % COPY_ALIGN == 0 {
                    self.queue.write_buffer(&mem.buffers()[c], off as u64, part);
                } else {
                    let mut v = part.to_vec();
                    v.resize(round_up(n), 0);
                    self.queue.write_buffer(&mem.buffers()[c], off as u64, &v);
                }
            } else {
                let src = self.staged(part);
                self.blit_bytes(op, &src, 0, mem, start + done, n)?;
            }
        }
        self.queue.submit([]);
        self.reported(op)
    }

    /// Starts reading bytes `start..start + len` of `mem` back to the host: the copies
    /// into staging buffers (one a chunk the range touches) are submitted now; the
    /// returned future maps them.
    pub(crate) fn readback(
        &self,
        rig: &Rig,
        mem: &GpuMemory,
        start: usize,
        len: usize,
    ) -> Readback {
        let mut parts = Vec::new();
        let mut enc = self.device.create_command_encoder(&Default::default());
        for (c, off, n, _) in mem.segments(start, len) {
            let a0 = off / COPY_ALIGN * COPY_ALIGN;
            let a1 = round_up(off + n);
            let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("nxrig readback"),
                size: (a1 - a0) as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_buffer_to_buffer(&mem.buffers()[c], a0 as u64, &staging, 0, (a1 - a0) as u64);
            parts.push(Part {
                staging,
                skip: off - a0,
                len: n,
                rx: None,
            });
        }
        self.queue.submit([enc.finish()]);
        for p in &mut parts {
            let (tx, rx) = futures_channel::oneshot::channel();
            p.staging.map_async(wgpu::MapMode::Read, .., move |r| {
                let _ = tx.send(r);
            });
            p.rx = Some(rx);
        }
        Readback {
            rig: rig.clone(),
            parts,
            out: Vec::with_capacity(len),
            next: 0,
        }
    }
}

/// One staging buffer of a read.
struct Part {
    staging: wgpu::Buffer,
    skip: usize,
    len: usize,
    rx: Option<futures_channel::oneshot::Receiver<Result<(), wgpu::BufferAsyncError>>>,
}

/// A read of GPU memory under way: resolves to the bytes, or to [`Error::Lost`] if the
/// device is lost first (case K13). Natively, polling it blocks until the GPU is done.
pub(crate) struct Readback {
    rig: Rig,
    parts: Vec<Part>,
    out: Vec<u8>,
    next: usize,
}

impl Future for Readback {
    type Output = Result<Vec<u8>, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        const OP: &str = "Rig.Buffer.read";
        let this = &mut *self;
        if this.next == this.parts.len() {
            return Poll::Ready(Ok(std::mem::take(&mut this.out)));
        }
        if this.rig.is_lost() {
            return Poll::Ready(Err(this.rig.lost(OP)));
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(g) = this.rig.gpu() {
            g.block();
        }
        let lost_or = |rig: &Rig, why: String| {
            if rig.is_lost() {
                rig.lost(OP)
            } else {
                Error::Invalid {
                    op: OP,
                    reason: format!("mapping GPU memory failed: {why}"),
                    operands: String::new(),
                }
            }
        };
        while this.next < this.parts.len() {
            let p = &mut this.parts[this.next];
            let rx = p.rx.as_mut().expect("mapped when made");
            match Pin::new(rx).poll(cx) {
                Poll::Ready(Ok(Ok(()))) => {
                    let r = match p.staging.get_mapped_range(..) {
                        Ok(v) => {
                            this.out.extend_from_slice(&v[p.skip..p.skip + p.len]);
                            Ok(())
                        }
                        Err(e) => Err(lost_or(&this.rig, e.to_string())),
                    };
                    p.staging.unmap();
                    if let Err(e) = r {
                        return Poll::Ready(Err(e));
                    }
                    this.next += 1;
                }
                Poll::Ready(Ok(Err(e))) => {
                    return Poll::Ready(Err(lost_or(&this.rig, e.to_string())))
                }
                Poll::Ready(Err(_)) => {
                    return Poll::Ready(Err(lost_or(&this.rig, "the map was dropped".into())))
                }
                Poll::Pending => {
                    // Wake on loss as well: a lost timeline never reaches this stamp.
                    let mut lost = this.rig.timeline().reached(Stamp(u64::MAX));
                    return match Pin::new(&mut lost).poll(cx) {
                        Poll::Ready(_) => Poll::Ready(Err(this.rig.lost(OP))),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
        Poll::Ready(Ok(std::mem::take(&mut this.out)))
    }
}
