//! Tensor files: `.safetensors` and `.npy`, sharded checkpoints (`index.rs`), and GGUF
//! read (`gguf.rs`).
//!
//! A file is read in two steps: its header ([`Header`]: each tensor's dtype, shape and
//! byte range, checked against the file), then any tensor's array, a view of the
//! file's bytes where they are aligned and in the host's byte order, a copy otherwise.
//! So `nxrig info` reads headers only, and `convert` holds one tensor's output at a
//! time. Files are written to a temporary name beside the target and renamed: a
//! failure, or an interrupt that the command line catches (`remove_temporaries`, native only),
//! leaves no file behind.
//!
//! Sits above [`crate::array`]: a file is a list of named arrays.

mod gguf;
pub(crate) mod index;
mod npy;
pub(crate) mod packed;
mod safetensors;
#[cfg(not(target_arch = "wasm32"))]
mod temp;
#[cfg(not(target_arch = "wasm32"))]
mod write;

use std::collections::BTreeMap;
use std::path::Path;

pub use gguf::{GgmlType, GgufInfo, GGML_TYPES, GGUF_ARRAY_SHOWN};
pub use index::Index;
pub use npy::npy_descr;
pub use safetensors::safetensors_dtype;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use temp::{commit_all, Temp};
#[cfg(not(target_arch = "wasm32"))]
pub use temp::{committed, remove_on_interrupt, remove_temporaries};
#[cfg(not(target_arch = "wasm32"))]
pub use write::{write, write_pending, write_with, Pending, TensorWriter};

use crate::array::AnyArray;
use crate::dtype::DType;
pub use crate::error::escaped;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::Buffer;

/// A named array of a file.
///
/// ```
/// use nxrig::formats::Tensor;
/// use nxrig::Array;
///
/// let t = Tensor { name: "bias".into(), array: Array::<f32>::of_array(&[2], &[0.5, -1.0])?.into() };
/// assert_eq!(t.array.shape(), [2]);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Tensor {
    /// The tensor's name in the file (a `.npy` file's is its stem).
    pub name: String,
    /// Its elements, over the file's bytes where their alignment allows.
    pub array: AnyArray,
}

/// The tensors of one file, in the file's order, and its free-form metadata.
///
/// ```
/// use nxrig::formats::{self, Format, Tensor, TensorFile};
/// use nxrig::rig::Buffer;
/// use nxrig::{Array, DType};
///
/// let file = TensorFile {
///     tensors: vec![Tensor { name: "w".into(), array: Array::<f32>::of_array(&[2], &[1.0, 2.0])?.into() }],
///     metadata: Some([("format".to_owned(), "pt".to_owned())].into()),
/// };
/// let bytes = formats::encode(Format::Safetensors, "w.safetensors", &file)?;
/// let back = formats::read_safetensors_bytes("w.safetensors", Buffer::of_vec(bytes))?;
/// assert_eq!(back.tensors[0].array.dtype(), DType::Float32);
/// assert_eq!(back.metadata, file.metadata);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct TensorFile {
    /// The tensors.
    pub tensors: Vec<Tensor>,
    /// `.safetensors`' `__metadata__` (sorted by key, so that a conversion writes the
    /// same bytes every run), kept through a conversion.
    pub metadata: Option<BTreeMap<String, String>>,
}

/// One tensor as a file's header describes it.
///
/// ```
/// use nxrig::convert::{BufferSource, Checkpoint};
/// use nxrig::formats::{self, Format, Tensor, TensorFile};
/// use nxrig::{Array, DType};
///
/// let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: Array::<i16>::of_array(&[3], &[1, 2, 3])?.into() }], metadata: None };
/// let bytes = formats::encode(Format::Safetensors, "f", &file)?;
/// let source = BufferSource::new("f.safetensors", nxrig::rig::Buffer::of_vec(bytes.clone()));
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let e = &ck.shards[0].header.entries[0];
/// assert_eq!((e.name.as_str(), e.dtype, e.shape.as_slice(), e.len), ("w", DType::Int16, &[3][..], 6));
/// assert_eq!(e.start as usize + 6, bytes.len()); // the data's last bytes
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// Its dtype.
    pub dtype: DType,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its first byte, from the file's start (a `u64`: files of 4 GiB and more are
    /// read on wasm32 too).
    pub start: u64,
    /// Its bytes.
    pub len: u64,
    /// Fortran (column-major) order (`.npy` only).
    pub fortran: bool,
    /// Big-endian data (`.npy` only): swapped when the array is made.
    pub big_endian: bool,
    /// Its elements' width in the file, in bits: [`DType::bits`], as memory holds
    /// them, but for a float6 in a `.safetensors` file (6: four in three bytes) and a
    /// 4-bit dtype in a `.npy` file of ml_dtypes' (8: one a byte). The array made
    /// holds them as memory does (unpacked or packed as it is read). 0 for a
    /// block-quantized GGUF tensor.
    pub file_bits: u32,
    /// A GGUF tensor's block-quantized ggml type (Q4_K, Q8_0, MXFP4, ...): its bytes
    /// are `len` bytes of whole blocks, `dtype` float32 (what it dequantizes to).
    /// `None` for a tensor of a dtype's elements (a GGUF file's F16, BF16, ...
    /// included).
    pub ggml: Option<GgmlType>,
}

