//! Block-scaled checkpoints: the schemes' table, a checkpoint's scheme read from its
//! files, its tensors paired into groups and checked, and the exact dequantization of
//! a group a band of rows at a time.
//!
//! A scheme is data ([`SCHEMES`]): which tensors pair (by the ends of their names),
//! their dtypes, how the weight holds its elements, the formula `W = (q - z) * s [* g
//! or / g]`. A checkpoint's scheme comes from its own files
//! ([`Quantization::detect`]: `config.json`'s `quantization_config`,
//! `hf_quant_config.json`) or from the caller, never from a dtype alone; its groups are
//! made and checked whole ([`Grouping::new`]) before a byte is written; each output
//! element is the exact value (float64 holds every product of these widths) rounded
//! once into the target dtype by the conversion's cast.
//!
//! Sits above [`crate::formats`] (entries) and [`crate::array`] (the casts of the
//! inputs); [`crate::convert`] uses it.
//!
//! ```
//! use nxrig::quant::{Choice, Grouping, Quantization};
//! use nxrig::formats::Entry;
//! use nxrig::DType;
//!
//! let entry = |name: &str, dtype, shape: &[usize]| Entry {
//!     name: name.into(), dtype, shape: shape.to_vec(), start: 0, len: 0,
//!     fortran: false, big_endian: false, file_bits: dtype.bits(), ggml: None,
//! };
//! let config = serde_json::json!({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}});
//! let q = Quantization::detect(Some(&config), None, &Choice::default())?.expect("a scheme");
//! let w = entry("l.weight", DType::Float8E4m3fn, &[300, 200]);
//! let s = entry("l.weight_scale_inv", DType::Float32, &[3, 2]);
//! let g = Grouping::new([(0, 0, "m.safetensors", &w), (0, 1, "m.safetensors", &s)], &q)?;
//! assert_eq!((g.groups[0].name.as_str(), g.groups[0].shape.as_slice()), ("l.weight", &[300, 200][..]));
//! // A scale of the wrong shape is refused, naming it and the shape expected.
//! let s = entry("l.weight_scale_inv", DType::Float32, &[2, 2]);
//! let e = Grouping::new([(0, 0, "m.safetensors", &w), (0, 1, "m.safetensors", &s)], &q).unwrap_err();
//! assert!(e.to_string().contains("expected [3, 2]"), "{e}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod band;
#[cfg(feature = "cuda")]
mod cuda;
mod dequant;
mod detect;
mod exact;
mod ggml;
#[cfg(feature = "cuda")]
mod ggml_cuda;
mod ggml_gpu;
mod ggml_grids;
mod ggml_wgsl;
mod gpu;
mod group;
mod ints;
mod lut;
mod scheme;
mod tables;

pub use band::{Read, BAND_ELEMENTS};
pub use detect::{Choice, Quantization};
pub use ggml::{dequantize_ggml, dequantize_ggml_each, dequantizes};
pub use ggml_gpu::{dequantize_ggml_into, dequantize_ggml_on, dequantizes_on, ggml_tables};
pub use group::{Group, Grouping, Part};
pub use lut::Lut;
pub use scheme::{GlobalOp, Nibbles, Packing, Scheme, SCHEMES};
