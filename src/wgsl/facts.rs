//! What every conversion reads of a dtype, filled in from the dtype table: its facts
//! as WGSL constants, which short paths from float32 exist, and an element's raw bits
//! widened to `vec4<u32>`.

use super::words::Words;
use crate::dtype::{Class, DType};

/// Whether [`super::narrow::convert_f32`] has the short path from float32 into `dst`
/// (its `f32_to_<dst>`): every narrow float, int32 and uint32.
pub(crate) fn from_f32_short(dst: DType) -> bool {
    super::narrow::is_narrow(dst) || matches!(dst, DType::Int32 | DType::Uint32)
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
