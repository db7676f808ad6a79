//! The host fill kernel: every element of an array set to one value. Seed: `Nx_array`
//! § Kernels.

use super::answered;
use crate::array::{door, AnyArray};
use crate::dtype::{bits_of_f64, write_bits};
use crate::error::Error;

const NAME: &str = "Nx.fill";

/// Stores `x`, converted into `out`'s dtype as [`crate::dtype::bits_of_f64`] rounds it,
/// at every index of `out` (any layout; sub-byte neighbours keep their bits).
///
/// # Errors
/// [`Error::Invalid`] naming `Nx.fill` for the door's refusals (a dead buffer, memory
/// held exclusive or read-only, an `out` that reaches an element twice); [`Error::Lost`].
pub fn fill(out: &AnyArray, x: f64) -> Result<(), Error> {
    let d = out.dtype();
    let bits = bits_of_f64(d, x);
    let mut r = Ok(());
    let a = door(&[out], &[], || {
        if out.buffer().gpu_memory().is_some() {
            r = super::gpu::fill(out, bits, NAME);
            return;
        }
        r = out.buffer().write_as(NAME, |b| {
            out.layout()
                .for_each_position(|p| write_bits(d, b, p, bits))
        })
    })?;
    answered(NAME, a, &[out])?;
    r
}
