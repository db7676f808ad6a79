//! Arguments from JavaScript checked as a user of the field expects (onnxruntime-web
//! names the bad entry; nothing is coerced): shapes and axes as arrays of
//! non-negative safe integers, dtypes by name, TypedArrays whose kind matches the
//! dtype (raw bytes through a `Uint8Array`, `DataView` or `ArrayBuffer`).

use js_sys::{Array as JsList, Reflect};
use wasm_bindgen::prelude::*;

use super::js_type_error;
use crate::DType;

/// A value as a message shows it: strings quoted, numbers and bigints as JavaScript
/// writes them, anything else by its `typeof`.
pub(crate) fn show(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        format!("{s:?}")
    } else if let Some(x) = v.as_f64() {
        js_sys::Number::from(x)
            .to_string_with_radix(10)
            .map(String::from)
            .unwrap_or_else(|_| x.to_string())
    } else if v.is_bigint() {
        format!(
            "{}n",
            String::from(
                js_sys::BigInt::from(v.clone())
                    .to_string(10)
                    .unwrap_or_default()
            )
        )
    } else if v.is_null() {
        "null".into()
    } else if JsList::is_array(v) {
        "an array".into()
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    }
}

/// The entries of `v`, an array of non-negative safe integers (a shape, or axes),
/// named `what` in errors: `shape[0] must be a non-negative integer, got: -1`.
///
/// # Errors
/// `v` not an array; an entry that is not a number, not an integer, negative, above
/// 2^53 - 1, or above what a `usize` of this platform holds.
pub(crate) fn integers(v: &JsValue, what: &str) -> Result<Vec<usize>, JsError> {
    let Some(list) = v.dyn_ref::<JsList>() else {
        return Err(js_type_error(&format!(
            "nxrig: {what} must be an array of non-negative integers, got: {}",
            show(v)
        )));
    };
    list.iter()
        .enumerate()
        .map(|(i, x)| {
            let n = x.as_f64().filter(|n| {
                n.fract() == 0.0 && *n >= 0.0 && *n <= js_sys::Number::MAX_SAFE_INTEGER
            });
            match n {
                Some(n) if n <= usize::MAX as f64 => Ok(n as usize),
                None if x.as_f64().is_some_and(|n| n.fract() == 0.0 && n > 0.0) => {
                    Err(js_type_error(&format!(
                        "nxrig: {what}[{i}] is {}, above 2^53 - 1 (not a safe integer)",
                        show(&x)
                    )))
                }
                Some(n) => Err(js_type_error(&format!(
                    "nxrig: {what}[{i}] is {n}, more than this platform's arrays can hold"
                ))),
                None => Err(js_type_error(&format!(
                    "nxrig: {what}[{i}] must be a non-negative integer, got: {}",
                    show(&x)
                ))),
            }
        })
        .collect()
}

/// [`integers`] where `v` may be `undefined` (then `None`).
///
/// # Errors
/// As [`integers`].
pub(crate) fn optional_integers(v: &JsValue, what: &str) -> Result<Option<Vec<usize>>, JsError> {
    if v.is_undefined() {
        Ok(None)
    } else {
        integers(v, what).map(Some)
    }
}

/// The dtype `v` names: one of the dtypes' names exactly (`"float32"`, not `"f32"` or
/// `"float"`, which the Rust API's parser takes), as the `DType` type says.
///
/// # Errors
/// Not a string, or not one of the dtypes' names.
pub(crate) fn dtype(v: &JsValue) -> Result<DType, JsError> {
    let names = || {
        DType::ALL
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match v.as_string() {
        Some(s) => match s.parse::<DType>() {
            Ok(d) if d.name() == s => Ok(d),
            _ => Err(js_type_error(&format!(
                "nxrig: unknown dtype {s:?} (the names are exact: {}){}",
                names(),
                crate::dtype::meant(&s)
            ))),
        },
        None => Err(js_type_error(&format!(
            "nxrig: a dtype is a string (one of {}), got: {}",
            names(),
            show(v)
        ))),
    }
}

/// What a TypedArray's elements are to nxrig.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elements {
    /// Bytes of any dtype (`Uint8Array`, `Uint8ClampedArray`, `DataView`,
    /// `ArrayBuffer`).
    Raw,
    /// Int4 elements one a byte (an `Int8Array` given as int4), packed on the way in.
    UnpackedInt4,
    /// Elements of the dtype, as their TypedArray holds them.
    Typed,
}

