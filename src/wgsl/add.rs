//! The add kernel's functions (`shaders/add_fns.wgsl` over `shaders/convert.wgsl`'s
//! helpers), one set a dtype and choice of native types, the dtype facts filled in
//! from the dtype table; its first pass is `first_pass.rs`'s.

use super::facts::facts;
use super::first_pass::{add_first_helpers, FIRST_BODY, FIRST_END};
use super::kernel::{abz, FirstPass, Kernel};
use super::native::Native;
use crate::dtype::{Class, DType};

const F32_EXACT: &str = include_str!("../../shaders/add_f32_exact.wgsl");
const ADD_FNS: &str = include_str!("../../shaders/add_fns.wgsl");
/// `add_float`, the exact sum of two floats of any format (`shaders/add_float.wgsl`).
pub(crate) const ADD_FLOAT: &str = include_str!("../../shaders/add_float.wgsl");
const F32_SCALED: &str = include_str!("../../shaders/add_f32_scaled.wgsl");

/// `add_real`: one real component's sum, natively where `native` says so; else exactly
/// in integers (`add_small` for signed components of 32 bits or fewer, `add_float`
/// where `wide`: for 64 bits, and for an unsigned format, which `add_small` does not
/// know).
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

/// `add_int`: the sum of two elements of an integer dtype `d` (wrapping); for another
/// dtype, which `add` does not call it for, `a`.
fn add_int(d: DType, native: Native) -> String {
    let head = "fn add_int(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {\n    ";
    format!("{head}{}\n}}", add_int_return(d, native))
}

/// `add_int`'s return statement.
fn add_int_return(d: DType, native: Native) -> String {
    if !matches!(d.class(), Class::Signed | Class::Unsigned) {
        return "return a;".into();
    }
    match d.packed_bits() {
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

/// The kernel of add over `d` on raw bits (`z = a + b`) on a device with `device`'s
/// native types: those of them `d` needs ([`Native::for_dtype`]); for the 8- and
/// 16-bit floats (where the device has float32), and float32 where the device's sums
/// are not trusted on subnormals, the native float32 sums first, the exact kernel
/// only over pieces that need it (`first_pass.rs`); wider elements' group in a loop.
pub(crate) fn add_kernel(d: DType, device: Native) -> Kernel<'static> {
    let native = device.for_dtype(d);
    let narrow = device.f32 && d.is_float() && matches!(d.bits(), 8 | 16);
    let f32_first = d == DType::Float32 && native.f32 && !native.f32_exact;
    let first = (narrow || f32_first)
        .then(|| add_first_helpers(d))
        .flatten()
        .map(|helpers| FirstPass {
            helpers,
            body: FIRST_BODY,
            end: FIRST_END,
        });
    let k = Kernel::new(abz(&[d, d, d]), None, "z = add(a, b);")
        .expect("three operands")
        .helpers(add_fns(d, native))
        .enable(enable(native))
        .first(first);
    if d.bits() > 32 {
        k.looped()
    } else {
        k
    }
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
/// `vec4<u32>` raw bits), with `native` narrowed to `d`; over `shaders/convert.wgsl`'s
/// helpers, which every generated module has.
fn add_fns(d: DType, native: Native) -> String {
    let words64 = if native.int64 { WORDS64 } else { "" };
    let unsigned = d.float_format().is_some_and(|f| !f.signed());
    let real = add_real(
        native,
        unsigned || matches!(d, DType::Float64 | DType::Complex128),
    );
    [
        &facts("SRC", d),
        &facts("DST", d),
        ADD_FLOAT,
        ADD_FNS,
        words64,
        &real,
        &add_int(d, native),
    ]
    .join("\n")
}
