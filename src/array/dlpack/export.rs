//! Arrays out: a managed tensor over an array's own memory, which keeps the memory
//! alive until the consumer calls its deleter.

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::abi::{
    DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLTensor, DEVICE_CPU,
    DEVICE_CUDA, FLAG_IS_SUBBYTE_TYPE_PADDED, FLAG_READ_ONLY, VERSION,
};
use crate::array::any::{describe, AnyArray};
use crate::error::Error;
use crate::rig::{Access, Address};

/// Exported tensors whose deleter has not run yet.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// How many tensors [`AnyArray::to_dlpack`] and [`AnyArray::to_dlpack_legacy`] gave
/// whose deleter has not run: 0 once every consumer is done (a leak shows here).
pub fn live_exports() -> usize {
    LIVE.load(Ordering::SeqCst)
}

/// A managed tensor with what its pointers reach: `managed` first, so that the
/// structure's address is the tensor's.
#[repr(C)]
struct Held<M> {
    managed: M,
    shape: Box<[i64]>,
    strides: Box<[i64]>,
    /// Keeps the memory alive (and the array's device).
    _array: AnyArray,
}

/// An array's tensor and whether its memory admits only reads.
struct Described {
    tensor: DLTensor,
    shape: Box<[i64]>,
    strides: Box<[i64]>,
    read_only: bool,
}

