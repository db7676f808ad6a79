//! Checkpoints of any size for JavaScript: opened from sources that read byte ranges
//! on demand, a tensor loaded onto a device a piece at a time, converted into sinks
//! that write a stream of bytes. The sources and sinks are JavaScript objects that
//! `js/index.js` makes from `File`s, `Blob`s, URLs, `WritableStream`s, folder handles
//! (and `js/node.js` from Node's paths and file handles); the conversion is the
//! library's ([`crate::convert`]), so its bytes are the command line's.

use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::array::NxArray;
use super::device::Device;
use super::{args, js_error};
use crate::array::AnyArray;
use crate::convert::{self, Pick, Plan, Sink, Source};
use crate::error::Error;
use crate::formats::Format;
use crate::rig::Buffer;

/// The text of a JavaScript error (its `message`, else its string form).
fn message(e: &JsValue) -> String {
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| args::show(e))
}

/// A JavaScript failure as [`Error::Format`] naming `path` (the adapters' messages
/// name their file already: not twice).
fn failure(path: &str, e: JsValue) -> Error {
    let m = message(&e);
    Error::Format {
        path: path.to_owned(),
        tensor: None,
        reason: m
            .strip_prefix(&format!("{path}: "))
            .unwrap_or(&m)
            .to_owned(),
    }
}