/// The JavaScript type's name of `data` (`"Float32Array"`, `"ArrayBuffer"`, ...).
pub(crate) fn kind_of(data: &JsValue) -> String {
    Reflect::get(data, &js_sys::Symbol::to_string_tag())
        .ok()
        .and_then(|t| t.as_string())
        .unwrap_or_else(|| show(data))
}

/// The dtypes whose elements a TypedArray of kind `kind` holds (its rows' `typed_array`,
/// and float16's and complex32's bits in a `Uint16Array`; empty: raw bytes).
fn holds(kind: &str) -> Option<Vec<DType>> {
    const RAW: [&str; 5] = [
        "Uint8Array",
        "Uint8ClampedArray",
        "DataView",
        "ArrayBuffer",
        "SharedArrayBuffer",
    ];
    if RAW.contains(&kind) {
        return Some(Vec::new());
    }
    let ds: Vec<DType> = DType::ALL
        .into_iter()
        .filter(|d| {
            let t = d.row().typed_array;
            t == kind || (kind == "Uint16Array" && t == "Float16Array")
        })
        .collect();
    (!ds.is_empty()).then_some(ds)
}

/// How the elements of `data` become a `d` array, checking that its kind holds `d`
/// (a `Float64Array` is refused as float32 rather than read byte for byte).
///
/// # Errors
/// `data` not a TypedArray, `DataView` or `ArrayBuffer`; a kind that holds other
/// dtypes, the message naming both and how to pass raw bytes.
pub(crate) fn elements(data: &JsValue, d: DType) -> Result<Elements, JsError> {
    let kind = kind_of(data);
    let Some(ok) = holds(&kind) else {
        return Err(js_type_error(&format!(
            "nxrig: expected a TypedArray, a DataView or an ArrayBuffer, got: {kind}"
        )));
    };
    if ok.is_empty() {
        Ok(Elements::Raw)
    } else if d == DType::Int4 && kind == "Int8Array" {
        Ok(Elements::UnpackedInt4)
    } else if ok.contains(&d) {
        Ok(Elements::Typed)
    } else {
        let names: Vec<&str> = ok.iter().map(|x| x.name()).collect();
        Err(js_type_error(&format!(
            "nxrig: {} {kind} holds {} elements, not {d}: pass the TypedArray of {d} (see toTypedArray), or its bytes as a Uint8Array or ArrayBuffer",
            article(&kind),
            names.join(" or ")
        )))
    }
}

/// "a" or "an", as `word` needs.
pub(crate) fn article(word: &str) -> &'static str {
    if word.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Int4 elements one a byte (`data`, an `Int8Array`) packed two a byte, low nibble
/// first.
///
/// # Errors
/// An element outside -8..=7, named by its index.
pub(crate) fn pack_int4(data: &JsValue) -> Result<Vec<u8>, JsError> {
    let v: Vec<u8> = super::typed::bytes_of(data)?;
    if let Some(i) = v.iter().position(|&x| !(-8..=7).contains(&(x as i8))) {
        return Err(js_type_error(&format!(
            "nxrig: element {i} of the Int8Array is {}, outside int4's -8..7",
            v[i] as i8
        )));
    }
    Ok(v.chunks(2)
        .map(|p| (p[0] & 15) | (p.get(1).map_or(0, |&h| h & 15) << 4))
        .collect())
}

/// The element count of a `d` array over `len` bytes given as `e` (for raw bytes,
/// as many elements as the bytes hold).
pub(crate) fn count(d: DType, e: Elements, len: usize) -> usize {
    match e {
        Elements::UnpackedInt4 => len,
        _ => (len as u64 * 8 / d.bits() as u64) as usize,
    }
}
