//! Copying elements between two layouts of one shape, bit for bit: the inner two axes
//! in tiles, so that a transposed copy reads and writes whole cache lines; the outer
//! axes one index at a time. Dtypes of a byte or more take every layout here; 4-bit
//! ones the transposes ([`tiles_pay`]), whose runs of nibbles would be one a run.

#[cfg(nx_vectors)]
use super::transpose::{block, nibble_block, Scratch};
use super::transpose::{set_nibble, tile};
#[cfg(nx_vectors)]
use super::vec128::prefetch;
use crate::layout::{Layout, MAX_RANK};

/// Elements from which a copy into a C-contiguous layout runs on several threads.
#[cfg(not(target_arch = "wasm32"))]
const PARALLEL_MIN: usize = 1 << 20;

/// An element's width: whole bytes (1, 2, 4, 8 or 16), or a nibble (int4, uint4:
/// element position `p` is nibble `p` of the bytes, low first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    Bytes(usize),
    Nibble,
}

impl Width {
    /// The bytes of `n` elements from an element boundary (a last half byte counted).
    #[cfg(not(target_arch = "wasm32"))]
    fn bytes(self, n: usize) -> usize {
        match self {
            Width::Bytes(w) => n * w,
            Width::Nibble => n.div_ceil(2),
        }
    }
}

/// True where a copy of 4-bit elements between these layouts (of one shape) is a
/// transpose of its inner two axes, which [`copy_threads`] tiles: the last axis at
/// different strides, and one side's next axis at stride 1.
pub(crate) fn tiles_pay(src: &Layout, dst: &Layout) -> bool {
    let r = src.rank();
    r >= 2
        && src.strides()[r - 1] != dst.strides()[r - 1]
        && (src.strides()[r - 2].abs() == 1 || dst.strides()[r - 2].abs() == 1)
}

/// [`copy`], on rayon's pool where `dst` is dense and large (natively): the axis of
/// `dst`'s largest stride is cut into bands, one a thread, each band its own run of
/// `d`'s bytes and its own part of `src` (for nibbles, bands start on a byte). A
/// C-contiguous `dst` is cut along its first axis, a transposed one along its last.
///
/// # Panics
/// As [`copy`].
pub(crate) fn copy_threads(w: Width, s: &[u8], src: &Layout, d: &mut [u8], dst: &Layout) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        let n = dst.numel();
        let aligned = w != Width::Nibble || dst.offset().is_multiple_of(2);
        // The pool is asked (and so started) only for copies large enough to split.
        let threads = if n >= PARALLEL_MIN && aligned {
            rayon::current_num_threads()
        } else {
            1
        };
        let large = threads > 1;
        if let Some(k) = large.then(|| band_axis(dst)).flatten() {
            let rows = dst.shape()[k];
            // Dense: the elements of one index of axis `k` are `stride` in a run.
            let per_row = dst.strides()[k] as usize;
            let mut band = rows.div_ceil(threads).max(1);
            if w == Width::Nibble && per_row % 2 == 1 {
                band += band % 2;
            }
            let start = w.bytes(dst.offset());
            d[start..start + w.bytes(n)]
                .par_chunks_mut(w.bytes(band * per_row))
                .enumerate()
                .for_each(|(i, chunk)| {
                    let r0 = i * band;
                    let mut shape = dst.shape().to_vec();
                    shape[k] = band.min(rows - r0);
                    let first = src.offset() as isize + r0 as isize * src.strides()[k];
                    let from = Layout::new(&shape, src.strides(), first as usize)
                        .expect("a band of a valid layout");
                    let to =
                        Layout::new(&shape, dst.strides(), 0).expect("a band of a valid layout");
                    copy(w, s, &from, chunk, &to);
                });
            return;
        }
    }
    copy(w, s, src, d, dst);
}

