//! `nxrig info FILE [--json]`: each tensor's name, dtype, shape and bytes, from the
//! header alone (no tensor's bytes are read); for a sharded checkpoint's index, every
//! shard's tensors with their shard.

use std::path::Path;

use nxrig::formats::{self, index::Index, Entry};
use nxrig::Error;

use crate::process::{say, Lines};

/// Tensors with the shard that holds them (`None` for a file that is not sharded).
pub type Listed = Vec<(Option<String>, Entry)>;

/// The tensors of `file` (one file, or every shard of an index), with their shard,
/// and the metadata.
fn tensors(file: &Path) -> Result<(Listed, serde_json::Value), Error> {
    if file.extension().and_then(|e| e.to_str()) == Some("json") {
        let index = read_index(file)?;
        let dir = file.parent().unwrap_or(Path::new("."));
        let mut out = Vec::new();
        for shard in index.shards() {
            let o = formats::open(&dir.join(shard))?;
            out.extend(
                o.header
                    .entries
                    .into_iter()
                    .map(|e| (Some(shard.to_owned()), e)),
            );
        }
        check_index(file, &index, &out)?;
        return Ok((out, serde_json::Value::Object(index.metadata)));
    }
    let o = formats::open(file)?;
    let meta = serde_json::to_value(&o.header.metadata).expect("strings serialize");
    Ok((
        o.header.entries.into_iter().map(|e| (None, e)).collect(),
        meta,
    ))
}

/// The index at `path`.
pub fn read_index(path: &Path) -> Result<Index, Error> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: name.clone(),
        source,
    })?;
    Index::parse(&name, &text)
}

/// Every tensor the index maps is in its shard, and every shard's tensor in the map.
pub fn check_index(
    path: &Path,
    index: &Index,
    found: &[(Option<String>, Entry)],
) -> Result<(), Error> {
    let fmt = |t: &str, reason: String| Error::Format {
        path: path.display().to_string(),
        tensor: Some(t.to_owned()),
        reason,
    };
    for (shard, e) in found {
        match index.weight_map.get(&e.name) {
            Some(s) if Some(s) == shard.as_ref() => {}
            _ => {
                return Err(fmt(
                    &e.name,
                    format!(
                        "in shard {:?} but the index maps it elsewhere",
                        shard.as_deref().unwrap_or("")
                    ),
                ))
            }
        }
    }
    if found.len() != index.weight_map.len() {
        let have: std::collections::HashSet<&str> =
            found.iter().map(|(_, e)| e.name.as_str()).collect();
        if let Some((t, s)) = index
            .weight_map
            .iter()
            .find(|(t, _)| !have.contains(t.as_str()))
        {
            return Err(fmt(
                t,
                format!("the index maps it to shard {s:?}, which does not hold it"),
            ));
        }
    }
    Ok(())
}

pub fn info(file: &Path, json: bool) -> Result<(), Error> {
    let (ts, metadata) = tensors(file)?;
    let total: usize = ts.iter().map(|(_, e)| e.len).sum();
    if json {
        let list: Vec<serde_json::Value> = ts
            .iter()
            .map(|(shard, e)| {
                let mut v = serde_json::json!({
                    "name": e.name,
                    "dtype": e.dtype.name(),
                    "shape": e.shape,
                    "bytes": e.len,
                    "offset": e.start,
                });
                if let Some(s) = shard {
                    v["shard"] = s.clone().into();
                }
                v
            })
            .collect();
        let v = serde_json::json!({
            "file": file.display().to_string(),
            "tensors": list,
            "total_bytes": total,
            "metadata": metadata,
        });
        say(&serde_json::to_string_pretty(&v).expect("JSON values serialize"));
        return Ok(());
    }
    let names: Vec<String> = ts.iter().map(|(_, e)| formats::escaped(&e.name)).collect();
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let sharded = ts.first().is_some_and(|(s, _)| s.is_some());
    let shard_col = |s: &Option<String>| {
        s.as_deref()
            .map(|s| format!("  {}", formats::escaped(s)))
            .unwrap_or_default()
    };
    let mut out = Lines::new();
    out.line(&format!(
        "{:w$}  {:11}  {:20}  {:>12}{}",
        "name",
        "dtype",
        "shape",
        "bytes",
        if sharded { "  shard" } else { "" }
    ));
    for ((shard, e), name) in ts.iter().zip(&names) {
        out.line(&format!(
            "{:w$}  {:11}  {:20}  {:>12}{}",
            name,
            e.dtype.name(),
            format!("{:?}", e.shape),
            e.len,
            shard_col(shard)
        ));
    }
    out.line(&format!("{} tensors, {} bytes", ts.len(), total));
    Ok(())
}
