//! The first pass of `add`, `sub`, `mul` and `div` over the 8- and 16-bit floats
//! (bfloat16, float16, the float8s), and of `sub` and `mul` over float32 (and of `add`
//! where the device's float32 sums are not trusted on subnormals), on a GPU with
//! native float32, in the contiguous form: each pair decoded into float32 exactly, computed
//! natively, rounded once into the dtype, and a flag raised where that may not be the
//! exact result, so that the exact kernel runs over the piece (dispatched indirectly,
//! as add's). Why one native operation is exact, rounded once more:
//! - `+`, `-` and `*` are correctly rounded in WGSL, and float32's 24 bits are at least
//!   twice the narrow dtypes' precision and two bits (float16's 11), so a second
//!   rounding into the dtype is the exact value's one rounding; a product of two of
//!   their significands (at most 22 bits) is exact in float32.
//! - `/` may be off by 2.5 units in the last place (WGSL's bound, for divisors within
//!   2^-126..2^126): the flag is raised wherever the quotient moved by 3 units either
//!   way would round to another value of the dtype, so that an answer not raised is
//!   the exact quotient's rounding. float32's own division has no such check, and
//!   stays exact in integers.
//! - A NaN or infinite narrow operand and a NaN float32 result (whose bits the exact
//!   rule decides), a zero divisor, and float32's subnormals, which a device may
//!   flush: for bfloat16 and float32 (float32's range) subnormal operands, products
//!   and quotients near or below 2^-126 from nonzero operands, differences of
//!   operands below 2^-60, divisors past 2^126, raise it too.

use super::narrow::decode;
use crate::dtype::operations::Operation;
use crate::dtype::DType;

/// The body of the first pass's module over `a`, `b` into `z`.
pub(crate) const FIRST_BODY: &str = "z = nx_first(a, b);";

/// What an invocation of the first pass does after its loop: raise the flag where
/// any of its elements needs the exact kernel.
pub(crate) const FIRST_END: &str = "if (seen != 0u) { atomicOr(&nx_flag, 1u); }";

/// The helpers of the first pass of `op` over `d` (its operands `a`, `b`, `z`, bound
/// at 1, 2, 3, one `u32` of raw bits each; the flag at 4), ending in
/// `fn nx_first(a, b) -> u32`; `None` where `op` or `d` has none (`op`'s row names
/// the native operator, `-`, `*` or `/`).
pub(crate) fn first_helpers(op: Operation, d: DType) -> Option<String> {
    if d == DType::Float32 {
        return float32_helpers(op);
    }
    let (dec, round) = decode(d)?;
    let bf16 = d == DType::Bfloat16;
    let (sign, checks) = match op.row().first? {
        "-" => ("-", if bf16 { BF16_SUM_CHECKS } else { "" }.to_owned()),
        "*" => (
            "*",
            if bf16 {
                "seen = seen | select(0u, 1u, xa - 1u < 0x007fffffu || ya - 1u < 0x007fffffu || (ra < 0x0d800000u && xa != 0u && ya != 0u));".to_owned()
            } else {
                String::new()
            },
        ),
        "/" => {
            let mut c = format!("seen = seen | select(0u, 1u, ya == 0u || {round}(s | (ra - 3u)) != {round}(s | (ra + 3u)));");
            if bf16 {
                c += "\n    seen = seen | select(0u, 1u, xa - 1u < 0x007fffffu || ya - 1u < 0x007fffffu || ya >= 0x7e800000u || (ra < 0x0d800000u && xa != 0u));";
            }
            ("/", c)
        }
        _ => return None,
    };
    Some(module(
        &format!("fn nx_decode(v: u32) -> u32 {{\n    {dec}\n}}"),
        op.name(),
        sign,
        &checks,
        &format!("{round}(r)"),
    ))
}

/// Raised for a pair of float32 operands below 2^-60 that is not two zeros (sums and
/// differences of operands of 2^-60 and more are never subnormal), or a NaN result.
const F32_SUM_CHECKS: &str =
    "seen = seen | select(0u, 1u, max(xa, ya) - 1u < 0x217fffffu || ra > 0x7f800000u);";

/// Raised for a pair of bfloat16 operands (float32's range) below 2^-100 that is not
/// two zeros, whose sum or difference a device that flushes subnormals gets wrong.
const BF16_SUM_CHECKS: &str = "seen = seen | select(0u, 1u, max(xa, ya) - 1u < 0x0d7fffffu);";

