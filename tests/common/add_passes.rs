//! Cases of float32 add, sub and mul in two passes (a device whose float32 sums are
//! not trusted computes natively first and runs the exact kernel only over pieces
//! that need it):
//! operands that never need it, and one element that does among many that do not,
//! at the start, inside and at the end of the array; and the same of the 8- and
//! 16-bit floats, which add natively in float32 first wherever the device has it
//! (every finite pair of each float8, planted NaNs, infinities and bfloat16's pairs
//! near float32's subnormals), which `sub`, `mul` and `div` take as well (planted
//! products and quotients among float32's subnormals, zero and subnormal divisors).
//! Shared by the native and the browser tests; the oracle is the host's operation.
#![allow(dead_code)]

/// Elements of each case: several pieces of the contiguous form's loop, and a tail of
/// 3 past a multiple of 4 (the walked form's part).
pub const N: usize = 100_003;

/// Bits of a normal float32 at least 2^-60 in magnitude, varied by `i`.
fn normal(i: usize) -> u128 {
    let i = i as u128;
    let exponent = 70 + (i * 7919) % 150; // biased, 70..220
    ((i & 1) << 31) | (exponent << 23) | ((i * 2_654_435_761) & 0x7f_ffff)
}

/// (name, x, y) of each case.
pub fn cases() -> Vec<(&'static str, Vec<u128>, Vec<u128>)> {
    let xs: Vec<u128> = (0..N).map(normal).collect();
    let ys: Vec<u128> = (0..N).map(|i| normal(i * 31 + 7)).collect();
    let mut out = vec![
        ("normal operands only", xs.clone(), ys.clone()),
        (
            "zeros of both signs",
            vec![0x8000_0000; N],
            (0..N).map(|i| (i as u128 & 1) << 31).collect(),
        ),
    ];
    let planted: [(&'static str, u128, u128); 6] = [
        ("a subnormal pair", 0x0000_0003, 0x8000_0001),
        (
            "a sum that cancels into a subnormal",
            0x0080_0001,
            0x8080_0000,
        ),
        ("inf - inf", 0x7f80_0000, 0xff80_0000),
        ("a NaN operand", 0x7f80_0001, 0x3f80_0000),
        ("a product below 2^-126", 0x1f80_0000, 0x1f80_0000),
        ("inf times zero", 0x7f80_0000, 0x0000_0000),
    ];
    for (name, a, b) in planted {
        for at in [0, N / 2 + 1, N - 5, N - 1] {
            let (mut x, mut y) = (xs.clone(), ys.clone());
            x[at] = a;
            y[at] = b;
            out.push((name, x, y));
        }
    }
    out
}

/// `None` where `got` equals `want` element for element; else what is wrong, naming
/// the case, the count and the first wrong result of `x` and `y`.
pub fn wrong(name: &str, xs: &[u128], ys: &[u128], got: &[u128], want: &[u128]) -> Option<String> {
    let n = want.len();
    let bad: Vec<usize> = (0..n).filter(|&i| got.get(i) != Some(&want[i])).collect();
    let &i = bad.first()?;
    Some(format!(
        "{name}: {} of {n} wrong, first at {i}: of {:#x} and {:#x} {:#x}, want {:#x}",
        bad.len(),
        xs[i],
        ys[i],
        got.get(i).copied().unwrap_or_default(),
        want[i]
    ))
}

/// (name, dtype, x, y) of each case of the 8- and 16-bit floats.
pub fn narrow_cases() -> Vec<(String, nxrig::DType, Vec<u128>, Vec<u128>)> {
    use nxrig::DType;
    let mut out = Vec::new();
    // Every pair of finite float8s (no flag: the native sums alone), 8 elements past
    // a multiple of the contiguous form's 16. (float8_e8m0fnu has no first pass, its
    // exact kernels only: `tests/ops.rs` holds them to the oracle; its every pair
    // through the exact division took SwiftShader past the browser's GPU watchdog.)
    for (d, finite) in [
        (
            DType::Float8E4m3fn,
            (|b: u128| b & 0x7f != 0x7f) as fn(u128) -> bool,
        ),
        (DType::Float8E5m2, |b: u128| (b >> 2) & 0x1f != 0x1f),
        // No -0: the pattern of -0 is the NaN, every other one a number.
        (DType::Float8E4m3fnuz, |b: u128| b != 0x80),
    ] {
        let f: Vec<u128> = (0..256).filter(|&b| finite(b)).collect();
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for &a in &f {
            for &b in &f {
                xs.push(a);
                ys.push(b);
            }
        }
        let n = xs.len() - xs.len() % 16 + 8;
        xs.resize(n, 0x38);
        ys.resize(n, 0xb8);
        out.push((format!("{d}: every finite pair"), d, xs, ys));
    }
    // Normal bfloat16 (magnitudes 2^-100 and up) and float16 (subnormals included:
    // exact in float32), then one element needing the exact sum planted.
    let mix = |i: usize| (i as u128).wrapping_mul(2_654_435_761) >> 7;
    let bf = |i: usize| {
        let e = 27 + mix(i) % 200; // biased, 27..227
        ((mix(i) & 1) << 15) | (e << 7) | (mix(i * 3 + 1) & 0x7f)
    };
    let half = |i: usize| {
        mix(i)
            & 0xffff
            & !(if (mix(i) >> 10) & 0x1f == 0x1f {
                0x4000
            } else {
                0
            })
    };
    let n = 20_000 + 5;
    for (d, gen, planted) in [
        (
            DType::Bfloat16,
            &bf as &dyn Fn(usize) -> u128,
            vec![
                ("a NaN operand", 0x7fc1, 0x3f80),
                ("inf - inf", 0x7f80, 0xff80),
                ("a subnormal pair", 0x0003, 0x8001),
                ("a sum that cancels into a subnormal", 0x0081, 0x8080),
                ("a pair below 2^-100", 0x0d00, 0x0d00),
                ("a product among float32's subnormals", 0x2180, 0x1c80),
                ("a quotient among float32's subnormals", 0x2180, 0x6280),
                ("a zero divisor", 0x3f80, 0x0000),
                ("a subnormal divisor", 0x0001, 0x0002),
            ],
        ),
        (
            DType::Float16,
            &half,
            vec![
                ("a NaN operand", 0x7e01, 0x3c00),
                ("inf + a normal", 0xfc00, 0x3c00),
                ("a zero divisor", 0x3c00, 0x8000),
            ],
        ),
        (
            DType::Float8E4m3fn,
            &|i: usize| mix(i) & 0x7e,
            vec![("a NaN operand", 0x7f, 0x38), ("zero by zero", 0x00, 0x80)],
        ),
        (
            DType::Float8E5m2,
            &|i: usize| mix(i) & 0x7b,
            vec![("an infinity", 0x7c, 0x38), ("a NaN operand", 0xfe, 0x38)],
        ),
        (
            DType::Float8E4m3fnuz,
            &|i: usize| (mix(i) & 0xff) | 1,
            vec![
                ("the NaN at -0's pattern", 0x80, 0x38),
                ("zero by zero", 0x00, 0x00),
            ],
        ),
    ] {
        let xs: Vec<u128> = (0..n).map(gen).collect();
        let ys: Vec<u128> = (0..n).map(|i| gen(i * 31 + 7)).collect();
        out.push((
            format!("{d}: no element needs the exact sum"),
            d,
            xs.clone(),
            ys.clone(),
        ));
        for (name, a, b) in planted {
            for at in [0, n / 2 + 1, n - 6] {
                let (mut x, mut y) = (xs.clone(), ys.clone());
                x[at] = a;
                y[at] = b;
                out.push((format!("{d}: {name} at {at}"), d, x, y));
            }
        }
    }
    out
}

/// The operations float32's cases run: add, and those that compute natively first
/// as it does.
pub fn float32_ops() -> [(&'static str, Op2); 3] {
    use nxrig::kernels as k;
    [("add", k::add), ("sub", k::sub), ("mul", k::mul)]
}

/// An operation of two arrays.
pub type Op2 = fn(&nxrig::AnyArray, &nxrig::AnyArray) -> Result<nxrig::AnyArray, nxrig::Error>;

/// The operations the narrow floats' cases run, with their names: add, and those
/// that compute natively first as it does.
pub fn narrow_ops() -> [(&'static str, Op2); 4] {
    use nxrig::kernels as k;
    [
        ("add", k::add),
        ("sub", k::sub),
        ("mul", k::mul),
        ("div", k::div),
    ]
}
