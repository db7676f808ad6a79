//! The operands of a generated module: each operand's binding, its load (the
//! element's bits decoded into the compute type, exactly) or store (the compute
//! type's value rounded once into the operand's dtype; sub-word elements stored with
//! atomics, so that no neighbour's bits are lost), generated from the dtype table;
//! what the elementwise modules (`elementwise.rs`) and the raw ones (`raw.rs`) wrap.

use super::facts::{dt, from_f32_short, load4};
use super::params::MAX_BOUND;
use super::words::{load_named, store_named, Words};
use crate::dtype::{Class, DType};

/// `convert` (one element of one dtype into another, the dtypes' facts its
/// parameters) and its helpers.
const CONVERT: &str = include_str!("../../shaders/convert.wgsl");

/// One operand of an elementwise module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot<'a> {
    /// Its name in the body (a WGSL identifier).
    pub name: &'a str,
    /// Its dtype.
    pub dtype: DType,
    /// Written (an output) or read (an input).
    pub output: bool,
}

#[cfg(test)]
impl<'a> Slot<'a> {
    /// An operand read, named `name` in the body.
    pub const fn input(name: &'a str, dtype: DType) -> Slot<'a> {
        Slot {
            name,
            dtype,
            output: false,
        }
    }

    /// An operand written, named `name` in the body.
    pub const fn output(name: &'a str, dtype: DType) -> Slot<'a> {
        Slot {
            name,
            dtype,
            output: true,
        }
    }
}

/// The WGSL type of a compute dtype: `f32`, `i32` or `u32`; `None` for others.
pub fn compute_type(c: DType) -> Option<&'static str> {
    match c {
        DType::Float32 => Some("f32"),
        DType::Int32 => Some("i32"),
        DType::Uint32 => Some("u32"),
        _ => None,
    }
}

/// The operands' parts of a module, in WGSL.
pub(crate) struct Parts {
    /// The conversions' shared functions (`shaders/convert.wgsl`, and
    /// `narrow::convert_f32` where a short path uses it).
    pub(crate) helpers: String,
    /// Each operand's binding (1, 2, ... in order; `nx_op_<name>`).
    pub(crate) bindings: Vec<String>,
    /// Each operand's functions: an input's `nx_value_<name>(bits)` (the compute type
    /// of an element's raw bits, a `vec4<u32>`) and `nx_load_<name>(p)` (of the element
    /// at position `p`), an output's `nx_bits_<name>(v)` and, unpacked,
    /// `nx_store4_<name>(p, bits)`.
    pub(crate) operands: Vec<String>,
    /// The compute type's WGSL name (`vec4<u32>` for raw bits).
    pub(crate) ty: &'static str,
}

/// How a form of `main` reaches its operands' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// An element at a walked position: `array<u32>` (sub-word outputs
    /// `array<atomic<u32>>`), each operand's load or store at a position.
    Element,
    /// Inputs an element at a walked position, outputs a whole word an invocation
    /// (`array<u32>`, no store at a position).
    PackedOutputs,
    /// Every operand whole `vec4<u32>`s (`array<vec4<u32>>`), no load or store at a
    /// position: the contiguous form's.
    Vectors,
    /// Every operand whole words (`array<u32>`), no load or store at a position: the
    /// looped contiguous form's.
    Words,
}

/// What the body's values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Values {
    /// Each operand's raw bits, a `vec4<u32>` (lowest word first).
    Bits,
    /// Each operand's raw bits as one `u32` (operands of 32 bits or fewer: a body
    /// that a CPU adapter such as SwiftShader runs without the three other lanes).
    Word,
    /// Each operand converted into this compute dtype exactly, rounded once back.
    Compute(DType),
}

