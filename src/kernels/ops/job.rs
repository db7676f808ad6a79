//! What an elementwise job of `ops` is: a row of the operations' table, or the select.

use crate::dtype::operations::Operation;
use crate::dtype::DType;

/// A row of the operations' table, or the select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    /// `x` and `y` (or `x` alone) of one dtype.
    Operation(Operation),
    /// A bool condition, then `x` and `y` of one dtype.
    Select,
}

impl Job {
    /// The dtype of the result of operands of dtype `d` (the condition's partners' for
    /// the select).
    pub(crate) fn result(self, d: DType) -> DType {
        match self {
            Job::Operation(o) => o.result(d),
            Job::Select => d,
        }
    }
}
