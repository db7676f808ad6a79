//! A checkpoint opened for conversion: one file, or a sharded checkpoint's shards with
//! their index; every header read and checked, no tensor's bytes read.

use super::source::Source;
use crate::dtype::DType;
use crate::error::Error;
use crate::formats::index::Index;
use crate::formats::{stem_of, Entry, Format, Header};

/// One file of a checkpoint: its name, format, header and source.
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// # let w = Array::<f32>::of_array(&[2, 3], &[0.5; 6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let shard = &ck.shards[0];
/// assert_eq!((shard.name.as_str(), shard.format), ("model.safetensors", Format::Safetensors));
/// assert_eq!(shard.header.entries[0].name, "w");
/// # Ok::<(), nxrig::Error>(())
/// ```
pub struct Shard<S> {
    /// Its file name (a shard's name as the index gives it; a single file's source
    /// name).
    pub name: String,
    /// Its format.
    pub format: Format,
    /// Its header: each tensor's dtype, shape and byte range.
    pub header: Header,
    /// Where its bytes are read.
    pub source: S,
}

/// A checkpoint: one file, or the shards of a sharded checkpoint (in order of name)
/// with its index.
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// # let w = Array::<f32>::of_array(&[2, 3], &[0.5; 6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?; // headers only
/// let (_, e) = ck.find("w").expect("a tensor named w");
/// assert_eq!((e.dtype, e.shape.as_slice(), e.len), (DType::Float32, &[2, 3][..], 24));
/// assert_eq!((ck.tensors().count(), ck.bytes(), ck.index.is_none()), (1, 24, true));
/// # Ok::<(), nxrig::Error>(())
/// ```
pub struct Checkpoint<S> {
    /// The files.
    pub shards: Vec<Shard<S>>,
    /// A sharded checkpoint's index: its file name and contents.
    pub index: Option<(String, Index)>,
    /// A model's folder: its configuration and other files, where the checkpoint was
    /// opened as one (natively `Checkpoint::open_folder`); a converted checkpoint is then a
    /// folder too.
    pub folder: Option<super::folder::Folder<S>>,
}

/// The header of the file `source` holds, in `format` (GGUF where a `.safetensors`
/// file's bytes begin with GGUF's magic), and the format read: its first bytes read,
/// then as many as the header takes (a `.npy` file's void elements read as
/// `void_as`).
async fn read_header<S: Source>(
    source: &S,
    format: Format,
    void_as: Option<DType>,
) -> Result<(Format, Header), Error> {
    let name = source.name().to_owned();
    let stem = stem_of(std::path::Path::new(&name));
    let size = source.size();
    let probe = size.min(Format::PROBE as u64) as usize;
    let mut first = source.read(0, probe).await?;
    // Bytes that begin with GGUF's magic are GGUF's, whatever their name.
    let format = match format == Format::Safetensors && first.read(|b| b.starts_with(b"GGUF"))? {
        true => Format::Gguf,
        false => format,
    };
    let mut have = probe;
    let mut n = first.read(|b| format.header_len(&name, &stem, b, size))??;
    // A header whose length shows only as it is read (GGUF's) is read in growing
    // pieces until one holds it.
    while n > have && (have as u64) < size {
        have = size.min(n as u64) as usize;
        first = source.read(0, have).await?;
        n = first.read(|b| format.header_len(&name, &stem, b, size))??;
    }
    let prefix = match n <= have {
        true => first,
        false => source.read(0, size.min(n as u64) as usize).await?,
    };
    let header = prefix.read(|b| format.read_header(&name, &stem, b, size, void_as))??;
    Ok((format, header))
}

impl<S: Source> Checkpoint<S> {
    /// The checkpoint of one file in `format`: its header read (the first bytes of the
    /// source, no tensor's).
    ///
    /// # Errors
    /// [`Error::Format`] naming the source and the tensor at fault (a truncated or
    /// corrupt header, data outside the file, ...); what reading the source failed of.
    pub async fn open(source: S, format: Format) -> Result<Checkpoint<S>, Error> {
        Checkpoint::open_as(source, format, None).await
    }

