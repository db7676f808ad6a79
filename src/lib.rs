//! nxrig: n-dimensional arrays over device buffers.
//!
//! Every dtype of the field on every device, views that move no element, copies that
//! keep every bit, and claims that let a function donate an input's memory with no
//! race. The layers, each using only those before it (`DESIGN.md`): [`dtype`],
//! [`layout`], [`wgsl`], [`rig`], [`mod@array`], [`kernels`], [`formats`], [`convert`].
//!
//! ```
//! use nxrig::{Array, Move};
//! use nxrig::dtype::F8E4m3;
//!
//! let a = Array::<f32>::of_array(&[2, 2], &[1.0, 4.25, -2.5, 1e6])?;
//! let t = a.move_(&Move::Permute(vec![1, 0]))?.expect("a permutation is a view");
//! let q = t.cast::<F8E4m3>()?; // one rounding, ties to even; 1e6 overflows to NaN
//! assert_eq!(q.to_vec()?, [F8E4m3(0x38), F8E4m3(0xc2), F8E4m3(0x48), F8E4m3(0x7f)]);
//! # Ok::<(), nxrig::Error>(())
//! ```

#![warn(missing_docs)]

pub mod array;
pub mod convert;
pub mod dtype;
mod error;
pub mod formats;
pub mod kernels;
pub mod layout;
pub mod rig;
mod sync;
#[cfg(target_arch = "wasm32")]
pub mod web;
pub mod wgsl;

pub use dtype::DType;
pub use error::{Error, Result};

pub use array::{AnyArray, Array};
pub use layout::{Layout, Move, Slice};
pub use rig::Rig;

// The crates whose types nxrig's API takes and gives, re-exported at the versions nxrig
// uses, so that a user names them without depending on them at exactly these versions.

/// `half`, for the `f16` and `bf16` elements.
#[doc(no_inline)]
pub use half;
/// `ndarray`, for [`Array::from_ndarray`], [`Array::to_ndarray`] and the views of
/// [`Array::read_nd`] and [`Array::write_nd`].
#[doc(no_inline)]
pub use ndarray;
/// `num_complex`, for the complex64 and complex128 elements.
#[doc(no_inline)]
pub use num_complex;
/// `wgpu`, for a GPU device's own handles ([`Rig::wgpu`]) and kernels of your own.
#[doc(no_inline)]
pub use wgpu;

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
