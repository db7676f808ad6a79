//! GPU memory: wgpu buffers (chunks, over the largest buffer) padded to the 4-byte copy
//! alignment, written through the queue, read back through mapped staging buffers. The padding never shows: a write
//! of a range that is not whole words goes through the strided blit, which changes
//! only the range's bytes, and a read returns exactly the bytes asked for.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::memory::GpuMemory;
use super::pool;
use super::Gpu;
use crate::error::Error;
use crate::rig::timeline::Stamp;

/// WebGPU's copy alignment, in bytes.
pub(crate) const COPY_ALIGN: usize = 4;

/// The largest chunk of GPU memory in the browser: an allocation larger is split into
/// chunks of this size, whatever the adapter's `maxBufferSize`. Chromium's SwiftShader
/// admits a 1 GiB `maxBufferSize` but fails to allocate one 1 GiB buffer (the device is
/// then lost), while buffers of 256 MiB add up to many GiB.
/// Natively, chunks are as large as the adapter allows.
#[cfg(target_arch = "wasm32")]
const BROWSER_CHUNK: usize = 256 << 20;

fn round_up(x: usize) -> usize {
    x.div_ceil(COPY_ALIGN) * COPY_ALIGN
}

/// The smallest chunk [`Gpu::create_async`] tries before it says the device is out of
/// memory.
const SMALLEST_TRY: usize = 16 << 20;

const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// The chunk and the sizes of the buffers of an allocation of `len` bytes in buffers of
/// at most `most` bytes: one buffer (padded to whole words, at least one), or chunks of
/// `most` rounded down to 256 bytes.
fn chunking(len: usize, most: usize) -> (usize, Vec<u64>) {
    let most = most.max(256);
    let chunk = if round_up(len.max(1)) <= most {
        round_up(len.max(1))
    } else {
        most / 256 * 256
    };
    let count = len.max(1).div_ceil(chunk);
    let sizes = (0..count)
        .map(|c| round_up((len.max(1) - c * chunk).min(chunk)) as u64)
        .collect();
    (chunk, sizes)
}

impl Gpu {
    /// The largest buffer the device allows.
    fn largest(&self) -> usize {
        usize::try_from(self.limits().max_buffer_size).unwrap_or(usize::MAX)
    }

