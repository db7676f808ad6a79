//! Host memory: one allocation in the host's address space (wasm linear memory under
//! wasm32), made by nxrig or outside it (a `Vec`, a static slice, a memory-mapped file).
//!
//! Seed: `Rig.Buffer` (memory kinds, `of_bigarray`, `of_io`). Bytes are reached only
//! through [`Memory::read`] and [`Memory::write`], which order host accesses; the
//! claims of the full runtime build on this.

use std::any::Any;
use std::sync::RwLock;

use crate::error::Error;

/// What a memory admits. Seed: `Rig.Buffer.access`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Only reads: a read-only map, a static slice.
    Read,
    /// Reads and writes.
    ReadWrite,
}

/// Alignment of memory nxrig allocates, in bytes: enough for every dtype.
pub const ALIGN: usize = 16;

/// Allocations from this many bytes up are anonymous maps with huge pages (Linux).
#[cfg(target_os = "linux")]
const HUGE_MIN: usize = 4 << 20;

/// One host allocation.
pub struct Memory {
    ptr: *mut u8,
    len: usize,
    access: Access,
    /// Orders host reads against host writes until the claims of the runtime do.
    order: RwLock<()>,
    /// Keeps the bytes alive: the allocation, `Vec`, or map they belong to.
    _owner: Box<dyn Any + Send + Sync>,
}

// SAFETY: the bytes are reached only through `read` and `write`, which hold `order`
// shared or exclusive, so no write races another access; the owner is Send + Sync.
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

impl Memory {
    /// `len` zeroed bytes, aligned to [`ALIGN`].
    ///
    /// # Errors
    /// [`Error::Invalid`] if the allocation fails.
    pub fn zeroed(len: usize) -> Result<Memory, Error> {
        #[cfg(target_os = "linux")]
        if len >= HUGE_MIN {
            // Fresh pages from the kernel, asked for as huge pages where it has them (as
            // NumPy does): first writes then fault once per 2 MiB, not per 4 KiB.
            if let Ok(mut map) = memmap2::MmapMut::map_anon(len) {
                let _ = map.advise(memmap2::Advice::HugePage);
                let ptr = map.as_mut_ptr();
                return Ok(Memory {
                    ptr,
                    len,
                    access: Access::ReadWrite,
                    order: RwLock::new(()),
                    _owner: Box::new(map),
                });
            }
        }
        let words = len.div_ceil(ALIGN);
        let mut v: Vec<u128> = Vec::new();
        v.try_reserve_exact(words).map_err(|_| Error::Invalid {
            op: "Rig.Buffer.create",
            reason: format!("cannot allocate {len} bytes of host memory"),
            operands: String::new(),
        })?;
        v.resize(words, 0);
        let mut b = v.into_boxed_slice();
        let ptr = b.as_mut_ptr().cast::<u8>();
        Ok(Memory {
            ptr,
            len,
            access: Access::ReadWrite,
            order: RwLock::new(()),
            _owner: Box::new(b),
        })
    }

    /// The bytes of `v`, without a copy, admitting reads and writes.
    pub fn of_vec<T: bytemuck::Pod + Send + Sync>(mut v: Vec<T>) -> Memory {
        let len = std::mem::size_of_val(v.as_slice());
        let ptr = v.as_mut_ptr().cast::<u8>();
        Memory {
            ptr,
            len,
            access: Access::ReadWrite,
            order: RwLock::new(()),
            _owner: Box::new(v),
        }
    }

    /// The bytes of `s`, without a copy, admitting only reads.
    pub fn of_static(s: &'static [u8]) -> Memory {
        Memory {
            ptr: s.as_ptr().cast_mut(),
            len: s.len(),
            access: Access::Read,
            order: RwLock::new(()),
            _owner: Box::new(()),
        }
    }

    /// The bytes `owner` dereferences to (a memory map, say), without a copy, admitting
    /// only reads.
    pub fn of_owner<O: AsRef<[u8]> + Send + Sync + 'static>(owner: O) -> Memory {
        let s = owner.as_ref();
        let (ptr, len) = (s.as_ptr().cast_mut(), s.len());
        Memory {
            ptr,
            len,
            access: Access::Read,
            order: RwLock::new(()),
            _owner: Box::new(owner),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a memory of no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// What the memory admits.
    pub fn access(&self) -> Access {
        self.access
    }

    /// The address of the first byte (for alignment checks).
    pub fn addr(&self) -> usize {
        self.ptr as usize
    }

    /// `f` of the bytes, while no host write runs.
    pub fn read<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        let _g = self.order.read().unwrap_or_else(|e| e.into_inner());
        // SAFETY: ptr..ptr+len is owned by `_owner` for self's life; `order` excludes writes.
        f(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// `f` of the bytes, alone.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the memory admits only reads.
    pub fn write<R>(&self, op: &'static str, f: impl FnOnce(&mut [u8]) -> R) -> Result<R, Error> {
        if self.access == Access::Read {
            return Err(Error::Invalid {
                op,
                reason: "the memory admits only reads".into(),
                operands: String::new(),
            });
        }
        let _g = self.order.write().unwrap_or_else(|e| e.into_inner());
        // SAFETY: as in `read`, and `order` is held exclusive; the owner admits writes.
        Ok(f(unsafe {
            std::slice::from_raw_parts_mut(self.ptr, self.len)
        }))
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("len", &self.len)
            .field("access", &self.access)
            .finish()
    }
}
