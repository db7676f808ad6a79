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
/// assert_eq!(&p[..16], [6u32, 2, 8, 0].map(u32::to_le_bytes).concat());
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
    let mut p: Vec<u32> = Vec::with_capacity(PARAMS_BYTES / 4);
    p.extend([n, sl.rank() as u32, so, dof]);
    for k in (0..16).map(|k| sl.rank().checked_sub(k + 1)) {
        match k {
            Some(k) => p.extend([
                sl.shape()[k] as u32,
                sl.strides()[k] as i32 as u32,
                dl.strides()[k] as i32 as u32,
                src2.map_or(0, |(l, _)| l.strides()[k] as i32 as u32),
            ]),
            None => p.extend([1, 0, 0, 0]),
        }
    }
    p.extend([to, 0, 0, 0]);
    Some(p.iter().flat_map(|x| x.to_le_bytes()).collect())
}