    /// [`Checkpoint::open`], a `.npy` file's void elements (`|V1`, `<V2`: raw bytes, as
    /// NumPy saves ml_dtypes' bfloat16, float8s, int4) read as `npy_dtype`, a dtype
    /// held in as many bytes (int4, uint4 and float4_e2m1fn one a byte, as ml_dtypes
    /// holds them).
    ///
    /// ```
    /// use nxrig::convert::{BufferSource, Checkpoint};
    /// use nxrig::formats::Format;
    /// use nxrig::DType;
    ///
    /// // np.save of ml_dtypes.bfloat16 [1.0, -2.0]: a '<V2' header and the bits.
    /// let dict = "{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }";
    /// let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// let pad = 64 - (10 + dict.len() + 1) % 64;
    /// npy.extend_from_slice(&((dict.len() + pad + 1) as u16).to_le_bytes());
    /// npy.extend_from_slice(dict.as_bytes());
    /// npy.extend(std::iter::repeat_n(b' ', pad));
    /// npy.push(b'\n');
    /// npy.extend_from_slice(&[0x80, 0x3f, 0x00, 0xc0]);
    /// let source = || BufferSource::new("w.npy", nxrig::rig::Buffer::of_vec(npy.clone()));
    /// let Err(e) = pollster::block_on(Checkpoint::open(source(), Format::Npy)) else {
    ///     panic!("void elements without a dtype are refused");
    /// };
    /// assert!(e.to_string().contains("name their dtype"), "{e}");
    /// let ck = pollster::block_on(Checkpoint::open_as(source(), Format::Npy, Some(DType::Bfloat16)))?;
    /// let w = pollster::block_on(nxrig::convert::load(&ck, "w", &nxrig::Rig::host()))?;
    /// assert_eq!(w.cast(DType::Float32)?.expect::<f32>()?.to_vec()?, [1.0, -2.0]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Checkpoint::open`]; a `.npy` file of void elements without `npy_dtype`, or
    /// of another width than its; `npy_dtype` for a file whose header names its dtypes
    /// (a `.npy` file's `<f4`, any `.safetensors` file).
    pub async fn open_as(
        source: S,
        format: Format,
        npy_dtype: Option<DType>,
    ) -> Result<Checkpoint<S>, Error> {
        if let (Some(d), Format::Safetensors) = (npy_dtype, format) {
            return Err(Error::Format {
                path: source.name().to_owned(),
                tensor: None,
                reason: format!(
                    "{d} was named for a .npy file's void elements; this is a .safetensors file, whose header names every dtype"
                ),
            });
        }
        let (format, header) = read_header(&source, format, npy_dtype).await?;
        Ok(Checkpoint {
            shards: vec![Shard {
                name: source.name().to_owned(),
                format,
                header,
                source,
            }],
            index: None,
            folder: None,
        })
    }

    /// A sharded checkpoint: the index `index_text` (the file `index_name`, as
    /// `model.safetensors.index.json`), and each shard it names as `shard(name)`
    /// gives its source; every shard's header read; checked that every tensor the
    /// index maps is in its shard, and every shard's tensor in the map.
    ///
    /// # Errors
    /// [`Error::Format`] naming the index or shard and the tensor: as
    /// [`Index::parse`], a shard's header, a tensor in another shard than the index
    /// says; whatever `shard` returns (a shard not given).
    pub async fn open_sharded(
        index_name: &str,
        index_text: &str,
        mut shard: impl FnMut(&str) -> Result<S, Error>,
    ) -> Result<Checkpoint<S>, Error> {
        let index = Index::parse(index_name, index_text)?;
        let mut shards = Vec::new();
        for name in index.shards() {
            let source = shard(name)?;
            let (format, header) = read_header(&source, Format::Safetensors, None).await?;
            shards.push(Shard {
                name: name.to_owned(),
                format,
                header,
                source,
            });
        }
        check_index(index_name, &index, &shards)?;
        let file = std::path::Path::new(index_name)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(index_name)
            .to_owned();
        Ok(Checkpoint {
            shards,
            index: Some((file, index)),
            folder: None,
        })
    }
}

/// A split GGUF file's name, `PREFIX-00001-of-00003.gguf`: `(PREFIX, 1, 3)`.
pub fn gguf_split(name: &str) -> Option<(&str, usize, usize)> {
    let stem = name.strip_suffix(".gguf")?;
    let (rest, n) = stem.rsplit_once("-of-")?;
    let (prefix, k) = rest.rsplit_once('-')?;
    let digits = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(k) || !digits(n) {
        return None;
    }
    let (k, n) = (k.parse().ok()?, n.parse().ok()?);
    (1..=n).contains(&k).then_some((prefix, k, n))
}

/// The name a sharded conversion gives the output of the shard `name`: a GGUF split's
/// `.gguf` becomes `.safetensors`; a `.safetensors` shard keeps its name.
pub(crate) fn output_shard_name(name: &str) -> String {
    match name.strip_suffix(".gguf") {
        Some(stem) => format!("{stem}.safetensors"),
        None => name.to_owned(),
    }
}

