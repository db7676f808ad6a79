//! Bitcast views: an array's bits read as elements of another dtype, over the same
//! buffer.

use super::any::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::layout::{Layout, MAX_RANK};

impl AnyArray {
    /// The array's bits read as elements of `dtype`, over its buffer. With `r` the ratio
    /// of the two widths (in bits):
    ///
    /// - equal widths keep the layout;
    /// - to a narrower dtype, a trailing axis of extent `r` and stride 1 is appended,
    ///   and the other strides and the offset are multiplied by `r` (float32 `[2]` as
    ///   uint8 is `[2, 4]`; uint8 as int4 puts the low nibble first);
    /// - to a wider dtype, the array needs a trailing axis of extent `r` and stride 1,
    ///   and an offset and other strides that are multiples of `r`; the axis is removed
    ///   and they are divided by `r`. An array with no element needs only the trailing
    ///   axis of extent `r`.
    ///
    /// `Ok(None)` where widening's conditions fail or the result's first element is not
    /// on a multiple of `dtype`'s alignment.
    ///
    /// ```
    /// use nxrig::{AnyArray, Array, DType};
    /// let a: AnyArray = Array::<f32>::of_array(&[2], &[1.0, -2.0])?.into();
    /// let b = a.bitcast(DType::Uint16)?.unwrap(); // [2] float32 as [2, 2] uint16
    /// assert_eq!(b.shape(), [2, 2]);
    /// assert_eq!(b.to_bits_vec()?, [0x0000, 0x3f80, 0x0000, 0xc000]);
    /// assert_eq!(b.bitcast(DType::Float32)?.unwrap().shape(), [2]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Dead`] if the buffer is dead; [`Error::Layout`] on a narrowing of an
    /// array of rank [`MAX_RANK`].
    pub fn bitcast(&self, dtype: DType) -> Result<Option<AnyArray>, Error> {
        const OP: &str = "AnyArray::bitcast";
        self.buffer.check(OP)?;
        let (from, to) = (self.dtype.bits() as usize, dtype.bits() as usize);
        let l = &self.layout;
        let (shape, strides) = (l.shape(), l.strides());
        let layout = if from == to {
            *l
        } else if from > to {
            let r = from / to;
            if l.rank() == MAX_RANK {
                return Err(Error::Layout {
                    op: OP,
                    reason: format!(
                        "narrowing {} to {dtype} needs an axis past max_rank {MAX_RANK}",
                        self.dtype
                    ),
                });
            }
            let mut s = shape.to_vec();
            s.push(r);
            let mut t: Vec<isize> = strides.iter().map(|&x| x * r as isize).collect();
            t.push(1);
            Layout::new(&s, &t, l.offset() * r)?
        } else {
            let r = to / from;
            let k = l.rank();
            if k == 0 || shape[k - 1] != r {
                return Ok(None);
            }
            let empty = l.is_empty();
            if !empty
                && (strides[k - 1] != 1
                    || !l.offset().is_multiple_of(r)
                    || strides[..k - 1]
                        .iter()
                        .zip(&shape[..k - 1])
                        .any(|(&t, &n)| n > 1 && t % r as isize != 0))
            {
                return Ok(None);
            }
            let t: Vec<isize> = strides[..k - 1].iter().map(|&t| t / r as isize).collect();
            Layout::new(&shape[..k - 1], &t, l.offset() / r)?
        };
        Ok(AnyArray::v(dtype, layout, self.buffer.clone()).ok())
    }
}
