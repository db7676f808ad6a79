//! The narrow floats (every float dtype under 32 bits) to and from float32 bits in
//! WGSL, written from each one's format in the dtype table: `f32_to_<name>` rounds a
//! float32 once into the dtype (the short path of a cast from float32, and the rounding
//! back of the first passes), and [`decode`] reads the dtype's bits as float32 bits,
//! exactly. bfloat16, float32's exponent with a shorter fraction, has its own short
//! lines in `shaders/convert_f32.wgsl`.

use std::sync::LazyLock;

use crate::dtype::{Class, DType, FloatFormat, Specials};

const CONVERT_F32: &str = include_str!("../../shaders/convert_f32.wgsl");

/// The narrow floats written from their format: every float under 32 bits but
/// bfloat16.
fn by_format() -> impl Iterator<Item = (DType, FloatFormat)> {
    DType::ALL
        .into_iter()
        .filter(|&d| is_narrow(d) && d != DType::Bfloat16)
        .map(|d| (d, d.float_format().expect("a float has a format")))
}

/// Whether `d` is a float narrower than float32 (its `f32_to_<name>` exists).
pub(crate) fn is_narrow(d: DType) -> bool {
    d.class() == Class::Float && d.bits() < 32
}

/// The float32 bits of 2^`e` (a normal float32: -126 <= e <= 127), as a WGSL `f32`.
fn pow2(e: i32) -> String {
    format!("bitcast<f32>({:#x}u)", ((e + 127) as u32) << 23)
}

