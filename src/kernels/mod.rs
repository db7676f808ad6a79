//! Kernels over arrays: cast, add and fill, each a front door (`cast.rs`, `add.rs`,
//! `fill.rs`: the door's claims, then one match over the device's backend) and one
//! implementation per backend: `host/` (typed Rust loops; natively also C through
//! `include/nx_array.h`) and `wgpu.rs` (generated WGSL).
//!
//! Above [`crate::array`] in the layers: kernels use arrays, arrays know no kernel.

mod add;
mod broadcast;
#[cfg(nx_c_kernels)]
mod c_add;
mod cast;
#[cfg(feature = "cuda")]
mod cuda;
mod elementwise;
mod fill;
mod host;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod reference;
mod wgpu;

pub use add::{add, add_donated, add_into};
#[cfg(nx_c_kernels)]
pub use c_add::c_add_into;
pub use elementwise::{Compute, Elementwise, HostBody, Ty};
pub use fill::fill;

use crate::array::{refused, Answer, AnyArray};
use crate::error::Error;

/// `Ok` for `Done`; the refusal as an error naming `name`, otherwise.
pub(crate) fn answered(name: &'static str, a: Answer, operands: &[&AnyArray]) -> Result<(), Error> {
    match a {
        Answer::Done => Ok(()),
        a => Err(refused(name, a, operands)),
    }
}

/// `Err` naming `op` unless `x`, `y` and `out` are on one device (what a device's own
/// kernel needs; the host's add reads any host memory).
pub(crate) fn on_one_device(
    op: &'static str,
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
) -> Result<(), Error> {
    if x.rig() == out.rig() && y.rig() == out.rig() {
        return Ok(());
    }
    Err(Error::Invalid {
        op,
        reason: format!(
            "the operands are on {}, {} and {}: move them to one device first",
            out.rig().name(),
            x.rig().name(),
            y.rig().name()
        ),
        operands: String::new(),
    })
}
