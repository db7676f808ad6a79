// add: out = x + y elementwise, over any layouts (x and y broadcast by zero strides),
// one dtype. Floats: the exact sum rounded once to nearest, ties to even (in 32-bit
// integer arithmetic, or in a native type where nxrig's src/wgsl chose one: then only
// for normal operands and results, which native hardware rounds the same); a NaN
// operand gives that NaN quieted, x's first; inf - inf gives the positive quiet NaN.
// Integers wrap; bool is or; complex adds each part. Generated per dtype by nxrig's
// src/wgsl from the dtype table; the placeholders (a name in double braces) are filled
// there.
{{ENABLE}}
{{WALK}}

@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST_WORD}}>;
@group(0) @binding(3) var<storage, read> src2: array<u32>;

{{FACTS}}

{{CONVERT}}

// The exact sum of two finite or infinite floats of format f, or a NaN, rounded once.
// Both operands are brought to a 62-bit significand; the smaller is shifted right with
// a sticky bit, which keeps the rounding of the sum exact (at least 8 guard bits).
fn add_float(a: vec2<u32>, b: vec2<u32>, f: Fmt) -> vec2<u32> {
    var x = decode_float(a, f);
    var y = decode_float(b, f);
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

// True for a normal float (not zero, subnormal, infinite or NaN) of format f.
fn is_normal(a: vec2<u32>, f: Fmt) -> bool {
    let e = shr64(a, f.m).x & ((1u << f.e) - 1u);
    return e != 0u && e != (1u << f.e) - 1u;
}

{{ADD_REAL}}

fn add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let f = Fmt(DST_E, DST_M, DST_BIAS, DST_IEEE);
    if (DST_CLASS == FLOAT) {
        return vec4<u32>(add_real(a.xy, b.xy, f), 0u, 0u);
    }
    if (DST_CLASS == COMPLEX) {
        if (DST_BITS == 64u) {
            let re = add_real(vec2<u32>(a.x, 0u), vec2<u32>(b.x, 0u), f);
            let im = add_real(vec2<u32>(a.y, 0u), vec2<u32>(b.y, 0u), f);
            return vec4<u32>(re.x, im.x, 0u, 0u);
        }
        return vec4<u32>(add_real(a.xy, b.xy, f), add_real(a.zw, b.zw, f));
    }
    if (DST_CLASS == BOOL) {
        return vec4<u32>(select(0u, 1u, ((a.x | b.x) & 0xffu) != 0u), 0u, 0u, 0u);
    }
    {{ADD_INT}}
}

{{LOAD}}

{{STORE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = element(gid, groups);
    if (i >= params.n) {
        return;
    }
    let p = positions3(i);
    store4(p.y, add(load4(p.x), load4_y(p.z)));
}
