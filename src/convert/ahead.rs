//! A piece's output read back ahead of its write: on a device that queues its work,
//! the read back (a copy into staging memory, then its mapping) is started as soon as
//! the piece's cast is submitted, so that it runs while the next piece is read and
//! uploaded, and is awaited only when the piece is written.

#[cfg(target_arch = "wasm32")]
use std::future::Future;
#[cfg(target_arch = "wasm32")]
use std::pin::Pin;

use crate::array::AnyArray;
use crate::error::Error;
use crate::rig::{Buffer, ReadAsync};

/// What an [`Ahead`] brought: the bytes, or the array (in host memory) to read when
/// written.
pub enum Landed {
    /// The bytes read back.
    Bytes(Vec<u8>),
    /// An array in host memory, its bytes read where they are.
    Array(Box<AnyArray>),
}

/// The bytes of `a`'s elements on its own device: a view of them where `a` is
/// C-contiguous from a byte, else of a compact copy.
///
/// # Errors
/// A dead buffer; a lost device.
pub(crate) fn bytes_of(a: &AnyArray) -> Result<Buffer, Error> {
    match a.own_bytes() {
        Some(b) => b,
        None => {
            let c = a.copy()?;
            let len = c.dtype().bytes(c.layout().numel())?;
            c.buffer().view(0, len)
        }
    }
}

/// An array's bytes on their way to a [`super::Sink`]: a read back already under way (see
/// [`super::Sink::read_ahead`]), or an array read when it is written.
pub struct Ahead(Kind);

enum Kind {
    /// Read when written (`Sink::write_array`): host memory, which needs no read.
    Later(Box<AnyArray>),
    /// A read into host memory under way.
    Read(ReadAsync),
    /// A read into a JavaScript `Uint8Array` under way (never through wasm memory).
    #[cfg(target_arch = "wasm32")]
    Js(Pin<Box<dyn Future<Output = Result<js_sys::Uint8Array, Error>>>>),
}

impl Ahead {
    /// Starts reading the bytes of `a` (C-contiguous from a byte, or compacted first)
    /// back into host memory: on a GPU the copy into staging memory and its mapping
    /// are submitted before this returns, so work submitted later does not delay it
    /// or change what it reads. An array in host memory is read when written.
    ///
    /// # Errors
    /// A dead buffer; a lost device.
    pub fn read(a: &AnyArray) -> Result<Ahead, Error> {
        if a.rig().host_addressable() {
            return Ok(Ahead(Kind::Later(Box::new(a.clone()))));
        }
        Ok(Ahead(Kind::Read(bytes_of(a)?.read_async())))
    }

    /// [`Ahead::read`] into a JavaScript `Uint8Array`, never through wasm memory.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn read_js(a: &AnyArray) -> Result<Ahead, Error> {
        if a.rig().host_addressable() {
            return Ok(Ahead(Kind::Later(Box::new(a.clone()))));
        }
        Ok(Ahead(Kind::Js(Box::pin(bytes_of(a)?.read_js_async()))))
    }

    /// The read into a `Uint8Array`, where [`Ahead::read_js`] started one; else
    /// `self` back.
    #[cfg(target_arch = "wasm32")]
    #[allow(clippy::type_complexity)]
    pub(crate) fn into_js(
        self,
    ) -> Result<Pin<Box<dyn Future<Output = Result<js_sys::Uint8Array, Error>>>>, Ahead> {
        match self.0 {
            Kind::Js(f) => Ok(f),
            k => Err(Ahead(k)),
        }
    }

    /// What was read: bytes in host memory, or the array itself where it is read
    /// when written.
    ///
    /// # Errors
    /// Where the read fails.
    pub async fn landed(self) -> Result<Landed, Error> {
        Ok(match self.0 {
            Kind::Later(a) => Landed::Array(a),
            Kind::Read(r) => Landed::Bytes(r.await?),
            #[cfg(target_arch = "wasm32")]
            Kind::Js(f) => Landed::Bytes(f.await?.to_vec()),
        })
    }
}
