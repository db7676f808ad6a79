//! `convertCheckpoint`'s conversion (`convertCheckpointInto`): the options as the
//! command line's, the plan, the run into a JavaScript sink, the report as an object.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::checkpoint::Checkpoint;
use super::device::Device;
use super::js_error;
use super::js_io::{call, JsSink};
use crate::convert::{self, Pick, Plan, Sink};
use crate::error::Error;

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
    JsError::new(&option_message(e))
}

/// [`option_error`]'s message.
fn option_message(e: Error) -> String {
    let mut m = format!("nxrig: {}", e.detail().replace("(to_device)", "(toDevice)"));
    for (flag, option) in OPTIONS {
        m = m.replace(flag, option);
    }
    m
}

/// `options.to`'s refusal (a name of no dtype, a GGUF block type): a `TypeError`, as
/// every option's, that names it.
fn to_error(e: Error) -> JsValue {
    let m = option_message(e);
    let m = match m.starts_with("nxrig: options.to") {
        true => m,
        false => m.replacen("nxrig: ", "nxrig: options.to: ", 1),
    };
    js_sys::TypeError::new(&m).into()
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
/// overflows }` (`dequantized`: the block-scaled weights dequantized, a GGUF file's
/// block-quantized tensors among them,
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
        let to = convert::target_dtype(&to).map_err(to_error)?;
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
        // Where several Workers share the conversion, each overflow's place in the
        // output, by which the page puts their tallies in the order written.
        let at: Vec<&str> = match share.count() {
            1 => Vec::new(),
            _ => plan
                .files
                .iter()
                .flat_map(|f| {
                    let ck = &ck;
                    let plan = &plan;
                    f.order.iter().map(move |&(item, _)| match item {
                        convert::Item::Tensor(i) => {
                            ck.shards[f.shard].header.entries[i].name.as_str()
                        }
                        convert::Item::Group(g) => plan.groups[g].name.as_str(),
                    })
                })
                .collect(),
        };
        let overflows: js_sys::Array = r
            .overflows
            .iter()
            .map(|v| {
                let t = js_sys::Object::new();
                let _ = Reflect::set(&t, &"tensor".into(), &v.tensor.as_str().into());
                if let Some(k) = at.iter().position(|n| *n == v.tensor) {
                    let _ = Reflect::set(&t, &"__nxAt".into(), &(k as f64).into());
                }
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
