//! nxrig's elementwise operations for JavaScript: `add`, each row of the operations'
//! table (`sub`, `mul`, ..., the comparisons) and `where`, each into a fresh
//! array on its first operand's device (`crate::kernels`' rules, the same bits on
//! the host and WebGPU), or into an array given (`operationInto`).

use wasm_bindgen::prelude::*;

use super::array::NxArray;
use super::js_error;
use crate::dtype::operations::with_operations;
use crate::kernels as k;

/// `add`: `x + y` elementwise in a fresh array on `x`'s device, NumPy's
/// broadcasting, one dtype: floats rounded once, integers wrap, bool is or.
///
/// Errors: dtypes or devices that differ, shapes that do not broadcast, a freed
/// array.
#[wasm_bindgen]
pub fn add(x: &NxArray, y: &NxArray) -> Result<NxArray, JsError> {
    Ok(NxArray::new(k::add(x.get()?, y.get()?).map_err(js_error)?))
}

/// The export of each row of the operations' table (`dtype/operations/rows.rs`), its
/// documentation the row's `js` line.
macro_rules! exports {
    ($(($v:ident $name:ident $into:ident ($($arg:ident),+) $res:ident $doc:tt $what:literal
        $verb:literal $js:literal $($rest:tt)*))*) => {$(
        #[doc = $js]
        ///
        /// Errors: dtypes or devices that differ, a dtype without the operation,
        /// shapes that do not broadcast, a freed array.
        #[wasm_bindgen]
        pub fn $name($($arg: &NxArray),+) -> Result<NxArray, JsError> {
            Ok(NxArray::new(k::$name($($arg.get()?),+).map_err(js_error)?))
        }
    )*};
}

with_operations!(exports);

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
    let a: Vec<&crate::AnyArray> = operands.arrays.iter().collect();
    let o = out.get()?;
    let given = |n: usize| JsError::new(&format!("nxrig: {} arrays given, {n} taken", a.len()));
    match name {
        "add" => match a[..] {
            [x, y] => k::add_into(o, x, y).map_err(js_error),
            _ => Err(given(2)),
        },
        "where" => match a[..] {
            [c, x, y] => k::select_into(o, c, x, y).map_err(js_error),
            _ => Err(given(3)),
        },
        n => match k::Operation::of_name(n) {
            Some(op) => k::operation_into(op, o, &a).map_err(js_error),
            None => Err(JsError::new(&format!("nxrig: no operation is named {n:?}"))),
        },
    }
}
