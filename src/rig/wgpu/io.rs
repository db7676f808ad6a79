//! GPU memory: wgpu buffers padded to the 4-byte copy alignment, written through the
//! queue, read back through mapped staging buffers. The padding never shows: a write
//! of a range that is not whole words goes through the strided blit, which changes
//! only the range's bytes, and a read returns exactly the bytes asked for (case K11).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use wgpu::util::DeviceExt;

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
    /// A zeroed buffer of `len` bytes (padded to whole words, at least one) that kernels
    /// bind as storage and copies read and write.
    ///
    /// # Errors
    /// [`Error::Invalid`] if `len` is over the device's `maxBufferSize`.
    pub(crate) fn create(&self, op: &'static str, len: usize) -> Result<wgpu::Buffer, Error> {
        let size = round_up(len.max(1)) as u64;
        if size > self.limits().max_buffer_size {
            return Err(Error::Invalid {
                op,
                reason: format!(
                    "{len} bytes are over the device's maxBufferSize of {} bytes (splitting across allocations is not done yet)",
                    self.limits().max_buffer_size
                ),
                operands: String::new(),
            });
        }
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("nxrig memory"),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }))
    }

    /// A buffer holding `data` (padded with zeros to whole words), to be bound as a
    /// kernel's source.
    pub(crate) fn staged(&self, data: &[u8]) -> wgpu::Buffer {
        let mut v = data.to_vec();
        v.resize(round_up(data.len().max(1)), 0);
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("nxrig upload"),
                contents: &v,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            })
    }

    /// Writes `data` at byte `start` of `buf`, a memory of `mem_len` bytes, changing no
    /// other byte of it: a queue write where the range is whole words (or ends the
    /// memory, whose padding no one sees), else an upload and a byte blit.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the device reported an error.
    pub(crate) fn upload(
        &self,
        op: &'static str,
        buf: &wgpu::Buffer,
        mem_len: usize,
        start: usize,
        data: &[u8],
    ) -> Result<(), Error> {
        if data.is_empty() {
            return Ok(());
        }
        let end = start + data.len();
        if start % COPY_ALIGN == 0 && (end % COPY_ALIGN == 0 || end == mem_len) {
            if data.len() % COPY_ALIGN == 0 {
                self.queue.write_buffer(buf, start as u64, data);
            } else {
                let mut v = data.to_vec();
                v.resize(round_up(data.len()), 0);
                self.queue.write_buffer(buf, start as u64, &v);
            }
            self.queue.submit([]);
            return self.reported(op);
        }
        let src = self.staged(data);
        self.blit_bytes(op, &src, 0, buf, start, data.len())
    }

    /// Starts reading bytes `start..start + len` of `buf` back to the host: the copy
    /// into a staging buffer is submitted now; the returned future maps it.
    pub(crate) fn readback(
        &self,
        rig: &Rig,
        buf: &wgpu::Buffer,
        start: usize,
        len: usize,
    ) -> Readback {
        if len == 0 {
            return Readback {
                rig: rig.clone(),
                staging: None,
                skip: 0,
                len: 0,
                rx: None,
            };
        }
        let a0 = start / COPY_ALIGN * COPY_ALIGN;
        let a1 = round_up(start + len);
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("nxrig readback"),
            size: (a1 - a0) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buf, a0 as u64, &staging, 0, (a1 - a0) as u64);
        self.queue.submit([enc.finish()]);
        let (tx, rx) = futures_channel::oneshot::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        Readback {
            rig: rig.clone(),
            staging: Some(staging),
            skip: start - a0,
            len,
            rx: Some(rx),
        }
    }
}

/// A read of GPU memory under way: resolves to the bytes, or to [`Error::Lost`] if the
/// device is lost first (case K13). Natively, polling it blocks until the GPU is done.
pub(crate) struct Readback {
    rig: Rig,
    staging: Option<wgpu::Buffer>,
    skip: usize,
    len: usize,
    rx: Option<futures_channel::oneshot::Receiver<Result<(), wgpu::BufferAsyncError>>>,
}

impl Future for Readback {
    type Output = Result<Vec<u8>, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        const OP: &str = "Rig.Buffer.read";
        let this = &mut *self;
        let (Some(rx), Some(staging)) = (this.rx.as_mut(), this.staging.as_ref()) else {
            return Poll::Ready(Ok(Vec::new()));
        };
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
        match Pin::new(rx).poll(cx) {
            Poll::Ready(Ok(Ok(()))) => {
                let out = match staging.get_mapped_range(..) {
                    Ok(v) => Ok(v[this.skip..this.skip + this.len].to_vec()),
                    Err(e) => Err(lost_or(&this.rig, e.to_string())),
                };
                staging.unmap();
                Poll::Ready(out)
            }
            Poll::Ready(Ok(Err(e))) => Poll::Ready(Err(lost_or(&this.rig, e.to_string()))),
            Poll::Ready(Err(_)) => {
                Poll::Ready(Err(lost_or(&this.rig, "the map was dropped".into())))
            }
            Poll::Pending => {
                // Wake on loss as well: a lost timeline never reaches this stamp.
                let mut lost = this.rig.timeline().reached(Stamp(u64::MAX));
                match Pin::new(&mut lost).poll(cx) {
                    Poll::Ready(_) => Poll::Ready(Err(this.rig.lost(OP))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}
