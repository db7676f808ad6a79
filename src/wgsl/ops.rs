//! The WGSL of nxrig's elementwise operations besides add (`sub`, `mul`, `div`,
//! `maximum`, `minimum`, `neg`, `abs`, the comparisons, `select`): a function
//! `nx_op(a, b)` on two elements' raw bits of one dtype (`vec4<u32>`), exact in 32-bit
//! integer arithmetic on every device (`shaders/ops_float.wgsl`, `ops_int.wgsl`,
//! `ops_wide.wgsl`), which [`super::elementwise::bits_module`] wraps with each
//! operand's load, store and walk.

use super::add::ADD_FLOAT;
use super::facts::facts;
use crate::dtype::lanes::Arith;
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

/// The functions of `op` over dtype `d` (which takes it: `lanes::takes`), ending in
/// `fn nx_op(a: vec4<u32>, b: vec4<u32>) -> vec4<u32>`.
pub(crate) fn op_helpers(op: Arith, d: DType) -> String {
    let mut s = facts("OP", d);
    s.push('\n');
    let body = match d.class() {
        Class::Float => {
            s += &[ADD_FLOAT, WIDE, FLOAT].join("\n");
            let r = float_part(op, "a.xy", "b.xy");
            match op {
                o if compares(o) => format!("    let f = {FMT};\n    return {};", bool_of(&r)),
                _ => format!("    let f = {FMT};\n    return vec4<u32>({r}, 0u, 0u);"),
            }
        }
        Class::Complex => {
            s += &[ADD_FLOAT, WIDE, FLOAT].join("\n");
            complex(op, d)
        }
        Class::Signed | Class::Unsigned => {
            s += &[WIDE, INT].join("\n");
            let r = int_part(op, d.bits(), d.class() == Class::Signed);
            if compares(op) {
                format!("    return {};", bool_of(&r))
            } else {
                format!("    return vec4<u32>({r}, 0u, 0u);")
            }
        }
        Class::Bool => bool_op(op),
    };
    s + &format!("\n\nfn nx_op(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {{\n{body}\n}}\n")
}

const FMT: &str = "Fmt(OP_E, OP_M, OP_BIAS, OP_IEEE)";

fn compares(op: Arith) -> bool {
    matches!(
        op,
        Arith::Eq | Arith::Ne | Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge
    )
}

/// A bool element of the WGSL condition `c`.
fn bool_of(c: &str) -> String {
    format!("vec4<u32>(select(0u, 1u, {c}), 0u, 0u, 0u)")
}

/// `op` on one float component `a`, `b` (`vec2<u32>` expressions) of format `f`: a
/// `vec2<u32>`, or a `bool` for a comparison.
fn float_part(op: Arith, a: &str, b: &str) -> String {
    match op {
        Arith::Sub => format!("sub_float({a}, {b}, f)"),
        Arith::Mul => format!("mul_float({a}, {b}, f)"),
        Arith::Div => format!("div_float({a}, {b}, f)"),
        Arith::Maximum => format!("maximum_float({a}, {b}, f)"),
        Arith::Minimum => format!("minimum_float({a}, {b}, f)"),
        Arith::Neg => format!("neg_float({a}, f)"),
        Arith::Abs => format!("abs_float({a}, f)"),
        Arith::Eq => format!("eq_float({a}, {b}, f)"),
        Arith::Ne => format!("!eq_float({a}, {b}, f)"),
        Arith::Lt => format!("lt_float({a}, {b}, f)"),
        Arith::Le => format!("le_float({a}, {b}, f)"),
        Arith::Gt => format!("lt_float({b}, {a}, f)"),
        Arith::Ge => format!("le_float({b}, {a}, f)"),
    }
}

