// The add kernel's functions: one element of a dtype plus another, exact. nxrig's
// src/wgsl/add.rs writes the rest of the module from the dtype table: the facts
// (DST_*), add_real (one real component's sum) and add_int (an integer's, wrapping);
// shaders/convert.wgsl and shaders/add_float.wgsl come with them.

// Encodes +-m * 2^u (m > 0) into format f (at most 32 bits wide), rounded once to
// nearest, ties to even; overflow gives infinity (NaN for a format without one, the
// largest finite for one without either), a zero +0 in a format without -0.
fn encode_small(neg: bool, m: u32, u: i32, f: Fmt) -> u32 {
    let e_all = (1u << f.e) - 1u;
    let sign_bit = 1u << (f.e + f.m);
    let sign = select(0u, sign_bit, neg);
    let over = overflow_f(f).x;
    let e = u + i32(31u - countLeadingZeros(m));
    let emin = 1 - f.bias;
    if (e > i32(e_all) - f.bias) { return sign | over; }
    let shift = max(e, emin) - i32(f.m) - u;
    var q: u32;
    if (shift <= 0) {
        q = m << u32(-shift);
    } else if (shift >= 32) {
        q = select(0u, 1u, shift == 32 && m > 0x80000000u);
    } else {
        let s = u32(shift);
        q = m >> s;
        let rem = m & ((1u << s) - 1u);
        let half = 1u << (s - 1u);
        q = q + select(0u, 1u, rem > half || (rem == half && (q & 1u) == 1u));
    }
    var bits = q;
    if (e >= emin) { bits = (u32(e + f.bias - 1) << f.m) + q; }
    if (bits > max_bits_f(f).x) { return sign | over; }
    if (bits == 0u && f.specials == NEG_ZERO_NAN) { return 0u; }
    return sign | bits;
}

// add_float for formats at most 32 bits wide (f.m <= 23), in 32-bit arithmetic only:
// significands brought to bit 30 (at least 7 guard bits), the smaller shifted right
// with a sticky bit. The same bits as add_float, far fewer operations.
fn add_small(a: u32, b: u32, f: Fmt) -> u32 {
    let e_all = (1u << f.e) - 1u;
    let fmask = (1u << f.m) - 1u;
    let sign_bit = 1u << (f.e + f.m);
    let ea = (a >> f.m) & e_all;
    let eb = (b >> f.m) & e_all;
    let fa = a & fmask;
    let fb = b & fmask;
    let quiet = select(0u, 1u << (f.m - 1u), f.specials == IEEE);
    if (is_nan_f(vec2<u32>(a, 0u), f)) { return a | quiet; }
    if (is_nan_f(vec2<u32>(b, 0u), f)) { return b | quiet; }
    let inf_a = f.specials == IEEE && ea == e_all;
    let inf_b = f.specials == IEEE && eb == e_all;
    if (inf_a || inf_b) {
        if (inf_a && inf_b && (a & sign_bit) != (b & sign_bit)) { return (e_all << f.m) | quiet; }
        return select(b, a, inf_a);
    }
    var ma = select(fa | (1u << f.m), fa, ea == 0u);
    var mb = select(fb | (1u << f.m), fb, eb == 0u);
    var na = (a & sign_bit) != 0u;
    var nb = (b & sign_bit) != 0u;
    if (ma == 0u && mb == 0u) { return select(0u, sign_bit, na && nb); }
    if (ma == 0u) { return b; }
    if (mb == 0u) { return a; }
    // value = m * 2^(x - bias - f.m), x the biased exponent (1 for subnormals).
    let sa = countLeadingZeros(ma) - 1u;
    let sb = countLeadingZeros(mb) - 1u;
    var xa = i32(max(ea, 1u)) - i32(sa);
    var xb = i32(max(eb, 1u)) - i32(sb);
    ma = ma << sa;
    mb = mb << sb;
    if (xb > xa) {
        let tm = ma; ma = mb; mb = tm;
        let tx = xa; xa = xb; xb = tx;
        let tn = na; na = nb; nb = tn;
    }
    let d = u32(xa - xb);
    var m2 = 1u;
    if (d < 31u) {
        m2 = mb >> d;
        if ((m2 << d) != mb) { m2 = m2 | 1u; }
    }
    let u = xa - f.bias - i32(f.m);
    if (na == nb) { return encode_small(na, ma + m2, u, f); }
    if (ma == m2) { return 0u; }
    if (ma > m2) { return encode_small(na, ma - m2, u, f); }
    return encode_small(nb, m2 - ma, u, f);
}

// True for a normal float (not zero, subnormal, infinite or NaN) of format f.
fn is_normal(a: vec2<u32>, f: Fmt) -> bool {
    let e = shr64(a, f.m).x & ((1u << f.e) - 1u);
    return e != 0u && e != (1u << f.e) - 1u;
}

fn add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let f = Fmt(DST_E, DST_M, DST_BIAS, DST_SPECIALS);
    if (DST_CLASS == FLOAT) {
        return vec4<u32>(add_real(a.xy, b.xy, f), 0u, 0u);
    }
    if (DST_CLASS == COMPLEX) {
        if (DST_BITS == 32u) {
            let re = add_real(vec2<u32>(a.x & 0xffffu, 0u), vec2<u32>(b.x & 0xffffu, 0u), f);
            let im = add_real(vec2<u32>(a.x >> 16u, 0u), vec2<u32>(b.x >> 16u, 0u), f);
            return vec4<u32>(re.x | (im.x << 16u), 0u, 0u, 0u);
        }
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
    return add_int(a, b);
}
