//! The plain float sums of `sum.rs` in wasm32's simd128, four vectors a step. LLVM
//! vectorizes the generic loop for wasm one vector at a time (its wasm cost model does
//! not interleave); in Node, 16 M float32 took 16.4 ms that way (in blocks of 256) and
//! 14.3 to 15.3 ms this way, level with TensorFlow.js's wasm add beside it. Each lane
//! is the hardware's `a + b`, as the generic loop's. The NaN check is one compare of
//! the four results' sum a step: true wherever a sum is a NaN, and also for some
//! infinities and overflows, after which `sum.rs` looks for the NaNs block by block
//! and sums again only the blocks that hold one.

use core::arch::wasm32::*;

/// Elements of dtype `T` in one vector.
const fn lanes<T>() -> usize {
    16 / std::mem::size_of::<T>()
}

macro_rules! plain {
    ($name:ident, $t:ty, $add:ident, $ne:ident) => {
        /// `o[i] = xs[i] + ys[i]` (one length), as the hardware adds; whether any sum
        /// may be a NaN (true also for some stretches of infinities).
        #[inline(always)]
        pub(super) fn $name(o: &mut [$t], xs: &[$t], ys: &[$t]) -> bool {
            const L: usize = lanes::<$t>();
            let n = o.len().min(xs.len()).min(ys.len());
            let steps = n / (4 * L);
            let (mut op, mut xp, mut yp) = (o.as_mut_ptr(), xs.as_ptr(), ys.as_ptr());
            let mut nan = u8x16_splat(0);
            for _ in 0..steps {
                // SAFETY: each step reads and writes the next 4 L elements of its
                // slice, inside it (`steps` of them fit); loads and stores of v128 take
                // any alignment; `o` is apart from `xs` and `ys` (a `&mut`).
                unsafe {
                    let v = |p: *const $t, k: usize| v128_load(p.add(k * L).cast());
                    let r0 = $add(v(xp, 0), v(yp, 0));
                    let r1 = $add(v(xp, 1), v(yp, 1));
                    let r2 = $add(v(xp, 2), v(yp, 2));
                    let r3 = $add(v(xp, 3), v(yp, 3));
                    v128_store(op.cast(), r0);
                    v128_store(op.add(L).cast(), r1);
                    v128_store(op.add(2 * L).cast(), r2);
                    v128_store(op.add(3 * L).cast(), r3);
                    // A NaN among the four makes their sum a NaN (so can infinities
                    // and overflows: then only the search for NaNs is wasted).
                    let t = $add($add(r0, r1), $add(r2, r3));
                    nan = v128_or(nan, $ne(t, t));
                    op = op.add(4 * L);
                    xp = xp.add(4 * L);
                    yp = yp.add(4 * L);
                }
            }
            let mut any = v128_any_true(nan);
            let done = steps * 4 * L;
            for ((o, &a), &b) in o[done..n].iter_mut().zip(&xs[done..n]).zip(&ys[done..n]) {
                *o = a + b;
                any |= o.is_nan();
            }
            any
        }
    };
}

plain!(f32s, f32, f32x4_add, f32x4_ne);
plain!(f64s, f64, f64x2_add, f64x2_ne);
