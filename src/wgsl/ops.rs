//! The WGSL of nxrig's elementwise operations besides add (`sub`, `mul`, `div`,
//! `maximum`, `minimum`, `neg`, `abs`, the comparisons, `select`): a function
//! `nx_op(a, b)` on two elements' raw bits of one dtype (`vec4<u32>`), exact in 32-bit
//! integer arithmetic on every device (`shaders/ops_float.wgsl`, `ops_int.wgsl`,
//! `ops_wide.wgsl`), which [`super::elementwise::bits_module`] wraps with each
//! operand's load, store and walk.

use super::add::ADD_FLOAT;
use super::facts::facts;
use crate::dtype::operations::{ComplexWgsl, Operation};
use crate::dtype::{Class, DType};

const WIDE: &str = include_str!("../../shaders/ops_wide.wgsl");
const FLOAT: &str = include_str!("../../shaders/ops_float.wgsl");
const INT: &str = include_str!("../../shaders/ops_int.wgsl");

/// The body of an operation's module over inputs `a` (and `b`) into `z`.
pub(crate) const BINARY_BODY: &str = "z = nx_op(a, b);";
/// The body of a unary operation's module over input `a` into `z`.
pub(crate) const UNARY_BODY: &str = "z = nx_op(a, a);";
/// The body of the select over a bool `c` and `a`, `b` into `z`.
pub(crate) const SELECT_BODY: &str = "z = select(b, a, (c.x & 0xffu) != 0u);";

/// The functions of `op` over dtype `d` (which takes it: [`Operation::takes`]),
/// ending in `fn nx_op(a: vec4<u32>, b: vec4<u32>) -> vec4<u32>`: the row's WGSL
/// expression for `d`'s class as a function of fixed parameters (`nx_real`,
/// `nx_int`, `nx_bool`), and `nx_op` around it.
pub(crate) fn op_helpers(op: Operation, d: DType) -> String {
    let row = op.row();
    let mut s = facts("OP", d);
    s.push('\n');
    let ret = if row.compares { "bool" } else { "vec2<u32>" };
    let result = |r: &str| {
        if row.compares {
            format!("return {};", bool_of(r))
        } else {
            format!("return vec4<u32>({r}, 0u, 0u);")
        }
    };
    let real = |e: &str| {
        format!("fn nx_real(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> {ret} {{\n    return {e};\n}}\n")
    };
    let body = match d.class() {
        Class::Float => {
            s += &[ADD_FLOAT, WIDE, FLOAT].join("\n");
            s += &real(row.wgsl_float.unwrap_or("a"));
            format!(
                "    let f = {FMT};\n    {}",
                result("nx_real(a.xy, b.xy, f)")
            )
        }
        Class::Complex => {
            s += &[ADD_FLOAT, WIDE, FLOAT].join("\n");
            if let ComplexWgsl::Parts = row.wgsl_complex {
                s += &real(row.wgsl_float.unwrap_or("a"));
            }
            complex(row.wgsl_complex, d)
        }
        Class::Signed | Class::Unsigned => {
            s += &[WIDE, INT].join("\n");
            s += &format!(
                "fn nx_int(a: vec2<u32>, b: vec2<u32>, w: u32, signed: bool) -> {ret} {{\n    return {};\n}}\n",
                row.wgsl_int.unwrap_or("a")
            );
            let call = format!(
                "nx_int(a.xy, b.xy, {}u, {})",
                d.packed_bits(),
                d.class() == Class::Signed
            );
            format!("    {}", result(&call))
        }
        Class::Bool => {
            s += &format!(
                "fn nx_bool(x: bool, y: bool) -> bool {{\n    return {};\n}}\n",
                row.wgsl_bool.unwrap_or("x")
            );
            format!(
                "    let x = (a.x & 0xffu) != 0u;\n    let y = (b.x & 0xffu) != 0u;\n    return {};",
                bool_of("nx_bool(x, y)")
            )
        }
    };
    s + &format!("\n\nfn nx_op(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {{\n{body}\n}}\n")
}

const FMT: &str = "Fmt(OP_E, OP_M, OP_BIAS, OP_SPECIALS)";

