//! The instruction sets the typed loops are compiled for, chosen when a kernel runs:
//! on x86_64 each loop is compiled three times from one body (the baseline SSE2,
//! AVX2 with FMA and F16C, and AVX-512), and the widest the CPU has runs, as NumPy's
//! own dispatch does. The body is the same Rust, so the bits are the same; only the
//! vectors are wider. Elsewhere (wasm32 with simd128, aarch64 with NEON) the baseline
//! is already vectorized.

/// An instruction set tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tier {
    /// The target's baseline.
    Base,
    /// AVX2, FMA and F16C.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F, BW, VL, DQ and CD, with the above.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// The widest tier this CPU runs (looked up once).
pub(crate) fn tier() -> Tier {
    #[cfg(target_arch = "x86_64")]
    {
        static TIER: std::sync::OnceLock<Tier> = std::sync::OnceLock::new();
        *TIER.get_or_init(|| {
            use std::arch::is_x86_feature_detected as has;
            let avx2 = has!("avx2") && has!("fma") && has!("f16c");
            let avx512 = has!("avx512f")
                && has!("avx512bw")
                && has!("avx512vl")
                && has!("avx512dq")
                && has!("avx512cd");
            match (avx2, avx512) {
                (true, true) => Tier::Avx512,
                (true, false) => Tier::Avx2,
                _ => Tier::Base,
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    Tier::Base
}

/// `$pick::<G..>()`: the function pointer of type `$run` to `$body::<G..>` compiled
/// for the CPU's tier. `$body` is `#[inline(always)]`, so each version is its own
/// code, vectorized for its instruction set.
macro_rules! versions {
    ($pick:ident -> $run:ty = $body:ident<$($g:ident: $b:path),*>($($a:ident: $t:ty),*)) => {
        fn $pick<$($g: $b),*>() -> $run {
            fn base<$($g: $b),*>($($a: $t),*) {
                $body::<$($g),*>($($a),*)
            }
            #[cfg(target_arch = "x86_64")]
            fn avx2<$($g: $b),*>($($a: $t),*) {
                #[target_feature(enable = "avx2,fma,f16c")]
                unsafe fn inner<$($g: $b),*>($($a: $t),*) {
                    $body::<$($g),*>($($a),*)
                }
                // SAFETY: picked only where the CPU has these features (`tier`).
                unsafe { inner::<$($g),*>($($a),*) }
            }
            #[cfg(target_arch = "x86_64")]
            fn avx512<$($g: $b),*>($($a: $t),*) {
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx2,fma,f16c")]
                unsafe fn inner<$($g: $b),*>($($a: $t),*) {
                    $body::<$($g),*>($($a),*)
                }
                // SAFETY: picked only where the CPU has these features (`tier`).
                unsafe { inner::<$($g),*>($($a),*) }
            }
            match $crate::dtype::lanes::tier::tier() {
                $crate::dtype::lanes::tier::Tier::Base => base::<$($g),*>,
                #[cfg(target_arch = "x86_64")]
                $crate::dtype::lanes::tier::Tier::Avx2 => avx2::<$($g),*>,
                #[cfg(target_arch = "x86_64")]
                $crate::dtype::lanes::tier::Tier::Avx512 => avx512::<$($g),*>,
            }
        }
    };
}

pub(crate) use versions;
