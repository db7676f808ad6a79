//! What the runtime does to bytes, on each backend: reads (blocking and async),
//! writes, uploads, copies and fills of buffers, each a match over [`On`] (the
//! memory's bytes with their backend), exhaustive; and the accessors of the wgpu
//! backend's own objects. Above the devices, memories and buffers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::backend::Backend;
use super::buffer::Buffer;
#[cfg(feature = "cuda")]
use super::cuda::{Cuda, CudaMemory};
use super::device::Rig;
use super::memory::{Access, Memory};
use super::seam::Store;
use super::wgpu::{Gpu, GpuMemory, Out, Readback};
use crate::error::Error;

/// A memory's bytes with the backend that holds them: what the data operations
/// below match on.
pub(crate) enum On<'a> {
    /// Host memory (reached through [`Memory::bytes`] and its kin).
    Host,
    /// GPU memory and its device.
    Wgpu(&'a Arc<Gpu>, &'a GpuMemory),
    /// CUDA memory and its device.
    #[cfg(feature = "cuda")]
    Cuda(&'a Arc<Cuda>, &'a CudaMemory),
}

impl Memory {
    /// The memory's bytes with their backend.
    pub(crate) fn on(&self) -> On<'_> {
        match (self.rig.backend(), self.store()) {
            (Backend::Host(_), Store::Host { .. }) => On::Host,
            (Backend::Wgpu(g), Store::Wgpu(m)) => On::Wgpu(g, m),
            #[cfg(feature = "cuda")]
            (Backend::Cuda(c), Store::Cuda(m)) => On::Cuda(&c.0, m),
            _ => unreachable!("nxrig bug: memory of one backend on a device of another"),
        }
    }
}

impl Buffer {
    /// The bytes of the buffer on the host, blocking (the caller holds a read claim
    /// and has waited where the backend needs it), given to `f`.
    pub(crate) fn read_claimed<R>(
        &self,
        op: &'static str,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Error> {
        match self.memory.on() {
            On::Host => {
                self.wait_for(op, false)?;
                let (s, n) = (self.start(), self.len());
                Ok(self.memory.bytes(|b| f(&b[s..s + n])))
            }
            On::Wgpu(g, m) => Ok(f(&g.read_blocking(op, m, self.start(), self.len())?)),
            #[cfg(feature = "cuda")]
            On::Cuda(c, m) => Ok(f(&c.read_blocking(op, m.at(self.start()), self.len())?)),
        }
    }

    /// The buffer's bytes copied into `out` (of the buffer's length), blocking; the
    /// caller holds a read claim. Device memory is read back straight into `out`; on
    /// an error `out` may hold some of the bytes (it is an output being written).
    pub(crate) fn read_claimed_into(&self, op: &'static str, out: &mut [u8]) -> Result<(), Error> {
        match self.memory.on() {
            On::Host => self.read_claimed(op, |b| out.copy_from_slice(b)),
            On::Wgpu(g, m) => g.read_blocking_into(op, m, self.start(), out),
            #[cfg(feature = "cuda")]
            On::Cuda(c, m) => c.read_blocking_into(op, m.at(self.start()), out),
        }
    }

    /// `f` of the buffer's bytes to change them, blocking; the caller holds a read
    /// claim and has checked that the buffer admits writes.
    pub(crate) fn write_claimed<R>(
        &self,
        op: &'static str,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R, Error> {
        match self.memory.on() {
            On::Host => {
                self.wait_for(op, true)?;
                let (s, n) = (self.start(), self.len());
                Ok(self.memory.bytes_mut(|b| f(&mut b[s..s + n])))
            }
            On::Wgpu(..) => self.write_back(op, f),
            #[cfg(feature = "cuda")]
            On::Cuda(..) => self.write_back(op, f),
        }
    }

    /// [`Buffer::write_claimed`] of device memory: the bytes read, changed by `f`, and
    /// written back. Host writers of one device memory take turns (as they do on the
    /// host), and each writes back only the bytes it changed.
    fn write_back<R>(&self, op: &'static str, f: impl FnOnce(&mut [u8]) -> R) -> Result<R, Error> {
        let _turn = self.memory.host_turn();
        let old = self.read_claimed(op, |b| b.to_vec())?;
        let mut bytes = old.clone();
        let r = f(&mut bytes);
        let first = old.iter().zip(&bytes).position(|(a, b)| a != b);
        let last = old.iter().zip(&bytes).rposition(|(a, b)| a != b);
        if let (Some(a), Some(b)) = (first, last) {
            self.upload_submitted(op, a, &bytes[a..=b])?;
        }
        Ok(r)
    }

