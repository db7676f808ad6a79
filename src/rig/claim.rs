//! Claims on memory: read claims, exclusive claims, donation, holds.
//!
//! Per allocation one atomic word (`word.rs`, where every compare-and-swap on it
//! lives) counts read claims (holds included) and holds, and carries three flags:
//! exclusive, outside the claims, and "a consume is checking the holds". Taking a
//! claim never waits.
//!
//! A donor takes its inputs with [`Claim::with`] and consumes an input it holds
//! exclusive before it writes it:
//!
//! ```
//! use nxrig::rig::{Buffer, Claim, Kind, Rig};
//! let x = Buffer::create(&Rig::host(), 16, Kind::Device)?;
//! let out = Claim::with(&[], &[&x], |c| {
//!     if c.exclusive(&x) { Some(c.consume("donated to add", &x)) } else { None }
//! })?;
//! let y = out.unwrap()?;               // x's memory, now y's, admitting writes
//! assert!(y.write(|b| b.fill(1)).is_ok());
//! assert_eq!(x.dead().as_deref(), Some("donated to add"));
//! # Ok::<(), nxrig::Error>(())
//! ```

use super::buffer::Buffer;
use super::memory::{Access, Memory};
use super::word::{HoldRefused, ReadClaims, Word};
use crate::error::Error;
use crate::sync::{spin, Arc, AtomicBool, AtomicU64, Ordering};

/// The namespace of the claims functions.
///
/// ```
/// use nxrig::rig::{Buffer, Claim};
///
/// let x = Buffer::of_vec(vec![1u8, 2, 3]);
/// // Donated: nothing else reads x, so the call may write over it.
/// let out = Claim::with(&[], &[&x], |c| {
///     assert!(c.exclusive(&x));
///     c.consume("donated to my_op", &x)
/// })??;
/// out.write(|b| b[0] = 9)?;
/// assert!(x.read(|_| ()).unwrap_err().to_string().contains("donated to my_op"));
/// # Ok::<(), nxrig::Error>(())
/// ```
pub struct Claim;

/// The claims one [`Claim::with`] took, handed to its function. `Sync`: a scoped
/// thread the function starts may consume.
///
/// The protocol lets a consume on another domain overlap the return of `with_` (it then
/// completes before the release or fails). In Rust the claims borrow the call, so
/// they cannot outlive it and no such overlap can be written; the runtime still
/// refuses a consume once the function has returned.
///
/// ```compile_fail
/// use nxrig::rig::{Buffer, Claim, Kind, Rig};
/// let x = Buffer::create(&Rig::host(), 8, Kind::Device).unwrap();
/// let escaped = Claim::with(&[], &[&x], |c| c).unwrap(); // error: `c` escapes `f`
/// ```
pub struct Claims<'b> {
    entries: Vec<Held<'b>>,
    /// `RETURNED` once `with`'s function returned; below it, consumes under way.
    state: AtomicU64,
}

/// One buffer a claim holds, shared or exclusive.
struct Held<'b> {
    buffer: &'b Buffer,
    exclusive: AtomicBool,
}

const RETURNED: u64 = 1 << 63;

impl Drop for Claims<'_> {
    fn drop(&mut self) {
        self.end();
    }
}

fn overlap_error(op: &'static str) -> Error {
    Error::Claim {
        op,
        reason: "a donated buffer overlaps another buffer of the call".into(),
    }
}

