//! Reading an array back into JavaScript: as a TypedArray (`toTypedArray`, raw bits or
//! exact values `as` another dtype), as nested JS arrays (`toArray`), and as text
//! (`toString`). Reads of GPU memory are async; nothing blocks.

use std::future::Future;
use std::pin::Pin;

use js_sys::{Array as JsList, Reflect};
use wasm_bindgen::prelude::*;

use super::array::NxArray;
use super::{args, js_error, typed};
use crate::dtype::Class;
use crate::rig::Buffer;
use crate::{AnyArray, DType};

/// A read under way, to its value (or the JS `Error`).
type Reading = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// The buffer of `a`'s C-contiguous bytes (made C-contiguous on its own device first
/// where it is not: a kernel, not a wait), with the array that owns it.
fn contiguous(a: &AnyArray) -> Result<(AnyArray, Buffer), JsError> {
    let (c, bytes) = match a.own_bytes() {
        Some(b) => (a.clone(), b),
        None => {
            let c = a.copy().map_err(js_error)?;
            let b = c.buffer().view(0, c.buffer().len());
            (c, b)
        }
    };
    Ok((c, bytes.map_err(js_error)?))
}

/// The dtype `toArray` reads `d` through, exactly: float64 for the floats and the
/// integers of 32 bits or fewer, complex128 for complex, the 64-bit integers and bool
/// as they are.
fn wide(d: DType) -> DType {
    match d.class() {
        Class::Complex => DType::Complex128,
        Class::Bool => DType::Bool,
        _ if d.bits() == 64 && d.class() != Class::Float => d,
        _ => DType::Float64,
    }
}

/// Element `i` of `bytes` (C-contiguous `d`, one of [`wide`]'s dtypes) as a JS value.
fn value(d: DType, bytes: &[u8], i: usize) -> JsValue {
    let at = |k: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[k * 8..k * 8 + 8]);
        w
    };
    match d {
        DType::Float64 => f64::from_le_bytes(at(i)).into(),
        DType::Int64 => js_sys::BigInt::from(i64::from_le_bytes(at(i))).into(),
        DType::Uint64 => js_sys::BigInt::from(u64::from_le_bytes(at(i))).into(),
        DType::Bool => (bytes[i] != 0).into(),
        _ => {
            let pair = JsList::new();
            pair.push(&f64::from_le_bytes(at(2 * i)).into());
            pair.push(&f64::from_le_bytes(at(2 * i + 1)).into());
            pair.into()
        }
    }
}

/// The nested arrays of `shape` over elements `first..` of `bytes`.
fn nest(d: DType, bytes: &[u8], shape: &[usize], first: usize) -> JsValue {
    match shape.split_first() {
        None => value(d, bytes, first),
        Some((&n, rest)) => {
            let step: usize = rest.iter().product();
            (0..n)
                .map(|k| nest(d, bytes, rest, first + k * step))
                .collect::<JsList>()
                .into()
        }
    }
}

/// The `as` option of `toTypedArray` (`{ as: 'float32' }`), if any.
fn as_option(options: &JsValue) -> Result<Option<DType>, JsError> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() || JsList::is_array(options) {
        return Err(super::js_invalid(&format!(
            "nxrig: the options are an object such as {{ as: 'float32' }}, got: {}",
            args::show(options)
        )));
    }
    let v = Reflect::get(options, &"as".into()).unwrap_or(JsValue::UNDEFINED);
    if v.is_undefined() {
        return Ok(None);
    }
    args::dtype(&v).map(Some)
}

#[wasm_bindgen]
impl NxArray {
    /// The elements in C order in a new TypedArray of the dtype's kind:
    /// `Float32Array` for float32, `Float16Array` for float16 where the engine has it
    /// (a `Uint16Array` of its bits otherwise), `Uint16Array` of raw bits for bfloat16,
    /// `Uint8Array` of raw bits for the float8s, `BigInt64Array` for int64,
    /// interleaved real and imaginary parts for complex, `Int8Array` (int4) or
    /// `Uint8Array` (uint4, float4_e2m1fn's bits, bool) one element a byte. With
    /// `{ as: dtype }`, the elements cast into `dtype` first (on the array's device):
    /// `{ as: 'float32' }` gives bfloat16, the float8s and float4 as exact float32
    /// values.
    ///
    /// Errors: a disposed array; an unknown dtype in `as`; a lost device (also when
    /// it is lost while the read is pending).
    #[wasm_bindgen(js_name = toTypedArray, unchecked_return_type = "Promise<Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array>")]
    pub fn to_typed_array(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ as?: string }")] options: JsValue,
    ) -> js_sys::Promise {
        let read = (|| -> Result<Reading, JsError> {
            let a = self.get()?;
            let a = match as_option(&options)? {
                Some(d) if d != a.dtype() => a.cast(d).map_err(js_error)?,
                _ => a.clone(),
            };
            let d = a.dtype();
            let shape = a.shape().to_vec();
            let (c, bytes) = contiguous(&a)?;
            Ok(if d.is_sub_byte() {
                let r = bytes.read_async();
                Box::pin(async move {
                    let bytes = r.await.map_err(js_error)?;
                    let bits = AnyArray::of_bytes(d, &shape, bytes)
                        .and_then(|h| h.to_bits_vec())
                        .map_err(js_error)?;
                    Ok(typed::unpacked(d, &bits).into())
                }) as Reading
            } else {
                // Host bytes go straight into a JS array: one copy.
                let r = bytes.read_js_async();
                Box::pin(async move {
                    let _keep = c;
                    let u8s = r.await.map_err(js_error)?;
                    Ok(typed::typed_of(d, &u8s).into())
                })
            })
        })();
        wasm_bindgen_futures::future_to_promise(async move { read?.await })
    }

    /// The elements as nested JS arrays of the shape (a rank-0 array gives its one
    /// value): numbers for the floats and the integers of 32 bits or fewer (exact),
    /// bigints for int64 and uint64, booleans for bool, `[re, im]` pairs for complex.
    /// As TensorFlow.js's `array()`.
    ///
    /// Errors: a disposed array; a lost device.
    #[wasm_bindgen(js_name = toArray, unchecked_return_type = "Promise<unknown>")]
    pub fn to_array(&self) -> js_sys::Promise {
        let read = (|| -> Result<Reading, JsError> {
            let a = self.get()?;
            let w = wide(a.dtype());
            let c = a.cast(w).map_err(js_error)?;
            let shape = a.shape().to_vec();
            let (c, bytes) = contiguous(&c)?;
            let r = bytes.read_async();
            Ok(Box::pin(async move {
                let _keep = c;
                let bytes = r.await.map_err(js_error)?;
                Ok(nest(w, &bytes, &shape, 0))
            }))
        })();
        wasm_bindgen_futures::future_to_promise(async move { read?.await })
    }

    /// The array as text: dtype, shape, device and, on the host, the first values
    /// (`NxArray(float32 [2, 3] on host: 1, 2, 3, 4, 5, 6)`); `NxArray(disposed)`.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_text(&self) -> String {
        match self.get() {
            Ok(a) => format!(
                "NxArray({})",
                crate::array::text(a, "values on the GPU, await toArray()")
            ),
            Err(_) => "NxArray(disposed)".into(),
        }
    }
}
