// float32 sums exact on any device that adds normal numbers correctly rounded, also one
// that flushes subnormal operands and results, without a branch. Where both operands
// are below 2^-60 they are rebuilt from their bits scaled by 2^64: every subnormal
// becomes a normal, and a sum that lands below 2^-126 is exact (a multiple of 2^-149),
// so scaling back loses nothing. Otherwise a subnormal operand is below half an ulp of
// the other, and the native sum, flushed or not, is the right one. NaNs by nxrig's
// rule: the first NaN operand quieted, inf - inf the positive quiet NaN.
// No conversion between floats and integers: on a CPU adapter (SwiftShader, lavapipe)
// one costs more than the rest of the sum; subnormals are rebuilt by subtracting
// normals instead (2^-62 (1 + m 2^-23) - 2^-62 = m 2^-85, exact).

// x * 2^64, from the bits of |x| < 2^-60.
fn scale_up(a: u32) -> f32 {
    let m = a & 0x7fffffffu;
    let sign = a & 0x80000000u;
    let c = sign | (65u << 23u);
    let sub = bitcast<u32>(bitcast<f32>(c | m) - bitcast<f32>(c)) | sign;
    return bitcast<f32>(select(a + (64u << 23u), sub, m < 0x00800000u));
}

// The bits of s * 2^-64, for s a sum of two scaled operands (zero, or a multiple of
// 2^-85 below 2^4): below 2^-62 the result is the subnormal of significand s * 2^85,
// the low bits of 2^-62 + |s| (exact).
fn scale_down(s: f32) -> u32 {
    let r = bitcast<u32>(s);
    let sub = (bitcast<u32>(abs(s) + 0x1p-62f) & 0x7fffffu) | (r & 0x80000000u);
    return select(r - (64u << 23u), sub, (r & 0x7fffffffu) < (65u << 23u));
}

fn add_f32_scaled(a: u32, b: u32) -> u32 {
    let ma = a & 0x7fffffffu;
    let mb = b & 0x7fffffffu;
    let big = bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b));
    let small = max(ma, mb) < 0x21800000u;
    var out = select(big, scale_down(scale_up(a) + scale_up(b)), small);
    // A NaN from no NaN operand is inf - inf.
    out = select(out, 0x7fc00000u, (out & 0x7fffffffu) > 0x7f800000u);
    out = select(out, b | 0x400000u, mb > 0x7f800000u);
    return select(out, a | 0x400000u, ma > 0x7f800000u);
}
