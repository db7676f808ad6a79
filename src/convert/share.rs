//! A conversion's work shared among runs of one plan, each on a thread or a wasm
//! instance of its own: the pieces (and a block-scaled group's bands) dealt in turn,
//! every other step (opening a file, its header, the index, the copies, the commit)
//! the first run's. A step a run leaves to another is [`Sink::skip`]ped there, so
//! every run's sink sees the same steps in the same order: whoever merges the runs'
//! writes puts them in place by that order.

use super::sink::Sink;
use crate::array::AnyArray;
use crate::error::Error;

/// Which share of a conversion's work a run does: the pieces `index`, `index +
/// count`, `index + 2 count`, ... in the order the conversion writes them (a tensor's
/// pieces, a group's bands), and where `index` is 0 every other step.
///
/// ```
/// use nxrig::convert::Share;
/// assert_eq!(Share::WHOLE, Share::new(0, 1)?);
/// assert!(Share::new(2, 2).is_err());
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    index: usize,
    count: usize,
}

impl Share {
    /// All of the work: one run.
    pub const WHOLE: Share = Share { index: 0, count: 1 };

    /// The share `index` of `count` runs.
    ///
    /// # Errors
    /// [`Error::Invalid`] where `count` is 0 or `index` not below it.
    pub fn new(index: usize, count: usize) -> Result<Share, Error> {
        if index >= count {
            return Err(Error::Invalid {
                op: "Share::new",
                reason: format!("share {index} of {count}: the index must be below the count"),
                operands: String::new(),
            });
        }
        Ok(Share { index, count })
    }

    /// The run's index, from 0.
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many runs share the work.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether this run does the steps that are not pieces.
    pub(super) fn leads(&self) -> bool {
        self.index == 0
    }
}

/// The pieces dealt so far, and whose the next one is.
pub(super) struct Dealt {
    share: Share,
    next: u64,
}

impl Dealt {
    pub(super) fn new(share: Share) -> Dealt {
        Dealt { share, next: 0 }
    }

    /// Whether the next piece is this run's (each call deals one).
    pub(super) fn mine(&mut self) -> bool {
        let i = self.next;
        self.next += 1;
        i % self.share.count as u64 == self.share.index as u64
    }
}

/// `sink` for the steps that are not pieces: each done where the run leads, skipped
/// where another run does it.
pub(super) struct Led<'a, K> {
    pub(super) sink: &'a mut K,
    pub(super) leads: bool,
}

impl<K: Sink> Sink for Led<'_, K> {
    async fn open(&mut self, name: &str) -> Result<(), Error> {
        match self.leads {
            true => self.sink.open(name).await,
            false => self.sink.skip_open(name).await,
        }
    }

    async fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), Error> {
        match self.leads {
            true => self.sink.write_bytes(bytes).await,
            false => self.sink.skip().await,
        }
    }

    async fn write_array(&mut self, a: &AnyArray) -> Result<(), Error> {
        match self.leads {
            true => self.sink.write_array(a).await,
            false => self.sink.skip().await,
        }
    }

    async fn close(&mut self) -> Result<(), Error> {
        match self.leads {
            true => self.sink.close().await,
            false => self.sink.skip().await,
        }
    }

    async fn commit(&mut self) -> Result<(), Error> {
        match self.leads {
            true => self.sink.commit().await,
            false => self.sink.skip().await,
        }
    }

    async fn abort(&mut self) {
        self.sink.abort().await
    }
}
