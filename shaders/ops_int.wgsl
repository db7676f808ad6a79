// nxrig's elementwise operations on integers of w bits (raw bits in a vec2<u32>, low
// word first; signed ones in two's complement), in 32-bit integer arithmetic:
// results wrap to w bits; division floors, as NumPy's //, and x // 0 is 0.
// shaders/convert.wgsl's helpers and shaders/ops_wide.wgsl come before.

fn wrap_i(a: vec2<u32>, w: u32) -> vec2<u32> {
    return a & mask64(w);
}

fn below_zero_i(a: vec2<u32>, w: u32, signed: bool) -> bool {
    return signed && (shr64(a, w - 1u).x & 1u) == 1u;
}

// The value's magnitude (as unsigned 64 bits).
fn magnitude_i(a: vec2<u32>, w: u32, signed: bool) -> vec2<u32> {
    let v = wrap_i(a, w);
    if (below_zero_i(v, w, signed)) { return wrap_i(neg64(v | ~mask64(w)), 64u); }
    return v;
}

// A key whose unsigned order is the integers'.
fn key_i(a: vec2<u32>, w: u32, signed: bool) -> vec2<u32> {
    let v = wrap_i(a, w);
    if (signed) { return v ^ shl64(vec2<u32>(1u, 0u), w - 1u); }
    return v;
}

fn sub_int(a: vec2<u32>, b: vec2<u32>, w: u32) -> vec2<u32> {
    return wrap_i(sub64(a, b), w);
}

fn mul_int(a: vec2<u32>, b: vec2<u32>, w: u32) -> vec2<u32> {
    if (w <= 32u) { return wrap_i(vec2<u32>(a.x * b.x, 0u), w); }
    return wrap_i(mul128(a, b).xy, w);
}

fn div_int(a: vec2<u32>, b: vec2<u32>, w: u32, signed: bool) -> vec2<u32> {
    if (is_zero64(wrap_i(b, w))) { return vec2<u32>(0u, 0u); }
    let na = below_zero_i(a, w, signed);
    let nb = below_zero_i(b, w, signed);
    let ma = magnitude_i(a, w, signed);
    let mb = magnitude_i(b, w, signed);
    var qr: vec4<u32>;
    if (w <= 32u) {
        qr = vec4<u32>(ma.x / mb.x, 0u, ma.x % mb.x, 0u);
    } else {
        qr = udiv64(ma, mb);
    }
    var q = qr.xy;
    if (na != nb) {
        q = neg64(q);
        if (!is_zero64(qr.zw)) { q = sub64(q, vec2<u32>(1u, 0u)); }
    }
    return wrap_i(q, w);
}

fn lt_int(a: vec2<u32>, b: vec2<u32>, w: u32, signed: bool) -> bool {
    return gt64(key_i(b, w, signed), key_i(a, w, signed));
}

fn eq_int(a: vec2<u32>, b: vec2<u32>, w: u32) -> bool {
    return eq64(wrap_i(a, w), wrap_i(b, w));
}

fn maximum_int(a: vec2<u32>, b: vec2<u32>, w: u32, signed: bool) -> vec2<u32> {
    return select(a, b, lt_int(a, b, w, signed));
}

fn minimum_int(a: vec2<u32>, b: vec2<u32>, w: u32, signed: bool) -> vec2<u32> {
    return select(a, b, lt_int(b, a, w, signed));
}

fn neg_int(a: vec2<u32>, w: u32) -> vec2<u32> {
    return wrap_i(neg64(a), w);
}

fn abs_int(a: vec2<u32>, w: u32, signed: bool) -> vec2<u32> {
    if (below_zero_i(a, w, signed)) { return neg_int(a, w); }
    return a;
}
