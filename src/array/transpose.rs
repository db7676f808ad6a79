//! The tiles of a transposed copy (`strided.rs`): their side by element width, and
//! the square blocks moved through vector registers (x86_64's SSE2, the baseline):
//! 16 bytes a row, 16 / W rows of W-byte elements, transposed by log2(16 / W)
//! rounds of interleaving (a perfect shuffle; the vectors only move bits). Tiles of
//! bytes go through a scratch (each line of a column read, and of a row written, at
//! once); 4-bit elements too, as bytes: a tile's columns unpacked, transposed, each
//! row packed again.

#[cfg(target_arch = "x86_64")]
use crate::dtype::lanes::pack_nibbles;

/// Side of a tile of `w`-byte elements (0 for nibbles), in elements: a cache line
/// (64 bytes) of its rows on both sides, and at least 16.
pub(super) const fn tile(w: usize) -> usize {
    match w {
        0 => 64,
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
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn block<const W: usize>(s: *const u8, sstep: isize, d: *mut u8, dstep: isize) {
    use std::arch::x86_64::*;
    let n = 16 / W;
    // SAFETY: the caller's; SSE2 is part of the x86_64 baseline.
    unsafe {
        let mut v = [_mm_setzero_si128(); 16];
        for (k, r) in v.iter_mut().enumerate().take(n) {
            *r = _mm_loadu_si128(s.offset(k as isize * sstep).cast());
        }
        // Each round pairs row k with row k + n/2 and interleaves their elements;
        // after log2(n) rounds row m holds lane m of every row, in order.
        for _ in 0..n.trailing_zeros() {
            let mut t = [_mm_setzero_si128(); 16];
            for k in 0..n / 2 {
                let (a, b) = (v[k], v[k + n / 2]);
                let (lo, hi) = match W {
                    1 => (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
                    2 => (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)),
                    4 => (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)),
                    _ => (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)),
                };
                t[2 * k] = lo;
                t[2 * k + 1] = hi;
            }
            v = t;
        }
        for (m, r) in v.iter().enumerate().take(n) {
            _mm_storeu_si128(d.offset(m as isize * dstep).cast(), *r);
        }
    }
}

/// Scratch for one tile at a time: its columns as read, its rows as written (64
/// bytes each, whole cache lines), so that each line of the source and of the
/// destination is read or written once, at once, whatever their strides' cache sets.
#[cfg(target_arch = "x86_64")]
pub(super) struct Scratch {
    cols: [[u8; 64]; 64],
    rows: [[u8; 64]; 64],
}

#[cfg(target_arch = "x86_64")]
impl Scratch {
    /// A zeroed scratch, on the heap (8 KiB).
    pub(super) fn new() -> Box<Scratch> {
        Box::new(Scratch {
            cols: [[0; 64]; 64],
            rows: [[0; 64]; 64],
        })
    }

    /// Transposes `cols` into `rows`, in blocks of 16 x 16 bytes.
    #[inline(always)]
    fn turn(&mut self) {
        let (cp, rp) = (
            self.cols.as_ptr().cast::<u8>(),
            self.rows.as_mut_ptr().cast::<u8>(),
        );
        for i in (0..64).step_by(16) {
            for j in (0..64).step_by(16) {
                // SAFETY: 16 rows of 16 bytes inside each 64 x 64 array.
                unsafe { block::<1>(cp.add(j * 64 + i), 64, rp.add(i * 64 + j), 64) };
            }
        }
    }

    /// Transposes one full tile of 64 x 64 bytes: column `j` (64 bytes) at `s + j *
    /// sstep`, result row `i` at `d + i * dstep`.
    ///
    /// # Safety
    /// Every column's and row's 64 bytes lie inside their allocations, which do not
    /// overlap.
    pub(super) unsafe fn bytes(&mut self, s: *const u8, sstep: isize, d: *mut u8, dstep: isize) {
        for (j, col) in self.cols.iter_mut().enumerate() {
            // SAFETY: the caller's.
            unsafe {
                std::ptr::copy_nonoverlapping(s.offset(j as isize * sstep), col.as_mut_ptr(), 64)
            };
        }
        self.turn();
        for (i, row) in self.rows.iter().enumerate() {
            // SAFETY: the caller's.
            unsafe {
                std::ptr::copy_nonoverlapping(row.as_ptr(), d.offset(i as isize * dstep), 64)
            };
        }
    }

    /// Transposes one full tile of 64 x 64 4-bit elements, positions in nibbles: column
    /// `j` the 64 nibbles from `first + j * sstep` of `s`, result row `i` the 64 from
    /// `row + i * dstep` of `d` (a start inside a byte keeps that byte's other
    /// nibble). Through bytes: the columns unpacked, transposed, the rows packed.
    ///
    /// # Safety
    /// Every column's and row's nibbles lie inside their allocations, which do not
    /// overlap, and nothing else writes `d`'s bytes meanwhile.
    pub(super) unsafe fn nibbles(
        &mut self,
        s: *const u8,
        first: isize,
        sstep: isize,
        d: *mut u8,
        row: isize,
        dstep: isize,
    ) {
        for (j, col) in self.cols.iter_mut().enumerate() {
            let p = first + j as isize * sstep;
            // The bytes holding nibbles p..p + 64: 32, or 33 from inside a byte.
            let odd = (p & 1) as usize;
            // SAFETY: the caller's.
            let packed = unsafe { std::slice::from_raw_parts(s.offset(p >> 1), 32 + odd) };
            let mut wide = [0u8; 66];
            for (two, &b) in wide.chunks_exact_mut(2).zip(packed) {
                two[0] = b & 15;
                two[1] = b >> 4;
            }
            col.copy_from_slice(&wide[odd..odd + 64]);
        }
        self.turn();
        for (i, r) in self.rows.iter().enumerate() {
            let q = row + i as isize * dstep;
            let odd = (q & 1) as usize;
            // SAFETY: the caller's.
            unsafe {
                if odd == 1 {
                    set_nibble(d, q, r[0]);
                    set_nibble(d, q + 63, r[63]);
                }
                let n = 32 - odd;
                let out = std::slice::from_raw_parts_mut(d.offset((q + 1) >> 1), n);
                pack_nibbles(out, &r[odd..]);
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