/// `obj[method](...args)` awaited, failures as [`Error::Format`] naming `path`.
async fn call(path: &str, obj: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, Error> {
    let r = start(path, obj, method, args)?;
    settle(path, r).await
}

/// What `start` returned, awaited where it is a promise.
async fn settle(path: &str, r: JsValue) -> Result<JsValue, Error> {
    match r.dyn_into::<Promise>() {
        Ok(p) => JsFuture::from(p).await.map_err(|e| failure(path, e)),
        Err(v) => Ok(v),
    }
}

/// `obj[method](...args)` called (its promise not awaited), failures as
/// [`Error::Format`] naming `path`.
fn start(path: &str, obj: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, Error> {
    let fail = |e: JsValue| failure(path, e);
    let f: Function = Reflect::get(obj, &method.into())
        .map_err(fail)?
        .dyn_into()
        .map_err(|_| Error::Format {
            path: path.to_owned(),
            tensor: None,
            reason: format!("nxrig bug: the adapter has no {method}()"),
        })?;
    let list: js_sys::Array = args.iter().collect();
    f.apply(obj, &list).map_err(fail)
}

/// A source `js/index.js` made: `{ name, size, read(start, end) }`, `read` resolving
/// to a `Uint8Array` of bytes `start..end`.
pub(crate) struct JsSource {
    name: String,
    size: u64,
    obj: JsValue,
}

impl JsSource {
    fn of(obj: JsValue) -> Result<JsSource, JsError> {
        let get = |k: &str| Reflect::get(&obj, &k.into()).unwrap_or(JsValue::UNDEFINED);
        let name = get("name")
            .as_string()
            .unwrap_or_else(|| "the checkpoint".into());
        let size = get("size")
            .as_f64()
            .filter(|s| *s >= 0.0 && s.fract() == 0.0)
            .ok_or_else(|| {
                JsError::new(&format!(
                    "{name}: a source's size must be its length in bytes, got: {}",
                    args::show(&get("size"))
                ))
            })?;
        Ok(JsSource {
            name,
            size: size as u64,
            obj,
        })
    }
}

impl Source for JsSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> u64 {
        self.size
    }

    async fn read(&self, start: u64, len: usize) -> Result<Buffer, Error> {
        let end = start + len as u64;
        let v = call(
            &self.name,
            &self.obj,
            "read",
            &[(start as f64).into(), (end as f64).into()],
        )
        .await?;
        let u8s: Uint8Array = v.dyn_into().map_err(|_| Error::Format {
            path: self.name.clone(),
            tensor: None,
            reason: "the source's read(start, end) gave no Uint8Array".into(),
        })?;
        if u8s.length() as usize != len {
            return Err(Error::Format {
                path: self.name.clone(),
                tensor: None,
                reason: format!(
                    "bytes {start}..{end}: {} bytes came, {len} were asked for (the file is shorter than its header says, or changed)",
                    u8s.length()
                ),
            });
        }
        // Into 8-byte words: the piece's elements are then aligned for every dtype.
        // Not zeroed first (a piece is tens of MiB): only the last word's tail is.
        let n = len.div_ceil(8);
        let mut words: Vec<u64> = Vec::with_capacity(n);
        if n > 0 {
            // SAFETY: `words` has room for `n` words; the last is zeroed, then `len <=
            // 8 n` bytes are copied over its start, so all `n` are initialised.
            unsafe {
                words.as_mut_ptr().add(n - 1).write(0);
                u8s.raw_copy_to_ptr(words.as_mut_ptr().cast::<u8>());
                words.set_len(n);
            }
        }
        Buffer::of_vec(words).view(0, len)
    }
}

/// A sink `js/index.js` made: `{ open(name), write(bytes), close(), commit(),
/// abort() }`, each resolving when done. A sink whose `writesAtOnce` is true (an OPFS
/// file's sync access handle, in a Worker) takes what it writes before `write`
/// returns: it is given a view of wasm memory, not a copy.
struct JsSink {
    obj: JsValue,
    name: String,
    at_once: bool,
}

impl JsSink {
    /// `bytes` written by a sink that writes at once: the view of them lives only
    /// while `write` runs, and nothing else runs in wasm meanwhile.
    async fn write_at_once(&self, bytes: &[u8]) -> Result<(), Error> {
        // SAFETY: the view is used by `write` before it returns (the sink says it
        // writes at once) and wasm memory neither grows nor changes in between: no
        // Rust code runs until `start` returns.
        let view = unsafe { Uint8Array::view(bytes) };
        let r = start(&self.name, &self.obj, "write", &[view.into()])?;
        settle(&self.name, r).await.map(drop)
    }
}

impl Sink for JsSink {
    async fn open(&mut self, name: &str) -> Result<(), Error> {
        self.name = name.to_owned();
        call(name, &self.obj, "open", &[name.into()])
            .await
            .map(drop)
    }

    async fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.at_once {
            return self.write_at_once(bytes).await;
        }
        let u8s = Uint8Array::from(bytes);
        call(&self.name, &self.obj, "write", &[u8s.into()])
            .await
            .map(drop)
    }

    async fn write_array(&mut self, a: &AnyArray) -> Result<(), Error> {
        // A GPU's bytes go from the mapped staging into a Uint8Array, not through
        // wasm memory.
        let bytes = crate::convert::bytes_of(a)?;
        if self.at_once && bytes.rig().host_addressable() {
            // The host's bytes read in place (the view made and written inside the
            // read), the promise awaited after.
            let r = bytes.read(|b| {
                // SAFETY: as `write_at_once`: `write` takes the bytes before it
                // returns, and no Rust code runs in between.
                let view = unsafe { Uint8Array::view(b) };
                start(&self.name, &self.obj, "write", &[view.into()])
            })??;
            return settle(&self.name, r).await.map(drop);
        }
        let u8s = bytes.read_js_async().await?;
        call(&self.name, &self.obj, "write", &[u8s.into()])
            .await
            .map(drop)
    }

    async fn close(&mut self) -> Result<(), Error> {
        call(&self.name, &self.obj, "close", &[]).await.map(drop)
    }

    async fn commit(&mut self) -> Result<(), Error> {
        call(&self.name, &self.obj, "commit", &[]).await.map(drop)
    }

    async fn abort(&mut self) {
        let _ = call(&self.name, &self.obj, "abort", &[]).await;
    }

    async fn skip(&mut self) -> Result<(), Error> {
        // A sink of one of several Workers counts the steps another does.
        if Reflect::get(&self.obj, &"skip".into()).is_ok_and(|f| f.is_function()) {
            call(&self.name, &self.obj, "skip", &[]).await?;
        }
        Ok(())
    }
}

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
    ck: Rc<convert::Checkpoint<JsSource>>,
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

