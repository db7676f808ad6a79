//! Arrays of a dtype known at compile time, and element access.

use std::marker::PhantomData;

use super::any::{describe, AnyArray};
use crate::dtype::{read_bits, write_bits, DType, Element};
use crate::error::Error;
use crate::layout::{numel, Layout, Move};
use crate::rig::{Buffer, Rig};

/// An array of `E` elements (`E` one of [`Element`]'s types, which fixes the dtype).
/// `Clone` copies the handle, never the elements.
///
/// ```
/// use nxrig::{Array, Slice};
///
/// let a = Array::<i32>::of_array(&[2, 3], &[0, 1, 2, 3, 4, 5])?;
/// assert_eq!(a.get(&[1, 2])?, 5);
/// let r = a.slice(&[Slice::new(None, None, -1)])?; // rows reversed, a view
/// assert_eq!(r.to_vec()?, [3, 4, 5, 0, 1, 2]);
/// a.set(&[0, 0], 9)?;
/// assert_eq!(r.get(&[1, 0])?, 9); // the view sees it
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Array<E: Element> {
    any: AnyArray,
    _e: PhantomData<E>,
}

impl AnyArray {
    /// The array as `Array<E>` if its dtype is `E`'s.
    ///
    /// # Errors
    /// [`Error::WrongDtype`] naming both dtypes otherwise.
    pub fn expect<E: Element>(self) -> Result<Array<E>, Error> {
        if self.dtype != E::DTYPE {
            return Err(Error::WrongDtype {
                op: "AnyArray::expect",
                expected: E::DTYPE.name(),
                found: self.dtype.name(),
            });
        }
        Ok(Array {
            any: self,
            _e: PhantomData,
        })
    }
}

impl<E: Element> From<Array<E>> for AnyArray {
    fn from(a: Array<E>) -> AnyArray {
        a.any
    }
}

fn index_error(op: &'static str, a: &AnyArray, index: &[usize]) -> Error {
    Error::Invalid {
        op,
        reason: format!("index {index:?} is not an index of shape {:?}", a.shape()),
        operands: describe(a.dtype, &a.layout),
    }
}

impl<E: Element> Array<E> {
    /// The untyped array (a handle; no copy).
    pub fn any(&self) -> &AnyArray {
        &self.any
    }

    /// The array's dtype, `E::DTYPE`.
    pub fn dtype(&self) -> DType {
        E::DTYPE
    }

    /// The array's layout.
    pub fn layout(&self) -> &Layout {
        &self.any.layout
    }

    /// The array's shape (elements per axis).
    pub fn shape(&self) -> &[usize] {
        self.any.shape()
    }

    /// The array's buffer.
    pub fn buffer(&self) -> &Buffer {
        &self.any.buffer
    }

    /// A fresh zeroed C-contiguous array of `shape` on `rig`.
    ///
    /// # Errors
    /// What [`AnyArray::create`] returns.
    pub fn create(rig: &Rig, shape: &[usize]) -> Result<Array<E>, Error> {
        AnyArray::create(rig, E::DTYPE, shape)?.expect()
    }

    /// A fresh C-contiguous host array of `shape` holding `xs` in C order of indices.
    ///
    /// # Errors
    /// [`Error::Invalid`] if `xs` does not have one value per index of `shape`, and what
    /// [`Layout::contiguous`] returns.
    pub fn of_array(shape: &[usize], xs: &[E]) -> Result<Array<E>, Error> {
        AnyArray::of_bits_iter(E::DTYPE, shape, xs.len(), xs.iter().map(|x| x.to_bits()))
            .map_err(|e| e.called("Array::of_array"))?
            .expect()
    }