/// A file's header: its tensors in the order of their bytes, and its metadata.
///
/// ```
/// use nxrig::convert::{BufferSource, Checkpoint};
/// use nxrig::formats::{self, Format, TensorFile};
///
/// let file = TensorFile { tensors: vec![], metadata: Some([("k".to_owned(), "v".to_owned())].into()) };
/// let bytes = formats::encode(Format::Safetensors, "f", &file)?;
/// let source = BufferSource::new("f.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let h = &ck.shards[0].header;
/// assert!(h.entries.is_empty());
/// assert_eq!(h.metadata.as_ref().unwrap()["k"], "v");
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The tensors.
    pub entries: Vec<Entry>,
    /// `.safetensors`' `__metadata__`; a GGUF file's scalar key-values as strings.
    pub metadata: Option<BTreeMap<String, String>>,
    /// A GGUF file's version, alignment and every key-value.
    pub gguf: Option<Box<GgufInfo>>,
}

/// A tensor to write: its name, dtype and shape (its bytes come later).
///
/// ```
/// use nxrig::formats::{self, Planned};
/// use nxrig::DType;
///
/// let p = Planned { name: "w".into(), dtype: DType::Int4, shape: vec![3] };
/// assert_eq!(p.dtype.bytes(3)?, 2); // two a byte, rounded up
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// Its name.
    pub name: String,
    /// Its dtype.
    pub dtype: DType,
    /// Its shape.
    pub shape: Vec<usize>,
}

/// The order a file's data holds its tensors in: `(index into the plan, byte count)`
/// each.
pub(crate) type Order = Vec<(usize, u64)>;

/// A header's shape (as the file gives it) and dtype checked: the shape in `usize`s and
/// its bytes, or why this platform cannot hold it (for the caller's message).
fn shape_bytes(shape: &[u64], dtype: DType) -> Result<(Vec<usize>, u64), String> {
    let s: Vec<usize> = shape
        .iter()
        .map(|&x| usize::try_from(x))
        .collect::<Result<_, _>>()
        .map_err(|_| format!("shape {shape:?} is larger than this platform holds"))?;
    let bytes = planned_bytes(&s, dtype)?;
    Ok((s, bytes))
}

/// The bytes of a C-order tensor of `shape` and `dtype` (sub-byte dtypes two a byte),
/// as a `u64` (a tensor may be larger than wasm32's address space: it is converted a
/// piece at a time); or why it is too large.
pub(crate) fn planned_bytes(shape: &[usize], dtype: DType) -> Result<u64, String> {
    let numel = planned_numel(shape)
        .ok_or_else(|| format!("shape {shape:?} has more elements than this platform holds"))?;
    u64::try_from((numel as u128 * dtype.bits() as u128).div_ceil(8))
        .map_err(|_| format!("shape {shape:?} has more bytes than a file holds"))
}

/// The elements of `shape` as a `u64`, `None` past 2^64.
pub(crate) fn planned_numel(shape: &[usize]) -> Option<u64> {
    shape.iter().try_fold(1u64, |a, &x| a.checked_mul(x as u64))
}

