//! Movements: changes of layout that move no element.

use super::layout::{bad, numel, Layout, MAX_RANK};
use crate::error::Error;

/// One axis of a [`Move::Slice`], as NumPy means `start:stop:step`.
///
/// `None` bounds default by the step's sign (`0` and the extent for a positive step,
/// the last index and "before 0" for a negative one); negative bounds count from the
/// end; bounds are clamped into the axis, as Python's `slice.indices` does.
///
/// ```
/// use nxrig::Slice;
///
/// // x[7:2:-2] of a 10-element axis: elements 7, 5, 3.
/// assert_eq!(Slice::new(Some(7), Some(2), -2).indices(10)?, (7, 3));
/// // x[::-1]: from the last, all ten.
/// assert_eq!(Slice::new(None, None, -1).indices(10)?, (9, 10));
/// assert!(Slice::new(None, None, 0).indices(10).is_err());
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// First index taken.
    pub start: Option<isize>,
    /// Index where taking stops (excluded).
    pub stop: Option<isize>,
    /// Step between indices; never 0.
    pub step: isize,
}

impl Slice {
    /// The whole axis, `::1`.
    pub const FULL: Slice = Slice {
        start: None,
        stop: None,
        step: 1,
    };

    /// `start:stop:step`.
    pub const fn new(start: Option<isize>, stop: Option<isize>, step: isize) -> Slice {
        Slice { start, stop, step }
    }

    /// The first index and count this slice takes of an axis of extent `n`, as Python's
    /// `range(*slice.indices(n))`: the first index is clamped into `0..n` when the count is 0.
    ///
    /// # Errors
    /// [`Error::Layout`] when the step is 0.
    pub fn indices(&self, n: usize) -> Result<(usize, usize), Error> {
        let step = self.step;
        if step == 0 {
            return Err(bad("Move::Slice", "slice step cannot be zero"));
        }
        let n = n as isize;
        let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
        let norm = |v: isize| {
            let v = if v < 0 { v.saturating_add(n) } else { v };
            v.clamp(lower, upper)
        };
        let start = self
            .start
            .map_or(if step > 0 { lower } else { upper }, norm);
        let stop = self.stop.map_or(if step > 0 { upper } else { lower }, norm);
        let count = if step > 0 {
            if stop > start {
                (stop - start - 1) / step + 1
            } else {
                0
            }
        } else if start > stop {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        };
        let first = if count == 0 {
            start.clamp(0, (n - 1).max(0))
        } else {
            start
        };
        Ok((first as usize, count as usize))
    }
}

/// A movement: a new layout over the same elements.
///
/// ```
/// use nxrig::{Layout, Move};
///
/// let l = Layout::contiguous(&[2, 3])?;
/// assert_eq!(Move::Permute(vec![1, 0]).shape(l.shape())?, [3, 2]);
/// let t = l.move_(&Move::Permute(vec![1, 0]))?.expect("a view");
/// assert!(t.move_(&Move::Reshape(vec![6]))?.is_none()); // no view: copy first
/// assert_eq!(l.move_(&Move::Unsqueeze(0))?.unwrap().shape(), [1, 2, 3]);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Move {
    /// The same elements in C order at a new shape of the same element count.
    Reshape(Vec<usize>),
    /// Axis `k` of the result is axis `perm[k]` of the source.
    Permute(Vec<usize>),
    /// Axes of extent 1 repeated to the given extents (stride 0); same rank.
    Expand(Vec<usize>),
    /// A NumPy slice per leading axis; axes past the list are kept whole.
    Slice(Vec<Slice>),
    /// The listed axes reversed.
    Flip(Vec<usize>),
    /// A unit axis inserted before axis `k` (`k` may equal the rank).
    Unsqueeze(usize),
    /// Unit axis `k` removed.
    Squeeze(usize),
}