/// The axis along which [`copy_threads`] cuts `dst` into bands: where `dst` is dense
/// (its axes in some order C-contiguous, every stride positive), the axis of its
/// largest stride, whose every index then holds its own run of `dst`'s elements.
/// `None` where `dst` is not dense or has no axis longer than 1.
#[cfg(not(target_arch = "wasm32"))]
fn band_axis(dst: &Layout) -> Option<usize> {
    let (shape, strides) = (dst.shape(), dst.strides());
    let mut axes: Vec<usize> = (0..shape.len()).filter(|&k| shape[k] > 1).collect();
    axes.sort_by_key(|&k| std::cmp::Reverse(strides[k]));
    let mut run = 1isize;
    for &k in axes.iter().rev() {
        if strides[k] != run {
            return None;
        }
        run *= shape[k] as isize;
    }
    axes.first().copied()
}

/// Copies the elements of `src` (over `s`'s bytes) into `dst` (over `d`'s bytes), of
/// one shape, each `w` wide (bytes of 1, 2, 4, 8 or 16, another panics; or nibbles,
/// whose neighbours in `d` keep their bits).
///
/// # Panics
/// If a layout reaches past its bytes (callers check layouts first).
pub(crate) fn copy(w: Width, s: &[u8], src: &Layout, d: &mut [u8], dst: &Layout) {
    match w {
        Width::Bytes(1) => copy_w::<1>(s, src, d, dst),
        Width::Bytes(2) => copy_w::<2>(s, src, d, dst),
        Width::Bytes(4) => copy_w::<4>(s, src, d, dst),
        Width::Bytes(8) => copy_w::<8>(s, src, d, dst),
        Width::Bytes(16) => copy_w::<16>(s, src, d, dst),
        Width::Bytes(w) => unreachable_width(w),
        Width::Nibble => copy_nibbles(s, src, d, dst),
    }
}

#[cold]
#[inline(never)]
fn unreachable_width(w: usize) -> ! {
    panic!("nxrig bug: a strided copy of {w}-byte elements")
}

/// Copies the `W`-byte element at position `p` of `sp` to position `q` of `dp`.
///
/// # Safety
/// Both elements lie inside their allocations, which do not overlap.
#[inline(always)]
unsafe fn one<const W: usize>(sp: *const u8, p: isize, dp: *mut u8, q: isize) {
    // SAFETY: the caller's.
    unsafe {
        let e = sp.offset(p * W as isize).cast::<[u8; W]>().read_unaligned();
        dp.offset(q * W as isize)
            .cast::<[u8; W]>()
            .write_unaligned(e);
    }
}

/// The inner two axes of `src` and `dst` (one shape), padded to two: extents
/// `(n0, n1)`, then the strides of each on each side. Into a transposed destination
/// (its next-to-last axis at stride 1, the source's last) they come swapped, so that
/// the tiles read the source's rows and write the destination's as for a transposed
/// source.
fn inner(src: &Layout, dst: &Layout) -> (usize, usize, isize, isize, isize, isize) {
    let shape = src.shape();
    let r = shape.len();
    let (s, d) = (src.strides(), dst.strides());
    match r {
        0 => (1, 1, 0, 0, 0, 0),
        1 => (1, shape[0], 0, s[0], 0, d[0]),
        _ if d[r - 2] == 1 && s[r - 1] == 1 && d[r - 1] != 1 => (
            shape[r - 1],
            shape[r - 2],
            s[r - 1],
            s[r - 2],
            d[r - 1],
            d[r - 2],
        ),
        _ => (
            shape[r - 2],
            shape[r - 1],
            s[r - 2],
            s[r - 1],
            d[r - 2],
            d[r - 1],
        ),
    }
}

/// `f(sb, db)` at each index of the axes before the inner two, like an odometer: the
/// positions of that index's first element in `src` and in `dst`.
fn each_outer(src: &Layout, dst: &Layout, mut f: impl FnMut(isize, isize)) {
    let shape = src.shape();
    let outer = shape.len().saturating_sub(2);
    let mut idx = [0usize; MAX_RANK];
    let (mut sb, mut db) = (src.offset() as isize, dst.offset() as isize);
    loop {
        f(sb, db);
        let mut k = outer;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            sb += src.strides()[k];
            db += dst.strides()[k];
            if idx[k] < shape[k] {
                break;
            }
            sb -= src.strides()[k] * shape[k] as isize;
            db -= dst.strides()[k] * shape[k] as isize;
            idx[k] = 0;
        }
    }
}