/// The parts of `slots` bound in order, the body's values `values`, reached as
/// `access` says.
///
/// # Errors
/// A sentence for a compute dtype WGSL lacks, or other than 1 to [`MAX_BOUND`]
/// operands.
pub(crate) fn parts(slots: &[Slot<'_>], values: Values, access: Access) -> Result<Parts, String> {
    let compute = match values {
        Values::Compute(c) => Some(c),
        Values::Bits | Values::Word => None,
    };
    let ty = match values {
        Values::Bits => "vec4<u32>",
        Values::Word => "u32",
        Values::Compute(c) => compute_type(c)
            .ok_or_else(|| format!("no WGSL compute type is {c} (float32, int32, uint32)"))?,
    };
    if slots.is_empty() || slots.len() > MAX_BOUND {
        return Err(format!(
            "{} operands (1 to {MAX_BOUND} bind on WebGPU)",
            slots.len()
        ));
    }
    let mut bindings = Vec::new();
    let mut operands = Vec::new();
    let mut fast_f32 = false;
    for (j, s) in slots.iter().enumerate() {
        let w = Words::of(s.dtype);
        let (name, arr) = (s.name, format!("nx_op_{}", s.name));
        let raw = format!("nx_raw_{name}");
        let pair = match compute {
            None => (s.dtype, s.dtype),
            Some(c) if s.output => (c, s.dtype),
            Some(c) => (s.dtype, c),
        };
        let (conv, path) = conversion(&format!("nx_convert_{name}"), pair, s.output);
        fast_f32 |= path == Path::FromF32;
        operands.push(conv);
        if s.output {
            let word = match access {
                Access::Element => w.dst_word(),
                Access::PackedOutputs | Access::Words => "u32",
                Access::Vectors => "vec4<u32>",
            };
            bindings.push(format!(
                "@group(0) @binding({}) var<storage, read_write> {arr}: array<{word}>;",
                j + 1
            ));
            let bits = match compute {
                None if values == Values::Word => "vec4<u32>(v, 0u, 0u, 0u)",
                None => "v",
                Some(DType::Uint32) => "vec4<u32>(v, 0u, 0u, 0u)",
                Some(_) => "vec4<u32>(bitcast<u32>(v), 0u, 0u, 0u)",
            };
            operands.push(format!(
                "fn nx_bits_{name}(v: {ty}) -> vec4<u32> {{\n    return nx_convert_{name}({bits});\n}}"
            ));
            if access == Access::Element {
                operands.push(store_named(w, &raw, &arr));
                operands.push(store4_named(&format!("nx_store4_{name}"), &raw, w));
            }
        } else {
            let word = if access == Access::Vectors {
                "vec4<u32>"
            } else {
                "u32"
            };
            bindings.push(format!(
                "@group(0) @binding({}) var<storage, read> {arr}: array<{word}>;",
                j + 1
            ));
            let value = match compute {
                None if values == Values::Word => "b.x".to_owned(),
                None => "b".to_owned(),
                Some(DType::Uint32) => "b.x".to_owned(),
                Some(_) => format!("bitcast<{ty}>(b.x)"),
            };
            operands.push(format!(
                "fn nx_value_{name}(a: vec4<u32>) -> {ty} {{\n    let b = nx_convert_{name}(a);\n    return {value};\n}}"
            ));
            if matches!(access, Access::Element | Access::PackedOutputs) {
                operands.push(load_named(w, &raw, &arr));
                operands.push(load4(&format!("nx_load4_{name}"), &raw, w));
                operands.push(format!(
                    "fn nx_load_{name}(p: u32) -> {ty} {{\n    return nx_value_{name}(nx_load4_{name}(p));\n}}"
                ));
            }
        }
    }
    let mut helpers = CONVERT.to_owned();
    if fast_f32 {
        helpers.push('\n');
        helpers.push_str(super::narrow::convert_f32());
    }
    Ok(Parts {
        helpers,
        bindings,
        operands,
        ty,
    })
}

/// `fn NAME(p: u32, x: vec4<u32>)`: stores the low bits of `x` through the store
/// `store` of elements laid out as `w`.
fn store4_named(name: &str, store: &str, w: Words) -> String {
    let arg = match w {
        Words::Field { .. } | Words::Word => "x.x",
        Words::Multi { count: 2 } => "x.xy",
        Words::Multi { .. } => "x",
    };
    format!("fn {name}(p: u32, x: vec4<u32>) {{\n    {store}(p, {arg});\n}}")
}

/// Which way a conversion goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Path {
    /// A few operations on the bits.
    Short,
    /// `convert_f32()`'s `f32_to_<dtype>`, which must come beside it.
    FromF32,
    /// `convert.wgsl`'s `convert`, which every module has (`Parts::helpers`).
    General,
}

