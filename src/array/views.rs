//! The views by name: permute, flip, slice, expand, unsqueeze and squeeze, which are
//! always views (no element moves, the buffer is shared), and reshape, a view where
//! the strides allow one. [`AnyArray::move_`] takes any [`Move`] and says `None` where
//! no view exists; these say what they are.

use super::any::AnyArray;
use super::typed::Array;
use crate::dtype::Element;
use crate::error::Error;
use crate::layout::{Move, Slice};

impl AnyArray {
    /// The view `m`, which is one for every argument it accepts.
    fn always_view(&self, m: Move) -> Result<AnyArray, Error> {
        match self.move_(&m) {
            Ok(Some(a)) => Ok(a),
            Ok(None) => unreachable!("nxrig bug: {} gave no view", m.name()),
            Err(e) => Err(e),
        }
    }

    /// The axes reordered: axis `k` of the view is axis `axes[k]` of the array (a
    /// transpose of a matrix is `permute(&[1, 0])`).
    ///
    /// ```
    /// use nxrig::Array;
    /// let a = Array::<i32>::of_array(&[2, 3], &[0, 1, 2, 3, 4, 5])?;
    /// let t = a.any().permute(&[1, 0])?;
    /// assert_eq!(t.shape(), [3, 2]);
    /// assert!(t.buffer().same_memory(a.buffer())); // a view
    /// assert_eq!(t.expect::<i32>()?.to_vec()?, [0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Layout`] naming `Move::Permute` unless `axes` lists each axis once.
    pub fn permute(&self, axes: &[usize]) -> Result<AnyArray, Error> {
        self.always_view(Move::Permute(axes.to_vec()))
    }

    /// The listed axes reversed (NumPy's `flip`): a view with negative strides.
    ///
    /// # Errors
    /// [`Error::Layout`] naming `Move::Flip` for an axis past the rank or listed twice.
    pub fn flip(&self, axes: &[usize]) -> Result<AnyArray, Error> {
        self.always_view(Move::Flip(axes.to_vec()))
    }

    /// A NumPy slice of each leading axis (`a[1:, ::-2]` is
    /// `slice(&[Slice::new(Some(1), None, 1), Slice::new(None, None, -2)])`); axes past
    /// the list are kept whole.
    ///
    /// ```
    /// use nxrig::{Array, Slice};
    /// let a = Array::<u8>::of_array(&[5], &[0, 1, 2, 3, 4])?;
    /// let s = a.any().slice(&[Slice::new(Some(3), None, -2)])?; // a[3::-2]
    /// assert_eq!(s.expect::<u8>()?.to_vec()?, [3, 1]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Layout`] naming `Move::Slice` for more slices than axes or a step of 0.
    pub fn slice(&self, slices: &[Slice]) -> Result<AnyArray, Error> {
        self.always_view(Move::Slice(slices.to_vec()))
    }

    /// Axes of extent 1 repeated to `shape`'s extents (stride 0), at the same rank.
    ///
    /// # Errors
    /// [`Error::Layout`] naming `Move::Expand` for another rank or an axis of extent
    /// other than 1 changed.
    pub fn expand(&self, shape: &[usize]) -> Result<AnyArray, Error> {
        self.always_view(Move::Expand(shape.to_vec()))
    }

    /// A unit axis inserted before axis `axis` (`axis` may equal the rank).
    ///
    /// # Errors
    /// [`Error::Layout`] naming `Move::Unsqueeze` for an axis past the rank or a rank
    /// past [`crate::layout::MAX_RANK`].
    pub fn unsqueeze(&self, axis: usize) -> Result<AnyArray, Error> {
        self.always_view(Move::Unsqueeze(axis))
    }

    /// Unit axis `axis` removed.
    ///
    /// # Errors
    /// [`Error::Layout`] naming `Move::Squeeze` for an axis past the rank or of extent
    /// other than 1.
    pub fn squeeze(&self, axis: usize) -> Result<AnyArray, Error> {
        self.always_view(Move::Squeeze(axis))
    }

    /// The same elements in C order at `shape`, as a view: where the array's strides
    /// allow one (a contiguous array always does; a transposed one may not), else an
    /// error that says so. It never copies: [`AnyArray::move_or_copy`] copies where no
    /// view exists.
    ///
    /// ```
    /// use nxrig::Array;
    /// let a = Array::<f32>::of_array(&[2, 3], &[0.0; 6])?;
    /// assert_eq!(a.any().reshape(&[3, 2])?.shape(), [3, 2]);
    /// let t = a.any().permute(&[1, 0])?;
    /// assert!(t.reshape(&[6]).is_err()); // no view: copy first
    /// assert_eq!(t.copy()?.reshape(&[6])?.shape(), [6]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Layout`] naming `Move::Reshape` for another element count, or where no
    /// view of `shape` exists over the array's strides.
    pub fn reshape(&self, shape: &[usize]) -> Result<AnyArray, Error> {
        let m = Move::Reshape(shape.to_vec());
        self.move_(&m)?.ok_or_else(|| Error::Layout {
            op: "Move::Reshape",
            reason: format!(
                "no view of shape {shape:?} over strides {:?}: copy the array first \
                 (AnyArray::copy, or move_or_copy)",
                self.layout().strides()
            ),
        })
    }
}

impl<E: Element> Array<E> {
    /// [`AnyArray::permute`], typed.
    ///
    /// # Errors
    /// As [`AnyArray::permute`].
    pub fn permute(&self, axes: &[usize]) -> Result<Array<E>, Error> {
        self.any().permute(axes)?.expect()
    }

    /// [`AnyArray::flip`], typed.
    ///
    /// # Errors
    /// As [`AnyArray::flip`].
    pub fn flip(&self, axes: &[usize]) -> Result<Array<E>, Error> {
        self.any().flip(axes)?.expect()
    }

    /// [`AnyArray::slice`], typed.
    ///
    /// # Errors
    /// As [`AnyArray::slice`].
    pub fn slice(&self, slices: &[Slice]) -> Result<Array<E>, Error> {
        self.any().slice(slices)?.expect()
    }

    /// [`AnyArray::expand`], typed.
    ///
    /// # Errors
    /// As [`AnyArray::expand`].
    pub fn expand(&self, shape: &[usize]) -> Result<Array<E>, Error> {
        self.any().expand(shape)?.expect()
    }

    /// [`AnyArray::unsqueeze`], typed.
    ///
    /// # Errors
    /// As [`AnyArray::unsqueeze`].
    pub fn unsqueeze(&self, axis: usize) -> Result<Array<E>, Error> {
        self.any().unsqueeze(axis)?.expect()
    }

    /// [`AnyArray::squeeze`], typed.
    ///
    /// # Errors
    /// As [`AnyArray::squeeze`].
    pub fn squeeze(&self, axis: usize) -> Result<Array<E>, Error> {
        self.any().squeeze(axis)?.expect()
    }

    /// [`AnyArray::reshape`], typed: a view, or an error where none exists.
    ///
    /// # Errors
    /// As [`AnyArray::reshape`].
    pub fn reshape(&self, shape: &[usize]) -> Result<Array<E>, Error> {
        self.any().reshape(shape)?.expect()
    }
}
