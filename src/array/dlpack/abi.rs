//! DLPack's C structures (`dlpack.h`, version 1.1), field for field, and the codes
//! nxrig reads and writes.

use std::ffi::c_void;

/// DLPack's version: what nxrig writes in the tensors it exports, and the major
/// version it reads (any minor).
pub const VERSION: DLPackVersion = DLPackVersion { major: 1, minor: 1 };

/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the memory admits only reads.
pub const FLAG_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made the memory for the consumer,
/// which alone reaches it.
pub const FLAG_IS_COPIED: u64 = 1 << 1;
/// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`: sub-byte elements one a byte. nxrig
/// packs its 4-bit elements two a byte, DLPack's default (and refuses them padded), and
/// holds the float6s one a byte: their exports carry the flag, and their imports need it.
pub const FLAG_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// `kDLCPU`: host memory.
pub const DEVICE_CPU: i32 = 1;
/// `kDLCUDA`: a CUDA device's memory; `device_id` is CUDA's device index.
pub const DEVICE_CUDA: i32 = 2;
/// `kDLCUDAHost`: host memory pinned by CUDA (taken in as host memory).
pub const DEVICE_CUDA_HOST: i32 = 3;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    /// A change of the structures' layout.
    pub major: u32,
    /// Codes added (device types, dtypes), the layout kept.
    pub minor: u32,
}

/// `DLDevice`: where the memory is.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType`: [`DEVICE_CPU`], [`DEVICE_CUDA`], ...
    pub device_type: i32,
    /// The device's index among its type's (0 for host memory).
    pub device_id: i32,
}

/// `DLDataType`: an element's type.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode` (the codes of [`crate::dtype::dlpack`]).
    pub code: u8,
    /// Bits of one lane.
    pub bits: u8,
    /// Lanes of a vector type (nxrig reads and writes 1).
    pub lanes: u16,
}

/// `DLTensor`: the array, not its memory's owner.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    /// The memory's address (a host pointer, a `CUdeviceptr`); may be null for no
    /// elements.
    pub data: *mut c_void,
    /// Where the memory is.
    pub device: DLDevice,
    /// Axes.
    pub ndim: i32,
    /// The elements' type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for C order.
    pub strides: *mut i64,
    /// Bytes from `data` to the element of index 0.
    pub byte_offset: u64,
}

/// `DLManagedTensor`: the legacy (unversioned) managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when done: frees the structure and releases the
    /// memory; may be null (nothing to call).
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned`: the managed tensor of DLPack 1.x.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The producer's version: a consumer that does not read its major version calls
    /// only the deleter.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when done: frees the structure and releases the
    /// memory; may be null (nothing to call).
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// [`FLAG_READ_ONLY`], [`FLAG_IS_COPIED`], [`FLAG_IS_SUBBYTE_TYPE_PADDED`].
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}
