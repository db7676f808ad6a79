//! Buffers: a byte range of one memory.
//!
//! A buffer is a handle: `Clone` never copies bytes. Every view and borrow of an
//! allocation shares its claims and its life: a consume kills them all at once.

use super::device::Rig;
use super::memory::{Access, Kind, Life, Memory};
use crate::error::Error;
use crate::sync::{lock, Arc};

/// A byte range of one memory on one device.
///
/// ```
/// use nxrig::rig::{Buffer, Kind};
/// use nxrig::Rig;
///
/// let b = Buffer::create(&Rig::host(), 8, Kind::Device)?; // zeroed
/// b.write_bytes(2, &[1, 2, 3])?;
/// let v = b.view(2, 3)?; // the same memory
/// assert_eq!(v.read(|x| x.to_vec())?, [1, 2, 3]);
/// assert!(v.same_memory(&b));
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone)]
pub struct Buffer {
    pub(crate) memory: Arc<Memory>,
    pub(crate) life: Arc<Life>,
    start: usize,
    len: usize,
    access: Access,
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("rig", &self.memory.rig)
            .field("start", &self.start)
            .field("len", &self.len)
            .field("access", &self.access)
            .field("dead", &self.life.dead())
            .finish()
    }
}

impl Buffer {
    /// A buffer spanning `memory`, of the memory's current life.
    pub(crate) fn spanning(memory: Memory) -> Buffer {
        let memory = Arc::new(memory);
        let (life, access) = (memory.current_life(), memory.access());
        Buffer::with_life(memory, life, access)
    }

    pub(crate) fn with_life(memory: Arc<Memory>, life: Arc<Life>, access: Access) -> Buffer {
        let len = memory.len();
        Buffer {
            memory,
            life,
            start: 0,
            len,
            access,
        }
    }

    /// A fresh buffer of `len` bytes of memory of `kind` on `rig`, zeroed.
    ///
    /// # Errors
    /// [`Error::Lost`] for a lost device; [`Error::Invalid`] if the memory cannot be
    /// allocated.
    pub fn create(rig: &Rig, len: usize, kind: Kind) -> Result<Buffer, Error> {
        Buffer::create_cleared(rig, len, kind, true)
    }

    /// [`Buffer::create`] for a caller that writes every byte before any is read: GPU
    /// memory reused from the device's pool is not cleared first.
    ///
    /// # Errors
    /// As [`Buffer::create`].
    pub(crate) fn create_to_fill(rig: &Rig, len: usize, kind: Kind) -> Result<Buffer, Error> {
        Buffer::create_cleared(rig, len, kind, false)
    }

    /// [`Buffer::create`], reused GPU memory cleared where `clear` says so.
    fn create_cleared(rig: &Rig, len: usize, kind: Kind, clear: bool) -> Result<Buffer, Error> {
        const OP: &str = "Buffer::create";
        rig.check(OP)?;
        let store = rig
            .backend()
            .device()
            .allocate(rig.name(), OP, len, clear)?;
        let m = Memory::make(rig, store, len, kind, Access::ReadWrite, false);
        Ok(Buffer::spanning(m))
    }

    /// [`Buffer::create`], awaiting the device's word on the allocation: a GPU in the
    /// browser, which reports a failed allocation only later (and then loses the
    /// device), says so here, after trying smaller chunks of memory; it may make
    /// memory of chunks over the 256 MiB that [`Buffer::create`] keeps to there.
    ///
    /// # Errors
    /// As [`Buffer::create`]; [`Error::OutOfMemory`] where the device had no room.
    pub async fn create_async(rig: &Rig, len: usize, kind: Kind) -> Result<Buffer, Error> {
        const OP: &str = "Buffer::create";
        rig.check(OP)?;
        let store = rig
            .backend()
            .allocate_async(rig.name(), OP, len, true)
            .await?;
        let m = Memory::make(rig, store, len, kind, Access::ReadWrite, false);
        Ok(Buffer::spanning(m))
    }

