//! A conversion planned before a byte is written: which tensors change dtype, each
//! output file's name, header and order.

use super::checkpoint::Checkpoint;
use super::source::Source;
use crate::dtype::{CastMode, DType};
use crate::error::Error;
use crate::formats::{Format, Planned};
use crate::quant::{Choice, Group, Grouping, Quantization};

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
    /// The scheme as the caller settles it (`--scheme`, `--nibbles`; a scheme named
    /// `none` dequantizes nothing): over what the checkpoint's files say.
    pub scheme: Choice,
    /// The output names of block-scaled weights left packed, with their scales, as
    /// they are (`--keep-quantized`).
    pub keep_quantized: Option<glob::Pattern>,
}

impl Pick {
    /// Every floating-point tensor (float16 to float64, the float8s) into `to`.
    pub fn floats(to: DType) -> Pick {
        Pick {
            to,
            pattern: None,
            mode: CastMode::Default,
            scheme: Choice::default(),
            keep_quantized: None,
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
            pattern: Some(pattern),
            ..Pick::floats(to)
        })
    }

    /// This pick with its casts in `mode` ([`CastMode::Saturate`]: a value past the
    /// largest finite of `to`, and an infinity, become the largest finite of their
    /// sign).
    pub fn with_mode(self, mode: CastMode) -> Pick {
        Pick { mode, ..self }
    }

    /// This pick with the scheme settled by `scheme` (the command line's `--scheme` and
    /// `--nibbles`).
    pub fn with_scheme(self, scheme: Choice) -> Pick {
        Pick { scheme, ..self }
    }

    /// This pick leaving the block-scaled weights whose output names match `glob`
    /// packed, as they are (the command line's `--keep-quantized`).
    ///
    /// # Errors
    /// [`Error::Format`] (naming `--keep-quantized`) for a glob that does not parse.
    pub fn keeping(self, glob: &str) -> Result<Pick, Error> {
        let p = glob::Pattern::new(glob).map_err(|e| Error::Format {
            path: "--keep-quantized".into(),
            tensor: None,
            reason: e.to_string(),
        })?;
        Ok(Pick {
            keep_quantized: Some(p),
            ..self
        })
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

/// What an output tensor is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// A tensor of the input file (an index into its shard's header entries), cast.
    Tensor(usize),
    /// A block-scaled weight dequantized (an index into [`Plan::groups`]).
    Group(usize),
}

