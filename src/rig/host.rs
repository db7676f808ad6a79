//! Host memory that nxrig allocates: aligned to [`ALIGN`], from the global allocator
//! (whose `alloc_zeroed` clears only what is not fresh from the system), or natively
//! on Linux from 4 MiB up as anonymous maps asking for huge pages (as NumPy does:
//! first writes fault once per 2 MiB, not per 4 KiB). Freed allocations from 1 MiB up
//! are kept for reuse, up to [`KEEP`] bytes in all, as the GPU pool does for GPU
//! memory: an output that a kernel writes whole takes one as it is (its bytes are
//! some earlier array's, never uninitialized), which saves the clearing and the page
//! faults of fresh memory.

use std::sync::Mutex;

use super::kind::RigKind;
use super::seam::{DeviceBackend, Store};
use super::timeline::{Stamp, Timeline};
use crate::error::Error;

/// Alignment of memory nxrig allocates, in bytes: enough for every dtype, and a cache
/// line (what libraries that take memory through DLPack without a copy ask, XLA's 64).
pub const ALIGN: usize = 64;

/// The most bytes one host allocation may have: `isize::MAX` less the alignment's
/// rounding (2 GiB less 65 bytes on wasm32).
pub(crate) const MAX_ALLOCATION: usize = isize::MAX as usize - ALIGN;

/// The most bytes of freed allocations kept for reuse.
pub(crate) const KEEP: usize = 256 << 20;

/// Allocations below this many bytes are not kept (the allocator is fast for them).
const KEEP_MIN: usize = 1 << 20;

/// Allocations from this many bytes up are anonymous maps with huge pages (Linux).
#[cfg(all(target_os = "linux", not(miri), not(loom)))]
const HUGE_MIN: usize = 4 << 20;

