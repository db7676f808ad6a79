//! The backend seam: what a device backend does for its device (the
//! [`DeviceBackend`] trait), and what holds an allocation's bytes on each backend
//! ([`Store`]). Below the devices, memories and buffers that use them; each backend
//! (`host.rs`, `wgpu/`) implements the trait.

use std::any::Any;

#[cfg(feature = "cuda")]
use super::cuda::CudaMemory;
use super::kind::RigKind;
use super::timeline::{Stamp, Timeline};
use super::wgpu::GpuMemory;
use crate::error::Error;

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
    /// CUDA device memory.
    #[cfg(feature = "cuda")]
    Cuda(CudaMemory),
}

impl Store {
    /// The first byte of host memory; null for memory the host does not address.
    pub(crate) fn ptr(&self) -> *mut u8 {
        match self {
            Store::Host { ptr, .. } => *ptr,
            Store::Wgpu(_) => std::ptr::null_mut(),
            #[cfg(feature = "cuda")]
            Store::Cuda(_) => std::ptr::null_mut(),
        }
    }

    /// The first byte of host memory.
    ///
    /// # Panics
    /// For memory the host does not address (a bug of nxrig's: callers match on the
    /// memory's backend first).
    pub(crate) fn host_ptr(&self) -> *mut u8 {
        match self {
            Store::Host { ptr, .. } => *ptr,
            Store::Wgpu(_) => panic!("nxrig bug: host access to memory the host does not address"),
            #[cfg(feature = "cuda")]
            Store::Cuda(_) => panic!("nxrig bug: host access to memory the host does not address"),
        }
    }
}

/// What a device backend does for its device: memory, the order and completion of
/// work, waiting, loss and the memory it keeps for reuse. Implemented by the host
/// (`rig/host.rs`), by wgpu (`rig/wgpu/backend.rs`) and by CUDA (`rig/cuda/backend.rs`).
pub(crate) trait DeviceBackend {
    /// The kind a user sees.
    fn kind(&self) -> RigKind;

    /// True when the host addresses the device's memory.
    fn host_addressable(&self) -> bool;

    /// `len` bytes of fresh memory for the device named `device`, named `op` in
    /// errors: zeroed, or where
    /// `clear` is false, bytes some freed memory held (for a caller that writes every
    /// byte before any is read).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] where the device has no room; the device's error.
    fn allocate(
        &self,
        device: &str,
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

    /// `work()`, with what the device reports of it (validation, out of memory,
    /// internal errors) returned as an error naming `op` where the backend can catch
    /// it at the call: a GPU through wgpu natively (error scopes), not in the browser
    /// (which reports later). The host and CUDA report in `work`'s own result.
    fn caught(
        &self,
        op: &'static str,
        work: &mut dyn FnMut() -> Result<(), Error>,
    ) -> Result<(), Error> {
        let _ = op;
        work()
    }

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
