//! Checkpoints of any size for JavaScript: opened from sources that read byte ranges
//! on demand, a tensor loaded onto a device a piece at a time, converted into sinks
//! that write a stream of bytes. The sources and sinks are JavaScript objects that
//! `js/index.js` makes from `File`s, `Blob`s, URLs, `WritableStream`s, folder handles
//! (and `js/node.js` from Node's paths and file handles); the conversion is the
//! library's ([`crate::convert`]), so its bytes are the command line's.

use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::array::NxArray;
use super::device::Device;
use super::js_error;
use super::js_io::JsSource;
use crate::convert;
use crate::error::Error;
use crate::formats::Format;

/// A checkpoint opened from its headers: one file, or a sharded checkpoint's index
/// and shards. Made by `openCheckpoint`.
///
/// ```js
/// import init, { openCheckpoint } from 'nxrig';
/// await init();
/// const ck = await openCheckpoint(fileInput.files); // headers only
/// for (const t of ck.tensors) console.log(t.name, t.dtype, t.shape, t.byteLength);
/// const w = await ck.load(ck.tensors[0].name); // one tensor, a piece at a time
/// ```
#[wasm_bindgen]
pub struct Checkpoint {
    pub(super) ck: Rc<convert::Checkpoint<JsSource>>,
}

/// Opens one file from `source` (`{ name, size, read }`), its header only; a `.npy`
/// file's void elements (`|V1`, `<V2`) read as `npy_dtype` (a dtype's name or alias,
/// as `Checkpoint::open_as` takes it). Called by `openCheckpoint` in `js/index.js`.
#[wasm_bindgen(js_name = openCheckpointFile)]
pub async fn open_checkpoint_file(
    source: JsValue,
    npy_dtype: Option<String>,
) -> Result<Checkpoint, JsError> {
    let s = JsSource::of(source)?;
    let format = Format::of_input(&s.name);
    let npy_dtype = npy_dtype
        .map(|d| d.parse::<crate::DType>())
        .transpose()
        .map_err(js_error)?;
    let ck = convert::Checkpoint::open_as(s, format, npy_dtype)
        .await
        .map_err(js_error)?;
    Ok(Checkpoint { ck: Rc::new(ck) })
}

/// Opens a GGUF file split in several (`PREFIX-00001-of-00003.gguf`, ...): `splits` their
/// sources `{ name, size, read }` in order, as `Checkpoint::open_gguf_split` takes them.
/// Called by `openCheckpoint` in `js/checkpoint.js`.
#[wasm_bindgen(js_name = openCheckpointGgufSplit)]
pub async fn open_checkpoint_gguf_split(splits: Vec<JsValue>) -> Result<Checkpoint, JsError> {
    let sources = splits
        .into_iter()
        .map(|s| JsSource::of(s).map(|s| (s.name.clone(), s)))
        .collect::<Result<Vec<_>, _>>()?;
    let ck = convert::Checkpoint::open_gguf_split(sources)
        .await
        .map_err(js_error)?;
    Ok(Checkpoint { ck: Rc::new(ck) })
}

/// The shard files that a sharded checkpoint's index names, each once in order of
/// name: the index parsed and checked here (no shard outside the index's folder), so
/// that `openCheckpoint` (`js/checkpoint.js`, `js/node.js`) finds the shards to open
/// without reading the JSON itself.
#[wasm_bindgen(js_name = indexShards)]
pub fn index_shards(index_name: &str, index_text: &str) -> Result<Vec<String>, JsError> {
    let ix = crate::formats::index::Index::parse(index_name, index_text).map_err(js_error)?;
    Ok(ix.shards().into_iter().map(str::to_owned).collect())
}