/// The formats nxrig reads and writes, by file extension.
///
/// ```
/// use nxrig::formats::Format;
/// use nxrig::DType;
/// use std::path::Path;
///
/// assert_eq!(Format::of_path(Path::new("model.safetensors"))?, Format::Safetensors);
/// assert_eq!(Format::of_path(Path::new("w.npy"))?, Format::Npy);
/// assert!(Format::of_path(Path::new("model.bin")).is_err());
/// assert!(!Format::Safetensors.holds(DType::Int4)); // .npy holds no int4 either
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.safetensors`.
    Safetensors,
    /// NumPy's `.npy` (one array).
    Npy,
    /// llama.cpp's GGUF (read only).
    Gguf,
}

impl Format {
    /// The format `path`'s extension names.
    ///
    /// # Errors
    /// [`Error::Format`] for another extension.
    pub fn of_path(path: &Path) -> Result<Format, Error> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("safetensors") => Ok(Format::Safetensors),
            Some("npy") => Ok(Format::Npy),
            Some("gguf") => Err(Error::Format {
                path: path.display().to_string(),
                tensor: None,
                reason: "nxrig reads GGUF files but writes .safetensors and .npy".into(),
            }),
            _ if path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/') => {
                Err(Error::Format {
                    path: path.display().to_string(),
                    tensor: None,
                    reason: "a folder: one file converts into one file (give its name, as out/model.safetensors); a sharded checkpoint's index into a folder".into(),
                })
            }
            Some("json") => Err(Error::Format {
                path: path.display().to_string(),
                tensor: None,
                reason: "a .json output: one file converts into a .safetensors or .npy file; a sharded checkpoint (its index, model.safetensors.index.json, as the input) into a folder, which gets the new index".into(),
            }),
            _ => Err(Error::Format {
                path: path.display().to_string(),
                tensor: None,
                reason: "unknown format: the output's extension must be .safetensors or .npy (a sharded checkpoint's index as the input converts into a folder)".into(),
            }),
        }
    }

    /// The format an input file named `name` is read in: NumPy's for a name ending in
    /// `.npy`, GGUF for `.gguf`, `.safetensors` for any other (a URL or a `Blob` may
    /// have no extension: bytes that begin with GGUF's magic are read as GGUF, and the
    /// header says whether others are `.safetensors`). The one rule of every opener:
    /// the command line's, Rust's (`convert::Checkpoint::open_path`, native) and
    /// JavaScript's `openCheckpoint`. An output's format is its extension's
    /// ([`Format::of_path`]).
    pub fn of_input(name: &str) -> Format {
        if name.ends_with(".npy") {
            Format::Npy
        } else if name.ends_with(".gguf") {
            Format::Gguf
        } else {
            Format::Safetensors
        }
    }

    /// True when files of this format can hold elements of `d`.
    pub fn holds(self, d: DType) -> bool {
        match self {
            Format::Safetensors => safetensors_dtype(d).is_some(),
            Format::Npy => npy_descr(d).is_some(),
            Format::Gguf => false,
        }
    }

    /// The bytes at the file's start that hold its header, from the first
    /// [`Format::PROBE`] bytes (or the whole file, if shorter): read that many, then
    /// [`Format::read_header`]. A GGUF header's length is known only once it is read:
    /// where `first` does not hold it all, the answer is more than `first` (read that
    /// many and ask again).
    ///
    /// # Errors
    /// [`Error::Format`]: too short, a header longer than the format allows or than the
    /// file of `file_len` bytes holds, no `.npy` magic.
    pub(crate) fn header_len(
        self,
        path: &str,
        name: &str,
        first: &[u8],
        file_len: u64,
    ) -> Result<usize, Error> {
        match self {
            Format::Safetensors => safetensors::header_len(path, first),
            Format::Npy => npy::header_len(path, name, first, file_len),
            Format::Gguf => gguf::header_len(path, first, file_len),
        }
    }

    /// How many bytes [`Format::header_len`] asks for.
    pub(crate) const PROBE: usize = 16;

    /// The header of a file of this format of `file_len` bytes, from its first bytes
    /// `prefix` (at least [`Format::header_len`] of them; named `path` in errors); a
    /// `.npy` file of void elements (`|V1`, `<V2`: NumPy's way of saving ml_dtypes'
    /// arrays) read as `void_as`, which must be given for one.
    ///
    /// # Errors
    /// [`Error::Format`] naming the file and the tensor at fault.
    pub(crate) fn read_header(
        self,
        path: &str,
        name: &str,
        prefix: &[u8],
        file_len: u64,
        void_as: Option<DType>,
    ) -> Result<Header, Error> {
        match self {
            Format::Safetensors => safetensors::read_header(path, prefix, file_len),
            Format::Npy => npy::read_header(path, name, prefix, file_len, void_as),
            Format::Gguf => gguf::read_header(path, prefix, file_len),
        }
    }

    /// The header bytes of a file holding `plan` (and `metadata`, for
    /// `.safetensors`), and the order its data holds the tensors in: `(index into
    /// plan, byte count)`.
    ///
    /// # Errors
    /// [`Error::Format`] naming the tensor: a dtype the format cannot hold, a name it
    /// reserves or one given twice, other than one tensor for `.npy`.
    pub(crate) fn header_bytes(
        self,
        path: &str,
        plan: &[Planned],
        metadata: Option<&BTreeMap<String, String>>,
    ) -> Result<(Vec<u8>, Order), Error> {
        match self {
            Format::Safetensors => safetensors::header_bytes(path, plan, metadata),
            Format::Gguf => Err(Error::Format {
                path: path.to_owned(),
                tensor: None,
                reason: "nxrig reads GGUF files but writes .safetensors and .npy".into(),
            }),
            Format::Npy => {
                let [t] = plan else {
                    return Err(Error::Format {
                        path: path.to_owned(),
                        tensor: None,
                        reason: format!("a .npy file holds one array, not {}", plan.len()),
                    });
                };
                let len = crate::layout::numel(&t.shape).and_then(|n| t.dtype.bytes(n))?;
                Ok((npy::header_bytes(path, t)?, vec![(0, len as u64)]))
            }
        }
    }
}

