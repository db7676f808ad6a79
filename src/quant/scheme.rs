//! The schemes' table: one row a published layout of block-scaled weights, the one
//! place each fact of a scheme is written (which tensors pair, by the ends of their
//! names; their dtypes; how the weight holds its elements; the formula's parts).

use crate::dtype::DType;

/// How a scheme's weight tensor holds its elements, and so how an output element
/// `W[r, c]` (of the output's last two axes, `[R, C]`) finds its stored value, its
/// scale and its zero point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// One float8 a byte in the weight's own dtype, `[.., R, C]` as the output; the
    /// scale `s[.., r / b0, c / b1]` of a block `[b0, b1]` (the whole axis where the
    /// scale has one entry along it).
    Float8,
    /// Two float4_e2m1fn a byte (`U8` or `I8` bytes), `[.., R, C / 2]`, the even
    /// element in the low nibble (high with [`Nibbles::HighFirst`]); the scale
    /// `s[.., r, c / block]`.
    Fp4,
    /// gpt-oss' experts: bytes `[E, N, K / 32, 16]` (two e2m1 a byte, low nibble
    /// first) and scales `[E, N, K / 32]`, the output `[E, K, N]` (each expert's
    /// matrix transposed, as the module's `[experts, in, out]` parameter).
    Fp4Experts,
    /// compressed-tensors' `pack-quantized`: integers of `bits` in int32 words along
    /// the last axis, least significant bits first, each stored plus `2^(bits-1)`;
    /// `[R, C * bits / 32]`; the scale and zero point `s[r, g(c)]`, `g(c)` the group
    /// index (`g_idx[c]`, else `c / group`).
    IntRows,
    /// GPTQ: integers of `bits` in int32 words along the first axis, `[K * bits / 32,
    /// N]` (element k at bits `bits * (k % (32 / bits))`), zero points packed along
    /// `N`, `s[g(k), n]`; the output `[N, K]`, as a linear layer's weight.
    IntGptq,
    /// AWQ's GEMM layout: integers of 4 bits in int32 words along the last axis in the
    /// order `[0, 2, 4, 6, 1, 3, 5, 7]`, `[K, N / 8]`, zero points the same,
    /// `s[k / group, n]`; the output `[N, K]`.
    IntAwq,
}

impl Packing {
    /// The packing's number in the CUDA kernel's source (`nx_dequant.cu`'s
    /// `NX_PACK_*`), which `tests/dequant_c.rs` passes to it on the host.
    pub const fn number(self) -> u32 {
        match self {
            Packing::Float8 => 0,
            Packing::Fp4 => 1,
            Packing::Fp4Experts => 2,
            Packing::IntRows => 3,
            Packing::IntGptq => 4,
            Packing::IntAwq => 5,
        }
    }
}

/// Which nibble of a byte of two float4s holds the even element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Nibbles {
    /// The low nibble (bits 0-3): every published layout nxrig knows.
    #[default]
    LowFirst,
    /// The high nibble (the command line's `--nibbles high-first`).
    HighFirst,
}

impl std::str::FromStr for Nibbles {
    type Err = crate::error::Error;

    /// `low-first` or `high-first` (the command line's `--nibbles`, JavaScript's
    /// `nibbles`).
    ///
    /// # Errors
    /// [`crate::error::Error::Format`] naming `--nibbles` for any other word.
    fn from_str(s: &str) -> Result<Nibbles, Self::Err> {
        match s {
            "low-first" => Ok(Nibbles::LowFirst),
            "high-first" => Ok(Nibbles::HighFirst),
            other => Err(crate::error::Error::Format {
                path: "--nibbles".into(),
                tensor: None,
                reason: format!("{other:?}: expected low-first or high-first"),
            }),
        }
    }
}

/// What the per-tensor scale does: `W = ... * g` or `W = ... / g`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalOp {
    /// Multiplies (NVIDIA ModelOpt's `weight_scale_2`).
    Mul,
    /// Divides (compressed-tensors' `weight_global_scale`, its reciprocal).
    Div,
}

