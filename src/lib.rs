//! nxrig: n-dimensional arrays over device buffers.
//!
//! Every dtype of the field ([`DType`]: float16 to complex128, the float8 formats, int4
//! and uint4 packed two a byte) on every device ([`Rig`]: the host, GPUs through wgpu,
//! CUDA devices with the feature `cuda`), views that move no element ([`Move`]), copies
//! that keep every bit, conversions rounded once to nearest even, and claims that let
//! a function donate an input's memory with no race.
//!
//! ```
//! use nxrig::Array;
//! use nxrig::dtype::F8E4m3fn;
//!
//! let a = Array::<f32>::of_array(&[2, 2], &[1.0, 4.25, -2.5, 1e6])?;
//! let t = a.permute(&[1, 0])?; // a view: no element moves
//! let q = t.cast::<F8E4m3fn>()?; // one rounding, ties to even; 1e6 overflows to NaN
//! assert_eq!(q.to_vec()?, [F8E4m3fn(0x38), F8E4m3fn(0xc2), F8E4m3fn(0x48), F8E4m3fn(0x7f)]);
//! # Ok::<(), nxrig::Error>(())
//! ```
//!
//! # By task
//!
//! | to | use |
//! | --- | --- |
//! | convert a checkpoint (`.safetensors`, sharded, `.npy`) into another dtype, piece by piece | [`convert::Checkpoint::open`], [`convert::Plan`], [`convert::run`] into a [`convert::Sink`] (natively `convert::FileSink`); or the CLI, `nxrig convert` |
//! | load one tensor of a checkpoint | [`convert::load`], [`convert::load_range`] |
//! | read or write a whole file | natively `formats::read`, `formats::write`; everywhere [`formats::encode`] |
//! | make an array, view it, cast it | [`Array::of_array`], [`AnyArray::of_bits`], [`Array::permute`], [`AnyArray::cast`] |
//! | move an array between devices, bit for bit | [`AnyArray::to_device`], [`AnyArray::to_device_async`] |
//! | add, subtract, compare, select | [`kernels::add`], [`kernels::sub`], [`kernels::lt`], [`kernels::select`], [`kernels::operation`] by [`kernels::Operation`] |
//! | a kernel of your own on every device | [`kernels::Elementwise`] (a body per device), [`kernels::RawKernel`] (a whole WGSL module) |
//! | donate an input's memory to the output | [`kernels::add_donated`], [`kernels::Elementwise`]'s donated inputs, [`rig::Claim`] |
//! | hand an array to NumPy, PyTorch or JAX | [`array::dlpack`] |
//!
//! # The map
//!
//! The modules are layers, each using only those before it:
//!
//! | module | holds |
//! | --- | --- |
//! | [`Error`] | the one error type: each names the function called and why |
//! | [`dtype`] | the dtype table ([`DType`]: bits, alignment, DLPack code, range), element types ([`dtype::F8E4m3fn`], ...), [`dtype::convert_bits`] (every dtype into every dtype, the reference) |
//! | [`layout`] | [`Layout`] (shape, strides, offset, in elements), [`Move`] (reshape, permute, expand, slices, flip, unsqueeze, squeeze) |
//! | `wgsl` | the WGSL of the GPU kernels, generated from the dtype table (internal) |
//! | [`rig`] | the runtime: [`Rig`] (a device), [`rig::Buffer`] (bytes of one allocation), [`rig::Claim`] (who reads and writes it), [`Rig::submit`]; [`rig::wgpu`] (GPU devices), `rig::cuda` (feature `cuda`) |
//! | [`mod@array`] | [`AnyArray`] and [`Array`] (dtype, layout, buffer): views, bitcast, placement between devices bit for bit, `ndarray` interop, DLPack ([`array::dlpack`]), the door (the claims of a kernel call) |
//! | [`kernels`] | on every device: the cast ([`AnyArray::cast`]), [`kernels::add`] (and `add_into`, `add_donated`), [`kernels::fill`], the operations' table's functions ([`kernels::Operation`]: `sub`, `mul`, `div`, `maximum`, `minimum`, `neg`, `abs`, the comparisons, each with its `_into`), [`kernels::select`], kernels of your own ([`kernels::Elementwise`], [`kernels::RawKernel`]) |
//! | [`formats`] | `.safetensors` and `.npy`, header first; sharded indexes |
//! | [`convert`] | the checkpoint converter: [`convert::Checkpoint`], [`convert::Plan`], [`convert::run`], [`convert::load`] |
//! | `capi` | the C API (feature `capi`, `include/nx_capi.h`): arrays as handles, their bytes, DLPack both ways |
//! | `web` | the JavaScript API (wasm32 only; the npm package `nxrig`) |
//!
//! # Devices
//!
//! [`Rig::host()`] is always there. Natively, `Rig::gpus` opens a device per wgpu
//! adapter and [`Rig::by_name`] takes `"host"`, `"gpu"`, `"gpu1"`, `"cuda0"`; in the
//! browser, [`Rig::gpu_async`]. Blocking reads ([`AnyArray::to_device`]) are native
//! only; [`AnyArray::to_device_async`] works everywhere.
//!
//! # Features
//!
//! `cuda`: CUDA devices through cudarc, the driver and NVRTC loaded at run time (the
//! crate builds and runs without them). `capi`: the C functions of `include/nx_capi.h`
//! (the crate `nxrig-capi` links them into a shared library).
//!
//! Re-exported for the types of the API: [`half`], [`ndarray`], [`num_complex`],
//! [`wgpu`].

#![warn(missing_docs)]

pub mod array;
#[cfg(feature = "capi")]
pub mod capi;
pub mod convert;
pub mod dtype;
mod error;
pub mod formats;
pub mod kernels;
pub mod layout;
pub mod quant;
pub mod rig;
mod sync;
#[cfg(target_arch = "wasm32")]
pub mod web;
pub(crate) mod wgsl;

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

/// The examples of `docs/rust.md`, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/rust.md")]
pub struct RustGuideDoctests;
