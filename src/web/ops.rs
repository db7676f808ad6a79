//! nxrig's elementwise operations for JavaScript: `add`, `sub`, `mul`, `div`,
//! `maximum`, `minimum`, `neg`, `abs`, the comparisons and `where`, each into a fresh
//! array on its first operand's device (`crate::kernels`' rules, the same bits on
//! the host and WebGPU), or into an array given (`operationInto`).

use wasm_bindgen::prelude::*;

use super::array::NxArray;
use super::js_error;
use crate::kernels as k;

macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident)*) => {$(
        $(#[$doc])*
        ///
        /// Errors: dtypes or devices that differ, a dtype without the operation, shapes
        /// that do not broadcast, a freed array.
        #[wasm_bindgen]
        pub fn $name(x: &NxArray, y: &NxArray) -> Result<NxArray, JsError> {
            Ok(NxArray::new(k::$name(x.get()?, y.get()?).map_err(js_error)?))
        }
    )*};
}

binary! {
    /// `x + y` elementwise in a fresh array on `x`'s device, NumPy's broadcasting,
    /// one dtype: floats rounded once, integers wrap, bool is or.
    add
    /// `x - y` elementwise (floats rounded once, integers wrap).
    sub
    /// `x * y` elementwise (floats rounded once, integers wrap, bool is and).
    mul
    /// `x / y` elementwise (floats rounded once; integers floor-divide, `x / 0` is 0).
    div
    /// The greater of `x` and `y` elementwise (a NaN first, `+0` over `-0`).
    maximum
    /// The lesser of `x` and `y` elementwise (a NaN first, `-0` under `+0`).
    minimum
    /// `x == y` elementwise, into bool.
    eq
    /// `x != y` elementwise, into bool.
    ne
    /// `x < y` elementwise, into bool.
    lt
    /// `x <= y` elementwise, into bool.
    le
    /// `x > y` elementwise, into bool.
    gt
    /// `x >= y` elementwise, into bool.
    ge
}

/// `-x` elementwise (floats: the sign flipped; integers wrap).
///
/// Errors: a dtype without negation (bool), a freed array.
#[wasm_bindgen]
pub fn neg(x: &NxArray) -> Result<NxArray, JsError> {
    Ok(NxArray::new(k::neg(x.get()?).map_err(js_error)?))
}

/// `|x|` elementwise (floats: the sign cleared; integers wrap).
///
/// Errors: a dtype without it (complex), a freed array.
#[wasm_bindgen]
pub fn abs(x: &NxArray) -> Result<NxArray, JsError> {
    Ok(NxArray::new(k::abs(x.get()?).map_err(js_error)?))
}

/// NumPy's `where`: `x` where the bool `cond` is true, else `y`, broadcast, bit for
/// bit.
///
/// Errors: a `cond` not bool, `x` and `y` of different dtypes, devices that differ,
/// shapes that do not broadcast, a freed array.
#[wasm_bindgen(js_name = "where")]
pub fn select(cond: &NxArray, x: &NxArray, y: &NxArray) -> Result<NxArray, JsError> {
    Ok(NxArray::new(
        k::select(cond.get()?, x.get()?, y.get()?).map_err(js_error)?,
    ))
}

/// The operation `name` (`add`, `sub`, ..., `abs`, `where`) of `operands` (in its
/// order) stored into `out`, written in place whatever its layout (it may be an
/// operand itself); the npm entry's `{ out }` option.
///
/// Errors: a name of no operation, a count of operands other than its, and what the
/// operation's `_into` refuses (an `out` of another dtype or shape than the result's,
/// read-only, repeating elements, overlapping an operand without being it).
#[wasm_bindgen(js_name = operationInto)]
pub fn operation_into(
    name: &str,
    out: &NxArray,
    operands: &super::elementwise::Operands,
) -> Result<(), JsError> {
    let a = &operands.arrays;
    let o = out.get()?;
    let two =
        |f: fn(&crate::AnyArray, &crate::AnyArray, &crate::AnyArray) -> crate::Result<()>| match &a
            [..]
        {
            [x, y] => f(o, x, y).map_err(js_error),
            _ => Err(JsError::new(&format!(
                "nxrig: {} arrays given, 2 taken",
                a.len()
            ))),
        };
    let one = |f: fn(&crate::AnyArray, &crate::AnyArray) -> crate::Result<()>| match &a[..] {
        [x] => f(o, x).map_err(js_error),
        _ => Err(JsError::new(&format!(
            "nxrig: {} arrays given, 1 taken",
            a.len()
        ))),
    };
    match name {
        "add" => two(k::add_into),
        "sub" => two(k::sub_into),
        "mul" => two(k::mul_into),
        "div" => two(k::div_into),
        "maximum" => two(k::maximum_into),
        "minimum" => two(k::minimum_into),
        "eq" => two(k::eq_into),
        "ne" => two(k::ne_into),
        "lt" => two(k::lt_into),
        "le" => two(k::le_into),
        "gt" => two(k::gt_into),
        "ge" => two(k::ge_into),
        "neg" => one(k::neg_into),
        "abs" => one(k::abs_into),
        "where" => match &a[..] {
            [c, x, y] => k::select_into(o, c, x, y).map_err(js_error),
            _ => Err(JsError::new(&format!(
                "nxrig: {} arrays given, 3 taken",
                a.len()
            ))),
        },
        n => Err(JsError::new(&format!("nxrig: no operation is named {n:?}"))),
    }
}
