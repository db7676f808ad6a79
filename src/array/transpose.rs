//! The tiles of a transposed copy (`strided.rs`): their side by element width, and
//! the square blocks moved through 128-bit vectors (`vec128.rs`: x86_64's SSE2, wasm32's
//! simd128): 16 bytes a row, 16 / W rows of W-byte elements, transposed by
//! log2(16 / W) rounds of interleaving (a perfect shuffle; the vectors only move
//! bits). 4-bit elements go in blocks of 32 x 32: pairs of rows into 2 x 2 blocks of
//! nibbles, then as bytes. Tiles of bytes and of nibbles go through a scratch (each
//! line of a column read, and of a row written, at once), the destination's lines and
//! the next tile's source lines prefetched meanwhile.

#[cfg(nx_vectors)]
use super::vec128::{self as v, prefetch};

/// Side of a tile of `w`-byte elements (0 for nibbles), in elements: a cache line
/// (64 bytes) of its rows on both sides, and at least 16.
pub(super) const fn tile(w: usize) -> usize {
    match w {
        0 => 128,
        1 => 64,
        2 => 32,
        _ => 16,
    }
}

/// Transposes a block of `16 / W` x `16 / W` elements of `W` bytes (1, 2, 4 or 8):
/// row `m` of `d` (rows `dstep` bytes apart) gets lane `m` of each row of `s` (rows
/// `sstep` bytes apart), bit for bit.
///
/// # Safety
/// Every row's 16 bytes lie inside their allocations, which do not overlap.
#[cfg(nx_vectors)]
#[inline(always)]
pub(super) unsafe fn block<const W: usize>(s: *const u8, sstep: isize, d: *mut u8, dstep: isize) {
    let n = 16 / W;
    let mut v = [v::zero(); 16];
    // SAFETY: the caller's.
    unsafe {
        for (k, r) in v.iter_mut().enumerate().take(n) {
            *r = v::load(s.offset(k as isize * sstep));
        }
        let v = turn::<W>(v);
        for (m, r) in v.iter().enumerate().take(n) {
            v::store(d.offset(m as isize * dstep), *r);
        }
    }
}

/// The first `16 / W` rows of `v` transposed as `W`-byte elements: by log2(16 / W)
/// rounds, each pairing row k with row k + n/2 and interleaving their elements; after
/// them row m holds lane m of every row, in order.
#[cfg(nx_vectors)]
#[inline(always)]
fn turn<const W: usize>(mut v: [v::V; 16]) -> [v::V; 16] {
    let n = 16 / W;
    for _ in 0..n.trailing_zeros() {
        let mut t = [v::zero(); 16];
        for k in 0..n / 2 {
            (t[2 * k], t[2 * k + 1]) = v::zip::<W>(v[k], v[k + n / 2]);
        }
        v = t;
    }
    v
}

/// Transposes a block of 32 x 32 packed 4-bit elements, positions in nibbles: row `i`
/// of the result, the 32 nibbles from `q + i * dstep` of `d` (a start inside a byte
/// keeps that byte's other nibble, and the last byte's), gets nibble `i` of each row
/// of `s`, the 32 from `p + j * sstep`. The rows of `s` go in pairs: each pair's
/// bytes hold 2 x 2 blocks of nibbles, which masks and shifts transpose into two bytes
/// (`lo`: the pair's even nibbles, `hi`: its odd ones); the 16 x 16 bytes of each kind
/// then transpose as bytes, into the even and the odd rows of the result.
///
/// # Safety
/// Every row's nibbles lie inside their allocations, which do not overlap, and nothing
/// else writes `d`'s bytes meanwhile.
#[cfg(nx_vectors)]
#[inline(always)]
pub(super) unsafe fn nibble_block(
    s: *const u8,
    p: isize,
    sstep: isize,
    d: *mut u8,
    q: isize,
    dstep: isize,
) {
    let (low, high) = (v::splat(0x0f), v::splat(0xf0));
    let mut lo = [v::zero(); 16];
    let mut hi = [v::zero(); 16];
    // SAFETY: the caller's.
    unsafe {
        for m in 0..16 {
            let x = load_nibbles(s, p + 2 * m as isize * sstep);
            let y = load_nibbles(s, p + (2 * m as isize + 1) * sstep);
            // Byte k of `lo`: nibble 2k of x, then of y; of `hi`: nibble 2k + 1 of each.
            lo[m] = v::or(v::and(x, low), v::and(v::shl4(y), high));
            hi[m] = v::or(v::and(v::shr4(x), low), v::and(y, high));
        }
        let (lo, hi) = (turn::<1>(lo), turn::<1>(hi));
        for k in 0..16 {
            store_nibbles(d, q + 2 * k as isize * dstep, lo[k]);
            store_nibbles(d, q + (2 * k as isize + 1) * dstep, hi[k]);
        }
    }
}

