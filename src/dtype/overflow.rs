//! Overflow of a cast into a float dtype: the two modes of a cast ([`CastMode`]), the
//! least magnitude that rounds past a format's largest finite, and the tally of what
//! a conversion's values became ([`Tally`]).

use super::convert::f64_of_bits;
use super::format::Specials;
use super::table::{Class, DType};

/// What a cast does with a value past the target's largest finite (and with an
/// infinity), where the target is a float dtype; casts into integers, bool and
/// complex dtypes are the same in both modes (a float into an integer already
/// truncates and saturates).
///
/// ```
/// use nxrig::dtype::CastMode;
/// use nxrig::{AnyArray, DType};
///
/// // bfloat16 70000 and -inf into float16, whose largest finite is 65504.
/// let x = AnyArray::of_bits(DType::Bfloat16, &[2], &[0x4789, 0xff80])?;
/// let plain = x.cast(DType::Float16)?.to_bits_vec()?;
/// assert_eq!(plain, [0x7c00, 0xfc00]); // inf, -inf
/// let sat = x.cast_with(DType::Float16, CastMode::Saturate)?.to_bits_vec()?;
/// assert_eq!(sat, [0x7bff, 0xfbff]); // 65504, -65504
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CastMode {
    /// ml_dtypes' (and NumPy's): the target's infinity where it has one, else its NaN
    /// (float8_e4m3fn, the "fnuz" float8s, the unsigned ones), else its largest finite
    /// of the sign (float4_e2m1fn and the float6s, which have neither).
    #[default]
    Default,
    /// Saturating (OCP's "satfinite", ONNX's `saturate`, torch's `_saturate`): a value
    /// past the largest finite, and an infinity, become the largest finite of their
    /// sign; a NaN stays a NaN (quieted), where the target has one. An unsigned
    /// target's NaN for a negative value (or for zero, float8_e8m0fnu) stays.
    Saturate,
}

/// The least magnitude that a cast into a float dtype rounds past its largest
/// finite (to nearest, ties to even, as if the exponent were unbounded): half an
/// ulp past it, itself included where the largest finite's last fraction bit is 1
/// (the tie goes up to the even), or where the format has no fraction bits
/// (float8_e8m0fnu rounds a tie up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Threshold {
    /// Largest finite plus half its ulp.
    pub at: f64,
    /// Whether `at` itself overflows.
    pub inclusive: bool,
    /// The largest finite.
    pub max: f64,
}

impl Threshold {
    /// Whether the finite `v` rounds past the largest finite (of either sign).
    #[inline]
    pub fn overflows(&self, v: f64) -> bool {
        let a = v.abs();
        a > self.at || (self.inclusive && a == self.at)
    }
}

