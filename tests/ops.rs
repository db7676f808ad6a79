//! The elementwise operations besides add (`sub`, `mul`, `div`, `maximum`, `minimum`,
//! `neg`, `abs`, the comparisons, `select`) on every device, over every dtype each
//! takes: every pair of a set of special values (zeros of both signs, subnormals, the
//! extremes, infinities, NaNs with payloads and signs; integers' MIN, MAX, -1),
//! through a broadcast and a flipped layout, against an oracle of exact arithmetic
//! (float64, correctly rounded, then one rounding by the `half` crate's values, a
//! search over every float8 pattern, or `as f32`; integers in i128) with `add`'s NaN
//! rule written out; the refusals.

use half::{bf16, f16};
use nxrig::dtype::Class;
use nxrig::kernels as k;
use nxrig::{AnyArray, Array, DType, Move};

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::On;

#[path = "common/rounding.rs"]
mod rounding;
use rounding::{f8_nearest, f8_of, f8_value, nearest16};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Sub,
    Mul,
    Div,
    Maximum,
    Minimum,
    Neg,
    Abs,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Whether dtype `d` takes `op` (docs/numerics.md).
fn takes(op: Op, d: DType) -> bool {
    match d.class() {
        Class::Bool => !matches!(op, Op::Sub | Op::Div | Op::Neg),
        Class::Complex => matches!(op, Op::Sub | Op::Mul | Op::Neg | Op::Eq | Op::Ne),
        _ => true,
    }
}

fn run(op: Op, x: &AnyArray, y: &AnyArray) -> nxrig::Result<AnyArray> {
    match op {
        Op::Sub => k::sub(x, y),
        Op::Mul => k::mul(x, y),
        Op::Div => k::div(x, y),
        Op::Maximum => k::maximum(x, y),
        Op::Minimum => k::minimum(x, y),
        Op::Neg => k::neg(x),
        Op::Abs => k::abs(x),
        Op::Eq => k::eq(x, y),
        Op::Ne => k::ne(x, y),
        Op::Lt => k::lt(x, y),
        Op::Le => k::le(x, y),
        Op::Gt => k::gt(x, y),
        Op::Ge => k::ge(x, y),
    }
}

/// A real float format's facts: sign bit, quiet bit (0 where NaN is one pattern),
/// the positive quiet NaN.
fn nan_facts(d: DType) -> (u128, u128, u128) {
    if let Some(f) = f8_of(d) {
        return (f.sign() as u128, f.quiet_bit() as u128, f.nan() as u128);
    }
    match d {
        DType::Float16 => (0x8000, 0x200, 0x7e00),
        DType::Bfloat16 => (0x8000, 0x40, 0x7fc0),
        DType::Float32 => (0x8000_0000, 0x40_0000, 0x7fc0_0000),
        _ => (1 << 63, 1 << 51, 0x7ff8 << 48),
    }
}

/// The value of a real float's bits.
fn value(d: DType, a: u128) -> f64 {
    match d {
        DType::Float16 => f16::from_bits(a as u16).to_f64(),
        DType::Bfloat16 => bf16::from_bits(a as u16).to_f64(),
        d if f8_of(d).is_some() => f8_value(a as u8, f8_of(d).unwrap()),
        DType::Float32 => f32::from_bits(a as u32) as f64,
        _ => f64::from_bits(a as u64),
    }
}

/// `x` (a float64 correctly rounded from the exact result) rounded once into `d`.
fn round(d: DType, x: f64) -> u128 {
    match d {
        DType::Float16 => nearest16(x, false) as u128,
        DType::Bfloat16 => nearest16(x, true) as u128,
        d if f8_of(d).is_some() => f8_nearest(x, f8_of(d).unwrap()) as u128,
        DType::Float32 => (x as f32).to_bits() as u128,
        _ => x.to_bits() as u128,
    }
}

