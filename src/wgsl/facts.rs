//! What every conversion reads of a dtype, filled in from the dtype table: its facts
//! as a WGSL value or constants, which short paths from float32 exist, and an element's raw bits
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

/// `d`'s facts as WGSL literals: its class, bits, and float format (exponent and
/// fraction bits, bias, IEEE or not: a float's or a complex component's; float32's
/// for the others, a placeholder their conversions do not read).
fn literals(d: DType) -> [String; 6] {
    let f = d.float_format().unwrap_or(crate::dtype::FloatFormat {
        exponent_bits: 8,
        fraction_bits: 23,
        bias: 127,
        ieee: true,
    });
    [
        format!("{}u", class_code(d)),
        format!("{}u", d.bits()),
        format!("{}u", f.exponent_bits),
        format!("{}u", f.fraction_bits),
        f.bias.to_string(),
        f.ieee.to_string(),
    ]
}

/// `d`'s facts as `convert.wgsl`'s `Dt` value: `Dt(class, bits, Fmt(e, m, bias,
/// ieee))`.
pub(crate) fn dt(d: DType) -> String {
    let [class, bits, e, m, bias, ieee] = literals(d);
    format!("Dt({class}, {bits}, Fmt({e}, {m}, {bias}, {ieee}))")
}

/// The constants `PREFIX_CLASS`, `_BITS`, `_E`, `_M`, `_BIAS`, `_IEEE` of `d`.
pub(crate) fn facts(prefix: &str, d: DType) -> String {
    let [class, bits, e, m, bias, ieee] = literals(d);
    format!(
        "const {prefix}_CLASS: u32 = {class};\nconst {prefix}_BITS: u32 = {bits};\nconst {prefix}_E: u32 = {e};\nconst {prefix}_M: u32 = {m};\nconst {prefix}_BIAS: i32 = {bias};\nconst {prefix}_IEEE: bool = {ieee};\n"
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
