//! Arrays whose dtype is chosen at run time: a dtype, a layout and a buffer.
//!
//! Every array keeps these facts: its layout reaches only bits of its buffer, at
//! non-negative positions, and its first element lies on a multiple of its dtype's
//! alignment.

use crate::dtype::DType;
use crate::error::Error;
use crate::layout::{Layout, Move};
use crate::rig::{Buffer, Kind, Rig, RigKind};

/// An array of elements of a dtype known at run time. `Clone` copies the handle, never
/// the elements.
///
/// ```
/// use nxrig::{AnyArray, DType, Rig};
///
/// let a = AnyArray::of_bits(DType::Bfloat16, &[2, 2], &[0x3f80, 0x4000, 0xbf80, 0])?;
/// assert_eq!((a.dtype(), a.shape()), (DType::Bfloat16, &[2, 2][..]));
/// let t = a.permute(&[1, 0])?; // a view
/// let f = t.cast(DType::Float32)?; // exact: float32 holds every bfloat16
/// assert_eq!(f.to_bits_vec()?, [0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0]);
/// assert_eq!(f.clone().expect::<f32>()?.to_vec()?, [1.0, -1.0, 2.0, 0.0]);
/// let _on = f.to_device(&Rig::host())?;
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct AnyArray {
    pub(crate) dtype: DType,
    pub(crate) layout: Layout,
    pub(crate) buffer: Buffer,
}

