//! Where a conversion reads: byte ranges of a file, on demand.

use std::future::Future;

use crate::error::Error;
use crate::rig::Buffer;

/// Bytes read on demand, a range at a time: a memory-mapped file, bytes in memory, a
/// `File` or `Blob`, a URL read with HTTP Range requests, a Node file handle.
///
/// A source never reads more than it is asked for, so memory stays bounded by the
/// largest range a conversion asks (a piece, [`super::PIECE_BYTES`], or a header).
///
/// ```
/// use nxrig::convert::{BufferSource, Source};
/// use nxrig::rig::Buffer;
///
/// let s = BufferSource::new("bytes", Buffer::of_vec((0u8..16).collect::<Vec<_>>()));
/// assert_eq!((s.name(), s.size()), ("bytes", 16));
/// let piece = pollster::block_on(s.read(4, 3))?;
/// assert_eq!(piece.read(|b| b.to_vec())?, [4, 5, 6]);
/// # Ok::<(), nxrig::Error>(())
/// ```
pub trait Source {
    /// The name errors give: a path, a URL, a `File`'s name.
    fn name(&self) -> &str;

    /// Its length in bytes.
    fn size(&self) -> u64;

    /// Bytes `start..start + len` (inside the source) as a host buffer of exactly
    /// `len` bytes.
    ///
    /// # Errors
    /// What reading failed of (an I/O error, a network error, a file that changed):
    /// [`Error::Format`] naming the source.
    fn read(&self, start: u64, len: usize) -> impl Future<Output = Result<Buffer, Error>>;
}

/// A source over bytes already on the host: a memory map natively, or bytes in
/// memory. Reads are views of the buffer (no copy).
///
/// ```
/// use nxrig::convert::{BufferSource, Source};
/// use nxrig::rig::Buffer;
///
/// let s = BufferSource::new("in memory", Buffer::of_vec(vec![7u8; 8]));
/// assert_eq!(pollster::block_on(s.read(6, 2))?.len(), 2); // a view, no copy
/// assert!(pollster::block_on(s.read(6, 4)).is_err()); // past the end
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BufferSource {
    name: String,
    bytes: Buffer,
}

impl BufferSource {
    /// The source named `name` over `bytes` (a host buffer).
    pub fn new(name: &str, bytes: Buffer) -> BufferSource {
        BufferSource {
            name: name.to_owned(),
            bytes,
        }
    }

    /// The whole buffer.
    pub fn bytes(&self) -> &Buffer {
        &self.bytes
    }
}

impl Source for BufferSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    async fn read(&self, start: u64, len: usize) -> Result<Buffer, Error> {
        let start = usize::try_from(start).unwrap_or(usize::MAX);
        self.bytes.view(start, len)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl BufferSource {
    /// Native: the file at `path`, opened read-only and memory-mapped (an empty file
    /// as no bytes).
    ///
    /// # Errors
    /// [`Error::Format`] for a path that is not a regular file (a FIFO would block, a
    /// directory has no bytes); [`Error::Io`] if the file cannot be opened or mapped.
    pub fn open(path: &std::path::Path) -> Result<BufferSource, Error> {
        Ok(BufferSource::new(
            &path.display().to_string(),
            crate::formats::map(path)?,
        ))
    }
}
