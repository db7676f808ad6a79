//! Arrays in: an array over another library's managed tensor, without a copy, its
//! deleter run once when the last buffer over the memory goes (or at once on an
//! error).

use super::abi::{
    DLManagedTensor, DLManagedTensorVersioned, DLTensor, DEVICE_CPU, DEVICE_CUDA, DEVICE_CUDA_HOST,
    FLAG_IS_COPIED, FLAG_IS_SUBBYTE_TYPE_PADDED, FLAG_READ_ONLY, VERSION,
};
use crate::array::any::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::{Access, Address, Buffer};

/// A producer's managed tensor, its deleter called once when this drops.
struct Producer<M> {
    managed: *mut M,
    deleter: Option<unsafe extern "C" fn(*mut M)>,
}

// SAFETY: DLPack's deleters may be called from any thread (the consumer's).
unsafe impl<M> Send for Producer<M> {}
unsafe impl<M> Sync for Producer<M> {}

impl<M> Drop for Producer<M> {
    fn drop(&mut self) {
        if let Some(d) = self.deleter {
            // SAFETY: the producer's deleter of its own tensor, called once.
            unsafe { d(self.managed) }
        }
    }
}

impl AnyArray {
    /// The array over a DLPack 1.x managed tensor's elements, without a copy: its
    /// dtype, shape and strides (null strides: C order), host memory (`kDLCPU`,
    /// `kDLCUDAHost`) on [`crate::Rig::host`], CUDA memory (`kDLCUDA`) on that CUDA
    /// device (feature `cuda`). Memory flagged `DLPACK_FLAG_BITMASK_READ_ONLY` admits
    /// only reads. The memory is outside the claims for good (another library may
    /// reach it), unless flagged `DLPACK_FLAG_BITMASK_IS_COPIED`.
    ///
    /// nxrig calls the tensor's deleter exactly once: when the last buffer over the
    /// memory goes (every view and copy of the array's handle), or before returning
    /// an error.
    ///
    /// # Errors
    /// Each naming `AnyArray::from_dlpack`: [`Error::Invalid`] for a null pointer
    /// (nothing to call), a major version other than 1 (only the deleter is read), a
    /// dtype nxrig does not have (a code, a width, lanes other than 1, padded
    /// sub-byte elements), a device type other than those above, a negative rank or
    /// extent, a rank over 16, null data or shape where elements are, a first element
    /// not aligned to its dtype; [`Error::NoDevice`] for CUDA memory of a device nxrig
    /// has not opened; [`Error::TooLarge`] for a span over the address space.
    ///
    /// # Safety
    /// `managed` is null or a managed tensor its producer gave up to this call: its
    /// memory holds the elements its fields describe, alive (and, unless flagged read
    /// only, writable) until its deleter runs; nothing writes the elements while nxrig
    /// reads them, or reads or writes them while nxrig writes them.
    pub unsafe fn from_dlpack(managed: *mut DLManagedTensorVersioned) -> Result<AnyArray, Error> {
        const OP: &str = "AnyArray::from_dlpack";
        let Some(m) = std::ptr::NonNull::new(managed) else {
            return Err(invalid(OP, "the tensor is a null pointer".into()));
        };
        // SAFETY: the version and the deleter are read first, as DLPack allows for
        // every version; the rest only for major version 1.
        let (version, deleter) = unsafe { ((*managed).version, (*managed).deleter) };
        let producer = Producer { managed, deleter };
        if version.major != VERSION.major {
            return Err(invalid(
                OP,
                format!(
                    "the tensor is of DLPack {}.{}; nxrig reads {}.x",
                    version.major, version.minor, VERSION.major
                ),
            ));
        }
        // SAFETY: a tensor of version 1, given up by the producer.
        let (flags, t) = unsafe { ((*m.as_ptr()).flags, (*m.as_ptr()).dl_tensor) };
        // SAFETY: as the caller promised.
        unsafe { taken(OP, &t, flags, producer) }
    }

