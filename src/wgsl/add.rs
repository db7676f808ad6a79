//! The add kernel: `shaders/add.wgsl` with `shaders/convert.wgsl`, one module a dtype
//! (and a choice of native types), the dtype facts filled in from the dtype table.

use super::cast::{facts, load4, store4};
use super::words::{load_fn, load_named, store_fn, Words};
use super::{flat4_module, FlatParts};
use crate::dtype::{Class, DType};

const ADD: &str = include_str!("../../shaders/add.wgsl");
const CONVERT: &str = include_str!("../../shaders/convert.wgsl");
const F32_EXACT: &str = include_str!("../../shaders/add_f32_exact.wgsl");
const ADD_FNS: &str = include_str!("../../shaders/add_fns.wgsl");
/// `add_float`, the exact sum of two floats of any format (`shaders/add_float.wgsl`).
pub(crate) const ADD_FLOAT: &str = include_str!("../../shaders/add_float.wgsl");
const F32_SCALED: &str = include_str!("../../shaders/add_f32_scaled.wgsl");
const F32_FIRST: &str = include_str!("../../shaders/add_f32_first.wgsl");
const F32_AGAIN: &str = include_str!("../../shaders/add_f32_again.wgsl");

/// The native WGSL types a generated kernel may use; the rest is emulated in 32-bit
/// integer arithmetic. A GPU device uses what its adapter has (`SHADER_F16`,
/// `SHADER_F64` with `SHADER_INT64`, `SHADER_INT64`; `f32` always) unless it was opened
/// to emulate everything. Native floats are used only where operands and result are
/// normal numbers (so flushing subnormals or a NaN's payload never shows), except
/// `f32` on a device whose additions a probe found exact on subnormals (`f32_exact`):
/// there the native sum stands, NaNs fixed up by bit selects. Conversions (casts) are
/// always emulated, because WGSL lets a narrowing conversion round either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Native {
    /// Use `f32` arithmetic.
    pub f32: bool,
    /// Use `f16` arithmetic (`enable f16`).
    pub f16: bool,
    /// Use `f64` arithmetic.
    pub f64: bool,
    /// Use `i64`/`u64` arithmetic.
    pub int64: bool,
    /// The device's `f32` addition is exact on subnormal operands and results (probed
    /// when the device opens): no exact fallback beside it.
    pub f32_exact: bool,
}

impl Native {
    /// Nothing native: every dtype in 32-bit integer arithmetic.
    pub const NONE: Native = Native {
        f32: false,
        f16: false,
        f64: false,
        int64: false,
        f32_exact: false,
    };

    /// What a kernel of dtype `d` uses of `self`: only the types it needs, so that one
    /// module serves devices that differ in the others.
    pub fn for_dtype(self, d: DType) -> Native {
        let comp = match d {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        };
        Native {
            f32: self.f32 && comp == DType::Float32,
            f16: self.f16 && comp == DType::Float16,
            // f64 goes to and from its bits through u64.
            f64: self.f64 && self.int64 && comp == DType::Float64,
            int64: self.int64 && matches!(d, DType::Int64 | DType::Uint64),
            f32_exact: self.f32 && self.f32_exact && comp == DType::Float32,
        }
    }
}

/// `add_real`: one real component's sum, natively where `native` says so; else exactly
/// in integers (`add_small` for components of 32 bits or fewer, `add_float` for 64).
fn add_real(native: Native, wide: bool) -> String {
    let head = "fn add_real(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {\n";
    if native.f32_exact {
        return format!(
            "{F32_EXACT}\n{head}    return vec2<u32>(add_f32_exact(a.x, b.x), 0u);\n}}"
        );
    }
    if native.f32 {
        return format!(
            "{F32_SCALED}\n{head}    return vec2<u32>(add_f32_scaled(a.x, b.x), 0u);\n}}"
        );
    }
    let sum = if native.f16 {
        "pack2x16float(vec2<f32>(f32(unpack_h(a.x) + unpack_h(b.x)), 0.0))"
    } else if native.f64 {
        return format!(
            "{WORDS64}{head}    if (is_normal(a, f) && is_normal(b, f)) {{\n        let r = split64(bitcast<u64>(bitcast<f64>(join64(a)) + bitcast<f64>(join64(b))));\n        if (is_normal(r, f)) {{ return r; }}\n    }}\n    return add_float(a, b, f);\n}}"
        );
    } else if wide {
        return format!("{head}    return add_float(a, b, f);\n}}");
    } else {
        return format!("{head}    return vec2<u32>(add_small(a.x, b.x, f), 0u);\n}}");
    };
    let unpack = if native.f16 {
        "// An f16 from its bits (exact: every f16 is an f32).\nfn unpack_h(a: u32) -> f16 {\n    return f16(unpack2x16float(a).x);\n}\n\n"
    } else {
        ""
    };
    format!(
        "{unpack}{head}    if (is_normal(a, f) && is_normal(b, f)) {{\n        let r = vec2<u32>({sum}, 0u);\n        if (is_normal(r, f)) {{ return r; }}\n    }}\n    return vec2<u32>(add_small(a.x, b.x, f), 0u);\n}}"
    )
}

/// A `u64` from a word pair and back. (naga's `bitcast` between `vec2<u32>` and a
/// 64-bit scalar gave wrong words on lavapipe; shifts are plain.)
const WORDS64: &str = "fn join64(a: vec2<u32>) -> u64 {\n    return u64(a.x) | (u64(a.y) << 32u);\n}\n\nfn split64(s: u64) -> vec2<u32> {\n    return vec2<u32>(u32(s & 0xfffffffflu), u32(s >> 32u));\n}\n\n";