fn copy_w<const W: usize>(s: &[u8], src: &Layout, d: &mut [u8], dst: &Layout) {
    let (Some((_, shi)), Some((_, dhi))) = (src.bounds(), dst.bounds()) else {
        return;
    };
    // Every position lies inside its bytes; the loops below then use raw pointers.
    assert!(
        (shi + 1) * W <= s.len() && (dhi + 1) * W <= d.len(),
        "nxrig bug: a layout past its bytes"
    );
    let (n0, n1, ss0, ss1, ds0, ds1) = inner(src, dst);
    let (sp, dp) = (s.as_ptr(), d.as_mut_ptr());
    #[cfg(nx_vectors)]
    let mut scratch = None;
    each_outer(src, dst, |sb, db| {
        // SAFETY: every position reached is in `0..=shi` or `0..=dhi` (checked above),
        // so each W-byte access is inside `s` or `d`, which do not overlap (one is
        // borrowed shared, the other exclusive).
        unsafe {
            if ss1 == 1 && ds1 == 1 {
                // Rows contiguous on both sides: one copy a row.
                for i in 0..n0 {
                    let (si, di) = (sb + i as isize * ss0, db + i as isize * ds0);
                    std::ptr::copy_nonoverlapping(
                        sp.offset(si * W as isize),
                        dp.offset(di * W as isize),
                        n1 * W,
                    );
                }
            } else if ds1 == 1 && (ss1 == -1 || ss1 == 0) || n0 == 1 {
                // Rows walked in order on the destination side.
                for i in 0..n0 {
                    let (si, di) = (sb + i as isize * ss0, db + i as isize * ds0);
                    for j in 0..n1 as isize {
                        one::<W>(sp, si + j * ss1, dp, di + j * ds1);
                    }
                }
            } else {
                // Tiles, so that a transpose touches whole cache lines on both sides;
                // a column of tiles at a time, so that the source's rows the tiles
                // cross are each read in order (streams the prefetchers follow).
                let t = tile(W);
                for j0 in (0..n1).step_by(t) {
                    for i0 in (0..n0).step_by(t) {
                        let (i1, j1) = ((i0 + t).min(n0), (j0 + t).min(n1));
                        // Elements of 8 bytes or fewer read down columns, written along
                        // rows: square blocks of 16-byte rows through vector registers;
                        // bytes through the scratch, each column's and row's line at once.
                        #[cfg(nx_vectors)]
                        if W == 1 && ss0 == 1 && ds1 == 1 && i1 - i0 == t && j1 - j0 == t {
                            let s = sp.offset(sb + i0 as isize + j0 as isize * ss1);
                            let d = dp.offset(db + i0 as isize * ds0 + j0 as isize);
                            scratch
                                .get_or_insert_with(Scratch::new)
                                .bytes(s, ss1, d, ds0);
                            continue;
                        }
                        #[cfg(nx_vectors)]
                        if W <= 8 && ss0 == 1 && ds1 == 1 && i1 - i0 == t && j1 - j0 == t {
                            // The next tile's destination lines, fetched meanwhile
                            // (for 2-byte elements, slower).
                            if W >= 4 {
                                for i in i1..i1 + t {
                                    let d = (db + i as isize * ds0 + j0 as isize) * W as isize;
                                    prefetch(dp.wrapping_offset(d));
                                    prefetch(dp.wrapping_offset(d + (t * W) as isize - 1));
                                }
                            }
                            let b = 16 / W;
                            for i in (i0..i1).step_by(b) {
                                for j in (j0..j1).step_by(b) {
                                    let s = sp
                                        .offset((sb + i as isize + j as isize * ss1) * W as isize);
                                    let d = dp
                                        .offset((db + i as isize * ds0 + j as isize) * W as isize);
                                    block::<W>(s, ss1 * W as isize, d, ds0 * W as isize);
                                }
                            }
                            continue;
                        }
                        for i in i0..i1 {
                            let (si, di) = (sb + i as isize * ss0, db + i as isize * ds0);
                            for j in j0 as isize..j1 as isize {
                                one::<W>(sp, si + j * ss1, dp, di + j * ds1);
                            }
                        }
                    }
                }
            }
        }
    });
}