    /// [`AnyArray::from_dlpack`] of a legacy `DLManagedTensor`: the same, its memory
    /// admitting reads and writes (the legacy tensor has no flags).
    ///
    /// # Errors
    /// As [`AnyArray::from_dlpack`] (but for the version), naming
    /// `AnyArray::from_dlpack_legacy`.
    ///
    /// # Safety
    /// As [`AnyArray::from_dlpack`].
    pub unsafe fn from_dlpack_legacy(managed: *mut DLManagedTensor) -> Result<AnyArray, Error> {
        const OP: &str = "AnyArray::from_dlpack_legacy";
        if managed.is_null() {
            return Err(invalid(OP, "the tensor is a null pointer".into()));
        }
        // SAFETY: a tensor given up by the producer.
        let (t, deleter) = unsafe { ((*managed).dl_tensor, (*managed).deleter) };
        let producer = Producer { managed, deleter };
        // SAFETY: as the caller promised.
        unsafe { taken(OP, &t, 0, producer) }
    }
}

fn invalid(op: &'static str, reason: String) -> Error {
    Error::Invalid {
        op,
        reason,
        operands: String::new(),
    }
}

/// The array over `t`, its memory kept alive by `producer` (dropped on an error).
///
/// # Safety
/// As [`AnyArray::from_dlpack`], for `t`'s fields.
unsafe fn taken<M: 'static>(
    op: &'static str,
    t: &DLTensor,
    flags: u64,
    producer: Producer<M>,
) -> Result<AnyArray, Error> {
    let dtype = dtype_of(op, t, flags)?;
    // SAFETY: the caller's promise of `shape` and `strides`.
    let (shape, strides) = unsafe { axes(op, t)? };
    let span = Span::of(op, dtype, &shape, &strides)?;
    let start = span.start_byte(op, t.byte_offset)?;
    let at = match t.device.device_type {
        DEVICE_CPU | DEVICE_CUDA_HOST if span.bytes == 0 => {
            Address::Host(std::ptr::NonNull::<u64>::dangling().as_ptr().cast())
        }
        DEVICE_CPU | DEVICE_CUDA_HOST if t.data.is_null() => {
            return Err(invalid(
                op,
                "the tensor's data is null and it has elements".into(),
            ))
        }
        DEVICE_CPU | DEVICE_CUDA_HOST => Address::Host(t.data.cast::<u8>().wrapping_offset(start)),
        DEVICE_CUDA => Address::Cuda {
            ordinal: usize::try_from(t.device.device_id).map_err(|_| {
                let id = t.device.device_id;
                invalid(
                    op,
                    format!("a CUDA device id of {id}, which names no device"),
                )
            })?,
            ptr: if span.bytes == 0 {
                0
            } else {
                (t.data as u64).wrapping_add(start as u64)
            },
        },
        other => {
            return Err(invalid(
                op,
                format!(
                    "the tensor's memory is of DLPack device type {other}; nxrig takes host \
                     memory (kDLCPU, kDLCUDAHost) and CUDA memory (kDLCUDA)"
                ),
            ))
        }
    };
    let layout = Layout::new(&shape, &strides, span.offset)?;
    let access = if flags & FLAG_READ_ONLY != 0 {
        Access::Read
    } else {
        Access::ReadWrite
    };
    let sole = flags & FLAG_IS_COPIED != 0;
    // SAFETY: the caller's promise of the memory, alive until `producer` drops.
    let buffer = unsafe { Buffer::foreign(op, at, span.bytes, access, sole, Box::new(producer))? };
    AnyArray::v(dtype, layout, buffer).map_err(|e| match e {
        Error::Invalid {
            reason, operands, ..
        } => Error::Invalid {
            op,
            reason,
            operands,
        },
        e => e,
    })
}

