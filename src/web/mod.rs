//! The JavaScript API, through wasm-bindgen (wasm32 only): devices (the host, in wasm
//! linear memory, and WebGPU), arrays made from and read back into TypedArrays,
//! movements, bitcast, cast, placement, and `.safetensors` files. Every failure is a
//! JS `Error` carrying the message of the Rust [`crate::Error`]. Nothing blocks: reads
//! of GPU memory are `async`.
//!
//! Above every other module; the npm package (`package.json`, `pkg/`) and the demo
//! page (`www/`) are built on it. Seeds: `Nx_array` (arrays), `Rig` (devices).

mod alive;
mod args;
mod array;
mod checkpoint;
mod convert_into;
mod device;
mod elementwise;
mod file;
mod interop;
mod js_io;
mod ops;
mod panic;
mod raw;
mod read;
mod typed;

pub use array::NxArray;
pub use checkpoint::Checkpoint;
pub use device::Device;
pub use elementwise::{Kernel, Operands};
pub use file::TensorFile;

use wasm_bindgen::prelude::*;

/// The JS `Error` of a Rust error, with its message.
pub(crate) fn js_error(e: crate::Error) -> JsError {
    // The JavaScript entry puts the name of the function called in place of `nxrig`
    // (js/index.js), for the Rust function named in the error is not the caller's.
    // A remedy that names a Rust method names JavaScript's.
    let detail = e.detail().replace("(to_device)", "(toDevice)");
    JsError::new(&format!("nxrig: {detail}"))
}

/// A JS `Error` with `msg`.
pub(crate) fn js_invalid(msg: &str) -> JsError {
    JsError::new(msg)
}

/// The mark on a message the JavaScript entry throws as a `TypeError` (js/checkpoint.js
/// `typeError` takes it off): `JsError` makes only `Error`s.
const TYPE_MARK: &str = "nxrig:TypeError: ";

/// A JS `TypeError` with `msg` (`nxrig: ...`): an argument or option of the wrong type
/// or value, as the web's APIs throw (a dtype's name that names none, a shape of -1, a
/// `Float64Array` given as float32, an unknown option). Made as an `Error` marked
/// `nxrig:TypeError: `, which the JavaScript entry throws as a `TypeError` naming the
/// function called.
pub(crate) fn js_type_error(msg: &str) -> JsError {
    JsError::new(&msg.replacen("nxrig: ", TYPE_MARK, 1))
}

/// nxrig's version (the crate's, as `package.json` has it).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The names of the dtypes, in the order of their codes (`float16` is 0, `bool` 18, ...).
#[wasm_bindgen]
pub fn dtypes() -> Vec<String> {
    crate::DType::ALL
        .iter()
        .map(|d| d.name().to_owned())
        .collect()
}
