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

/// Operands an elementwise module binds at most (WebGPU's default count of storage
/// buffers a shader stage).
pub const MAX_BOUND: usize = 8;

/// Bytes of the `Walk` uniform of elementwise modules: 4 words (count, rank), the
/// operands' offsets (2 `vec4<u32>`), the extents (4 `vec4<u32>`, innermost axis
/// first), the strides (32 `vec4<i32>`: axis `k`, operand `j` at `[2k + j / 4][j % 4]`).
pub const WALK_N_BYTES: usize = 16 + 32 + 64 + 512;

/// The `Walk` of an elementwise module over `ops` (at most [`MAX_BOUND`] layouts of one
/// shape, each counted from `base` elements into its binding): `None` where a count,
/// a stride or a position does not fit 32-bit arithmetic.
pub fn walk_params_n(ops: &[(&Layout, usize)]) -> Option<Vec<u8>> {
    if ops.is_empty() || ops.len() > MAX_BOUND {
        return None;
    }
    let shape = ops[0].0.shape();
    let n = u32::try_from(ops[0].0.numel()).ok()?;
    let mut offsets = [0u32; MAX_BOUND];
    for (j, &(l, base)) in ops.iter().enumerate() {
        debug_assert_eq!(l.shape(), shape);
        let off = l.offset().checked_add(base)?;
        if let Some((_, hi)) = l.bounds() {
            i32::try_from(hi.checked_add(base)?).ok()?;
        }
        for &s in l.strides() {
            i32::try_from(s).ok()?;
        }
        offsets[j] = i32::try_from(off).ok()? as u32;
    }
    // Axes outermost first; an axis that continues the next one in every layout
    // merges with it.
    let mut axes: Vec<(usize, [isize; MAX_BOUND])> = Vec::with_capacity(shape.len());
    for (k, &e) in shape.iter().enumerate() {
        if e == 1 {
            continue;
        }
        let mut st = [0isize; MAX_BOUND];
        for (j, &(l, _)) in ops.iter().enumerate() {
            st[j] = l.strides()[k];
        }
        match axes.last_mut() {
            Some((pe, ps)) if (0..ops.len()).all(|j| ps[j] == st[j] * e as isize) => {
                *pe *= e;
                *ps = st;
            }
            _ => axes.push((e, st)),
        }
    }
    axes.reverse(); // innermost first
    let mut p: Vec<u32> = Vec::with_capacity(WALK_N_BYTES / 4);
    p.extend([n, axes.len() as u32, 0, 0]);
    p.extend(offsets);
    let mut extents = [1u32; 16];
    let mut strides = [0u32; 16 * MAX_BOUND];
    for (k, (e, st)) in axes.iter().enumerate() {
        extents[k] = *e as u32;
        for j in 0..MAX_BOUND {
            strides[k * MAX_BOUND + j] = st[j] as i32 as u32;
        }
    }
    p.extend(extents);
    p.extend(strides);
    Some(p.iter().flat_map(|x| x.to_le_bytes()).collect())
}
