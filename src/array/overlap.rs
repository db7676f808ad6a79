//! Whether two arrays share bytes, or are identical: what the door and the kernels ask
//! of their operands.

use super::any::AnyArray;

/// The least and one-past-greatest byte (in the memory) that `a`'s elements touch.
fn byte_span(a: &AnyArray) -> Option<(usize, usize)> {
    let (lo, hi) = a.layout.bounds()?;
    let d = a.dtype;
    let (b0, b1) = if d.is_sub_byte() {
        (lo / 2, hi / 2 + 1)
    } else {
        (lo * d.storage_bytes(), (hi + 1) * d.storage_bytes())
    };
    Some((a.buffer.start() + b0, a.buffer.start() + b1))
}

/// Below this many elements an overlap of byte spans is settled by walking both
/// arrays; above it, overlapping spans count as sharing bytes (refusing, never racing).
const WALK: usize = 1 << 12;

/// True when the two arrays share a byte of one memory.
pub(crate) fn shares_bytes(a: &AnyArray, b: &AnyArray) -> bool {
    if !a.buffer.same_memory(&b.buffer) {
        return false;
    }
    let (Some((a0, a1)), Some((b0, b1))) = (byte_span(a), byte_span(b)) else {
        return false;
    };
    if a1 <= b0 || b1 <= a0 {
        return false;
    }
    if a.layout.numel() > WALK || b.layout.numel() > WALK {
        return true;
    }
    let bytes = |x: &AnyArray| {
        let mut v = Vec::with_capacity(x.layout.numel());
        let (d, s) = (x.dtype, x.buffer.start());
        x.layout.for_each_position(|p| {
            if d.is_sub_byte() {
                v.push(s + p / 2);
            } else {
                let w = d.storage_bytes();
                v.extend((0..w).map(|k| s + p * w + k));
            }
        });
        v.sort_unstable();
        v
    };
    let (x, y) = (bytes(a), bytes(b));
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    false
}

/// True when the two arrays have one element width and place every index at the same
/// bits of one memory.
pub(crate) fn identical(a: &AnyArray, b: &AnyArray) -> bool {
    if a.dtype.bits() != b.dtype.bits()
        || a.shape() != b.shape()
        || !a.buffer.same_memory(&b.buffer)
    {
        return false;
    }
    if a.layout.is_empty() {
        return true;
    }
    let bit = |x: &AnyArray, p: usize| {
        (x.buffer.start() as u128) * 8 + p as u128 * x.dtype.bits() as u128
    };
    if bit(a, a.layout.offset()) != bit(b, b.layout.offset()) {
        return false;
    }
    a.shape()
        .iter()
        .zip(a.layout.strides().iter().zip(b.layout.strides()))
        .all(|(&n, (&s, &t))| n <= 1 || s == t)
}