/// `op` on two real floats' bits, into `d`'s bits (or 0/1 for a comparison).
fn float_oracle(op: Op, d: DType, a: u128, b: u128) -> u128 {
    let (sign, quiet_bit, default_nan) = nan_facts(d);
    let (x, y) = (value(d, a), value(d, b));
    let quiet = |p: u128| p | quiet_bit;
    let nan_rule = || {
        if x.is_nan() {
            Some(quiet(a))
        } else if y.is_nan() {
            Some(quiet(b))
        } else {
            None
        }
    };
    let arith = |r: f64| nan_rule().unwrap_or(if r.is_nan() { default_nan } else { round(d, r) });
    match op {
        Op::Sub => arith(x - y),
        Op::Mul => arith(x * y),
        Op::Div => arith(x / y),
        Op::Maximum | Op::Minimum => nan_rule().unwrap_or_else(|| {
            let max = op == Op::Maximum;
            if x == 0.0 && y == 0.0 {
                // -0 below +0.
                let neg = |v: f64| v.is_sign_negative();
                let pick_neg = if max {
                    neg(x) && neg(y)
                } else {
                    neg(x) || neg(y)
                };
                return if pick_neg { sign } else { 0 };
            }
            if (x > y) == max {
                a
            } else {
                b
            }
        }),
        // A "fnuz" format has no -0 (its NaN is the -0 pattern), an unsigned one no
        // sign (a negative value is its NaN): by value.
        Op::Neg | Op::Abs if f8_of(d).is_some_and(|f| f.fnuz || f.unsigned || f.fnu) => {
            if x.is_nan() {
                a
            } else {
                round(d, if op == Op::Neg { -x } else { x.abs() })
            }
        }
        Op::Neg => a ^ sign,
        Op::Abs => a & !sign,
        Op::Eq => (x == y) as u128,
        Op::Ne => (x != y) as u128,
        Op::Lt => (x < y) as u128,
        Op::Le => (x <= y) as u128,
        Op::Gt => (x > y) as u128,
        Op::Ge => (x >= y) as u128,
    }
}

/// floor(a / b) by its definition: the greatest q with q * b <= a (b > 0) or
/// q * b >= a (b < 0).
fn floor_div(a: i128, b: i128) -> i128 {
    let mut q = a / b;
    while (b > 0 && q * b > a) || (b < 0 && q * b < a) {
        q -= 1;
    }
    q
}

/// The dtype of a complex dtype's parts.
fn part(d: DType) -> DType {
    match d {
        DType::Complex32 => DType::Float16,
        DType::Bcomplex32 => DType::Bfloat16,
        DType::Complex64 => DType::Float32,
        _ => DType::Float64,
    }
}

/// `op` on two elements' bits of dtype `d`.
fn oracle(op: Op, d: DType, a: u128, b: u128) -> u128 {
    match d.class() {
        Class::Float => float_oracle(op, d, a, b),
        Class::Complex if op == Op::Mul && d.bits() == 32 => {
            // complex32 and bcomplex32 multiply as complex64 (ml_dtypes' meaning), each
            // part then rounded once: the parts widened exactly, complex64's product, its
            // parts narrowed (a NaN keeps its sign and top payload bits, quieted).
            let p = part(d);
            let bf = p == DType::Bfloat16;
            let widen = |h: u128| -> u128 {
                if bf {
                    h << 16
                } else if value(p, h).is_nan() {
                    (h & 0x8000) << 16 | 0x7f80_0000 | (h & 0x3ff) << 13
                } else {
                    (value(p, h) as f32).to_bits() as u128
                }
            };
            let narrow = |w: u128| -> u128 {
                if !f32::from_bits(w as u32).is_nan() {
                    round(p, f32::from_bits(w as u32) as f64)
                } else if bf {
                    w >> 16 | 0x40
                } else {
                    (w >> 16) & 0x8000 | 0x7e00 | (w >> 13) & 0x3ff
                }
            };
            let join = |re: u128, im: u128| re | im << 32;
            let r = oracle(
                op,
                DType::Complex64,
                join(widen(a & 0xffff), widen(a >> 16)),
                join(widen(b & 0xffff), widen(b >> 16)),
            );
            narrow(r & 0xffff_ffff) | narrow(r >> 32) << 16
        }
        Class::Complex => {
            let p = part(d);
            let w = p.bits();
            let m = (1u128 << w) - 1;
            let (ar, ai, br, bi) = (a & m, a >> w, b & m, b >> w);
            let f = |op, u, v| float_oracle(op, p, u, v);
            let join = |re: u128, im: u128| re | im << w;
            match op {
                Op::Sub => join(f(Op::Sub, ar, br), f(Op::Sub, ai, bi)),
                Op::Neg => join(f(Op::Neg, ar, ar), f(Op::Neg, ai, ai)),
                Op::Mul => {
                    let add = |u: u128, v: u128| {
                        // u + v = u - (-v), but a NaN v keeps its sign under the rule.
                        let (sign, _, _) = nan_facts(p);
                        if value(p, v).is_nan() {
                            f(Op::Sub, u, v)
                        } else {
                            f(Op::Sub, u, v ^ sign)
                        }
                    };
                    join(
                        f(Op::Sub, f(Op::Mul, ar, br), f(Op::Mul, ai, bi)),
                        add(f(Op::Mul, ar, bi), f(Op::Mul, ai, br)),
                    )
                }
                Op::Eq => f(Op::Eq, ar, br) & f(Op::Eq, ai, bi),
                Op::Ne => 1 - (f(Op::Eq, ar, br) & f(Op::Eq, ai, bi)),
                _ => unreachable!("complex takes no {op:?}"),
            }
        }
        Class::Bool => {
            let (x, y) = (a != 0, b != 0);
            (match op {
                Op::Mul | Op::Minimum => x && y,
                Op::Maximum => x || y,
                Op::Abs => x,
                Op::Eq => x == y,
                Op::Ne => x != y,
                Op::Lt => !x && y,
                Op::Le => !x || y,
                Op::Gt => x && !y,
                Op::Ge => x || !y,
                _ => unreachable!("bool takes no {op:?}"),
            }) as u128
        }
        Class::Signed | Class::Unsigned => {
            let w = d.packed_bits();
            let m = (1u128 << w) - 1;
            let v = |p: u128| -> i128 {
                if d.class() == Class::Signed && p >> (w - 1) & 1 == 1 {
                    p as i128 - (1i128 << w)
                } else {
                    p as i128
                }
            };
            let (x, y) = (v(a), v(b));
            let wrap = |r: i128| (r as u128) & m;
            match op {
                Op::Sub => wrap(x - y),
                Op::Mul => wrap(x.wrapping_mul(y)),
                Op::Div => wrap(if y == 0 { 0 } else { floor_div(x, y) }),
                Op::Maximum => wrap(x.max(y)),
                Op::Minimum => wrap(x.min(y)),
                Op::Neg => wrap(-x),
                Op::Abs => wrap(x.abs()),
                Op::Eq => (x == y) as u128,
                Op::Ne => (x != y) as u128,
                Op::Lt => (x < y) as u128,
                Op::Le => (x <= y) as u128,
                Op::Gt => (x > y) as u128,
                Op::Ge => (x >= y) as u128,
            }
        }
    }
}

