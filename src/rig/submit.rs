//! Submitting work to a device's timeline, and prepared submissions.
//!
//! `submit` holds a read claim on every allocation the work uses until it returns
//! (so no donation can consume it meanwhile), gives the work the device's next stamp,
//! and records that stamp on the memory it reads and writes, which is what later
//! accesses wait for. Host work runs at once on the calling thread.

use super::buffer::Buffer;
use super::claim::{Claim, Hold};
use super::device::Rig;
use super::timeline::Stamp;
use super::word::ReadClaims;
use crate::error::Error;
use crate::sync::lock;

impl Rig {
    /// Runs `work` on this device's timeline over `reads` and `writes` and returns its
    /// stamp. Holds a read claim on each buffer's memory until it returns; the host
    /// runs `work` at once, after the device work its accesses must follow. On a GPU
    /// `work` submits to the device's queue (through [`Rig::wgpu`]), which orders it
    /// after earlier work; the stamp completes when the queue has done it.
    ///
    /// `work` must touch the bytes of `reads` only to read them, and of no buffer not
    /// named.
    ///
    /// ```
    /// use nxrig::rig::{Buffer, Kind, Rig};
    /// let b = Buffer::create(&Rig::host(), 4, Kind::Device)?;
    /// let s1 = Rig::host().submit(&[], &[&b], || b.write(|d| d.fill(7)))?;
    /// let s2 = Rig::host().submit(&[&b], &[], || Ok(()))?;
    /// assert!(s2 > s1);
    /// assert_eq!(b.read(|d| d.to_vec())?, [7; 4]);
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Lost`] if this device or a buffer's is lost; [`Error::Dead`] and
    /// [`Error::HeldExclusive`] for a buffer, [`Error::ReadOnly`] for a written buffer
    /// that admits only reads; and `work`'s error, after its stamp is recorded: on a
    /// GPU through wgpu (natively) also what the device reported of the work
    /// ([`Error::Device`] naming `Rig::submit`), not left for a later call.
    pub fn submit(
        &self,
        reads: &[&Buffer],
        writes: &[&Buffer],
        work: impl FnOnce() -> Result<(), Error>,
    ) -> Result<Stamp, Error> {
        self.submit_as("Rig::submit", reads, writes, work)
    }

    /// [`Rig::submit`] for the function `op`, which its errors name.
    pub(crate) fn submit_as(
        &self,
        op: &'static str,
        reads: &[&Buffer],
        writes: &[&Buffer],
        work: impl FnOnce() -> Result<(), Error>,
    ) -> Result<Stamp, Error> {
        self.check(op)?;
        let nth = |k: usize| match reads.get(k) {
            Some(b) => b,
            None => writes[k - reads.len()],
        };
        let mut claims = ReadClaims::new(|k| &nth(k).memory.word);
        for b in reads.iter().chain(writes) {
            b.check(op)?;
            if !claims.claim_next() {
                return Err(Error::HeldExclusive { op });
            }
            // A consume may have killed `b` between the check and the claim.
            b.check(op)?;
        }
        for b in writes {
            if b.access() == super::Access::Read {
                return Err(Error::ReadOnly { op });
            }
        }
        // A GPU's queue orders its own work; everything else (host memory an upload
        // reads or a readback writes, or any buffer of host work) waits for the stamps
        // its access must follow.
        let backend = self.backend().device();
        let queued = |b: &&&Buffer| backend.queues_work() && b.rig() == self;
        for b in reads.iter().filter(|b| !queued(b)) {
            b.wait_for(op, false)?;
        }
        for b in writes.iter().filter(|b| !queued(b)) {
            b.wait_for(op, true)?;
        }
        // On a GPU, stamps reach the queue in their order, each with its completion
        // callback registered right after its work: callbacks then run in stamp order,
        // and a completed stamp means every earlier one's work is done too.
        let _turn = backend.turn();
        let stamp = self.timeline().next();
        // What the device reports of the work is the work's error, at this call.
        let mut work = Some(work);
        let r = backend.caught(op, &mut || work.take().map_or(Ok(()), |w| w()));
        for b in reads {
            lock(&b.memory.stamps).record(self, stamp, false);
        }
        for b in writes {
            lock(&b.memory.stamps).record(self, stamp, true);
        }
        // Done when the device has done the work submitted so far (host work ran at
        // once).
        backend.finish(self.timeline(), stamp);
        r.map(|()| stamp)
    }
}

/// Work prepared once and submitted many times: it holds its fixed buffers for its
/// life, and claims the buffers of a run only while that run's submit runs. A
/// donation between two submits can consume a run's buffer; the next submit with it
/// then fails with [`Error::Dead`].
///
/// ```
/// use nxrig::rig::{Buffer, Kind, Submission};
/// use nxrig::Rig;
///
/// let host = Rig::host();
/// let table = Buffer::create(&host, 4, Kind::Device)?; // read by every run
/// let out = Buffer::create(&host, 4, Kind::Device)?;
/// let mut s = Submission::make(&host, &[&table], &[], |_reads, writes| {
///     writes[0].write(|b| b.fill(7))?;
///     Ok(())
/// })?;
/// let first = s.submit(&[], &[&out])?;
/// let second = s.submit(&[], &[&out])?;
/// assert!(second > first);
/// assert_eq!(out.read(|b| b.to_vec())?, [7; 4]);
/// # Ok::<(), nxrig::Error>(())
/// ```
pub struct Submission<W> {
    rig: Rig,
    fixed_reads: Vec<Buffer>,
    fixed_writes: Vec<Buffer>,
    _hold: Hold,
    work: W,
}

impl<W: FnMut(&[&Buffer], &[&Buffer]) -> Result<(), Error>> Submission<W> {
    /// Prepares `work` on `rig` over the fixed buffers `reads` and `writes`, which it
    /// holds ([`Claim::hold`]) until dropped. Each submit calls `work` with the run's
    /// read and written buffers.
    ///
    /// # Errors
    /// What [`Claim::hold`] returns; [`Error::Lost`] for a lost device.
    pub fn make(
        rig: &Rig,
        reads: &[&Buffer],
        writes: &[&Buffer],
        work: W,
    ) -> Result<Submission<W>, Error> {
        rig.check("Submission::make")?;
        let all: Vec<&Buffer> = reads.iter().chain(writes).copied().collect();
        let hold = Claim::hold(&all)?;
        Ok(Submission {
            rig: rig.clone(),
            fixed_reads: reads.iter().map(|&b| b.clone()).collect(),
            fixed_writes: writes.iter().map(|&b| b.clone()).collect(),
            _hold: hold,
            work,
        })
    }

    /// Submits one run over `reads` and `writes` (and the fixed buffers).
    ///
    /// # Errors
    /// What [`Rig::submit`] returns.
    pub fn submit(&mut self, reads: &[&Buffer], writes: &[&Buffer]) -> Result<Stamp, Error> {
        let r: Vec<&Buffer> = self
            .fixed_reads
            .iter()
            .chain(reads.iter().copied())
            .collect();
        let w: Vec<&Buffer> = self
            .fixed_writes
            .iter()
            .chain(writes.iter().copied())
            .collect();
        let work = &mut self.work;
        self.rig.submit(&r, &w, || work(reads, writes))
    }
}