/// The 32 nibbles from nibble `p` of `s`, packed into 16 bytes (low nibble first).
///
/// # Safety
/// The nibbles lie inside the allocation.
#[cfg(nx_vectors)]
#[inline(always)]
unsafe fn load_nibbles(s: *const u8, p: isize) -> v::V {
    // SAFETY: the caller's: from inside a byte, the nibbles span 17 bytes.
    unsafe {
        let b = s.offset(p >> 1);
        let x = v::load(b);
        if p & 1 == 0 {
            return x;
        }
        // Byte k: the high nibble of byte k, then the low one of byte k + 1.
        let y = v::load(b.add(1));
        v::or(
            v::and(v::shr4(x), v::splat(0x0f)),
            v::and(v::shl4(y), v::splat(0xf0)),
        )
    }
}

/// Stores the 32 nibbles of `x` (low first) from nibble `q` of `d`; from inside a
/// byte, the first byte's low nibble and the last's high one are kept.
///
/// # Safety
/// The nibbles lie inside the allocation, which nothing else accesses meanwhile.
#[cfg(nx_vectors)]
#[inline(always)]
unsafe fn store_nibbles(d: *mut u8, q: isize, x: v::V) {
    // SAFETY: the caller's: from inside a byte, the nibbles span 17 bytes.
    unsafe {
        let b = d.offset(q >> 1);
        if q & 1 == 0 {
            v::store(b, x);
            return;
        }
        // Byte k: the high nibble of x's byte k - 1 (byte 0: its own kept low
        // nibble), then the low nibble of x's byte k; byte 16: x's last high nibble.
        let kept = *b & 15;
        let out = v::or(
            v::and(v::shl4(x), v::splat(0xf0)),
            v::and(v::shr4(v::bytes_up(x)), v::splat(0x0f)),
        );
        v::store(b, out);
        *b |= kept;
        *b.add(16) = (*b.add(16) & 0xf0) | (v::last(x) >> 4);
    }
}

/// Scratch for one tile at a time: its columns as read, its rows as written (64
/// bytes each, whole cache lines; 64 of each for bytes, 128 for nibbles), so that each
/// line of the source and of the destination is read or written once, at once,
/// whatever their strides' cache sets.
#[cfg(nx_vectors)]
pub(super) struct Scratch {
    cols: [[u8; 64]; 128],
    rows: [[u8; 64]; 128],
}

#[cfg(nx_vectors)]
impl Scratch {
    /// A zeroed scratch, on the heap (16 KiB).
    pub(super) fn new() -> Box<Scratch> {
        Box::new(Scratch {
            cols: [[0; 64]; 128],
            rows: [[0; 64]; 128],
        })
    }