/// A bool element of the WGSL condition `c`.
fn bool_of(c: &str) -> String {
    format!("vec4<u32>(select(0u, 1u, {c}), 0u, 0u, 0u)")
}

/// `nx_op`'s body for a complex dtype `d`: the float function `nx_real` on each
/// part, or the row's expressions of the parts `ar`, `ai`, `br`, `bi`. complex32's and
/// bcomplex32's parts (the halves of one word) compute a row's own expressions in
/// float32, each part then rounded once (complex64's arithmetic, as ml_dtypes'); an
/// operation on each part alone is the same in their own format.
fn complex(c: ComplexWgsl, d: DType) -> String {
    let halves = d.bits() == 32;
    let parts = match d.bits() {
        32 => "    let ar = vec2<u32>(a.x & 0xffffu, 0u);\n    let ai = vec2<u32>(a.x >> 16u, 0u);\n    let br = vec2<u32>(b.x & 0xffffu, 0u);\n    let bi = vec2<u32>(b.x >> 16u, 0u);\n",
        64 => "    let ar = vec2<u32>(a.x, 0u);\n    let ai = vec2<u32>(a.y, 0u);\n    let br = vec2<u32>(b.x, 0u);\n    let bi = vec2<u32>(b.y, 0u);\n",
        _ => "    let ar = a.xy;\n    let ai = a.zw;\n    let br = b.xy;\n    let bi = b.zw;\n",
    };
    let (re, im) = match c {
        ComplexWgsl::Compare(e) => {
            return format!("    let f = {FMT};\n{parts}    return {};", bool_of(e));
        }
        ComplexWgsl::Pair(re, im) if halves => {
            // The parts widened to float32, the row's expressions there, rounded back.
            let widened: String = [
                ("ar", "a.x & 0xffffu"),
                ("ai", "a.x >> 16u"),
                ("br", "b.x & 0xffffu"),
                ("bi", "b.x >> 16u"),
            ]
            .iter()
            .map(|(n, e)| {
                format!("    let {n} = encode_float(decode_float(vec2<u32>({e}, 0u), p), f);\n")
            })
            .collect();
            return format!(
                "    let p = {FMT};\n    let f = {F32};\n{widened}    let re = encode_float(decode_float({re}, f), p);\n    let im = encode_float(decode_float({im}, f), p);\n    return vec4<u32>(re.x | (im.x << 16u), 0u, 0u, 0u);"
            );
        }
        ComplexWgsl::Pair(re, im) => (re.to_owned(), im.to_owned()),
        ComplexWgsl::Parts | ComplexWgsl::None => (
            "nx_real(ar, br, f)".to_owned(),
            "nx_real(ai, bi, f)".to_owned(),
        ),
    };
    let out = match d.bits() {
        32 => "vec4<u32>(re.x | (im.x << 16u), 0u, 0u, 0u)",
        64 => "vec4<u32>(re.x, im.x, 0u, 0u)",
        _ => "vec4<u32>(re, im)",
    };
    format!("    let f = {FMT};\n{parts}    let re = {re};\n    let im = {im};\n    return {out};")
}

/// float32's format as a WGSL `Fmt`.
const F32: &str = "Fmt(8u, 23u, 127, 0u)";

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::wgsl::{Form, Kernel, Slot};

    #[test]
    fn every_operation_of_every_dtype_validates() {
        for d in DType::ALL {
            for op in Operation::ALL.iter().copied().filter(|&op| op.takes(d)) {
                let out = op.result(d);
                let slots = [
                    Slot::input("a", d),
                    Slot::input("b", d),
                    Slot::output("z", out),
                ];
                let k = Kernel::new(slots.to_vec(), None, BINARY_BODY)
                    .unwrap()
                    .helpers(op_helpers(op, d));
                let looped = k.clone().looped();
                let forms = [
                    (&k, Form::Walked { one_axis: false }),
                    (&k, Form::Contiguous { at_zero: false }),
                    (&looped, Form::Contiguous { at_zero: true }),
                ];
                for (k, form) in forms {
                    let m = k.module(form);
                    assert!(!m.contains("{{"), "{op:?} {d}");
                    crate::wgsl::tests::validate(&m);
                }
            }
        }
    }
}