/// Special values of a real float dtype, as bits.
fn float_specials(d: DType) -> Vec<u128> {
    let (sign, quiet_bit, nan) = nan_facts(d);
    let of = |x: f64| round(d, x);
    let f = d.float_format().unwrap();
    let (m, e) = (f.fraction_bits as u128, f.exponent_bits as u128);
    let max_finite = match f8_of(d) {
        Some(f) => f.max_finite() as u128,
        None => (((1 << e) - 2) << m) | ((1 << m) - 1),
    };
    let mut v = vec![
        0,
        sign,
        of(1.0),
        of(-1.0),
        of(1.5),
        of(3.0),
        of(-0.1),
        of(7.0),
        1,        // the least subnormal
        sign | 3, // a negative subnormal
        1 << m,   // the least normal
        max_finite,
        sign | max_finite,
        nan,
        sign | nan,
    ];
    if f8_of(d).is_none_or(|f| f.ieee) {
        let inf = ((1 << e) - 1) << m;
        v.extend([inf, sign | inf, inf | 1]); // and a signalling NaN with a payload
        let _ = quiet_bit;
    }
    v
}

/// Special values of dtype `d`, as bits.
fn specials(d: DType) -> Vec<u128> {
    match d.class() {
        Class::Float => float_specials(d),
        Class::Complex => {
            let p = part(d);
            let w = p.bits();
            let s = float_specials(p);
            // Each part from the specials, in a pattern that meets every one.
            (0..s.len() * 2)
                .map(|i| s[i % s.len()] | s[(i * 7 + 3) % s.len()] << w)
                .collect()
        }
        Class::Bool => vec![0, 1, 2, 0, 1],
        _ => {
            let w = d.packed_bits();
            let m = (1u128 << w) - 1;
            let mut v: Vec<u128> = [0i128, 1, -1, 2, -2, 3, 7, -7, 5]
                .iter()
                .map(|&x| (x as u128) & m)
                .collect();
            v.extend([m >> 1, (m >> 1) + 1, m, 1 << (w / 2)]);
            v
        }
    }
}

