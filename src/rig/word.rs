//! The claims word of an allocation, every compare-and-swap on it, and the read
//! claim's guard: the one place where the claims protocol touches memory.
//!
//! One atomic word an allocation: read claims (holds included) in the low bits, then
//! the holds, and three flags: exclusive, outside the claims, and "a consume is
//! checking the holds". Taking a claim never waits; a consume waits only for another
//! consume's check of the holds. `claim.rs` builds the protocol (`Claim::with`,
//! holds, consume, share) from these operations; `Buffer::claim`, `Rig::submit` and
//! the door take their read claims through [`ReadClaims`].

use crate::sync::{spin, AtomicU64, Ordering};

/// Read claims, holds included.
const COUNT: u64 = (1 << 40) - 1;
/// One hold.
const HOLD: u64 = 1 << 40;
/// Holds.
const HOLDS: u64 = ((1 << 20) - 1) << 40;
/// A consume is checking the holds and killing the buffers.
const CONSUMING: u64 = 1 << 61;
/// The memory is outside the claims for good: never exclusive.
const OUTSIDE: u64 = 1 << 62;
/// A `Claim::with` holds the memory exclusive (its one read claim is the count).
const EXCL: u64 = 1 << 63;

/// The claims word of one allocation.
#[derive(Debug)]
pub(crate) struct Word(AtomicU64);

/// Why a hold was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HoldRefused {
    /// A `Claim::with` holds the memory exclusive.
    Exclusive,
    /// A consume is killing the memory's buffers.
    Consuming,
    /// The counts are full.
    TooMany,
}

impl Word {
    /// The word of a fresh allocation: no claim; outside the claims for good where
    /// `outside` says so (memory nxrig does not own, or that admits only reads).
    pub(crate) fn new(outside: bool) -> Word {
        Word(AtomicU64::new(if outside { OUTSIDE } else { 0 }))
    }

    /// Applies `f` to the word until a compare-and-swap takes, or `f` refuses with
    /// `Err`.
    fn update<E>(&self, mut f: impl FnMut(u64) -> Result<u64, E>) -> Result<(), E> {
        let mut w = self.0.load(Ordering::Acquire);
        loop {
            let n = f(w)?;
            match self
                .0
                .compare_exchange_weak(w, n, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(()),
                Err(x) => w = x,
            }
        }
    }

    /// Takes one read claim, ended by [`Word::release_read`] (or by the drop of the
    /// [`ReadClaims`] that took it); `false` if the memory is held exclusive (or the
    /// count is full).
    #[inline]
    pub(crate) fn claim_read(&self) -> bool {
        self.update(|w| {
            if w & EXCL != 0 || w & COUNT == COUNT {
                Err(())
            } else {
                Ok(w + 1)
            }
        })
        .is_ok()
    }

    /// Ends one read claim (an exclusive one too, clearing the flag).
    #[inline]
    pub(crate) fn release_read(&self) {
        let _ = self.update(|w| {
            debug_assert!(w & COUNT > 0, "nxrig bug: releasing an unclaimed memory");
            Ok::<u64, ()>((w - 1) & !EXCL)
        });
    }

    /// Takes one hold (a read claim counted as a hold).
    pub(crate) fn take_hold(&self) -> Result<(), HoldRefused> {
        self.update(|w| {
            if w & EXCL != 0 {
                Err(HoldRefused::Exclusive)
            } else if w & CONSUMING != 0 {
                Err(HoldRefused::Consuming)
            } else if w & COUNT == COUNT || w & HOLDS == HOLDS {
                Err(HoldRefused::TooMany)
            } else {
                Ok(w + 1 + HOLD)
            }
        })
    }

    /// Ends one hold.
    pub(crate) fn release_hold(&self) {
        self.0.fetch_sub(1 + HOLD, Ordering::AcqRel);
    }

    /// Puts the memory outside the claims for good; `false` (changing nothing) while a
    /// `Claim::with` holds it exclusive.
    pub(crate) fn share(&self) -> bool {
        self.update(|w| {
            if w & EXCL != 0 {
                Err(())
            } else {
                Ok(w | OUTSIDE)
            }
        })
        .is_ok()
    }

    /// Makes the caller's one read claim exclusive, where it is the only claim and the
    /// memory is inside the claims.
    pub(crate) fn try_exclusive(&self) -> bool {
        self.0
            .compare_exchange(1, EXCL | 1, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Ends the exclusive flag (the read claim stays).
    pub(crate) fn end_exclusive(&self) {
        self.0.fetch_and(!EXCL, Ordering::AcqRel);
    }

    /// True while a `Claim::with` holds the memory exclusive.
    pub(crate) fn is_exclusive(&self) -> bool {
        self.0.load(Ordering::Acquire) & EXCL != 0
    }

    /// True while a hold holds the memory.
    pub(crate) fn is_held(&self) -> bool {
        self.0.load(Ordering::Acquire) & HOLDS != 0
    }

    /// Marks a consume under way, so that no hold starts until [`Word::end_consume`];
    /// waits while another consume is under way. `false` (marking nothing) if a hold
    /// holds the memory.
    pub(crate) fn begin_consume(&self) -> bool {
        let mut w = self.0.load(Ordering::Acquire);
        loop {
            if w & HOLDS != 0 {
                return false;
            }
            if w & CONSUMING != 0 {
                spin();
                w = self.0.load(Ordering::Acquire);
                continue;
            }
            match self.0.compare_exchange_weak(
                w,
                w | CONSUMING,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(x) => w = x,
            }
        }
    }

    /// Ends the mark of [`Word::begin_consume`].
    pub(crate) fn end_consume(&self) {
        self.0.fetch_and(!CONSUMING, Ordering::AcqRel);
    }
}

/// Read claims on the words of a list (the `k`th word is `nth(k)`), taken in order,
/// each released when the guard drops: the one read guard of `Buffer::claim` (a list
/// of one), `Rig::submit` and the door. Allocates nothing.
#[must_use = "the claims end when the guard drops"]
pub(crate) struct ReadClaims<'a, F: Fn(usize) -> &'a Word> {
    nth: F,
    taken: usize,
}

impl<'a, F: Fn(usize) -> &'a Word> ReadClaims<'a, F> {
    /// No claim yet, over the words `nth` gives.
    pub(crate) fn new(nth: F) -> Self {
        ReadClaims { nth, taken: 0 }
    }

    /// Claims the next word of the list; `false` (taking nothing) if its memory is
    /// held exclusive.
    pub(crate) fn claim_next(&mut self) -> bool {
        let ok = (self.nth)(self.taken).claim_read();
        self.taken += ok as usize;
        ok
    }
}

impl<'a, F: Fn(usize) -> &'a Word> Drop for ReadClaims<'a, F> {
    fn drop(&mut self) {
        for k in 0..self.taken {
            (self.nth)(k).release_read();
        }
    }
}
