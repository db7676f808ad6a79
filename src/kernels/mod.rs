//! Kernels over arrays: cast, add and fill, each a front door (`cast.rs`, `add.rs`,
//! `fill.rs`: the door's claims, then one match over the device's backend) and one
//! implementation per backend: `host/` (typed Rust loops; natively also C through
//! `include/nx_array.h`) and `wgpu.rs` (generated WGSL); the other elementwise
//! operations (`ops/`: sub, mul, div, maximum, minimum, neg, abs, the comparisons,
//! select); kernels of the user's own (`elementwise/`).
//!
//! Above [`crate::array`] in the layers: kernels use arrays, arrays know no kernel.

mod add;
mod broadcast;
#[cfg(nx_c_kernels)]
mod c_add;
mod cast;
#[cfg(feature = "cuda")]
mod cuda;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod cuda_section;
mod elementwise;
mod fill;
mod host;
mod ops;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod reference;
mod wgpu;

pub use add::{add, add_donated, add_into};
#[cfg(nx_c_kernels)]
pub use c_add::c_add_into;
pub use elementwise::{Compute, DTypeOrVar, Elementwise, HostBody, RawKernel};
pub use fill::fill;
/// Chunks of two byte slices in step on the host's threads (the conversion's fused
/// casts, GGUF's dequantization).
pub(crate) use host::split::zip_chunks;
pub use ops::*;

use crate::array::AnyArray;
use crate::error::Error;

/// `Err` naming `op` unless every array of `arrays` is on one device: the one
/// refusal of operands on several devices, for every kernel (nxrig's and users').
pub(crate) fn one_device(op: &'static str, arrays: &[&AnyArray]) -> Result<(), Error> {
    match several_devices(arrays) {
        None => Ok(()),
        Some(reason) => Err(Error::Invalid {
            op,
            reason,
            operands: String::new(),
        }),
    }
}

/// Why `arrays` cannot be one kernel's operands, where they are on several devices:
/// the devices, and the remedy.
pub(crate) fn several_devices(arrays: &[&AnyArray]) -> Option<String> {
    let first = arrays.first()?;
    if arrays.iter().all(|a| a.rig() == first.rig()) {
        return None;
    }
    let mut names: Vec<&str> = Vec::new();
    for a in arrays {
        if !names.contains(&a.rig().name()) {
            names.push(a.rig().name());
        }
    }
    let last = names.pop().unwrap_or_default();
    Some(format!(
        "the operands are on {} and {last}: move one onto the other's device first (to_device)",
        names.join(", ")
    ))
}
