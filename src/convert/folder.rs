//! A model's folder: besides its tensors (one `.safetensors` file, or an index and its
//! shards), its `config.json` (which may say how the weights are quantized), NVIDIA
//! ModelOpt's `hf_quant_config.json`, and the other files a model needs (tokenizer,
//! generation configuration), copied as they are into a converted folder.

use crate::error::Error;
use serde_json::Value;

/// The files of a model's folder other than its tensors.
pub struct Folder<S> {
    /// `config.json`, parsed, where the folder has one.
    pub config: Option<Value>,
    /// `hf_quant_config.json`, parsed, where the folder has one.
    pub hf_quant: Option<Value>,
    /// Every other file, by name, with its bytes' source (copied as it is).
    pub others: Vec<(String, S)>,
}

impl<S> Default for Folder<S> {
    fn default() -> Folder<S> {
        Folder {
            config: None,
            hf_quant: None,
            others: Vec::new(),
        }
    }
}

/// The largest JSON file of a folder nxrig parses (`config.json` is a few KB).
pub(crate) const MAX_CONFIG: usize = 16 << 20;

/// The JSON object `text` of the file `name`.
///
/// # Errors
/// [`Error::Format`] naming the file: over 16 MiB, not JSON, not an object.
pub fn parse_config(name: &str, text: &[u8]) -> Result<Value, Error> {
    let fail = |reason: String| Error::Format {
        path: name.to_owned(),
        tensor: None,
        reason,
    };
    if text.len() > MAX_CONFIG {
        return Err(fail(format!(
            "{} bytes: more than nxrig reads of a configuration ({MAX_CONFIG})",
            text.len()
        )));
    }
    let v: Value = serde_json::from_slice(text).map_err(|e| fail(format!("not JSON: {e}")))?;
    if !v.is_object() {
        return Err(fail("not a JSON object".into()));
    }
    Ok(v)
}

/// `config` as a converted folder's `config.json` says it: the dtype `dtype` (as
/// `torch_dtype`, and as `dtype` where the file has that key), and where
/// `dequantized`, no `quantization_config` (nor `compression_config`, nor DeepSeek's
/// `expert_dtype`); every other key as it was. Two spaces of indent, a newline at the
/// end.
pub fn rewrite_config(config: &Value, dtype: &str, dequantized: bool) -> String {
    let mut c = config.clone();
    if let Some(m) = c.as_object_mut() {
        if dequantized {
            for k in ["quantization_config", "compression_config", "expert_dtype"] {
                m.remove(k);
            }
        }
        m.insert("torch_dtype".into(), dtype.into());
        if m.contains_key("dtype") {
            m.insert("dtype".into(), dtype.into());
        }
    }
    let mut text = serde_json::to_string_pretty(&c).expect("JSON values serialize");
    text.push('\n');
    text
}
