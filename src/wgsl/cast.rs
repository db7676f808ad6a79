//! The cast kernel: `shaders/cast.wgsl` with `shaders/convert.wgsl`, one module a
//! (source, target) pair, the dtype facts filled in from the dtype table.

use super::words::{load_fn, store_fn, Words};
use super::{flat4_module, FlatParts};
use crate::dtype::{Class, DType};

const CAST: &str = include_str!("../../shaders/cast.wgsl");
const CONVERT: &str = include_str!("../../shaders/convert.wgsl");

/// Whether [`super::narrow::convert_f32`] has the short path from float32 into `dst`
/// (its `f32_to_<dst>`): every narrow float, int32 and uint32.
pub(crate) fn from_f32_short(dst: DType) -> bool {
    super::narrow::is_narrow(dst) || matches!(dst, DType::Int32 | DType::Uint32)
}

/// The conversion function of `src` into `dst`: from float32 into the targets that
/// `shaders/convert_f32.wgsl` has, that file's; otherwise the general exact one.
fn convert_fn(src: DType, dst: DType) -> String {
    if src != DType::Float32 || !from_f32_short(dst) {
        return CONVERT.to_owned();
    }
    format!(
        "{}\nfn convert(a: vec4<u32>) -> vec4<u32> {{\n    return vec4<u32>(f32_to_{}(a.x), 0u, 0u, 0u);\n}}\n",
        super::narrow::convert_f32(),
        dst.name()
    )
}

/// `convert.wgsl`'s class code of `d` (the order of [`Class`]).
fn class_code(d: DType) -> u32 {
    match d.class() {
        Class::Float => 0,
        Class::Signed => 1,
        Class::Unsigned => 2,
        Class::Complex => 3,
        Class::Bool => 4,
    }
}

/// The constants `PREFIX_CLASS`, `_BITS`, `_E`, `_M`, `_BIAS`, `_IEEE` of `d` (the
/// format of a float or of a complex component; a placeholder format otherwise).
pub(crate) fn facts(prefix: &str, d: DType) -> String {
    let f = d.float_format().unwrap_or(crate::dtype::FloatFormat {
        exponent_bits: 8,
        fraction_bits: 23,
        bias: 127,
        ieee: true,
    });
    format!(
        "const {prefix}_CLASS: u32 = {}u;\nconst {prefix}_BITS: u32 = {}u;\nconst {prefix}_E: u32 = {}u;\nconst {prefix}_M: u32 = {}u;\nconst {prefix}_BIAS: i32 = {};\nconst {prefix}_IEEE: bool = {};\n",
        class_code(d),
        d.bits(),
        f.exponent_bits,
        f.fraction_bits,
        f.bias,
        f.ieee
    )
}

/// `load4`/`store4`: the element's raw bits as `vec4<u32>`, lowest word first.
fn adapters(src: Words, dst: Words) -> String {
    load4("load4", "load", src) + "\n\n" + &store4(dst)
}

/// `fn NAME(p: u32) -> vec4<u32>`: the raw bits that the loader `load` of elements laid
/// out as `w` gives, widened to `vec4<u32>`.
pub(crate) fn load4(name: &str, load: &str, w: Words) -> String {
    let body = match w {
        Words::Field { .. } | Words::Word => format!("vec4<u32>({load}(p), 0u, 0u, 0u)"),
        Words::Multi { count: 2 } => format!("vec4<u32>({load}(p), 0u, 0u)"),
        Words::Multi { .. } => format!("{load}(p)"),
    };
    format!("fn {name}(p: u32) -> vec4<u32> {{\n    return {body};\n}}")
}

/// `fn store4(p: u32, x: vec4<u32>)`: stores the low bits of `x` as an element laid out
/// as `w`.
pub(crate) fn store4(w: Words) -> String {
    let store = match w {
        Words::Field { .. } | Words::Word => "store(p, x.x);",
        Words::Multi { count: 2 } => "store(p, x.xy);",
        Words::Multi { .. } => "store(p, x);",
    };
    format!("fn store4(p: u32, x: vec4<u32>) {{\n    {store}\n}}")
}

/// The WGSL module that converts elements of `src` into `dst` over any layouts, with
/// the bindings of [`super::transfer_module`]. From float32 into float16, bfloat16, the
/// float8s, int32 and uint32 it uses the short paths of `shaders/convert_f32.wgsl`.
pub fn cast_module(src: DType, dst: DType) -> String {
    let (sw, dw) = (Words::of(src), Words::of(dst));
    CAST.replace("{{WALK}}", super::WALK)
        .replace("{{DST_WORD}}", dw.dst_word())
        .replace("{{FACTS}}", &(facts("SRC", src) + &facts("DST", dst)))
        .replace("{{CONVERT}}", &convert_fn(src, dst))
        .replace("{{LOAD}}", &load_fn(sw))
        .replace("{{STORE}}", &(store_fn(dw) + "\n\n" + &adapters(sw, dw)))
}

/// [`cast_module`]'s contiguous form for two 32-bit dtypes (`shaders/flat4.wgsl`), or
/// `None` for other widths: bindings as `cast_module`'s, each a `vec4<u32>` array, the
/// parameters' count and offsets in units of 4 elements. `at_zero`: the form for
/// operands that all start their binding windows, which ignores the offsets.
pub fn cast_module_flat4(src: DType, dst: DType, at_zero: bool) -> Option<String> {
    if src.bits() != 32 || dst.bits() != 32 {
        return None;
    }
    let parts = FlatParts {
        enable: "",
        two_sources: false,
        functions: &(facts("SRC", src) + &facts("DST", dst) + "\n" + &convert_fn(src, dst)),
        one: "return convert(vec4<u32>(a, 0u, 0u, 0u)).x;",
        end: "",
    };
    Some(flat4_module(&parts, at_zero))
}