    /// Writes `data` at byte `start` of the buffer, changing no other byte (on a GPU:
    /// through the queue, ordered before any later work; never blocks).
    ///
    /// # Errors
    /// [`Error::Invalid`] if the range is not inside the buffer; [`Error::Dead`],
    /// [`Error::HeldExclusive`], [`Error::ReadOnly`], [`Error::Lost`].
    pub fn write_bytes(&self, start: usize, data: &[u8]) -> Result<(), Error> {
        const OP: &str = "Buffer::write_bytes";
        if start.checked_add(data.len()).is_none_or(|e| e > self.len()) {
            return Err(Error::Invalid {
                op: OP,
                reason: format!(
                    "bytes {start}..{start}+{} are not inside a buffer of {} bytes",
                    data.len(),
                    self.len()
                ),
                operands: String::new(),
            });
        }
        match self.memory.on() {
            On::Host => self.write_as(OP, |b| b[start..start + data.len()].copy_from_slice(data)),
            On::Wgpu(..) => self.write_queued(OP, start, data),
            #[cfg(feature = "cuda")]
            On::Cuda(..) => self.write_queued(OP, start, data),
        }
    }

    /// [`Buffer::write_bytes`] of device memory: through the device's queue.
    fn write_queued(&self, op: &'static str, start: usize, data: &[u8]) -> Result<(), Error> {
        let _c = self.claim(op)?;
        if self.access() == Access::Read {
            return Err(Error::ReadOnly { op });
        }
        self.upload_submitted(op, start, data)
    }

    /// Writes `data` at byte `start` of the buffer as work on its device's timeline
    /// (on a GPU through the queue: never blocks). The caller holds a read claim and
    /// has checked the range and the access.
    pub(crate) fn upload_submitted(
        &self,
        op: &'static str,
        start: usize,
        data: &[u8],
    ) -> Result<(), Error> {
        self.rig()
            .submit_as(op, &[], &[self], || self.upload_in_work(op, start, data))
            .map(|_| ())
    }

    /// Writes `data` at byte `start`: work inside a submission on the buffer's device.
    fn upload_in_work(&self, op: &'static str, start: usize, data: &[u8]) -> Result<(), Error> {
        let s = self.start() + start;
        match self.memory.on() {
            On::Host => {
                self.memory
                    .bytes_mut(|d| d[s..s + data.len()].copy_from_slice(data));
                Ok(())
            }
            On::Wgpu(g, m) => g.upload(op, m, s, data),
            #[cfg(feature = "cuda")]
            On::Cuda(c, m) => c.upload(op, m.at(s), data),
        }
    }

    /// Starts copying the buffer's bytes back to the host and returns their future:
    /// the copy is submitted before this returns, so work submitted later (a donation
    /// that overwrites the memory, say) does not change what it reads. Host memory is
    /// read at once. Never blocks in the browser.
    ///
    /// # Errors
    /// At once or from the future: [`Error::Dead`], [`Error::HeldExclusive`],
    /// [`Error::Lost`] (also when the device is lost while the read is pending).
    pub fn read_async(&self) -> ReadAsync {
        const OP: &str = "Buffer::read_async";
        match self.memory.on() {
            On::Host => ReadAsync::ready(self.read_as(OP, |b| b.to_vec())),
            On::Wgpu(g, m) => match self.claim(OP) {
                Ok(_claim) => ReadAsync(State::Wgpu(g.readback(
                    m,
                    self.start(),
                    self.len(),
                    Out::bytes(self.len()),
                ))),
                Err(e) => ReadAsync::ready(Err(e)),
            },
            // Read at once, blocking (native only): nothing later changes what it read.
            #[cfg(feature = "cuda")]
            On::Cuda(c, m) => ReadAsync::ready(
                self.claim(OP)
                    .and_then(|_claim| c.read_blocking(OP, m.at(self.start()), self.len())),
            ),
        }
    }