/// The command line's options as `convertCheckpoint`'s options name them.
const OPTIONS: [(&str, &str); 13] = [
    ("--nibbles high-first", "options.nibbles: 'high-first'"),
    ("--keep-quantized", "options.keepQuantized"),
    ("--scheme none", "options.scheme: 'none'"),
    ("--scheme gptq-v2", "options.scheme: 'gptq-v2'"),
    ("--scheme gptq reads", "options.scheme: 'gptq' reads"),
    ("--scheme", "options.scheme"),
    ("`nxrig info` lists their names", "checkpoint.tensors lists them"),
    (
        "`nxrig info` lists the tensors, and the scheme the folder's configuration names",
        "checkpoint.tensors lists the tensors, checkpoint.scheme the scheme the folder's configuration names",
    ),
    ("--to:", "options.to:"),
    ("--to ", "options.to "),
    ("--nibbles", "options.nibbles"),
    ("--tensors", "options.tensors"),
    ("--saturate", "options.saturate"),
];

/// The JS error of `e`, where the command line's options (`--tensors`, `--scheme`,
/// ...) are `convertCheckpoint`'s (`options.tensors`, `options.scheme`, ...).
fn option_error(e: Error) -> JsError {
    let mut m = format!("nxrig: {}", e.detail().replace("(to_device)", "(toDevice)"));
    for (flag, option) in OPTIONS {
        m = m.replace(flag, option);
    }
    JsError::new(&m)
}

/// What `convertCheckpoint` says of a block-scaled checkpoint: its options
/// `scheme`, `nibbles` and `keepQuantized` (each absent where not given).
struct Dequantize {
    scheme: Option<String>,
    nibbles: Option<String>,
    keep_quantized: Option<String>,
}

impl Dequantize {
    /// `pick` with these options.
    fn apply(&self, pick: Pick) -> Result<Pick, Error> {
        let nibbles = self
            .nibbles
            .as_deref()
            .map(str::parse)
            .transpose()?
            .unwrap_or_default();
        let pick = pick.with_scheme(crate::quant::Choice {
            scheme: self.scheme.clone(),
            nibbles,
        });
        match &self.keep_quantized {
            Some(k) => pick.keeping(k),
            None => Ok(pick),
        }
    }
}

