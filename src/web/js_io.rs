//! The sources and sinks of a checkpoint conversion that are JavaScript objects:
//! `js/index.js` makes them from `File`s, `Blob`s, URLs, `WritableStream`s and folder
//! handles (`js/node.js` from Node's paths and file handles); a source reads byte
//! ranges on demand, a sink writes a stream of bytes, each call's failure an error
//! naming the file.

use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::args;
use crate::array::AnyArray;
use crate::convert::{Ahead, Landed, Sink, Source};
use crate::error::Error;
use crate::rig::Buffer;

/// The text of a JavaScript error (its `message`, else its string form).
pub(super) fn message(e: &JsValue) -> String {
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| args::show(e))
}

/// A JavaScript failure as [`Error::Format`] naming `path` (the adapters' messages
/// name their file already: not twice).
pub(super) fn failure(path: &str, e: JsValue) -> Error {
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
pub(super) async fn call(
    path: &str,
    obj: &JsValue,
    method: &str,
    args: &[JsValue],
) -> Result<JsValue, Error> {
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
    pub(super) name: String,
    pub(super) size: u64,
    pub(super) obj: JsValue,
}

impl JsSource {
    pub(super) fn of(obj: JsValue) -> Result<JsSource, JsError> {
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
pub(super) struct JsSink {
    pub(super) obj: JsValue,
    pub(super) name: String,
    pub(super) at_once: bool,
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

    fn read_ahead(&self, a: &AnyArray) -> Result<Ahead, Error> {
        // The sink writes JavaScript's bytes: a GPU's go from the mapped staging into
        // a Uint8Array.
        Ahead::read_js(a)
    }

    async fn write_ahead(&mut self, a: Ahead) -> Result<(), Error> {
        match a.into_js() {
            Ok(read) => {
                let u8s = read.await?;
                call(&self.name, &self.obj, "write", &[u8s.into()])
                    .await
                    .map(drop)
            }
            Err(a) => match a.landed().await? {
                Landed::Array(a) => self.write_array(&a).await,
                Landed::Bytes(b) => self.write_bytes(&b).await,
            },
        }
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

    async fn skip_open(&mut self, name: &str) -> Result<(), Error> {
        self.name = name.to_owned();
        self.skip().await
    }

    async fn skip(&mut self) -> Result<(), Error> {
        // A sink of one of several Workers counts the steps another does.
        if Reflect::get(&self.obj, &"skip".into()).is_ok_and(|f| f.is_function()) {
            call(&self.name, &self.obj, "skip", &[]).await?;
        }
        Ok(())
    }
}
