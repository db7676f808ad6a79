// convert: one element of dtype SRC into dtype DST, correctly rounded, in 32-bit
// integer arithmetic only (WebGPU has no 64-bit integers and often no f16): the same
// algorithm as nxrig's src/dtype/convert.rs. Decode into an exact value (a NaN with
// its payload, an infinity, or mant * 2^exp with a 64-bit mant), then encode into the
// target with one rounding to nearest, ties to even. The dtypes' facts are `Dt`
// values that nxrig's src/wgsl writes from the dtype table.
//
// 64-bit values are vec2<u32> (x low word, y high word); an element's raw bits are
// vec4<u32>, lowest word first (a complex value's real part, then its imaginary part).

const FIN: u32 = 0u;
const INF: u32 = 1u;
const NAN: u32 = 2u;

// Classes, as src/dtype's Class.
const FLOAT: u32 = 0u;
const SIGNED: u32 = 1u;
const UNSIGNED: u32 = 2u;
const COMPLEX: u32 = 3u;
const BOOL: u32 = 4u;

struct Num {
    kind: u32,
    neg: bool,
    mant: vec2<u32>,
    exp: i32,
}

// A format's special values, as src/dtype's Specials: IEEE's infinities and NaNs at
// the all-ones exponent; NaN only where every bit but the sign is 1 (no infinity);
// NaN only at the -0 pattern (no infinity, no -0); no sign and no zero, NaN only at
// all ones, every other pattern a power of two (fraction width 0: float8_e8m0fnu); no
// sign, NaN only at all ones, a zero and subnormals, a negative value the NaN
// (float8_e5m3fnu); no infinity and no NaN, past the largest finite the largest, a
// NaN a zero of the other sign (float4_e2m1fn).
const IEEE: u32 = 0u;
const ALL_ONES_NAN: u32 = 1u;
const NEG_ZERO_NAN: u32 = 2u;
const UNSIGNED_NO_ZERO: u32 = 3u;
const UNSIGNED_FNU: u32 = 4u;
const FINITE: u32 = 5u;

// True for a format whose every bit but the sign's set is its one NaN (of each sign
// where it has one).
fn all_ones_nan(f: Fmt) -> bool {
    return f.specials == ALL_ONES_NAN || f.specials == UNSIGNED_NO_ZERO || f.specials == UNSIGNED_FNU;
}

struct Fmt {
    e: u32,
    m: u32,
    bias: i32,
    specials: u32,
}

// A dtype's facts: its class, its bits, its float format (or a complex component's;
// a placeholder for others).
struct Dt {
    cls: u32,
    bits: u32,
    f: Fmt,
}

fn is_zero64(a: vec2<u32>) -> bool {
    return a.x == 0u && a.y == 0u;
}

fn shl64(a: vec2<u32>, s: u32) -> vec2<u32> {
    if (s == 0u) { return a; }
    if (s >= 64u) { return vec2<u32>(0u, 0u); }
    if (s >= 32u) { return vec2<u32>(0u, a.x << (s - 32u)); }
    return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}

fn shr64(a: vec2<u32>, s: u32) -> vec2<u32> {
    if (s == 0u) { return a; }
    if (s >= 64u) { return vec2<u32>(0u, 0u); }
    if (s >= 32u) { return vec2<u32>(a.y >> (s - 32u), 0u); }
    return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    let carry = select(0u, 1u, lo < a.x);
    return vec2<u32>(lo, a.y + b.y + carry);
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let borrow = select(0u, 1u, a.x < b.x);
    return vec2<u32>(a.x - b.x, a.y - b.y - borrow);
}

fn neg64(a: vec2<u32>) -> vec2<u32> {
    return sub64(vec2<u32>(0u, 0u), a);
}

fn gt64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y > b.y || (a.y == b.y && a.x > b.x);
}

fn eq64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x == b.x && a.y == b.y;
}