/// Opens a sharded checkpoint: the index's file name and text, and `shard(name)`
/// giving each shard's source (or `undefined` where none was given). Called by
/// `openCheckpoint` in `js/index.js`.
#[wasm_bindgen(js_name = openCheckpointSharded)]
pub async fn open_checkpoint_sharded(
    index_name: String,
    index_text: String,
    shard: Function,
) -> Result<Checkpoint, JsError> {
    let ck = convert::Checkpoint::open_sharded(&index_name, &index_text, |name| {
        let s = shard
            .call1(&JsValue::NULL, &name.into())
            .unwrap_or(JsValue::UNDEFINED);
        if s.is_undefined() || s.is_null() {
            return Err(Error::Format {
                path: index_name.clone(),
                tensor: None,
                reason: format!("the index names shard {name:?}, which was not given"),
            });
        }
        JsSource::of(s).map_err(|_| Error::Format {
            path: name.to_owned(),
            tensor: None,
            reason: "the shard's source has no size (its length in bytes)".into(),
        })
    })
    .await
    .map_err(js_error)?;
    Ok(Checkpoint { ck: Rc::new(ck) })
}

#[wasm_bindgen]
impl Checkpoint {
    /// Every tensor: `{ name, dtype, isFloat, shape, byteLength, shard }` (`isFloat`:
    /// its dtype is a float, not complex, the tensors a conversion casts when its
    /// option `tensors` is absent; `shard`: its file's name; a GGUF file's
    /// block-quantized tensor also `ggmlType`, as `"Q4_K"`, its `dtype` float32),
    /// shard by shard in order of name, each in the order of its bytes.
    #[wasm_bindgen(getter, unchecked_return_type = "TensorInfo[]")]
    pub fn tensors(&self) -> js_sys::Array {
        self.ck
            .tensors()
            .map(|(s, e)| {
                let o = js_sys::Object::new();
                let set = |k: &str, v: JsValue| {
                    let _ = Reflect::set(&o, &k.into(), &v);
                };
                set("name", e.name.as_str().into());
                set("dtype", e.dtype.name().into());
                set("isFloat", e.dtype.is_float().into());
                let shape: js_sys::Array = e
                    .shape
                    .iter()
                    .map(|&n| JsValue::from_f64(n as f64))
                    .collect();
                set("shape", shape.into());
                set("byteLength", (e.len as f64).into());
                set("shard", s.name.as_str().into());
                if let Some(q) = e.ggml {
                    set("ggmlType", q.name.into());
                }
                JsValue::from(o)
            })
            .collect()
    }

    /// The metadata as JSON text: a file's `__metadata__`, a GGUF file's key-values (an
    /// array of more than 64 elements as `{ type, length }`), or a sharded checkpoint's
    /// index `metadata` (`"{}"` where there is none).
    #[wasm_bindgen(getter, js_name = metadataJson)]
    pub fn metadata_json(&self) -> String {
        let gguf = self.ck.shards.first().and_then(|s| s.header.gguf.as_ref());
        if let (None, Some(g)) = (&self.ck.index, gguf) {
            let values = g.values.iter().cloned().collect();
            return serde_json::Value::Object(values).to_string();
        }
        match &self.ck.index {
            Some((_, i)) => serde_json::Value::Object(i.metadata.clone()).to_string(),
            None => serde_json::to_string(
                &self.ck.shards[0]
                    .header
                    .metadata
                    .clone()
                    .unwrap_or_default(),
            )
            .unwrap_or_else(|_| "{}".into()),
        }
    }

    /// The files: one, or a sharded checkpoint's shards in order of name.
    #[wasm_bindgen(getter)]
    pub fn files(&self) -> Vec<String> {
        self.ck.shards.iter().map(|s| s.name.clone()).collect()
    }

    /// Whether it is a sharded checkpoint (an index and its shards).
    #[wasm_bindgen(getter)]
    pub fn sharded(&self) -> bool {
        self.ck.index.is_some()
    }

