//! nxrig's elementwise operations besides add, on every device and every dtype that
//! takes them: the rows of the operations' table ([`Operation`]: `sub`, `mul`, `div`,
//! `maximum`, `minimum`, `neg`, `abs`, the comparisons `eq`, `ne`, `lt`, `le`, `gt`,
//! `ge` into bool), and `select` (NumPy's `where`). Each is a pair: `op(x, y)` into a
//! fresh array of the broadcast shape, and `op_into(out, x, y)` into an array given
//! (in place too); [`operation`] and [`operation_into`] take the [`Operation`] as a
//! value. A row (`dtype/operations/rows.rs`) writes its functions here, its loops, its
//! WGSL and its JavaScript export.
//!
//! The rules are `add`'s, the same bits on every device. Floats: the exact result
//! rounded once to nearest, ties to even (float16, bfloat16 and the float8s as
//! float32 computes them and rounds back, which is the same); a NaN operand gives
//! that NaN quieted (`x`'s first), a NaN made of numbers (`inf - inf`, `0 * inf`,
//! `0 / 0`, `inf / inf`) the positive quiet NaN. `maximum` and `minimum` take a NaN
//! first and order `-0` below `+0`; comparisons are IEEE's (a NaN is unordered,
//! `-0 == +0`); `neg` and `abs` flip or clear the sign bit. Integers wrap; their
//! division floors, as NumPy's `//` (`x // 0` is 0, `MIN // -1` is `MIN`). Bool:
//! `mul` and `minimum` are and, `maximum` or, `abs` itself; false < true. Complex:
//! `sub` and `neg` by parts, `mul` by `(ac - bd) + (ad + bc)i` with each real
//! operation rounded; `eq` and `ne` on both parts.
//!
//! Not taken (a refusal naming the function): bool `sub`, `div`, `neg`; complex
//! `div`, `maximum`, `minimum`, `abs` and ordering. On a GPU through wgpu each runs
//! one generated module an operation and dtype, exact in 32-bit integer arithmetic on
//! every adapter (`crate::wgsl::ops`); on a CUDA device `nx_ops.cu`'s kernels, through
//! double.

mod call;
mod job;
mod wgpu;

use call::{into, made};
use job::Job;

use crate::array::AnyArray;
use crate::dtype::operations::with_operations;
pub use crate::dtype::operations::Operation;
use crate::error::Error;

