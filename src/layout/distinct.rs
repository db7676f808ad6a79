//! Whether a layout reaches an element twice.

use super::layout::Layout;

/// Above this many positions the exact walk is not attempted.
const WALK_LIMIT: usize = 1 << 26;

impl Layout {
    /// True iff no two indices reach one element position.
    ///
    /// Exact: a layout whose axes nest (sorted by stride magnitude, each stride exceeds
    /// the reach of the axes below it) is distinct; a layout with more elements than
    /// positions between its bounds is not; the rest are walked, every position marked.
    /// A layout that fits none of these (axes that interleave over more than 2^26
    /// positions) answers `false`: writes are then refused, never raced.
    pub fn is_distinct(&self) -> bool {
        let n = self.numel();
        if n <= 1 {
            return true;
        }
        let mut axes = [(0usize, 0usize); super::MAX_RANK];
        let mut r = 0;
        for (&e, &s) in self.shape().iter().zip(self.strides()) {
            if e > 1 {
                if s == 0 {
                    return false;
                }
                axes[r] = (s.unsigned_abs(), e);
                r += 1;
            }
        }
        let axes = &mut axes[..r];
        axes.sort_unstable();
        let mut reach = 0usize;
        if axes.iter().all(|&(s, e)| {
            let nested = s > reach;
            reach = reach.saturating_add(s.saturating_mul(e - 1));
            nested
        }) {
            return true;
        }
        let (lo, hi) = self.bounds().expect("a layout with elements");
        let span = hi - lo + 1;
        if n > span {
            return false;
        }
        if span <= WALK_LIMIT {
            let mut seen = vec![0u64; span.div_ceil(64)];
            let mut distinct = true;
            self.for_each_position(|p| {
                let q = p - lo;
                let (w, b) = (q / 64, 1u64 << (q % 64));
                distinct &= seen[w] & b == 0;
                seen[w] |= b;
            });
            return distinct;
        }
        if n <= WALK_LIMIT {
            let mut ps = Vec::with_capacity(n);
            self.for_each_position(|p| ps.push(p));
            ps.sort_unstable();
            return ps.windows(2).all(|w| w[0] != w[1]);
        }
        false
    }
}
