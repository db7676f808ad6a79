//! Writing files: streaming (the header first, then each tensor's elements in pieces)
//! into a temporary beside the target, renamed once whole ([`Pending`]), so that a
//! failure leaves no file and no temporary. Native only (the browser writes bytes in
//! memory: [`super::encode`]).

use std::collections::BTreeMap;
use std::path::Path;

use super::{plan_of, temp, Format, Planned, TensorFile};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;

/// Writes `file` to `path` in the format its extension names, each tensor's bytes in
/// turn: to a temporary name beside it, then renamed, so that a failure leaves no
/// file at `path` and no temporary.
///
/// # Errors
/// As [`write_with`].
pub fn write(path: &Path, file: &TensorFile) -> Result<(), Error> {
    write_with(path, &plan_of(file), file.metadata.as_ref(), |i| {
        Ok(file.tensors[i].array.clone())
    })
}

/// Writes a file of `plan`'s tensors (and `metadata`) to `path`, streaming: the
/// header first, then the elements of tensor `i` as `array_of(i)` gives them (an array
/// of the planned dtype and element count on a host device), one at a time in the
/// order the format stores them, each written from where it is and dropped before the
/// next is asked for. Written to a temporary name beside `path` and renamed once whole.
///
/// # Errors
/// As [`write_pending`].
pub fn write_with(
    path: &Path,
    plan: &[Planned],
    metadata: Option<&BTreeMap<String, String>>,
    mut array_of: impl FnMut(usize) -> Result<AnyArray, Error>,
) -> Result<(), Error> {
    write_pending(path, plan, metadata, |i, w| w.put(&array_of(i)?))?.commit()
}

/// A file written whole under a temporary name beside its path, not yet renamed into
/// place: [`Pending::commit`] does; dropping it removes the temporary.
///
/// ```
/// use nxrig::formats::{self, Planned};
/// use nxrig::{Array, DType};
///
/// let path = std::env::temp_dir().join(format!("nxrig-doc-pending-{}.safetensors", std::process::id()));
/// let plan = [Planned { name: "w".into(), dtype: DType::Float32, shape: vec![2] }];
/// let pending = formats::write_pending(&path, &plan, None, |_, w| {
///     w.put(Array::<f32>::of_array(&[2], &[1.0, 2.0])?.any())
/// })?;
/// assert!(!path.exists(), "written under a temporary name");
/// pending.commit()?; // renamed into place
/// assert!(path.exists());
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Pending {
    tmp: temp::Temp,
    path: std::path::PathBuf,
}

impl Pending {
    /// Renames the file into place.
    ///
    /// # Errors
    /// [`Error::Io`] if syncing or renaming fails (the temporary is then removed).
    pub fn commit(self) -> Result<(), Error> {
        let Pending { tmp, path } = self;
        tmp.commit(&path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })
    }
}

/// What [`write_pending`] writes one tensor's elements through: in pieces, in C
/// order ([`TensorWriter::put`]).
///
/// ```
/// use nxrig::formats::{self, Planned};
/// use nxrig::{Array, DType};
///
/// let path = std::env::temp_dir().join(format!("nxrig-doc-writer-{}.safetensors", std::process::id()));
/// let plan = [Planned { name: "w".into(), dtype: DType::Float32, shape: vec![4] }];
/// formats::write_pending(&path, &plan, None, |_, w| {
///     // A tensor's elements in pieces, in C order.
///     w.put(Array::<f32>::of_array(&[2], &[1.0, 2.0])?.any())?;
///     w.put(Array::<f32>::of_array(&[2], &[3.0, 4.0])?.any())
/// })?
/// .commit()?;
/// assert_eq!(formats::read(&path)?.tensors.remove(0).array.expect::<f32>()?.to_vec()?, [1.0, 2.0, 3.0, 4.0]);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TensorWriter<'a> {
    out: std::io::BufWriter<&'a mut std::fs::File>,
    path: &'a str,
    dtype: DType,
    written: u64,
}

impl TensorWriter<'_> {
    /// Writes the elements of `a` (a host array of the tensor's dtype, any layout; of a
    /// sub-byte dtype, an even count but for the tensor's last piece, of a float6 a
    /// multiple of four, which it packs) after those written before.
    ///
    /// # Errors
    /// [`Error::Io`] if writing fails; [`Error::Format`] for another dtype.
    pub fn put(&mut self, a: &AnyArray) -> Result<(), Error> {
        use std::io::Write;
        if a.dtype() != self.dtype {
            return Err(Error::Format {
                path: self.path.to_owned(),
                tensor: None,
                reason: format!("nxrig bug: {} elements given for {}", a.dtype(), self.dtype),
            });
        }
        let len = a.dtype().bytes(a.layout().numel())?;
        let bytes = match a.own_bytes() {
            Some(b) => b?,
            None => a.copy()?.buffer().view(0, len)?,
        };
        let path = self.path;
        let dtype = self.dtype;
        let out = &mut self.out;
        // A float6 packed four in three bytes (the one format that holds it packs it).
        let put = bytes.read(|b| {
            if dtype.is_padded() {
                let p = super::packed::pack(dtype, &b[..len]);
                out.write_all(&p).map(|()| p.len())
            } else {
                out.write_all(&b[..len]).map(|()| len)
            }
        })?;
        self.written += put.map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })? as u64;
        Ok(())
    }
}

/// Writes a file of `plan`'s tensors (and `metadata`) under a temporary name beside
/// `path`, streaming: the header first, then tensor `i`'s elements as `fill(i, writer)`
/// puts them through the writer (in one piece or several), one tensor at a time in the
/// order the format stores them. The file is not in place until [`Pending::commit`]:
/// so several files (a sharded checkpoint's shards) go in place together or not at
/// all.
///
/// # Errors
/// [`Error::Format`] naming the tensor: a dtype the format cannot hold, a name it
/// reserves or one given twice, other than one tensor for `.npy`, or `fill` giving
/// other than its bytes; [`Error::Io`] if writing fails; whatever `fill`
/// returns. The temporary file is removed on every error.
pub fn write_pending(
    path: &Path,
    plan: &[Planned],
    metadata: Option<&BTreeMap<String, String>>,
    mut fill: impl FnMut(usize, &mut TensorWriter<'_>) -> Result<(), Error>,
) -> Result<Pending, Error> {
    use std::io::Write;
    let name = path.display().to_string();
    let (header, order) = Format::of_path(path)?.header_bytes(&name, plan, metadata)?;
    let io = |source| Error::Io {
        path: name.clone(),
        source,
    };
    // Never over a path that is not a regular file (a FIFO, a device, a folder).
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() {
            return Err(Error::Format {
                path: name,
                tensor: None,
                reason: "the output exists and is not a regular file".into(),
            });
        }
    }
    let mut tmp = temp::Temp::beside(path).map_err(io)?;
    {
        let mut w = TensorWriter {
            out: std::io::BufWriter::with_capacity(1 << 20, tmp.file()),
            path: &name,
            dtype: DType::Bool,
            written: 0,
        };
        w.out.write_all(&header).map_err(io)?;
        for (i, len) in order {
            w.dtype = plan[i].dtype;
            w.written = 0;
            fill(i, &mut w)?;
            if w.written != len {
                return Err(Error::Format {
                    path: name.clone(),
                    tensor: Some(plan[i].name.clone()),
                    reason: format!("nxrig bug: {} bytes written for {len}", w.written),
                });
            }
        }
        w.out.flush().map_err(io)?;
    }
    Ok(Pending {
        tmp,
        path: path.to_owned(),
    })
}
