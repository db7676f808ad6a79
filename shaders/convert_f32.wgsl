// convert from float32: the common source's conversions into float16, bfloat16, the
// float8s, int32 and uint32, in 32-bit integer arithmetic, without the 64-bit exact
// value that shaders/convert.wgsl builds for every source. The same bits as
// convert.wgsl (rounded to nearest, ties to even; floats into integers truncated and
// saturated, NaN to 0); nxrig's tests check both against the oracle vectors.

// round(m / 2^s) to nearest, ties to even, for s in 1..=31.
fn shr_even(m: u32, s: u32) -> u32 {
    let q = m >> s;
    let rem = m & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    return q + select(0u, 1u, rem > half || (rem == half && (q & 1u) == 1u));
}

// A float32 below the target's smallest normal, as a multiple of the target's
// smallest subnormal 2^-k: round(value * 2^k), or 0 below half of it.
fn subnormal(a: u32, k: u32) -> u32 {
    let e = a >> 23u;
    // value = m * 2^(e - 150); times 2^k is m / 2^(150 - k - e).
    let s = 150u - k - e;
    if (e == 0u || s > 24u) { return 0u; }
    return shr_even((a & 0x7fffffu) | 0x800000u, s);
}

fn f32_to_float16(x: u32) -> u32 {
    let sign = (x >> 16u) & 0x8000u;
    let a = x & 0x7fffffffu;
    if (a > 0x7f800000u) { return sign | 0x7e00u | ((a >> 13u) & 0x3ffu); }
    if (a >= 0x477ff000u) { return sign | 0x7c00u; }
    if (a >= 0x38800000u) { return sign | (((a + 0x0fffu + ((a >> 13u) & 1u)) >> 13u) - (112u << 10u)); }
    return sign | subnormal(a, 24u);
}

fn f32_to_bfloat16(x: u32) -> u32 {
    if ((x & 0x7fffffffu) > 0x7f800000u) { return (x >> 16u) | 0x40u; }
    return (x + 0x7fffu + ((x >> 16u) & 1u)) >> 16u;
}

fn f32_to_float8_e4m3(x: u32) -> u32 {
    let sign = (x >> 24u) & 0x80u;
    let a = x & 0x7fffffffu;
    if (a > 0x43e80000u) { return sign | 0x7fu; }
    if (a >= 0x3c800000u) { return sign | (((a + 0x7ffffu + ((a >> 20u) & 1u)) >> 20u) - (120u << 3u)); }
    return sign | subnormal(a, 9u);
}

fn f32_to_float8_e5m2(x: u32) -> u32 {
    let sign = (x >> 24u) & 0x80u;
    let a = x & 0x7fffffffu;
    if (a > 0x7f800000u) { return sign | 0x7eu | ((a >> 21u) & 3u); }
    if (a >= 0x47700000u) { return sign | 0x7cu; }
    if (a >= 0x38800000u) { return sign | (((a + 0xfffffu + ((a >> 21u) & 1u)) >> 21u) - (112u << 2u)); }
    return sign | subnormal(a, 16u);
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
