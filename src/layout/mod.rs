//! Layouts (shape, strides, offset, all in elements) and movements.
//!
//! Uses only [`crate::dtype`]'s neighbour, the error type: a layout knows nothing of
//! buffers.

mod distinct;
#[allow(clippy::module_inception)]
mod layout;
mod movement;
mod runs;

pub use layout::{numel, Layout, MAX_RANK};
pub use movement::{Move, Slice};
pub(crate) use runs::Runs;
