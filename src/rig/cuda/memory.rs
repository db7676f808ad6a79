//! CUDA memory: one stream-ordered allocation of a device, freed on the device's
//! stream when dropped (after the work submitted before it).

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::sys;

use super::device::Cuda;

/// `len` bytes of a CUDA device's memory from its address `ptr` (0 for no bytes).
pub(crate) struct CudaMemory {
    /// The device address of the first byte.
    pub(crate) ptr: sys::CUdeviceptr,
    /// Bytes.
    pub(crate) len: usize,
    /// The device, kept alive while its memory is.
    pub(super) cuda: Arc<Cuda>,
    /// For memory another library made (DLPack's): what keeps it alive, dropped in
    /// place of freeing it.
    pub(super) foreign: Option<Box<dyn Any + Send + Sync>>,
}

impl CudaMemory {
    /// The device address of byte `at`.
    pub(crate) fn at(&self, at: usize) -> sys::CUdeviceptr {
        self.ptr + at as sys::CUdeviceptr
    }
}

impl CudaMemory {
    /// `len` bytes from `ptr` of `cuda`'s memory that another library made, kept alive
    /// by `owner` (dropped when this memory is, after the work submitted before).
    pub(crate) fn foreign(
        cuda: &Arc<Cuda>,
        ptr: sys::CUdeviceptr,
        len: usize,
        owner: Box<dyn Any + Send + Sync>,
    ) -> CudaMemory {
        CudaMemory {
            ptr,
            len,
            cuda: Arc::clone(cuda),
            foreign: Some(owner),
        }
    }
}

impl Drop for CudaMemory {
    fn drop(&mut self) {
        if let Some(owner) = self.foreign.take() {
            // The owner may free the memory at once: nxrig's work on it ends first.
            self.cuda.block();
            drop(owner);
        } else if self.len > 0 {
            self.cuda.free(self.ptr);
        }
    }
}