impl<S: Source> Checkpoint<S> {
    /// A GGUF file split in `shards` (`(name, source)` in order: `PREFIX-00001-of-N.gguf`
    /// to `PREFIX-N-of-N.gguf`) as one checkpoint: every split's header read, its
    /// `split.no` and `split.count` checked where it gives them, and an index made as a
    /// sharded `.safetensors` checkpoint's (`PREFIX.safetensors.index.json`, each
    /// tensor mapped to its split's output, `PREFIX-00001-of-N.safetensors`), so that it
    /// converts into such a folder.
    ///
    /// # Errors
    /// [`Error::Format`] naming the split: not GGUF, a split missing or out of place, a
    /// tensor given by two splits; as [`Checkpoint::open`].
    pub async fn open_gguf_split(shards: Vec<(String, S)>) -> Result<Checkpoint<S>, Error> {
        let count = shards.len();
        let mut out = Vec::with_capacity(count);
        let mut index = Index::default();
        for (k, (name, source)) in shards.into_iter().enumerate() {
            let fail = |reason: String| Error::Format {
                path: name.clone(),
                tensor: None,
                reason,
            };
            let Some((_, no, n)) =
                gguf_split(&name).filter(|&(_, no, n)| no == k + 1 && n == count)
            else {
                return Err(fail(format!(
                    "split {} of {count}: its name is not the {}th of {count} (PREFIX-{:05}-of-{count:05}.gguf)",
                    k + 1,
                    k + 1,
                    k + 1
                )));
            };
            let (format, header) = read_header(&source, Format::Gguf, None).await?;
            if format != Format::Gguf {
                return Err(fail("a split of a GGUF file that is not GGUF".into()));
            }
            let meta = header.metadata.as_ref();
            let said = |key: &str| {
                meta.and_then(|m| m.get(key))
                    .and_then(|v| v.parse::<usize>().ok())
            };
            if said("split.count").is_some_and(|c| c != n)
                || said("split.no").is_some_and(|s| s != no - 1)
            {
                return Err(fail(format!(
                    "its split.no and split.count ({:?} of {:?}) are not its name's ({} of {n}, split.no counting from 0)",
                    said("split.no"),
                    said("split.count"),
                    no - 1
                )));
            }
            let output = output_shard_name(&name);
            for e in &header.entries {
                if index
                    .weight_map
                    .insert(e.name.clone(), output.clone())
                    .is_some()
                {
                    return Err(Error::Format {
                        path: name.clone(),
                        tensor: Some(e.name.clone()),
                        reason: "an earlier split gives it too".into(),
                    });
                }
            }
            out.push(Shard {
                name,
                format,
                header,
                source,
            });
        }
        let prefix = out
            .first()
            .and_then(|s| gguf_split(&s.name))
            .map_or("model", |(p, _, _)| p);
        let file = format!("{prefix}.safetensors.index.json");
        Ok(Checkpoint {
            shards: out,
            index: Some((file, index)),
            folder: None,
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Checkpoint<super::BufferSource> {
    /// Native: the checkpoint at `path`, as the command line's `info` and `convert`
    /// open it: a `.json` file is a sharded checkpoint's index, its shards the files it
    /// names beside it ([`Checkpoint::open_sharded`]); any other file is one file in
    /// the format its name says ([`Format::of_input`]). Every file memory-mapped
    /// ([`super::BufferSource::open`]), every header read and checked, no tensor's
    /// bytes read.
    ///
    /// ```
    /// # use nxrig::convert::Checkpoint;
    /// # use nxrig::formats::{self, Tensor, TensorFile};
    /// # use nxrig::Array;
    /// let dir = std::env::temp_dir().join(format!("nxrig-doc-open-path-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let t = Tensor { name: "w".into(), array: Array::<f32>::of_array(&[2], &[1.0, 2.0])?.into() };
    /// formats::write(&dir.join("w.safetensors"), &TensorFile { tensors: vec![t], metadata: None })?;
    /// let ck = Checkpoint::open_path(&dir.join("w.safetensors"))?;
    /// assert_eq!((ck.tensors().count(), ck.bytes(), ck.index.is_none()), (1, 8, true));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Io`] naming the file that could not be read; [`Error::Format`] for a
    /// path that is not a regular file, an index over 100 MB, and as
    /// [`Checkpoint::open`] and [`Checkpoint::open_sharded`].
    pub fn open_path(path: &std::path::Path) -> Result<Self, Error> {
        Checkpoint::open_path_as(path, None)
    }

    /// [`Checkpoint::open_path`], a `.npy` file's void elements read as `npy_dtype`
    /// ([`Checkpoint::open_as`]; the command line's `--npy-dtype`).
    ///
    /// # Errors
    /// As [`Checkpoint::open_path`] and [`Checkpoint::open_as`].
    pub fn open_path_as(path: &std::path::Path, npy_dtype: Option<DType>) -> Result<Self, Error> {
        use super::BufferSource;
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some((prefix, _, n)) = gguf_split(file_name) {
            // Every split of a split GGUF file, whichever was named.
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            let shards = (1..=n)
                .map(|k| {
                    let s = format!("{prefix}-{k:05}-of-{n:05}.gguf");
                    BufferSource::open(&dir.join(&s)).map(|src| (s, src))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            return pollster::block_on(Checkpoint::open_gguf_split(shards));
        }
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            let format = Format::of_input(&path.display().to_string());
            return pollster::block_on(Checkpoint::open_as(
                BufferSource::open(path)?,
                format,
                npy_dtype,
            ));
        }
        if let Some(d) = npy_dtype {
            return Err(Error::Format {
                path: path.display().to_string(),
                tensor: None,
                reason: format!(
                    "{d} was named for a .npy file's void elements; this is a sharded checkpoint's index, whose shards' headers name every dtype"
                ),
            });
        }
        let text = read_index(path)?;
        let dir = path.parent().unwrap_or(std::path::Path::new("."));
        pollster::block_on(Checkpoint::open_sharded(
            &path.display().to_string(),
            &text,
            |s| BufferSource::open(&dir.join(s)),
        ))
    }
}

/// The text of the index at `path`: a regular file of at most 100 MB.
#[cfg(not(target_arch = "wasm32"))]
fn read_index(path: &std::path::Path) -> Result<String, Error> {
    let name = path.display().to_string();
    let io = |source| Error::Io {
        path: name.clone(),
        source,
    };
    let m = std::fs::metadata(path).map_err(io)?;
    if !m.is_file() || m.len() > crate::formats::index::MAX_INDEX as u64 {
        return Err(Error::Format {
            path: name,
            tensor: None,
            reason: "not a sharded checkpoint's index (a regular file of at most 100 MB)".into(),
        });
    }
    std::fs::read_to_string(path).map_err(io)
}

impl<S> Checkpoint<S> {
    /// Every tensor with its shard, shard by shard in order of name, each shard's in
    /// the order of its bytes.
    pub fn tensors(&self) -> impl Iterator<Item = (&Shard<S>, &Entry)> {
        self.shards
            .iter()
            .flat_map(|s| s.header.entries.iter().map(move |e| (s, e)))
    }

    /// Every tensor as [`crate::quant::Grouping::new`] takes them: its shard's index,
    /// its index in that shard's header, the shard's name, and its entry.
    pub fn indexed(&self) -> impl Iterator<Item = (usize, usize, &str, &Entry)> {
        self.shards.iter().enumerate().flat_map(|(k, s)| {
            s.header
                .entries
                .iter()
                .enumerate()
                .map(move |(i, e)| (k, i, s.name.as_str(), e))
        })
    }

    /// The tensor named `name`, with its shard.
    pub fn find(&self, name: &str) -> Option<(&Shard<S>, &Entry)> {
        self.tensors().find(|(_, e)| e.name == name)
    }

    /// The bytes of every tensor.
    pub fn bytes(&self) -> u64 {
        self.tensors().map(|(_, e)| e.len).sum()
    }
}

/// Checks `shards` against `index` (named `path` in errors): every shard's tensor
/// mapped to it, every mapped tensor in its shard.
fn check_index<S>(path: &str, index: &Index, shards: &[Shard<S>]) -> Result<(), Error> {
    let fmt = |t: &str, reason: String| Error::Format {
        path: path.to_owned(),
        tensor: Some(t.to_owned()),
        reason,
    };
    let mut count = 0;
    for s in shards {
        let here = &s.name;
        for e in &s.header.entries {
            count += 1;
            match index.weight_map.get(&e.name) {
                Some(m) if m == here => {}
                Some(m) => {
                    return Err(fmt(
                        &e.name,
                        format!("in shard {here:?}, but the index maps it to {m:?}"),
                    ))
                }
                None => {
                    return Err(fmt(
                        &e.name,
                        format!("in shard {here:?}, but the index does not map it"),
                    ))
                }
            }
        }
    }
    if count != index.weight_map.len() {
        let have: std::collections::HashSet<&str> = shards
            .iter()
            .flat_map(|s| s.header.entries.iter().map(|e| e.name.as_str()))
            .collect();
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
