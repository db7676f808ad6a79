//! DLPack: arrays handed to and taken from other libraries (NumPy, PyTorch, JAX,
//! CuPy, TVM) without a copy, through the protocol's C structures.
//!
//! [`AnyArray::to_dlpack`] gives a [`DLManagedTensorVersioned`] (DLPack 1.x) and
//! [`AnyArray::to_dlpack_legacy`] the older [`DLManagedTensor`], for consumers that
//! ask for it; [`AnyArray::from_dlpack`] and [`AnyArray::from_dlpack_legacy`] take them
//! in. Host memory is `kDLCPU`, a CUDA device's memory `kDLCUDA` (with the feature
//! `cuda`); a GPU through wgpu has no DLPack address. Layouts cross as they are:
//! shape and strides in elements (negative and zero strides too), the first element
//! at `data + byte_offset`. int4 and uint4 cross as DLPack's packed sub-byte types
//! (`kDLInt`/`kDLUInt` of 4 bits, two a byte, element `i` in bits `4i..4i+4` of its
//! byte: nxrig's own packing), so does float4_e2m1fn; the float6s, held one a byte, as
//! 6 bits with `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED` (a versioned tensor only);
//! every other dtype by the code [`DType::dlpack`] gives.
//!
//! Memory that crosses is outside nxrig's claims for good: no donation writes an
//! exported array's memory, and an imported one is never donated (unless its producer
//! set `DLPACK_FLAG_BITMASK_IS_COPIED`: then nxrig alone reaches it).
//!
//! ```
//! use nxrig::array::dlpack::live_exports;
//! use nxrig::Array;
//!
//! let a = Array::<f32>::of_array(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let t = a.permute(&[1, 0])?.any().to_dlpack()?; // a view, as strides
//! // SAFETY: `t` is what `to_dlpack` gave; it is taken once.
//! let b = unsafe { nxrig::AnyArray::from_dlpack(t.as_ptr()) }?.expect::<f32>()?;
//! assert_eq!(b.shape(), [3, 2]);
//! assert_eq!(b.to_vec()?, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
//! b.set(&[0, 1], -4.0)?;
//! assert_eq!(a.get(&[1, 0])?, -4.0); // no copy: the same bytes
//! drop(b); // the last buffer over the tensor: its deleter runs, once
//! assert_eq!(live_exports(), 0);
//! # Ok::<(), nxrig::Error>(())
//! ```
//!
//! [`DType::dlpack`]: crate::DType::dlpack
//! [`AnyArray::to_dlpack`]: crate::AnyArray::to_dlpack
//! [`AnyArray::to_dlpack_legacy`]: crate::AnyArray::to_dlpack_legacy
//! [`AnyArray::from_dlpack`]: crate::AnyArray::from_dlpack
//! [`AnyArray::from_dlpack_legacy`]: crate::AnyArray::from_dlpack_legacy

mod abi;
mod export;
mod import;
#[cfg(test)]
mod tests;

pub use abi::{
    DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor,
    DEVICE_CPU, DEVICE_CUDA, DEVICE_CUDA_HOST, FLAG_IS_COPIED, FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY, VERSION,
};
pub use export::live_exports;