/// A scheme: a published layout of block-scaled weights, as a row of data.
///
/// The weight of a module `P` is the tensor named `P` + [`Scheme::weight`]; its
/// partners are the tensors `P` + each other suffix; the output is `P` +
/// [`Scheme::out`], `W = (q - z) * s [* g or / g]`, the exact value rounded once.
#[derive(Debug)]
pub struct Scheme {
    /// Its name, as `--scheme` takes it.
    pub name: &'static str,
    /// What publishes it, in words.
    pub about: &'static str,
    /// The end of the weight's name.
    pub weight: &'static str,
    /// The ends the scale's name may have (the first found is taken).
    pub scale: &'static [&'static str],
    /// The end of the zero point's name, where the scheme has one.
    pub zero: Option<&'static str>,
    /// The end of the group index's name, where the scheme may have one.
    pub g_idx: Option<&'static str>,
    /// The end of the per-tensor scale's name and what it does, where it has one.
    pub global: Option<(&'static str, GlobalOp)>,
    /// The ends of the names of tensors that mean nothing without the scheme and are
    /// dropped with the weight (activation scales, a shape).
    pub dropped: &'static [&'static str],
    /// The end of the output's name.
    pub out: &'static str,
    /// How the weight holds its elements.
    pub packing: Packing,
    /// The weight's dtypes.
    pub weight_dtypes: &'static [DType],
    /// The scale's dtypes (`U8` read as float8_e8m0fnu: an exponent).
    pub scale_dtypes: &'static [DType],
    /// The block a scale covers along the output's last axis where the layout fixes
    /// it (16 for NVFP4, 32 for MXFP4), else 0 (from the configuration or the shapes).
    pub block: usize,
}

use DType as D;

const FLOAT8: &[DType] = &[D::Float8E4m3fn, D::Float8E5m2];
const FLOAT_SCALES: &[DType] = &[D::Float32, D::Bfloat16, D::Float16, D::Float8E8m0fnu];
const BYTES: &[DType] = &[D::Uint8, D::Int8];

