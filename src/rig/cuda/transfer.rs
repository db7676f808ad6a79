//! Bytes in and out of a CUDA device, on its stream: allocation and freeing, uploads
//! (from pageable memory; through pinned staging from 1 MiB), blocking reads (the
//! same), copies within the device and fills.

use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

use super::device::{lock, Cuda};
use super::memory::CudaMemory;
use super::staging::{Staging, STAGE, STAGED_FROM};
use crate::error::Error;

impl Cuda {
    /// `len` bytes of the device's memory for the device named `device` (zeroed where
    /// `clear` says so), ordered on its stream.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] where the device has no room; [`Error::Lost`];
    /// [`Error::Device`].
    pub(crate) fn allocate(
        self: &Arc<Self>,
        device: &str,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<CudaMemory, Error> {
        self.current(op)?;
        let cuda = Arc::clone(self);
        if len == 0 {
            return Ok(CudaMemory {
                ptr: 0,
                len,
                cuda,
                foreign: None,
            });
        }
        // SAFETY: the device's stream; the memory is freed on it when dropped.
        let made = unsafe {
            if self.pools {
                result::malloc_async(self.stream, len)
            } else {
                result::malloc_sync(len)
            }
        };
        let ptr = match made {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                return Err(Error::OutOfMemory {
                    op,
                    device: device.to_owned(),
                    bytes: len,
                })
            }
            Err(e) => return Err(self.fail(op, e)),
        };
        let mem = CudaMemory {
            ptr,
            len,
            cuda,
            foreign: None,
        };
        if clear {
            // SAFETY: `len` bytes of memory just allocated on this stream.
            unsafe { result::memset_d8_async(ptr, 0, len, self.stream) }
                .map_err(|e| self.fail(op, e))?;
        }
        Ok(mem)
    }

    /// Fresh memory holding `bytes` (uploaded on the stream), for a kernel's small
    /// operand; freed on the stream after the work submitted before its drop.
    ///
    /// # Errors
    /// As [`Cuda::allocate`] and [`Cuda::upload`].
    pub(crate) fn scratch(
        self: &Arc<Self>,
        device: &str,
        op: &'static str,
        bytes: &[u8],
    ) -> Result<CudaMemory, Error> {
        let m = self.allocate(device, op, bytes.len(), false)?;
        self.upload(op, m.at(0), bytes)?;
        Ok(m)
    }

    /// Frees `ptr` on the stream, after the work submitted before. Nothing is freed
    /// on a lost device (its context is gone or failing).
    pub(super) fn free(&self, ptr: sys::CUdeviceptr) {
        if self.current("Buffer::free").is_ok() {
            // SAFETY: allocated by `allocate`, freed once, after the stream's work.
            unsafe {
                if self.pools {
                    let _ = result::free_async(ptr, self.stream);
                } else if result::stream::synchronize(self.stream).is_ok() {
                    let _ = result::free_sync(ptr);
                }
            }
        }
    }

    /// Writes `data` at device address `dst`, ordered on the stream. The bytes are
    /// taken before this returns (pageable memory is staged by the driver; large
    /// uploads go through the pinned buffers), so `data` may change at once.
    ///
    /// # Errors
    /// [`Error::Lost`]; [`Error::Device`].
    pub(crate) fn upload(
        &self,
        op: &'static str,
        dst: sys::CUdeviceptr,
        data: &[u8],
    ) -> Result<(), Error> {
        if data.is_empty() {
            return Ok(());
        }
        self.current(op)?;
        let r = if data.len() >= STAGED_FROM {
            self.upload_staged(dst, data)
        } else {
            // SAFETY: the caller's range of a live allocation; from pageable memory the
            // call returns once the bytes are staged.
            unsafe { result::memcpy_htod_async(dst, data, self.stream) }
        };
        r.map_err(|e| self.fail(op, e))
    }