// (1 << n) - 1 for n in 0..=64.
fn mask64(n: u32) -> vec2<u32> {
    if (n >= 64u) { return vec2<u32>(0xffffffffu, 0xffffffffu); }
    return sub64(shl64(vec2<u32>(1u, 0u), n), vec2<u32>(1u, 0u));
}

fn bitlen64(a: vec2<u32>) -> u32 {
    if (a.y != 0u) { return 64u - countLeadingZeros(a.y); }
    return 32u - countLeadingZeros(a.x);
}

// A NaN of format f: IEEE's, an all-ones exponent with a nonzero fraction; every bit
// but the sign set (ALL_ONES_NAN, the unsigned ones); the sign bit alone (NEG_ZERO_NAN).
fn is_nan_f(a: vec2<u32>, f: Fmt) -> bool {
    let m = a & mask64(f.e + f.m);
    if (f.specials == IEEE) { return gt64(m, shl64(vec2<u32>((1u << f.e) - 1u, 0u), f.m)); }
    if (f.specials == FINITE) { return false; }
    if (all_ones_nan(f)) { return eq64(m, mask64(f.e + f.m)); }
    return is_zero64(m) && !is_zero64(a & shl64(vec2<u32>(1u, 0u), f.e + f.m));
}

fn decode_float(bits: vec2<u32>, f: Fmt) -> Num {
    let e_all = (1u << f.e) - 1u;
    // The bit above an unsigned format's is not its sign.
    let neg = (shr64(bits, f.e + f.m).x & 1u) == 1u && f.specials != UNSIGNED_NO_ZERO
        && f.specials != UNSIGNED_FNU;
    let e = shr64(bits, f.m).x & e_all;
    let fmask = mask64(f.m);
    let frac = bits & fmask;
    let magnitude = bits & mask64(f.e + f.m);
    if (f.specials == IEEE && e == e_all) {
        if (is_zero64(frac)) { return Num(INF, neg, vec2<u32>(0u, 0u), 0); }
        return Num(NAN, neg, shl64(frac, 64u - f.m), 0);
    }
    if ((all_ones_nan(f) && eq64(magnitude, mask64(f.e + f.m)))
        || (f.specials == NEG_ZERO_NAN && neg && is_zero64(magnitude))) {
        return Num(NAN, neg, vec2<u32>(0u, 0x80000000u), 0);
    }
    if (e == 0u && f.specials != UNSIGNED_NO_ZERO) {
        return Num(FIN, neg, frac, 1 - f.bias - i32(f.m));
    }
    return Num(FIN, neg, frac | shl64(vec2<u32>(1u, 0u), f.m), i32(e) - f.bias - i32(f.m));
}

// What a value past the largest finite of format f becomes (an infinity too), sign
// clear: the infinity, or the format's NaN, or its largest finite (FINITE).
fn overflow_f(f: Fmt) -> vec2<u32> {
    if (f.specials == IEEE) { return shl64(vec2<u32>((1u << f.e) - 1u, 0u), f.m); }
    if (all_ones_nan(f) || f.specials == FINITE) { return mask64(f.e + f.m); }
    return shl64(vec2<u32>(1u, 0u), f.e + f.m);
}

// The largest finite pattern of format f.
fn max_bits_f(f: Fmt) -> vec2<u32> {
    if (f.specials == NEG_ZERO_NAN || f.specials == FINITE) { return mask64(f.e + f.m); }
    return sub64(overflow_f(f), vec2<u32>(1u, 0u));
}

// x into a format of powers of two without sign or zero (UNSIGNED_NO_ZERO, fraction
// width 0): the nearest power, a tie (1.5 * 2^k) up; under the least, the least; a
// zero, a negative value, an infinity, a NaN or one rounding past the largest, the NaN.
fn encode_power(x: Num, f: Fmt) -> vec2<u32> {
    let nan = (1u << f.e) - 1u;
    if (x.kind != FIN || x.neg || is_zero64(x.mant)) { return vec2<u32>(nan, 0u); }
    let len = i32(bitlen64(x.mant));
    var up = 0;
    if (len >= 2 && (shr64(x.mant, u32(len - 2)).x & 1u) == 1u) { up = 1; }
    let field = max(x.exp + len - 1 + up + f.bias, 0);
    if (field >= i32(nan)) { return vec2<u32>(nan, 0u); }
    return vec2<u32>(u32(field), 0u);
}