/// `xs` as an array `[n, 1]` laid out flipped (negative strides), and `xs` as `[1, n]`.
fn operands(d: DType, xs: &[u128]) -> (AnyArray, AnyArray) {
    let n = xs.len();
    let rev: Vec<u128> = xs.iter().rev().copied().collect();
    let col = AnyArray::of_bits(d, &[n, 1], &rev)
        .unwrap()
        .on()
        .move_(&Move::Flip(vec![0]))
        .unwrap()
        .unwrap();
    let row = AnyArray::of_bits(d, &[1, n], xs).unwrap().on();
    (col, row)
}

/// The bits of every pair of `xs` (a into rows, b into columns) under `op`.
fn check(op: Op, d: DType) {
    let xs = specials(d);
    let n = xs.len();
    let (col, row) = operands(d, &xs);
    let z = run(op, &col, &row).unwrap_or_else(|e| panic!("{op:?} {d}: {e}"));
    let out = if matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge) {
        DType::Bool
    } else {
        d
    };
    // A unary operation reads the column alone.
    let cols = if matches!(op, Op::Neg | Op::Abs) {
        1
    } else {
        n
    };
    assert_eq!((z.dtype(), z.shape()), (out, &[n, cols][..]), "{op:?} {d}");
    let got = z.to_bits_vec().unwrap();
    for i in 0..n {
        for j in 0..cols {
            let (a, b) = (xs[i], if cols == 1 { xs[i] } else { xs[j] });
            let want = oracle(op, d, a, b);
            assert_eq!(
                got[i * cols + j],
                want,
                "{op:?} {d} on {}: {a:#x}, {b:#x} gave {:#x}, not {want:#x}",
                dut::dut().name(),
                got[i * cols + j]
            );
        }
    }
}

on_every_device! {
    fn arithmetic_of_every_dtype_against_the_oracle() {
        for d in DType::ALL {
            for op in [Op::Sub, Op::Mul, Op::Div, Op::Neg, Op::Abs] {
                if takes(op, d) {
                    check(op, d);
                }
            }
        }
    }
}

on_every_device! {
    fn extrema_and_comparisons_of_every_dtype_against_the_oracle() {
        for d in DType::ALL {
            for op in [Op::Maximum, Op::Minimum, Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge] {
                if takes(op, d) {
                    check(op, d);
                }
            }
        }
    }
}

on_every_device! {
    fn select_moves_bits_through_broadcasts_and_in_place() {
        for d in DType::ALL {
            let xs = specials(d);
            let n = xs.len();
            let (col, row) = operands(d, &xs);
            let c: Vec<bool> = (0..n).map(|j| j % 3 != 1).collect();
            let cond: AnyArray = Array::<bool>::of_array(&[n], &c).unwrap().into();
            let cond = cond.on();
            let z = k::select(&cond, &col, &row).unwrap();
            assert_eq!(z.shape(), [n, n]);
            let got = z.to_bits_vec().unwrap();
            for i in 0..n {
                for j in 0..n {
                    let want = if c[j] { xs[i] } else { xs[j] };
                    assert_eq!(got[i * n + j], want, "{d} [{i}, {j}]");
                }
            }
        }
        // Into an operand, in place.
        let x = Array::<i32>::of_array(&[4], &[1, 2, 3, 4]).unwrap().on();
        let y = Array::<i32>::of_array(&[1], &[0]).unwrap().on();
        let c = Array::<bool>::of_array(&[4], &[true, false, false, true]).unwrap().on();
        k::select_into(x.any(), c.any(), x.any(), y.any()).unwrap();
        assert_eq!(x.to_vec().unwrap(), [1, 0, 0, 4]);
    }
}

on_every_device! {
    fn in_place_and_given_outputs() {
        let x = Array::<f32>::of_array(&[3], &[1.5, -2.0, 4.0]).unwrap().on();
        let y = Array::<f32>::of_array(&[1], &[2.0]).unwrap().on();
        k::mul_into(x.any(), x.any(), y.any()).unwrap();
        assert_eq!(x.to_vec().unwrap(), [3.0, -4.0, 8.0]);
        k::div_into(x.any(), x.any(), y.any()).unwrap();
        assert_eq!(x.to_vec().unwrap(), [1.5, -2.0, 4.0]);
        k::neg_into(x.any(), x.any()).unwrap();
        assert_eq!(x.to_vec().unwrap(), [-1.5, 2.0, -4.0]);
        let b = Array::<bool>::of_array(&[3], &[true; 3]).unwrap().on();
        k::lt_into(b.any(), x.any(), y.any()).unwrap();
        assert_eq!(b.to_vec().unwrap(), [true, false, true]);
        // A int4 output at an odd nibble keeps its neighbours.
        let q = AnyArray::of_bits(DType::Int4, &[5], &[1, 2, 3, 4, 5]).unwrap().on();
        let mid = q
            .move_(&Move::Slice(vec![nxrig::Slice::new(Some(1), Some(4), 1)]))
            .unwrap()
            .unwrap();
        k::sub_into(&mid, &mid, &mid).unwrap();
        assert_eq!(q.to_bits_vec().unwrap(), [1, 0, 0, 0, 5]);
    }
}

