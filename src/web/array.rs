//! Arrays for JavaScript: made from TypedArrays, moved without moving elements, cast,
//! placed on a device, disposed. Reading back is in `read.rs`.

use std::cell::RefCell;

use js_sys::Array as JsList;
use wasm_bindgen::prelude::*;

use super::args::{self, Elements};
use super::device::Device;
use super::{js_error, js_invalid, js_type_error, typed};
use crate::dtype::Class;
use crate::layout::{Move, Slice};
use crate::rig::Buffer;
use crate::AnyArray;

thread_local! {
    /// Host buffers whose bytes `view()` handed to JavaScript, so that `fromTypedArray`
    /// of such a view shares them instead of copying.
    static VIEWED: RefCell<Vec<Buffer>> = const { RefCell::new(Vec::new()) };
}

/// An n-dimensional array of one of nxrig's dtypes on a device: a dtype, a layout
/// (shape, strides and offset in elements) and a buffer. Views share the buffer;
/// `dispose()` gives its memory back once no view uses it.
///
/// ```js
/// import init, { Device, NxArray } from 'nxrig';
/// await init();
/// const a = NxArray.fromTypedArray(new Float32Array([1, 2, 3, 4]), 'float32', [2, 2]);
/// const t = a.permute([1, 0]).cast('bfloat16'); // a view, then one rounding
/// console.log(String(t), await t.toArray()); // [[1, 3], [2, 4]]
/// a.dispose();
/// ```
#[wasm_bindgen]
pub struct NxArray {
    a: Option<AnyArray>,
}

impl NxArray {
    pub(crate) fn new(a: AnyArray) -> NxArray {
        super::alive::made(a.rig().id());
        NxArray { a: Some(a) }
    }

    /// The array.
    ///
    /// # Errors
    /// The array was disposed.
    pub(crate) fn get(&self) -> Result<&AnyArray, JsError> {
        self.a
            .as_ref()
            .ok_or_else(|| js_invalid("nxrig: the array was disposed"))
    }

    fn moved(&self, m: Move) -> Result<NxArray, JsError> {
        Ok(NxArray::new(
            self.get()?.move_or_copy(&m).map_err(js_error)?,
        ))
    }
}

fn numbers(v: &[usize]) -> JsList {
    v.iter().map(|&x| JsValue::from_f64(x as f64)).collect()
}

/// `[start, stop, step]` (each a number, or null or absent for the default) as a Slice.
fn slice_of(v: &JsValue) -> Result<Slice, JsError> {
    let l: JsList = v
        .clone()
        .dyn_into()
        .ok()
        .filter(|l: &JsList| l.length() <= 3)
        .ok_or_else(|| {
            js_type_error(&format!(
                "nxrig: a slice is [start, stop, step] (each an integer or null), got: {}",
                args::show(v)
            ))
        })?;
    let at = |k: u32| -> Result<Option<isize>, JsError> {
        let x = l.get(k);
        if x.is_undefined() || x.is_null() {
            return Ok(None);
        }
        match x.as_f64() {
            Some(n) if n.fract() == 0.0 && n.abs() <= isize::MAX as f64 => Ok(Some(n as isize)),
            _ => Err(js_type_error(&format!(
                "nxrig: a slice's entries must be integers or null, got: {}",
                args::show(&x)
            ))),
        }
    };
    Ok(Slice::new(at(0)?, at(1)?, at(2)?.unwrap_or(1)))
}

