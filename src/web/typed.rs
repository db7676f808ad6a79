//! TypedArrays and nxrig's bytes: the bytes a TypedArray views (its `byteOffset`
//! honoured), and the TypedArray that holds an array's elements.

use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::dtype::Class;
use crate::DType;

/// The buffer, byte offset and byte length of a TypedArray or DataView (an
/// `ArrayBuffer` is its own whole view).
pub(crate) fn view_of(data: &JsValue) -> Result<(JsValue, u32, u32), JsError> {
    if let Some(ab) = data.dyn_ref::<js_sys::ArrayBuffer>() {
        return Ok((ab.into(), 0, ab.byte_length()));
    }
    if !js_sys::ArrayBuffer::is_view(data) {
        return Err(super::js_type_error(
            "nxrig: expected a TypedArray, a DataView or an ArrayBuffer",
        ));
    }
    let get = |k: &str| Reflect::get(data, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    let n = |v: JsValue| v.as_f64().unwrap_or(0.0) as u32;
    Ok((get("buffer"), n(get("byteOffset")), n(get("byteLength"))))
}

/// The bytes `data` views, copied into wasm memory.
///
/// # Errors
/// Not a TypedArray, DataView or ArrayBuffer; more bytes than one wasm32 allocation
/// holds (2 GiB).
pub(crate) fn bytes_of(data: &JsValue) -> Result<Vec<u8>, JsError> {
    let (buffer, offset, len) = view_of(data)?;
    if len as usize > crate::rig::MAX_ALLOCATION {
        return Err(super::js_invalid(&format!(
            "nxrig: {len} bytes: more than one wasm32 allocation holds (2 GiB); open a checkpoint with openCheckpoint, which reads it a piece at a time"
        )));
    }
    Ok(Uint8Array::new_with_byte_offset_and_length(&buffer, offset, len).to_vec())
}

/// The TypedArray that holds elements of `d`, a dtype of whole bytes, given their
/// C-order little-endian bytes in `u8s` (which views its whole `ArrayBuffer`: the
/// result views the same one, no copy): the matching JS type for the numeric dtypes
/// (`BigInt64Array` for 64-bit integers, interleaved real and imaginary parts for
/// complex), `Float16Array` for float16 where the engine has it, the raw bits for
/// float16 elsewhere and for bfloat16 and the float8s (`Uint16Array`,
/// `Uint8Array`), one element a byte for bool (`Uint8Array`).
pub(crate) fn typed_of(d: DType, u8s: &Uint8Array) -> Object {
    let b = u8s.buffer();
    match d.row().typed_array {
        "Float32Array" => js_sys::Float32Array::new(&b).into(),
        "Float64Array" => js_sys::Float64Array::new(&b).into(),
        "Int8Array" => js_sys::Int8Array::new(&b).into(),
        "Int16Array" => js_sys::Int16Array::new(&b).into(),
        "Float16Array" => float16_array(&b),
        "Uint16Array" => js_sys::Uint16Array::new(&b).into(),
        "Int32Array" => js_sys::Int32Array::new(&b).into(),
        "Uint32Array" => js_sys::Uint32Array::new(&b).into(),
        "BigInt64Array" => js_sys::BigInt64Array::new(&b).into(),
        "BigUint64Array" => js_sys::BigUint64Array::new(&b).into(),
        _ => u8s.clone().into(),
    }
}

/// A `Float16Array` over `b` where the engine has one, else a `Uint16Array` of the
/// bits.
fn float16_array(b: &js_sys::ArrayBuffer) -> Object {
    let ctor = Reflect::get(&js_sys::global(), &"Float16Array".into()).ok();
    if let Some(f) = ctor.and_then(|c| c.dyn_into::<js_sys::Function>().ok()) {
        if let Ok(a) = Reflect::construct(&f, &js_sys::Array::of1(b)) {
            return a.unchecked_into();
        }
    }
    js_sys::Uint16Array::new(b).into()
}

/// The TypedArray of int4 (`Int8Array`) or uint4 (`Uint8Array`) elements, one a
/// byte, from their bit patterns.
pub(crate) fn unpacked(d: DType, bits: &[u128]) -> Object {
    if d.class() == Class::Signed {
        let s: Vec<i8> = bits.iter().map(|&b| ((b as u8) << 4) as i8 >> 4).collect();
        js_sys::Int8Array::from(&s[..]).into()
    } else {
        let s: Vec<u8> = bits.iter().map(|&b| b as u8).collect();
        Uint8Array::from(&s[..]).into()
    }
}