/// Every scheme nxrig dequantizes.
pub static SCHEMES: &[Scheme] = &[
    Scheme {
        name: "fp8-block",
        about: "DeepSeek-V3/R1 and transformers' fine-grained FP8 (`weight_scale_inv`), DeepSeek-V4's dense layers (`scale`, UE8M0)",
        weight: ".weight",
        scale: &[".weight_scale_inv", ".scale"],
        zero: None,
        g_idx: None,
        global: None,
        dropped: &[".input_scale"],
        out: ".weight",
        packing: Packing::Float8,
        weight_dtypes: FLOAT8,
        scale_dtypes: FLOAT_SCALES,
        block: 0,
    },
    Scheme {
        name: "fp8",
        about: "compressed-tensors' float-quantized (FP8 per tensor, channel or block) and NVIDIA ModelOpt's FP8 (`weight_scale`)",
        weight: ".weight",
        scale: &[".weight_scale"],
        zero: None,
        g_idx: None,
        global: None,
        dropped: &[".input_scale"],
        out: ".weight",
        packing: Packing::Float8,
        weight_dtypes: FLOAT8,
        scale_dtypes: FLOAT_SCALES,
        block: 0,
    },
    Scheme {
        name: "mxfp4",
        about: "gpt-oss' MXFP4 experts (`_blocks`, `_scales`)",
        weight: "_blocks",
        scale: &["_scales"],
        zero: None,
        g_idx: None,
        global: None,
        dropped: &[],
        out: "",
        packing: Packing::Fp4Experts,
        weight_dtypes: &[D::Uint8],
        scale_dtypes: &[D::Uint8, D::Float8E8m0fnu],
        block: 32,
    },
    Scheme {
        name: "nvfp4",
        about: "NVIDIA ModelOpt's NVFP4 (`weight_scale`, `weight_scale_2`)",
        weight: ".weight",
        scale: &[".weight_scale"],
        zero: None,
        g_idx: None,
        global: Some((".weight_scale_2", GlobalOp::Mul)),
        dropped: &[".input_scale"],
        out: ".weight",
        packing: Packing::Fp4,
        weight_dtypes: BYTES,
        scale_dtypes: &[D::Float8E4m3fn],
        block: 16,
    },
    Scheme {
        name: "nvfp4-pack-quantized",
        about: "compressed-tensors' NVFP4 (`weight_packed`, `weight_scale`, `weight_global_scale`)",
        weight: ".weight_packed",
        scale: &[".weight_scale"],
        zero: None,
        g_idx: None,
        global: Some((".weight_global_scale", GlobalOp::Div)),
        dropped: &[".input_global_scale", ".weight_shape"],
        out: ".weight",
        packing: Packing::Fp4,
        weight_dtypes: BYTES,
        scale_dtypes: &[D::Float8E4m3fn],
        block: 16,
    },
    Scheme {
        name: "mxfp4-pack-quantized",
        about: "compressed-tensors' MXFP4 (`weight_packed`, `weight_scale` as UE8M0)",
        weight: ".weight_packed",
        scale: &[".weight_scale"],
        zero: None,
        g_idx: None,
        global: None,
        dropped: &[".input_global_scale", ".weight_shape"],
        out: ".weight",
        packing: Packing::Fp4,
        weight_dtypes: BYTES,
        scale_dtypes: &[D::Uint8, D::Float8E8m0fnu],
        block: 32,
    },
    Scheme {
        name: "pack-quantized",
        about: "compressed-tensors' integer groups (`weight_packed` int32, `weight_scale`, `weight_zero_point`, `weight_g_idx`)",
        weight: ".weight_packed",
        scale: &[".weight_scale"],
        zero: Some(".weight_zero_point"),
        g_idx: Some(".weight_g_idx"),
        global: None,
        dropped: &[".weight_shape", ".input_scale"],
        out: ".weight",
        packing: Packing::IntRows,
        weight_dtypes: &[D::Int32],
        scale_dtypes: &[D::Float32, D::Bfloat16, D::Float16],
        block: 0,
    },
    Scheme {
        name: "gptq",
        about: "GPTQ (`qweight`, `qzeros`, `scales`, `g_idx`; zero points stored minus one, or as they are with `checkpoint_format: gptq_v2`)",
        weight: ".qweight",
        scale: &[".scales"],
        zero: Some(".qzeros"),
        g_idx: Some(".g_idx"),
        global: None,
        dropped: &[],
        out: ".weight",
        packing: Packing::IntGptq,
        weight_dtypes: &[D::Int32],
        scale_dtypes: &[D::Float16, D::Bfloat16, D::Float32],
        block: 0,
    },
    Scheme {
        name: "awq",
        about: "AWQ's GEMM layout (`qweight`, `qzeros`, `scales`)",
        weight: ".qweight",
        scale: &[".scales"],
        zero: Some(".qzeros"),
        g_idx: None,
        global: None,
        dropped: &[],
        out: ".weight",
        packing: Packing::IntAwq,
        weight_dtypes: &[D::Int32],
        scale_dtypes: &[D::Float16, D::Bfloat16, D::Float32],
        block: 0,
    },
];

impl Scheme {
    /// The scheme named `name` (as `--scheme` takes it).
    pub fn named(name: &str) -> Option<&'static Scheme> {
        SCHEMES.iter().find(|s| s.name == name)
    }

    /// Every scheme's name, for messages.
    pub fn names() -> String {
        SCHEMES
            .iter()
            .map(|s| s.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    /// JavaScript's `SchemeName` (`js/index.d.ts`) is the table's names and `gptq-v2`
    /// (the choice of GPTQ's other format), each once.
    #[test]
    fn typescript_scheme_names_are_the_tables() {
        let dts =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/js/index.d.ts")).unwrap();
        let line = dts
            .lines()
            .find(|l| l.starts_with("export type SchemeName = "))
            .expect("SchemeName in js/index.d.ts");
        let mut got: Vec<&str> = line
            .trim_start_matches("export type SchemeName = ")
            .trim_end_matches(';')
            .split(" | ")
            .map(|n| n.trim_matches('\''))
            .collect();
        let mut want: Vec<&str> = super::SCHEMES.iter().map(|s| s.name).collect();
        want.push("gptq-v2");
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }
}
