//! A conversion planned before a byte is written: which tensors change dtype, each
//! output file's name, header and order.

use super::checkpoint::Checkpoint;
use crate::dtype::{CastMode, DType};
use crate::error::Error;
use crate::formats::{Format, Planned};

/// Which tensors a conversion casts, and into what: every floating-point tensor
/// ([`Pick::floats`]), or those whose names a glob matches ([`Pick::matching`]),
/// whatever their dtype.
///
/// ```
/// use nxrig::convert::Pick;
/// use nxrig::DType;
///
/// let floats = Pick::floats(DType::Float16);
/// assert_eq!(floats.dtype("w", DType::Float32), DType::Float16);
/// assert_eq!(floats.dtype("ids", DType::Int64), DType::Int64); // kept
/// let some = Pick::matching(DType::Int8, "encoder.*")?;
/// assert_eq!(some.dtype("encoder.ids", DType::Int64), DType::Int8);
/// assert_eq!(some.dtype("decoder.w", DType::Float32), DType::Float32);
/// assert!(Pick::matching(DType::Int8, "[").is_err());
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Pick {
    /// The dtype they are cast into.
    pub to: DType,
    /// The glob their names match (`*`, `?`, `[...]`), or every float.
    pub pattern: Option<glob::Pattern>,
    /// What their casts do with a value past `to`'s largest finite (the command
    /// line's `--saturate`, JavaScript's `saturate: true`).
    pub mode: CastMode,
}

impl Pick {
    /// Every floating-point tensor (float16 to float64, the float8s) into `to`.
    pub fn floats(to: DType) -> Pick {
        Pick {
            to,
            pattern: None,
            mode: CastMode::Default,
        }
    }

    /// The tensors whose names match `glob` into `to`, whatever their dtype.
    ///
    /// # Errors
    /// [`Error::Format`] (naming `--tensors`) for a glob that does not parse.
    pub fn matching(to: DType, glob: &str) -> Result<Pick, Error> {
        let pattern = glob::Pattern::new(glob).map_err(|e| Error::Format {
            path: "--tensors".into(),
            tensor: None,
            reason: e.to_string(),
        })?;
        Ok(Pick {
            to,
            pattern: Some(pattern),
            mode: CastMode::Default,
        })
    }

    /// This pick with its casts in `mode` ([`CastMode::Saturate`]: a value past the
    /// largest finite of `to`, and an infinity, become the largest finite of their
    /// sign).
    pub fn with_mode(self, mode: CastMode) -> Pick {
        Pick { mode, ..self }
    }

    /// The command line's `--to` and `--tensors` (JavaScript's `to` and `tensors`):
    /// [`Pick::matching`] where a glob is given, else [`Pick::floats`].
    ///
    /// # Errors
    /// As [`Pick::matching`].
    pub fn new(to: DType, glob: Option<&str>) -> Result<Pick, Error> {
        match glob {
            Some(g) => Pick::matching(to, g),
            None => Ok(Pick::floats(to)),
        }
    }

    /// The dtype the tensor `name` of dtype `d` gets.
    pub fn dtype(&self, name: &str, d: DType) -> DType {
        let picked = match &self.pattern {
            Some(p) => p.matches(name),
            None => d.is_float(),
        };
        if picked {
            self.to
        } else {
            d
        }
    }
}

/// One file the conversion writes.
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// # let w = Array::<f32>::of_array(&[2, 3], &[0.5; 6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// # use nxrig::convert::{Pick, Plan};
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let plan = Plan::new(&ck, &Pick::floats(DType::Bfloat16), "out.safetensors")?;
/// let f = &plan.files[0];
/// assert_eq!((f.name.as_str(), f.shard, f.order.as_slice()), ("out.safetensors", 0, &[(0, DType::Bfloat16)][..]));
/// assert_eq!((f.bytes_in, f.bytes_out), (24, f.header.len() as u64 + 12));
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct OutFile {
    /// Its name: the output's (a path natively) for one file, the shard's file name
    /// for a sharded checkpoint.
    pub name: String,
    /// The checkpoint's file it converts (an index into [`Checkpoint::shards`]).
    pub shard: usize,
    /// Its header's bytes.
    pub header: Vec<u8>,
    /// Its tensors in the order its data holds them: an index into the shard's
    /// header entries, and the dtype it is written in.
    pub order: Vec<(usize, DType)>,
    /// The bytes of its input tensors.
    pub bytes_in: u64,
    /// Its bytes: the header and every tensor.
    pub bytes_out: u64,
}

