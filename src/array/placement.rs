//! Placement: an array's elements stored bit for bit on a device, into another array,
//! or shared with a device. Runs no kernel: it computes nothing on the values (NaN
//! payloads are kept).

use super::any::{describe, AnyArray};
use super::door::{door_with, Answer};
use crate::dtype::write_bits;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::backend::Backend;
use crate::rig::{Buffer, Rig};

impl AnyArray {
    /// The array's elements on `rig` (also when it is on `rig`), bit for bit, in a fresh
    /// buffer of at most [`crate::DType::bytes`] of one element per index, an axis of
    /// stride 0 counted once. Where the bytes from the first to the last position are
    /// no more than those, the copy keeps the layout shifted to it (a sub-byte copy's
    /// first and last bytes keep the source's bits beside the elements). Otherwise the
    /// copy's axes go by decreasing magnitude of stride, ties in axis order, the last at
    /// stride 1 and each other at the product of the extents after it; each takes the
    /// sign of the source's stride, an axis of stride 0 keeps 0, and the least position
    /// is at 0 (shape `[3, 2]` at strides `[2, 2]` gets strides `[2, 1]`). Onto a GPU
    /// the bytes go through its queue; off a GPU they are read back, blocking (native
    /// only: in the browser use [`AnyArray::to_device_async`]).
    ///
    /// ```
    /// use nxrig::{Array, Move, Rig};
    /// let a = Array::<i32>::of_array(&[2, 3], &[0, 1, 2, 3, 4, 5])?;
    /// let t = a.move_(&Move::Permute(vec![1, 0]))?.unwrap();
    /// let c = t.any().to_device(&Rig::host())?; // compact: the layout is kept
    /// assert_eq!(c.layout().strides(), [1, 3]);
    /// assert_eq!(c.expect::<i32>()?.to_vec()?, [0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Dead`], [`Error::HeldExclusive`], [`Error::Lost`]; what
    /// [`Buffer::create`] returns.
    pub fn to_device(&self, rig: &Rig) -> Result<AnyArray, Error> {
        const OP: &str = "AnyArray::to_device";
        let c = self.compact(OP)?;
        c.place(self.dtype, rig).map_err(|e| e.called(OP))
    }

    /// Stores `src`'s elements into `dst`, of the same shape and dtype, bit for bit. It
    /// writes `dst`'s elements and no other bit of its buffer, a sub-byte neighbour
    /// included. The arrays may be on two devices (then `src` is first placed on
    /// `dst`'s, as [`AnyArray::to_device`] does); on a GPU the generated transfer
    /// kernel moves the elements.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the shapes or dtypes differ, `dst` reaches an element twice,
    /// `dst` shares a byte with `src` without being identical to it, or (in the
    /// browser) `src` is on a GPU and `dst` elsewhere; [`Error::Dead`], [`Error::HeldExclusive`],
    /// [`Error::ReadOnly`], [`Error::Lost`].
    pub fn transfer(src: &AnyArray, dst: &AnyArray) -> Result<(), Error> {
        transfer(src, dst, "AnyArray::transfer")
    }

    /// `Some` of the array over a borrow of its buffer for `rig`, sharing its memory
    /// (writes through either show in the other); `Some` of the array itself on `rig`;
    /// `None` where `rig` cannot map the memory.
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer; [`Error::Lost`] for a lost device.
    pub fn borrow(&self, rig: &Rig) -> Result<Option<AnyArray>, Error> {
        if self.rig() == rig {
            self.buffer.check("AnyArray::borrow")?;
            return Ok(Some(self.clone()));
        }
        Ok(self.buffer.borrow(rig)?.map(|buffer| AnyArray {
            buffer,
            ..self.clone()
        }))
    }
}

/// The door's refusal of a transfer, as an error naming `op`.
fn refusal(op: &'static str, a: Answer, src: &AnyArray, dst: &AnyArray) -> Error {
    super::door::refused(op, a, &[dst, src])
}

impl AnyArray {
    /// A fresh C-contiguous array on the same device holding the array's elements, bit
    /// for bit (NaN payloads included): the array [`AnyArray::create`] makes there,
    /// filled by [`AnyArray::transfer`].
    ///
    /// # Errors
    /// What [`AnyArray::create`] and [`AnyArray::transfer`] return.
    pub fn copy(&self) -> Result<AnyArray, Error> {
        const OP: &str = "AnyArray::copy";
        let out = AnyArray::create_to_fill(self.rig(), self.dtype, self.shape())
            .map_err(|e| e.called(OP))?;
        transfer(self, &out, OP)?;
        Ok(out)
    }
}

pub(crate) fn transfer(src: &AnyArray, dst: &AnyArray, op: &'static str) -> Result<(), Error> {
    if src.shape() != dst.shape() || src.dtype != dst.dtype {
        return Err(Error::Invalid {
            op,
            reason: "the arrays differ in shape or dtype".into(),
            operands: format!(
                "{}, {}",
                describe(dst.dtype, &dst.layout),
                describe(src.dtype, &src.layout)
            ),
        });
    }
    door_with(
        op,
        &[dst],
        &[src],
        || copy_elements(src, dst, op),
        |a| refusal(op, a, src, dst),
    )
}

