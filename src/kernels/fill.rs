//! The fill kernel's front door: every element of an array set to one value, on the
//! array's device's backend (`host/fill.rs`, `wgpu.rs`, `cuda.rs`).

use crate::array::{door_with, refused, AnyArray};
use crate::dtype::bits_of_f64;
use crate::error::Error;
use crate::rig::backend::Backend;

const NAME: &str = "fill";

/// Stores `x`, converted into `out`'s dtype as [`crate::dtype::bits_of_f64`] rounds it,
/// at every index of `out` (any layout; sub-byte neighbours keep their bits).
///
/// # Errors
/// [`Error::Invalid`] naming `fill` for the door's refusals (a dead buffer, memory
/// held exclusive or read-only, an `out` that reaches an element twice); [`Error::Lost`].
pub fn fill(out: &AnyArray, x: f64) -> Result<(), Error> {
    let d = out.dtype();
    let bits = bits_of_f64(d, x);
    door_with(
        NAME,
        &[out],
        &[],
        || match out.rig().backend() {
            Backend::Host(_) => super::host::fill(out, bits, NAME),
            Backend::Wgpu(g) => super::wgpu::fill(g, out, bits, NAME),
            #[cfg(feature = "cuda")]
            Backend::Cuda(c) => super::cuda::fill(&c.0, out, bits, NAME),
        },
        |a| refused(NAME, a, &[out]),
    )
}
