// add_float: the exact sum of two floats of any format, in 32-bit integer arithmetic.
// Shared by shaders/add_fns.wgsl (add) and nxrig's other elementwise operations
// (shaders/ops_float.wgsl: sub, and complex mul); shaders/convert.wgsl's helpers come
// before.

// The exact sum of two finite or infinite floats of format f, or a NaN, rounded once.
// Both operands are brought to a 62-bit significand; the smaller is shifted right with
// a sticky bit, which keeps the rounding of the sum exact (at least 8 guard bits).
fn add_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {
    return add_num(decode_float(a, f), decode_float(b, f), f);
}

// The exact sum of two decoded values, rounded once into format f.
fn add_num(x0: Num, y0: Num, f: Fmt) -> vec2<u32> {
    var x = x0;
    var y = y0;
    if (x.kind == NAN) { return encode_float(x, f); }
    if (y.kind == NAN) { return encode_float(y, f); }
    if (x.kind == INF || y.kind == INF) {
        if (x.kind == INF && y.kind == INF && x.neg != y.neg) {
            return encode_float(Num(NAN, false, vec2<u32>(0u, 0u), 0), f);
        }
        if (x.kind == INF) { return encode_float(x, f); }
        return encode_float(y, f);
    }
    let xz = is_zero64(x.mant);
    let yz = is_zero64(y.mant);
    if (xz && yz) {
        return encode_float(Num(FIN, x.neg && y.neg, vec2<u32>(0u, 0u), 0), f);
    }
    if (xz) { return encode_float(y, f); }
    if (yz) { return encode_float(x, f); }
    let xs = 62u - bitlen64(x.mant);
    let ys = 62u - bitlen64(y.mant);
    x = Num(FIN, x.neg, shl64(x.mant, xs), x.exp - i32(xs));
    y = Num(FIN, y.neg, shl64(y.mant, ys), y.exp - i32(ys));
    if (y.exp > x.exp) {
        let t = x;
        x = y;
        y = t;
    }
    let d = u32(x.exp - y.exp);
    var m = vec2<u32>(1u, 0u);
    if (d < 64u) {
        m = shr64(y.mant, d);
        if (!eq64(shl64(m, d), y.mant)) { m.x = m.x | 1u; }
    }
    if (x.neg == y.neg) {
        return encode_float(Num(FIN, x.neg, add64(x.mant, m), x.exp), f);
    }
    if (eq64(x.mant, m)) {
        return encode_float(Num(FIN, false, vec2<u32>(0u, 0u), 0), f);
    }
    if (gt64(x.mant, m)) {
        return encode_float(Num(FIN, x.neg, sub64(x.mant, m), x.exp), f);
    }
    return encode_float(Num(FIN, y.neg, sub64(m, x.mant), x.exp), f);
}
