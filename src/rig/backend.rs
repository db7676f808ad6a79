//! The backends of devices: one [`Backend`] a device, its state, and the one match
//! that gives a device-level operation its backend's [`DeviceBackend`]. Adding a
//! backend adds a variant here, and the compiler lists every other match to fill
//! (`seam.rs`'s [`super::seam::Store`], `access.rs`, the kernels' front doors).

use std::sync::Arc;

#[cfg(feature = "cuda")]
use super::cuda::CudaBackend;
use super::host::Host;
use super::seam::{DeviceBackend, Store};
use super::wgpu::Gpu;

/// The backend of a device, and its state.
pub(crate) enum Backend {
    /// The host: memory in the host's address space; work runs at once.
    Host(Host),
    /// A GPU through wgpu.
    Wgpu(Arc<Gpu>),
    /// A CUDA device (cargo feature `cuda`).
    #[cfg(feature = "cuda")]
    Cuda(CudaBackend),
}

impl Backend {
    /// The backend as its trait: the one match a device-level operation takes.
    pub(crate) fn device(&self) -> &dyn DeviceBackend {
        match self {
            Backend::Host(h) => h,
            Backend::Wgpu(g) => &**g,
            #[cfg(feature = "cuda")]
            Backend::Cuda(c) => c,
        }
    }

    /// [`DeviceBackend::allocate`], where the device learns of a failed allocation
    /// only later (a GPU in the browser) awaiting it, so that it fails at the call;
    /// the other backends allocate as `allocate` does.
    ///
    /// # Errors
    /// As [`DeviceBackend::allocate`].
    pub(crate) async fn allocate_async(
        &self,
        device: &str,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<Store, crate::error::Error> {
        match self {
            Backend::Wgpu(g) => Ok(Store::Wgpu(g.create_async(op, len, clear).await?)),
            _ => self.device().allocate(device, op, len, clear),
        }
    }
}