/// The function into a fresh array and its `_into`, of each row of the table
/// (`dtype/operations/rows.rs`).
macro_rules! functions {
    ($(($v:ident $name:ident $into:ident ($($arg:ident),+) $res:ident [$(#[$doc:meta])*]
        $what:literal $($rest:tt)*))*) => {$(
        functions!(@one ($($arg),+) $(#[$doc])* $v $name $into $what);
    )*};
    (@one ($x:ident, $y:ident) $(#[$doc:meta])* $v:ident $name:ident $into:ident $what:literal) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// [`Error::Invalid`] naming the function, in this order: operands of
        /// different dtypes, or of a dtype that does not take the operation; operands
        /// on several devices (`to_device` one first); shapes that do not broadcast;
        /// the door's refusals (a dead buffer, memory held exclusive); what
        /// [`AnyArray::create`] returns; [`Error::Lost`].
        pub fn $name($x: &AnyArray, $y: &AnyArray) -> Result<AnyArray, Error> {
            made(stringify!($name), Job::Operation(Operation::$v), &[$x, $y])
        }

        #[doc = concat!("Stores ", $what, " into `out`: `x` and `y` of one dtype, broadcast to `out`'s shape; `out` of their dtype (bool for a comparison), and may be `x` or `y` itself (in place).")]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($name), "`], and the door's refusals of `out`: read-only memory, an `out` that reaches an element twice or shares bytes with `x` or `y` without being identical to it; an `out` of another dtype than the result's.")]
        pub fn $into(out: &AnyArray, $x: &AnyArray, $y: &AnyArray) -> Result<(), Error> {
            into(stringify!($into), Job::Operation(Operation::$v), out, &[$x, $y], &[out, $x, $y])
        }
    };
    (@one ($x:ident) $(#[$doc:meta])* $v:ident $name:ident $into:ident $what:literal) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// [`Error::Invalid`] naming the function for a dtype that does not take the
        /// operation; the door's refusals; what [`AnyArray::create`] returns;
        /// [`Error::Lost`].
        pub fn $name($x: &AnyArray) -> Result<AnyArray, Error> {
            made(stringify!($name), Job::Operation(Operation::$v), &[$x])
        }

        #[doc = concat!("Stores ", $what, " into `out`, `x` broadcast to its shape; `out` of `x`'s dtype, and may be `x` itself (in place).")]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($name), "`], and the door's refusals of `out`, and `out` on another device than `x`.")]
        pub fn $into(out: &AnyArray, $x: &AnyArray) -> Result<(), Error> {
            into(stringify!($into), Job::Operation(Operation::$v), out, &[$x], &[out, $x])
        }
    };
}

with_operations!(functions);

/// `op` of `operands` (its [`Operation::arity`] of them) in a fresh array: the
/// operation's function chosen at run time.
///
/// ```
/// use nxrig::kernels::{operation, Operation};
/// use nxrig::{AnyArray, Array};
/// let x: AnyArray = Array::<i16>::of_array(&[2], &[3, -4])?.into();
/// for &op in Operation::ALL.iter().filter(|op| op.arity() == 1) {
///     let z = operation(op, &[&x])?;
///     assert_eq!(z.dtype(), op.result(x.dtype()));
/// }
/// # Ok::<(), nxrig::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] naming the operation's function for a count of operands other
/// than its arity; else as that function.
pub fn operation(op: Operation, operands: &[&AnyArray]) -> Result<AnyArray, Error> {
    if operands.len() != op.arity() {
        return Err(Error::Invalid {
            op: op.name(),
            reason: format!("{} arrays given, {} taken", operands.len(), op.arity()),
            operands: crate::array::described(operands),
        });
    }
    made(op.name(), Job::Operation(op), operands)
}

/// Stores `op` of `operands` (its [`Operation::arity`] of them) into `out`: the
/// operation's `_into` function chosen at run time (JavaScript's `{ out }`).
///
/// # Errors
/// [`Error::Invalid`] naming the operation's `_into` for a count of operands other
/// than its arity; else as that function.
pub fn operation_into(op: Operation, out: &AnyArray, operands: &[&AnyArray]) -> Result<(), Error> {
    let name = op.name_into();
    if operands.len() != op.arity() {
        return Err(Error::Invalid {
            op: name,
            reason: format!("{} arrays given, {} taken", operands.len(), op.arity()),
            operands: crate::array::described(operands),
        });
    }
    let shown: Vec<&AnyArray> = std::iter::once(out)
        .chain(operands.iter().copied())
        .collect();
    into(name, Job::Operation(op), out, operands, &shown)
}

/// NumPy's `where`: `x` where `cond` is true, else `y`, in a fresh array of the
/// three's broadcast shape on `cond`'s device; elements moved bit for bit.
///
/// ```
/// use nxrig::kernels::select;
/// use nxrig::{AnyArray, Array};
/// let c: AnyArray = Array::<bool>::of_array(&[3], &[true, false, true])?.into();
/// let x: AnyArray = Array::<i16>::of_array(&[3], &[1, 2, 3])?.into();
/// let y: AnyArray = Array::<i16>::of_array(&[1], &[0])?.into();
/// assert_eq!(select(&c, &x, &y)?.expect::<i16>()?.to_vec()?, [1, 0, 3]);
/// # Ok::<(), nxrig::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] naming `select`: a `cond` of another dtype than bool, `x` and
/// `y` of different dtypes, operands on several devices, shapes that do not broadcast; the door's refusals; what
/// [`AnyArray::create`] returns; [`Error::Lost`].
#[doc(alias = "where")]
pub fn select(cond: &AnyArray, x: &AnyArray, y: &AnyArray) -> Result<AnyArray, Error> {
    made("select", Job::Select, &[cond, x, y])
}

/// Stores [`select`]'s result into `out` (of `x`'s dtype; `cond`, `x` and `y`
/// broadcast to its shape; it may be `x` or `y` itself).
///
/// # Errors
/// As [`select`], and the door's refusals of `out`.
#[doc(alias = "where")]
pub fn select_into(
    out: &AnyArray,
    cond: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
) -> Result<(), Error> {
    into(
        "select_into",
        Job::Select,
        out,
        &[cond, x, y],
        &[out, cond, x, y],
    )
}