/// Nibble `p` of the bytes at `sp`.
///
/// # Safety
/// Byte `p / 2` lies inside the allocation.
#[inline(always)]
unsafe fn nibble(sp: *const u8, p: isize) -> u8 {
    // SAFETY: the caller's.
    (unsafe { *sp.offset(p >> 1) } >> ((p & 1) * 4)) & 15
}

/// [`copy`] of 4-bit elements: the inner two axes in tiles.
fn copy_nibbles(s: &[u8], src: &Layout, d: &mut [u8], dst: &Layout) {
    let (Some((_, shi)), Some((_, dhi))) = (src.bounds(), dst.bounds()) else {
        return;
    };
    assert!(
        shi / 2 < s.len() && dhi / 2 < d.len(),
        "nxrig bug: a layout past its bytes"
    );
    let (n0, n1, ss0, ss1, ds0, ds1) = inner(src, dst);
    let (sp, dp) = (s.as_ptr(), d.as_mut_ptr());
    let t = tile(0);
    #[cfg(nx_vectors)]
    let mut scratch: Option<Box<Scratch>> = None;
    each_outer(src, dst, |sb, db| {
        for j0 in (0..n1).step_by(t) {
            for i0 in (0..n0).step_by(t) {
                let (i1, j1) = ((i0 + t).min(n0), (j0 + t).min(n1));
                // Columns read down, rows written along: a full tile through the
                // scratch, else blocks of 32 x 32 as far as they fit (rows `i0..ib`,
                // columns `j0..jb`).
                let (ib, jb) = if cfg!(nx_vectors) && ss0 == 1 && ds1 == 1 {
                    (i0 + (i1 - i0) / 32 * 32, j0 + (j1 - j0) / 32 * 32)
                } else {
                    (i0, j0)
                };
                #[cfg(nx_vectors)]
                if ib - i0 == t && jb - j0 == t {
                    let (p, q) = (
                        sb + i0 as isize + j0 as isize * ss1,
                        db + i0 as isize * ds0 + j0 as isize,
                    );
                    // SAFETY: the tile's positions are in `0..=shi` and `0..=dhi`
                    // (checked above); `s` and `d` do not overlap.
                    unsafe {
                        scratch
                            .get_or_insert_with(Scratch::new)
                            .nibbles(sp, p, ss1, dp, q, ds0)
                    };
                    continue;
                }
                #[cfg(nx_vectors)]
                for i in (i0 as isize..ib as isize).step_by(32) {
                    for j in (j0 as isize..jb as isize).step_by(32) {
                        let (p, q) = (sb + i + j * ss1, db + i * ds0 + j);
                        // SAFETY: the block's positions are in `0..=shi` and `0..=dhi`
                        // (checked above); `s` and `d` do not overlap.
                        unsafe { nibble_block(sp, p, ss1, dp, q, ds0) };
                    }
                }
                // The rest one at a time: right of the blocks, then the rows below.
                for i in i0..i1 {
                    let (si, di) = (sb + i as isize * ss0, db + i as isize * ds0);
                    let from = if i < ib { jb } else { j0 };
                    for j in from as isize..j1 as isize {
                        // SAFETY: every position reached is in `0..=shi` or `0..=dhi`
                        // (checked above); `s` and `d` do not overlap.
                        unsafe { set_nibble(dp, di + j * ds1, nibble(sp, si + j * ss1)) };
                    }
                }
            }
        }
    });
}
