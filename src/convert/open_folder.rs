//! Native: a model's folder opened as a checkpoint, its configuration and other files
//! beside its tensors.

use super::folder::{parse_config, Folder, MAX_CONFIG};
use crate::error::Error;

impl super::Checkpoint<super::BufferSource> {
    /// Native: the model in the folder `dir`: its tensors (the index
    /// `model.safetensors.index.json`, else the one `*.safetensors.index.json`, else
    /// the one `.safetensors` file), its `config.json` and `hf_quant_config.json`, and
    /// its other regular files (not its subfolders, nor `.safetensors` files the
    /// checkpoint does not name).
    ///
    /// # Errors
    /// [`Error::Io`] for a file that could not be read; [`Error::Format`] naming the
    /// folder for one with no checkpoint or several, a configuration that is not a
    /// JSON object; as [`super::Checkpoint::open_path`].
    pub fn open_folder(dir: &std::path::Path) -> Result<Self, Error> {
        use super::{BufferSource, Checkpoint};
        let io = |p: &std::path::Path| {
            let path = p.display().to_string();
            move |source| Error::Io { path, source }
        };
        let mut names: Vec<String> = Vec::new();
        for e in std::fs::read_dir(dir).map_err(io(dir))? {
            let e = e.map_err(io(dir))?;
            if e.file_type().map_err(io(&e.path()))?.is_file() || e.path().is_file() {
                if let Some(n) = e.file_name().to_str() {
                    names.push(n.to_owned());
                }
            }
        }
        names.sort();
        let fail = |reason: String| Error::Format {
            path: dir.display().to_string(),
            tensor: None,
            reason,
        };
        let indexes: Vec<&String> = names
            .iter()
            .filter(|n| n.ends_with(".safetensors.index.json"))
            .collect();
        let singles: Vec<&String> = names
            .iter()
            .filter(|n| n.ends_with(".safetensors"))
            .collect();
        let mut ck = if names.iter().any(|n| n == "model.safetensors.index.json") {
            Checkpoint::open_path(&dir.join("model.safetensors.index.json"))?
        } else if let [i] = indexes.as_slice() {
            Checkpoint::open_path(&dir.join(i))?
        } else if indexes.len() > 1 {
            return Err(fail(format!(
                "a folder of several indexes ({indexes:?}): name one"
            )));
        } else if let [f] = singles.as_slice() {
            let mut ck = Checkpoint::open_path(&dir.join(f))?;
            ck.shards[0].name = (*f).clone();
            ck
        } else if singles.is_empty() {
            return Err(fail(
                "no .safetensors file and no index in the folder".into(),
            ));
        } else {
            return Err(fail(format!(
                "several .safetensors files ({}) and no index: name one, or give the folder a model.safetensors.index.json",
                singles.len()
            )));
        };
        let mut folder = Folder::default();
        let read = |n: &str| -> Result<Vec<u8>, Error> {
            let p = dir.join(n);
            if std::fs::metadata(&p).map_err(io(&p))?.len() > MAX_CONFIG as u64 {
                return Err(Error::Format {
                    path: p.display().to_string(),
                    tensor: None,
                    reason: "a configuration over 16 MiB".into(),
                });
            }
            std::fs::read(&p).map_err(io(&p))
        };
        let index = ck.index.as_ref().map(|(n, _)| n.clone());
        for n in &names {
            let mine = ck.shards.iter().any(|s| &s.name == n) || index.as_deref() == Some(n);
            match n.as_str() {
                _ if mine => {}
                "config.json" => folder.config = Some(parse_config(n, &read(n)?)?),
                "hf_quant_config.json" => folder.hf_quant = Some(parse_config(n, &read(n)?)?),
                _ if n.ends_with(".safetensors") || n.ends_with(".safetensors.index.json") => {}
                _ if n.starts_with(".nxrig-") && n.ends_with(".tmp") => {}
                _ => folder
                    .others
                    .push((n.clone(), BufferSource::open(&dir.join(n))?)),
            }
        }
        ck.folder = Some(folder);
        Ok(ck)
    }
}