/// Each operand's dtype and shape, as refusals list them: `float32 [3], int8 [2, 2]`.
pub(crate) fn described(operands: &[&AnyArray]) -> String {
    operands
        .iter()
        .map(|a| describe(a.dtype, &a.layout))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `dtype [shape]`, as messages print an operand.
pub(crate) fn describe(dtype: DType, layout: &Layout) -> String {
    format!("{dtype} {:?}", layout.shape())
}

impl AnyArray {
    /// The array of `dtype` elements laid out by `layout` over `buffer`'s bytes.
    ///
    /// # Errors
    /// [`Error::Dead`] if the buffer is dead; [`Error::Invalid`] if the layout has an
    /// element and reaches a bit past the
    /// buffer's bytes, or its first element's byte offset (its address, on the host) is
    /// not a multiple of the dtype's alignment.
    pub fn v(dtype: DType, layout: Layout, buffer: Buffer) -> Result<AnyArray, Error> {
        buffer.check("AnyArray::v")?;
        let invalid = |reason: String| Error::Invalid {
            op: "AnyArray::v",
            reason,
            operands: describe(dtype, &layout),
        };
        if let Some((_, hi)) = layout.bounds() {
            let end_bits = (hi as u128 + 1) * dtype.bits() as u128;
            if end_bits > buffer.len() as u128 * 8 {
                return Err(invalid(format!(
                    "{layout:?} reaches bit {end_bits} of a buffer of {} bytes",
                    buffer.len()
                )));
            }
            let first = layout.offset() as u128 * dtype.bits() as u128 / 8;
            if !(buffer.addr() as u128 + first).is_multiple_of(dtype.align() as u128) {
                return Err(invalid(format!(
                    "the first element, at byte {first} (address {:#x}), is not aligned to {} bytes",
                    buffer.addr() as u128 + first,
                    dtype.align()
                )));
            }
        }
        Ok(AnyArray {
            dtype,
            layout,
            buffer,
        })
    }

    /// A fresh C-contiguous array of `shape` in `rig`'s device memory, at offset 0,
    /// zeroed (the specification leaves elements unspecified; nxrig's are 0). Its buffer holds
    /// [`DType::bytes`]`(n)` bytes for `n` elements.
    ///
    /// # Errors
    /// [`Error::Layout`] as [`Layout::contiguous`]; what [`Buffer::create`] returns.
    pub fn create(rig: &Rig, dtype: DType, shape: &[usize]) -> Result<AnyArray, Error> {
        AnyArray::create_in(rig, Kind::Device, dtype, shape)
    }

    /// [`AnyArray::create`] in memory of `kind`.
    ///
    /// # Errors
    /// As [`AnyArray::create`].
    pub fn create_in(
        rig: &Rig,
        kind: Kind,
        dtype: DType,
        shape: &[usize],
    ) -> Result<AnyArray, Error> {
        AnyArray::create_with(rig, kind, dtype, shape, Buffer::create)
            .map_err(|e| e.called("AnyArray::create"))
    }

    /// [`AnyArray::create`], awaiting the device's word on the allocation (see
    /// [`Buffer::create_async`]): in the browser a GPU without room says so here,
    /// where [`AnyArray::create`] would leave it to lose the device later.
    ///
    /// # Errors
    /// As [`AnyArray::create`].
    pub async fn create_async(rig: &Rig, dtype: DType, shape: &[usize]) -> Result<AnyArray, Error> {
        const OP: &str = "AnyArray::create_async";
        let layout = Layout::contiguous(shape).map_err(|e| e.called(OP))?;
        let bytes = dtype.bytes(layout.numel()).map_err(|e| e.called(OP))?;
        let buffer = Buffer::create_async(rig, bytes, Kind::Device)
            .await
            .map_err(|e| e.called(OP))?;
        AnyArray::v(dtype, layout, buffer)
    }

    /// A fresh C-contiguous array over the buffer `make` gives for its byte count.
    fn create_with(
        rig: &Rig,
        kind: Kind,
        dtype: DType,
        shape: &[usize],
        make: fn(&Rig, usize, Kind) -> Result<Buffer, Error>,
    ) -> Result<AnyArray, Error> {
        let layout = Layout::contiguous(shape)?;
        let buffer = make(rig, dtype.bytes(layout.numel())?, kind)?;
        AnyArray::v(dtype, layout, buffer)
    }

    /// [`AnyArray::create`] for a caller that writes every element before any is
    /// read (a kernel's output): memory reused from the device's pool is not cleared
    /// first. The nibble past an odd count of a sub-byte dtype, which no kernel
    /// writes, reads 0 still: on the host its byte is cleared (the kernels keep a
    /// neighbour's nibble), elsewhere the whole buffer.
    ///
    /// # Errors
    /// As [`AnyArray::create`].
    pub(crate) fn create_to_fill(
        rig: &Rig,
        dtype: DType,
        shape: &[usize],
    ) -> Result<AnyArray, Error> {
        if dtype.is_sub_byte() && rig.kind() != RigKind::Host {
            return AnyArray::create(rig, dtype, shape);
        }
        let out = AnyArray::create_with(rig, Kind::Device, dtype, shape, Buffer::create_to_fill)?;
        if dtype.is_sub_byte() && out.layout.numel() % 2 == 1 {
            out.buffer.write_bytes(out.buffer.len() - 1, &[0])?;
        }
        Ok(out)
    }

    /// The array's dtype.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The array's layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The array's shape (elements per axis).
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The array's buffer.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// The device the array lives on.
    pub fn rig(&self) -> &Rig {
        self.buffer.rig()
    }

    /// The array over the same buffer laid out by [`Layout::move_`], or `Ok(None)` where
    /// no view exists (the caller copies).
    ///
    /// # Errors
    /// What [`Move::shape`] returns.
    pub fn move_(&self, m: &Move) -> Result<Option<AnyArray>, Error> {
        Ok(self.layout.move_(m)?.map(|layout| AnyArray {
            layout,
            ..self.clone()
        }))
    }

    /// The array moved by `m`, copied into a fresh C-contiguous array where no view
    /// exists.
    ///
    /// # Errors
    /// What [`AnyArray::move_`] and [`AnyArray::copy`] return.
    pub fn move_or_copy(&self, m: &Move) -> Result<AnyArray, Error> {
        match self.move_(m)? {
            Some(a) => Ok(a),
            None => {
                let c = self.copy()?;
                c.move_(m)?.ok_or_else(unreachable_move)
            }
        }
    }
}

#[cold]
fn unreachable_move() -> Error {
    panic!("nxrig bug: a movement of a contiguous copy gave no view")
}
