//! What an operation is: its arithmetic, and how many operands it reads.

use crate::dtype::lanes::Arith;
use crate::dtype::DType;

/// An operation and how many operands it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    /// `x` and `y` of one dtype.
    Binary(Arith),
    /// `x` alone.
    Unary(Arith),
    /// A bool condition, then `x` and `y` of one dtype.
    Select,
}

impl Which {
    /// The dtype of the result of operands of dtype `d` (the condition's partners' for
    /// the select).
    pub(crate) fn result(self, d: DType) -> DType {
        match self {
            Which::Binary(
                Arith::Eq | Arith::Ne | Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge,
            ) => DType::Bool,
            _ => d,
        }
    }
}