impl Entry {
    /// The name of what its elements are: the ggml type of a block-quantized GGUF
    /// tensor (`Q4_K`), else its dtype's name.
    pub fn type_name(&self) -> &'static str {
        self.ggml.map_or(self.dtype.name(), |q| q.name)
    }

    /// The tensor's array over `file` (the whole file's bytes, named `path` in errors):
    /// a view where its bytes are aligned for its dtype and little-endian, else an
    /// aligned copy (byte-swapped from big-endian; a float6's unpacked one a byte, a
    /// 4-bit dtype's one a byte packed two a byte).
    ///
    /// # Errors
    /// [`Error::Format`] naming the tensor if its range is not inside `file`.
    pub fn array(&self, path: &str, file: &Buffer) -> Result<AnyArray, Error> {
        let f = |e: Error| Error::Format {
            path: path.to_owned(),
            tensor: Some(self.name.clone()),
            reason: e.to_string(),
        };
        let layout = if self.fortran {
            let rev: Vec<usize> = self.shape.iter().rev().copied().collect();
            let c = Layout::contiguous(&rev).map_err(f)?;
            let strides: Vec<isize> = c.strides().iter().rev().copied().collect();
            Layout::new(&self.shape, &strides, 0).map_err(f)?
        } else {
            Layout::contiguous(&self.shape).map_err(f)?
        };
        if let Some(q) = self.ggml {
            return Err(Error::Format {
                path: path.to_owned(),
                tensor: Some(self.name.clone()),
                reason: format!(
                    "ggml type {}: nxrig lists GGUF's block-quantized tensors but does not yet dequantize them",
                    q.name
                ),
            });
        }
        let (start, len) = (host_size(self.start), host_size(self.len));
        let view = file.view(start?, len?).map_err(f)?;
        if self.file_bits != self.dtype.bits() {
            let n = crate::layout::numel(&self.shape).map_err(f)?;
            let bytes = view
                .read(|b| packed::to_memory(self.dtype, self.file_bits, b, n))
                .map_err(f)?;
            return AnyArray::v(self.dtype, layout, Buffer::of_vec(bytes)).map_err(f);
        }
        if !self.big_endian {
            if let Ok(a) = AnyArray::v(self.dtype, layout, view.clone()) {
                return Ok(a);
            }
        }
        let mut bytes = view.read(|b| b.to_vec()).map_err(f)?;
        if self.big_endian {
            // Each part of a complex value swapped on its own.
            let w = match self.dtype.class() {
                crate::dtype::Class::Complex => self.dtype.storage_bytes() / 2,
                _ => self.dtype.storage_bytes(),
            };
            bytes.chunks_exact_mut(w).for_each(<[u8]>::reverse);
        }
        AnyArray::v(self.dtype, layout, Buffer::of_vec(bytes)).map_err(f)
    }
}

/// `n` bytes or a byte offset as a `usize`, or [`Error::TooLarge`] where this
/// platform cannot address them (a file of 4 GiB or more on wasm32).
pub(crate) fn host_size(n: u64) -> Result<usize, Error> {
    usize::try_from(n).map_err(|_| Error::TooLarge {
        op: "read",
        what: "file offset",
        dtype: "uint8",
    })
}