impl Move {
    /// The movement's name in messages (`Move::Reshape`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Move::Reshape(_) => "Move::Reshape",
            Move::Permute(_) => "Move::Permute",
            Move::Expand(_) => "Move::Expand",
            Move::Slice(_) => "Move::Slice",
            Move::Flip(_) => "Move::Flip",
            Move::Unsqueeze(_) => "Move::Unsqueeze",
            Move::Squeeze(_) => "Move::Squeeze",
        }
    }

    /// The shape the movement gives an array of shape `shape`.
    ///
    /// # Errors
    /// [`Error::Layout`] if the movement does not apply to `shape`: a reshape to another
    /// element count, a permutation that is not one of the axes, an expand of an axis
    /// of extent other than 1 or of another rank, a slice of step 0 or more axes than
    /// the rank, an axis out of range (or repeated in a flip, as NumPy refuses), a
    /// squeeze of an axis of extent other than 1, or a result rank above [`MAX_RANK`].
    pub fn shape(&self, shape: &[usize]) -> Result<Vec<usize>, Error> {
        let op = self.name();
        let r = shape.len();
        let axis_ok = |k: usize| {
            if k < r {
                Ok(())
            } else {
                Err(bad(
                    op,
                    format!("axis {k} out of range for shape {shape:?}"),
                ))
            }
        };
        match self {
            Move::Reshape(s) => {
                if s.len() > MAX_RANK {
                    return Err(bad(
                        op,
                        format!("rank {} exceeds max_rank {MAX_RANK}", s.len()),
                    ));
                }
                let count = |x: &[usize]| numel(x).map_err(|e| e.called(op));
                if count(s)? != count(shape)? {
                    return Err(bad(
                        op,
                        format!("cannot reshape {shape:?} into {s:?}: element counts differ"),
                    ));
                }
                Ok(s.clone())
            }
            Move::Permute(p) => {
                let mut seen = [false; MAX_RANK];
                if p.len() != r
                    || p.iter()
                        .any(|&k| k >= r || std::mem::replace(&mut seen[k], true))
                {
                    return Err(bad(
                        op,
                        format!("{p:?} is not a permutation of the {r} axes of {shape:?}"),
                    ));
                }
                Ok(p.iter().map(|&k| shape[k]).collect())
            }
            Move::Expand(s) => {
                if s.len() != r {
                    return Err(bad(
                        op,
                        format!("cannot expand {shape:?} to {s:?}: ranks differ"),
                    ));
                }
                for k in 0..r {
                    if shape[k] != s[k] && shape[k] != 1 {
                        return Err(bad(
                            op,
                            format!(
                                "cannot expand {shape:?} to {s:?}: axis {k} has extent {}",
                                shape[k]
                            ),
                        ));
                    }
                }
                numel(s).map_err(|e| e.called(op))?;
                Ok(s.clone())
            }
            Move::Slice(sl) => {
                if sl.len() > r {
                    return Err(bad(op, format!("{} slices for shape {shape:?}", sl.len())));
                }
                let mut out = shape.to_vec();
                for (k, s) in sl.iter().enumerate() {
                    out[k] = s
                        .indices(shape[k])
                        .map_err(|_| bad(op, "slice step cannot be zero"))?
                        .1;
                }
                Ok(out)
            }
            Move::Flip(axes) => {
                for (i, &k) in axes.iter().enumerate() {
                    axis_ok(k)?;
                    if axes[..i].contains(&k) {
                        return Err(bad(op, format!("axis {k} repeated in {axes:?}")));
                    }
                }
                Ok(shape.to_vec())
            }
            Move::Unsqueeze(k) => {
                if *k > r || r == MAX_RANK {
                    return Err(bad(
                        op,
                        format!("cannot insert an axis at {k} into shape {shape:?}"),
                    ));
                }
                let mut out = shape.to_vec();
                out.insert(*k, 1);
                Ok(out)
            }
            Move::Squeeze(k) => {
                axis_ok(*k)?;
                if shape[*k] != 1 {
                    return Err(bad(
                        op,
                        format!(
                            "axis {k} of shape {shape:?} has extent {}, not 1",
                            shape[*k]
                        ),
                    ));
                }
                let mut out = shape.to_vec();
                out.remove(*k);
                Ok(out)
            }
        }
    }
}

