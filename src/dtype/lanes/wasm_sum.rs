//! The plain sums of `sum.rs` in wasm32's simd128, four vectors a step: float32 and
//! float64 (and the parts of complex64 and complex128), and the integers of 8 to 64
//! bits (wrapping). LLVM vectorizes the generic loop for wasm one vector at a time
//! (its wasm cost model does not interleave), which was slower for float32 and int16
//! (BENCHMARKS.md, "Choices the measurements made").
//! Each lane is the hardware's `a + b`, as the generic loop's. The floats' NaN check
//! is one compare of the four results' sum a step: true wherever a sum is a NaN, and
//! also for some infinities and overflows, after which `sum.rs` looks for the NaNs
//! block by block and sums again only the blocks that hold one.

use core::arch::wasm32::*;

/// Elements of dtype `T` in one vector.
const fn lanes<T>() -> usize {
    16 / std::mem::size_of::<T>()
}

macro_rules! plain {
    ($name:ident, $t:ty, $add:ident, $sum:expr, |$r:ident| $check:expr, $nan:expr) => {
        /// `o[i] = xs[i] + ys[i]` (one length), as the hardware adds; whether any sum
        /// may be a NaN (true also for some stretches of infinities; never for the
        /// integers).
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
                    let $r = [
                        $add(v(xp, 0), v(yp, 0)),
                        $add(v(xp, 1), v(yp, 1)),
                        $add(v(xp, 2), v(yp, 2)),
                        $add(v(xp, 3), v(yp, 3)),
                    ];
                    for (k, r) in $r.iter().enumerate() {
                        v128_store(op.add(k * L).cast(), *r);
                    }
                    nan = v128_or(nan, $check);
                    op = op.add(4 * L);
                    xp = xp.add(4 * L);
                    yp = yp.add(4 * L);
                }
            }
            let mut any = v128_any_true(nan);
            let done = steps * 4 * L;
            let (sum, is_nan): (fn($t, $t) -> $t, fn($t) -> bool) = ($sum, $nan);
            for ((o, &a), &b) in o[done..n].iter_mut().zip(&xs[done..n]).zip(&ys[done..n]) {
                *o = sum(a, b);
                any |= is_nan(*o);
            }
            any
        }
    };
}

/// Float sums, checked for NaNs: a NaN among the four results makes their sum a NaN
/// (so can infinities and overflows: then only the search for NaNs is wasted).
macro_rules! floats {
    ($($name:ident: $t:ty, $add:ident, $ne:ident;)*) => {
        $(plain!($name, $t, $add, |a, b| a + b, |r| {
            let t = $add($add(r[0], r[1]), $add(r[2], r[3]));
            $ne(t, t)
        }, <$t>::is_nan);)*
    };
}

floats! {
    f32s: f32, f32x4_add, f32x4_ne;
    f64s: f64, f64x2_add, f64x2_ne;
}

/// No integer sum is a NaN.
const NONE: v128 = u64x2(0, 0);

/// Integer sums wrap, as the lanes of `iNxM.add`.
macro_rules! wrapping {
    ($($name:ident: $t:ty, $add:ident;)*) => {
        $(plain!($name, $t, $add, <$t>::wrapping_add, |r| NONE, |_| false);)*
    };
}

wrapping! {
    i8s: i8, i8x16_add;
    u8s: u8, u8x16_add;
    i16s: i16, i16x8_add;
    u16s: u16, u16x8_add;
    i32s: i32, i32x4_add;
    u32s: u32, u32x4_add;
    i64s: i64, i64x2_add;
    u64s: u64, u64x2_add;
}
