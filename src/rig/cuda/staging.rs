//! Pinned host memory for large transfers of a CUDA device: two buffers, used in
//! turn, each with the event of the last copy that used it, so that the host fills or
//! empties one while the device copies the other.

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

/// Bytes of one pinned staging buffer (there are two, used in turn).
pub(super) const STAGE: usize = 8 << 20;

/// Transfers from this many bytes up go through the pinned staging buffers.
pub(super) const STAGED_FROM: usize = 1 << 20;

/// Two pinned host buffers of [`STAGE`] bytes, each with the event of the last copy
/// that used it.
pub(crate) struct Staging {
    bufs: [(*mut u8, sys::CUevent); 2],
}

// SAFETY: pinned host memory and events of the driver, used under the device's lock.
unsafe impl Send for Staging {}

impl Staging {
    /// The two buffers (the device's context is current).
    pub(super) fn new() -> Result<Staging, DriverError> {
        let one = || -> Result<(*mut u8, sys::CUevent), DriverError> {
            let ev = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
            // SAFETY: a fresh allocation, freed in `drop`.
            match unsafe { result::malloc_host(STAGE, 0) } {
                Ok(p) => Ok((p.cast(), ev)),
                Err(e) => {
                    // SAFETY: created above, never recorded.
                    let _ = unsafe { result::event::destroy(ev) };
                    Err(e)
                }
            }
        };
        let a = one()?;
        match one() {
            Ok(b) => Ok(Staging { bufs: [a, b] }),
            Err(e) => {
                drop(Staging {
                    bufs: [a, (std::ptr::null_mut(), std::ptr::null_mut())],
                });
                Err(e)
            }
        }
    }

    /// Buffer `k`'s bytes, once the last copy that used it is done.
    ///
    /// # Safety
    /// The device's context is current; the caller holds the staging lock.
    pub(super) unsafe fn ready(&mut self, k: usize) -> Result<&mut [u8], DriverError> {
        let (p, ev) = self.bufs[k];
        result::event::synchronize(ev)?;
        Ok(std::slice::from_raw_parts_mut(p, STAGE))
    }
}

impl Staging {
    /// The event of buffer `k`'s last copy, to record after a new one.
    pub(super) fn event(&self, k: usize) -> sys::CUevent {
        self.bufs[k].1
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for (p, ev) in self.bufs {
            // SAFETY: made in `new`; copies that use them are waited for first.
            unsafe {
                if !ev.is_null() {
                    let _ = result::event::synchronize(ev);
                    let _ = result::event::destroy(ev);
                }
                if !p.is_null() {
                    let _ = result::free_host(p.cast());
                }
            }
        }
    }
}
