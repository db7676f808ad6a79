//! Sharded checkpoints, as model hubs publish them: `model.safetensors.index.json`
//! names each tensor's shard (`weight_map`) beside `metadata.total_size` (the bytes of
//! every tensor).

use std::collections::BTreeMap;

use crate::error::Error;

/// The largest index nxrig reads (a few MB for the largest models published).
pub(crate) const MAX_INDEX: usize = 100_000_000;

/// A sharded checkpoint's index.
///
/// ```
/// use nxrig::formats::Index;
///
/// let text = r#"{"metadata": {"total_size": 24}, "weight_map": {"w": "model-00001-of-00002.safetensors"}}"#;
/// let ix = Index::parse("model.safetensors.index.json", text)?;
/// assert_eq!(ix.weight_map["w"], "model-00001-of-00002.safetensors");
/// assert!(Index::parse("i.json", r#"{"weight_map": {"w": "../etc/passwd"}}"#).is_err());
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Index {
    /// The index's `metadata`, `total_size` included (other keys kept as they are).
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// Each tensor's shard: a file name in the index's folder.
    pub weight_map: BTreeMap<String, String>,
}

impl Index {
    /// The index in `text` (named `path` in errors).
    ///
    /// # Errors
    /// [`Error::Format`]: not JSON, no `weight_map` of strings, or a shard that is
    /// not a plain file name in the index's folder (a path with a separator or `..`
    /// is refused: an index may not reach other files).
    pub fn parse(path: &str, text: &str) -> Result<Index, Error> {
        let fmt = |tensor: Option<&str>, reason: String| Error::Format {
            path: path.to_owned(),
            tensor: tensor.map(str::to_owned),
            reason,
        };
        #[derive(serde::Deserialize)]
        struct Raw {
            #[serde(default)]
            metadata: serde_json::Map<String, serde_json::Value>,
            weight_map: BTreeMap<String, String>,
        }
        if text.len() > MAX_INDEX {
            return Err(fmt(
                None,
                format!(
                    "an index of {} bytes: more than nxrig reads ({MAX_INDEX})",
                    text.len()
                ),
            ));
        }
        if !text.trim_start().starts_with('{') {
            return Err(fmt(
                None,
                "not a sharded checkpoint's index: not a JSON object".into(),
            ));
        }
        let raw: Raw = serde_json::from_str(text)
            .map_err(|e| fmt(None, format!("not a sharded checkpoint's index: {e}")))?;
        for (t, shard) in &raw.weight_map {
            let plain = !shard.is_empty()
                && !shard.contains(['/', '\\'])
                && shard != ".."
                && shard != "."
                && shard.ends_with(".safetensors");
            if !plain {
                return Err(fmt(
                    Some(t),
                    format!(
                        "shard {shard:?} is not a .safetensors file name in the index's folder"
                    ),
                ));
            }
        }
        Ok(Index {
            metadata: raw.metadata,
            weight_map: raw.weight_map,
        })
    }

    /// The shards, each once, in order of name.
    pub fn shards(&self) -> Vec<&str> {
        let mut s: Vec<&str> = self.weight_map.values().map(String::as_str).collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    /// The index as JSON text (two-space indents, keys sorted, as the hubs' writers
    /// give it), ending in a newline.
    pub fn to_text(&self) -> String {
        let v = serde_json::json!({
            "metadata": self.metadata,
            "weight_map": self.weight_map,
        });
        let mut s = serde_json::to_string_pretty(&v).expect("JSON values serialize");
        s.push('\n');
        s
    }
}