    /// A fresh C-contiguous host array of `shape` holding each of `xs` (C order) as
    /// [`Element::from_f64`] rounds it: once, to nearest, ties to even; integers
    /// truncate and saturate.
    ///
    /// # Errors
    /// As [`Array::of_array`].
    pub fn of_f64(shape: &[usize], xs: &[f64]) -> Result<Array<E>, Error> {
        AnyArray::of_bits_iter(
            E::DTYPE,
            shape,
            xs.len(),
            xs.iter().map(|&x| E::from_f64(x).to_bits()),
        )
        .map_err(|e| e.called("Array::of_f64"))?
        .expect()
    }

    /// The C-contiguous host array of `shape` over `v`'s bytes, without a copy; writes
    /// through the array write `v`'s elements. Works for every `E` stored as a plain
    /// value (not the 4-bit ones: see [`AnyArray::of_bytes`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] if `v.len()` is not `shape`'s element count.
    pub fn from_vec(shape: &[usize], v: Vec<E>) -> Result<Array<E>, Error>
    where
        E: bytemuck::Pod,
    {
        let n = numel(shape)?;
        if n != v.len() {
            return Err(Error::Invalid {
                op: "Array::from_vec",
                reason: format!(
                    "{} values for shape {shape:?}, which has {n} indices",
                    v.len()
                ),
                operands: format!("{} {shape:?}", E::DTYPE),
            });
        }
        AnyArray::v(E::DTYPE, Layout::contiguous(shape)?, Buffer::of_vec(v))?.expect()
    }

    /// The element at `index`.
    ///
    /// # Errors
    /// [`Error::Invalid`] unless `index` has one entry per axis, each below its extent;
    /// what [`Buffer::read`] returns (a dead buffer, memory held exclusive, a lost
    /// device).
    pub fn get(&self, index: &[usize]) -> Result<E, Error> {
        let p = self
            .any
            .layout
            .position(index)
            .ok_or_else(|| index_error("Array::get", &self.any, index))?;
        let bits = self
            .any
            .buffer
            .read_as("Array::get", |b| read_bits(E::DTYPE, b, p))?;
        Ok(E::from_bits(bits))
    }

    /// Stores `x` at `index`; a sub-byte store keeps its neighbour's bits.
    ///
    /// # Errors
    /// [`Error::Invalid`] as [`Array::get`], if the array reaches an element twice, or
    /// if its memory admits only reads; what [`Buffer::write`] returns.
    pub fn set(&self, index: &[usize], x: E) -> Result<(), Error> {
        let p = self
            .any
            .layout
            .position(index)
            .ok_or_else(|| index_error("Array::set", &self.any, index))?;
        if !self.any.layout.is_distinct() {
            return Err(Error::Invalid {
                op: "Array::set",
                reason: "the array reaches an element twice".into(),
                operands: describe(E::DTYPE, &self.any.layout),
            });
        }
        self.any
            .buffer
            .write_as("Array::set", |b| write_bits(E::DTYPE, b, p, x.to_bits()))
    }

    /// The elements in C order of indices.
    ///
    /// # Errors
    /// What [`Buffer::read`] returns.
    pub fn to_vec(&self) -> Result<Vec<E>, Error> {
        let mut out = Vec::with_capacity(self.any.layout.numel());
        self.any.buffer.read_as("Array::to_vec", |b| {
            self.any
                .layout
                .for_each_position(|p| out.push(E::from_bits(read_bits(E::DTYPE, b, p))))
        })?;
        Ok(out)
    }

    /// The array moved by `m` over the same buffer, or `Ok(None)` where no view exists.
    ///
    /// # Errors
    /// What [`Move::shape`] returns.
    pub fn move_(&self, m: &Move) -> Result<Option<Array<E>>, Error> {
        Ok(self.any.move_(m)?.map(|any| Array {
            any,
            _e: PhantomData,
        }))
    }

    /// A fresh C-contiguous copy, bit for bit.
    ///
    /// # Errors
    /// What [`AnyArray::copy`] returns.
    pub fn copy(&self) -> Result<Array<E>, Error> {
        self.any.copy()?.expect()
    }