impl Claim {
    /// Takes a read claim on the memory of every buffer of `read` and `donate`, makes
    /// a donated buffer's claim exclusive where the buffer spans its memory, the memory
    /// admits writes and is inside the claims, and no other claim holds it; then runs
    /// `f`, and releases every claim when `f` returns or panics.
    ///
    /// # Errors
    /// Before calling `f`, holding nothing: [`Error::Dead`] for a dead buffer,
    /// [`Error::Lost`] for a lost device, [`Error::HeldExclusive`] for memory another
    /// `with` holds exclusive, [`Error::Claim`] if a buffer of `donate` overlaps another
    /// of `read` or `donate`.
    pub fn with<'b, R>(
        read: &[&'b Buffer],
        donate: &[&'b Buffer],
        f: impl FnOnce(&Claims<'b>) -> R,
    ) -> Result<R, Error> {
        let claims = Claims::begin(read, donate)?;
        Ok(f(&claims))
    }

    /// Takes a read claim on the memory of each of `bs` that no donation writes and no
    /// consume ends, until [`Hold::release`] or the hold's drop.
    ///
    /// # Errors
    /// Holding none of `bs`: [`Error::Dead`] for a dead buffer (or one being consumed),
    /// [`Error::Lost`] for a lost device, [`Error::HeldExclusive`] for memory held
    /// exclusive.
    pub fn hold(bs: &[&Buffer]) -> Result<Hold, Error> {
        const OP: &str = "Claim::hold";
        let mut h = Hold {
            memories: Vec::with_capacity(bs.len()),
            released: AtomicBool::new(false),
        };
        for b in bs {
            match take_hold(b, OP) {
                Ok(()) => h.memories.push(b.memory.clone()),
                Err(e) => return Err(e), // `h`'s drop releases what it took
            }
        }
        Ok(h)
    }

    /// Puts `b`'s memory outside the claims for good, through every view and borrow, so
    /// that no donation writes what a value handed out over it reads.
    ///
    /// # Errors
    /// [`Error::Dead`] if `b` is dead; [`Error::HeldExclusive`] if a `with` holds its
    /// memory exclusive.
    pub fn share(b: &Buffer) -> Result<(), Error> {
        share_memory(b, "Claim::share")
    }
}

fn share_memory(b: &Buffer, op: &'static str) -> Result<(), Error> {
    b.check(op)?;
    if b.memory.word.share() {
        Ok(())
    } else {
        Err(Error::HeldExclusive { op })
    }
}

impl Buffer {
    /// Takes a read claim on the memory for the life of the returned guard, for a live
    /// buffer.
    ///
    /// # Errors
    /// [`Error::Dead`] (also when a consume kills the buffer meanwhile),
    /// [`Error::Lost`], [`Error::HeldExclusive`], naming `op`.
    pub(crate) fn claim<'a>(
        &'a self,
        op: &'static str,
    ) -> Result<ReadClaims<'a, impl Fn(usize) -> &'a Word + 'a>, Error> {
        self.check(op)?;
        let mut c = ReadClaims::new(move |_| &self.memory.word);
        if !c.claim_next() {
            return Err(Error::HeldExclusive { op });
        }
        // A consume may have killed the buffer between the check and the claim.
        self.check(op)?;
        Ok(c)
    }

    /// Kills every buffer of the memory with the reason "freed"; the bytes go back when
    /// the last handle goes.
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer; [`Error::HeldExclusive`] while a donation holds
    /// the memory exclusive; [`Error::Claim`] while a hold holds it.
    pub fn free(&self) -> Result<(), Error> {
        const OP: &str = "Buffer::free";
        self.check(OP)?;
        self.may_free(OP)?;
        self.memory.kill("freed (Buffer::free)");
        Ok(())
    }

    /// Puts the memory outside the claims for good, through every view and borrow:
    /// no donation will write it, and a GPU's buffers never go back to its pool for
    /// reuse (another library may hold them).
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer; [`Error::HeldExclusive`] while a donation holds
    /// the memory exclusive.
    pub fn export(&self) -> Result<(), Error> {
        share_memory(self, "Buffer::export")?;
        self.keep_out_of_pools();
        Ok(())
    }

