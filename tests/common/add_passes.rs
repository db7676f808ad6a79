//! Cases of float32 add in two passes (a device whose float32 sums are not trusted
//! adds natively first and runs the exact kernel only over pieces that need it):
//! operands that never need it, and one element that does among many that do not,
//! at the start, inside and at the end of the array. Shared by the native and the
//! browser tests; the oracle is the host's add.
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
    let planted: [(&'static str, u128, u128); 4] = [
        ("a subnormal pair", 0x0000_0003, 0x8000_0001),
        (
            "a sum that cancels into a subnormal",
            0x0080_0001,
            0x8080_0000,
        ),
        ("inf - inf", 0x7f80_0000, 0xff80_0000),
        ("a NaN operand", 0x7f80_0001, 0x3f80_0000),
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
/// the case, the count and the first wrong sum `x + y`.
pub fn wrong(name: &str, xs: &[u128], ys: &[u128], got: &[u128], want: &[u128]) -> Option<String> {
    let n = want.len();
    let bad: Vec<usize> = (0..n).filter(|&i| got.get(i) != Some(&want[i])).collect();
    let &i = bad.first()?;
    Some(format!(
        "{name}: {} of {n} wrong, first at {i}: {:#x} + {:#x} = {:#x}, want {:#x}",
        bad.len(),
        xs[i],
        ys[i],
        got.get(i).copied().unwrap_or_default(),
        want[i]
    ))
}
