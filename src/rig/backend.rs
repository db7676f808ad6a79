//! The seam between the runtime and its device backends: the host and wgpu today.
//!
//! A device ([`Rig`]) holds one [`Backend`]; a memory holds one [`Store`]. What a
//! backend does for its device (allocate, order and complete work, wait, destroy, keep
//! freed memory) is the [`DeviceBackend`] trait; what it does to bytes (read blocking
//! and async, write, copy, fill) is matched on [`On`] in this file. Every match over the
//! backends in `src/rig` is here and exhaustive: a new variant makes the compiler list
//! each place to fill (ARCHITECTURE.md, "Adding a backend"). Nothing else in the
//! runtime asks which backend a device or a buffer is on.
//!
//! Seed: `Rig.t` (a device), `Rig.Buffer` (memory, read, write, blit, fill).

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::buffer::Buffer;
use super::device::{Rig, RigKind};
use super::memory::Access;
use super::memory::Memory;
use super::timeline::{Stamp, Timeline};
use super::wgpu::{Gpu, GpuMemory, Out, Readback};
use crate::error::Error;

/// The backend of a device, and its state.
// One a device, inside its `Arc`: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Backend {
    /// The host: memory in the host's address space; work runs at once.
    Host(super::host::Host),
    /// A GPU through wgpu.
    Wgpu(Gpu),
}

/// The bytes of one allocation, on its device's backend.
pub(crate) enum Store {
    /// Host bytes `ptr..ptr + len`, kept alive by `_owner` (nxrig's allocation, a
    /// `Vec`, a static slice, a memory map).
    Host {
        ptr: *mut u8,
        _owner: Box<dyn Any + Send + Sync>,
    },
    /// wgpu buffers.
    Wgpu(GpuMemory),
}

/// A memory's bytes with the backend that holds them: what the data operations
/// below match on.
pub(crate) enum On<'a> {
    /// Host memory (reached through [`Memory::bytes`] and its kin).
    Host,
    /// GPU memory and its device.
    Wgpu(&'a Gpu, &'a GpuMemory),
}

/// What a device backend does for its device: memory, the order and completion of
/// work, waiting, loss and the memory it keeps for reuse. Implemented by the host
/// (`rig/host.rs`) and by wgpu (`rig/wgpu/backend.rs`).
pub(crate) trait DeviceBackend {
    /// The kind a user sees.
    fn kind(&self) -> RigKind;

    /// True when the host addresses the device's memory.
    fn host_addressable(&self) -> bool;

    /// `len` bytes of fresh memory for `rig`, named `op` in errors: zeroed, or where
    /// `clear` is false, bytes some freed memory held (for a caller that writes every
    /// byte before any is read).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] where the device has no room; the device's error.
    fn allocate(
        &self,
        rig: &Rig,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<Store, Error>;

    /// True when the device's queue orders its own work, so a submission waits only
    /// for other devices' stamps on its memory.
    fn queues_work(&self) -> bool;

    /// Held by a submission from its stamp's taking until [`DeviceBackend::finish`],
    /// so that stamps reach the queue in their order.
    fn turn(&self) -> Option<std::sync::MutexGuard<'_, ()>>;

    /// Completes `stamp` on `timeline` once the work submitted so far is done (at
    /// once on the host, whose work ran in the submission).
    fn finish(&self, timeline: &Timeline, stamp: Stamp);

    /// Blocks until the device's submitted work is done; false where nothing can
    /// wait for it (the host's work is never pending; the browser cannot block).
    fn block(&self) -> bool;

    /// Lets go of the device's resources after it was marked lost.
    fn destroy(&self);

    /// Drops the freed memory the device keeps for reuse.
    fn empty_cache(&self);

    /// Bytes of freed memory the device keeps for reuse now.
    fn cached_bytes(&self) -> u64;

    /// What the device is and offers, in one line (`nxrig devices`); `None` where its
    /// name says it all.
    fn describe(&self) -> Option<String>;
}

impl Backend {
    /// The backend as its trait: the one match a device-level operation takes.
    pub(crate) fn device(&self) -> &dyn DeviceBackend {
        match self {
            Backend::Host(h) => h,
            Backend::Wgpu(g) => g,
        }
    }
}

impl Memory {
    /// The first byte of host memory; null for memory the host does not address.
    pub(crate) fn ptr(&self) -> *mut u8 {
        match self.store() {
            Store::Host { ptr, .. } => *ptr,
            Store::Wgpu(_) => std::ptr::null_mut(),
        }
    }

    /// The first byte of host memory.
    ///
    /// # Panics
    /// For memory the host does not address (a bug of nxrig's: callers match on
    /// [`Memory::on`] first).
    pub(crate) fn host_ptr(&self) -> *mut u8 {
        match self.store() {
            Store::Host { ptr, .. } => *ptr,
            Store::Wgpu(_) => panic!("nxrig bug: host access to memory the host does not address"),
        }
    }