    /// `Ok` where [`Buffer::free`] may kill the memory's buffers.
    ///
    /// # Errors
    /// [`Error::HeldExclusive`] while a donation holds the memory exclusive;
    /// [`Error::Claim`] while a hold holds it.
    fn may_free(&self, op: &'static str) -> Result<(), Error> {
        if self.memory.word.is_exclusive() {
            return Err(Error::HeldExclusive { op });
        }
        if self.memory.word.is_held() {
            return Err(Error::Claim {
                op,
                reason: "a hold holds the memory".into(),
            });
        }
        Ok(())
    }
}

/// One hold (a read claim counted as a hold) on `b`'s memory, for a live `b`.
fn take_hold(b: &Buffer, op: &'static str) -> Result<(), Error> {
    b.check(op)?;
    let m = &b.memory;
    m.word.take_hold().map_err(|r| match r {
        HoldRefused::Exclusive => Error::HeldExclusive { op },
        HoldRefused::Consuming => Error::Dead {
            op,
            why: "being consumed".into(),
        },
        HoldRefused::TooMany => Error::Claim {
            op,
            reason: "too many claims on one memory".into(),
        },
    })?;
    if let Err(e) = b.check(op) {
        release_hold(m);
        return Err(e);
    }
    Ok(())
}

fn release_hold(m: &Memory) {
    m.word.release_hold();
}

/// One read claim on `b`'s memory, for a live `b`, released by [`Word::release_read`]
/// (`Claims::end`).
fn take_read(b: &Buffer, op: &'static str) -> Result<(), Error> {
    b.check(op)?;
    if !b.memory.word.claim_read() {
        return Err(Error::HeldExclusive { op });
    }
    // A consume may have killed `b` between the check and the claim.
    if let Err(e) = b.check(op) {
        b.memory.word.release_read();
        return Err(e);
    }
    Ok(())
}

