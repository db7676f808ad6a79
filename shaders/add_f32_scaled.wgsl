// float32 sums exact on any device that adds normal numbers correctly rounded, also one
// that flushes subnormal operands and results, without a branch. Where both operands
// are below 2^-60 they are rebuilt from their bits scaled by 2^64: every subnormal
// becomes a normal, and a sum that lands below 2^-126 is exact (a multiple of 2^-149),
// so scaling back loses nothing. Otherwise a subnormal operand is below half an ulp of
// the other, and the native sum, flushed or not, is the right one. NaNs by nxrig's
// rule: the first NaN operand quieted, inf - inf the positive quiet NaN.

// x * 2^64, from the bits of |x| < 2^-60.
fn scale_up(a: u32) -> f32 {
    let m = a & 0x7fffffffu;
    let normal = bitcast<f32>(a + (64u << 23u));
    let sub = bitcast<f32>(bitcast<u32>(f32(m) * 0x1p-85f) | (a & 0x80000000u));
    return select(normal, sub, m < 0x00800000u);
}

// The bits of s * 2^-64, for s a sum of two scaled operands (zero, or at least 2^-85).
fn scale_down(s: u32) -> u32 {
    let e = (s >> 23u) & 0xffu;
    let sub = (s & 0x80000000u) | (((s & 0x7fffffu) | 0x800000u) >> (65u - min(e, 64u)));
    let r = select(sub, s - (64u << 23u), e > 64u);
    return select(r, s, (s & 0x7fffffffu) == 0u);
}

fn add_f32_scaled(a: u32, b: u32) -> u32 {
    let ma = a & 0x7fffffffu;
    let mb = b & 0x7fffffffu;
    let big = bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b));
    let small = ma < 0x21800000u && mb < 0x21800000u;
    let scaled = scale_down(bitcast<u32>(scale_up(a) + scale_up(b)));
    var out = select(big, scaled, small);
    let inf_inf = ma == 0x7f800000u && mb == 0x7f800000u && a != b;
    out = select(out, 0x7fc00000u, inf_inf);
    out = select(out, b | 0x400000u, mb > 0x7f800000u);
    return select(out, a | 0x400000u, ma > 0x7f800000u);
}