    /// A fresh C-contiguous array of the elements converted into `F`'s dtype.
    ///
    /// # Errors
    /// What [`AnyArray::cast`] returns.
    pub fn cast<F: Element>(&self) -> Result<Array<F>, Error> {
        self.any.cast(F::DTYPE)?.expect()
    }
}

impl AnyArray {
    /// The C-contiguous host array of `dtype` and `shape` over `bytes` (sub-byte
    /// dtypes packed two a byte, low nibble first): without a copy where the bytes are
    /// aligned for `dtype`, else copied into memory nxrig allocates (aligned to
    /// [`crate::rig::ALIGN`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] if `bytes` is shorter than the elements need, and what
    /// [`Layout::contiguous`] and [`Buffer::create`] return.
    pub fn of_bytes(dtype: DType, shape: &[usize], bytes: Vec<u8>) -> Result<AnyArray, Error> {
        let layout = Layout::contiguous(shape)?;
        if (bytes.as_ptr() as usize).is_multiple_of(dtype.align()) {
            return AnyArray::v(dtype, layout, Buffer::of_vec(bytes));
        }
        let b = Buffer::create(&crate::Rig::host(), bytes.len(), crate::rig::Kind::Device)?;
        b.write_bytes(0, &bytes)?;
        AnyArray::v(dtype, layout, b)
    }

    /// A fresh C-contiguous host array of `dtype` and `shape` holding `bits` in C order
    /// of indices, each an element's bits as [`Element::to_bits`] gives them (the
    /// inverse of [`AnyArray::to_bits_vec`]); bits above the dtype's width are ignored.
    ///
    /// # Errors
    /// [`Error::Invalid`] if `bits` does not have one value per index of `shape`, and
    /// what [`Layout::contiguous`] returns.
    pub fn of_bits(dtype: DType, shape: &[usize], bits: &[u128]) -> Result<AnyArray, Error> {
        AnyArray::of_bits_iter(dtype, shape, bits.len(), bits.iter().copied())
    }

    /// [`AnyArray::of_bits`] from `len` values of an iterator.
    pub(crate) fn of_bits_iter(
        dtype: DType,
        shape: &[usize],
        len: usize,
        bits: impl Iterator<Item = u128>,
    ) -> Result<AnyArray, Error> {
        let n = numel(shape)?;
        if n != len {
            return Err(Error::Invalid {
                op: "AnyArray::of_bits",
                reason: format!("{len} values for shape {shape:?}, which has {n} indices"),
                operands: format!("{dtype} {shape:?}"),
            });
        }
        let a = AnyArray::create(&Rig::host(), dtype, shape)?;
        a.buffer.write_as("AnyArray::of_bits", |d| {
            for (i, b) in bits.enumerate() {
                write_bits(dtype, d, i, b);
            }
        })?;
        Ok(a)
    }

    /// The array's elements' bits in C order of indices, each as [`Element::to_bits`]
    /// gives them.
    ///
    /// # Errors
    /// What [`Buffer::read`] returns.
    pub fn to_bits_vec(&self) -> Result<Vec<u128>, Error> {
        let mut out = Vec::with_capacity(self.layout.numel());
        self.buffer.read_as("AnyArray::to_bits_vec", |b| {
            self.layout
                .for_each_position(|p| out.push(read_bits(self.dtype, b, p)))
        })?;
        Ok(out)
    }

    /// The bytes of a C-contiguous copy of the array (sub-byte elements packed, the
    /// last byte's unused nibble zero).
    ///
    /// # Errors
    /// What [`AnyArray::copy`] returns.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        let c = if self.layout.is_contiguous() && self.layout.offset() == 0 && self.buffer.spans() {
            self.clone()
        } else {
            self.copy()?
        };
        let len = self.dtype.bytes(self.layout.numel())?;
        c.buffer
            .read_as("AnyArray::to_bytes", |b| b[..len].to_vec())
    }
}