on_every_device! {
    fn refusals_name_the_function() {
        let b = Array::<bool>::of_array(&[2], &[true, false]).unwrap().on();
        let e = k::sub(b.any(), b.any()).unwrap_err();
        assert_eq!(e.to_string(), "sub: bool has no subtraction (bool [2], bool [2])");
        let c: AnyArray = AnyArray::of_bits(DType::Complex64, &[1], &[0]).unwrap().on();
        let e = k::div(&c, &c).unwrap_err();
        assert_eq!(e.to_string(), "div: complex64 has no division (complex64 [1], complex64 [1])");
        let e = k::lt(&c, &c).unwrap_err();
        assert!(e.to_string().starts_with("lt: complex64 has no ordering"), "{e}");
        let f = Array::<f32>::of_array(&[2], &[1.0, 2.0]).unwrap().on();
        let i = Array::<i32>::of_array(&[3], &[1, 2, 3]).unwrap().on();
        let e = k::mul(f.any(), i.any()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mul: the operands' dtypes differ (cast one first) (float32 [2], int32 [3])"
        );
        let g = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0]).unwrap().on();
        let e = k::maximum(f.any(), g.any()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "maximum: shape mismatch: [2] and [3] do not broadcast (float32 [2], float32 [3])"
        );
        let e = k::eq_into(f.any(), f.any(), f.any()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "eq_into: out is float32, where the result is bool (float32 [2], float32 [2], float32 [2])"
        );
        let e = k::select(f.any(), f.any(), f.any()).unwrap_err();
        assert!(e.to_string().starts_with("select: the condition is float32, not bool"), "{e}");
        let e = k::sub_into(g.any(), f.any(), f.any()).unwrap_err();
        assert!(e.to_string().starts_with("sub_into: shape mismatch"), "{e}");
        // A broadcast output reaches an element twice.
        let one = Array::<f32>::of_array(&[1], &[1.0]).unwrap().on();
        let wide = one.any().move_(&Move::Expand(vec![2])).unwrap().unwrap();
        let e = k::sub_into(&wide, f.any(), f.any()).unwrap_err();
        assert!(e.to_string().starts_with("sub_into: "), "{e}");
    }
}

/// `n` pseudo-random bit patterns of dtype `d` (every exponent alike), from `seed`: a
/// float6's in its six bits (the byte's top two zero, as nxrig holds it).
fn random_bits(d: DType, n: usize, seed: u64) -> Vec<u128> {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let m = if d.bits() >= 128 {
        u128::MAX
    } else {
        (1u128 << d.packed_bits()) - 1
    };
    (0..n)
        .map(|_| (next() as u128 | (next() as u128) << 64) & m)
        .collect()
}

on_every_device! {
    fn arithmetic_of_random_patterns_against_the_oracle() {
        // 4096 pairs a dtype: for float64 about two in a thousand quotients and
        // products lean on the sticky bit below the 64 kept.
        for d in DType::ALL.into_iter().filter(|d| d.class() != Class::Bool) {
            let (xs, ys) = (random_bits(d, 4096, 7), random_bits(d, 4096, 11));
            let x = AnyArray::of_bits(d, &[4096], &xs).unwrap().on();
            let y = AnyArray::of_bits(d, &[4096], &ys).unwrap().on();
            for op in [Op::Sub, Op::Mul, Op::Div, Op::Lt] {
                if !takes(op, d) {
                    continue;
                }
                let got = run(op, &x, &y).unwrap().to_bits_vec().unwrap();
                for (i, g) in got.iter().enumerate() {
                    let want = oracle(op, d, xs[i], ys[i]);
                    assert_eq!(*g, want, "{op:?} {d}: {:#x}, {:#x}", xs[i], ys[i]);
                }
            }
        }
    }
}
