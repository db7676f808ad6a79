//! `.safetensors` files for JavaScript: read from bytes, tensors replaced, written back
//! as the command line writes them.

use wasm_bindgen::prelude::*;

use super::array::NxArray;
use super::{js_error, js_invalid, typed};
use crate::formats::{self, Format, Tensor};
use crate::rig::Buffer;

/// The tensors of a `.safetensors` file, in the file's order, and its metadata.
///
/// ```js
/// import init, { loadSafetensors } from 'nxrig';
/// await init();
/// const file = loadSafetensors(new Uint8Array(await (await fetch('small.safetensors')).arrayBuffer()));
/// file.set(file.names[0], file.get(file.names[0]).cast('bfloat16'));
/// const bytes = file.toBytes(); // what `nxrig convert` writes
/// ```
#[wasm_bindgen]
pub struct TensorFile {
    file: formats::TensorFile,
}

/// Reads `.safetensors` bytes (an `ArrayBuffer`, a TypedArray or a DataView; copied
/// once into wasm memory, the tensors are views of that copy).
///
/// Errors: a truncated or corrupt header, data out of the file or overlapping, a dtype
/// nxrig does not know; the message names the tensor.
#[wasm_bindgen(js_name = loadSafetensors)]
pub fn load_safetensors(bytes: &JsValue) -> Result<TensorFile, JsError> {
    let b = Buffer::of_vec(typed::bytes_of(bytes)?);
    let file = formats::read_safetensors_bytes("the file", b).map_err(js_error)?;
    Ok(TensorFile { file })
}

impl TensorFile {
    /// The position of the tensor named `name`.
    fn index(&self, name: &str) -> Result<usize, JsError> {
        self.file
            .tensors
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| js_invalid(&format!("nxrig: the file has no tensor named {name:?}")))
    }
}

#[wasm_bindgen]
impl TensorFile {
    /// An empty file, for tensors of your own (`set`), written with `toBytes`.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> TensorFile {
        TensorFile {
            file: formats::TensorFile::default(),
        }
    }

    /// The tensors' names, in the file's order.
    #[wasm_bindgen(getter)]
    pub fn names(&self) -> Vec<String> {
        self.file.tensors.iter().map(|t| t.name.clone()).collect()
    }

    /// The number of tensors.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.file.tensors.len()
    }

    /// The file's `__metadata__` as a JSON object's text (`"{}"` when it has none).
    #[wasm_bindgen(getter)]
    pub fn metadata(&self) -> String {
        let mut m: Vec<(String, String)> = self
            .file
            .metadata
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        m.sort();
        let o = js_sys::Object::new();
        for (k, v) in m {
            let _ = js_sys::Reflect::set(&o, &k.into(), &v.into());
        }
        js_sys::JSON::stringify(&o)
            .map(String::from)
            .unwrap_or_else(|_| "{}".into())
    }

    /// The tensor named `name` (an array over the file's bytes: no copy).
    ///
    /// Errors: no tensor has that name.
    pub fn get(&self, name: &str) -> Result<NxArray, JsError> {
        let k = self.index(name)?;
        Ok(NxArray::new(self.file.tensors[k].array.clone()))
    }

    /// Puts `array` (any dtype and shape) in the file under `name`: in place of the
    /// tensor of that name, or after the others where there is none. It must be on the
    /// host: `await a.toDevice(Device.host())` first.
    ///
    /// Errors: an array on a GPU; a freed array.
    pub fn set(&mut self, name: &str, array: &NxArray) -> Result<(), JsError> {
        let a = array.get()?;
        if !a.rig().host_addressable() {
            return Err(js_invalid(
                "nxrig: the array is on a GPU: await a.toDevice(Device.host()) first",
            ));
        }
        let t = Tensor {
            name: name.to_owned(),
            array: a.clone(),
        };
        match self.index(name) {
            Ok(k) => self.file.tensors[k] = t,
            Err(_) => self.file.tensors.push(t),
        }
        Ok(())
    }

    /// The file's `.safetensors` bytes, as `nxrig convert` writes them (tensors sorted
    /// by name, the metadata kept): byte for byte the same for the same tensors.
    ///
    /// Errors: a dtype `.safetensors` cannot hold (int4, uint4, complex128).
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> Result<Vec<u8>, JsError> {
        formats::encode(Format::Safetensors, "the file", &self.file).map_err(js_error)
    }
}
