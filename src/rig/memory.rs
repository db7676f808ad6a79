//! Memory: one allocation on one device, with its claims word (`word.rs`), its life and the
//! stamps of the work on it.
//!
//! Host memory
//! is made by nxrig (zeroed, aligned to [`ALIGN`]) or outside it: a `Vec` nxrig then
//! owns, a static slice, a memory-mapped file.

use std::any::Any;

use super::device::Rig;
use super::seam::Store;
use super::timeline::Stamp;
use super::word::Word;
use crate::sync::{lock, Arc, AtomicBool, Mutex, Ordering, RwLock};

/// What a memory or buffer admits.
///
/// ```
/// use nxrig::rig::{Access, Buffer};
///
/// let b = Buffer::of_bytes(&b"read only"[..]); // outside the claims: reads only
/// assert!(b.write(|x| x[0] = 0).is_err());
/// let _ = Access::Read;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Only reads.
    Read,
    /// Reads and writes.
    ReadWrite,
}

/// Where on its device a memory lives. On the host both
/// kinds are the same memory.
///
/// ```
/// use nxrig::rig::{Buffer, Kind};
/// use nxrig::Rig;
///
/// let staging = Buffer::create(&Rig::host(), 16, Kind::HostVisible)?;
/// assert_eq!(staging.len(), 16);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Kind {
    /// The device's own memory (a GPU's VRAM).
    #[default]
    Device,
    /// Device memory the host can map (for uploads and readbacks).
    HostVisible,
}

/// One generation of a memory's buffers: those made before a consume die together.
#[derive(Debug)]
pub(crate) struct Life {
    dead: AtomicBool,
    why: std::sync::Mutex<Option<std::sync::Arc<str>>>,
}

impl Life {
    pub(crate) fn new() -> Arc<Life> {
        Arc::new(Life {
            dead: AtomicBool::new(false),
            why: std::sync::Mutex::new(None),
        })
    }

    /// The reason its consumer gave, if this generation is dead.
    pub(crate) fn dead(&self) -> Option<std::sync::Arc<str>> {
        if self.dead.load(Ordering::Acquire) {
            Some(
                self.why
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone()
                    .unwrap_or_else(|| "dead".into()),
            )
        } else {
            None
        }
    }

    fn kill(&self, why: &str) {
        *self.why.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.into());
        self.dead.store(true, Ordering::Release);
    }
}

/// The stamps an access to a memory must follow, per device that worked on it.
#[derive(Debug, Default)]
pub(crate) struct Stamps {
    /// (device, last write, last read).
    per: Vec<(Rig, Stamp, Stamp)>,
}

impl Stamps {
    /// Records work at `s` on `rig` that reads (`write` false) or writes the memory.
    pub(crate) fn record(&mut self, rig: &Rig, s: Stamp, write: bool) {
        let e = match self.per.iter_mut().find(|e| e.0 == *rig) {
            Some(e) => e,
            None => {
                self.per.push((rig.clone(), Stamp(0), Stamp(0)));
                self.per.last_mut().expect("just pushed")
            }
        };
        if write {
            e.1 = e.1.max(s);
        } else {
            e.2 = e.2.max(s);
        }
    }

    /// What a read (or a write) must follow: the writes (and the reads too).
    pub(crate) fn must_follow(&self, write: bool) -> Vec<(Rig, Stamp)> {
        self.per
            .iter()
            .map(|(r, w, rd)| (r.clone(), if write { (*w).max(*rd) } else { *w }))
            .filter(|(_, s)| s.0 > 0)
            .collect()
    }
}

/// One allocation.
pub(crate) struct Memory {
    pub(crate) rig: Rig,
    len: usize,
    kind: Kind,
    access: Access,
    pub(crate) word: Word,
    pub(crate) life: Mutex<Arc<Life>>,
    pub(crate) stamps: Mutex<Stamps>,
    /// Orders host reads against host writes of the bytes (Rust's aliasing rules);
    /// the claims order donations, the stamps device work.
    order: RwLock<()>,
    /// The bytes, on the device's backend.
    store: Store,
}

// SAFETY: host bytes are reached only through `bytes`, `bytes_mut` and their kin,
// which hold `order` shared or exclusive, so no write races another access; the
// owner is Send + Sync.
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

impl Drop for Memory {
    /// The device's figure of memory in use goes down (the bytes themselves go with
    /// the owner: the allocation back to the pool, the `Vec`, the map).
    fn drop(&mut self) {
        self.rig.count_memory(self.len, false);
    }
}

impl Memory {
    /// Memory of `len` bytes held by `store` on `rig`.
    pub(crate) fn make(
        rig: &Rig,
        store: Store,
        len: usize,
        kind: Kind,
        access: Access,
        outside: bool,
    ) -> Memory {
        rig.count_memory(len, true);
        Memory {
            rig: rig.clone(),
            len,
            kind,
            access,
            word: Word::new(outside || access == Access::Read),
            life: Mutex::new(Life::new()),
            stamps: Mutex::new(Stamps::default()),
            order: RwLock::new(()),
            store,
        }
    }

    /// Host bytes `ptr..ptr + len` kept alive by `owner`.
    pub(crate) fn host_store(ptr: *mut u8, owner: Box<dyn Any + Send + Sync>) -> Store {
        Store::Host { ptr, _owner: owner }
    }

