//! Host-array interop: `ndarray`'s arrays (the Bigarray of Rust) in both directions,
//! without a copy.
//!
//! Rust's aliasing rules want every view of nxrig's bytes to be scoped: a view is
//! lent to a function while the memory's host lock and a read claim are held, never
//! returned. `from_ndarray` takes an owned array, so nothing outside reaches its bytes.

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn, ShapeBuilder};

use super::any::describe;
use super::typed::Array;
use crate::dtype::Element;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::Buffer;

impl<E: Element + bytemuck::Pod> Array<E> {
    /// The host array over `a`'s own elements, without a copy, with `a`'s shape and
    /// strides (negative ones too) and the offset of its first element. nxrig owns the
    /// elements from now on.
    ///
    /// # Errors
    /// [`Error::Layout`] if the rank exceeds 16; [`Error::Invalid`] as
    /// [`crate::AnyArray::v`] (never, for an array `ndarray` made).
    pub fn from_ndarray(a: ArrayD<E>) -> Result<Array<E>, Error> {
        let shape = a.shape().to_vec();
        let strides = a.strides().to_vec();
        let (v, offset) = a.into_raw_vec_and_offset();
        let layout = Layout::new(&shape, &strides, offset.unwrap_or(0))?;
        crate::AnyArray::v(E::DTYPE, layout, Buffer::of_vec(v))?.expect()
    }

    fn check_c(&self, op: &'static str) -> Result<(), Error> {
        if self.layout().is_contiguous() {
            Ok(())
        } else {
            Err(Error::Invalid {
                op,
                reason: "the array is not C-contiguous".into(),
                operands: describe(E::DTYPE, self.layout()),
            })
        }
    }

    /// `f` of an `ndarray` view of the array's own elements, under a read claim and
    /// after the device work a read must follow; the claim ends when `f` returns. The
    /// array must be C-contiguous. On the host the view is of the array's memory; on a
    /// GPU the memory is first copied back to the host, blocking (as [`Buffer::read`]
    /// does: native only), and the view is of that copy.
    ///
    /// ```
    /// use nxrig::Array;
    /// let a = Array::<f32>::of_array(&[2, 2], &[1.0, 2.0, 3.0, 4.0])?;
    /// let trace = a.read_nd(|v| v[[0, 0]] + v[[1, 1]])?;
    /// assert_eq!(trace, 5.0);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `Array::read_nd` if the array is not C-contiguous, or
    /// its memory is a GPU's in the browser (which cannot block); [`Error::Dead`],
    /// [`Error::HeldExclusive`], [`Error::Lost`].
    pub fn read_nd<R>(&self, f: impl FnOnce(ArrayViewD<'_, E>) -> R) -> Result<R, Error> {
        const OP: &str = "Array::read_nd";
        self.check_c(OP)?;
        let (shape, off, n) = (
            self.shape().to_vec(),
            self.layout().offset(),
            self.layout().numel(),
        );
        self.buffer().read_as(OP, |b| {
            let w = std::mem::size_of::<E>();
            let s: &[E] = bytemuck::cast_slice(&b[off * w..(off + n) * w]);
            f(ArrayViewD::from_shape(IxDyn(&shape), s)
                .expect("a C-contiguous shape over its elements"))
        })
    }

    /// `f` of a mutable `ndarray` view of the array's own elements (C-contiguous), to
    /// write them in place. On a GPU the memory is copied back, changed and written
    /// again, blocking (as [`Buffer::write`] does: native only).
    ///
    /// # Errors
    /// As [`Array::read_nd`], and [`Error::ReadOnly`] if the memory admits only reads.
    pub fn write_nd<R>(&self, f: impl FnOnce(ArrayViewMutD<'_, E>) -> R) -> Result<R, Error> {
        const OP: &str = "Array::write_nd";
        self.check_c(OP)?;
        let (shape, off, n) = (
            self.shape().to_vec(),
            self.layout().offset(),
            self.layout().numel(),
        );
        self.buffer().write_as(OP, |b| {
            let w = std::mem::size_of::<E>();
            let s: &mut [E] = bytemuck::cast_slice_mut(&mut b[off * w..(off + n) * w]);
            f(ArrayViewMutD::from_shape(IxDyn(&shape), s)
                .expect("a C-contiguous shape over its elements"))
        })
    }

    /// A fresh `ndarray` holding the array's elements in C order (a copy, any layout).
    ///
    /// # Errors
    /// What [`Array::to_vec`] returns.
    pub fn to_ndarray(&self) -> Result<ArrayD<E>, Error> {
        let v = self.to_vec()?;
        Ok(ArrayD::from_shape_vec(
            IxDyn(self.shape()).strides(IxDyn(&c_strides(self.shape()))),
            v,
        )
        .expect("a C-order vector of the shape's length"))
    }
}

fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1].max(1);
    }
    s
}

/// An array whose memory was exported to the host for good ([`Array::bigarray`]): no
/// donation will ever write it, so its views need no claim.
///
/// ```
/// use nxrig::Array;
///
/// let a = Array::<f32>::of_array(&[2, 2], &[1.0, 2.0, 3.0, 4.0])?;
/// let e = a.bigarray()?; // no donation will write this memory again
/// let sum = e.view(|v| v.sum())?;
/// assert_eq!(sum, 10.0);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Exported<E: Element> {
    array: Array<E>,
}

impl<E: Element + bytemuck::Pod> Array<E> {
    /// Exports the array's memory (C-contiguous, on the host): waits once for the work
    /// on it, and from then on it is never held exclusive again ([`Buffer::export`]), so
    /// the returned handle lends views of its elements without claims.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `Nx_array.bigarray` unless the array is C-contiguous
    /// on a device the host addresses; [`Error::Dead`], [`Error::HeldExclusive`],
    /// [`Error::Lost`].
    pub fn bigarray(&self) -> Result<Exported<E>, Error> {
        const OP: &str = "Array::bigarray";
        self.check_c(OP)?;
        self.buffer().read_as(OP, |_| ())?;
        self.buffer().export()?;
        Ok(Exported {
            array: self.clone(),
        })
    }
}

impl<E: Element + bytemuck::Pod> Exported<E> {
    /// `f` of a view of the elements.
    ///
    /// # Errors
    /// What [`Array::read_nd`] returns (a lost device).
    pub fn view<R>(&self, f: impl FnOnce(ArrayViewD<'_, E>) -> R) -> Result<R, Error> {
        self.array.read_nd(f)
    }

    /// `f` of a mutable view of the elements, where the memory admits writes.
    ///
    /// # Errors
    /// What [`Array::write_nd`] returns ([`Error::ReadOnly`], a lost device).
    pub fn view_mut<R>(&self, f: impl FnOnce(ArrayViewMutD<'_, E>) -> R) -> Result<R, Error> {
        self.array.write_nd(f)
    }
}
