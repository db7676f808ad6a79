//! The exact values of a dequantization rounded once, fast: each value is exact in
//! float64 (every product of these widths is), and is written as a float32 rounded to
//! odd, which the conversion's cast then rounds to nearest even into any narrower
//! dtype, giving what one rounding of the exact value gives (float32 has two bits more
//! than bfloat16's, float16's and the float8s' significands, over their whole range;
//! into bfloat16 and float16 that second rounding is done here, element by element);
//! into float32 itself, rounded to nearest even at once; into float64, as it is.

/// An element a dequantization writes: the exact value `x` rounded as its kind says.
pub(crate) trait Rounded: Copy + Default + Send + Sync + bytemuck::Pod {
    /// `x` rounded.
    fn of(x: f64) -> Self;
}

/// A float32 rounded to odd: the value where exact, else the neighbour toward zero
/// with its last bit set (past float32's largest finite, that largest finite; so a
/// later rounding to nearest even into a dtype of fewer bits is the exact value's).
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(transparent)]
pub(crate) struct Odd(pub f32);

impl Rounded for Odd {
    #[inline(always)]
    fn of(x: f64) -> Odd {
        let f = x as f32;
        if f as f64 == x || x.is_nan() {
            return Odd(f);
        }
        let mut b = f.to_bits();
        if (f as f64).abs() > x.abs() {
            b -= 1;
        }
        Odd(f32::from_bits(b | 1))
    }
}

/// `x` rounded to nearest even into the binary format of `frac` fraction bits and
/// exponents `emin..=emax` (unbiased; bias `emax`) where `x` is a normal number of it
/// before rounding (an overflow of the rounding carries into the infinity's bits): the
/// bits, else `None`.
#[inline(always)]
fn narrow(x: f64, frac: u32, emin: i64, emax: i64) -> Option<u16> {
    let b = x.to_bits();
    let a = b & 0x7fff_ffff_ffff_ffff;
    let e = (a >> 52) as i64 - 1023;
    if e < emin || e > emax {
        return None;
    }
    let cut = 52 - frac;
    let r = a + (1 << (cut - 1)) - 1 + ((a >> cut) & 1);
    let v = (r >> cut) - (((1023 - emax) as u64) << frac);
    Some(((b >> 48) & 0x8000) as u16 | v as u16)
}

impl Rounded for half::bf16 {
    #[inline(always)]
    fn of(x: f64) -> half::bf16 {
        match narrow(x, 7, -126, 127) {
            Some(b) => half::bf16::from_bits(b),
            None => half::bf16::from_f32(Odd::of(x).0),
        }
    }
}

impl Rounded for half::f16 {
    #[inline(always)]
    fn of(x: f64) -> half::f16 {
        match narrow(x, 10, -14, 15) {
            Some(b) => half::f16::from_bits(b),
            None => half::f16::from_f32(Odd::of(x).0),
        }
    }
}

impl Rounded for f32 {
    #[inline(always)]
    fn of(x: f64) -> f32 {
        x as f32
    }
}

impl Rounded for f64 {
    #[inline(always)]
    fn of(x: f64) -> f64 {
        x
    }
}

/// Calls `f(i, row)` for each row `i` of `out` (rows of `len` elements), on rayon's
/// pool natively (on the calling thread in wasm, and for few rows): the greatest of
/// what the calls return (each row's greatest magnitude), ignoring NaNs.
pub(crate) fn rows<T: Send>(
    out: &mut [T],
    len: usize,
    f: impl Fn(usize, &mut [T]) -> f64 + Sync + Send,
) -> f64 {
    let len = len.max(1);
    #[cfg(not(target_arch = "wasm32"))]
    if out.len() >= 1 << 16 {
        use rayon::prelude::*;
        return out
            .par_chunks_mut(len)
            .enumerate()
            .map(|(i, r)| f(i, r))
            .reduce(|| 0.0, f64::max);
    }
    out.chunks_mut(len)
        .enumerate()
        .map(|(i, r)| f(i, r))
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_rounding_then_nearest_even_is_one_rounding() {
        // x just above a bfloat16 midpoint: float32's nearest even lands on the
        // midpoint (then bfloat16 rounds to even, down); rounded to odd it stays above.
        let mid = 1.0 + 2f64.powi(-8); // between bfloat16's 1 and 1 + 2^-7
        let x = mid + 2f64.powi(-40);
        assert_eq!((x as f32) as f64, mid);
        let o = Odd::of(x).0;
        assert!(o as f64 > mid && (o as f64) < x + 2f64.powi(-23));
        assert_eq!(
            half::bf16::from_f32(o),
            half::bf16::from_f32(1.0 + 2f32.powi(-7))
        );
        assert_eq!(half::bf16::from_f32(x as f32), half::bf16::ONE); // double rounding
                                                                     // Exact values, zeros, the ends.
        assert_eq!(Odd::of(1.5).0, 1.5);
        assert_eq!(Odd::of(-0.0).0.to_bits(), (-0.0f32).to_bits());
        assert_eq!(Odd::of(1e39).0, f32::MAX);
        assert_eq!(Odd::of(-1e39).0, -f32::MAX);
        assert_eq!(Odd::of(1e-50).0.to_bits(), 1);
        assert_eq!(Odd::of(-1e-50).0.to_bits(), 0x8000_0001);
        assert!(Odd::of(f64::NAN).0.is_nan());
        assert_eq!(Odd::of(f64::INFINITY).0, f32::INFINITY);
    }

    #[test]
    fn the_direct_roundings_are_the_odd_ones() {
        // Every bfloat16 and float16 neighbourhood: values at, between and around
        // each pair of neighbours (midpoints, just off them), both signs, the ends.
        let mut xs = vec![
            0.0,
            -0.0,
            1e-300,
            1e300,
            f64::INFINITY,
            f64::NAN,
            65504.0,
            65520.0,
            65519.99,
        ];
        for bits in 0u16..0x7f80 {
            let a = half::bf16::from_bits(bits).to_f64();
            let b = half::bf16::from_bits(bits + 1).to_f64();
            let m = (a + b) / 2.0;
            xs.extend([a, m, m + m * 2e-12, m - m * 2e-12]);
        }
        for bits in 0u16..0x7c00 {
            let a = half::f16::from_bits(bits).to_f64();
            let b = half::f16::from_bits(bits + 1).to_f64();
            let m = (a + b) / 2.0;
            xs.extend([a, m, m + m * 2e-12, m - m * 2e-12]);
        }
        for &x in &xs {
            for x in [x, -x] {
                let o = Odd::of(x).0;
                let (b, h) = (
                    <half::bf16 as Rounded>::of(x),
                    <half::f16 as Rounded>::of(x),
                );
                assert_eq!(
                    b.to_bits(),
                    half::bf16::from_f32(o).to_bits(),
                    "bfloat16 of {x:e}"
                );
                assert_eq!(
                    h.to_bits(),
                    half::f16::from_f32(o).to_bits(),
                    "float16 of {x:e}"
                );
            }
        }
    }
}
