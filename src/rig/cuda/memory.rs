//! CUDA memory: one stream-ordered allocation of a device, freed on the device's
//! stream when dropped (after the work submitted before it).

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
}

impl CudaMemory {
    /// The device address of byte `at`.
    pub(crate) fn at(&self, at: usize) -> sys::CUdeviceptr {
        self.ptr + at as sys::CUdeviceptr
    }
}

impl Drop for CudaMemory {
    fn drop(&mut self) {
        if self.len > 0 {
            self.cuda.free(self.ptr);
        }
    }
}