/// The tail of `add` for an integer dtype `d` (wrapping), or an unreachable return.
fn add_int(d: DType, native: Native) -> String {
    if !matches!(d.class(), Class::Signed | Class::Unsigned) {
        return "return a;".into();
    }
    match d.bits() {
        64 if native.int64 => {
            "return vec4<u32>(split64(join64(a.xy) + join64(b.xy)), 0u, 0u);".into()
        }
        64 => "return vec4<u32>(add64(a.xy, b.xy), 0u, 0u);".into(),
        32 => "return vec4<u32>(a.x + b.x, 0u, 0u, 0u);".into(),
        bits => format!(
            "return vec4<u32>((a.x + b.x) & {:#x}u, 0u, 0u, 0u);",
            (1u64 << bits) - 1
        ),
    }
}

/// The WGSL module that stores `x + y` of dtype `d` over any layouts: bindings 0 the
/// parameters (`walk_params3`), 1 `x`, 2 the output, 3 `y`. `native` (narrowed by
/// [`Native::for_dtype`]) picks native arithmetic.
pub fn add_module(d: DType, native: Native) -> String {
    let native = native.for_dtype(d);
    let w = Words::of(d);
    let loads = [
        load_fn(w),
        load_named(w, "load_y", "src2"),
        load4("load4", "load", w),
        load4("load4_y", "load_y", w),
    ]
    .join("\n\n");
    ADD.replace("{{ENABLE}}", enable(native))
        .replace("{{WALK}}", super::WALK)
        .replace("{{DST_WORD}}", w.dst_word())
        .replace("{{ADD_FNS}}", &add_fns(d, native))
        .replace("{{LOAD}}", &loads)
        .replace("{{STORE}}", &(store_fn(w) + "\n\n" + &store4(w)))
}

/// The `enable` directive of a module that uses `native`'s types.
fn enable(native: Native) -> &'static str {
    if native.f16 {
        "enable f16;\n"
    } else {
        ""
    }
}

/// The facts of `d` and the functions that add two of its elements (`add(a, b)` on
/// `vec4<u32>` raw bits), with `native` narrowed to `d`.
fn add_fns(d: DType, native: Native) -> String {
    let fns = ADD_FNS
        .replace(
            "{{ADD_REAL}}",
            &(if native.int64 { WORDS64 } else { "" }.to_owned()
                + &add_real(native, matches!(d, DType::Float64 | DType::Complex128))),
        )
        .replace("{{ADD_INT}}", &add_int(d, native));
    facts("SRC", d) + &facts("DST", d) + "\n" + CONVERT + "\n" + ADD_FLOAT + "\n" + &fns
}

/// [`add_module`]'s contiguous form for a dtype of 8, 16 or 32 bits
/// (`shaders/flat4.wgsl`), or `None` for other widths: bindings as `add_module`'s,
/// each a `vec4<u32>` array, the parameters' count and offsets in units of 4 words
/// (16, 8 or 4 elements), each word's elements added in turn. `at_zero`: the form for
/// operands that all start their binding windows, which ignores the offsets.
pub fn add_module_flat4(d: DType, native: Native, at_zero: bool) -> Option<String> {
    if !matches!(d.bits(), 8 | 16 | 32) {
        return None;
    }
    let native = native.for_dtype(d);
    let lane = "fn add_lane(a: u32, b: u32) -> u32 {\n    return add(vec4<u32>(a, 0u, 0u, 0u), vec4<u32>(b, 0u, 0u, 0u)).x;\n}\n";
    let functions = add_fns(d, native) + "\n" + lane;
    let one = super::add_subword::lanes(d.bits(), "add_lane");
    let parts = FlatParts {
        enable: enable(native),
        two_sources: true,
        functions: &functions,
        one: &one,
        end: "",
    };
    Some(flat4_module(&parts, at_zero))
}

/// The first pass of add over an 8- or 16-bit float (bfloat16, float16, the float8s)
/// in the contiguous form of [`add_module_flat4`] (`shaders/add_narrow_first.wgsl`):
/// the sums in native float32, each rounded once into the dtype, and binding 4 (an
/// `atomic<u32>`) set to 1 where any element needs the exact sum (a NaN or an
/// infinity; bfloat16 pairs below 2^-100); `None` for other dtypes.
pub fn add_module_narrow_first(d: DType, at_zero: bool) -> Option<String> {
    let (functions, one) = super::add_subword::first_parts(d)?;
    let parts = FlatParts {
        enable: "",
        two_sources: true,
        functions: &functions,
        one: &one,
        end: "if (seen != 0u) { atomicOr(&flag, 1u); }",
    };
    Some(flat4_module(&parts, at_zero))
}

/// The first pass of float32 add on a device whose float32 sums are not trusted
/// (`Native::f32` without `f32_exact`), in the contiguous form of
/// [`add_module_flat4`]`(Float32, ..)` (`shaders/add_f32_first.wgsl`): the native sums,
/// and binding 4 (an `atomic<u32>`) set to 1 where any element needs the exact sum.
pub fn add_module_f32_first(at_zero: bool) -> String {
    let parts = FlatParts {
        enable: "",
        two_sources: true,
        functions: F32_FIRST,
        one: "return add_f32_first(a, b);",
        end: "if (seen != 0u) { atomicOr(&flag, 1u); }",
    };
    flat4_module(&parts, at_zero)
}

/// The module between the two passes of float32 add (`shaders/add_f32_again.wgsl`):
/// binding 0 the exact pass's workgroups (a uniform `vec4<u32>`, x and y), binding 1
/// the first pass's flag, binding 2 the indirect dispatch's arguments it writes.
pub fn add_module_f32_again() -> String {
    F32_AGAIN.to_owned()
}