/// Converts `checkpoint` into `sink` (`{ open, write, close, commit, abort }`): the
/// tensors `tensors` (a glob; every float when absent) cast into `to` on `device`,
/// `output` naming the single file's output (its extension its format); then commit,
/// or abort on any error. `progress(bytesDone, bytesTotal, tensor)` after each piece;
/// `saturate`: the casts saturate ([`crate::dtype::CastMode::Saturate`]); `scheme`,
/// `nibbles`, `keep_quantized`: a block-scaled checkpoint's scheme as the caller
/// settles it (the command line's `--scheme`, `--nibbles`, `--keep-quantized`).
/// Resolves to `{ files, tensors, converted, dequantized, bytesIn, bytesOut,
/// overflows }` (`dequantized`: the block-scaled weights dequantized,
/// `dequantizedOnDevice` those the device dequantized wholly; `overflows`:
/// `{ tensor, dtype, overflowed, infinities, nans }` of each tensor some of whose
/// values overflowed or became an infinity or a NaN). Called by `convertCheckpoint`
/// in `js/checkpoint.js`. `share`: `[index, count]`, this Worker's share of a
/// conversion several Workers share ([`convert::Share`]; the sink's `skip()` told of
/// each step another does), the whole when absent.
#[wasm_bindgen(js_name = convertCheckpointInto)]
#[allow(clippy::too_many_arguments)]
pub fn convert_checkpoint_into(
    checkpoint: &Checkpoint,
    sink: JsValue,
    to: String,
    tensors: Option<String>,
    device: &Device,
    output: String,
    progress: Option<Function>,
    saturate: bool,
    scheme: Option<String>,
    nibbles: Option<String>,
    keep_quantized: Option<String>,
    share: Option<Vec<u32>>,
) -> Promise {
    let ck = checkpoint.ck.clone();
    let dequantize = Dequantize {
        scheme,
        nibbles,
        keep_quantized,
    };
    let rig = device.rig.clone();
    future_to_promise(async move {
        let to = convert::target_dtype(&to).map_err(option_error)?;
        let mode = if saturate {
            crate::dtype::CastMode::Saturate
        } else {
            crate::dtype::CastMode::Default
        };
        let pick = Pick::new(to, tensors.as_deref())
            .and_then(|p| dequantize.apply(p.with_mode(mode)))
            .map_err(option_error)?;
        let plan = Plan::new(&ck, &pick, &output).map_err(option_error)?;
        let share = match share.as_deref() {
            None => convert::Share::WHOLE,
            Some(&[index, count]) => {
                convert::Share::new(index as usize, count as usize).map_err(js_error)?
            }
            Some(_) => {
                return Err(super::js_invalid("nxrig bug: a share is [index, count]").into());
            }
        };
        let at_once = Reflect::get(&sink, &"writesAtOnce".into()).is_ok_and(|v| v.is_truthy());
        let reserves = Reflect::get(&sink, &"reserve".into()).is_ok_and(|f| f.is_function());
        let mut sink = JsSink {
            obj: sink,
            name: output,
            at_once,
        };
        // A sink that can tell whether the output fits (an OPFS folder, against the
        // origin's quota) is told its size before a byte is written (by the first
        // of several Workers).
        if reserves && share.index() == 0 {
            let bytes = plan.bytes_out(&ck) as f64;
            call(&sink.name, &sink.obj, "reserve", &[bytes.into()])
                .await
                .map_err(js_error)?;
        } else if reserves {
            sink.skip().await.map_err(js_error)?;
        }
        let mut tell = |p: convert::Progress<'_>| {
            if let Some(f) = &progress {
                let _ = f.call3(
                    &JsValue::NULL,
                    &(p.done as f64).into(),
                    &(p.total as f64).into(),
                    &p.tensor.into(),
                );
            }
        };
        // A band's refusal may name an option too (`--scheme gptq` settles a GPTQ
        // checkpoint's format).
        let r = convert::run_share(&ck, &plan, &mut sink, &rig, share, &mut tell)
            .await
            .map_err(option_error)?;
        let o = js_sys::Object::new();
        for (k, v) in [
            ("files", r.files as f64),
            ("tensors", r.tensors as f64),
            ("converted", r.converted as f64),
            ("dequantized", r.dequantized as f64),
            ("dequantizedOnDevice", r.dequantized_on_device as f64),
            ("bytesIn", r.bytes_in as f64),
            ("bytesOut", r.bytes_out as f64),
        ] {
            let _ = Reflect::set(&o, &k.into(), &v.into());
        }
        let overflows: js_sys::Array = r
            .overflows
            .iter()
            .map(|v| {
                let t = js_sys::Object::new();
                let _ = Reflect::set(&t, &"tensor".into(), &v.tensor.as_str().into());
                let _ = Reflect::set(&t, &"dtype".into(), &v.dtype.name().into());
                for (k, n) in [
                    ("overflowed", v.tally.overflowed),
                    ("infinities", v.tally.infinities),
                    ("nans", v.tally.nans),
                ] {
                    let _ = Reflect::set(&t, &k.into(), &(n as f64).into());
                }
                JsValue::from(t)
            })
            .collect();
        let _ = Reflect::set(&o, &"overflows".into(), &overflows.into());
        Ok(o.into())
    })
}
