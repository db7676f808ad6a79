//! A dtype's bounds: the least and greatest values it holds, read from its row.

use super::format::Specials;
use super::table::{Class, DType};

impl DType {
    /// The least value the dtype holds: `-max` for floats (the largest finite
    /// magnitude, negated; 0 for an unsigned float, its least power of two for one
    /// without a zero, 2^-127 for float8_e8m0fnu), the integer minimum, 0 for bool.
    /// Complex dtypes give their component's.
    pub fn min_value(self) -> Scalar {
        match self.class() {
            Class::Float => match self.float_format() {
                Some(f) if f.specials == Specials::UnsignedNoZero => {
                    Scalar::Float(2f64.powi(-f.bias))
                }
                Some(f) if !f.signed() => Scalar::Float(0.0),
                _ => Scalar::Float(-self.max_finite()),
            },
            Class::Signed => Scalar::Int(-(1i128 << (self.packed_bits() - 1))),
            Class::Unsigned | Class::Bool => Scalar::Int(0),
            Class::Complex => Scalar::Float(-self.max_finite()),
        }
    }

    /// The greatest value the dtype holds: the largest finite float (448 for
    /// float8_e4m3fn), the integer maximum, 1 for bool.
    pub fn max_value(self) -> Scalar {
        match self.class() {
            Class::Signed => Scalar::Int((1i128 << (self.packed_bits() - 1)) - 1),
            Class::Unsigned => Scalar::Int((1i128 << self.packed_bits()) - 1),
            Class::Bool => Scalar::Int(1),
            Class::Float | Class::Complex => Scalar::Float(self.max_finite()),
        }
    }

    fn max_finite(self) -> f64 {
        let f = self.float_format().expect("float or complex dtype");
        let max = f.max_bits();
        let (e, frac) = (max >> f.fraction_bits, max & ((1 << f.fraction_bits) - 1));
        let m = (1u64 << f.fraction_bits) + frac;
        (m as f64) * 2f64.powi(e as i32 - f.bias - f.fraction_bits as i32)
    }
}

/// A dtype's bound: an exact integer or a float.
///
/// ```
/// use nxrig::dtype::Scalar;
/// use nxrig::DType;
///
/// assert_eq!(DType::Float8E4m3fn.max_value(), Scalar::Float(448.0));
/// assert_eq!(DType::Int4.min_value(), Scalar::Int(-8));
/// assert_eq!((DType::Int2.min_value(), DType::Uint1.max_value()), (Scalar::Int(-2), Scalar::Int(1)));
/// assert_eq!(DType::Float8E8m0fnu.min_value(), Scalar::Float(2f64.powi(-127)));
/// assert_eq!(DType::Float8E8m0fnu.max_value(), Scalar::Float(2f64.powi(127)));
/// assert_eq!(DType::Bool.max_value(), Scalar::Int(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An integer bound (fits every integer dtype's range).
    Int(i128),
    /// A float bound.
    Float(f64),
}
