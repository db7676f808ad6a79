//! One CUDA device: its primary context, its stream (all of nxrig's work on the device,
//! in submission order), the events that complete its stamps, and how a driver error
//! becomes nxrig's: a sticky one (the context fails every later call) loses the
//! device, failing every pending and later call with [`Error::Lost`].

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

use super::module::Program;
use super::said::said;
use super::staging::Staging;
use crate::error::Error;
use crate::rig::timeline::{Stamp, Timeline};

/// A CUDA device's state.
pub(crate) struct Cuda {
    /// `cuda0`, `cuda1`, ...
    pub(crate) name: String,
    /// The driver's ordinal of the device (CUDA's device index, DLPack's `device_id`).
    pub(crate) ordinal: usize,
    dev: sys::CUdevice,
    ctx: sys::CUcontext,
    /// The one stream of the device's work.
    pub(super) stream: sys::CUstream,
    /// The device's timeline: its stamps complete as their events do.
    pub(crate) timeline: Arc<Timeline>,
    /// Held from a stamp's taking to its event's recording (`DeviceBackend::turn`).
    turn: Mutex<()>,
    /// The events of stamps whose work may be unfinished, in stamp order.
    pending: Mutex<VecDeque<(Stamp, sys::CUevent)>>,
    /// Programs (nxrig's kernels, users'), by the caller's name, each compiled on
    /// first use (or why it could not be).
    pub(super) programs: Mutex<HashMap<String, Result<Arc<Program>, String>>>,
    /// Pinned host memory for large uploads and reads, made on first use.
    pub(super) staging: Mutex<Option<Staging>>,
    /// Streaming multiprocessors, for grid sizes.
    pub(super) multiprocessors: u32,
    /// Compute capability (major, minor), for NVRTC's target.
    pub(super) capability: (i32, i32),
    /// Whether the device has stream-ordered memory pools (else allocations are the
    /// driver's plain ones, freed after the stream's work).
    pub(super) pools: bool,
    /// What `nxrig devices` prints.
    about: String,
}

// SAFETY: the handles are the driver's, which is thread-safe; every call makes the
// device's context current on the calling thread first.
unsafe impl Send for Cuda {}
unsafe impl Sync for Cuda {}

