//! A host body compiled for the CPU's widest instruction set: on x86_64 the user's
//! closure is instantiated inside functions that enable AVX2 (with FMA and F16C) and
//! AVX-512, where it inlines and its loops vectorize as wide as the CPU allows, and
//! the tier the CPU has is picked once, when the body is given (the typed loops'
//! dispatch, `dtype::lanes::tier`). The closure is the same Rust in every tier, and
//! Rust contracts no float operations, so each tier gives the same bits.

use std::sync::Arc;

use super::{Compute, HostBody};

/// `f` as a host body, run in the widest tier this CPU has.
pub(super) fn tiered<C, F>(f: F) -> Arc<HostBody<C>>
where
    C: Compute,
    F: Fn(&[&[C]], &mut [&mut [C]]) + Send + Sync + 'static,
{
    #[cfg(target_arch = "x86_64")]
    {
        use crate::dtype::lanes::tier::{tier, Tier};

        #[target_feature(enable = "avx2,fma,f16c")]
        unsafe fn avx2<C, F: Fn(&[&[C]], &mut [&mut [C]])>(f: &F, i: &[&[C]], o: &mut [&mut [C]]) {
            f(i, o);
        }
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx2,fma,f16c")]
        unsafe fn avx512<C, F: Fn(&[&[C]], &mut [&mut [C]])>(
            f: &F,
            i: &[&[C]],
            o: &mut [&mut [C]],
        ) {
            f(i, o);
        }
        match tier() {
            // SAFETY: `tier` picks a tier only where the CPU has its features.
            Tier::Avx512 => return Arc::new(move |i, o| unsafe { avx512(&f, i, o) }),
            // SAFETY: as above.
            Tier::Avx2 => return Arc::new(move |i, o| unsafe { avx2(&f, i, o) }),
            Tier::Base => {}
        }
    }
    Arc::new(f)
}