fn encode_float(x: Num, f: Fmt) -> vec2<u32> {
    if (f.specials == UNSIGNED_NO_ZERO) { return encode_power(x, f); }
    // An unsigned format's NaN for a negative value (one that would round to zero too),
    // a zero of either sign its +0.
    if (f.specials == UNSIGNED_FNU && x.neg && !(x.kind == FIN && is_zero64(x.mant))) {
        return overflow_f(f);
    }
    let e_all = (1u << f.e) - 1u;
    let sign_bit = shl64(vec2<u32>(1u, 0u), f.e + f.m);
    let sign = select(vec2<u32>(0u, 0u), sign_bit, x.neg && f.specials != UNSIGNED_FNU);
    // A zero of the sign (+0 in a format without -0).
    let zero = select(sign, vec2<u32>(0u, 0u), f.specials == NEG_ZERO_NAN);
    let over = overflow_f(f);
    if (x.kind == NAN) {
        if (f.specials == IEEE) {
            return sign | over | shl64(vec2<u32>(1u, 0u), f.m - 1u) | shr64(x.mant, 64u - f.m);
        }
        // No NaN: a zero of the other sign.
        if (f.specials == FINITE) { return sign ^ sign_bit; }
        return sign | over;
    }
    if (x.kind == INF) {
        return sign | over;
    }
    if (is_zero64(x.mant)) {
        return zero;
    }
    let len = i32(bitlen64(x.mant));
    let e = x.exp + len - 1;
    let emin = 1 - f.bias;
    let emax = i32(e_all) - f.bias;
    if (e > emax) {
        return sign | over;
    }
    let ulp_exp = max(e, emin) - i32(f.m);
    let shift = ulp_exp - x.exp;
    var q: vec2<u32>;
    if (shift <= 0) {
        q = shl64(x.mant, u32(-shift));
    } else if (shift > 64) {
        q = vec2<u32>(0u, 0u);
    } else {
        let s = u32(shift);
        q = shr64(x.mant, s);
        let rem = sub64(x.mant, shl64(q, s));
        let half = shl64(vec2<u32>(1u, 0u), s - 1u);
        if (gt64(rem, half) || (eq64(rem, half) && (q.x & 1u) == 1u)) {
            q = add64(q, vec2<u32>(1u, 0u));
        }
    }
    var bits = q;
    if (e >= emin) {
        bits = add64(shl64(vec2<u32>(u32(e + f.bias - 1), 0u), f.m), q);
    }
    if (gt64(bits, max_bits_f(f))) {
        return sign | over;
    }
    if (is_zero64(bits)) {
        return zero;
    }
    return sign | bits;
}

// An integer element (w bits, raw bits in a) as an exact value; `signed` sign-extends.
fn decode_int(a: vec2<u32>, w: u32, signed: bool) -> Num {
    var v = a & mask64(w);
    var neg = false;
    if (signed && (shr64(v, w - 1u).x & 1u) == 1u) {
        v = v | ~mask64(w);
        neg = true;
        v = neg64(v);
    }
    return Num(FIN, neg, v, 0);
}

// The two's complement bits (64) of an exact integer value.
fn int_bits(x: Num) -> vec2<u32> {
    return select(x.mant, neg64(x.mant), x.neg);
}