/// `m`, even when a thread panicked holding it.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cuda {
    /// Device `ordinal`'s primary context and a stream of its own.
    pub(super) fn open(ordinal: usize) -> Result<Arc<Cuda>, DriverError> {
        use sys::CUdevice_attribute as A;
        let dev = result::device::get(ordinal as i32)?;
        // SAFETY: `dev` is the driver's; the context is released when `Cuda` drops.
        let ctx = unsafe { result::primary_ctx::retain(dev)? };
        // SAFETY: a context just retained.
        unsafe { result::ctx::set_current(ctx)? };
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        // SAFETY: `dev` is the driver's.
        let attr = |a| unsafe { result::device::get_attribute(dev, a) };
        let multiprocessors = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as u32;
        let capability = (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let pools = attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? == 1;
        // SAFETY: `dev` is the driver's.
        let bytes = unsafe { result::device::total_mem(dev)? };
        let about = format!(
            "{} (CUDA, compute capability {}.{}, {} multiprocessors, {} bytes of memory)",
            result::device::get_name(dev)?,
            capability.0,
            capability.1,
            multiprocessors,
            bytes
        );
        Ok(Arc::new(Cuda {
            name: format!("cuda{ordinal}"),
            ordinal,
            dev,
            ctx,
            stream,
            timeline: Arc::new(Timeline::new()),
            turn: Mutex::new(()),
            pending: Mutex::new(VecDeque::new()),
            programs: Mutex::new(HashMap::new()),
            staging: Mutex::new(None),
            multiprocessors,
            capability,
            pools,
            about,
        }))
    }

    /// What the device is, in one line.
    pub(crate) fn about(&self) -> &str {
        &self.about
    }

    /// The driver's handle of the device.
    pub(super) fn dev(&self) -> sys::CUdevice {
        self.dev
    }

    /// Makes the device's context current on this thread, after checking that the
    /// device is not lost.
    ///
    /// # Errors
    /// [`Error::Lost`] naming `op`; the driver's error, as [`Cuda::fail`] makes it.
    pub(super) fn current(&self, op: &'static str) -> Result<(), Error> {
        if self.timeline.is_lost() {
            return Err(self.lost(op));
        }
        // SAFETY: the context is retained until `Cuda` drops.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(|e| self.fail(op, e))
    }

    /// The error of `op` that failed with `e`: out of memory for an allocation (the
    /// caller's), [`Error::Lost`] where the context no longer works (a sticky error:
    /// the device is marked lost, so every pending and later call fails too), else
    /// [`Error::Device`].
    pub(super) fn fail(&self, op: &'static str, e: DriverError) -> Error {
        if self.timeline.is_lost() {
            return self.lost(op);
        }
        // A sticky error fails every later call of the context, a synchronize too.
        // SAFETY: the context is retained until `Cuda` drops.
        let works = unsafe { result::ctx::set_current(self.ctx) }
            .and_then(|()| result::ctx::synchronize())
            .is_ok();
        if !works {
            self.timeline
                .lose_because(&format!("CUDA error {}", said(&e)));
            return self.lost(op);
        }
        Error::Device {
            op,
            device: self.name.clone(),
            reason: said(&e),
        }
    }

    /// [`Error::Lost`] naming `op` and, where known, why.
    pub(super) fn lost(&self, op: &'static str) -> Error {
        Error::Lost {
            op,
            device: match self.timeline.why() {
                Some(why) => format!("{} ({why})", self.name),
                None => self.name.clone(),
            },
        }
    }

    /// The submission turn (`DeviceBackend::turn`).
    pub(super) fn turn(&self) -> MutexGuard<'_, ()> {
        lock(&self.turn)
    }

    /// Records an event after the work submitted so far; `stamp` completes when it
    /// does. A device that cannot record one is lost (its stamp would never complete).
    pub(super) fn stamp_when_done(&self, stamp: Stamp) {
        if self.timeline.is_lost() {
            return;
        }
        // SAFETY: the context is retained, the stream is the device's; an event not
        // recorded is destroyed here, a recorded one in `poll` once it completes.
        let recorded = unsafe {
            result::ctx::set_current(self.ctx).and_then(|()| {
                let ev = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
                match result::event::record(ev, self.stream) {
                    Ok(()) => Ok(ev),
                    Err(e) => {
                        let _ = result::event::destroy(ev);
                        Err(e)
                    }
                }
            })
        };
        match recorded {
            Ok(ev) => lock(&self.pending).push_back((stamp, ev)),
            Err(e) => self
                .timeline
                .lose_because(&format!("CUDA error {} recording a stamp", said(&e))),
        }
        self.poll();
    }

    /// Completes the stamps whose events are done, in order.
    pub(super) fn poll(&self) {
        let mut pending = lock(&self.pending);
        // SAFETY: the context is retained until `Cuda` drops.
        if unsafe { result::ctx::set_current(self.ctx) }.is_err() {
            return;
        }
        while let Some(&(stamp, ev)) = pending.front() {
            // SAFETY: `ev` was recorded on the device's stream and not destroyed.
            match unsafe { result::event::query(ev) } {
                Ok(()) => {
                    self.timeline.complete(stamp);
                    pending.pop_front();
                    // SAFETY: completed; destroyed once.
                    let _ = unsafe { result::event::destroy(ev) };
                }
                Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_READY => break,
                Err(e) => {
                    self.timeline
                        .lose_because(&format!("CUDA error {}", said(&e)));
                    break;
                }
            }
        }
    }

    /// Waits until the stream's work is done, then completes its stamps. A failure
    /// loses the device.
    pub(super) fn block(&self) {
        if self.timeline.is_lost() {
            return;
        }
        // SAFETY: the context is retained, the stream is the device's.
        let r = unsafe {
            result::ctx::set_current(self.ctx)
                .and_then(|()| result::stream::synchronize(self.stream))
        };
        if let Err(e) = r {
            self.timeline
                .lose_because(&format!("CUDA error {}", said(&e)));
        }
        self.poll();
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        // SAFETY: nothing of the device is used after this: every memory holds an
        // `Arc<Cuda>`, so none is left. Failures are ignored (a lost device).
        unsafe {
            if result::ctx::set_current(self.ctx).is_ok() {
                let _ = result::stream::synchronize(self.stream);
                for (_, ev) in lock(&self.pending).drain(..) {
                    let _ = result::event::destroy(ev);
                }
                drop(lock(&self.staging).take());
                for (_, p) in lock(&self.programs).drain() {
                    if let Ok(p) = p.map(Arc::into_inner) {
                        p.into_iter().for_each(Program::unload);
                    }
                }
                let _ = result::stream::destroy(self.stream);
            }
            let _ = result::primary_ctx::release(self.dev);
        }
    }
}