    /// A zeroed allocation of `len` bytes that kernels bind as storage and copies read
    /// and write: one buffer (padded to whole words, at least one), or, over the
    /// device's largest buffer (in the browser over 256 MiB), chunks of that
    /// size (rounded down to 256 bytes). Buffers
    /// of the same sizes that earlier memory gave back are reused, cleared first where
    /// `clear` says so (a clear on the queue, before any later work; else their bytes
    /// are unspecified, for a caller that writes them all).
    ///
    /// In the browser an allocation's failure is reported only later (the device is
    /// then lost): [`Gpu::create_async`] learns it at the call.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] if the device has no room (also after the kept buffers
    /// were dropped to make room); [`Error::Device`] for another error it reports.
    pub(crate) fn create(
        &self,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<GpuMemory, Error> {
        let most = self.largest();
        #[cfg(target_arch = "wasm32")]
        let most = most.min(BROWSER_CHUNK);
        let (chunk, sizes) = chunking(len, most);
        // Natively the device says at once whether it had room: in an error scope, so
        // that an error of other work waiting for its own call is not taken for it.
        #[cfg(not(target_arch = "wasm32"))]
        {
            let no_room = |buffers: &mut Vec<wgpu::Buffer>, clear: bool| {
                let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
                *buffers = self.buffers(&sizes, clear);
                pollster::block_on(scope.pop()).is_some()
            };
            let mut buffers = Vec::new();
            if no_room(&mut buffers, clear) {
                // Drop what the pool keeps and try once more.
                buffers.clear();
                self.empty_cache();
                if no_room(&mut buffers, false) {
                    return Err(self.no_room(op, len));
                }
            }
            if self.timeline.is_lost() {
                return Err(self.lost(op));
            }
            Ok(GpuMemory::new(buffers, chunk, len).pooled(&self.pool))
        }
        #[cfg(target_arch = "wasm32")]
        let mut buffers = self.buffers(&sizes, clear);
        #[cfg(target_arch = "wasm32")]
        if self.reported(op).is_err() {
            // Out of memory, perhaps: drop what the pool keeps and try once more.
            buffers.clear();
            self.empty_cache();
            buffers = self.buffers(&sizes, false);
            if self.out_of_memory() {
                let _ = self.reported(op);
                return Err(self.no_room(op, len));
            }
            self.reported(op)?;
        }
        #[cfg(target_arch = "wasm32")]
        Ok(GpuMemory::new(buffers, chunk, len).pooled(&self.pool))
    }

    /// [`Gpu::create`], its buffers made inside an out-of-memory error scope and the
    /// scope awaited, so that a device that cannot allocate says so at the call and
    /// stays usable: where it could not, the kept buffers are dropped and the memory is
    /// made again of chunks half as large, down to 16 MiB. Chunks start at the
    /// device's largest buffer (in the browser too, where [`Gpu::create`] stops at
    /// 256 MiB).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] if the device could not allocate chunks of 16 MiB (or the
    /// memory's own size, if smaller); [`Error::Device`] for another error it reports;
    /// [`Error::Lost`] once it is lost.
    pub(crate) async fn create_async(
        &self,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<GpuMemory, Error> {
        let mut most = self.largest();
        loop {
            let (chunk, sizes) = chunking(len, most);
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let buffers = self.buffers(&sizes, clear);
            let failed = scope.pop().await.is_some();
            if !failed {
                self.reported(op)?;
                return Ok(GpuMemory::new(buffers, chunk, len).pooled(&self.pool));
            }
            // Not pooled: destroyed now (in the browser a dropped buffer would hold
            // its memory until it is collected), never reused.
            for b in &buffers {
                b.destroy();
            }
            drop(buffers);
            self.empty_cache();
            if chunk <= SMALLEST_TRY {
                return Err(self.no_room(op, len));
            }
            most = chunk / 2;
        }
    }

    /// Buffers of `sizes`: those that freed memory of the same sizes gave back (cleared
    /// on the queue where `clear` says so), new ones for the rest.
    fn buffers(&self, sizes: &[u64], clear: bool) -> Vec<wgpu::Buffer> {
        let mut kept = Vec::new();
        {
            let mut p = pool::lock(&self.pool);
            for &size in sizes {
                kept.push(p.take(size, USAGE));
            }
        }
        if clear && kept.iter().any(Option::is_some) {
            let mut enc = self.device.create_command_encoder(&Default::default());
            for b in kept.iter().flatten() {
                enc.clear_buffer(b, 0, None);
            }
            self.queue.submit([enc.finish()]);
        }
        let make = |size: u64| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("nxrig memory"),
                size,
                usage: USAGE,
                mapped_at_creation: false,
            })
        };
        sizes
            .iter()
            .zip(&mut kept)
            .map(|(&size, k)| k.take().unwrap_or_else(|| make(size)))
            .collect()
    }

    /// The error of an allocation of `len` bytes that found no room.
    fn no_room(&self, op: &'static str, len: usize) -> Error {
        Error::OutOfMemory {
            op,
            device: self.name.clone(),
            bytes: len,
        }
    }

    /// A memory holding `data` (padded with zeros to whole words), to be bound as a
    /// kernel's source.
    pub(crate) fn staged(&self, data: &[u8]) -> GpuMemory {
        let mut v = data.to_vec();
        v.resize(round_up(data.len().max(1)), 0);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let b = self.buffer_with("nxrig upload", &v, usage);
        GpuMemory::single(b, data.len())
    }

    /// Writes `data` at byte `start` of `mem`, changing no other byte of it: a queue
    /// write where a chunk's part of the range is whole words (or ends the memory,
    /// whose padding no one sees), else an upload and a byte blit.
    ///
    /// # Errors
    /// [`Error::Device`] if the device reported an error; [`Error::Lost`] once it is lost.
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
    /// into staging buffers (one a chunk the range touches; kept ones reused) are
    /// submitted now; the returned future maps them and gathers the bytes into `out`.
    pub(crate) fn readback<'a>(
        self: &Arc<Self>,
        mem: &GpuMemory,
        start: usize,
        len: usize,
        out: Out<'a>,
    ) -> Readback<'a> {
        const USAGE: wgpu::BufferUsages =
            wgpu::BufferUsages::MAP_READ.union(wgpu::BufferUsages::COPY_DST);
        let mut parts = Vec::new();
        let mut enc = self.device.create_command_encoder(&Default::default());
        for (c, off, n, _) in mem.segments(start, len) {
            let a0 = off / COPY_ALIGN * COPY_ALIGN;
            let size = (round_up(off + n) - a0) as u64;
            let kept = pool::lock(&self.pool).take(size, USAGE);
            let staging = kept.unwrap_or_else(|| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("nxrig readback"),
                    size,
                    usage: USAGE,
                    mapped_at_creation: false,
                })
            });
            enc.copy_buffer_to_buffer(&mem.buffers()[c], a0 as u64, &staging, 0, size);
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
            gpu: Arc::clone(self),
            parts,
            out: Some(out),
            next: 0,
            done: 0,
        }
    }
}

/// Where a read puts the bytes: a `Vec` (with room for them), a slice of the caller's
/// of exactly their length (host memory a blocking read fills, with no copy between),
/// or, in the browser, a JavaScript `Uint8Array` of `len` bytes (so that they never
/// pass through wasm memory; made by the first part's copy when one part holds them
/// all).
pub(crate) enum Out<'a> {
    Bytes(Vec<u8>),
    /// Blocking reads only, which the browser has not.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Slice(&'a mut [u8]),
    #[cfg(target_arch = "wasm32")]
    Js {
        bytes: Option<js_sys::Uint8Array>,
        len: usize,
    },
}