// A float's value truncated toward zero and saturated into a w-bit integer.
fn float_to_int(x: Num, w: u32, signed: bool) -> vec2<u32> {
    if (x.kind == NAN) { return vec2<u32>(0u, 0u); }
    let top = select(w, w - 1u, signed);
    let max_mag = mask64(top);
    var sat = x.kind == INF;
    var mag = vec2<u32>(0u, 0u);
    if (!sat) {
        if (x.exp >= 0) {
            let s = u32(x.exp);
            if (s >= 64u || bitlen64(x.mant) + s > 64u) {
                sat = true;
            } else {
                mag = shl64(x.mant, s);
            }
        } else {
            mag = shr64(x.mant, u32(-x.exp));
        }
    }
    if (!x.neg) {
        if (sat || gt64(mag, max_mag)) { return max_mag; }
        return mag;
    }
    if (!signed) { return vec2<u32>(0u, 0u); }
    let min_mag = add64(max_mag, vec2<u32>(1u, 0u));
    if (sat || gt64(mag, min_mag)) { return neg64(min_mag) & mask64(w); }
    return neg64(mag) & mask64(w);
}

fn nonzero(x: Num) -> bool {
    return x.kind != FIN || !is_zero64(x.mant);
}

// One real component: `bits` of class `cls`, width `w`, format `f`, into class `dc`,
// width `dw`, format `df`.
fn convert_real(bits: vec2<u32>, cls: u32, w: u32, f: Fmt, dc: u32, dw: u32, df: Fmt) -> vec2<u32> {
    var x: Num;
    var is_int = true;
    if (cls == FLOAT || cls == COMPLEX) {
        x = decode_float(bits, f);
        is_int = false;
    } else if (cls == BOOL) {
        x = Num(FIN, false, select(vec2<u32>(0u, 0u), vec2<u32>(1u, 0u), (bits.x & 0xffu) != 0u), 0);
    } else {
        x = decode_int(bits, w, cls == SIGNED);
    }
    if (dc == BOOL) {
        return vec2<u32>(select(0u, 1u, nonzero(x)), 0u);
    }
    if (dc == SIGNED || dc == UNSIGNED) {
        if (is_int) { return int_bits(x) & mask64(dw); }
        return float_to_int(x, dw, dc == SIGNED);
    }
    return encode_float(x, df);
}

// One element of dtype s into dtype d (the facts are constants where nxrig calls it,
// one function an operand: src/wgsl/operands.rs).
fn convert(a: vec4<u32>, s: Dt, d: Dt) -> vec4<u32> {
    let sf = s.f;
    let df = d.f;
    // Real and imaginary parts of a complex source; a real source's imaginary part is 0.
    var re = a.xy;
    var im = vec2<u32>(0u, 0u);
    var sw = s.bits;
    if (s.cls == COMPLEX) {
        sw = s.bits / 2u;
        if (sw == 16u) {
            re = vec2<u32>(a.x & 0xffffu, 0u);
            im = vec2<u32>(a.x >> 16u, 0u);
        } else if (sw == 32u) {
            re = vec2<u32>(a.x, 0u);
            im = vec2<u32>(a.y, 0u);
        } else {
            re = a.xy;
            im = a.zw;
        }
    }
    var scls = s.cls;
    let dw = select(d.bits, d.bits / 2u, d.cls == COMPLEX);
    if (d.cls == BOOL && s.cls == COMPLEX) {
        let r = convert_real(re, FLOAT, sw, sf, BOOL, 8u, df).x | convert_real(im, FLOAT, sw, sf, BOOL, 8u, df).x;
        return vec4<u32>(r & 1u, 0u, 0u, 0u);
    }
    let r = convert_real(re, scls, sw, sf, select(d.cls, FLOAT, d.cls == COMPLEX), dw, df);
    if (d.cls != COMPLEX) {
        return vec4<u32>(r, 0u, 0u);
    }
    var i = vec2<u32>(0u, 0u);
    if (s.cls == COMPLEX) {
        i = convert_real(im, FLOAT, sw, sf, FLOAT, dw, df);
    }
    if (dw == 16u) {
        return vec4<u32>(r.x | (i.x << 16u), 0u, 0u, 0u);
    }
    if (dw == 32u) {
        return vec4<u32>(r.x, i.x, 0u, 0u);
    }
    return vec4<u32>(r, i);
}
