//! Tensor files: `.safetensors` and `.npy`, read without a copy where the bytes allow
//! it, written to a temporary name and renamed so that a failure leaves no file.
//!
//! Sits above [`crate::array`]: a file is a list of named arrays.

mod npy;
mod safetensors;

use std::collections::HashMap;
use std::path::Path;

pub use npy::{npy_descr, read_npy_bytes};
pub use safetensors::{read_safetensors_bytes, safetensors_dtype};

use crate::array::AnyArray;
use crate::error::Error;

/// A named array of a file.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// The tensor's name in the file (a `.npy` file's is its stem).
    pub name: String,
    /// Its elements, over the file's bytes where their alignment allows.
    pub array: AnyArray,
}

/// The tensors of one file, in the file's order, and its free-form metadata.
#[derive(Clone, Debug, Default)]
pub struct TensorFile {
    /// The tensors.
    pub tensors: Vec<Tensor>,
    /// `.safetensors`' `__metadata__`, kept through a conversion.
    pub metadata: Option<HashMap<String, String>>,
}

/// The formats nxrig reads and writes, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.safetensors`.
    Safetensors,
    /// NumPy's `.npy` (one array).
    Npy,
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
            _ => Err(Error::Format {
                path: path.display().to_string(),
                tensor: None,
                reason: "unknown format: the extension must be .safetensors or .npy".into(),
            }),
        }
    }
}

impl Format {
    /// True when files of this format can hold elements of `d`.
    pub fn holds(self, d: crate::DType) -> bool {
        match self {
            Format::Safetensors => safetensors_dtype(d).is_some(),
            Format::Npy => npy_descr(d).is_some(),
        }
    }
}

/// The bytes of `file` in `format` (named `name` in errors): `.safetensors` tensors
/// sorted by name as that format does; `.npy` in C order.
///
/// # Errors
/// [`Error::Format`] if the format cannot hold a tensor's dtype or, for `.npy`, the
/// file has other than one tensor.
pub fn encode(format: Format, name: &str, file: &TensorFile) -> Result<Vec<u8>, Error> {
    match format {
        Format::Safetensors => safetensors::to_bytes(name, file),
        Format::Npy => npy::to_bytes(name, file),
    }
}

/// Reads `path` (format by extension), memory-mapped: tensors whose bytes are aligned
/// for their dtype are views of the map, the others are copied.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read; [`Error::Format`] naming the file and the
/// tensor for a truncated or corrupt header, data out of the file or overlapping, or a
/// dtype nxrig does not know.
#[cfg(not(target_arch = "wasm32"))]
pub fn read(path: &Path) -> Result<TensorFile, Error> {
    let format = Format::of_path(path)?;
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    // SAFETY: the map is read-only; like every reader of a file, nxrig cannot stop
    // another process from changing it meanwhile.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    let memory = crate::rig::Buffer::of_bytes(map);
    let name = path.display().to_string();
    match format {
        Format::Safetensors => read_safetensors_bytes(&name, memory),
        Format::Npy => {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("array")
                .to_owned();
            read_npy_bytes(&name, &stem, memory)
        }
    }
}

/// Writes `file` to `path` in the format its extension names: to a temporary name
/// beside it, then renamed, so that a failure leaves no file at `path`.
///
/// # Errors
/// [`Error::Format`] if the format cannot hold a tensor's dtype (`.safetensors` has no
/// int4, uint4 or complex128; `.npy` no bfloat16, float8 or 4-bit dtypes) or a `.npy`
/// output is given other than one tensor; [`Error::Io`] if writing fails.
#[cfg(not(target_arch = "wasm32"))]
pub fn write(path: &Path, file: &TensorFile) -> Result<(), Error> {
    use std::io::Write;
    let name = path.display().to_string();
    let bytes = encode(Format::of_path(path)?, &name, file)?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let io = |source| Error::Io {
        path: name.clone(),
        source,
    };
    let mut tmp = tempfile_in(dir).map_err(io)?;
    tmp.1.write_all(&bytes).map_err(io)?;
    tmp.1.sync_all().map_err(io)?;
    drop(tmp.1);
    std::fs::rename(&tmp.0, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp.0);
        io(e)
    })
}

/// A new file with a unique name in `dir`.
#[cfg(not(target_arch = "wasm32"))]
fn tempfile_in(dir: &Path) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    loop {
        let p = dir.join(format!(
            ".nxrig-{}-{}.tmp",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}
