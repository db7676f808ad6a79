//! The synchronisation primitives the runtime uses: `std`'s, or `loom`'s when built
//! with `--cfg loom`, so that `tests/claims_loom.rs` explores every interleaving of the
//! claims code.

#[cfg(loom)]
pub(crate) use loom::sync::{
    atomic::{AtomicBool, AtomicU64, Ordering},
    Arc, Mutex, RwLock,
};
#[cfg(not(loom))]
pub(crate) use std::sync::{
    atomic::{AtomicBool, AtomicU64, Ordering},
    Arc, Mutex, RwLock,
};

/// Lets another thread run while this one waits a moment for it.
#[inline]
pub(crate) fn spin() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::hint::spin_loop();
}

/// A lock's guard, whether or not a panic poisoned it: the data the runtime keeps
/// under its locks stays consistent across a panic (each update is one assignment).
#[cfg(not(loom))]
pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// As above, for loom's locks.
#[cfg(loom)]
pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> loom::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
