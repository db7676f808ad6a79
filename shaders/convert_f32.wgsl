// convert from float32: the common source's conversions into bfloat16, int32 and
// uint32 (and, written after this file from their formats by src/wgsl/narrow.rs, the
// other narrow floats'), in 32-bit integer arithmetic, without the 64-bit exact
// value that shaders/convert.wgsl builds for every source. The same bits as
// convert.wgsl (rounded to nearest, ties to even; floats into integers truncated and
// saturated, NaN to 0); nxrig's tests check both against the oracle vectors.

// Without a branch, as every conversion here (a CPU adapter runs each side of one).
fn f32_to_bfloat16(x: u32) -> u32 {
    let r = (x + 0x7fffu + ((x >> 16u) & 1u)) >> 16u;
    return select(r, (x >> 16u) | 0x40u, (x & 0x7fffffffu) > 0x7f800000u);
}

// |x| truncated toward zero, for |x| < 2^32 (e < 159). Without a branch (a CPU
// adapter such as SwiftShader runs both sides of each): shifts capped at 31.
fn f32_magnitude(a: u32) -> u32 {
    let e = a >> 23u;
    let m = (a & 0x7fffffu) | 0x800000u;
    let left = m << min(e - 150u, 31u);
    let right = m >> min(150u - e, 31u);
    return select(right, left, e >= 150u);
}

fn f32_to_int32(x: u32) -> u32 {
    let a = x & 0x7fffffffu;
    let neg = (x >> 31u) == 1u;
    let mag = f32_magnitude(a);
    var r = select(mag, 0u - mag, neg);
    r = select(r, select(0x7fffffffu, 0x80000000u, neg), (a >> 23u) >= 158u);
    return select(r, 0u, a > 0x7f800000u);
}

fn f32_to_uint32(x: u32) -> u32 {
    let a = x & 0x7fffffffu;
    let r = select(f32_magnitude(a), 0xffffffffu, (a >> 23u) >= 159u);
    return select(r, 0u, a > 0x7f800000u || (x >> 31u) == 1u);
}