/// The tensors of a file whose `header` was read from `file` (named `path` in errors).
///
/// # Errors
/// As [`Entry::array`].
pub fn arrays(path: &str, header: Header, file: &Buffer) -> Result<TensorFile, Error> {
    let tensors = header
        .entries
        .iter()
        .map(|e| {
            Ok(Tensor {
                name: e.name.clone(),
                array: e.array(path, file)?,
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(TensorFile {
        tensors,
        metadata: header.metadata,
    })
}

/// The tensors of the `.safetensors` bytes of `buffer` (named `path` in errors):
/// views of `buffer` where aligned for their dtype, copies otherwise.
///
/// # Errors
/// [`Error::Format`] naming the file and the tensor at fault: a truncated or corrupt
/// header, data outside the file, a dtype nxrig does not read.
pub fn read_safetensors_bytes(path: &str, buffer: Buffer) -> Result<TensorFile, Error> {
    let header = buffer.read(|b| safetensors::read_header(path, b, b.len() as u64))??;
    arrays(path, header, &buffer)
}

/// The one array of the `.npy` bytes of `buffer` (named `path` in errors) as a tensor
/// named `name`: a view of `buffer` (Fortran order as reversed strides) where aligned
/// and little-endian, a copy otherwise.
///
/// # Errors
/// [`Error::Format`] naming the file and the tensor: not a `.npy` file, a type string
/// nxrig does not read, data shorter than the shape.
pub fn read_npy_bytes(path: &str, name: &str, buffer: Buffer) -> Result<TensorFile, Error> {
    let header = buffer.read(|b| npy::read_header(path, name, b, b.len() as u64, None))??;
    arrays(path, header, &buffer)
}

/// The bytes of `file` in `format` (named `name` in errors), in memory: as
/// `write` (native only) writes them.
///
/// # Errors
/// [`Error::Format`] naming the tensor: a dtype the format cannot hold, a name it
/// reserves or one given twice, other than one tensor for `.npy`.
pub fn encode(format: Format, name: &str, file: &TensorFile) -> Result<Vec<u8>, Error> {
    let plan = plan_of(file);
    let (mut out, order) = format.header_bytes(name, &plan, file.metadata.as_ref())?;
    for (i, _) in order {
        let a = &file.tensors[i].array;
        let b = a.to_bytes()?;
        if a.dtype().is_padded() {
            out.extend_from_slice(&packed::pack(a.dtype(), &b));
        } else {
            out.extend_from_slice(&b);
        }
    }
    Ok(out)
}

/// What `file` writes: each tensor's name, dtype and shape.
pub(crate) fn plan_of(file: &TensorFile) -> Vec<Planned> {
    file.tensors
        .iter()
        .map(|t| Planned {
            name: t.name.clone(),
            dtype: t.array.dtype(),
            shape: t.array.shape().to_vec(),
        })
        .collect()
}

/// The bytes of the file at `path`, memory-mapped read-only (an empty file as no
/// bytes).
///
/// # Errors
/// [`Error::Format`] for a path that is not a regular file (a FIFO would block, a
/// directory has no bytes); [`Error::Io`] if the file cannot be opened or mapped.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn map(path: &Path) -> Result<Buffer, Error> {
    let name = path.display().to_string();
    let io = |source| Error::Io {
        path: name.clone(),
        source,
    };
    // Before opening: opening a FIFO for reading blocks until a writer comes.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(Error::Format {
            path: name,
            tensor: None,
            reason: "not a regular file (a FIFO, a device or a directory)".into(),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.len() == 0 {
        return Ok(Buffer::of_bytes(Vec::<u8>::new()));
    }
    // SAFETY: the map is read-only; like every reader of a file, nxrig cannot stop
    // another process from changing it meanwhile.
    Ok(Buffer::of_bytes(
        unsafe { memmap2::Mmap::map(&file) }.map_err(io)?,
    ))
}

/// The stem of a file's name, a `.npy` file's one tensor's name (`"array"` where it
/// has none).
pub(crate) fn stem_of(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("array")
        .to_owned()
}

/// Reads `path` (format by extension), memory-mapped: tensors whose bytes are aligned
/// for their dtype are views of the map, the others are copied.
///
/// # Errors
/// [`Error::Format`] for an unknown extension, and as
/// [`crate::convert::BufferSource::open`],
/// [`crate::convert::Checkpoint::open`] and [`Entry::array`].
#[cfg(not(target_arch = "wasm32"))]
pub fn read(path: &Path) -> Result<TensorFile, Error> {
    let format = Format::of_path(path)?;
    let name = path.display().to_string();
    let bytes = map(path)?;
    let header =
        bytes.read(|b| format.read_header(&name, &stem_of(path), b, b.len() as u64, None))??;
    arrays(&name, header, &bytes)
}
