//! What every conversion reads of a dtype, filled in from the dtype table: its facts
//! as a WGSL value or constants, which short paths from float32 exist, and an element's raw bits
//! widened to `vec4<u32>`.

use super::words::Words;
use crate::dtype::{Class, DType, Specials};

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

/// `convert.wgsl`'s code of a format's special values (`IEEE`, `ALL_ONES_NAN`,
/// `NEG_ZERO_NAN`, `UNSIGNED_NO_ZERO`, `UNSIGNED_FNU`).
pub(crate) fn specials_code(s: Specials) -> u32 {
    match s {
        Specials::Ieee => 0,
        Specials::AllOnesNan => 1,
        Specials::NegZeroNan => 2,
        Specials::UnsignedNoZero => 3,
        Specials::Unsigned => 4,
        Specials::Finite => 5,
    }
}

/// `d`'s facts as WGSL literals: its class, bits (an integer's value bits, 2 for int2
/// held one a byte: its loads sign-extend and its stores wrap to them), and float
/// format (exponent and fraction bits, bias, special values: a float's or a complex
/// component's; float32's for the others, a placeholder their conversions do not
/// read).
fn literals(d: DType) -> [String; 6] {
    let f = d
        .float_format()
        .or(DType::Float32.float_format())
        .expect("float32 has a format");
    [
        format!("{}u", class_code(d)),
        match d.class() {
            Class::Signed | Class::Unsigned => format!("{}u", d.packed_bits()),
            _ => format!("{}u", d.bits()),
        },
        format!("{}u", f.exponent_bits),
        format!("{}u", f.fraction_bits),
        f.bias.to_string(),
        format!("{}u", specials_code(f.specials)),
    ]
}

/// `d`'s facts as `convert.wgsl`'s `Dt` value: `Dt(class, bits, Fmt(e, m, bias,
/// specials))`.
pub(crate) fn dt(d: DType) -> String {
    let [class, bits, e, m, bias, sp] = literals(d);
    format!("Dt({class}, {bits}, Fmt({e}, {m}, {bias}, {sp}))")
}

/// The constants `PREFIX_CLASS`, `_BITS`, `_E`, `_M`, `_BIAS`, `_SPECIALS` of `d`.
pub(crate) fn facts(prefix: &str, d: DType) -> String {
    let [class, bits, e, m, bias, sp] = literals(d);
    format!(
        "const {prefix}_CLASS: u32 = {class};\nconst {prefix}_BITS: u32 = {bits};\nconst {prefix}_E: u32 = {e};\nconst {prefix}_M: u32 = {m};\nconst {prefix}_BIAS: i32 = {bias};\nconst {prefix}_SPECIALS: u32 = {sp};\n"
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