impl AnyArray {
    /// A DLPack 1.x managed tensor over the array's own elements, without a copy: its
    /// shape, its strides in elements, its first element at `data + byte_offset`, host
    /// memory as `kDLCPU`, a CUDA device's as `kDLCUDA` (CUDA's device index), the
    /// flag `DLPACK_FLAG_BITMASK_READ_ONLY` for memory that admits only reads, and
    /// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED` for a float6 (6 bits, held one a
    /// byte). The
    /// device work on the array is done first (the call blocks for it). The memory is
    /// put outside the claims for good ([`crate::rig::Buffer::export`]): no donation
    /// writes it again.
    ///
    /// The consumer calls the tensor's deleter exactly once, when done; until then
    /// the memory stays alive, whatever becomes of the array. Its writes through the
    /// tensor must not race nxrig's reads or writes of the array.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for memory of a GPU through wgpu (no DLPack address:
    /// move the array to the host first); [`Error::Invalid`] for an int4 or uint4
    /// array whose first element is the high half of a byte (`copy()` it first);
    /// [`Error::Dead`], [`Error::HeldExclusive`], [`Error::Lost`]. Nothing is exported
    /// on an error.
    pub fn to_dlpack(&self) -> Result<NonNull<DLManagedTensorVersioned>, Error> {
        let d = self.described("AnyArray::to_dlpack")?;
        let managed = DLManagedTensorVersioned {
            version: VERSION,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete::<DLManagedTensorVersioned>),
            flags: if d.read_only { FLAG_READ_ONLY } else { 0 }
                | if self.dtype().is_padded() {
                    FLAG_IS_SUBBYTE_TYPE_PADDED
                } else {
                    0
                },
            dl_tensor: d.tensor,
        };
        Ok(self.held(managed, d.shape, d.strides))
    }

    /// [`AnyArray::to_dlpack`] as the legacy `DLManagedTensor`, for consumers that
    /// read no version: the same tensor, without flags.
    ///
    /// # Errors
    /// As [`AnyArray::to_dlpack`]; [`Error::ReadOnly`] for memory that admits only
    /// reads, which the legacy tensor cannot mark (ask for the versioned one);
    /// [`Error::Invalid`] for a float6, int2, uint2, int1 or uint1, held one a byte,
    /// which only the versioned tensor's flag `IS_SUBBYTE_TYPE_PADDED` can say (without
    /// it a consumer reads the elements packed).
    pub fn to_dlpack_legacy(&self) -> Result<NonNull<DLManagedTensor>, Error> {
        const OP: &str = "AnyArray::to_dlpack_legacy";
        if self.buffer().access() == Access::Read {
            return Err(Error::ReadOnly { op: OP });
        }
        if self.dtype().is_padded() {
            return Err(Error::Invalid {
                op: OP,
                reason: format!(
                    "nxrig holds {} one a byte, which the legacy tensor cannot say (it has no \
                     flags: a consumer would read {} bits an element packed); ask for the \
                     versioned tensor (to_dlpack), flagged IS_SUBBYTE_TYPE_PADDED",
                    self.dtype(),
                    self.dtype().packed_bits()
                ),
                operands: describe(self.dtype(), self.layout()),
            });
        }
        let d = self.described(OP)?;
        let managed = DLManagedTensor {
            dl_tensor: d.tensor,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete::<DLManagedTensor>),
        };
        Ok(self.held(managed, d.shape, d.strides))
    }

    /// The array's tensor, its memory exported, for `op`.
    fn described(&self, op: &'static str) -> Result<Described, Error> {
        let b = self.buffer();
        b.check(op)?;
        let Some((code, bits_field)) = self.dtype().dlpack() else {
            return Err(Error::Invalid {
                op,
                reason: format!(
                    "DLPack 1.1 has no type code for {}; cast() it to a dtype DLPack has, or \
                     bitcast() it to uint8 to hand over its bytes",
                    self.dtype()
                ),
                operands: describe(self.dtype(), self.layout()),
            });
        };
        let (device, data) = match b.address() {
            Some(Address::Host(p)) => (
                DLDevice {
                    device_type: DEVICE_CPU,
                    device_id: 0,
                },
                p.cast(),
            ),
            Some(Address::Cuda { ordinal, ptr }) => (
                DLDevice {
                    device_type: DEVICE_CUDA,
                    device_id: ordinal as i32,
                },
                ptr as usize as *mut c_void,
            ),
            None => {
                return Err(Error::Unsupported {
                    op,
                    device: self.rig().name().to_owned(),
                    what: "memory of a GPU through wgpu has no DLPack address; move the \
                           array to the host (to_device) first"
                        .into(),
                })
            }
        };
        let bits = self.dtype().bits() as usize;
        let empty = self.layout().numel() == 0;
        // No elements: no address (DLPack's null data) and no offset.
        let offset = if empty { 0 } else { self.layout().offset() };
        let data = if empty { std::ptr::null_mut() } else { data };
        if !(offset * bits).is_multiple_of(8) {
            return Err(Error::Invalid {
                op,
                reason: "its first element is the high half of a byte, which DLPack \
                         cannot address; copy() it first"
                    .into(),
                operands: describe(self.dtype(), self.layout()),
            });
        }
        let read_only = b.access() == Access::Read;
        b.wait_for(op, !read_only)?;
        b.export()?;
        let shape: Box<[i64]> = self.shape().iter().map(|&n| n as i64).collect();
        let strides: Box<[i64]> = self.layout().strides().iter().map(|&s| s as i64).collect();
        let tensor = DLTensor {
            data,
            device,
            ndim: shape.len() as i32,
            dtype: DLDataType {
                code,
                bits: bits_field,
                lanes: 1,
            },
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            byte_offset: (offset * bits / 8) as u64,
        };
        Ok(Described {
            tensor,
            shape,
            strides,
            read_only,
        })
    }

    /// `managed` boxed with its shape, strides and this array, its pointers set.
    fn held<M: Managed>(&self, managed: M, shape: Box<[i64]>, strides: Box<[i64]>) -> NonNull<M> {
        let p = Box::into_raw(Box::new(Held {
            managed,
            shape,
            strides,
            _array: self.clone(),
        }));
        LIVE.fetch_add(1, Ordering::SeqCst);
        // SAFETY: `p` is the box just made, alive until the deleter takes it back.
        unsafe {
            let h = &mut *p;
            let t = h.managed.tensor();
            t.shape = h.shape.as_mut_ptr();
            t.strides = h.strides.as_mut_ptr();
            h.managed.set_context(p.cast());
            NonNull::new_unchecked(std::ptr::addr_of_mut!((*p).managed))
        }
    }
}

/// The two managed tensors' common fields.
trait Managed {
    fn tensor(&mut self) -> &mut DLTensor;
    fn set_context(&mut self, ctx: *mut c_void);
    fn context(&self) -> *mut c_void;
}

/// [`Managed`] for a managed tensor type with fields `dl_tensor` and `manager_ctx`.
macro_rules! managed {
    ($($t:ty),*) => {$(
        impl Managed for $t {
            fn tensor(&mut self) -> &mut DLTensor {
                &mut self.dl_tensor
            }
            fn set_context(&mut self, ctx: *mut c_void) {
                self.manager_ctx = ctx;
            }
            fn context(&self) -> *mut c_void {
                self.manager_ctx
            }
        }
    )*};
}

managed!(DLManagedTensorVersioned, DLManagedTensor);

/// The deleter of nxrig's tensors: frees the structure and lets go of the memory.
///
/// # Safety
/// `m` is null or a tensor nxrig exported whose deleter has not run.
unsafe extern "C" fn delete<M: Managed>(m: *mut M) {
    if m.is_null() {
        return;
    }
    // SAFETY: the context is the `Held` box `held` made, given up by the consumer.
    drop(unsafe { Box::from_raw((*m).context().cast::<Held<M>>()) });
    LIVE.fetch_sub(1, Ordering::SeqCst);
}