    /// The bytes, on the device's backend.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// The bytes of `v`, which nxrig now owns: nothing outside reaches them, so the
    /// memory is inside the claims (unlike an OCaml Bigarray's, whose
    /// value stays reachable) and may be donated.
    pub(crate) fn of_vec<T: bytemuck::Pod + Send + Sync>(rig: &Rig, mut v: Vec<T>) -> Memory {
        let len = std::mem::size_of_val(v.as_slice());
        let ptr = v.as_mut_ptr().cast::<u8>();
        let store = Memory::host_store(ptr, Box::new(v));
        Memory::make(rig, store, len, Kind::Device, Access::ReadWrite, false)
    }

    /// The bytes `owner` dereferences to (a static slice, a memory map), admitting only
    /// reads, outside the claims.
    pub(crate) fn of_owner<O: AsRef<[u8]> + Send + Sync + 'static>(rig: &Rig, owner: O) -> Memory {
        let s = owner.as_ref();
        let (ptr, len) = (s.as_ptr().cast_mut(), s.len());
        let store = Memory::host_store(ptr, Box::new(owner));
        Memory::make(rig, store, len, Kind::Device, Access::Read, true)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    pub(crate) fn access(&self) -> Access {
        self.access
    }

    /// The address of the first byte of host memory; 0 for memory the host does not
    /// address.
    pub(crate) fn addr(&self) -> usize {
        self.store.ptr() as usize
    }

    /// The current generation.
    pub(crate) fn current_life(&self) -> Arc<Life> {
        lock(&self.life).clone()
    }

    /// Ends the current generation with `why` and starts a new one, returned.
    pub(crate) fn kill(&self, why: &str) -> Arc<Life> {
        let mut l = lock(&self.life);
        l.kill(why);
        *l = Life::new();
        l.clone()
    }

    /// The exclusive turn of a host writer of GPU memory (its copy back, change and
    /// write), held until dropped.
    pub(crate) fn host_turn(&self) -> impl Drop + '_ {
        self.order.write().unwrap_or_else(|e| e.into_inner())
    }

    /// `f` of the bytes, while no host write runs. Host memory only.
    pub(crate) fn bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        let ptr = self.store.host_ptr();
        let _g = self.order.read().unwrap_or_else(|e| e.into_inner());
        // SAFETY: ptr..ptr+len is owned by the store's owner for self's life; `order`
        // excludes writes.
        f(unsafe { std::slice::from_raw_parts(ptr, self.len) })
    }

    /// `f` of the bytes, alone. The caller checked that the memory admits writes.
    pub(crate) fn bytes_mut<R>(&self, f: impl FnOnce(&mut [u8]) -> R) -> R {
        debug_assert_eq!(self.access, Access::ReadWrite);
        let ptr = self.store.host_ptr();
        let _g = self.order.write().unwrap_or_else(|e| e.into_inner());
        // SAFETY: as in `bytes`, `order` held exclusive, and the owner admits writes.
        f(unsafe { std::slice::from_raw_parts_mut(ptr, self.len) })
    }

    /// Runs `f` with every memory of `mems` (sorted by address, without repeats)
    /// locked: `written` for writing, the others for reading.
    pub(crate) fn locked<R>(mems: &[&Memory], written: &Memory, f: impl FnOnce() -> R) -> R {
        match mems.split_first() {
            None => f(),
            Some((m, rest)) => {
                if std::ptr::eq(*m, written) {
                    let _g = m.order.write().unwrap_or_else(|e| e.into_inner());
                    Memory::locked(rest, written, f)
                } else {
                    let _g = m.order.read().unwrap_or_else(|e| e.into_inner());
                    Memory::locked(rest, written, f)
                }
            }
        }
    }

    /// `f` of two memories' bytes, `src` read and `dst` written; the same memory twice
    /// gives `f` one slice for both (`None` for `src`). The two locks are taken in
    /// address order, so two copies in opposite directions never deadlock.
    pub(crate) fn bytes_pair<R>(
        src: &Memory,
        dst: &Memory,
        f: impl FnOnce(Option<&[u8]>, &mut [u8]) -> R,
    ) -> R {
        debug_assert_eq!(dst.access, Access::ReadWrite);
        let (sp, dp) = (src.store.host_ptr(), dst.store.host_ptr());
        if std::ptr::eq(src, dst) {
            return dst.bytes_mut(|d| f(None, d));
        }
        let (_r, _w);
        if (src as *const Memory) < (dst as *const Memory) {
            _r = src.order.read().unwrap_or_else(|e| e.into_inner());
            _w = dst.order.write().unwrap_or_else(|e| e.into_inner());
        } else {
            _w = dst.order.write().unwrap_or_else(|e| e.into_inner());
            _r = src.order.read().unwrap_or_else(|e| e.into_inner());
        }
        // SAFETY: both ranges are owned by their memories; `src` is locked shared and
        // `dst` exclusive, and they are different allocations.
        let (s, d) = unsafe {
            (
                std::slice::from_raw_parts(sp, src.len),
                std::slice::from_raw_parts_mut(dp, dst.len),
            )
        };
        f(Some(s), d)
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("rig", &self.rig)
            .field("len", &self.len)
            .field("access", &self.access)
            .finish()
    }
}
