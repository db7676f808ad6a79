//! The contiguous forms of add over elements narrower than a word (8 and 16 bits):
//! the exact add a lane of each word (`shaders/flat4.wgsl`'s `one` over the word's
//! elements), and for the 8- and 16-bit floats the first pass that sums them natively
//! in float32 and raises a flag where the exact add must run
//! (`shaders/add_narrow_first.wgsl`).

use crate::dtype::DType;

const FIRST: &str = include_str!("../../shaders/add_narrow_first.wgsl");

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

/// The functions of the first pass of add over `d` (an 8- or 16-bit float) and the
/// body of `one`, for `shaders/flat4.wgsl`; `None` for other dtypes.
pub(crate) fn first_parts(d: DType) -> Option<(String, String)> {
    let (dec, round) = super::narrow::decode(d)?;
    // Only bfloat16 reaches float32's subnormals: a pair whose larger magnitude is
    // below 2^-100 (0x0d800000) and not zero.
    let near = if d == DType::Bfloat16 {
        "let big = max(x & 0x7fffffffu, y & 0x7fffffffu);\n    seen = seen | select(0u, 1u, big - 1u < 0x0d7fffffu);"
    } else {
        ""
    };
    let functions = super::narrow::convert_f32().to_owned()
        + "\n"
        + &FIRST
            .replace("{{DECODE}}", &dec)
            .replace("{{NEAR_ZERO}}", near)
            .replace("{{ROUND}}", &round);
    Some((functions, lanes(d.bits(), "add_lane")))
}
