//! Memory that crosses to another library: where a buffer's bytes are, to hand them
//! out (DLPack's data pointer and device), and memory another library made, taken in
//! without a copy and kept alive by what it gave until the last buffer over it goes.
//! One match over the backends each way.

use std::any::Any;

use super::access::On;
#[cfg(feature = "cuda")]
use super::backend::Backend;
use super::buffer::Buffer;
use super::device::Rig;
use super::memory::{Access, Kind, Memory};
#[cfg(feature = "cuda")]
use super::seam::Store;
use crate::error::Error;

/// Where bytes are, as another library names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Address {
    /// An address of the host's.
    Host(*mut u8),
    /// A device address of the CUDA device of driver ordinal `ordinal`.
    Cuda {
        /// CUDA's device index.
        ordinal: usize,
        /// The `CUdeviceptr`.
        ptr: u64,
    },
}

impl Buffer {
    /// The address of the buffer's first byte, for another library; `None` for memory
    /// of a GPU through wgpu, which has no address outside wgpu.
    pub(crate) fn address(&self) -> Option<Address> {
        match self.memory.on() {
            On::Host => Some(Address::Host(
                self.memory.store().host_ptr().wrapping_add(self.start()),
            )),
            On::Wgpu(..) => None,
            #[cfg(feature = "cuda")]
            On::Cuda(c, m) => Some(Address::Cuda {
                ordinal: c.ordinal,
                ptr: m.at(self.start()),
            }),
        }
    }

    /// A buffer over the `len` bytes at `at` that another library made, admitting
    /// `access`, kept alive by `owner` (dropped once, when the last buffer over the
    /// memory goes). The memory is outside the claims for good unless `sole` says
    /// nxrig alone reaches it (a copy made for nxrig).
    ///
    /// # Errors
    /// [`Error::NoDevice`] naming `op` for CUDA memory where nxrig has no CUDA device of
    /// that ordinal. `owner` is dropped on every error.
    ///
    /// # Safety
    /// The bytes stay valid (and, for [`Access::ReadWrite`], writable) until `owner`
    /// drops; host bytes are non-null and aligned for the element type read from them
    /// (any address for `len == 0`).
    pub(crate) unsafe fn foreign(
        op: &'static str,
        at: Address,
        len: usize,
        access: Access,
        sole: bool,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Result<Buffer, Error> {
        let (rig, store) = match at {
            Address::Host(ptr) => (Rig::host(), Memory::host_store(ptr, owner)),
            Address::Cuda { ordinal, ptr } => foreign_cuda(op, ordinal, ptr, len, owner)?,
        };
        let m = Memory::make(&rig, store, len, Kind::Device, access, !sole);
        Ok(Buffer::spanning(m))
    }
}

/// The CUDA device `ordinal` and its memory at `ptr`.
#[cfg(feature = "cuda")]
fn foreign_cuda(
    op: &'static str,
    ordinal: usize,
    ptr: u64,
    len: usize,
    owner: Box<dyn Any + Send + Sync>,
) -> Result<(Rig, super::seam::Store), Error> {
    for rig in Rig::cudas() {
        let store = match rig.backend() {
            Backend::Cuda(c) if c.0.ordinal == ordinal => {
                Store::Cuda(super::cuda::CudaMemory::foreign(&c.0, ptr, len, owner))
            }
            _ => continue,
        };
        return Ok((rig, store));
    }
    Err(Error::NoDevice {
        op,
        reason: format!(
            "the memory is CUDA device {ordinal}'s, which nxrig has not opened{}",
            Rig::cuda_unavailable()
                .or_else(|| Rig::cuda_not_opened(ordinal))
                .map(|why| format!(": {why}"))
                .unwrap_or_default()
        ),
    })
}

/// Without the feature `cuda` no device is CUDA's.
#[cfg(not(feature = "cuda"))]
fn foreign_cuda(
    op: &'static str,
    ordinal: usize,
    _: u64,
    _: usize,
    _: Box<dyn Any + Send + Sync>,
) -> Result<(Rig, super::seam::Store), Error> {
    Err(Error::NoDevice {
        op,
        reason: format!(
            "the memory is CUDA device {ordinal}'s, and this build of nxrig has no CUDA \
             (the cargo feature `cuda`)"
        ),
    })
}