#[wasm_bindgen]
impl NxArray {
    /// An array of `dtype` and `shape` (default: one axis, as many elements as
    /// `data` holds) over the elements of `data`. A TypedArray must be of the dtype's
    /// kind (as `toTypedArray` gives it: `Float32Array` for float32, `Uint16Array` of
    /// bits or `Float16Array` for float16, `Int8Array` one element a byte for int4,
    /// ...); a `Uint8Array`, `DataView` or `ArrayBuffer` gives raw bytes of any dtype
    /// (little-endian, C order; int4 and uint4 two a byte, low nibble first). Its
    /// `byteOffset` is honoured. Bytes that are a `view()` of an nxrig array are
    /// shared (no copy; the arrays then see each other's writes); others are copied
    /// once into wasm memory.
    ///
    /// Errors: an unknown dtype; a TypedArray of another kind (a `Float64Array` as
    /// float32); a shape that is not an array of non-negative integers; an element
    /// count that is not the shape's.
    #[wasm_bindgen(js_name = fromTypedArray)]
    pub fn from_typed_array(
        #[wasm_bindgen(unchecked_param_type = "ArrayBufferView | ArrayBuffer")] data: &JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] dtype: JsValue,
        #[wasm_bindgen(unchecked_param_type = "readonly number[] | undefined")] shape: JsValue,
    ) -> Result<NxArray, JsError> {
        let d = args::dtype(&dtype)?;
        let e = args::elements(data, d)?;
        let shape = args::optional_integers(&shape, "shape")?;
        let (buffer, offset, len) = typed::view_of(data)?;
        let (offset, len) = (offset as usize, len as usize);
        let given = args::count(d, e, len);
        if shape.is_none() && e == Elements::Raw && d.bytes(given).ok() != Some(len) {
            return Err(js_type_error(&format!(
                "nxrig: {len} bytes are not a whole number of {d} elements ({} bits each): give the shape",
                d.bits()
            )));
        }
        let shape = shape.unwrap_or_else(|| vec![given]);
        let n = crate::layout::numel(&shape).map_err(js_error)?;
        let fits = match e {
            Elements::UnpackedInt4 => n == len,
            _ => d.bytes(n).map_err(js_error)? == len,
        };
        if !fits {
            return Err(js_type_error(&match e {
                Elements::Raw => format!(
                    "nxrig: {len} bytes do not hold a {d} array of shape {shape:?} ({n} elements)"
                ),
                _ => {
                    let values = if e == Elements::UnpackedInt4 {
                        len
                    } else {
                        len / (d.storage_bytes() / if d.class() == Class::Complex { 2 } else { 1 })
                    };
                    let each = if d.class() == Class::Complex {
                        ", each two values: real and imaginary"
                    } else {
                        ""
                    };
                    format!(
                        "nxrig: a {} of {values} values does not hold a {d} array of shape {shape:?} ({n} elements{each})",
                        args::kind_of(data)
                    )
                }
            }));
        }
        if e == Elements::UnpackedInt4 {
            let bytes = args::pack_int4(data)?;
            return Ok(NxArray::new(
                AnyArray::of_bytes(d, &shape, bytes).map_err(js_error)?,
            ));
        }
        if buffer
            == wasm_bindgen::memory()
                .unchecked_into::<js_sys::WebAssembly::Memory>()
                .buffer()
        {
            let shared = VIEWED.with(|v| {
                v.borrow().iter().find_map(|b| {
                    let s = b.addr();
                    (offset >= s && offset + len <= s + b.len() && b.is_live())
                        .then(|| b.view(offset - s, len).ok())
                        .flatten()
                })
            });
            if let Some(b) = shared {
                let l = crate::Layout::contiguous(&shape).map_err(js_error)?;
                return Ok(NxArray::new(AnyArray::v(d, l, b).map_err(js_error)?));
            }
        }
        let bytes = typed::bytes_of(data)?;
        Ok(NxArray::new(
            AnyArray::of_bytes(d, &shape, bytes).map_err(js_error)?,
        ))
    }

    /// A fresh C-contiguous array of zeros on `device`.
    ///
    /// Errors: an unknown dtype; a shape that is not an array of non-negative
    /// integers; a shape too large for the device; a lost device.
    pub fn zeros(
        device: &Device,
        #[wasm_bindgen(unchecked_param_type = "string")] dtype: JsValue,
        #[wasm_bindgen(unchecked_param_type = "readonly number[]")] shape: JsValue,
    ) -> Result<NxArray, JsError> {
        let shape = args::integers(&shape, "shape")?;
        let a = AnyArray::create(&device.rig, args::dtype(&dtype)?, &shape).map_err(js_error)?;
        Ok(NxArray::new(a))
    }

    /// A `Uint8Array` over the array's own bytes in wasm memory (no copy), for a
    /// C-contiguous array on the host: writes through it change the array, and
    /// `fromTypedArray` of it shares the bytes. Valid until wasm memory grows (the next
    /// allocation may do so); take a new view then.
    ///
    /// Errors: an array that is not C-contiguous at offset 0 on the host.
    pub fn view(&self) -> Result<js_sys::Uint8Array, JsError> {
        let a = self.get()?;
        let l = a.layout();
        if !a.rig().host_addressable() || !l.is_contiguous() || l.offset() != 0 {
            return Err(js_invalid(
                "nxrig: view() needs a C-contiguous array at offset 0 on the host",
            ));
        }
        let len = a.dtype().bytes(l.numel()).map_err(js_error)?;
        let b = a.buffer().clone();
        VIEWED.with(|v| {
            let mut v = v.borrow_mut();
            v.retain(|x| x.is_live());
            if !v.iter().any(|x| x.same_memory(&b)) {
                v.push(b.clone());
            }
        });
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        Ok(js_sys::Uint8Array::new_with_byte_offset_and_length(
            &memory.buffer(),
            b.addr() as u32,
            len as u32,
        ))
    }

