// nxrig's elementwise operations on one real float component of any format f (raw
// bits in a vec2<u32>, low word first), exact in 32-bit integer arithmetic: the exact
// result rounded once to nearest, ties to even. add's NaN rule: a NaN operand gives
// that NaN quieted (a's first), a NaN made of numbers (inf - inf, 0 * inf, 0 / 0,
// inf / inf) the positive quiet NaN. Comparisons are IEEE's (a NaN is unordered,
// -0 == +0); maximum and minimum take a NaN first and order -0 below +0.
// shaders/convert.wgsl's helpers, shaders/add_float.wgsl and shaders/ops_wide.wgsl
// come before.

fn sign_f(f: Fmt) -> vec2<u32> {
    return shl64(vec2<u32>(1u, 0u), f.e + f.m);
}

fn is_zero_f(a: vec2<u32>, f: Fmt) -> bool {
    return is_zero64(a & mask64(f.e + f.m)) && f.specials != UNSIGNED_NO_ZERO;
}

fn default_nan_f(f: Fmt) -> vec2<u32> {
    return encode_float(Num(NAN, false, vec2<u32>(0u, 0u), 0), f);
}

fn sub_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {
    // A NaN b keeps its sign: the rule quiets it, as it is.
    if (is_nan_f(b, f)) { return add_float(a, b, f); }
    // An unsigned format has no -b: the negated value is added.
    if (f.specials == UNSIGNED_NO_ZERO || f.specials == UNSIGNED_FNU) {
        var y = decode_float(b, f);
        y.neg = true;
        return add_num(decode_float(a, f), y, f);
    }
    return add_float(a, neg_float(b, f), f);
}

fn mul_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {
    let x = decode_float(a, f);
    let y = decode_float(b, f);
    if (x.kind == NAN) { return encode_float(x, f); }
    if (y.kind == NAN) { return encode_float(y, f); }
    let neg = x.neg != y.neg;
    let xz = x.kind == FIN && is_zero64(x.mant);
    let yz = y.kind == FIN && is_zero64(y.mant);
    if (x.kind == INF || y.kind == INF) {
        if (xz || yz) { return default_nan_f(f); }
        return encode_float(Num(INF, neg, vec2<u32>(0u, 0u), 0), f);
    }
    if (xz || yz) { return encode_float(Num(FIN, neg, vec2<u32>(0u, 0u), 0), f); }
    // Significands brought to bit 62; the product's high 64 bits, the rest sticky.
    let xs = 63u - bitlen64(x.mant);
    let ys = 63u - bitlen64(y.mant);
    let p = mul128(shl64(x.mant, xs), shl64(y.mant, ys));
    var m = p.zw;
    if (p.x != 0u || p.y != 0u) { m.x = m.x | 1u; }
    return encode_float(Num(FIN, neg, m, x.exp - i32(xs) + y.exp - i32(ys) + 64), f);
}

fn div_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {
    let x = decode_float(a, f);
    let y = decode_float(b, f);
    if (x.kind == NAN) { return encode_float(x, f); }
    if (y.kind == NAN) { return encode_float(y, f); }
    let neg = x.neg != y.neg;
    let xz = x.kind == FIN && is_zero64(x.mant);
    let yz = y.kind == FIN && is_zero64(y.mant);
    let inf = encode_float(Num(INF, neg, vec2<u32>(0u, 0u), 0), f);
    let zero = encode_float(Num(FIN, neg, vec2<u32>(0u, 0u), 0), f);
    if (x.kind == INF) {
        if (y.kind == INF) { return default_nan_f(f); }
        return inf;
    }
    if (y.kind == INF) { return zero; }
    if (yz) {
        if (xz) { return default_nan_f(f); }
        return inf;
    }
    if (xz) { return zero; }
    // Significands brought to bit 61; 64 quotient bits, the remainder sticky.
    let xs = 62u - bitlen64(x.mant);
    let ys = 62u - bitlen64(y.mant);
    var r = shl64(x.mant, xs);
    let d = shl64(y.mant, ys);
    var q = vec2<u32>(0u, 0u);
    for (var i = 0u; i < 64u; i = i + 1u) {
        q = shl64(q, 1u);
        if (!gt64(d, r)) {
            r = sub64(r, d);
            q.x = q.x | 1u;
        }
        r = shl64(r, 1u);
    }
    if (!is_zero64(r)) { q.x = q.x | 1u; }
    return encode_float(Num(FIN, neg, q, x.exp - i32(xs) - y.exp + i32(ys) - 63), f);
}

// A key whose unsigned order is the floats' (-0 just below +0), for numbers.
fn key_f(a: vec2<u32>, f: Fmt) -> vec2<u32> {
    let s = sign_f(f);
    if (!is_zero64(a & s)) { return ~a & mask64(f.e + f.m + 1u); }
    return a | s;
}

fn lt_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> bool {
    if (is_nan_f(a, f) || is_nan_f(b, f) || (is_zero_f(a, f) && is_zero_f(b, f))) {
        return false;
    }
    return gt64(key_f(b, f), key_f(a, f));
}

fn eq_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> bool {
    if (is_nan_f(a, f) || is_nan_f(b, f)) { return false; }
    return eq64(a, b) || (is_zero_f(a, f) && is_zero_f(b, f));
}

fn le_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> bool {
    return lt_float(a, b, f) || eq_float(a, b, f);
}

fn maximum_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {
    if (is_nan_f(a, f)) { return encode_float(decode_float(a, f), f); }
    if (is_nan_f(b, f)) { return encode_float(decode_float(b, f), f); }
    if (is_zero_f(a, f) && is_zero_f(b, f)) { return a & b; }
    return select(a, b, lt_float(a, b, f));
}

fn minimum_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {
    if (is_nan_f(a, f)) { return encode_float(decode_float(a, f), f); }
    if (is_nan_f(b, f)) { return encode_float(decode_float(b, f), f); }
    if (is_zero_f(a, f) && is_zero_f(b, f)) { return a | b; }
    return select(a, b, lt_float(b, a, f));
}

// The sign bit that neg and abs flip or clear: none where the magnitude is zero in a
// format without -0 (its +0, and its NaN at the -0 pattern, stay); in an unsigned
// format, every bit a lacks (-a is then the NaN, |a| is a), none where a is its zero.
fn sign_of_f(a: vec2<u32>, f: Fmt) -> vec2<u32> {
    if ((f.specials == NEG_ZERO_NAN || f.specials == UNSIGNED_FNU) && is_zero_f(a, f)) {
        return vec2<u32>(0u, 0u);
    }
    if (f.specials == UNSIGNED_NO_ZERO || f.specials == UNSIGNED_FNU) { return ~a & mask64(f.e + f.m); }
    return sign_f(f);
}

fn neg_float(a: vec2<u32>, f: Fmt) -> vec2<u32> {
    return a ^ sign_of_f(a, f);
}

fn abs_float(a: vec2<u32>, f: Fmt) -> vec2<u32> {
    return a & ~sign_of_f(a, f);
}
