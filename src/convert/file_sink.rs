//! Native: a conversion's files written under temporary names beside their targets,
//! renamed into place together once all are whole.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::sink::{host_bytes, Sink};
use crate::array::AnyArray;
use crate::error::Error;
use crate::formats::Temp;

/// Where a [`FileSink`] puts its files.
#[derive(Debug)]
enum Target {
    /// One file, whatever the name it is opened under.
    File(PathBuf),
    /// Files of the names they are opened under, in a folder (made if missing;
    /// removed again on abort).
    Folder(PathBuf),
}

/// A sink of files on disk: each written to a temporary name beside its target
/// (`.nxrig-PID-N.tmp`, removed on an interrupt the command line catches), all
/// renamed into place at [`Sink::commit`]; an abort (or a drop) removes them.
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// # let w = Array::<f32>::of_array(&[2, 3], &[0.5; 6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// # use nxrig::convert::{self, FileSink, Pick, Plan};
/// let dir = std::env::temp_dir().join(format!("nxrig-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let out = dir.join("model.bf16.safetensors");
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let plan = Plan::new(&ck, &Pick::floats(DType::Bfloat16), &out.display().to_string())?;
/// let mut sink = FileSink::file(&out); // a temporary beside `out`, renamed once whole
/// pollster::block_on(convert::run(&ck, &plan, &mut sink, &nxrig::Rig::host(), &mut |_| {}))?;
/// assert_eq!(formats::read(&out)?.tensors[0].array.dtype(), DType::Bfloat16);
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FileSink {
    target: Target,
    made_dir: bool,
    open: Option<(Temp, PathBuf)>,
    whole: Vec<(Temp, PathBuf)>,
}

impl FileSink {
    /// A sink writing one file at `path`.
    pub fn file(path: &Path) -> FileSink {
        FileSink::new(Target::File(path.to_owned()))
    }

    /// A sink writing files into the folder `dir` (a sharded checkpoint's shards and
    /// index), made on the first file if missing.
    pub fn folder(dir: &Path) -> FileSink {
        FileSink::new(Target::Folder(dir.to_owned()))
    }

    fn new(target: Target) -> FileSink {
        FileSink {
            target,
            made_dir: false,
            open: None,
            whole: Vec::new(),
        }
    }

    fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
        move |source| Error::Io {
            path: path.display().to_string(),
            source,
        }
    }

    fn current(&mut self) -> Result<&mut (Temp, PathBuf), Error> {
        self.open.as_mut().ok_or_else(|| Error::Format {
            path: "the output".into(),
            tensor: None,
            reason: "nxrig bug: a write with no file open".into(),
        })
    }
}

impl Sink for FileSink {
    async fn open(&mut self, name: &str) -> Result<(), Error> {
        let path = match &self.target {
            Target::File(p) => p.clone(),
            Target::Folder(d) => {
                if !d.exists() {
                    crate::formats::remove_on_interrupt(d);
                    std::fs::create_dir_all(d).map_err(FileSink::io(d))?;
                    self.made_dir = true;
                }
                d.join(name)
            }
        };
        // Never over a path that is not a regular file (a FIFO, a device, a folder).
        if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Err(Error::Format {
                path: path.display().to_string(),
                tensor: None,
                reason: "the output exists and is not a regular file".into(),
            });
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let why = match std::fs::metadata(dir) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist"),
                Ok(m) if !m.is_dir() => Some("is not a folder"),
                _ => None,
            };
            if let Some(why) = why {
                return Err(Error::Format {
                    path: path.display().to_string(),
                    tensor: None,
                    reason: format!("its folder {} {why}", dir.display()),
                });
            }
        }
        let tmp = Temp::beside(&path).map_err(FileSink::io(&path))?;
        self.open = Some((tmp, path));
        Ok(())
    }

    async fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let (tmp, path) = self.current()?;
        tmp.file().write_all(bytes).map_err(FileSink::io(path))
    }

    async fn write_array(&mut self, a: &AnyArray) -> Result<(), Error> {
        let b = host_bytes(a).await?;
        let (tmp, path) = self.current()?;
        b.read(|b| tmp.file().write_all(b))?
            .map_err(FileSink::io(path))
    }

    async fn close(&mut self) -> Result<(), Error> {
        if let Some(f) = self.open.take() {
            self.whole.push(f);
        }
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), Error> {
        // All renamed or none: an interrupt waits for the set.
        crate::formats::commit_all(self.whole.drain(..).collect())
            .map_err(|(path, e)| FileSink::io(&path)(e))
    }

    async fn abort(&mut self) {
        self.open = None;
        self.whole.clear();
        if self.made_dir {
            if let Target::Folder(d) = &self.target {
                let _ = std::fs::remove_dir(d);
            }
            self.made_dir = false;
        }
    }
}