    /// The dtype's name (`"float32"`, `"bfloat16"`, `"int4"`, ...).
    #[wasm_bindgen(getter)]
    pub fn dtype(&self) -> Result<String, JsError> {
        Ok(self.get()?.dtype().name().to_owned())
    }

    /// The shape: an extent an axis.
    #[wasm_bindgen(getter, unchecked_return_type = "number[]")]
    pub fn shape(&self) -> Result<JsList, JsError> {
        Ok(numbers(self.get()?.shape()))
    }

    /// The strides, in elements (negative for flipped axes, 0 for broadcast ones).
    #[wasm_bindgen(getter, unchecked_return_type = "number[]")]
    pub fn strides(&self) -> Result<JsList, JsError> {
        let s = self.get()?.layout().strides();
        Ok(s.iter().map(|&x| JsValue::from_f64(x as f64)).collect())
    }

    /// The position of the first element in the buffer, in elements.
    #[wasm_bindgen(getter)]
    pub fn offset(&self) -> Result<usize, JsError> {
        Ok(self.get()?.layout().offset())
    }

    /// The number of elements.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> Result<usize, JsError> {
        Ok(self.get()?.layout().numel())
    }

    /// Bytes the elements take in C-contiguous form.
    #[wasm_bindgen(getter, js_name = byteLength)]
    pub fn byte_length(&self) -> Result<usize, JsError> {
        let a = self.get()?;
        a.dtype().bytes(a.layout().numel()).map_err(js_error)
    }

    /// True for a floating-point dtype (float16 to float64).
    #[wasm_bindgen(getter, js_name = isFloat)]
    pub fn is_float(&self) -> Result<bool, JsError> {
        Ok(self.get()?.dtype().is_float())
    }

    /// The device the array lives on.
    #[wasm_bindgen(getter)]
    pub fn device(&self) -> Result<Device, JsError> {
        Ok(Device {
            rig: self.get()?.rig().clone(),
        })
    }

    /// The array with `shape` (as many elements): a view where one exists, else a copy.
    ///
    /// Errors: a shape of another element count.
    pub fn reshape(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly number[]")] shape: JsValue,
    ) -> Result<NxArray, JsError> {
        let shape = args::integers(&shape, "shape")?;
        self.moved(Move::Reshape(shape))
    }

    /// The axes in the order `axes` gives (a view).
    ///
    /// Errors: `axes` not a permutation of the axes.
    pub fn permute(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly number[]")] axes: JsValue,
    ) -> Result<NxArray, JsError> {
        let axes = args::integers(&axes, "axes")?;
        self.moved(Move::Permute(axes))
    }

    /// The array broadcast to `shape` (unit axes repeated at stride 0; a view).
    ///
    /// Errors: a shape the array does not broadcast to.
    pub fn expand(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly number[]")] shape: JsValue,
    ) -> Result<NxArray, JsError> {
        let shape = args::integers(&shape, "shape")?;
        self.moved(Move::Expand(shape))
    }

    /// The array with `axes` reversed (negative strides; a view).
    ///
    /// Errors: an axis out of range or repeated.
    pub fn flip(
        &self,
        #[wasm_bindgen(unchecked_param_type = "readonly number[]")] axes: JsValue,
    ) -> Result<NxArray, JsError> {
        let axes = args::integers(&axes, "axes")?;
        self.moved(Move::Flip(axes))
    }

    /// NumPy's slicing, one `[start, stop, step]` an axis from the first (null or
    /// absent for the defaults; negative counts from the end): a view.
    ///
    /// Errors: more slices than axes, a step of 0.
    pub fn slice(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Array<[number | null, number | null, number?]>")]
        slices: JsList,
    ) -> Result<NxArray, JsError> {
        let s: Vec<Slice> = slices
            .iter()
            .map(|v| slice_of(&v))
            .collect::<Result<_, _>>()?;
        self.moved(Move::Slice(s))
    }

    /// The same bytes read as `dtype`: narrower dtypes add a trailing axis, wider ones
    /// take it away (a view: no byte moves).
    ///
    /// Errors: an unknown dtype; a layout the bytes cannot be read as `dtype` in
    /// place (misaligned, or a trailing axis that is not contiguous).
    pub fn bitcast(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] dtype: JsValue,
    ) -> Result<NxArray, JsError> {
        let d = args::dtype(&dtype)?;
        match self.get()?.bitcast(d).map_err(js_error)? {
            Some(a) => Ok(NxArray::new(a)),
            None => Err(js_invalid(&format!(
                "nxrig: this layout cannot be read as {d} in place"
            ))),
        }
    }

    /// A fresh C-contiguous array on the same device, each element converted into
    /// `dtype` (rounded once to nearest, ties to even; into the same dtype, a copy of
    /// every bit). A value past a float dtype's largest finite becomes its infinity
    /// (else its NaN) as ml_dtypes casts; with `{ saturate: true }` the largest
    /// finite of its sign, an infinity too (a NaN stays a NaN).
    ///
    /// Errors: an unknown dtype or option; a freed or donated array; a lost device.
    pub fn cast(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] dtype: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{ saturate?: boolean }")] options: JsValue,
    ) -> Result<NxArray, JsError> {
        let d = args::dtype(&dtype)?;
        let mode = cast_mode(&options)?;
        Ok(NxArray::new(
            self.get()?.cast_with(d, mode).map_err(js_error)?,
        ))
    }

    /// A fresh C-contiguous copy on the same device, bit for bit.
    ///
    /// Errors: a freed array; a lost device.
    pub fn copy(&self) -> Result<NxArray, JsError> {
        Ok(NxArray::new(self.get()?.copy().map_err(js_error)?))
    }

    /// The array's elements on `device`, bit for bit (NaN payloads kept).
    ///
    /// Errors: a freed array; a lost device (also when it is lost while the copy is
    /// under way).
    #[wasm_bindgen(js_name = toDevice, unchecked_return_type = "Promise<NxArray>")]
    pub fn to_device(&self, device: &Device) -> js_sys::Promise {
        let (a, rig) = (self.get().cloned(), device.rig.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            let a = a?.to_device_async(&rig).await.map_err(js_error)?;
            Ok(NxArray::new(a).into())
        })
    }

    /// Gives the array's handle up (as `free()`, which is this): its memory goes back
    /// once no other array uses it. A second call does nothing; every other use of
    /// the array then fails with "the array was disposed". `using a = ...` calls it.
    pub fn dispose(&mut self) {
        if let Some(a) = self.a.take() {
            forget(&a);
        }
    }

    /// True once `dispose()` (or `free()`) was called.
    #[wasm_bindgen(getter, js_name = isDisposed)]
    pub fn is_disposed(&self) -> bool {
        self.a.is_none()
    }
}

