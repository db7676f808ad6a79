// float32 sums in native arithmetic on a device whose additions are exact on
// subnormals (probed when it opens); NaNs by nxrig's rule, without a branch: the
// first NaN operand quieted, inf - inf (the one NaN from no NaN operand) the positive
// quiet NaN.
fn add_f32_exact(a: u32, b: u32) -> u32 {
    let r = bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b));
    var out = select(r, 0x7fc00000u, (r & 0x7fffffffu) > 0x7f800000u);
    out = select(out, b | 0x400000u, (b & 0x7fffffffu) > 0x7f800000u);
    return select(out, a | 0x400000u, (a & 0x7fffffffu) > 0x7f800000u);
}