/// Copies the elements, under the door's claims: a byte copy where both layouts are
/// contiguous over whole bytes, else element by element.
fn copy_elements(src: &AnyArray, dst: &AnyArray, op: &'static str) -> Result<(), Error> {
    let d = src.dtype;
    let n = src.layout.numel();
    if n == 0 {
        return Ok(());
    }
    if super::overlap::identical(src, dst) {
        return Ok(());
    }
    let whole = |a: &AnyArray| {
        a.layout.is_contiguous()
            && (!d.is_sub_byte() || (a.layout.offset().is_multiple_of(2) && n.is_multiple_of(2)))
    };
    if whole(src) && whole(dst) {
        let (s0, d0) = (byte_of(src), byte_of(dst));
        let len = d.bytes(n)?;
        return Buffer::blit(&src.buffer, s0, &dst.buffer, d0, len).map_err(|e| e.called(op));
    }
    if src.rig() != dst.rig() {
        // Across devices: a compact copy on the destination's device first.
        return copy_elements(&src.to_device(dst.rig())?, dst, op);
    }
    match dst.rig().backend() {
        Backend::Host(_) => copy_on_host(src, dst, op),
        Backend::Wgpu(g) => {
            if src.buffer.same_memory(&dst.buffer) {
                // WebGPU binds no buffer as a kernel's source and destination at once.
                return super::wgpu::transfer(g, &src.to_device(dst.rig())?, dst, op);
            }
            super::wgpu::transfer(g, src, dst, op)
        }
        // The door refused a destination sharing bytes with the source: the kernel
        // may read and write one memory.
        #[cfg(feature = "cuda")]
        Backend::Cuda(c) => super::cuda::transfer(&c.0, src, dst, op),
    }
}

/// [`copy_elements`] on a host device: distinct layouts of one memory through the
/// elements' bits, else by runs of the walk.
fn copy_on_host(src: &AnyArray, dst: &AnyArray, op: &'static str) -> Result<(), Error> {
    let (d, n) = (src.dtype, src.layout.numel());
    if src.buffer.same_memory(&dst.buffer) {
        // Distinct but overlapping is refused by the door; sharing a memory without
        // sharing bytes: read the source's elements first.
        let bits = src.to_bits_vec()?;
        let mut it = bits.into_iter();
        return dst.buffer.write_as(op, |b| {
            dst.layout
                .for_each_position(|p| write_bits(d, b, p, it.next().unwrap_or(0)))
        });
    }
    Buffer::read_write(&src.buffer, &dst.buffer, op, |s, b| {
        use super::strided::{copy_threads, tiles_pay, Width};
        if d.is_sub_byte() && !tiles_pay(&src.layout, &dst.layout) {
            // Runs of nibbles along the walk, two a byte where they are contiguous.
            let runs = crate::layout::Runs::new([&src.layout, &dst.layout]);
            let [is, id] = runs.inner();
            let copy = crate::dtype::lanes::copier(d);
            runs.each(0, n, |[p, q], len| copy(s, p, is, b, q, id, len));
        } else if d.is_sub_byte() {
            // A transpose: nibbles in tiles.
            copy_threads(Width::Nibble, s, &src.layout, b, &dst.layout);
        } else {
            let w = Width::Bytes(d.storage_bytes());
            copy_threads(w, s, &src.layout, b, &dst.layout);
        }
    })
}

fn byte_of(a: &AnyArray) -> usize {
    let d = a.dtype;
    if d.is_sub_byte() {
        a.layout.offset() / 2
    } else {
        a.layout.offset() * d.storage_bytes()
    }
}

/// The positions (elements) of a layout in C order, one at a time, for kernels that
/// walk several layouts together.
///
/// ```
/// use nxrig::array::PositionIter;
/// use nxrig::Layout;
///
/// let t = Layout::new(&[2, 2], &[1, 2], 0)?; // a transposed 2x2
/// let mut it = PositionIter::new(&t);
/// let pos: Vec<usize> = (0..t.numel()).map(|_| it.next_position()).collect();
/// assert_eq!(pos, [0, 2, 1, 3]);
/// # Ok::<(), nxrig::Error>(())
/// ```
pub struct PositionIter<'a> {
    layout: &'a Layout,
    index: [usize; crate::layout::MAX_RANK],
    pos: isize,
}

impl<'a> PositionIter<'a> {
    /// The walk of `layout`, from its first index.
    pub fn new(layout: &'a Layout) -> Self {
        PositionIter {
            layout,
            index: [0; crate::layout::MAX_RANK],
            pos: layout.offset() as isize,
        }
    }

    /// The current position, then advance (callers take exactly numel positions).
    pub fn next_position(&mut self) -> usize {
        let p = self.pos as usize;
        let (shape, strides) = (self.layout.shape(), self.layout.strides());
        for k in (0..shape.len()).rev() {
            self.index[k] += 1;
            self.pos += strides[k];
            if self.index[k] < shape[k] {
                return p;
            }
            self.pos -= strides[k] * shape[k] as isize;
            self.index[k] = 0;
        }
        p
    }
}