    /// The bytes of `v` as a host buffer, without a copy, admitting reads and writes.
    /// nxrig owns the `Vec` from now on, so the memory stays inside the claims.
    pub fn of_vec<T: bytemuck::Pod + Send + Sync>(v: Vec<T>) -> Buffer {
        Buffer::adopting(&Rig::host(), v)
    }

    /// [`Buffer::of_vec`] on `rig`, a device whose memory the host addresses.
    pub(crate) fn adopting<T: bytemuck::Pod + Send + Sync>(rig: &Rig, v: Vec<T>) -> Buffer {
        Buffer::spanning(Memory::of_vec(rig, v))
    }

    /// The bytes `owner` dereferences to (a static slice, a memory map, shared bytes)
    /// as a host buffer, without a copy, admitting only reads, outside the claims.
    pub fn of_bytes<O: AsRef<[u8]> + Send + Sync + 'static>(owner: O) -> Buffer {
        Buffer::spanning(Memory::of_owner(&Rig::host(), owner))
    }

    /// The device the memory is on.
    pub fn rig(&self) -> &Rig {
        &self.memory.rig
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a buffer of no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Byte offset of the buffer's first byte in its memory.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Where on its device the memory lives.
    pub fn kind(&self) -> Kind {
        self.memory.kind()
    }

    /// What the buffer admits: `Read` where the memory does, or where a consume that
    /// did not hold the memory exclusive made it.
    pub fn access(&self) -> Access {
        self.access
    }

    /// Address of the buffer's first byte, on a device the host addresses; on a GPU,
    /// its byte offset in its memory.
    pub fn addr(&self) -> usize {
        self.memory.addr() + self.start
    }

    /// True when the buffer covers its whole memory.
    pub fn spans(&self) -> bool {
        self.start == 0 && self.len == self.memory.len()
    }

    /// True when the two buffers share a byte of one memory.
    pub fn overlaps(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.memory, &other.memory)
            && self.start < other.start + other.len
            && other.start < self.start + self.len
    }

    /// True when the two buffers are of one allocation.
    pub fn same_memory(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.memory, &other.memory)
    }

    /// The reason its consumer gave, if the buffer is dead.
    pub fn dead(&self) -> Option<std::sync::Arc<str>> {
        self.life.dead()
    }

    /// True while the buffer is live.
    pub fn is_live(&self) -> bool {
        self.life.dead().is_none()
    }

    /// `Err(Dead)` or `Err(Lost)` naming `op` unless the buffer is live on a live device.
    pub(crate) fn check(&self, op: &'static str) -> Result<(), Error> {
        if let Some(why) = self.life.dead() {
            return Err(Error::Dead {
                op,
                why: why.to_string(),
            });
        }
        self.memory.rig.check(op)
    }

    /// The buffer of bytes `start..start + len` of this one, sharing its memory's
    /// claims and life.
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer; [`Error::Invalid`] if the range is not inside it.
    pub fn view(&self, start: usize, len: usize) -> Result<Buffer, Error> {
        self.check("Buffer::view")?;
        match start.checked_add(len) {
            Some(end) if end <= self.len => Ok(Buffer {
                start: self.start + start,
                len,
                ..self.clone()
            }),
            _ => Err(Error::Invalid {
                op: "Buffer::view",
                reason: format!(
                    "bytes {start}..{start}+{len} are not inside a buffer of {} bytes",
                    self.len
                ),
                operands: String::new(),
            }),
        }
    }

    /// `f` of the buffer's bytes on the host, under a read claim, after the device
    /// work that wrote them. GPU memory is copied back first, blocking (native only:
    /// in the browser use [`Buffer::read_async`]).
    ///
    /// # Errors
    /// [`Error::Dead`], [`Error::HeldExclusive`], [`Error::Lost`]; [`Error::Invalid`]
    /// for GPU memory in the browser.
    pub fn read<R>(&self, f: impl FnOnce(&[u8]) -> R) -> Result<R, Error> {
        self.read_as("Buffer::read", f)
    }

    /// [`Buffer::read`], its errors naming `op`.
    pub(crate) fn read_as<R>(
        &self,
        op: &'static str,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Error> {
        let _c = self.claim(op)?;
        self.read_claimed(op, f)
    }

    /// `f` of the buffer's bytes on the host, to write them, under a read claim (as
    /// the protocol has it: the claims order donations, not host writes), after the device
    /// work that reads or writes them. GPU memory is copied back, changed and written
    /// through the queue, blocking (native only: in the browser use
    /// [`Buffer::write_bytes`]).
    ///
    /// # Errors
    /// As [`Buffer::read`], and [`Error::ReadOnly`] if the buffer admits only reads.
    pub fn write<R>(&self, f: impl FnOnce(&mut [u8]) -> R) -> Result<R, Error> {
        self.write_as("Buffer::write", f)
    }

    /// [`Buffer::write`], its errors naming `op`.
    pub(crate) fn write_as<R>(
        &self,
        op: &'static str,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R, Error> {
        let _c = self.claim(op)?;
        if self.access == Access::Read {
            return Err(Error::ReadOnly { op });
        }
        self.write_claimed(op, f)
    }

    /// `f` of `src`'s bytes and `dst`'s, under read claims on both, after the work the
    /// read and the write must follow; two memories are locked in address order, so
    /// two calls in opposite directions never deadlock. The buffers must be of two
    /// memories.
    pub(crate) fn read_write<R>(
        src: &Buffer,
        dst: &Buffer,
        op: &'static str,
        f: impl FnOnce(&[u8], &mut [u8]) -> R,
    ) -> Result<R, Error> {
        debug_assert!(!src.same_memory(dst));
        let _cs = src.claim(op)?;
        let _cd = dst.claim(op)?;
        src.host_check(op)?;
        dst.write_check(op)?;
        src.wait_for(op, false)?;
        dst.wait_for(op, true)?;
        let (s0, d0) = (src.start, dst.start);
        Ok(Memory::bytes_pair(&src.memory, &dst.memory, |s, d| {
            let s = s.expect("two memories");
            f(&s[s0..s0 + src.len], &mut d[d0..d0 + dst.len])
        }))
    }

    /// `f` of host addresses of `written`'s first byte and of each of `read`'s, with
    /// `written`'s memory locked for writing and the others for reading (in address
    /// order, one lock a memory), after the work they must follow. For C kernels, which
    /// reach bytes through pointers; the caller holds the door's claims.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the host does not address a memory; [`Error::ReadOnly`],
    /// [`Error::Lost`].
    pub fn with_host_pointers<R>(
        written: &Buffer,
        read: &[&Buffer],
        op: &'static str,
        f: impl FnOnce(*mut u8, &[*const u8]) -> R,
    ) -> Result<R, Error> {
        written.write_check(op)?;
        written.wait_for(op, true)?;
        for b in read {
            b.host_check(op)?;
            b.wait_for(op, false)?;
        }
        let mut mems: Vec<&Memory> = std::iter::once(&*written.memory)
            .chain(read.iter().map(|b| &*b.memory))
            .collect();
        mems.sort_by_key(|m| *m as *const Memory as usize);
        mems.dedup_by_key(|m| *m as *const Memory as usize);
        let w: &Memory = &written.memory;
        Ok(Memory::locked(&mems, w, || {
            let ptrs: Vec<*const u8> = read
                .iter()
                .map(|b| (b.memory.addr() + b.start) as *const u8)
                .collect();
            f((w.addr() + written.start) as *mut u8, &ptrs)
        }))
    }

    pub(crate) fn host_check(&self, op: &'static str) -> Result<(), Error> {
        if self.memory.rig.host_addressable() {
            Ok(())
        } else {
            Err(Error::Invalid {
                op,
                reason: "the host does not address the memory".into(),
                operands: String::new(),
            })
        }
    }

    pub(crate) fn write_check(&self, op: &'static str) -> Result<(), Error> {
        self.host_check(op)?;
        if self.access == Access::Read {
            return Err(Error::ReadOnly { op });
        }
        Ok(())
    }

    /// Waits for the device work that a read (`write` false) or a write of the buffer
    /// must follow. Blocking: native only; use [`Buffer::wait_async`] everywhere.
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer; [`Error::Lost`] if a device whose work it
    /// must follow is lost before that work is done.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait(&self, write: bool) -> Result<(), Error> {
        self.check("Buffer::wait")?;
        self.wait_for("Buffer::wait", write)
    }

    pub(crate) fn wait_for(&self, op: &'static str, write: bool) -> Result<(), Error> {
        let need = lock(&self.memory.stamps).must_follow(write);
        for (rig, s) in need {
            wait_stamp(&rig, s, op)?;
        }
        Ok(())
    }

    /// Resolves once the device work a read (`write` false) or a write of the buffer
    /// must follow is done. Never blocks in the browser (natively, waiting for a GPU
    /// blocks the polling thread).
    ///
    /// # Errors
    /// As `Buffer::wait` (native only).
    pub async fn wait_async(&self, write: bool) -> Result<(), Error> {
        const OP: &str = "Buffer::wait_async";
        self.check(OP)?;
        let need = lock(&self.memory.stamps).must_follow(write);
        for (rig, s) in need {
            // Natively a GPU's callbacks run only when someone polls it: wait by
            // polling, as the blocking form does.
            #[cfg(not(target_arch = "wasm32"))]
            if rig.backend().device().queues_work() {
                wait_stamp(&rig, s, OP)?;
                continue;
            }
            if !rig.timeline().reached(s).await {
                return Err(rig.lost(OP));
            }
        }
        Ok(())
    }

    /// A buffer of the same bytes for device `rig`, or `None` where `rig` cannot map the
    /// memory. It shares the memory's claims and life.
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer; [`Error::Lost`] if either device is lost.
    pub fn borrow(&self, rig: &Rig) -> Result<Option<Buffer>, Error> {
        const OP: &str = "Buffer::borrow";
        self.check(OP)?;
        rig.check(OP)?;
        // Host memory is addressed by every host device; a GPU maps none of another
        // device's memory (WebGPU maps only staging buffers).
        if *rig == self.memory.rig || (self.memory.rig.host_addressable() && rig.host_addressable())
        {
            Ok(Some(self.clone()))
        } else {
            Ok(None)
        }
    }
}

/// Waits until `s` is done on `rig`'s timeline. A GPU's stamp completes in a callback
/// that whichever thread polls the device runs: this one polls (natively) until the
/// stamp is done, however many other threads poll meanwhile, or the device is lost.
///
/// # Errors
/// [`Error::Lost`] naming `op` if the device is lost before `s` is done;
/// [`Error::Unsupported`] for unfinished GPU work in the browser, which cannot block.
fn wait_stamp(rig: &Rig, s: super::Stamp, op: &'static str) -> Result<(), Error> {
    loop {
        match rig.timeline().state(s) {
            Some(true) => return Ok(()),
            None => return Err(rig.lost(op)),
            Some(false) => {}
        }
        // Only devices with queues leave work unfinished. `block` returns once the
        // queue is idle; another thread may be running the stamp's callback then, or
        // the stamp's work may be on its way.
        if rig.backend().device().block() {
            if rig.timeline().state(s) == Some(false) {
                std::thread::yield_now();
            }
            continue;
        }
        return Err(Error::Unsupported {
            op,
            device: rig.name().to_owned(),
            what: format!(
                "be waited for here (its work {s:?} is unfinished): wait with the async forms"
            ),
        });
    }
}