    /// The staging buffers, made on first use.
    fn staging(&self) -> Result<std::sync::MutexGuard<'_, Option<Staging>>, DriverError> {
        let mut s = lock(&self.staging);
        if s.is_none() {
            *s = Some(Staging::new()?);
        }
        Ok(s)
    }

    /// `data` into `dst` a staging buffer at a time, the two in turn.
    fn upload_staged(&self, dst: sys::CUdeviceptr, data: &[u8]) -> Result<(), DriverError> {
        let mut guard = self.staging()?;
        let st = guard.as_mut().expect("made above");
        for (k, chunk) in data.chunks(STAGE).enumerate() {
            // SAFETY: the context is current (`upload`); the buffer's last copy is
            // done before it is written; the copy reads it before its event.
            unsafe {
                let buf = st.ready(k % 2)?;
                buf[..chunk.len()].copy_from_slice(chunk);
                let at = dst + (k * STAGE) as sys::CUdeviceptr;
                result::memcpy_htod_async(at, &buf[..chunk.len()], self.stream)?;
                result::event::record(st.event(k % 2), self.stream)?;
            }
        }
        Ok(())
    }

    /// The `len` bytes at device address `src`, after the work submitted before,
    /// blocking.
    ///
    /// # Errors
    /// [`Error::Lost`]; [`Error::Device`].
    pub(crate) fn read_blocking(
        &self,
        op: &'static str,
        src: sys::CUdeviceptr,
        len: usize,
    ) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; len];
        self.read_blocking_into(op, src, &mut out)?;
        Ok(out)
    }

    /// The `out.len()` bytes at device address `src` into `out`, after the work
    /// submitted before, blocking.
    ///
    /// # Errors
    /// [`Error::Lost`]; [`Error::Device`].
    pub(crate) fn read_blocking_into(
        &self,
        op: &'static str,
        src: sys::CUdeviceptr,
        out: &mut [u8],
    ) -> Result<(), Error> {
        self.current(op)?;
        if out.is_empty() {
            return Ok(());
        }
        let r = if out.len() >= STAGED_FROM {
            self.read_staged(src, out)
        } else {
            // SAFETY: a live allocation's range; the stream is waited for before
            // `out` is read.
            unsafe {
                result::memcpy_dtoh_async(out, src, self.stream)
                    .and_then(|()| result::stream::synchronize(self.stream))
            }
        };
        r.map_err(|e| self.fail(op, e))
    }

    /// `out.len()` bytes from `src` a staging buffer at a time: the copy of chunk
    /// `k + 1` runs while chunk `k` is copied out of the other buffer.
    fn read_staged(&self, src: sys::CUdeviceptr, out: &mut [u8]) -> Result<(), DriverError> {
        let mut guard = self.staging()?;
        let st = guard.as_mut().expect("made above");
        let chunks: Vec<(usize, usize)> = (0..out.len())
            .step_by(STAGE)
            .map(|a| (a, (out.len() - a).min(STAGE)))
            .collect();
        for k in 0..=chunks.len() {
            // SAFETY: the context is current (`read_blocking`); a buffer is read only
            // after its copy's event, and written by a copy only after its last
            // reader (the iteration before) is done with it.
            unsafe {
                if let Some(&(a, n)) = chunks.get(k) {
                    let buf = st.ready(k % 2)?;
                    let at = src + a as sys::CUdeviceptr;
                    result::memcpy_dtoh_async(&mut buf[..n], at, self.stream)?;
                    result::event::record(st.event(k % 2), self.stream)?;
                }
                if k >= 1 {
                    let (a, n) = chunks[k - 1];
                    let buf = st.ready((k - 1) % 2)?;
                    out[a..a + n].copy_from_slice(&buf[..n]);
                }
            }
        }
        Ok(())
    }

    /// Copies `len` bytes from device address `src` to `dst` (not overlapping),
    /// ordered on the stream.
    ///
    /// # Errors
    /// [`Error::Lost`]; [`Error::Device`].
    pub(crate) fn copy(
        &self,
        op: &'static str,
        src: sys::CUdeviceptr,
        dst: sys::CUdeviceptr,
        len: usize,
    ) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        self.current(op)?;
        // SAFETY: ranges of live allocations of this device, on its stream.
        unsafe { result::memcpy_dtod_async(dst, src, len, self.stream) }
            .map_err(|e| self.fail(op, e))
    }

    /// Sets the `len` bytes from device address `dst` to `byte`, ordered on the stream.
    ///
    /// # Errors
    /// [`Error::Lost`]; [`Error::Device`].
    pub(crate) fn fill(
        &self,
        op: &'static str,
        dst: sys::CUdeviceptr,
        byte: u8,
        len: usize,
    ) -> Result<(), Error> {
        if len == 0 {
            return Ok(());
        }
        self.current(op)?;
        // SAFETY: a range of a live allocation of this device, on its stream.
        unsafe { result::memset_d8_async(dst, byte, len, self.stream) }
            .map_err(|e| self.fail(op, e))
    }

    /// Gives the memory pool's freed memory back to the driver.
    pub(super) fn trim(&self) {
        if !self.pools || self.current("Rig::empty_cache").is_err() {
            return;
        }
        // SAFETY: the device's default pool, which `malloc_async` allocates from.
        unsafe {
            if let Ok(pool) = result::device::get_default_mem_pool(self.dev()) {
                let _ = result::stream::synchronize(self.stream);
                let _ = result::mem_pool::trim_to(pool, 0);
            }
        }
    }

    /// Bytes the memory pool holds beyond those in use.
    pub(super) fn pooled_bytes(&self) -> u64 {
        use sys::CUmemPool_attribute as P;
        if !self.pools || self.current("Rig::cached_bytes").is_err() {
            return 0;
        }
        // SAFETY: the device's default pool; both attributes are 64-bit counts.
        unsafe {
            let Ok(pool) = result::device::get_default_mem_pool(self.dev()) else {
                return 0;
            };
            let (mut reserved, mut used) = (0u64, 0u64);
            let r = result::mem_pool::get_attribute(
                pool,
                P::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                (&mut reserved as *mut u64).cast(),
            )
            .and_then(|()| {
                result::mem_pool::get_attribute(
                    pool,
                    P::CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
                    (&mut used as *mut u64).cast(),
                )
            });
            if r.is_ok() {
                reserved.saturating_sub(used)
            } else {
                0
            }
        }
    }
}
