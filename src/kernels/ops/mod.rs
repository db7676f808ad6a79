//! nxrig's elementwise operations besides add, on every device and every dtype that
//! takes them: `sub`, `mul`, `div`, `maximum`, `minimum`, `neg`, `abs`, the
//! comparisons (`eq`, `ne`, `lt`, `le`, `gt`, `ge`, into bool) and `select` (NumPy's
//! `where`). Each is a pair: `op(x, y)` into a fresh array of the broadcast shape, and
//! `op_into(out, x, y)` into an array given (in place too).
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
mod wgpu;
mod which;

use call::{into, made};
use which::Which;

use crate::array::AnyArray;
use crate::dtype::lanes::Arith;
use crate::error::Error;

macro_rules! binary {
    ($(#[$doc:meta])* $name:ident, $name_into:ident, $which:expr, $what:literal) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// [`Error::Invalid`] naming the function, in this order: operands of
        /// different dtypes, or of a dtype that does not take the operation; operands
        /// on several devices (`to_device` one first); shapes that do not broadcast; the door's refusals (a dead buffer, memory held
        /// exclusive); what [`AnyArray::create`] returns; [`Error::Lost`].
        pub fn $name(x: &AnyArray, y: &AnyArray) -> Result<AnyArray, Error> {
            made(stringify!($name), $which, &[x, y])
        }

        #[doc = concat!("Stores ", $what, " into `out`: `x` and `y` of one dtype, broadcast to `out`'s shape; `out` of their dtype (bool for a comparison), and may be `x` or `y` itself (in place).")]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($name), "`], and the door's refusals of `out`: read-only memory, an `out` that reaches an element twice or shares bytes with `x` or `y` without being identical to it; an `out` of another dtype than the result's.")]
        pub fn $name_into(out: &AnyArray, x: &AnyArray, y: &AnyArray) -> Result<(), Error> {
            into(stringify!($name_into), $which, out, &[x, y], &[out, x, y])
        }
    };
}

macro_rules! unary {
    ($(#[$doc:meta])* $name:ident, $name_into:ident, $which:expr, $what:literal) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// [`Error::Invalid`] naming the function for a dtype that does not take the
        /// operation, and for `out` on another device than `x`; the door's refusals; what [`AnyArray::create`] returns;
        /// [`Error::Lost`].
        pub fn $name(x: &AnyArray) -> Result<AnyArray, Error> {
            made(stringify!($name), $which, &[x])
        }

        #[doc = concat!("Stores ", $what, " into `out`, `x` broadcast to its shape; `out` of `x`'s dtype, and may be `x` itself (in place).")]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($name), "`], and the door's refusals of `out`.")]
        pub fn $name_into(out: &AnyArray, x: &AnyArray) -> Result<(), Error> {
            into(stringify!($name_into), $which, out, &[x], &[out, x])
        }
    };
}

binary!(
    /// `x - y` in a fresh C-contiguous array on `x`'s device, of the broadcast shape.
    ///
    /// ```
    /// use nxrig::kernels::sub;
    /// use nxrig::{AnyArray, Array};
    /// let x: AnyArray = Array::<u8>::of_array(&[3], &[5, 0, 255])?.into();
    /// let y: AnyArray = Array::<u8>::of_array(&[1], &[1])?.into();
    /// assert_eq!(sub(&x, &y)?.expect::<u8>()?.to_vec()?, [4, 255, 254]); // wraps
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    sub, sub_into, Which::Binary(Arith::Sub), "`x - y`"
);
binary!(
    /// `x * y` in a fresh C-contiguous array on `x`'s device, of the broadcast shape.
    ///
    /// ```
    /// use nxrig::kernels::mul;
    /// use nxrig::{AnyArray, Array};
    /// use nxrig::half::bf16;
    /// let x: AnyArray = Array::from_vec(&[2], vec![bf16::from_f32(1.5), bf16::from_f32(-3.0)])?.into();
    /// let z = mul(&x, &x)?.expect::<bf16>()?.to_vec()?;
    /// assert_eq!(z, [bf16::from_f32(2.25), bf16::from_f32(9.0)]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    mul, mul_into, Which::Binary(Arith::Mul), "`x * y`"
);
binary!(
    /// `x / y` in a fresh C-contiguous array on `x`'s device, of the broadcast shape:
    /// floats correctly rounded; integers floor-divided as NumPy's `//` (`x // 0` is
    /// 0).
    ///
    /// ```
    /// use nxrig::kernels::div;
    /// use nxrig::{AnyArray, Array};
    /// let x: AnyArray = Array::<i32>::of_array(&[3], &[7, -7, 7])?.into();
    /// let y: AnyArray = Array::<i32>::of_array(&[3], &[2, 2, 0])?.into();
    /// assert_eq!(div(&x, &y)?.expect::<i32>()?.to_vec()?, [3, -4, 0]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    div, div_into, Which::Binary(Arith::Div), "`x / y`"
);
binary!(
    /// The greater of `x` and `y`, elementwise (a NaN first; `+0` over `-0`), in a
    /// fresh array of the broadcast shape.
    maximum, maximum_into, Which::Binary(Arith::Maximum), "the greater of `x` and `y`"
);
binary!(
    /// The lesser of `x` and `y`, elementwise (a NaN first; `-0` under `+0`), in a
    /// fresh array of the broadcast shape.
    minimum, minimum_into, Which::Binary(Arith::Minimum), "the lesser of `x` and `y`"
);
binary!(
    /// `x == y` in a fresh bool array of the broadcast shape (a NaN equals nothing;
    /// `-0 == +0`).
    ///
    /// ```
    /// use nxrig::kernels::eq;
    /// use nxrig::{AnyArray, Array};
    /// let x: AnyArray = Array::<f32>::of_array(&[3], &[0.0, f32::NAN, 1.0])?.into();
    /// let y: AnyArray = Array::<f32>::of_array(&[3], &[-0.0, f32::NAN, 2.0])?.into();
    /// assert_eq!(eq(&x, &y)?.expect::<bool>()?.to_vec()?, [true, false, false]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    eq, eq_into, Which::Binary(Arith::Eq), "`x == y`"
);
binary!(
    /// `x != y` in a fresh bool array of the broadcast shape (true where either is a
    /// NaN).
    ne, ne_into, Which::Binary(Arith::Ne), "`x != y`"
);
binary!(
    /// `x < y` in a fresh bool array of the broadcast shape (false where either is a
    /// NaN).
    lt, lt_into, Which::Binary(Arith::Lt), "`x < y`"
);
binary!(
    /// `x <= y` in a fresh bool array of the broadcast shape.
    le, le_into, Which::Binary(Arith::Le), "`x <= y`"
);
binary!(
    /// `x > y` in a fresh bool array of the broadcast shape.
    gt, gt_into, Which::Binary(Arith::Gt), "`x > y`"
);
binary!(
    /// `x >= y` in a fresh bool array of the broadcast shape.
    ge, ge_into, Which::Binary(Arith::Ge), "`x >= y`"
);
unary!(
    /// `-x` in a fresh C-contiguous array on `x`'s device (floats: the sign bit
    /// flipped, NaNs too; integers wrap).
    ///
    /// ```
    /// use nxrig::kernels::neg;
    /// use nxrig::{AnyArray, Array};
    /// let x: AnyArray = Array::<i8>::of_array(&[2], &[5, -128])?.into();
    /// assert_eq!(neg(&x)?.expect::<i8>()?.to_vec()?, [-5, -128]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    neg, neg_into, Which::Unary(Arith::Neg), "`-x`"
);
unary!(
    /// `|x|` in a fresh C-contiguous array on `x`'s device (floats: the sign bit
    /// cleared; signed integers wrap: `abs(MIN)` is `MIN`).
    abs, abs_into, Which::Unary(Arith::Abs), "`|x|`"
);

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
    made("select", Which::Select, &[cond, x, y])
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
        Which::Select,
        out,
        &[cond, x, y],
        &[out, cond, x, y],
    )
}