/// Leaves a consume's count of work under way on drop.
struct Leave<'a>(&'a AtomicU64);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl<'b> Claims<'b> {
    /// [`Claim::with`] without the function: the claims, released by [`Claims::end`]
    /// or the drop. For the loom models of a consume that overlaps the end; use
    /// [`Claim::with`].
    ///
    /// # Errors
    /// As [`Claim::with`].
    #[doc(hidden)]
    pub fn begin(read: &[&'b Buffer], donate: &[&'b Buffer]) -> Result<Claims<'b>, Error> {
        const OP: &str = "Claim::with";
        for (i, d) in donate.iter().enumerate() {
            let others = read.iter().chain(
                donate
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, b)| b),
            );
            for o in others {
                if d.overlaps(o) {
                    return Err(overlap_error(OP));
                }
            }
        }
        let mut claims = Claims {
            entries: Vec::with_capacity(read.len() + donate.len()),
            state: AtomicU64::new(0),
        };
        for b in read.iter().chain(donate) {
            if let Err(e) = take_read(b, OP) {
                // Release what was taken; the drop must release nothing more.
                claims.end();
                return Err(e);
            }
            claims.entries.push(Held {
                buffer: b,
                exclusive: AtomicBool::new(false),
            });
        }
        for e in &claims.entries[read.len()..] {
            let b = e.buffer;
            if b.spans() && b.access() == Access::ReadWrite {
                let won = b.memory.word.try_exclusive();
                e.exclusive.store(won, Ordering::Release);
            }
        }
        Ok(claims)
    }

    /// Refuses new consumes, lets those under way finish, then releases every claim;
    /// later calls (and the drop) release nothing. What [`Claim::with`] does when its
    /// function returns.
    #[doc(hidden)]
    pub fn end(&self) {
        let mut s = self.state.fetch_or(RETURNED, Ordering::AcqRel);
        if s & RETURNED != 0 {
            return;
        }
        while s & !RETURNED != 0 {
            spin();
            s = self.state.load(Ordering::Acquire);
        }
        for e in &self.entries {
            e.buffer.memory.word.release_read();
        }
    }

    fn entry(&self, b: &Buffer) -> Option<&Held<'_>> {
        self.entries.iter().find(|e| e.buffer.same_memory(b))
    }

    /// True iff these claims hold `b`'s memory exclusive.
    pub fn exclusive(&self, b: &Buffer) -> bool {
        self.entry(b)
            .is_some_and(|e| e.exclusive.load(Ordering::Acquire))
    }

    /// True iff `with`'s function is running, these claims claim `b`'s memory, `b` is
    /// live and spans it, and no hold holds it: [`Claims::consume`] then succeeds,
    /// unless another thread holds the memory meanwhile.
    pub fn consumable(&self, b: &Buffer) -> bool {
        self.state.load(Ordering::Acquire) & RETURNED == 0
            && self.entry(b).is_some()
            && b.is_live()
            && b.spans()
            && !b.memory.word.is_held()
    }

    /// Consumes `b`'s memory with the reason `why`: `b` and every buffer made over that
    /// memory until now are dead, and every use of them fails with `why`. Returns a
    /// live buffer over the same memory, the only one, which admits writes if these
    /// claims held the memory exclusive (and no longer do), and only reads otherwise.
    /// Consuming frees nothing.
    ///
    /// # Errors
    /// [`Error::Claim`] if `with`'s function has returned, these claims do not claim
    /// `b`'s memory, `b` does not span it, or a hold holds it; [`Error::Dead`] if `b`
    /// is dead.
    pub fn consume(&self, why: &str, b: &Buffer) -> Result<Buffer, Error> {
        const OP: &str = "Claims::consume";
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            if s & RETURNED != 0 {
                return Err(Error::Claim {
                    op: OP,
                    reason: "its Claim.with_ has returned".into(),
                });
            }
            match self
                .state
                .compare_exchange_weak(s, s + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(x) => s = x,
            }
        }
        let _leave = Leave(&self.state);
        let e = self.entry(b).ok_or_else(|| Error::Claim {
            op: OP,
            reason: "these claims do not claim the buffer's memory".into(),
        })?;
        b.check(OP)?;
        if !b.spans() {
            return Err(Error::Claim {
                op: OP,
                reason: "the buffer does not span its memory".into(),
            });
        }
        let m = &b.memory;
        if e.exclusive.load(Ordering::Acquire) {
            // Held exclusive: no hold and no other claim can reach the memory.
            let life = m.kill(why);
            e.exclusive.store(false, Ordering::Release);
            m.word.end_exclusive();
            return Ok(Buffer::with_life(m.clone(), life, m.access()));
        }
        // Shared with other claims: mark the consume so no hold starts meanwhile.
        if !m.word.begin_consume() {
            return Err(Error::Claim {
                op: OP,
                reason: "a hold holds the memory".into(),
            });
        }
        let r = b.check(OP).map(|()| m.kill(why));
        m.word.end_consume();
        Ok(Buffer::with_life(m.clone(), r?, Access::Read))
    }
}

/// Claims that keep buffers in use until released or dropped.
///
/// ```
/// use nxrig::rig::{Buffer, Claim};
///
/// let x = Buffer::of_vec(vec![1u8, 2, 3]);
/// let hold = Claim::hold(&[&x])?; // a reader: no donation may write x meanwhile
/// let exclusive = Claim::with(&[], &[&x], |c| c.exclusive(&x))?;
/// assert!(!exclusive);
/// hold.release();
/// assert!(Claim::with(&[], &[&x], |c| c.exclusive(&x))?);
/// # Ok::<(), nxrig::Error>(())
/// ```
pub struct Hold {
    memories: Vec<Arc<Memory>>,
    released: AtomicBool,
}

impl Hold {
    /// Ends the hold's claims now; a later release, and the drop, end nothing. Takes no
    /// lock.
    pub fn release(&self) {
        if !self.released.swap(true, Ordering::AcqRel) {
            for m in &self.memories {
                release_hold(m);
            }
        }
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.release();
    }
}

impl std::fmt::Debug for Hold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hold")
            .field("memories", &self.memories.len())
            .field("released", &self.released)
            .finish()
    }
}