impl Out<'_> {
    /// A `Vec` with room for `len` bytes.
    pub(crate) fn bytes(len: usize) -> Out<'static> {
        Out::Bytes(Vec::with_capacity(len))
    }

    /// A JavaScript `Uint8Array` of `len` bytes.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn js(len: usize) -> Out<'static> {
        Out::Js { bytes: None, len }
    }

    /// The bytes in a `Vec` (copied out of JavaScript's memory for [`Out::Js`], out
    /// of the caller's slice for [`Out::Slice`]).
    pub(crate) fn into_vec(self) -> Vec<u8> {
        match self {
            Out::Bytes(v) => v,
            Out::Slice(s) => s.to_vec(),
            #[cfg(target_arch = "wasm32")]
            Out::Js { .. } => self.into_js().to_vec(),
        }
    }

    /// The bytes in a JavaScript `Uint8Array` over the whole of its `ArrayBuffer`.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn into_js(self) -> js_sys::Uint8Array {
        match self {
            Out::Bytes(v) => js_sys::Uint8Array::from(&v[..]),
            Out::Slice(s) => js_sys::Uint8Array::from(&s[..]),
            Out::Js { bytes, len } => {
                bytes.unwrap_or_else(|| js_sys::Uint8Array::new_with_length(len as u32))
            }
        }
    }

    /// Puts the mapped bytes `skip..skip + len` of `view` at byte `at`.
    fn put(&mut self, at: usize, view: &wgpu::BufferView, skip: usize, len: usize) {
        match self {
            Out::Bytes(v) => {
                debug_assert_eq!(v.len(), at);
                v.extend_from_slice(&view[skip..skip + len]);
            }
            Out::Slice(s) => s[at..at + len].copy_from_slice(&view[skip..skip + len]),
            #[cfg(target_arch = "wasm32")]
            Out::Js { bytes, len: total } => {
                let part = (skip as u32, (skip + len) as u32);
                let mapped = view.as_uint8array();
                if at == 0 && len == *total {
                    // One copy, into a fresh ArrayBuffer (no zeroing first).
                    *bytes = Some(mapped.slice(part.0, part.1));
                    return;
                }
                bytes
                    .get_or_insert_with(|| js_sys::Uint8Array::new_with_length(*total as u32))
                    .set(&mapped.subarray(part.0, part.1), at as u32);
            }
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
/// device is lost first. Natively, polling it blocks until the GPU is done.
pub(crate) struct Readback<'a> {
    gpu: Arc<Gpu>,
    parts: Vec<Part>,
    out: Option<Out<'a>>,
    next: usize,
    /// Bytes gathered so far.
    done: usize,
}

impl<'a> Future for Readback<'a> {
    type Output = Result<Out<'a>, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        const OP: &str = "Buffer::read_async";
        let this = &mut *self;
        let taken = || Error::Invalid {
            op: OP,
            reason: "nxrig bug: a read polled after it ended".into(),
            operands: String::new(),
        };
        if this.next == this.parts.len() {
            return Poll::Ready(this.out.take().ok_or_else(taken));
        }
        if this.gpu.timeline.is_lost() {
            return Poll::Ready(Err(this.gpu.lost(OP)));
        }
        #[cfg(not(target_arch = "wasm32"))]
        this.gpu.block();
        let lost_or = |g: &Gpu, why: String| {
            if g.timeline.is_lost() {
                g.lost(OP)
            } else {
                Error::Device {
                    op: OP,
                    device: g.name.clone(),
                    reason: format!("mapping GPU memory failed: {why}"),
                }
            }
        };
        while this.next < this.parts.len() {
            let p = &mut this.parts[this.next];
            let rx = p.rx.as_mut().expect("mapped when made");
            match Pin::new(rx).poll(cx) {
                Poll::Ready(Ok(Ok(()))) => {
                    let r = match (p.staging.get_mapped_range(..), this.out.as_mut()) {
                        (Ok(v), Some(out)) => {
                            out.put(this.done, &v, p.skip, p.len);
                            Ok(())
                        }
                        (Err(e), _) => Err(lost_or(&this.gpu, e.to_string())),
                        (_, None) => Err(taken()),
                    };
                    p.staging.unmap();
                    if let Err(e) = r {
                        return Poll::Ready(Err(e));
                    }
                    pool::lock(&this.gpu.pool).keep(p.staging.clone());
                    this.done += p.len;
                    this.next += 1;
                }
                Poll::Ready(Ok(Err(e))) => {
                    return Poll::Ready(Err(lost_or(&this.gpu, e.to_string())))
                }
                Poll::Ready(Err(_)) => {
                    return Poll::Ready(Err(lost_or(&this.gpu, "the map was dropped".into())))
                }
                Poll::Pending => {
                    // Wake on loss as well: a lost timeline never reaches this stamp.
                    let mut lost = this.gpu.timeline.reached(Stamp(u64::MAX));
                    return match Pin::new(&mut lost).poll(cx) {
                        Poll::Ready(_) => Poll::Ready(Err(this.gpu.lost(OP))),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
        // An error the device reported meanwhile (a buffer it could not make, in the
        // browser known only now) means the bytes may not be the array's.
        if let Err(e) = this.gpu.reported(OP) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(this.out.take().ok_or_else(taken))
    }
}
