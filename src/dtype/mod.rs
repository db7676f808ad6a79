//! The dtype table: codes, widths in bits, alignment, ranges, and conversions.
//!
//! The single source of truth for element formats: `include/nx_dtype.h` is checked
//! against it by a test, and the WGSL will be generated from it. This module uses no
//! other module of nxrig but its error type.

mod bounds;
mod convert;
mod element;
pub mod fast;
mod format;
pub(crate) mod lanes;
mod names;
pub(crate) mod operations;
pub(crate) mod overflow;
mod slice;
mod table;
mod variants;

pub use bounds::Scalar;
pub(crate) use convert::component;
pub use convert::{bits_of_f64, convert_bits, f64_of_bits};
pub use element::{Element, F8E4m3fn, F8E5m2, F8E8m0fnu, I4, U4};
pub use format::{FloatFormat, Specials};
pub(crate) use names::meant;
pub(crate) use overflow::f32_cut;
pub use overflow::{CastMode, Tally};
pub use slice::{convert_run, read_bits, write_bits};
pub use table::{dlpack, Class, DType, Row};