/// Every file a conversion writes, planned and checked.
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// # let w = Array::<f32>::of_array(&[2, 3], &[0.5; 6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// # use nxrig::convert::{Pick, Plan};
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let plan = Plan::new(&ck, &Pick::floats(DType::Bfloat16), "out.safetensors")?;
/// assert_eq!((plan.files.len(), plan.converted, plan.tensors), (1, 1, 1));
/// assert_eq!((plan.bytes_in(), plan.tensor_bytes_out()), (24, 12));
/// // Checked before a byte is written: .safetensors holds no int4.
/// assert!(Plan::new(&ck, &Pick::floats(DType::Int4), "out.safetensors").is_err());
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Plan {
    /// The files of tensors, in the order they are written.
    pub files: Vec<OutFile>,
    /// A sharded checkpoint's new index, written last: its file name and text
    /// (`metadata.total_size` the new tensors' bytes).
    pub index: Option<(String, String)>,
    /// The tensors whose dtype changes.
    pub converted: usize,
    /// Every tensor.
    pub tensors: usize,
    /// The casts' mode (the pick's).
    pub mode: CastMode,
}

impl Plan {
    /// The plan of converting `checkpoint` as `pick` says: one file of `output`'s
    /// format (by its extension) for one file; for a sharded checkpoint, a
    /// `.safetensors` shard for each shard, under its name (`output` is then the
    /// folder's name, for errors only), and the index.
    ///
    /// # Errors
    /// [`Error::Format`] naming the output and the tensor: a format that cannot hold
    /// a planned dtype (int4 in `.safetensors`), a name the format reserves, a
    /// `.npy` output of other than one tensor, an unknown extension; naming
    /// `--tensors`, a [`Pick::matching`] whose glob matches no tensor of the
    /// checkpoint (a typo would otherwise convert nothing, without a word).
    pub fn new<S>(checkpoint: &Checkpoint<S>, pick: &Pick, output: &str) -> Result<Plan, Error> {
        if let Some(p) = &pick.pattern {
            let mut names = checkpoint
                .shards
                .iter()
                .flat_map(|s| s.header.entries.iter().map(|e| e.name.as_str()));
            if !names.any(|n| p.matches(n)) {
                return Err(Error::Format {
                    path: "--tensors".into(),
                    tensor: None,
                    reason: format!(
                        "the pattern {:?} matches no tensor of the checkpoint (`nxrig info` lists their names)",
                        p.as_str()
                    ),
                });
            }
        }
        let sharded = checkpoint.index.is_some();
        let (mut files, mut converted, mut tensors) = (Vec::new(), 0, 0);
        for (k, shard) in checkpoint.shards.iter().enumerate() {
            let (name, format) = if sharded {
                (shard.name.clone(), Format::Safetensors)
            } else {
                (
                    output.to_owned(),
                    Format::of_path(std::path::Path::new(output))?,
                )
            };
            let plan: Vec<Planned> = shard
                .header
                .entries
                .iter()
                .map(|e| Planned {
                    name: e.name.clone(),
                    dtype: pick.dtype(&e.name, e.dtype),
                    shape: e.shape.clone(),
                })
                .collect();
            converted += shard
                .header
                .entries
                .iter()
                .zip(&plan)
                .filter(|(e, p)| e.dtype != p.dtype)
                .count();
            tensors += plan.len();
            let (header, order) =
                format.header_bytes(&name, &plan, shard.header.metadata.as_ref())?;
            let data: u64 = order.iter().map(|&(_, n)| n).sum();
            files.push(OutFile {
                name,
                shard: k,
                bytes_out: header.len() as u64 + data,
                header,
                order: order.iter().map(|&(i, _)| (i, plan[i].dtype)).collect(),
                bytes_in: shard.header.entries.iter().map(|e| e.len).sum(),
            });
        }
        let index = match &checkpoint.index {
            None => None,
            Some((file, index)) => {
                let mut index = index.clone();
                let total: u64 = files
                    .iter()
                    .map(|f| f.bytes_out - f.header.len() as u64)
                    .sum();
                index.metadata.insert("total_size".into(), total.into());
                Some((file.clone(), index.to_text()))
            }
        };
        Ok(Plan {
            files,
            index,
            converted,
            tensors,
            mode: pick.mode,
        })
    }

    /// The bytes of every input tensor.
    pub fn bytes_in(&self) -> u64 {
        self.files.iter().map(|f| f.bytes_in).sum()
    }

    /// The bytes of every output tensor (headers left out).
    pub fn tensor_bytes_out(&self) -> u64 {
        self.files
            .iter()
            .map(|f| f.bytes_out - f.header.len() as u64)
            .sum()
    }
}
