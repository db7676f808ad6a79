//! The walk every generated kernel takes (binding 0, `shaders/elementwise.wgsl`'s
//! `Walk`): the element count, the rank, each operand's offset and per axis
//! (innermost first) the extent and each operand's stride, all in elements, as
//! 32-bit words.

use crate::layout::Layout;

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
    let layouts: Vec<&Layout> = ops.iter().map(|o| o.0).collect();
    let axes = merged(&layouts);
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

/// The axes a walk of `ls` (layouts of one shape, at most [`MAX_BOUND`]) takes,
/// innermost first, each its extent and each layout's stride: an axis that continues
/// the next one in every layout merges with it, axes of one element drop out.
fn merged(ls: &[&Layout]) -> Vec<(usize, [isize; MAX_BOUND])> {
    let shape = ls[0].shape();
    // Outermost first while merging.
    let mut axes: Vec<(usize, [isize; MAX_BOUND])> = Vec::with_capacity(shape.len());
    for (k, &e) in shape.iter().enumerate() {
        if e == 1 {
            continue;
        }
        let mut st = [0isize; MAX_BOUND];
        for (j, l) in ls.iter().enumerate() {
            st[j] = l.strides()[k];
        }
        match axes.last_mut() {
            Some((pe, ps)) if (0..ls.len()).all(|j| ps[j] == st[j] * e as isize) => {
                *pe *= e;
                *ps = st;
            }
            _ => axes.push((e, st)),
        }
    }
    axes.reverse();
    axes
}

/// The rank of the walk of `ls` (layouts of one shape, 1 to [`MAX_BOUND`]): its axes
/// once merged ([`walk_params_n`]'s rank); 0 or 1 where a walk of one axis serves.
pub fn merged_rank(ls: &[Layout]) -> usize {
    let ls: Vec<&Layout> = ls.iter().take(MAX_BOUND).collect();
    merged(&ls).len()
}
