//! Timelines and stamps: the order of a device's work.
//!
//! Each device has one timeline; every
//! submission gets the next stamp; work completes in stamp order, so a stamp is done
//! once the timeline's completed stamp reaches it. The host timeline completes each
//! stamp as it is given; a GPU's completes when its queue reports the work done.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::sync::{lock, AtomicBool, AtomicU64, Mutex, Ordering};

/// A point on one device's timeline: the submission that got it is done once the
/// timeline reaches it. Stamps of one device are ordered; 0 is "nothing to wait for".
///
/// ```
/// use nxrig::rig::{Buffer, Kind, Stamp};
/// use nxrig::Rig;
///
/// let host = Rig::host();
/// let b = Buffer::create(&host, 4, Kind::Device)?;
/// let s = host.submit(&[], &[&b], || Ok(()))?;
/// assert!(s > Stamp(0)); // 0 is "nothing to wait for"
/// b.wait(true)?; // its writes done (on the host at once)
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Stamp(pub u64);

/// One device's timeline.
#[derive(Debug)]
pub(crate) struct Timeline {
    /// The last stamp given.
    given: AtomicU64,
    /// The last stamp whose work is done.
    done: AtomicU64,
    /// Set when the device is lost: work not done by then never will be.
    lost: AtomicBool,
    /// Tasks waiting for a stamp (the async forms).
    wakers: Mutex<Vec<Waker>>,
    /// Why the device was lost, where nxrig knows (std's mutex also under loom: a
    /// message, not an order).
    why: std::sync::Mutex<Option<String>>,
}

impl Timeline {
    pub(crate) fn new() -> Timeline {
        Timeline {
            given: AtomicU64::new(0),
            done: AtomicU64::new(0),
            lost: AtomicBool::new(false),
            wakers: Mutex::new(Vec::new()),
            why: std::sync::Mutex::new(None),
        }
    }

    /// The next stamp.
    pub(crate) fn next(&self) -> Stamp {
        Stamp(self.given.fetch_add(1, Ordering::AcqRel) + 1)
    }

    /// Records that the work of every stamp up to `s` is done, and wakes the waiters.
    pub(crate) fn complete(&self, s: Stamp) {
        self.done.fetch_max(s.0, Ordering::AcqRel);
        self.wake();
    }

    /// Marks the timeline lost and wakes every waiter, which then fails.
    pub(crate) fn lose(&self) {
        self.lost.store(true, Ordering::Release);
        self.wake();
    }

    /// [`Timeline::lose`], saying why (the first reason given is kept).
    pub(crate) fn lose_because(&self, why: &str) {
        self.why
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(|| why.to_owned());
        self.lose();
    }

    /// Why the device was lost, where nxrig knows.
    pub(crate) fn why(&self) -> Option<String> {
        self.why.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn wake(&self) {
        let wakers = std::mem::take(&mut *lock(&self.wakers));
        for w in wakers {
            w.wake();
        }
    }

    /// Whether the device is lost.
    pub(crate) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// `Some(true)` if `s` is done, `Some(false)` if it may still be, `None` if the
    /// device was lost before it was done.
    pub(crate) fn state(&self, s: Stamp) -> Option<bool> {
        if self.done.load(Ordering::Acquire) >= s.0 {
            Some(true)
        } else if self.is_lost() {
            None
        } else {
            Some(false)
        }
    }

    /// A future that is ready when `s` is done (`true`) or the device is lost (`false`).
    pub(crate) fn reached(&self, s: Stamp) -> Reached<'_> {
        Reached {
            timeline: self,
            stamp: s,
        }
    }
}

/// The future of [`Timeline::reached`].
pub(crate) struct Reached<'a> {
    timeline: &'a Timeline,
    stamp: Stamp,
}

impl Future for Reached<'_> {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        match self.timeline.state(self.stamp) {
            Some(true) => return Poll::Ready(true),
            None => return Poll::Ready(false),
            Some(false) => {}
        }
        lock(&self.timeline.wakers).push(cx.waker().clone());
        // Completion may have come between the check and the registration.
        match self.timeline.state(self.stamp) {
            Some(true) => Poll::Ready(true),
            None => Poll::Ready(false),
            Some(false) => Poll::Pending,
        }
    }
}