/// The overflow threshold of the float dtype `to` (a real one): `None` for other
/// dtypes and for float64, which no value of another dtype overflows.
pub(crate) fn threshold(to: DType) -> Option<Threshold> {
    let f = real_float(to)?;
    if to == DType::Float64 {
        return None;
    }
    let m = f.fraction_bits;
    let max_bits = f.max_bits();
    let max = f64_of_bits(to, max_bits as u128);
    let exp = ((max.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let half = 2f64.powi(exp - m as i32 - 1);
    Some(Threshold {
        at: max + half,
        inclusive: m == 0 || max_bits & 1 == 1,
        max,
    })
}

/// The largest finite magnitude of `d` as an `f64` (a complex dtype's part's; bool 1).
fn largest(d: DType) -> f64 {
    match d.max_value() {
        super::bounds::Scalar::Int(i) => i as f64,
        super::bounds::Scalar::Float(x) => x,
    }
}

/// Whether a finite value of `from` may round past the largest finite of `to`.
fn past(from: DType, to: DType) -> bool {
    threshold(to).is_some_and(|t| t.overflows(largest(from)))
}

/// Whether `from` has infinities.
fn has_infinities(from: DType) -> bool {
    matches!(
        from.float_format().map(|g| g.specials),
        Some(Specials::Ieee)
    )
}

/// The real float format of `to`, if it is one.
/// The least float32 magnitude, as bits with the sign cleared, that a tally into `to`
/// may count: a float32 whose magnitude's bits are below it adds nothing (it is finite
/// and rounds within `to`'s range). `None` where the sign alone may count (an unsigned
/// `to`) or `to` is no real float.
pub(crate) fn f32_cut(to: DType) -> Option<u32> {
    let f = real_float(to)?;
    if !f.signed() {
        return None;
    }
    Some(match threshold(to) {
        // The largest float32 at or under the threshold: anything smaller is under it.
        Some(t) => {
            let below = t.at as f32;
            let below = if below as f64 > t.at {
                f32::from_bits(below.to_bits() - 1)
            } else {
                below
            };
            below.to_bits().min(0x7F80_0000)
        }
        None => 0x7F80_0000,
    })
}

fn real_float(to: DType) -> Option<super::format::FloatFormat> {
    (to.class() == Class::Float)
        .then(|| to.float_format())
        .flatten()
}

/// Whether a value of `from` may become an infinity or a NaN in `to` without being one
/// (a finite value past `to`'s largest, an infinity where `to` has none, a negative
/// value or zero where `to` is unsigned), or overflow it: the casts whose values a
/// [`Tally`] counts.
pub(crate) fn tallied(from: DType, to: DType) -> bool {
    let Some(f) = real_float(to) else {
        return false;
    };
    let keeps_inf = matches!(f.specials, Specials::Ieee | Specials::Finite);
    past(from, to) || (has_infinities(from) && !keeps_inf) || !f.signed()
}

/// Whether the saturating cast of `from` into `to` may differ from the default: `to`
/// a float with an infinity or a NaN, and a value of `from` that may overflow it or
/// be an infinity.
pub(crate) fn saturates(from: DType, to: DType) -> bool {
    let Some(f) = real_float(to) else {
        return false;
    };
    f.specials != Specials::Finite && (past(from, to) || has_infinities(from))
}

/// What a cast's values became: how many overflowed, and how many became an
/// infinity or a NaN (from a value that was neither, for an infinity; from a value
/// that was no NaN, for a NaN).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Finite values past the target's largest finite (after rounding): an infinity
    /// or a NaN by default, the largest finite of their sign saturating (and by
    /// default for float4_e2m1fn and the float6s).
    pub overflowed: u64,
    /// Values that became an infinity.
    pub infinities: u64,
    /// Values that became a NaN: an overflow where the target has no infinity, an
    /// infinity there, a negative value (or zero) where it is unsigned.
    pub nans: u64,
}

impl Tally {
    /// Whether any value overflowed or became an infinity or a NaN.
    pub fn any(&self) -> bool {
        self.overflowed + self.infinities + self.nans > 0
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: Tally) {
        self.overflowed += other.overflowed;
        self.infinities += other.infinities;
        self.nans += other.nans;
    }

    /// Counts what `values` (a source's values, exactly or as its nearest `f64`)
    /// become when cast into the float dtype `to` in `mode`.
    pub(crate) fn count(&mut self, to: DType, mode: CastMode, values: &[f64]) {
        self.count_weighted(to, mode, values.iter().map(|&v| (v, 1)));
    }

    /// [`Tally::count`] of values each given with how many times it occurs (a
    /// histogram of a piece's codes counts each distinct value once).
    pub(crate) fn count_weighted(
        &mut self,
        to: DType,
        mode: CastMode,
        values: impl IntoIterator<Item = (f64, u64)>,
    ) {
        let Some(f) = real_float(to) else {
            return;
        };
        let t = threshold(to);
        let no_zero = f.specials == Specials::UnsignedNoZero;
        let keeps_inf = matches!(f.specials, Specials::Ieee | Specials::Finite);
        let default = mode == CastMode::Default;
        for (v, n) in values {
            if v.is_nan() || n == 0 {
                continue;
            }
            if !f.signed() && ((v < 0.0) || (no_zero && v == 0.0)) {
                self.nans += n;
            } else if v.is_infinite() {
                if default && !keeps_inf {
                    self.nans += n;
                }
            } else if t.is_some_and(|t| t.overflows(v)) {
                self.overflowed += n;
                if default {
                    match f.specials {
                        Specials::Ieee => self.infinities += n,
                        Specials::Finite => {}
                        _ => self.nans += n,
                    }
                }
            }
        }
    }
}

/// Tallies added up (a conversion's pieces', its runs').
impl std::iter::Sum for Tally {
    fn sum<I: Iterator<Item = Tally>>(iter: I) -> Tally {
        iter.fold(Tally::default(), |mut t, one| {
            t.add(one);
            t
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::convert::convert_bits;

    fn non_finite(d: DType, bits: u128) -> bool {
        let v = f64_of_bits(d, bits);
        !v.is_finite()
    }

    /// The threshold against the encoder: `at` overflows exactly where it says, the
    /// float64 just past it does, the one just under it does not; for the formats
    /// without infinity or NaN, the largest finite is what they give.
    #[test]
    fn the_threshold_is_where_the_encoder_overflows() {
        for to in DType::ALL {
            let Some(t) = threshold(to) else {
                continue;
            };
            let f = to.float_format().unwrap();
            let cast = |x: f64| convert_bits(DType::Float64, to, x.to_bits() as u128);
            let up = f64::from_bits(t.at.to_bits() + 1);
            let down = f64::from_bits(t.at.to_bits() - 1);
            assert_eq!(f64_of_bits(to, cast(t.max)), t.max, "{to}");
            if f.specials == Specials::Finite {
                assert_eq!(f64_of_bits(to, cast(up)), t.max, "{to}");
                continue;
            }
            assert_eq!(non_finite(to, cast(t.at)), t.inclusive, "{to} at {}", t.at);
            assert!(non_finite(to, cast(up)), "{to}");
            assert!(!non_finite(to, cast(down)), "{to}");
            assert!(!t.overflows(down) && t.overflows(up), "{to}");
        }
        assert_eq!(threshold(DType::Float16).unwrap().at, 65520.0);
        assert!(threshold(DType::Float16).unwrap().inclusive);
        assert_eq!(threshold(DType::Float8E4m3fn).unwrap().at, 464.0);
        assert!(!threshold(DType::Float8E4m3fn).unwrap().inclusive);
        assert!(threshold(DType::Float64).is_none() && threshold(DType::Int8).is_none());
    }

    /// The tally against the default cast, value by value: an overflow is a finite
    /// value whose saturating cast is the largest finite and whose default cast is
    /// no finite value (or the largest, for the formats without either); an infinity
    /// or NaN counted is one the default cast made of a value that was not.
    #[test]
    fn the_tally_counts_what_the_default_cast_makes() {
        let values: Vec<f64> = [
            0.0, -0.0, 1.0, -1.5, 240.0, 247.9, 248.0, 448.0, 464.0, 465.0, -500.0, 57344.0,
            61440.0, 65504.0, 65519.9, 65520.0, -70000.0, 3.0e38, 3.4e38, -1e300, 1e-300,
        ]
        .into_iter()
        .chain([f64::INFINITY, f64::NEG_INFINITY, f64::NAN])
        .collect();
        for to in DType::ALL {
            let Some(f) = real_float(to) else { continue };
            let mut got = Tally::default();
            got.count(to, CastMode::Default, &values);
            let mut want = Tally::default();
            for &v in &values {
                let z = convert_bits(DType::Float64, to, v.to_bits() as u128);
                let zv = f64_of_bits(to, z);
                if v.is_nan() {
                    continue;
                }
                if zv.is_infinite() && v.is_finite() {
                    want.infinities += 1;
                }
                if zv.is_nan() {
                    want.nans += 1;
                }
                let past = v.is_finite()
                    && (f.signed() || v > 0.0)
                    && threshold(to).is_some_and(|t| t.overflows(v));
                if past {
                    want.overflowed += 1;
                }
            }
            assert_eq!(got, want, "{to}");
        }
    }

    /// The float32 cut: the float32 just under it counts nothing into any signed float,
    /// and the least float32 that does count is at or past it.
    #[test]
    fn no_float32_under_the_cut_counts() {
        for to in DType::ALL {
            let Some(cut) = f32_cut(to) else {
                continue;
            };
            let count = |bits: u32| {
                let mut t = Tally::default();
                for s in [1.0, -1.0] {
                    t.count_weighted(
                        to,
                        CastMode::Default,
                        [(s * f32::from_bits(bits) as f64, 1)],
                    );
                }
                t
            };
            assert_eq!(
                count(cut - 1),
                Tally::default(),
                "{to}: {:e}",
                f32::from_bits(cut - 1)
            );
            // The least magnitude that counts, by bisection over float32's bits.
            let (mut lo, mut hi) = (0u32, 0x7F80_0000u32);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if count(mid) == Tally::default() {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            assert!(
                lo >= cut,
                "{to}: {:e} counts, under the cut {:e}",
                f32::from_bits(lo),
                f32::from_bits(cut)
            );
        }
    }

    #[test]
    fn which_casts_are_tallied_and_saturate() {
        assert!(tallied(DType::Bfloat16, DType::Float16));
        assert!(tallied(DType::Float32, DType::Bfloat16));
        assert!(tallied(DType::Float16, DType::Float8E4m3fn));
        assert!(tallied(DType::Int8, DType::Float8E8m0fnu));
        assert!(!tallied(DType::Float16, DType::Float32));
        assert!(!tallied(DType::Float8E4m3fn, DType::Bfloat16));
        assert!(!tallied(DType::Int16, DType::Float16));
        assert!(tallied(DType::Int32, DType::Float16));
        assert!(!tallied(DType::Float32, DType::Int8));
        assert!(!tallied(DType::Float64, DType::Float64));
        assert!(!tallied(DType::Float32, DType::Complex64));
        // An infinity saturates into a format that has one.
        assert!(saturates(DType::Float16, DType::Float32));
        assert!(saturates(DType::Bfloat16, DType::Float16));
        assert!(!saturates(DType::Float8E4m3fn, DType::Bfloat16));
        assert!(!saturates(DType::Float32, DType::Float4E2m1fn));
        assert!(!saturates(DType::Int8, DType::Float8E4m3fn));
        assert!(saturates(DType::Int16, DType::Float8E4m3fn));
    }
}