    /// [`Buffer::read_async`] into a JavaScript `Uint8Array` of the buffer's length:
    /// GPU memory is copied from the mapped staging buffers straight into it, never
    /// through wasm memory (host memory is copied once). Browser only.
    ///
    /// # Errors
    /// As [`Buffer::read_async`].
    #[cfg(target_arch = "wasm32")]
    pub fn read_js_async(
        &self,
    ) -> impl Future<Output = Result<js_sys::Uint8Array, Error>> + 'static {
        let op = "Buffer::read_async";
        let started = match self.memory.on() {
            On::Host => Err(self.read_as(op, |b| js_sys::Uint8Array::from(b))),
            On::Wgpu(g, m) => Ok(self
                .claim(op)
                .map(|_claim| g.readback(m, self.start(), self.len(), Out::js(self.len())))),
        };
        async move {
            match started {
                Err(host) => host,
                Ok(gpu) => Ok(gpu?.await?.into_js()),
            }
        }
    }

    /// Copies `len` bytes from `src` at byte `s` into `dst` at byte `d` (offsets in
    /// the buffers; ranges checked), as work on `dst`'s device: within one device by
    /// its own means, across devices through the host.
    pub(crate) fn blit_checked(
        src: &Buffer,
        s: usize,
        dst: &Buffer,
        d: usize,
        len: usize,
    ) -> Result<(), Error> {
        const OP: &str = "Buffer::blit";
        if len == 0 {
            return Ok(());
        }
        let (s0, d0) = (src.start() + s, dst.start() + d);
        let r = dst.rig();
        match (src.memory.on(), dst.memory.on()) {
            (On::Host, On::Host) => {
                r.submit(&[src], &[dst], || {
                    Memory::bytes_pair(&src.memory, &dst.memory, |sb, db| match sb {
                        Some(sb) => db[d0..d0 + len].copy_from_slice(&sb[s0..s0 + len]),
                        None => db.copy_within(s0..s0 + len, d0),
                    });
                    Ok(())
                })?;
            }
            (On::Wgpu(g, sm), On::Wgpu(_, dm)) if src.rig() == dst.rig() => {
                r.submit(&[src], &[dst], || {
                    if src.same_memory(dst) {
                        // WebGPU binds or copies one buffer as source and destination
                        // at once nowhere: go through a fresh one.
                        let t = g.create(OP, len, false)?;
                        g.blit_bytes(OP, sm, s0, &t, 0, len)?;
                        g.blit_bytes(OP, &t, 0, dm, d0, len)
                    } else {
                        g.blit_bytes(OP, sm, s0, dm, d0, len)
                    }
                })?;
            }
            #[cfg(feature = "cuda")]
            (On::Cuda(c, sm), On::Cuda(_, dm)) if src.rig() == dst.rig() => {
                r.submit(&[src], &[dst], || {
                    if src.same_memory(dst) {
                        // The driver's copy is undefined where the ranges overlap:
                        // through fresh memory.
                        let t = c.allocate(r.name(), OP, len, false)?;
                        c.copy(OP, sm.at(s0), t.at(0), len)?;
                        c.copy(OP, t.at(0), dm.at(d0), len)
                    } else {
                        c.copy(OP, sm.at(s0), dm.at(d0), len)
                    }
                })?;
            }
            (On::Host, On::Wgpu(..)) => Buffer::upload_from_host(src, s0, dst, d, len)?,
            #[cfg(feature = "cuda")]
            (On::Host, On::Cuda(..)) => Buffer::upload_from_host(src, s0, dst, d, len)?,
            (On::Wgpu(..), _) => Buffer::blit_through_host(src, s, dst, d, len)?,
            #[cfg(feature = "cuda")]
            (On::Cuda(..), _) => Buffer::blit_through_host(src, s, dst, d, len)?,
        }
        Ok(())
    }

    /// [`Buffer::blit_checked`] from host memory (from byte `s0` of its memory) into
    /// device memory.
    fn upload_from_host(
        src: &Buffer,
        s0: usize,
        dst: &Buffer,
        d: usize,
        len: usize,
    ) -> Result<(), Error> {
        dst.rig().submit(&[src], &[dst], || {
            src.memory
                .bytes(|b| dst.upload_in_work("Buffer::blit", d, &b[s0..s0 + len]))
        })?;
        Ok(())
    }

    /// [`Buffer::blit_checked`] out of device memory (into the host or another
    /// device): read back, then written.
    fn blit_through_host(
        src: &Buffer,
        s: usize,
        dst: &Buffer,
        d: usize,
        len: usize,
    ) -> Result<(), Error> {
        const OP: &str = "Buffer::blit";
        let part = src.view(s, len)?;
        dst.rig().submit(&[src], &[dst], || {
            if let On::Host = dst.memory.on() {
                // Into host memory: read straight into its bytes.
                let d0 = dst.start() + d;
                return dst
                    .memory
                    .bytes_mut(|b| part.read_claimed_into(OP, &mut b[d0..d0 + len]));
            }
            let bytes = part.read_claimed(OP, |b| b.to_vec())?;
            dst.upload_in_work(OP, d, &bytes)
        })?;
        Ok(())
    }

    /// Sets every byte of the buffer to `byte`, as work on its device.
    pub(crate) fn fill_bytes(&self, byte: u8) -> Result<(), Error> {
        const OP: &str = "Buffer::fill";
        let n = self.len();
        self.rig().submit(&[], &[self], || match self.memory.on() {
            On::Host => {
                let s = self.start();
                self.memory.bytes_mut(|d| d[s..s + n].fill(byte));
                Ok(())
            }
            On::Wgpu(..) => self.upload_in_work(OP, 0, &vec![byte; n]),
            #[cfg(feature = "cuda")]
            On::Cuda(c, m) => c.fill(OP, m.at(self.start()), byte, n),
        })?;
        Ok(())
    }
}

