//! Freed wgpu buffers kept for reuse: a fresh buffer costs the driver new pages (on a
//! CPU adapter such as SwiftShader, 64 MiB of page faults cost as much as a kernel
//! over them), a kept one of the same size and usage costs nothing. Kept buffers are
//! only reused on the device's one queue, whose order puts every later use after the
//! work that used them before; nxrig clears one before it hands it out as zeroed
//! memory. The most recently kept buffer is reused first; the oldest are dropped once
//! the kept bytes pass the cap ([`crate::rig::wgpu::Options::cache_bytes`]).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The default cap on kept bytes.
pub(crate) const DEFAULT_CAP: u64 = 256 << 20;

/// Buffers given back, oldest first, and their bytes.
#[derive(Debug)]
pub(crate) struct Pool {
    kept: VecDeque<wgpu::Buffer>,
    bytes: u64,
    cap: u64,
    /// Set when the device is destroyed: nothing is kept after.
    closed: bool,
}

/// A device's pool, shared with the memory it hands out.
pub(crate) type Shared = Arc<Mutex<Pool>>;

impl Pool {
    /// An empty pool that keeps at most `cap` bytes.
    pub(crate) fn shared(cap: u64) -> Shared {
        Arc::new(Mutex::new(Pool {
            kept: VecDeque::new(),
            bytes: 0,
            cap,
            closed: false,
        }))
    }

    /// The most recently kept buffer of exactly `size` bytes and `usage`.
    pub(crate) fn take(&mut self, size: u64, usage: wgpu::BufferUsages) -> Option<wgpu::Buffer> {
        let i = self
            .kept
            .iter()
            .rposition(|b| b.size() == size && b.usage() == usage)?;
        let b = self.kept.remove(i)?;
        self.bytes -= size;
        Some(b)
    }

    /// Keeps `b` for reuse, dropping the oldest kept buffers past the cap (or `b`
    /// itself, if it alone passes it).
    pub(crate) fn keep(&mut self, b: wgpu::Buffer) {
        if self.closed || b.size() > self.cap {
            return;
        }
        while self.bytes + b.size() > self.cap {
            match self.kept.pop_front() {
                Some(old) => self.bytes -= old.size(),
                None => break,
            }
        }
        self.bytes += b.size();
        self.kept.push_back(b);
    }

    /// Drops every kept buffer.
    pub(crate) fn clear(&mut self) {
        self.kept.clear();
        self.bytes = 0;
    }

    /// Drops every kept buffer and keeps none from now on (the device is destroyed:
    /// memory freed later goes back to no one).
    pub(crate) fn close(&mut self) {
        self.clear();
        self.closed = true;
    }

    /// Bytes kept now.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// The pool, poisoned or not (it holds no invariant a panic could break).
pub(crate) fn lock(p: &Shared) -> std::sync::MutexGuard<'_, Pool> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}
