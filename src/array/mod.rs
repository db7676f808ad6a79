//! Arrays: a dtype, a layout and a buffer; views, elements, copies and casts.
//!
//! Seed: `Nx_array` § Arrays, Views, Elements, Placement.

mod any;
mod cast;
mod typed;

pub use any::AnyArray;
pub use typed::Array;