impl Layout {
    /// The layout of the same elements moved by `m`, or `Ok(None)` where no layout over
    /// the same positions exists (a reshape of a non-contiguous layout): the caller
    /// copies.
    ///
    /// ```
    /// use nxrig::{Layout, Move, Slice};
    /// let l = Layout::contiguous(&[2, 2])?;
    /// let t = l.move_(&Move::Permute(vec![1, 0]))?.unwrap();
    /// assert_eq!(t.strides(), [1, 2]);
    /// assert!(t.move_(&Move::Reshape(vec![4]))?.is_none()); // no view: copy
    /// let r = Layout::contiguous(&[10])?.move_(&Move::Slice(vec![Slice::new(Some(5), Some(2), -1)]))?.unwrap();
    /// assert_eq!((r.shape(), r.strides(), r.offset()), (&[3][..], &[-1][..], 5));
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// What [`Move::shape`] returns.
    pub fn move_(&self, m: &Move) -> Result<Option<Layout>, Error> {
        let shape = m.shape(self.shape())?;
        let (old_s, old_t) = (self.shape(), self.strides());
        let mut st = [0isize; MAX_RANK];
        let mut off = self.offset() as isize;
        match m {
            Move::Reshape(_) => match reshape_strides(old_s, old_t, &shape) {
                Some(s) => st[..shape.len()].copy_from_slice(&s[..shape.len()]),
                None => return Ok(None),
            },
            Move::Permute(p) => {
                for (k, &a) in p.iter().enumerate() {
                    st[k] = old_t[a];
                }
            }
            Move::Expand(_) => {
                for k in 0..shape.len() {
                    st[k] = if old_s[k] == 1 && shape[k] != 1 {
                        0
                    } else {
                        old_t[k]
                    };
                }
            }
            Move::Slice(sl) => {
                st[..old_t.len()].copy_from_slice(old_t);
                for (k, s) in sl.iter().enumerate() {
                    let (first, _) = s.indices(old_s[k])?;
                    off += first as isize * old_t[k];
                    st[k] = old_t[k] * s.step;
                }
            }
            Move::Flip(axes) => {
                st[..old_t.len()].copy_from_slice(old_t);
                let mut flipped = [false; MAX_RANK];
                for &k in axes {
                    if !std::mem::replace(&mut flipped[k], true) && old_s[k] > 0 {
                        off += (old_s[k] as isize - 1) * old_t[k];
                        st[k] = -old_t[k];
                    }
                }
            }
            Move::Unsqueeze(k) => {
                let s = if *k < old_s.len() {
                    old_t[*k] * old_s[*k] as isize
                } else {
                    1
                };
                st[..*k].copy_from_slice(&old_t[..*k]);
                st[*k] = s;
                st[*k + 1..=old_t.len()].copy_from_slice(&old_t[*k..]);
            }
            Move::Squeeze(k) => {
                st[..*k].copy_from_slice(&old_t[..*k]);
                st[*k..old_t.len() - 1].copy_from_slice(&old_t[*k + 1..]);
            }
        }
        let l = Layout::unchecked(&shape, &st[..shape.len()], off.max(0) as usize);
        l.check(m.name())?;
        Ok(Some(l))
    }
}

/// Strides for `new` over the elements of (`old`, `old_t`) in C order, if some exist.
fn reshape_strides(old: &[usize], old_t: &[isize], new: &[usize]) -> Option<[isize; MAX_RANK]> {
    let mut out = [0isize; MAX_RANK];
    let n: usize = old.iter().product();
    if n <= 1 || old.is_empty() {
        // No element, or one: C-order strides reach the same positions.
        let mut acc = 1isize;
        for k in (0..new.len()).rev() {
            out[k] = acc;
            acc *= new[k].max(1) as isize;
        }
        return Some(out);
    }
    // Group the old axes into runs that are contiguous among themselves; each run must
    // be split exactly by consecutive new axes (unit axes fit anywhere).
    let mut view_d = new.len() as isize - 1;
    let mut chunk_base = *old_t.last()?;
    let (mut tensor_numel, mut view_numel) = (1usize, 1usize);
    for d in (0..old.len()).rev() {
        tensor_numel *= old[d];
        let run_ends =
            d == 0 || (old[d - 1] != 1 && old_t[d - 1] != tensor_numel as isize * chunk_base);
        if run_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new[view_d as usize] == 1) {
                out[view_d as usize] = view_numel as isize * chunk_base;
                view_numel *= new[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if d > 0 {
                chunk_base = old_t[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(out)
}