/// What JavaScript held of `a` goes: its count, and its bytes from the viewed set
/// once no other array shares them.
fn forget(a: &AnyArray) {
    super::alive::disposed(a.rig().id());
    VIEWED.with(|v| v.borrow_mut().retain(|x| !x.same_memory(a.buffer())));
}

impl Drop for NxArray {
    /// `free()` from JavaScript (or the garbage collector) gives the handle up: the
    /// memory goes back once no other array uses it; the array's `view()` bytes are
    /// copied, not shared, by later `fromTypedArray` calls.
    fn drop(&mut self) {
        self.dispose();
    }
}

/// The mode of `cast`'s options (`{ saturate: true }`), the default where absent.
fn cast_mode(options: &JsValue) -> Result<crate::dtype::CastMode, JsError> {
    use crate::dtype::CastMode;
    if options.is_undefined() || options.is_null() {
        return Ok(CastMode::Default);
    }
    let bad = || {
        super::js_type_error(&format!(
            "nxrig: the options are an object such as {{ saturate: true }}, got: {}",
            args::show(options)
        ))
    };
    if !options.is_object() || js_sys::Array::is_array(options) {
        return Err(bad());
    }
    for k in js_sys::Object::keys(options.unchecked_ref::<js_sys::Object>()).iter() {
        if k.as_string().as_deref() != Some("saturate") {
            return Err(super::js_type_error(&format!(
                "nxrig: unknown option {} (it takes saturate)",
                args::show(&k)
            )));
        }
    }
    match js_sys::Reflect::get(options, &"saturate".into())
        .unwrap_or(JsValue::UNDEFINED)
        .as_bool()
    {
        Some(true) => Ok(CastMode::Saturate),
        Some(false) => Ok(CastMode::Default),
        None => Err(bad()),
    }
}