/// What holds an allocation's bytes.
enum Owner {
    /// The global allocator's, of `size` bytes at [`ALIGN`].
    Heap,
    /// An anonymous map.
    #[cfg(all(target_os = "linux", not(miri), not(loom)))]
    Map(#[allow(dead_code)] memmap2::MmapMut),
}

/// One allocation: its first byte, its size (a multiple of [`ALIGN`]) and its owner.
struct Block {
    ptr: std::ptr::NonNull<u8>,
    size: usize,
    owner: Owner,
}

// SAFETY: the allocation is plain bytes, owned by this value alone.
unsafe impl Send for Block {}
unsafe impl Sync for Block {}

impl Drop for Block {
    fn drop(&mut self) {
        if matches!(self.owner, Owner::Heap) && self.size > 0 {
            let layout = std::alloc::Layout::from_size_align(self.size, ALIGN)
                .expect("the layout it was made with");
            // SAFETY: allocated by `fresh` with this layout, and freed once.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

/// Freed allocations kept for reuse, and their bytes in all.
static KEPT: Mutex<(Vec<Block>, usize)> = Mutex::new((Vec::new(), 0));

fn kept() -> std::sync::MutexGuard<'static, (Vec<Block>, usize)> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Host bytes nxrig allocated; given back for reuse when dropped.
pub(crate) struct HostBytes(Option<Block>);

impl HostBytes {
    /// At least `len` bytes (a multiple of [`ALIGN`]): zeroed where `clear` says so,
    /// else with unspecified (initialized) bytes, for a caller that writes them all
    /// before any is read. `None` if the allocation fails.
    pub(crate) fn new(len: usize, clear: bool) -> Option<HostBytes> {
        // Checked: on wasm32 a length near 4 GiB would round up past usize and wrap.
        let size = len.div_ceil(ALIGN).checked_mul(ALIGN)?;
        let reused = (size >= KEEP_MIN && cfg!(not(any(miri, loom)))).then(|| {
            let mut k = kept();
            let i = k.0.iter().position(|b| b.size == size)?;
            k.1 -= size;
            Some(k.0.swap_remove(i))
        });
        let block = match reused.flatten() {
            Some(b) => {
                if clear {
                    // SAFETY: the block's `size` bytes are its own.
                    unsafe { std::ptr::write_bytes(b.ptr.as_ptr(), 0, b.size) };
                }
                b
            }
            None => fresh(size)?,
        };
        Some(HostBytes(Some(block)))
    }

    /// The first byte.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.0.as_ref().expect("held until dropped").ptr.as_ptr()
    }
}

impl Drop for HostBytes {
    fn drop(&mut self) {
        let Some(b) = self.0.take() else { return };
        if b.size < KEEP_MIN || b.size > KEEP || cfg!(any(miri, loom)) {
            return;
        }
        let mut k = kept();
        // Room for it: the oldest kept go first.
        while k.1 + b.size > KEEP {
            let old = k.0.remove(0);
            k.1 -= old.size;
            drop(old);
        }
        k.1 += b.size;
        k.0.push(b);
    }
}

/// Zeroed bytes fresh from the system.
fn fresh(size: usize) -> Option<Block> {
    #[cfg(all(target_os = "linux", not(miri), not(loom)))]
    if size >= HUGE_MIN {
        if let Ok(mut map) = memmap2::MmapMut::map_anon(size) {
            let _ = map.advise(memmap2::Advice::HugePage);
            let ptr = std::ptr::NonNull::new(map.as_mut_ptr())?;
            return Some(Block {
                ptr,
                size,
                owner: Owner::Map(map),
            });
        }
    }
    if size == 0 {
        let ptr = std::ptr::NonNull::<u128>::dangling().cast();
        return Some(Block {
            ptr,
            size,
            owner: Owner::Heap,
        });
    }
    let layout = std::alloc::Layout::from_size_align(size, ALIGN).ok()?;
    // SAFETY: the layout's size is not zero.
    let ptr = std::ptr::NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
    Some(Block {
        ptr,
        size,
        owner: Owner::Heap,
    })
}

/// Drops the freed host allocations kept for reuse.
pub(crate) fn empty_cache() {
    let mut k = kept();
    k.0.clear();
    k.1 = 0;
}

/// Bytes of freed host allocations kept for reuse now.
pub(crate) fn cached_bytes() -> usize {
    kept().1
}

/// The host as a device backend: memory from [`HostBytes`], work run at once in the
/// submission.
pub(crate) struct Host;

impl DeviceBackend for Host {
    fn kind(&self) -> RigKind {
        RigKind::Host
    }

    fn host_addressable(&self) -> bool {
        true
    }

    fn allocate(
        &self,
        device: &str,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<Store, Error> {
        // One allocation stops below isize::MAX bytes (2 GiB on wasm32): said so, not
        // taken for the allocator's failure.
        if len > MAX_ALLOCATION {
            return Err(Error::Unsupported {
                op,
                device: device.to_owned(),
                what: format!(
                    "hold {len} bytes in one array: one allocation holds at most {MAX_ALLOCATION} bytes on this platform; read such a tensor a piece at a time, or place it on a GPU"
                ),
            });
        }
        let bytes = HostBytes::new(len, clear).ok_or_else(|| Error::OutOfMemory {
            op,
            device: device.to_owned(),
            bytes: len,
        })?;
        let ptr = bytes.ptr();
        Ok(Store::Host {
            ptr,
            _owner: Box::new(bytes),
        })
    }

    fn queues_work(&self) -> bool {
        false
    }

    fn turn(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        None
    }

    fn finish(&self, timeline: &Timeline, stamp: Stamp) {
        timeline.complete(stamp);
    }

    fn block(&self) -> bool {
        false
    }

    fn destroy(&self) {}

    fn empty_cache(&self) {
        empty_cache()
    }

    fn cached_bytes(&self) -> u64 {
        cached_bytes() as u64
    }

    fn describe(&self) -> Option<String> {
        None
    }
}