/// `f32_to_<name>(x: u32) -> u32`: float32 bits into `d`'s, rounded to nearest, ties to
/// even; beyond the largest finite, infinity where the format has one, else its NaN,
/// else (float4_e2m1fn) the largest finite.
/// An unsigned format of powers of two: [`power_encoder`].
///
/// Without a branch: a CPU adapter (SwiftShader, lavapipe) runs every side of each on
/// its vector lanes. A normal result and a subnormal one are one rounding, a right
/// shift to nearest, ties to even (`(v + half - 1 + lsb) >> s`, exact while
/// `v + 2^30` fits 32 bits): a normal's float32 magnitude by the fraction bits dropped,
/// then rebiased; a subnormal's significand (the implicit bit set) by `150 - k - e`, a
/// multiple of the least subnormal `2^-k` (31 at most: 0 for every float32 under half
/// of it, float32's subnormals too). The specials are selected over it, the first rule
/// of [`crate::dtype::convert`] last. On SwiftShader a kernel of bfloat16 -> float16
/// over 16 MiB took 73 ms with the branches and the subnormal rounded apart, 47 ms
/// this way (nxrig's cast 88 -> 60 ms).
fn encoder(d: DType, f: FloatFormat) -> String {
    let m = f.fraction_bits;
    let fmask = (1u32 << m) - 1;
    let drop = 23 - m;
    let (limit, min_normal) = crate::dtype::fast::narrow_bounds(f);
    // What overflow gives (the infinity, or the NaN); the least subnormal is 2^-k
    // (float32's subnormals, e = 0, shift by 150 - k: at least 25, a test says).
    let (over, k) = (f.overflow(false), subnormal_step(f));
    // The specials over `r` (the finite result's magnitude): the last select is the
    // first rule.
    let special = match f.specials {
        Specials::Ieee => format!(
            "    r = sign | select(r, {over:#x}u, a >= {limit:#x}u);
    return select(r, sign | {:#x}u | ((a >> {drop}u) & {fmask:#x}u), a > 0x7f800000u);
",
            over | (1 << (m - 1)),
        ),
        // The largest finite is even: its midpoint with the NaN rounds to it.
        Specials::AllOnesNan => format!(
            "    return sign | select(r, {over:#x}u, a > {limit:#x}u);
"
        ),
        // The largest finite is odd: its midpoint rounds to the NaN, the -0 pattern;
        // a zero is +0 (a normal result is never 0).
        Specials::NegZeroNan => format!(
            "    return select(select(sign | r, 0u, r == 0u), {over:#x}u, a >= {limit:#x}u);
"
        ),
        // No sign: a negative value's bits (the sign's up) are past `limit`, all but
        // -0's, which is +0; the sign is then 0.
        Specials::Unsigned => format!(
            "    return select(select(sign | r, {over:#x}u, x > {limit:#x}u), 0u, x == 0x80000000u);
"
        ),
        // No infinity or NaN: past the largest finite, the largest of the sign; a NaN
        // a zero of the other sign (ml_dtypes').
        Specials::Finite => format!(
            "    r = sign | select(r, {over:#x}u, a >= {limit:#x}u);
    return select(r, sign ^ {:#x}u, a > 0x7f800000u);
",
            1u32 << (f.bits() - 1),
        ),
        Specials::UnsignedNoZero => return power_encoder(d, f),
    };
    format!(
        "fn f32_to_{name}(x: u32) -> u32 {{
    let sign = (x >> {sign_shift}u) & {sign:#x}u;
    let a = x & 0x7fffffffu;
    let sub = a < {min_normal:#x}u;
    let s = select({drop}u, min({sub_shift}u - (a >> 23u), 31u), sub);
    let v = select(a, (a & 0x7fffffu) | 0x800000u, sub);
    var r = ((v + ((1u << (s - 1u)) - 1u) + ((v >> s) & 1u)) >> s) - select({rebias}u << {m}u, 0u, sub);
{special}}}
",
        name = d.name(),
        sign_shift = 32 - f.bits(),
        sign = 1u32 << (f.bits() - 1),
        sub_shift = 150 - k,
        rebias = 127 - f.bias,
    )
}

/// `k` of a format's least subnormal, `2^-k`.
fn subnormal_step(f: FloatFormat) -> i32 {
    f.bias - 1 + f.fraction_bits as i32
}

/// `f32_to_<name>` of a format of powers of two without sign or zero (fraction width 0,
/// float8_e8m0fnu): zeros, negative values (every bit pattern from the sign's up),
/// infinities, NaNs and values from the midpoint of the largest power and the next
/// give the NaN; values under the midpoint of the least and the next, the least;
/// others half an exponent step added (a tie up) and rebiased.
fn power_encoder(d: DType, f: FloatFormat) -> String {
    let (limit, _) = crate::dtype::fast::narrow_bounds(f);
    let least_mid = crate::dtype::fast::power_least_mid(f);
    format!(
        "fn f32_to_{name}(x: u32) -> u32 {{
    let r = select(((x + 0x400000u) >> 23u) - {rebias}u, 0u, x < {least_mid:#x}u);
    return select(r, {nan:#x}u, x == 0u || x >= {limit:#x}u);
}}
",
        name = d.name(),
        nan = f.overflow(false),
        rebias = 127 - f.bias,
    )
}

/// `shaders/convert_f32.wgsl` with the `f32_to_<name>` of every narrow float.
pub(crate) fn convert_f32() -> &'static str {
    static TEXT: LazyLock<String> = LazyLock::new(|| {
        let mut s = CONVERT_F32.to_owned();
        for (d, f) in by_format() {
            s.push('\n');
            s.push_str(&encoder(d, f));
        }
        s
    });
    &TEXT
}

/// The body of a function of `v` (a narrow float's bits) that returns them as float32
/// bits, exactly, and raises `seen` where `v` is an infinity or a NaN; and the name of
/// the rounding back (`f32_to_<name>`). `None` for a dtype that is not a narrow float,
/// and for an unsigned one (float8_e8m0fnu, whose values span float32's range: a
/// device may flush its least, 2^-127, and products of two underflow float32;
/// float8_e5m3fnu, whose differences may be negative, which its encoder makes NaN: its
/// operations go the exact way, as e8m0's).
pub(crate) fn decode(d: DType) -> Option<(String, String)> {
    if !is_narrow(d) || d.float_format().is_some_and(|f| !f.signed()) {
        return None;
    }
    if d == DType::Bfloat16 {
        return Some((
            "seen = seen | select(0u, 1u, (v & 0x7f80u) == 0x7f80u);\n    return v << 16u;".into(),
            "f32_to_bfloat16".into(),
        ));
    }
    let f = d.float_format()?;
    let (m, e) = (f.fraction_bits, f.exponent_bits);
    let emask = (1u32 << e) - 1;
    let fmask = (1u32 << m) - 1;
    let sign = 1u32 << (f.bits() - 1);
    // The patterns of infinities and NaNs, which raise `seen`.
    let special = match f.specials {
        Specials::Ieee => format!("e == {emask:#x}u"),
        Specials::AllOnesNan => format!("(v & {:#x}u) == {:#x}u", sign - 1, (emask << m) | fmask),
        Specials::NegZeroNan => format!("v == {sign:#x}u"),
        Specials::Finite => "false".into(),
        // Not reached: `None` above.
        Specials::UnsignedNoZero | Specials::Unsigned => format!("v == {:#x}u", f.overflow(false)),
    };
    let body = format!(
        "let s = (v & {sign:#x}u) << {}u;
    let e = (v >> {m}u) & {emask:#x}u;
    let m = v & {fmask:#x}u;
    seen = seen | select(0u, 1u, {special});
    // A subnormal is m * 2^{sub}, a normal float32 (exact: a product by a power of 2).
    let small = bitcast<u32>(f32(m) * {});
    return s | select(((e + {}u) << 23u) | (m << {}u), small, e == 0u);",
        32 - f.bits(),
        pow2(1 - f.bias - m as i32),
        127 - f.bias,
        23 - m,
        sub = 1 - f.bias - m as i32,
    );
    Some((body, format!("f32_to_{}", d.name())))
}

/// The body of a function of `v` (a signed narrow float's bits) that returns the
/// float32 bits of its exact value, its specials included: an infinity as float32's,
/// an IEEE NaN with its payload in float32's high fraction bits (quieted by the
/// rounding that follows), a format's one NaN as the quiet NaN of its sign (the dtype
/// table's rule: `dtype::convert`). A cast from such a dtype into float32, or into a
/// dtype with an `f32_to_<name>`, is then one rounding in 32-bit integers (and one
/// exact product for a subnormal, a normal float32), not `convert.wgsl`'s general
/// path. `None` for a dtype that is not a signed narrow float.
pub(crate) fn exact_f32(d: DType) -> Option<String> {
    if !is_narrow(d) {
        return None;
    }
    if d == DType::Bfloat16 {
        return Some("return v << 16u;".into());
    }
    let f = d.float_format()?;
    if !f.signed() {
        return None;
    }
    let (m, e) = (f.fraction_bits, f.exponent_bits);
    let emask = (1u32 << e) - 1;
    let fmask = (1u32 << m) - 1;
    let sign = 1u32 << (f.bits() - 1);
    let special = match f.specials {
        Specials::Ieee => format!(
            "select(fin, s | 0x7f800000u | (m << {}u), e == {emask:#x}u)",
            23 - m
        ),
        Specials::AllOnesNan => format!(
            "select(fin, s | 0x7fc00000u, (v & {:#x}u) == {:#x}u)",
            sign - 1,
            (emask << m) | fmask
        ),
        Specials::NegZeroNan => format!("select(fin, 0xffc00000u, v == {sign:#x}u)"),
        Specials::Finite => "fin".into(),
        Specials::UnsignedNoZero | Specials::Unsigned => return None,
    };
    Some(format!(
        "let s = (v & {sign:#x}u) << {}u;
    let e = (v >> {m}u) & {emask:#x}u;
    let m = v & {fmask:#x}u;
    let small = bitcast<u32>(f32(m) * {});
    let fin = s | select(((e + {}u) << 23u) | (m << {}u), small, e == 0u);
    return {special};",
        32 - f.bits(),
        pow2(1 - f.bias - m as i32),
        127 - f.bias,
        23 - m,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The formats' lines equal the ones written by hand before (the constants of
    /// float16 and the float8s): a check of the formulas on known values.
    #[test]
    fn the_encoders_have_the_known_constants() {
        let all = convert_f32();
        assert!(all.contains("r = sign | select(r, 0x7c00u, a >= 0x477ff000u);"));
        assert!(all.contains("let sub = a < 0x38800000u;"));
        assert!(all.contains("let s = select(13u, min(126u - (a >> 23u), 31u), sub);"));
        assert!(all.contains("- select(112u << 10u, 0u, sub);"));
        assert!(all.contains("return sign | select(r, 0x7fu, a > 0x43e80000u);"));
        assert!(all.contains("let s = select(20u, min(141u - (a >> 23u), 31u), sub);"));
        assert!(all.contains("- select(120u << 3u, 0u, sub);"));
        assert!(
            all.contains("return select(r, sign | 0x7eu | ((a >> 21u) & 0x3u), a > 0x7f800000u);")
        );
        assert!(all.contains("r = sign | select(r, 0x7cu, a >= 0x47700000u);"));
        assert!(all.contains("let s = select(21u, min(134u - (a >> 23u), 31u), sub);"));
        // float32's subnormals, whose implicit bit the encoder sets as a normal's,
        // shift past the significand: 0 whatever their bits.
        for (d, f) in by_format().filter(|(_, f)| f.specials != Specials::UnsignedNoZero) {
            assert!(150 - subnormal_step(f) >= 25, "{d}");
        }
        let (e4m3, _) = decode(DType::Float8E4m3fn).unwrap();
        assert!(e4m3.contains("(v & 0x7fu) == 0x7fu"));
        assert!(e4m3.contains(&format!("f32(m) * {}", pow2(-9))));
        assert!(e4m3.contains("((e + 120u) << 23u) | (m << 20u)"));
    }
}