/// A file of a model's folder the conversion writes besides its tensors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extra {
    /// A file copied as it is (an index into the folder's `others`).
    Copy(usize),
    /// A file of this text (`config.json` rewritten).
    Text(String),
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
/// # use nxrig::convert::{Item, Pick, Plan};
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let plan = Plan::new(&ck, &Pick::floats(DType::Bfloat16), "out.safetensors")?;
/// let f = &plan.files[0];
/// assert_eq!((f.name.as_str(), f.shard, f.order.as_slice()), ("out.safetensors", 0, &[(Item::Tensor(0), DType::Bfloat16)][..]));
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
    /// Its tensors in the order its data holds them, each with the dtype it is
    /// written in.
    pub order: Vec<(Item, DType)>,
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
    /// The checkpoint's scheme, where it has one (and the pick's scheme is not
    /// `none`).
    pub quantization: Option<Quantization>,
    /// The block-scaled weights dequantized, each with its partners.
    pub groups: Vec<Group>,
    /// A folder's other files, written after the tensors: `(name, what)`.
    pub extras: Vec<(String, Extra)>,
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
    /// checkpoint (a typo would otherwise convert nothing, without a word); the
    /// scheme's, as [`Quantization::detect`] and [`Grouping::new`] give them (a
    /// weight without its scale, a shape other than its blocks imply, an unknown
    /// `quant_method`); tensors whose names only a quantized checkpoint has
    /// (`weight_scale_inv`, `qweight`, `weight_packed`, ...) where nothing names the
    /// scheme; naming `--scheme`, a scheme the caller named that pairs no tensor;
    /// naming `--to`, block-scaled weights into a dtype that is not a float.
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
        let (quantization, grouping) = schemes(checkpoint, pick)?;
        let sharded = checkpoint.index.is_some();
        let folder = checkpoint.folder.is_some();
        let (mut files, mut converted, mut tensors) = (Vec::new(), 0, 0);
        for (k, shard) in checkpoint.shards.iter().enumerate() {
            let (name, format) = if sharded || folder {
                (
                    super::checkpoint::output_shard_name(&shard.name),
                    Format::Safetensors,
                )
            } else {
                (
                    output.to_owned(),
                    Format::of_path(std::path::Path::new(output))?,
                )
            };
            // Each output tensor: what it is made of, and its name, dtype and shape.
            let mut items = Vec::new();
            let mut plan: Vec<Planned> = Vec::new();
            for (i, e) in shard.header.entries.iter().enumerate() {
                match grouping.taken.get(&(k, i)) {
                    Some(&g) => {
                        let group = &grouping.groups[g];
                        if (group.weight.shard, group.weight.entry) == (k, i) {
                            items.push(Item::Group(g));
                            plan.push(Planned {
                                name: group.name.clone(),
                                dtype: pick.to,
                                shape: group.shape.clone(),
                            });
                        }
                    }
                    None => {
                        if let Some(q) = e.ggml.filter(|&q| !crate::quant::dequantizes(q)) {
                            return Err(Error::Format {
                                path: shard.name.clone(),
                                tensor: Some(e.name.clone()),
                                reason: format!(
                                    "ggml type {}: a type ggml computes with but no model file holds; nxrig lists it but does not dequantize it",
                                    q.name
                                ),
                            });
                        }
                        items.push(Item::Tensor(i));
                        // A weight left packed keeps its partners' dtypes too.
                        let packed = grouping.packed.contains(&(k, i));
                        plan.push(Planned {
                            name: e.name.clone(),
                            dtype: if packed {
                                e.dtype
                            } else {
                                pick.dtype(&e.name, e.dtype)
                            },
                            shape: e.shape.clone(),
                        });
                    }
                }
            }
            converted += items
                .iter()
                .zip(&plan)
                .filter(|(it, p)| match it {
                    Item::Tensor(i) => {
                        let e = &shard.header.entries[*i];
                        e.ggml.is_some() || e.dtype != p.dtype
                    }
                    Item::Group(_) => true,
                })
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
                order: order
                    .iter()
                    .map(|&(i, _)| (items[i], plan[i].dtype))
                    .collect(),
                bytes_in: shard.header.entries.iter().map(|e| e.len).sum(),
            });
        }
        let index = match &checkpoint.index {
            None => None,
            Some((file, index)) => {
                let mut index = index.clone();
                for g in &grouping.groups {
                    let shard = super::checkpoint::output_shard_name(
                        &checkpoint.shards[g.weight.shard].name,
                    );
                    for p in g.inputs().chain(&g.dropped) {
                        index.weight_map.remove(&p.name);
                    }
                    index.weight_map.insert(g.name.clone(), shard.clone());
                }
                let total: u64 = files
                    .iter()
                    .map(|f| f.bytes_out - f.header.len() as u64)
                    .sum();
                index.metadata.insert("total_size".into(), total.into());
                Some((file.clone(), index.to_text()))
            }
        };
        let mut extras = Vec::new();
        if let Some(f) = &checkpoint.folder {
            let dequantized = quantization.is_some() && grouping.groups.len() == grouping.all;
            if let Some(c) = &f.config {
                let text = super::folder::rewrite_config(c, pick.to.name(), dequantized);
                extras.push(("config.json".to_owned(), Extra::Text(text)));
            }
            for (k, (name, _)) in f.others.iter().enumerate() {
                extras.push((name.clone(), Extra::Copy(k)));
            }
            if let (Some(h), false) = (&f.hf_quant, dequantized) {
                let mut text = serde_json::to_string_pretty(h).expect("JSON values serialize");
                text.push('\n');
                extras.push(("hf_quant_config.json".to_owned(), Extra::Text(text)));
            }
        }
        Ok(Plan {
            files,
            index,
            converted,
            tensors,
            mode: pick.mode,
            quantization,
            groups: grouping.groups,
            extras,
        })
    }

    /// The bytes of every input tensor.
    pub fn bytes_in(&self) -> u64 {
        self.files.iter().map(|f| f.bytes_in).sum()
    }

    /// The bytes of every file the plan writes: the tensors' files (headers
    /// included), the index, and a folder's other files (`checkpoint`'s, which the
    /// plan copies or rewrites).
    pub fn bytes_out<S: Source>(&self, checkpoint: &Checkpoint<S>) -> u64 {
        let files: u64 = self.files.iter().map(|f| f.bytes_out).sum();
        let index = self.index.as_ref().map_or(0, |(_, t)| t.len() as u64);
        let extras: u64 = self
            .extras
            .iter()
            .map(|(_, e)| match e {
                Extra::Text(t) => t.len() as u64,
                Extra::Copy(k) => checkpoint
                    .folder
                    .as_ref()
                    .and_then(|f| f.others.get(*k))
                    .map_or(0, |(_, s)| s.size()),
            })
            .sum();
        files + index + extras
    }

    /// The bytes of every output tensor (headers left out).
    pub fn tensor_bytes_out(&self) -> u64 {
        self.files
            .iter()
            .map(|f| f.bytes_out - f.header.len() as u64)
            .sum()
    }
}

