//! Where a conversion writes: files of bytes in order, then all committed or all
//! aborted.

use std::future::Future;

use super::ahead::{bytes_of, Ahead, Landed};
use crate::array::AnyArray;
use crate::error::Error;
use crate::rig::{Buffer, Rig};

/// Files written in order, each a byte stream, then put in place together
/// ([`Sink::commit`]) or dropped ([`Sink::abort`]): a temporary renamed once whole
/// natively, a `WritableStream` (closed, or aborted) in the browser.
///
/// A conversion calls `open`, then `write_bytes`/`write_array` for the file's bytes in
/// order, then `close`, for each file; then `commit` once, or `abort` on any error
/// (also after a failed `commit`).
///
/// ```
/// use nxrig::convert::{MemorySink, Sink};
///
/// let mut sink = MemorySink::default();
/// pollster::block_on(async {
///     sink.open("a.bin").await?;
///     sink.write_bytes(&[1, 2, 3]).await?;
///     sink.close().await?;
///     sink.commit().await
/// })?;
/// assert_eq!(sink.files, [("a.bin".to_owned(), vec![1, 2, 3])]);
/// # Ok::<(), nxrig::Error>(())
/// ```
pub trait Sink {
    /// Starts the file `name` (a plan's [`super::OutFile::name`], or a sharded
    /// checkpoint's index).
    ///
    /// # Errors
    /// Where the file cannot be made (an I/O error, a stream that refuses).
    fn open(&mut self, name: &str) -> impl Future<Output = Result<(), Error>>;

    /// Appends `bytes` to the open file.
    ///
    /// # Errors
    /// Where writing fails.
    fn write_bytes(&mut self, bytes: &[u8]) -> impl Future<Output = Result<(), Error>>;

    /// Appends the bytes of `a` (a C-contiguous array starting on a byte, on any
    /// device) to the open file.
    ///
    /// # Errors
    /// Where reading `a` back or writing fails.
    fn write_array(&mut self, a: &AnyArray) -> impl Future<Output = Result<(), Error>>;

    /// Ends the open file (whole, not yet in place).
    ///
    /// # Errors
    /// Where finishing it fails.
    fn close(&mut self) -> impl Future<Output = Result<(), Error>>;

    /// Puts every file in place.
    ///
    /// # Errors
    /// Where that fails (the conversion then aborts).
    fn commit(&mut self) -> impl Future<Output = Result<(), Error>>;

    /// Drops every file written or being written: nothing is left.
    fn abort(&mut self) -> impl Future<Output = ()>;

    /// Starts bringing the bytes of `a` (a piece's output, its work just submitted)
    /// to where the sink writes from, to be written later by [`Sink::write_ahead`]:
    /// on a device that queues its work, the read back then runs while the next
    /// piece is read. The default reads into host memory ([`Ahead::read`]).
    ///
    /// # Errors
    /// A dead buffer; a lost device.
    fn read_ahead(&self, a: &AnyArray) -> Result<Ahead, Error> {
        Ahead::read(a)
    }

    /// Appends the bytes [`Sink::read_ahead`] started reading to the open file. The
    /// default writes what was read ([`Sink::write_bytes`]), or the array
    /// ([`Sink::write_array`]) where nothing was read ahead.
    ///
    /// # Errors
    /// Where the read or the write fails.
    fn write_ahead(&mut self, a: Ahead) -> impl Future<Output = Result<(), Error>> {
        async move {
            match a.landed().await? {
                Landed::Array(a) => self.write_array(&a).await,
                Landed::Bytes(b) => self.write_bytes(&b).await,
            }
        }
    }

    /// A step that another run of a shared conversion does ([`super::Share`]): a
    /// piece another run writes, or any step but a piece where this run does not
    /// lead. Nothing to write; a sink that merges the runs' writes counts it (each
    /// run's sink sees the same steps in the same order). The default does nothing.
    ///
    /// # Errors
    /// None by default.
    fn skip(&mut self) -> impl Future<Output = Result<(), Error>> {
        async { Ok(()) }
    }

    /// The opening of the file `name`, a step another run does ([`Sink::skip`]): a
    /// sink that names the file in its errors (its pieces are this run's) learns its
    /// name. The default is [`Sink::skip`].
    ///
    /// # Errors
    /// As [`Sink::skip`].
    fn skip_open(&mut self, name: &str) -> impl Future<Output = Result<(), Error>> {
        let _ = name;
        self.skip()
    }
}

/// The bytes of `a` (C-contiguous from a byte) on the host: a view of them where `a`
/// is on a host device; read back from a GPU (blocking natively, not in the
/// browser).
///
/// # Errors
/// A dead buffer; a lost device.
pub async fn host_bytes(a: &AnyArray) -> Result<Buffer, Error> {
    let host = if a.rig().host_addressable() {
        a.clone()
    } else {
        #[cfg(target_arch = "wasm32")]
        let h = a.to_device_async(&Rig::host()).await?;
        #[cfg(not(target_arch = "wasm32"))]
        let h = a.to_device(&Rig::host())?;
        h
    };
    bytes_of(&host)
}

/// A sink that keeps each file's bytes in memory (tests, small outputs): `files`
/// holds them, by name, once committed.
///
/// ```
/// use nxrig::convert::{MemorySink, Sink};
///
/// let mut sink = MemorySink::default();
/// pollster::block_on(async {
///     sink.open("a.bin").await?;
///     sink.write_bytes(b"kept only if committed").await?;
///     sink.close().await?;
///     sink.abort().await;
///     Ok::<(), nxrig::Error>(())
/// })?;
/// assert!(sink.files.is_empty(), "aborted: nothing kept");
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct MemorySink {
    /// The committed files, in the order written.
    pub files: Vec<(String, Vec<u8>)>,
    written: Vec<(String, Vec<u8>)>,
}

impl Sink for MemorySink {
    async fn open(&mut self, name: &str) -> Result<(), Error> {
        self.written.push((name.to_owned(), Vec::new()));
        Ok(())
    }

    async fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if let Some((_, v)) = self.written.last_mut() {
            v.extend_from_slice(bytes);
        }
        Ok(())
    }

    async fn write_array(&mut self, a: &AnyArray) -> Result<(), Error> {
        let b = host_bytes(a).await?;
        b.read(|b| {
            if let Some((_, v)) = self.written.last_mut() {
                v.extend_from_slice(b);
            }
        })
    }

    async fn close(&mut self) -> Result<(), Error> {
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), Error> {
        self.files.append(&mut self.written);
        Ok(())
    }

    async fn abort(&mut self) {
        self.written.clear();
    }
}