/// `op` on integers `a.xy`, `b.xy` of `w` bits.
fn int_part(op: Arith, w: u32, signed: bool) -> String {
    let (a, b) = ("a.xy", "b.xy");
    match op {
        Arith::Sub => format!("sub_int({a}, {b}, {w}u)"),
        Arith::Mul => format!("mul_int({a}, {b}, {w}u)"),
        Arith::Div => format!("div_int({a}, {b}, {w}u, {signed})"),
        Arith::Maximum => format!("maximum_int({a}, {b}, {w}u, {signed})"),
        Arith::Minimum => format!("minimum_int({a}, {b}, {w}u, {signed})"),
        Arith::Neg => format!("neg_int({a}, {w}u)"),
        Arith::Abs => format!("abs_int({a}, {w}u, {signed})"),
        Arith::Eq => format!("eq_int({a}, {b}, {w}u)"),
        Arith::Ne => format!("!eq_int({a}, {b}, {w}u)"),
        Arith::Lt => format!("lt_int({a}, {b}, {w}u, {signed})"),
        Arith::Le => format!("!lt_int({b}, {a}, {w}u, {signed})"),
        Arith::Gt => format!("lt_int({b}, {a}, {w}u, {signed})"),
        Arith::Ge => format!("!lt_int({a}, {b}, {w}u, {signed})"),
    }
}

/// `nx_op`'s body for a complex dtype `d`: `sub`, `mul` (each real operation rounded),
/// `neg`, `eq`, `ne`.
fn complex(op: Arith, d: DType) -> String {
    let parts = if d.bits() == 64 {
        "    let ar = vec2<u32>(a.x, 0u);\n    let ai = vec2<u32>(a.y, 0u);\n    let br = vec2<u32>(b.x, 0u);\n    let bi = vec2<u32>(b.y, 0u);\n"
    } else {
        "    let ar = a.xy;\n    let ai = a.zw;\n    let br = b.xy;\n    let bi = b.zw;\n"
    };
    let (re, im) = match op {
        Arith::Eq | Arith::Ne => {
            let both = "eq_float(ar, br, f) && eq_float(ai, bi, f)";
            let c = if op == Arith::Eq {
                both.to_owned()
            } else {
                format!("!({both})")
            };
            return format!("    let f = {FMT};\n{parts}    return {};", bool_of(&c));
        }
        Arith::Mul => (
            "sub_float(mul_float(ar, br, f), mul_float(ai, bi, f), f)".to_owned(),
            "add_float(mul_float(ar, bi, f), mul_float(ai, br, f), f)".to_owned(),
        ),
        op => (float_part(op, "ar", "br"), float_part(op, "ai", "bi")),
    };
    let out = if d.bits() == 64 {
        "vec4<u32>(re.x, im.x, 0u, 0u)"
    } else {
        "vec4<u32>(re, im)"
    };
    format!("    let f = {FMT};\n{parts}    let re = {re};\n    let im = {im};\n    return {out};")
}

/// `nx_op`'s body for bool (any nonzero byte true; results 0 or 1).
fn bool_op(op: Arith) -> String {
    let c = match op {
        Arith::Mul | Arith::Minimum => "x && y",
        Arith::Maximum => "x || y",
        Arith::Abs | Arith::Neg | Arith::Sub | Arith::Div => "x",
        Arith::Eq => "x == y",
        Arith::Ne => "x != y",
        Arith::Lt => "!x && y",
        Arith::Le => "!x || y",
        Arith::Gt => "x && !y",
        Arith::Ge => "x || !y",
    };
    format!(
        "    let x = (a.x & 0xffu) != 0u;\n    let y = (b.x & 0xffu) != 0u;\n    return {};",
        bool_of(c)
    )
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::dtype::lanes::takes;
    use crate::wgsl::{Form, Kernel, Slot};

    const ALL: [Arith; 13] = [
        Arith::Sub,
        Arith::Mul,
        Arith::Div,
        Arith::Maximum,
        Arith::Minimum,
        Arith::Neg,
        Arith::Abs,
        Arith::Eq,
        Arith::Ne,
        Arith::Lt,
        Arith::Le,
        Arith::Gt,
        Arith::Ge,
    ];

    #[test]
    fn every_operation_of_every_dtype_validates() {
        for d in DType::ALL {
            for op in ALL.into_iter().filter(|&op| takes(op, d)) {
                let out = if compares(op) { DType::Bool } else { d };
                let slots = [
                    Slot {
                        name: "a",
                        dtype: d,
                        output: false,
                    },
                    Slot {
                        name: "b",
                        dtype: d,
                        output: false,
                    },
                    Slot {
                        name: "z",
                        dtype: out,
                        output: true,
                    },
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