/// The dtype of `t`'s elements.
fn dtype_of(op: &'static str, t: &DLTensor, flags: u64) -> Result<DType, Error> {
    let d = t.dtype;
    let dtype = DType::ALL
        .into_iter()
        .find(|x| x.dlpack() == Some((d.code, d.bits)))
        .filter(|_| d.lanes == 1)
        .ok_or_else(|| {
            invalid(
                op,
                format!(
                    "no dtype of nxrig's is DLPack's type code {} of {} bits and {} lanes \
                     (nxrig's elements have 1 lane)",
                    d.code, d.bits, d.lanes
                ),
            )
        })?;
    let padded = flags & FLAG_IS_SUBBYTE_TYPE_PADDED != 0;
    if dtype.bits() < 8 && padded {
        return Err(invalid(
            op,
            format!("{dtype} elements padded one a byte; nxrig packs them two a byte"),
        ));
    }
    if dtype.is_padded() && !padded {
        return Err(invalid(
            op,
            format!(
                "{dtype} elements packed {}; nxrig holds them one a byte \
                 (export them with the flag IS_SUBBYTE_TYPE_PADDED, or as uint8 and unpack)",
                match dtype.packed_bits() {
                    6 => "four in three bytes",
                    2 => "four a byte",
                    _ => "eight a byte",
                }
            ),
        ));
    }
    Ok(dtype)
}

/// `t`'s shape and strides (C order's for null strides).
///
/// # Safety
/// `shape` and `strides` are null or hold `ndim` values each.
unsafe fn axes(op: &'static str, t: &DLTensor) -> Result<(Vec<usize>, Vec<isize>), Error> {
    let rank = usize::try_from(t.ndim)
        .ok()
        .filter(|&r| r <= crate::layout::MAX_RANK)
        .ok_or_else(|| invalid(op, format!("a rank of {} (0 to 16)", t.ndim)))?;
    if rank == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    if t.shape.is_null() {
        return Err(invalid(
            op,
            format!("the shape of rank {rank} is a null pointer"),
        ));
    }
    // SAFETY: `ndim` values, as the caller promised.
    let dims = unsafe { std::slice::from_raw_parts(t.shape, rank) };
    let shape = dims
        .iter()
        .map(|&n| usize::try_from(n).map_err(|_| invalid(op, format!("a shape of {dims:?}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let strides = if t.strides.is_null() {
        let mut s = vec![1isize; rank];
        for k in (0..rank - 1).rev() {
            s[k] = s[k + 1]
                .checked_mul(shape[k + 1].max(1) as isize)
                .ok_or(Error::TooLarge {
                    op,
                    what: "the C-order strides",
                    dtype: "int64",
                })?;
        }
        s
    } else {
        // SAFETY: `ndim` values, as the caller promised.
        let st = unsafe { std::slice::from_raw_parts(t.strides, rank) };
        st.iter()
            .map(|&s| isize::try_from(s).map_err(|_| invalid(op, format!("strides of {st:?}"))))
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok((shape, strides))
}

/// The bytes an array's elements reach, from the element of index 0.
struct Span {
    /// The first byte reached, from the element of index 0's byte (may be negative).
    first: i128,
    /// Bytes reached.
    bytes: usize,
    /// The element position of index 0 from the first byte, in elements.
    offset: usize,
}

impl Span {
    fn of(
        op: &'static str,
        dtype: DType,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<Span, Error> {
        if shape.contains(&0) {
            return Ok(Span {
                first: 0,
                bytes: 0,
                offset: 0,
            });
        }
        let (mut lo, mut hi) = (0i128, 0i128);
        for (&n, &s) in shape.iter().zip(strides) {
            let reach = (n as i128 - 1) * s as i128;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        let bits = dtype.bits() as i128;
        // Element positions lo..=hi, in bits from index 0's: bytes floor(lo*bits/8) on.
        let first = (lo * bits).div_euclid(8);
        let end = (hi * bits + bits + 7).div_euclid(8);
        let too_large = || Error::TooLarge {
            op,
            what: "the tensor's span",
            dtype: dtype.name(),
        };
        let bytes = usize::try_from(end - first)
            .ok()
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(too_large)?;
        let offset = usize::try_from(-first * 8 / bits).map_err(|_| too_large())?;
        Ok(Span {
            first,
            bytes,
            offset,
        })
    }

    /// The first byte's distance from `data`.
    fn start_byte(&self, op: &'static str, byte_offset: u64) -> Result<isize, Error> {
        isize::try_from(byte_offset as i128 + self.first).map_err(|_| Error::TooLarge {
            op,
            what: "the tensor's byte offset",
            dtype: "uint8",
        })
    }
}