/// Names only a quantized checkpoint's tensors end with.
const QUANTIZED_ENDS: &[&str] = &[
    ".weight_scale_inv",
    ".qweight",
    ".qzeros",
    ".weight_packed",
    ".weight_scale_2",
    ".weight_global_scale",
];

/// The checkpoint's scheme and its groups as `pick` settles them (those
/// `--keep-quantized` matches left out), every group checked; refused where tensors
/// look quantized and nothing says how.
fn schemes<S>(
    checkpoint: &Checkpoint<S>,
    pick: &Pick,
) -> Result<(Option<Quantization>, Kept), Error> {
    let none = pick.scheme.scheme.as_deref() == Some("none");
    let (config, hf_quant) = checkpoint
        .folder
        .as_ref()
        .map_or((None, None), |f| (f.config.as_ref(), f.hf_quant.as_ref()));
    let choice = if none {
        Choice::default()
    } else {
        pick.scheme.clone()
    };
    let q = if none {
        None
    } else {
        Quantization::detect(config, hf_quant, &choice)?
    };
    let Some(q) = q else {
        if !none {
            if let Some((s, e)) = checkpoint
                .tensors()
                .find(|(_, e)| QUANTIZED_ENDS.iter().any(|x| e.name.ends_with(x)))
            {
                return Err(Error::Format {
                    path: s.name.clone(),
                    tensor: Some(e.name.clone()),
                    reason: format!(
                        "the checkpoint looks quantized, and no config.json or hf_quant_config.json says how: --scheme names its scheme (one of {}), --scheme none casts every tensor as it is",
                        crate::quant::Scheme::names()
                    ),
                });
            }
        }
        return Ok((None, Kept::default()));
    };
    let grouping = Grouping::new(checkpoint.indexed(), &q)?;
    if grouping.groups.is_empty() && choice.scheme.is_some() {
        // A scheme named by the caller that pairs nothing is a wrong name, not a
        // checkpoint to copy packed.
        return Err(Error::Format {
            path: "--scheme".into(),
            tensor: None,
            reason: format!(
                "{}: no weight of the checkpoint has its partners in this scheme (`nxrig info` lists the tensors, and the scheme the folder's configuration names)",
                q.scheme.name
            ),
        });
    }
    if !grouping.groups.is_empty() && !pick.to.is_float() {
        return Err(Error::Format {
            path: "--to".into(),
            tensor: Some(grouping.groups[0].name.clone()),
            reason: format!(
                "dequantizing into {}: a block-scaled weight dequantizes into a floating-point dtype (bfloat16, float16, float32, or a narrower float, rounded once)",
                pick.to
            ),
        });
    }
    if let Some(k) = &pick.keep_quantized {
        // A pattern that keeps nothing is a typo, not a request to dequantize all.
        if !grouping.groups.iter().any(|g| k.matches(&g.name)) {
            return Err(Error::Format {
                path: "--keep-quantized".into(),
                tensor: None,
                reason: format!(
                    "the pattern {:?} matches no block-scaled weight of the checkpoint (their output names, as {:?})",
                    k.as_str(),
                    grouping.groups.first().map_or("", |g| g.name.as_str())
                ),
            });
        }
    }
    let all = grouping.groups.len();
    let mut kept = Kept {
        all,
        ..Kept::default()
    };
    for g in grouping.groups {
        let keep = pick
            .keep_quantized
            .as_ref()
            .is_some_and(|p| p.matches(&g.name))
            || pick.pattern.as_ref().is_some_and(|p| !p.matches(&g.name));
        if keep {
            for p in g.inputs().chain(&g.dropped) {
                kept.packed.insert((p.shard, p.entry));
            }
        } else {
            let k = kept.groups.len();
            for p in g.inputs().chain(&g.dropped) {
                kept.taken.insert((p.shard, p.entry), k);
            }
            kept.groups.push(g);
        }
    }
    Ok((Some(q), kept))
}

/// The groups dequantized, the tensors they take, and how many the scheme made.
#[derive(Default)]
struct Kept {
    groups: Vec<Group>,
    taken: std::collections::BTreeMap<(usize, usize), usize>,
    packed: std::collections::BTreeSet<(usize, usize)>,
    all: usize,
}
