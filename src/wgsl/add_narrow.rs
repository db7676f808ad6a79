//! The contiguous forms of add over elements narrower than a word (8 and 16 bits):
//! the exact add a lane of each word (`shaders/flat4.wgsl`'s `one` over the word's
//! elements), and for the 8- and 16-bit floats the first pass that sums them natively
//! in float32 and raises a flag where the exact add must run
//! (`shaders/add_narrow_first.wgsl`).

use crate::dtype::DType;

const FIRST: &str = include_str!("../../shaders/add_narrow_first.wgsl");
const CONVERT_F32: &str = include_str!("../../shaders/convert_f32.wgsl");

/// `one(a, b)`'s body over the elements of `bits` in a word: `lane(x, y)` of each
/// pair of elements, its low `bits` kept, in place.
pub(crate) fn lanes(bits: u32, lane: &str) -> String {
    if bits == 32 {
        return format!("return {lane}(a, b);");
    }
    let mask = (1u64 << bits) - 1;
    let parts: Vec<String> = (0..32 / bits)
        .map(|k| {
            let s = k * bits;
            format!("(({lane}((a >> {s}u) & {mask:#x}u, (b >> {s}u) & {mask:#x}u) & {mask:#x}u) << {s}u)")
        })
        .collect();
    format!("return {};", parts.join(" | "))
}

/// The decode of `d`'s bits into float32 bits (exact), and its rounding back.
pub(crate) fn decode(d: DType) -> Option<(&'static str, &'static str)> {
    Some(match d {
        DType::Bfloat16 => (
            "seen = seen | select(0u, 1u, (v & 0x7f80u) == 0x7f80u);\n    return v << 16u;",
            "f32_to_bfloat16",
        ),
        DType::Float16 => (
            "let s = (v & 0x8000u) << 16u;\n    let e = (v >> 10u) & 0x1fu;\n    let m = v & 0x3ffu;\n    seen = seen | select(0u, 1u, e == 0x1fu);\n    // A subnormal is m * 2^-24, a normal float32 (exact: a product by a power of 2).\n    let small = bitcast<u32>(f32(m) * 5.9604644775390625e-8);\n    return s | select(((e + 112u) << 23u) | (m << 13u), small, e == 0u);",
            "f32_to_float16",
        ),
        DType::Float8E4m3 => (
            "let s = (v & 0x80u) << 24u;\n    let e = (v >> 3u) & 0xfu;\n    let m = v & 7u;\n    seen = seen | select(0u, 1u, (v & 0x7fu) == 0x7fu);\n    let small = bitcast<u32>(f32(m) * 0.001953125);\n    return s | select(((e + 120u) << 23u) | (m << 20u), small, e == 0u);",
            "f32_to_float8_e4m3",
        ),
        DType::Float8E5m2 => (
            "let s = (v & 0x80u) << 24u;\n    let e = (v >> 2u) & 0x1fu;\n    let m = v & 3u;\n    seen = seen | select(0u, 1u, e == 0x1fu);\n    let small = bitcast<u32>(f32(m) * 0.0000152587890625);\n    return s | select(((e + 112u) << 23u) | (m << 21u), small, e == 0u);",
            "f32_to_float8_e5m2",
        ),
        _ => return None,
    })
}

/// The functions of the first pass of add over `d` (an 8- or 16-bit float) and the
/// body of `one`, for `shaders/flat4.wgsl`; `None` for other dtypes.
pub(crate) fn first_parts(d: DType) -> Option<(String, String)> {
    let (dec, round) = decode(d)?;
    // Only bfloat16 reaches float32's subnormals: a pair whose larger magnitude is
    // below 2^-100 (0x0d800000) and not zero.
    let near = if d == DType::Bfloat16 {
        "let big = max(x & 0x7fffffffu, y & 0x7fffffffu);\n    seen = seen | select(0u, 1u, big - 1u < 0x0d7fffffu);"
    } else {
        ""
    };
    let functions = CONVERT_F32.to_owned()
        + "\n"
        + &FIRST
            .replace("{{DECODE}}", dec)
            .replace("{{NEAR_ZERO}}", near)
            .replace("{{ROUND}}", round);
    Some((functions, lanes(d.bits(), "add_lane")))
}
