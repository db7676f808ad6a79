//! `nxrig info FILE [--json]`: each tensor's name, dtype, shape and bytes, from the
//! header alone (no tensor's bytes are read); for a sharded checkpoint's index, every
//! shard's tensors with their shard.

use std::path::Path;

use nxrig::convert::Checkpoint;
use nxrig::formats::{self, Entry};
use nxrig::quant::{Grouping, Quantization};
use nxrig::Error;

use crate::process::Lines;

/// Tensors with the shard that holds them (`None` for a file that is not sharded).
pub type Listed = Vec<(Option<String>, Entry)>;

/// A folder's scheme, in words, and its groups: `(output, shape, inputs)` each.
type Schemed = Option<(&'static str, String, Vec<(String, Vec<usize>, Vec<String>)>)>;

/// A GGUF file's version and alignment.
type Gguf = Option<(u32, u64)>;

/// The tensors of `file` (one file, every shard of an index, or a model's folder), with
/// their shard, the metadata, and the scheme of its block-scaled weights with their
/// groups.
fn tensors(
    file: &Path,
    npy_dtype: Option<&str>,
    scheme: Option<&str>,
) -> Result<(Listed, serde_json::Value, Schemed, Gguf), Error> {
    let npy_dtype = npy_dtype.map(str::parse).transpose()?;
    let c = if file.is_dir() {
        Checkpoint::open_folder(file)?
    } else {
        Checkpoint::open_path_as(file, npy_dtype)?
    };
    let (config, hf) = c
        .folder
        .as_ref()
        .map_or((None, None), |f| (f.config.as_ref(), f.hf_quant.as_ref()));
    let choice = crate::convert::choice(scheme.filter(|s| *s != "none"), "low-first")?;
    let schemed = match Quantization::detect(config, hf, &choice)? {
        Some(q) if scheme != Some("none") => {
            let g = Grouping::new(c.indexed(), &q)?;
            let mut what = format!("{} ({})", q.scheme.name, q.from);
            if q.block != [0, 0] {
                what.push_str(&format!(", blocks of {:?}", q.block));
            }
            if !q.not_converted.is_empty() {
                what.push_str(&format!(", modules not converted: {:?}", q.not_converted));
            }
            let groups = g
                .groups
                .iter()
                .map(|g| {
                    let inputs = g
                        .inputs()
                        .chain(&g.dropped)
                        .map(|p| p.name.clone())
                        .collect();
                    (g.name.clone(), g.shape.clone(), inputs)
                })
                .collect();
            Some((q.scheme.name, what, groups))
        }
        _ => None,
    };
    let sharded = c.index.is_some();
    let out = c
        .tensors()
        .map(|(s, e)| (sharded.then(|| s.name.clone()), e.clone()))
        .collect();
    let gguf = c.shards[0]
        .header
        .gguf
        .as_ref()
        .map(|g| (g.version, g.alignment));
    let meta = match (c.index, &c.shards[0].header.gguf) {
        (Some((_, i)), _) => serde_json::Value::Object(i.metadata),
        // A GGUF file's every key-value, long arrays as their type and length.
        (None, Some(g)) => serde_json::Value::Object(g.values.iter().cloned().collect()),
        (None, None) => {
            serde_json::to_value(&c.shards[0].header.metadata).expect("strings serialize")
        }
    };
    Ok((out, meta, schemed, gguf))
}

pub fn info(
    file: &Path,
    json: bool,
    npy_dtype: Option<&str>,
    scheme: Option<&str>,
) -> Result<(), Error> {
    let (ts, metadata, schemed, gguf) = tensors(file, npy_dtype, scheme)?;
    let total: u64 = ts.iter().map(|(_, e)| e.len).sum();
    let mut out = Lines::new();
    if json {
        // Written a tensor a line as it goes (a header of a million tensors would
        // make a document of gigabytes as values).
        out.line(&format!(
            "{{\n  \"file\": {},",
            js(&file.display().to_string())
        ));
        out.line(&format!("  \"metadata\": {},", js(&metadata)));
        out.line(&format!("  \"total_bytes\": {total},"));
        if let Some((name, what, groups)) = &schemed {
            out.line(&format!("  \"scheme\": {},", js(name)));
            out.line(&format!("  \"scheme_from\": {},", js(what)));
            out.line("  \"dequantized\": [");
            for (k, (name, shape, inputs)) in groups.iter().enumerate() {
                out.line(&format!(
                    "    {{\"name\": {}, \"shape\": {}, \"from\": {}}}{}",
                    js(name),
                    js(shape),
                    js(inputs),
                    if k + 1 < groups.len() { "," } else { "" }
                ));
            }
            out.line("  ],");
        }
        out.line("  \"tensors\": [");
        for (k, (shard, e)) in ts.iter().enumerate() {
            let shard = shard
                .as_ref()
                .map(|s| format!(", \"shard\": {}", js(s)))
                .unwrap_or_default();
            out.line(&format!(
                "    {{\"name\": {}, \"dtype\": \"{}\", \"shape\": {}, \"bytes\": {}, \"offset\": {}{shard}}}{}",
                js(&e.name),
                e.type_name(),
                js(&e.shape),
                e.len,
                e.start,
                if k + 1 < ts.len() { "," } else { "" }
            ));
        }
        out.line("  ]\n}");
        return Ok(());
    }
    let names: Vec<String> = ts.iter().map(|(_, e)| formats::escaped(&e.name)).collect();
    // The name column as wide as the longest name up to 60 characters; longer names
    // push their line's other columns right.
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 60);
    let pad = |n: &str| {
        let k = n.chars().count();
        format!("{n}{}", " ".repeat(w.saturating_sub(k)))
    };
    let sharded = ts.first().is_some_and(|(s, _)| s.is_some());
    let shard_col = |s: &Option<String>| {
        s.as_deref()
            .map(|s| format!("  {}", formats::escaped(s)))
            .unwrap_or_default()
    };
    // The dtype column as wide as the file's longest dtype name (float8_e4m3b11fnuz).
    let dw = ts
        .iter()
        .map(|(_, e)| e.type_name().len())
        .max()
        .unwrap_or(0)
        .max(11);
    out.line(&format!(
        "{}  {:dw$}  {:20}  {:>12}{}",
        pad("name"),
        "dtype",
        "shape",
        "bytes",
        if sharded { "  shard" } else { "" }
    ));
    for ((shard, e), name) in ts.iter().zip(&names) {
        out.line(&format!(
            "{}  {:dw$}  {:20}  {:>12}{}",
            pad(name),
            e.type_name(),
            format!("{:?}", e.shape),
            e.len,
            shard_col(shard)
        ));
    }
    let plural = if ts.len() == 1 { "" } else { "s" };
    out.line(&format!("{} tensor{plural}, {} bytes", ts.len(), total));
    if let (Some((version, alignment)), serde_json::Value::Object(values)) = (gguf, &metadata) {
        // The file's `general.*` scalars (its architecture, name, quantization...).
        out.line(&format!(
            "GGUF version {version}, alignment {alignment}, {} key-values (--json gives every one)",
            values.len()
        ));
        for (k, v) in values {
            if k.starts_with("general.") && !v.is_array() && !v.is_object() {
                out.line(&format!("  {} = {}", formats::escaped(k), js(v)));
            }
        }
    }
    if let Some((_, what, groups)) = &schemed {
        out.line(&format!("scheme: {}", formats::escaped(what)));
        for (name, shape, inputs) in groups {
            let inputs: Vec<String> = inputs.iter().map(|n| formats::escaped(n)).collect();
            out.line(&format!(
                "  {} {:?} <- {}",
                formats::escaped(name),
                shape,
                inputs.join(" + ")
            ));
        }
        out.line(&format!(
            "{} weight{} dequantized by `nxrig convert`",
            groups.len(),
            if groups.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}

/// `v` as JSON, with every character a terminal acts on (C1 controls, line
/// separators, direction overrides, which JSON may hold raw) written as `\uXXXX`.
fn js<T: serde::Serialize + ?Sized>(v: &T) -> String {
    let s = serde_json::to_string(v).expect("JSON values serialize");
    if formats::escaped(&s) == s {
        return s;
    }
    s.chars()
        .map(|c| {
            if formats::escaped(&c.to_string()).len() > c.len_utf8() {
                format!("\\u{:04x}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}
