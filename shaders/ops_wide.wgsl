// Wide integer arithmetic in 32-bit words, for nxrig's elementwise operations
// (shaders/ops_float.wgsl, shaders/ops_int.wgsl): a full product and an unsigned
// division of 64-bit values (vec2<u32>, low word first). shaders/convert.wgsl's
// helpers come before.

// The 64-bit product of two 32-bit words, from their 16-bit halves.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let ll = al * bl;
    let lh = al * bh;
    let hl = ah * bl;
    let mid = lh + hl;
    let mid_carry = select(0u, 0x10000u, mid < lh);
    let lo = ll + (mid << 16u);
    let lo_carry = select(0u, 1u, lo < ll);
    return vec2<u32>(lo, ah * bh + (mid >> 16u) + mid_carry + lo_carry);
}

// The 128-bit product of two 64-bit values: the low 64 bits in .xy, the high in .zw.
fn mul128(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let p00 = mul_wide(a.x, b.x);
    let p01 = mul_wide(a.x, b.y);
    let p10 = mul_wide(a.y, b.x);
    let p11 = mul_wide(a.y, b.y);
    let mid = add64(p01, p10);
    let mid_carry = select(0u, 1u, gt64(p01, mid));
    let low = add64(p00, vec2<u32>(0u, mid.x));
    let low_carry = select(0u, 1u, gt64(p00, low));
    let high = add64(add64(p11, vec2<u32>(mid.y, mid_carry)), vec2<u32>(low_carry, 0u));
    return vec4<u32>(low, high);
}

// n / d and n % d of unsigned 64-bit values (d nonzero): the quotient in .xy, the
// remainder in .zw, a bit at a time.
fn udiv64(n: vec2<u32>, d: vec2<u32>) -> vec4<u32> {
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 64u; i > 0u; i = i - 1u) {
        let carry = (r.y >> 31u) == 1u;
        r = shl64(r, 1u) | (shr64(n, i - 1u) & vec2<u32>(1u, 0u));
        q = shl64(q, 1u);
        if (carry || !gt64(d, r)) {
            r = sub64(r, d);
            q.x = q.x | 1u;
        }
    }
    return vec4<u32>(q, r);
}
