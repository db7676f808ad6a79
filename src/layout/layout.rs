//! Layouts: where an array's elements lie in its buffer.
//!
//! A layout maps an index `i` (one entry per axis) to the
//! element position `offset + Σ i[k] * strides[k]`. Shape, strides and offset are in
//! elements; strides may be negative (flip and negative-step slices) or zero
//! (expand). Every position a layout reaches is non-negative.

use core::fmt;

use crate::error::Error;

/// The most axes a layout has.
pub const MAX_RANK: usize = 16;

/// Shape, strides and offset of an array, all in elements. `Copy`, and allocation-free.
///
/// ```
/// use nxrig::Layout;
///
/// let l = Layout::new(&[2, 3], &[3, 1], 0)?; // C order
/// assert!(l.is_contiguous());
/// assert_eq!((l.numel(), l.position(&[1, 2])), (6, Some(5)));
/// let t = Layout::new(&[3, 2], &[1, 3], 0)?; // its transpose
/// assert!(!t.is_contiguous());
/// assert_eq!(t.bounds(), Some((0, 5)));
/// assert!(Layout::new(&[2], &[1, 1], 0).is_err()); // one stride an axis
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    rank: u8,
    shape: [usize; MAX_RANK],
    strides: [isize; MAX_RANK],
    offset: usize,
}

pub(crate) fn bad(op: &'static str, reason: impl Into<String>) -> Error {
    Error::Layout {
        op,
        reason: reason.into(),
    }
}

/// The number of elements of `shape`.
///
/// # Errors
/// [`Error::Layout`] if the product overflows `usize`.
pub fn numel(shape: &[usize]) -> Result<usize, Error> {
    shape
        .iter()
        .try_fold(1usize, |a, &n| a.checked_mul(n))
        .ok_or_else(|| {
            bad(
                "layout::numel",
                format!("shape {shape:?} has more elements than usize holds"),
            )
        })
}

/// C-order strides of `shape`: the last axis at stride 1, each other at the product of
/// the extents after it.
///
/// # Errors
/// [`Error::Layout`] if a product overflows `isize`.
fn c_strides(shape: &[usize]) -> Result<[isize; MAX_RANK], Error> {
    let mut s = [0isize; MAX_RANK];
    let mut acc: isize = 1;
    for k in (0..shape.len()).rev() {
        s[k] = acc;
        acc = isize::try_from(shape[k])
            .ok()
            .and_then(|n| acc.checked_mul(n.max(1)))
            .ok_or_else(|| {
                bad(
                    "Layout::contiguous",
                    format!("shape {shape:?} is too large"),
                )
            })?;
    }
    Ok(s)
}

impl Layout {
    /// The layout of `shape` at `strides` (elements) from element position `offset`.
    ///
    /// # Errors
    /// [`Error::Layout`] if `shape` and `strides` differ in length, the rank exceeds
    /// [`MAX_RANK`], a position overflows `isize`, or the layout has an element and its
    /// least position is negative.
    pub fn new(shape: &[usize], strides: &[isize], offset: usize) -> Result<Layout, Error> {
        if shape.len() != strides.len() {
            return Err(bad(
                "Layout::new",
                format!("shape {shape:?} and strides {strides:?} differ in rank"),
            ));
        }
        if shape.len() > MAX_RANK {
            return Err(bad(
                "Layout::new",
                format!("rank {} exceeds max_rank {MAX_RANK}", shape.len()),
            ));
        }
        let l = Layout::unchecked(shape, strides, offset);
        l.check("Layout::new")?;
        Ok(l)
    }

    /// The C-contiguous layout of `shape` at offset 0.
    ///
    /// # Errors
    /// [`Error::Layout`] if the rank exceeds [`MAX_RANK`] or the element count overflows.
    pub fn contiguous(shape: &[usize]) -> Result<Layout, Error> {
        if shape.len() > MAX_RANK {
            return Err(bad(
                "Layout::contiguous",
                format!("rank {} exceeds max_rank {MAX_RANK}", shape.len()),
            ));
        }
        let named = |e: Error| e.called("Layout::contiguous");
        numel(shape).map_err(named)?;
        let s = c_strides(shape).map_err(named)?;
        Layout::new(shape, &s[..shape.len()], 0)
    }