    /// The memory's bytes with their backend.
    pub(crate) fn on(&self) -> On<'_> {
        match (self.rig.backend(), self.store()) {
            (Backend::Host(_), Store::Host { .. }) => On::Host,
            (Backend::Wgpu(g), Store::Wgpu(m)) => On::Wgpu(g, m),
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
            On::Wgpu(g, m) => Ok(f(&g.read_blocking(
                self.rig(),
                op,
                m,
                self.start(),
                self.len(),
            )?)),
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
            On::Wgpu(g, m) => {
                // Host writers of one GPU memory take turns (as they do on the host),
                // and each writes back only the bytes it changed.
                let _turn = self.memory.host_turn();
                let old = g.read_blocking(self.rig(), op, m, self.start(), self.len())?;
                let mut bytes = old.clone();
                let r = f(&mut bytes);
                let first = old.iter().zip(&bytes).position(|(a, b)| a != b);
                let last = old.iter().zip(&bytes).rposition(|(a, b)| a != b);
                if let (Some(a), Some(b)) = (first, last) {
                    self.upload_submitted(op, a, &bytes[a..=b])?;
                }
                Ok(r)
            }
        }
    }

    /// Writes `data` at byte `start` of the buffer, changing no other byte (on a GPU:
    /// through the queue, ordered before any later work; never blocks). Seed:
    /// `Rig.Buffer.write`.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the range is not inside the buffer; [`Error::Dead`],
    /// [`Error::HeldExclusive`], [`Error::ReadOnly`], [`Error::Lost`].
    pub fn write_bytes(&self, start: usize, data: &[u8]) -> Result<(), Error> {
        const OP: &str = "Rig.Buffer.write";
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
            On::Wgpu(..) => {
                let _c = self.claim(OP)?;
                if self.access() == Access::Read {
                    return Err(Error::ReadOnly { op: OP });
                }
                self.upload_submitted(OP, start, data)
            }
        }
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
            .submit(&[], &[self], || self.upload_in_work(op, start, data))
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
        }
    }

    /// Starts copying the buffer's bytes back to the host and returns their future:
    /// the copy is submitted before this returns, so work submitted later (a donation
    /// that overwrites the memory, say) does not change what it reads. Host memory is
    /// read at once. Never blocks in the browser. Seed: `Rig.Buffer.read`.
    ///
    /// # Errors
    /// At once or from the future: [`Error::Dead`], [`Error::HeldExclusive`],
    /// [`Error::Lost`] (also when the device is lost while the read is pending: K13).
    pub fn read_async(&self) -> ReadAsync {
        const OP: &str = "Rig.Buffer.read";
        match self.memory.on() {
            On::Host => ReadAsync::ready(self.read_as(OP, |b| b.to_vec())),
            On::Wgpu(g, m) => match self.claim(OP) {
                Ok(_claim) => ReadAsync(State::Wgpu(g.readback(
                    self.rig(),
                    m,
                    self.start(),
                    self.len(),
                    Out::bytes(self.len()),
                ))),
                Err(e) => ReadAsync::ready(Err(e)),
            },
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
        let op = "Rig.Buffer.read";
        let started = match self.memory.on() {
            On::Host => Err(self.read_as(op, |b| js_sys::Uint8Array::from(b))),
            On::Wgpu(g, m) => Ok(self.claim(op).map(|_claim| {
                g.readback(self.rig(), m, self.start(), self.len(), Out::js(self.len()))
            })),
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
        const OP: &str = "Rig.Buffer.blit";
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
            (On::Host, On::Wgpu(..)) => {
                r.submit(&[src], &[dst], || {
                    src.memory
                        .bytes(|b| dst.upload_in_work(OP, d, &b[s0..s0 + len]))
                })?;
            }
            (On::Wgpu(..), _) => {
                // Out of a GPU (into the host or another GPU): through the host.
                let part = src.view(s, len)?;
                r.submit(&[src], &[dst], || {
                    let bytes = part.read_claimed(OP, |b| b.to_vec())?;
                    dst.upload_in_work(OP, d, &bytes)
                })?;
            }
        }
        Ok(())
    }

    /// Sets every byte of the buffer to `byte`, as work on its device.
    pub(crate) fn fill_bytes(&self, byte: u8) -> Result<(), Error> {
        const OP: &str = "Rig.Buffer.fill";
        let n = self.len();
        self.rig().submit(&[], &[self], || match self.memory.on() {
            On::Host => {
                let s = self.start();
                self.memory.bytes_mut(|d| d[s..s + n].fill(byte));
                Ok(())
            }
            On::Wgpu(..) => self.upload_in_work(OP, 0, &vec![byte; n]),
        })?;
        Ok(())
    }
}

/// The future of [`Buffer::read_async`]: the buffer's bytes.
pub struct ReadAsync(State);

enum State {
    /// Known at once (host memory, or an error).
    Ready(Option<Result<Vec<u8>, Error>>),
    /// A read from a GPU through wgpu under way.
    Wgpu(Readback),
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