/// `fn NAME(a: vec4<u32>) -> vec4<u32>`: the bits of `from` converted into `to` (one
/// rounding, the dtype table's rule, NaNs quieted), for a store that keeps the
/// element's low bits (every store of a generated module), and its [`Path`].
pub(crate) fn converter(name: &str, from: DType, to: DType) -> (String, Path) {
    conversion(name, (from, to), true)
}

/// The conversion of [`converter`]; where not `store` (a load into a compute type),
/// with the loads' short paths, which leave a NaN's bits as they are.
fn conversion(name: &str, (from, to): (DType, DType), store: bool) -> (String, Path) {
    let head = format!("fn {name}(a: vec4<u32>) -> vec4<u32> {{\n    ");
    let int32 = |d: DType| matches!(d, DType::Int32 | DType::Uint32);
    // Not the integers held one a byte in fewer bits (int2): `convert` wraps them.
    let int = |d: DType| {
        matches!(d.class(), Class::Signed | Class::Unsigned) && d.bits() <= 32 && !d.is_padded()
    };
    // A signed narrow float's exact float32 bits, rounded once from there.
    let exact = match super::narrow::exact_f32(from) {
        Some(dec) if store && from != to && (to == DType::Float32 || from_f32_short(to)) => {
            Some(dec)
        }
        _ => None,
    };
    if let Some(dec) = exact {
        let decode = format!("fn {name}_f32(v: u32) -> u32 {{\n    {dec}\n}}\n");
        return if to == DType::Float32 {
            (
                format!("{decode}{head}let x = {name}_f32(a.x);\n    return vec4<u32>(select(x, x | 0x400000u, (x & 0x7fffffffu) > 0x7f800000u), 0u, 0u, 0u);\n}}"),
                Path::Short,
            )
        } else {
            (
                format!(
                    "{decode}{head}return vec4<u32>(f32_to_{}({name}_f32(a.x)), 0u, 0u, 0u);\n}}",
                    to.name()
                ),
                Path::FromF32,
            )
        };
    }
    let short = if from == to {
        Some("return a;".to_owned())
    } else if store && from == DType::Float32 && from_f32_short(to) {
        return (
            format!(
                "{head}return vec4<u32>(f32_to_{}(a.x), 0u, 0u, 0u);\n}}",
                to.name()
            ),
            Path::FromF32,
        );
    } else if store && int32(from) && int(to) {
        // Integers into integers wrap: the store keeps the low bits.
        Some("return a;".to_owned())
    } else if !store && to == DType::Float32 && from == DType::Bfloat16 {
        Some("return vec4<u32>(a.x << 16u, 0u, 0u, 0u);".to_owned())
    } else if !store && int32(to) && int(from) && from.class() == Class::Signed {
        let s = 32 - from.bits();
        Some(format!(
            "return vec4<u32>(u32(i32(a.x << {s}u) >> {s}u), 0u, 0u, 0u);"
        ))
    } else if !store && int32(to) && int(from) {
        Some("return a;".to_owned())
    } else {
        None
    };
    if let Some(s) = short {
        return (format!("{head}{s}\n}}"), Path::Short);
    }
    (
        format!("{head}return convert(a, {}, {});\n}}", dt(from), dt(to)),
        Path::General,
    )
}
