//! The kinds of device a user sees.

/// What kind of device a `Rig` is.
///
/// ```
/// use nxrig::rig::RigKind;
/// use nxrig::Rig;
///
/// assert_eq!(Rig::host().kind(), RigKind::Host);
/// assert!(!RigKind::Host.is_gpu() && RigKind::Wgpu.is_gpu() && RigKind::Cuda.is_gpu());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RigKind {
    /// The host: memory in the host's address space (wasm linear memory under wasm32);
    /// its work runs at once, on the calling thread.
    Host,
    /// A GPU through wgpu (WebGPU in the browser; Vulkan, Metal or DX12 natively): its
    /// memory is wgpu buffers the host does not address, its work goes through the
    /// device's queue in submission order. (Named for its backend: the names users type,
    /// `gpu`, `gpu1`, ..., mean the first, second GPU device whatever its backend.)
    Wgpu,
    /// A CUDA device (`cuda0`, `cuda1`, ...; such devices exist only in a build with
    /// the cargo feature `cuda`): its memory is the device's, which the host does not
    /// address, its work goes through one CUDA stream in submission order.
    Cuda,
}

impl RigKind {
    /// True for a GPU device, whatever its backend: the devices `gpu`, `gpu1`, ...
    /// name in `Rig::by_name`.
    pub fn is_gpu(self) -> bool {
        match self {
            RigKind::Host => false,
            RigKind::Wgpu | RigKind::Cuda => true,
        }
    }
}
