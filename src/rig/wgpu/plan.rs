//! Cutting a kernel into pieces that fit the device: each operand's bytes of a piece
//! lie in one chunk of its memory and in one binding window (at most
//! `maxStorageBufferBindingSize` bytes, starting at a multiple of
//! `minStorageBufferOffsetAlignment`), and its positions fit the kernels' 32-bit
//! arithmetic. A piece is a box of the index space: the layouts sliced along axes,
//! the axis that spans the most bytes of an operand that does not fit first.
//! Split, never refused, never a silent zero.

use super::memory::GpuMemory;
use crate::error::Error;
use crate::layout::Layout;

/// One operand of a kernel: `layout`'s positions, counted from element `base` of
/// `mem`, of elements `bits` wide.
pub(crate) struct Operand<'a> {
    pub mem: &'a GpuMemory,
    pub layout: &'a Layout,
    pub base: usize,
    pub bits: u32,
}

/// Where a piece binds an operand: chunk, byte offset and bytes.
pub(crate) type Window = (usize, u64, u64);

/// One piece: each operand's layout, positions counted from its window's first
/// element, and its window.
pub(crate) struct Piece {
    pub layouts: Vec<Layout>,
    pub windows: Vec<Window>,
}

/// The device's limits that decide the pieces.
pub(crate) struct Fit {
    pub max_binding: u64,
    pub offset_align: u64,
}

/// Largest number of elements one piece walks (the kernels count in `u32`, positions in
/// `i32`).
const MOST: usize = i32::MAX as usize;

/// The window of `l` (positions from `base`) in `mem`, with its layout re-based, or
/// `None` where it does not fit.
pub(crate) fn window(
    fit: &Fit,
    mem: &GpuMemory,
    l: &Layout,
    base: usize,
    bits: u32,
) -> Option<(Layout, Window)> {
    let Some((lo, hi)) = l.bounds() else {
        return Some((*l, (0, 0, 4.min(mem.buffers()[0].size()))));
    };
    let bits = bits as u128;
    let b0 = ((lo + base) as u128 * bits / 8) as usize;
    let b1 = ((hi + base + 1) as u128 * bits).div_ceil(8) as usize;
    let (c0, c1) = (b0 / mem.chunk(), (b1 - 1) / mem.chunk());
    if c0 != c1 {
        return None;
    }
    let size = mem.buffers()[c0].size();
    let in0 = (b0 - c0 * mem.chunk()) as u64;
    let in1 = ((b1 - c0 * mem.chunk()) as u64).div_ceil(4) * 4;
    let w0 = in0 / fit.offset_align * fit.offset_align;
    let w1 = in1.min(size);
    if w1 - w0 > fit.max_binding {
        return None;
    }
    let first = (c0 as u128 * mem.chunk() as u128 + w0 as u128) * 8 / bits;
    let offset = (l.offset() + base) as u128 - first;
    let last = (hi + base) as u128 - first;
    if last > MOST as u128 {
        return None;
    }
    let rebased = Layout::new(l.shape(), l.strides(), offset as usize).ok()?;
    Some((rebased, (c0, w0, w1 - w0)))
}

/// The axis to cut: of the operands that do not fit, the axis whose elements span the
/// most bytes; `None` when every axis has one index.
fn axis(ls: &[Layout], misfits: &[usize], bits: &[u32]) -> Option<usize> {
    let shape = ls[0].shape();
    let span = |k: usize| {
        misfits
            .iter()
            .map(|&o| {
                ls[o].strides()[k].unsigned_abs() as u128 * (shape[k] as u128 - 1) * bits[o] as u128
            })
            .max()
            .unwrap_or(0)
    };
    (0..shape.len())
        .filter(|&k| shape[k] > 1)
        .max_by_key(|&k| (span(k), shape[k]))
}

/// The pieces of a kernel over `ops` (one shape), in order.
///
/// # Errors
/// [`Error::Invalid`] naming `op` if an element cannot be bound (a memory's chunk
/// smaller than an element: an nxrig bug).
pub(crate) fn pieces(
    op: &'static str,
    fit: &Fit,
    ops: &[Operand<'_>],
) -> Result<Vec<Piece>, Error> {
    let mut out = Vec::new();
    let mut todo = vec![ops.iter().map(|o| *o.layout).collect::<Vec<Layout>>()];
    let bits: Vec<u32> = ops.iter().map(|o| o.bits).collect();
    while let Some(ls) = todo.pop() {
        let n = ls[0].numel();
        let mut piece = Piece {
            layouts: Vec::with_capacity(ops.len()),
            windows: Vec::with_capacity(ops.len()),
        };
        let mut misfits = Vec::new();
        for (k, o) in ops.iter().enumerate() {
            match window(fit, o.mem, &ls[k], o.base, o.bits) {
                Some((l, w)) if n <= MOST => {
                    piece.layouts.push(l);
                    piece.windows.push(w);
                }
                _ => misfits.push(k),
            }
        }
        if misfits.is_empty() {
            out.push(piece);
            continue;
        }
        let Some(k) = axis(&ls, &misfits, &bits) else {
            return Err(Error::Invalid {
                op,
                reason: "an element cannot be bound on this device".into(),
                operands: String::new(),
            });
        };
        let h = ls[0].shape()[k] / 2;
        let cut = |l: &Layout, from: usize, len: usize| {
            let mut shape = l.shape().to_vec();
            shape[k] = len;
            let off = l.offset() as isize + from as isize * l.strides()[k];
            Layout::new(&shape, l.strides(), off as usize)
        };
        let hi: Vec<Layout> = ls
            .iter()
            .map(|l| cut(l, h, l.shape()[k] - h))
            .collect::<Result<_, _>>()?;
        let lo: Vec<Layout> = ls.iter().map(|l| cut(l, 0, h)).collect::<Result<_, _>>()?;
        // Last in, first out: the low half is cut (or run) first.
        todo.push(hi);
        todo.push(lo);
    }
    Ok(out)
}