/// The future of [`Buffer::read_async`]: the buffer's bytes.
///
/// ```
/// use nxrig::rig::Buffer;
///
/// let b = Buffer::of_vec(vec![1u8, 2, 3]);
/// let bytes = pollster::block_on(b.read_async())?; // on a GPU: once the copy is done
/// assert_eq!(bytes, [1, 2, 3]);
/// # Ok::<(), nxrig::Error>(())
/// ```
pub struct ReadAsync(State);

enum State {
    /// Known at once (host memory, or an error).
    Ready(Option<Result<Vec<u8>, Error>>),
    /// A read from a GPU through wgpu under way.
    Wgpu(Readback<'static>),
}

impl ReadAsync {
    fn ready(r: Result<Vec<u8>, Error>) -> ReadAsync {
        ReadAsync(State::Ready(Some(r)))
    }
}

impl Future for ReadAsync {
    type Output = Result<Vec<u8>, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().0 {
            State::Ready(r) => Poll::Ready(r.take().unwrap_or_else(|| Ok(Vec::new()))),
            State::Wgpu(r) => Pin::new(r).poll(cx).map(|r| r.map(Out::into_vec)),
        }
    }
}

impl Rig {
    /// The wgpu device and queue of a GPU device through wgpu, for work of the
    /// caller's own (submitted through [`Rig::submit`]) and for what only wgpu has
    /// (its adapter's info and limits, the native types nxrig's WGSL uses); `None` for
    /// a device of another backend.
    pub fn wgpu(&self) -> Option<&Gpu> {
        match self.backend() {
            Backend::Wgpu(g) => Some(g),
            Backend::Host(_) => None,
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => None,
        }
    }
}

impl Buffer {
    /// The wgpu buffers of the memory and the buffer's first byte in them, for memory
    /// of a GPU through wgpu; `None` for memory of another backend. For kernels of the
    /// caller's own, which bind the buffers and submit through [`Rig::submit`].
    pub fn wgpu_memory(&self) -> Option<(&GpuMemory, usize)> {
        match self.memory.on() {
            On::Wgpu(_, m) => Some((m, self.start())),
            On::Host => None,
            #[cfg(feature = "cuda")]
            On::Cuda(..) => None,
        }
    }

    /// Keeps the memory's device buffers out of the device's pool for good (memory
    /// handed to another library).
    pub(crate) fn keep_out_of_pools(&self) {
        match self.memory.on() {
            On::Wgpu(_, m) => m.never_pool(),
            On::Host => {}
            #[cfg(feature = "cuda")]
            On::Cuda(..) => {}
        }
    }

    /// The CUDA memory and the buffer's first byte in it, for memory of a CUDA
    /// device; `None` for memory of another backend.
    #[cfg(feature = "cuda")]
    pub(crate) fn cuda_memory(&self) -> Option<(&CudaMemory, usize)> {
        match self.memory.on() {
            On::Cuda(_, m) => Some((m, self.start())),
            On::Host | On::Wgpu(..) => None,
        }
    }
}