    /// Makes this checkpoint a model's folder: `config` the text of its
    /// `config.json`, `hf_quant` of its `hf_quant_config.json` (each absent where the
    /// folder has none), `others` its other files as sources `{ name, size, read }`
    /// (tokenizer, generation configuration), copied as they are into a converted
    /// folder. A converted folder is then a folder too: its tensors' files under their
    /// names, `config.json` rewritten. Called by `openCheckpoint` in
    /// `js/checkpoint.js` for a folder with a `config.json`.
    ///
    /// Errors: a configuration that is not a JSON object (over 16 MiB); a source
    /// without a size; a checkpoint already in use (a load or conversion running).
    #[wasm_bindgen(js_name = setFolder)]
    pub fn set_folder(
        &mut self,
        config: Option<String>,
        hf_quant: Option<String>,
        others: Vec<JsValue>,
    ) -> Result<(), JsError> {
        let parse = |name: &str, text: Option<String>| {
            text.map(|t| convert::parse_config(name, t.as_bytes()))
                .transpose()
                .map_err(js_error)
        };
        let mut folder = convert::Folder {
            config: parse("config.json", config)?,
            hf_quant: parse("hf_quant_config.json", hf_quant)?,
            others: Vec::new(),
        };
        for o in others {
            let s = JsSource::of(o)?;
            folder.others.push((s.name.clone(), s));
        }
        let ck = Rc::get_mut(&mut self.ck).ok_or_else(|| {
            JsError::new("Checkpoint.setFolder: the checkpoint is in use (a load or a conversion)")
        })?;
        ck.folder = Some(folder);
        Ok(())
    }

    /// Whether it is a model's folder (opened with its `config.json`): it converts
    /// into a folder.
    #[wasm_bindgen(getter)]
    pub fn folder(&self) -> bool {
        self.ck.folder.is_some()
    }

    /// The block-scaled scheme its folder's configuration names (`'fp8-block'`,
    /// `'mxfp4'`, `'nvfp4'`, `'gptq'`, ...: the command line's `--scheme` names), or
    /// `null` where it names none (or none nxrig knows: `convertCheckpoint` then says
    /// why).
    #[wasm_bindgen(getter)]
    pub fn scheme(&self) -> JsValue {
        let name = self.ck.folder.as_ref().and_then(|f| {
            crate::quant::Quantization::detect(
                f.config.as_ref(),
                f.hf_quant.as_ref(),
                &crate::quant::Choice::default(),
            )
            .ok()
            .flatten()
        });
        name.map_or(JsValue::NULL, |q| JsValue::from_str(q.scheme.name))
    }

    /// The bytes of every tensor.
    #[wasm_bindgen(getter, js_name = byteLength)]
    pub fn byte_length(&self) -> f64 {
        self.ck.bytes() as f64
    }

    /// The tensor `name` on `device` (the host when absent: `js/index.js` gives it),
    /// reading only its bytes,
    /// a piece at a time: a WebGPU device gets each piece uploaded as it is read.
    ///
    /// Errors: no such tensor; a read that fails (naming the file and tensor); an
    /// array the device cannot hold (2 GiB or more on the host, whose one wasm32
    /// allocation stops below 2 GiB).
    #[wasm_bindgen(unchecked_return_type = "Promise<NxArray>")]
    pub fn load(&self, name: String, device: &Device) -> Promise {
        let ck = self.ck.clone();
        let rig = device.rig.clone();
        future_to_promise(async move {
            let a = convert::load(&ck, &name, &rig).await.map_err(js_error)?;
            Ok(NxArray::new(a).into())
        })
    }

    /// Elements `start..start + count` (C order) of the tensor `name` as a one-axis
    /// array on `device` (the host when absent: `js/index.js` gives it), reading only
    /// their bytes: a sample of
    /// a tensor of any size.
    ///
    /// Errors: no such tensor; a range past its elements; an odd `start` of int4 or
    /// uint4; a read that fails.
    #[wasm_bindgen(js_name = loadRange, unchecked_return_type = "Promise<NxArray>")]
    pub fn load_range(&self, name: String, start: f64, count: f64, device: &Device) -> Promise {
        let ck = self.ck.clone();
        let rig = device.rig.clone();
        future_to_promise(async move {
            let whole = |x: f64| x >= 0.0 && x.fract() == 0.0 && x <= 2f64.powi(53);
            if !whole(start) || !whole(count) {
                return Err(JsError::new(&format!(
                    "Checkpoint.loadRange: start and count must be non-negative integers, got {start} and {count}"
                ))
                .into());
            }
            let a = convert::load_range(&ck, &name, start as u64, count as u64, &rig)
                .await
                .map_err(js_error)?;
            Ok(NxArray::new(a).into())
        })
    }
}
