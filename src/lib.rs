//! nxrig: n-dimensional arrays over device buffers.
//!
//! Every dtype of the field on every device, views that move no element, copies that
//! keep every bit. See `DESIGN.md` for the layers; each module uses only those above it:
//! [`dtype`], [`layout`], [`rig`], [`array`].

#![warn(missing_docs)]

pub mod array;
pub mod dtype;
mod error;
pub mod formats;
pub mod kernels;
pub mod layout;
pub mod rig;
mod sync;
pub mod wgsl;

pub use dtype::DType;
pub use error::{Error, Result};

pub use array::{AnyArray, Array};
pub use layout::{Layout, Move, Slice};
pub use rig::Rig;

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
