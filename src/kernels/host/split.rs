//! Host kernels on several threads: a kernel whose output is C-contiguous is cut into
//! ranges of its elements, each writing its own bytes of the output, run on rayon's
//! pool (natively; in wasm, and below [`PARALLEL_MIN`] elements, on the calling
//! thread).

use crate::dtype::DType;

/// Elements below which a kernel runs on the calling thread.
#[cfg(not(target_arch = "wasm32"))]
const PARALLEL_MIN: usize = 1 << 18;

/// Ranges a thread of the pool gets, at most.
#[cfg(not(target_arch = "wasm32"))]
const CHUNKS_PER_THREAD: usize = 8;

/// Calls `f(from, to, bytes, base)` for ranges `from..to` of the `n` elements of a
/// C-contiguous output of dtype `dt` at element position `d0` of `d`: `bytes` holds
/// the range's elements (and only them, but for a sub-byte neighbour on the calling
/// thread), the range's first at element position `base`'s place, so that a kernel
/// writes position `p` of the output at `p - base` of `bytes`.
pub(crate) fn split(
    n: usize,
    d: &mut [u8],
    d0: usize,
    dt: DType,
    f: impl Fn(usize, usize, &mut [u8], usize) + Sync,
) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        // Sub-byte outputs split only at whole bytes. The pool is asked (and so
        // started) only for work large enough to split.
        let even = !dt.is_sub_byte() || d0.is_multiple_of(2);
        let threads = if n >= 2 * PARALLEL_MIN && even {
            rayon::current_num_threads()
        } else {
            1
        };
        if threads > 1 {
            // Several ranges a thread, so that a thread slowed by the machine's other
            // load leaves its share to the others (rayon steals them).
            let per = n
                .div_ceil(threads * CHUNKS_PER_THREAD)
                .max(PARALLEL_MIN / 4)
                .next_multiple_of(2);
            let (b0, bytes_per) = if dt.is_sub_byte() {
                (d0 / 2, per / 2)
            } else {
                (d0 * dt.storage_bytes(), per * dt.storage_bytes())
            };
            let end = b0 + dt.bytes(n).expect("an array's bytes fit");
            d[b0..end]
                .par_chunks_mut(bytes_per)
                .enumerate()
                .for_each(|(i, chunk)| {
                    let from = i * per;
                    f(from, (from + per).min(n), chunk, d0 + from);
                });
            return;
        }
    }
    let _ = (dt, d0);
    f(0, n, d, 0);
}

/// `f` of each pair of chunks in step, `a`'s of `a_chunk` bytes and `b`'s of
/// `b_chunk` (the nth with the nth; the last of each what is left), natively on
/// rayon's pool, in wasm on the calling thread: the results in the chunks' order.
pub(crate) fn zip_chunks<R: Send>(
    a: &[u8],
    a_chunk: usize,
    b: &mut [u8],
    b_chunk: usize,
    f: impl Fn((&[u8], &mut [u8])) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        a.par_chunks(a_chunk)
            .zip(b.par_chunks_mut(b_chunk))
            .map(f)
            .collect()
    }
    #[cfg(target_arch = "wasm32")]
    a.chunks(a_chunk)
        .zip(b.chunks_mut(b_chunk))
        .map(f)
        .collect()
}
