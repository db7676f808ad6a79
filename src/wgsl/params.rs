//! The parameters of `shaders/walk.wgsl`, which every elementwise kernel takes: the
//! element count, the rank, the offsets and per axis (innermost first) the extent and
//! the strides, all in elements, as 32-bit words.

use crate::layout::Layout;

/// Bytes of the `Params` uniform: 4 words, 16 axes of 4 words, then 4 words.
pub const PARAMS_BYTES: usize = 16 + 16 * 16 + 16;

/// The `Params` of a walk over `src`'s shape (which `dst` shares), each layout's
/// positions counted from `base` elements into its binding: `None` where a count, a
/// stride or a position does not fit the kernel's 32-bit arithmetic (more than
/// `u32::MAX` elements, or a position past `i32::MAX`).
///
/// ```
/// use nxrig::{layout::Layout, wgsl::walk_params};
/// let src = Layout::contiguous(&[2, 3])?;
/// let p = walk_params((&src, 8), (&src, 0)).unwrap();
/// // Two contiguous axes walk as one: 6 elements, rank 1, offsets 8 and 0.
/// assert_eq!(&p[..16], [6u32, 1, 8, 0].map(u32::to_le_bytes).concat());
/// assert!(walk_params((&src, 1 << 31), (&src, 0)).is_none());
/// # Ok::<(), nxrig::Error>(())
/// ```
pub fn walk_params(src: (&Layout, usize), dst: (&Layout, usize)) -> Option<Vec<u8>> {
    walk_params3(src, dst, None)
}

/// [`walk_params`] with a second source `src2` of the same shape, for kernels of two
/// operands (`positions3` in the walk).
pub fn walk_params3(
    src: (&Layout, usize),
    dst: (&Layout, usize),
    src2: Option<(&Layout, usize)>,
) -> Option<Vec<u8>> {
    let (sl, dl) = (src.0, dst.0);
    debug_assert_eq!(sl.shape(), dl.shape());
    let n = u32::try_from(sl.numel()).ok()?;
    let fits = |l: &Layout, base: usize| -> Option<u32> {
        let off = l.offset().checked_add(base)?;
        if let Some((_, hi)) = l.bounds() {
            i32::try_from(hi.checked_add(base)?).ok()?;
        }
        for &s in l.strides() {
            i32::try_from(s).ok()?;
        }
        i32::try_from(off).ok().map(|o| o as u32)
    };
    let (so, dof) = (fits(sl, src.1)?, fits(dl, dst.1)?);
    let to = match src2 {
        Some((l, b)) => fits(l, b)?,
        None => 0,
    };
    // Axes outermost first as (extent, strides); an axis that continues the next one in
    // every layout merges with it, so the walk divides once an axis that remains.
    let mut axes: Vec<(usize, [isize; 3])> = Vec::with_capacity(sl.rank());
    for k in 0..sl.rank() {
        let st = [
            sl.strides()[k],
            dl.strides()[k],
            src2.map_or(0, |(l, _)| l.strides()[k]),
        ];
        let e = sl.shape()[k];
        if e == 1 {
            continue;
        }
        match axes.last_mut() {
            Some((pe, ps)) if (0..3).all(|j| ps[j] == st[j] * e as isize) => {
                *pe *= e;
                *ps = st;
            }
            _ => axes.push((e, st)),
        }
    }
    let mut p: Vec<u32> = Vec::with_capacity(PARAMS_BYTES / 4);
    p.extend([n, axes.len() as u32, so, dof]);
    for k in 0..16 {
        match axes.len().checked_sub(k + 1).map(|k| axes[k]) {
            Some((e, st)) => p.extend([
                e as u32,
                st[0] as i32 as u32,
                st[1] as i32 as u32,
                st[2] as i32 as u32,
            ]),
            None => p.extend([1, 0, 0, 0]),
        }
    }
    p.extend([to, 0, 0, 0]);
    Some(p.iter().flat_map(|x| x.to_le_bytes()).collect())
}
