//! The host's access to a buffer of GPU memory: reads back through a staging buffer
//! (async everywhere, blocking natively), writes through the queue.
//! Seed: `Rig.Buffer.read`, `Rig.Buffer.write`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::io::{Out, Readback};
use super::memory::GpuMemory;

use crate::error::Error;
use crate::rig::buffer::Buffer;
use crate::rig::memory::Access;

impl Buffer {
    /// The wgpu buffers of the memory and the buffer's first byte in it, for GPU
    /// memory; `None` for host memory. For kernels of the caller's own, which bind
    /// the buffers and submit through [`crate::rig::Rig::submit`].
    pub fn gpu_memory(&self) -> Option<(&GpuMemory, usize)> {
        self.memory.gpu_buffer().map(|b| (b, self.start()))
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
        let Some((buf, start)) = self.gpu_memory() else {
            return ReadAsync::ready(self.read_as(OP, |b| b.to_vec()));
        };
        let started = self.claim(OP).map(|_claim| {
            let g = self.rig().gpu().expect("GPU memory is on a GPU");
            g.readback(self.rig(), buf, start, self.len(), Out::bytes(self.len()))
        });
        match started {
            Ok(r) => ReadAsync(State::Pending(r)),
            Err(e) => ReadAsync::ready(Err(e)),
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
        const OP: &str = "Rig.Buffer.read";
        let started = match self.gpu_memory() {
            None => Err(self.read_as(OP, |b| js_sys::Uint8Array::from(b))),
            Some((buf, start)) => Ok(self.claim(OP).map(|_claim| {
                let g = self.rig().gpu().expect("GPU memory is on a GPU");
                g.readback(self.rig(), buf, start, self.len(), Out::js(self.len()))
            })),
        };
        async move {
            match started {
                Err(host) => host,
                Ok(gpu) => Ok(gpu?.await?.into_js()),
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
        if self.gpu_memory().is_none() {
            return self.write_as(OP, |b| b[start..start + data.len()].copy_from_slice(data));
        }
        let _c = self.claim(OP)?;
        if self.access() == Access::Read {
            return Err(Error::ReadOnly { op: OP });
        }
        self.gpu_upload_submitted(OP, start, data)
    }

    /// [`Buffer::gpu_upload`] as work of its own on the device's timeline. The caller
    /// holds a read claim and has checked the device and the access, naming `op`.
    pub(crate) fn gpu_upload_submitted(
        &self,
        op: &'static str,
        start: usize,
        data: &[u8],
    ) -> Result<(), Error> {
        self.rig()
            .submit(&[], &[self], || self.gpu_upload(op, start, data))
            .map(|_| ())
    }

    /// Writes `data` at byte `start` of this GPU buffer through the queue. Work on
    /// the device: the caller submits it through [`crate::rig::Rig::submit`], which
    /// stamps it.
    pub(crate) fn gpu_upload(
        &self,
        op: &'static str,
        start: usize,
        data: &[u8],
    ) -> Result<(), Error> {
        let (mem, s0) = self.gpu_memory().expect("GPU memory");
        let g = self.rig().gpu().expect("GPU memory is on a GPU");
        g.upload(op, mem, s0 + start, data)
    }

    /// The bytes of this GPU buffer, copied back, blocking. Native only; the caller
    /// holds a read claim.
    pub(crate) fn gpu_read_blocking(&self, op: &'static str) -> Result<Vec<u8>, Error> {
        self.rig().check(op)?;
        #[cfg(target_arch = "wasm32")]
        {
            Err(Error::Invalid {
                op,
                reason: "reading GPU memory would block the browser: use read_async (or the array's async forms)".into(),
                operands: String::new(),
            })
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let (buf, start) = self.gpu_memory().expect("GPU memory");
            let g = self.rig().gpu().expect("GPU memory is on a GPU");
            pollster::block_on(g.readback(
                self.rig(),
                buf,
                start,
                self.len(),
                Out::bytes(self.len()),
            ))
            .map(Out::into_vec)
        }
    }
}

/// The future of [`Buffer::read_async`]: the buffer's bytes.
pub struct ReadAsync(State);

enum State {
    /// Known at once (host memory, or an error).
    Ready(Option<Result<Vec<u8>, Error>>),
    /// A GPU read under way.
    Pending(Readback),
}

impl ReadAsync {
    pub(crate) fn ready(r: Result<Vec<u8>, Error>) -> ReadAsync {
        ReadAsync(State::Ready(Some(r)))
    }
}

impl Future for ReadAsync {
    type Output = Result<Vec<u8>, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().0 {
            State::Ready(r) => Poll::Ready(r.take().unwrap_or_else(|| Ok(Vec::new()))),
            State::Pending(r) => Pin::new(r).poll(cx).map(|r| r.map(Out::into_vec)),
        }
    }
}