    /// Checks that every position fits `isize` and none is negative.
    pub(crate) fn check(&self, op: &'static str) -> Result<(), Error> {
        if self.numel_checked().is_none() {
            return Err(bad(
                op,
                format!(
                    "shape {:?} has more elements than usize holds",
                    self.shape()
                ),
            ));
        }
        if self.is_empty() {
            return Ok(());
        }
        let (mut lo, mut hi) = (
            isize::try_from(self.offset).map_err(|_| bad(op, "offset overflows"))?,
            0isize,
        );
        hi += lo;
        for k in 0..self.rank() {
            let n = isize::try_from(self.shape[k] - 1).map_err(|_| bad(op, "extent overflows"))?;
            let d = n
                .checked_mul(self.strides[k])
                .ok_or_else(|| bad(op, "position overflows"))?;
            if d < 0 {
                lo = lo
                    .checked_add(d)
                    .ok_or_else(|| bad(op, "position overflows"))?;
            } else {
                hi = hi
                    .checked_add(d)
                    .ok_or_else(|| bad(op, "position overflows"))?;
            }
        }
        if lo < 0 {
            return Err(bad(op, format!("{self:?} reaches position {lo}, below 0")));
        }
        Ok(())
    }

    /// Number of axes.
    #[inline]
    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    /// Extent of each axis (elements).
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape[..self.rank()]
    }

    /// Stride of each axis (elements; may be negative or zero).
    #[inline]
    pub fn strides(&self) -> &[isize] {
        &self.strides[..self.rank()]
    }

    /// Element position of index 0.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Extent of axis `k`, or `None` past the rank.
    #[inline]
    pub fn dim(&self, k: usize) -> Option<usize> {
        self.shape().get(k).copied()
    }

    fn numel_checked(&self) -> Option<usize> {
        self.shape()
            .iter()
            .try_fold(1usize, |a, &n| a.checked_mul(n))
    }

    /// Number of elements (1 for rank 0).
    #[inline]
    pub fn numel(&self) -> usize {
        self.shape().iter().product()
    }

    /// True when an axis has extent 0.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.shape().contains(&0)
    }

    /// True when the layout is C-contiguous: axes of extent above 1 at the strides of
    /// [`Layout::contiguous`] (any offset). Layouts without elements are contiguous.
    pub fn is_contiguous(&self) -> bool {
        if self.is_empty() {
            return true;
        }
        let mut acc: isize = 1;
        for k in (0..self.rank()).rev() {
            if self.shape[k] != 1 && self.strides[k] != acc {
                return false;
            }
            acc = acc.wrapping_mul(self.shape[k] as isize);
        }
        true
    }

    /// The least and greatest positions the layout reaches, or `None` without elements.
    pub fn bounds(&self) -> Option<(usize, usize)> {
        if self.is_empty() {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for k in 0..self.rank() {
            let d = (self.shape[k] as isize - 1) * self.strides[k];
            if d < 0 {
                lo += d;
            } else {
                hi += d;
            }
        }
        Some((lo as usize, hi as usize))
    }

    /// The position of index `index`, or `None` if it has the wrong number of entries
    /// or an entry is out of range.
    pub fn position(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.rank() {
            return None;
        }
        let mut p = self.offset as isize;
        for ((&i, &n), &s) in index.iter().zip(self.shape()).zip(self.strides()) {
            if i >= n {
                return None;
            }
            p += i as isize * s;
        }
        Some(p as usize)
    }

    /// Calls `f` with the position of every index, in C order of indices.
    pub fn for_each_position(&self, mut f: impl FnMut(usize)) {
        if self.is_empty() {
            return;
        }
        let r = self.rank();
        if r == 0 {
            return f(self.offset);
        }
        let (n_last, s_last) = (self.shape[r - 1], self.strides[r - 1]);
        let mut idx = [0usize; MAX_RANK];
        let mut base = self.offset as isize;
        loop {
            let mut p = base;
            for _ in 0..n_last {
                f(p as usize);
                p += s_last;
            }
            // Advance the outer axes like an odometer.
            let mut k = r - 1;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                idx[k] += 1;
                base += self.strides[k];
                if idx[k] < self.shape[k] {
                    break;
                }
                base -= self.strides[k] * self.shape[k] as isize;
                idx[k] = 0;
            }
        }
    }

    /// The layout of `shape`, `strides` (of equal length, at most [`MAX_RANK`]) and
    /// `offset`, unchecked: the caller checks with [`Layout::check`].
    pub(crate) fn unchecked(shape: &[usize], strides: &[isize], offset: usize) -> Layout {
        let mut l = Layout {
            rank: shape.len() as u8,
            shape: [0; MAX_RANK],
            strides: [0; MAX_RANK],
            offset,
        };
        l.shape[..shape.len()].copy_from_slice(shape);
        l.strides[..shape.len()].copy_from_slice(strides);
        l
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Layout {{ shape: {:?}, strides: {:?}, offset: {} }}",
            self.shape(),
            self.strides(),
            self.offset
        )
    }
}