/// The helpers of the first pass of add over `d` (as [`first_helpers`]'): an 8- or
/// 16-bit float, or float32 (for a device whose float32 sums are not trusted on
/// subnormals); `None` for other dtypes.
pub(crate) fn add_first_helpers(d: DType) -> Option<String> {
    if d == DType::Float32 {
        return Some(module(
            "fn nx_decode(v: u32) -> u32 {\n    return v;\n}",
            "add",
            "+",
            F32_SUM_CHECKS,
            "r",
        ));
    }
    let (dec, round) = decode(d)?;
    let checks = if d == DType::Bfloat16 {
        BF16_SUM_CHECKS
    } else {
        ""
    };
    Some(module(
        &format!("fn nx_decode(v: u32) -> u32 {{\n    {dec}\n}}"),
        "add",
        "+",
        checks,
        &format!("{round}(r)"),
    ))
}

/// The helpers of float32's first pass of `sub` or `mul`.
fn float32_helpers(op: Operation) -> Option<String> {
    let (sign, checks) = match op.row().first? {
        "-" => ("-", F32_SUM_CHECKS),
        // Products near 2^-126 (a device may flush before rounding) from nonzero
        // operands, as well as subnormal operands.
        "*" => (
            "*",
            "seen = seen | select(0u, 1u, xa - 1u < 0x007fffffu || ya - 1u < 0x007fffffu || (ra < 0x00900000u && xa != 0u && ya != 0u) || ra > 0x7f800000u);",
        ),
        _ => return None,
    };
    Some(module(
        "fn nx_decode(v: u32) -> u32 {\n    return v;\n}",
        op.name(),
        sign,
        checks,
        "r",
    ))
}

/// The first pass's helpers: the flag, `seen`, the decode `decode` (a function
/// `nx_decode`), and `nx_first`, which computes `x sign y` natively (the operation
/// `op`), raises `seen` by `checks` and returns `result` (of `r`, the float32
/// result's bits).
fn module(decode: &str, op: &str, sign: &str, checks: &str, result: &str) -> String {
    format!(
        "{}
@group(0) @binding(4) var<storage, read_write> nx_flag: atomic<u32>;

// Raised where an element of this invocation needs the exact kernel.
var<private> seen: u32 = 0u;

// The float32 bits of an element's bits `v`, exact; `seen` raised for a NaN or an
// infinity of a narrow dtype.
{decode}

// The native float32 {op} of two elements' bits, rounded once into the dtype.
fn nx_first(a: u32, b: u32) -> u32 {{
    let x = nx_decode(a);
    let y = nx_decode(b);
    let r = bitcast<u32>(bitcast<f32>(x) {sign} bitcast<f32>(y));
    let xa = x & 0x7fffffffu;
    let ya = y & 0x7fffffffu;
    let ra = r & 0x7fffffffu;
    let s = r & 0x80000000u;
    {checks}
    return {result};
}}
",
        super::narrow::convert_f32()
    )
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::wgsl::{FirstPass, Form, Kernel, Slot};

    #[test]
    fn every_first_pass_validates() {
        // The unsigned floats have none (float8_e8m0fnu's values span float32's range;
        // float8_e5m3fnu's differences may be negative).
        let unsigned = [DType::Float8E8m0fnu, DType::Float8E5m3fnu];
        for d in unsigned {
            assert!(add_first_helpers(d).is_none());
            assert!(first_helpers(Operation::Mul, d).is_none());
        }
        let narrow = DType::ALL
            .into_iter()
            .filter(|&d| super::super::narrow::is_narrow(d) && !unsigned.contains(&d));
        for d in narrow.chain([DType::Float32]) {
            let ops = [
                Some(Operation::Sub),
                Some(Operation::Mul),
                Some(Operation::Div),
                None,
            ];
            for op in ops {
                if d == DType::Float32 && op == Some(Operation::Div) {
                    continue;
                }
                let slot = |name, output| Slot {
                    name,
                    dtype: d,
                    output,
                };
                let slots = [slot("a", false), slot("b", false), slot("z", true)];
                // None: add's.
                let helpers = match op {
                    Some(op) => first_helpers(op, d),
                    None => add_first_helpers(d),
                };
                let first = FirstPass {
                    helpers: helpers.unwrap(),
                    body: FIRST_BODY,
                    end: FIRST_END,
                };
                let k = Kernel::new(slots.to_vec(), None, "")
                    .unwrap()
                    .first(Some(first));
                for at_zero in [false, true] {
                    let m = k.module(Form::First { at_zero });
                    assert!(
                        m.contains("atomicOr(&nx_flag, 1u); }\n}"),
                        "{op:?} {d}: {m}"
                    );
                    crate::wgsl::tests::validate(&m);
                }
            }
        }
        assert!(first_helpers(Operation::Maximum, DType::Float16).is_none());
        assert!(first_helpers(Operation::Div, DType::Float32).is_none());
        assert!(first_helpers(Operation::Mul, DType::Float64).is_none());
        assert!(add_first_helpers(DType::Int16).is_none());
    }
}