    /// Transposes one full tile of 64 x 64 bytes: column `j` (64 bytes) at `s + j *
    /// sstep`, result row `i` at `d + i * dstep`; in blocks of 16 x 16.
    ///
    /// # Safety
    /// Every column's and row's 64 bytes lie inside their allocations, which do not
    /// overlap.
    pub(super) unsafe fn bytes(&mut self, s: *const u8, sstep: isize, d: *mut u8, dstep: isize) {
        // The destination's lines, fetched while the source's are read, and the
        // source's lines of the next tile down (the caller's next, mostly).
        for i in 0..64 {
            let b = d.wrapping_offset(i * dstep);
            prefetch(b);
            prefetch(b.wrapping_add(63));
            let n = s.wrapping_offset(i * sstep + 64);
            prefetch(n);
            prefetch(n.wrapping_add(63));
        }
        for (j, col) in self.cols.iter_mut().take(64).enumerate() {
            // SAFETY: the caller's.
            unsafe {
                std::ptr::copy_nonoverlapping(s.offset(j as isize * sstep), col.as_mut_ptr(), 64)
            };
        }
        let (cp, rp) = (
            self.cols.as_ptr().cast::<u8>(),
            self.rows.as_mut_ptr().cast::<u8>(),
        );
        for i in (0..64).step_by(16) {
            for j in (0..64).step_by(16) {
                // SAFETY: 16 rows of 16 bytes inside each array.
                unsafe { block::<1>(cp.add(j * 64 + i), 64, rp.add(i * 64 + j), 64) };
            }
        }
        for (i, row) in self.rows.iter().take(64).enumerate() {
            // SAFETY: the caller's.
            unsafe {
                std::ptr::copy_nonoverlapping(row.as_ptr(), d.offset(i as isize * dstep), 64)
            };
        }
    }

    /// Transposes one full tile of 128 x 128 4-bit elements, positions in nibbles:
    /// column `j` the 128 nibbles from `p + j * sstep` of `s`, result row `i` the 128
    /// from `q + i * dstep` of `d` (a start inside a byte keeps that byte's other
    /// nibble, and the last byte's); in blocks of 32 x 32 ([`nibble_block`]).
    ///
    /// # Safety
    /// Every column's and row's nibbles lie inside their allocations, which do not
    /// overlap, and nothing else writes `d`'s bytes meanwhile.
    pub(super) unsafe fn nibbles(
        &mut self,
        s: *const u8,
        p: isize,
        sstep: isize,
        d: *mut u8,
        q: isize,
        dstep: isize,
    ) {
        // SAFETY: the caller's; the scratch's rows are 128 nibbles each.
        unsafe {
            // The destination's lines, fetched while the source's are read (each
            // row's 64 or 65 bytes span two lines), and the source's lines of the
            // next tile down (the caller's next, mostly).
            for i in 0..128 {
                let b = d.wrapping_offset((q + i * dstep) >> 1);
                prefetch(b);
                prefetch(b.wrapping_add(64));
                let n = s.wrapping_offset((p + i * sstep + 128) >> 1);
                prefetch(n);
                prefetch(n.wrapping_add(64));
            }
            for (j, col) in self.cols.iter_mut().enumerate() {
                for c in 0..4 {
                    let x = load_nibbles(s, p + j as isize * sstep + 32 * c);
                    v::store(col.as_mut_ptr().add(16 * c as usize), x);
                }
            }
            let (cp, rp) = (
                self.cols.as_ptr().cast::<u8>(),
                self.rows.as_mut_ptr().cast::<u8>(),
            );
            for i in (0..128).step_by(32) {
                for j in (0..128).step_by(32) {
                    nibble_block(cp, j * 128 + i, 128, rp, i * 128 + j, 128);
                }
            }
            for (i, row) in self.rows.iter().enumerate() {
                for c in 0..4 {
                    let x = v::load(row.as_ptr().add(16 * c as usize));
                    store_nibbles(d, q + i as isize * dstep + 32 * c, x);
                }
            }
        }
    }
}

/// Sets nibble `q` of the bytes at `dp` to `v` (below 16), its neighbour kept.
///
/// # Safety
/// Byte `q / 2` lies inside the allocation, which nothing else accesses meanwhile.
#[inline(always)]
pub(super) unsafe fn set_nibble(dp: *mut u8, q: isize, v: u8) {
    let sh = (q & 1) * 4;
    // SAFETY: the caller's.
    unsafe {
        let b = dp.offset(q >> 1);
        *b = (*b & !(15 << sh)) | (v << sh);
    }
}
