//! Whether this machine has CUDA, and its devices: the driver and NVRTC looked up by
//! the names cudarc loads them by before cudarc is asked to load them (its loader
//! panics where a library or a symbol is missing, and a panic there is caught too),
//! then one [`Cuda`] per device the driver reports, opened once for the process.

use std::cell::Cell;
use std::sync::{Arc, OnceLock};

use cudarc::driver::result;

use super::device::Cuda;
use super::said::said;

/// The CUDA devices opened and why each other one did not open, or why there are
/// none.
type State = Result<(Vec<Arc<Cuda>>, Vec<(usize, String)>), String>;

/// The probe's [`State`], made on the first call.
fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| {
        quietly(open)
            .unwrap_or_else(|what| Err(format!("the CUDA libraries failed to load: {what}")))
    })
}

thread_local! {
    /// Set while this thread runs `quietly`'s function.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// `f()`, or the message of its panic (a library or a symbol cudarc's loader did not
/// find), which the panic hook does not print: the reason is the caller's to say, in
/// one line. Panics of other threads meanwhile go to the hook as before.
fn quietly<R>(f: impl FnOnce() -> R + std::panic::UnwindSafe) -> Result<R, String> {
    let previous: Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync> =
        Arc::from(std::panic::take_hook());
    let hook = Arc::clone(&previous);
    std::panic::set_hook(Box::new(move |info| {
        if !QUIET.with(Cell::get) {
            hook(info)
        }
    }));
    QUIET.with(|q| q.set(true));
    let r = std::panic::catch_unwind(f);
    QUIET.with(|q| q.set(false));
    drop(std::panic::take_hook());
    std::panic::set_hook(Box::new(move |info| previous(info)));
    r.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    })
}

/// The driver first (a broken one is said before a missing NVRTC), then NVRTC, then
/// each device.
fn open() -> State {
    // SAFETY: loading a system library runs its initializers, as any user of CUDA does.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (the loader finds no libcuda.so.1 or nvcuda.dll): install NVIDIA's driver".into());
    }
    result::init().map_err(|e| format!("the CUDA driver failed to start: {}", said(&e)))?;
    let count =
        result::device::get_count().map_err(|e| format!("the CUDA driver failed: {}", said(&e)))?;
    if count <= 0 {
        return Err("the CUDA driver reports no device".into());
    }
    // SAFETY: as above.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("no NVRTC (the loader finds no libnvrtc): install the CUDA toolkit's NVRTC and put its folder on the loader's path".into());
    }
    let mut opened = Vec::new();
    let mut failed = Vec::new();
    for ordinal in 0..count as usize {
        match Cuda::open(ordinal) {
            Ok(c) => opened.push(c),
            Err(e) => failed.push((
                ordinal,
                format!("cuda{ordinal} failed to open: {}", said(&e)),
            )),
        }
    }
    match failed.first() {
        Some((_, e)) if opened.is_empty() => Err(e.clone()),
        _ => Ok((opened, failed)),
    }
}

/// The CUDA devices of the machine, opened on the first call.
pub(crate) fn open_all() -> Vec<Arc<Cuda>> {
    state().as_ref().map(|s| s.0.clone()).unwrap_or_default()
}

/// Why the machine offers no CUDA device, in one line; `None` where it offers one.
pub(crate) fn unavailable() -> Option<String> {
    state().as_ref().err().cloned()
}

/// Why CUDA device `ordinal` did not open, where the driver reports it and others
/// opened.
pub(crate) fn not_opened(ordinal: usize) -> Option<String> {
    let failed = &state().as_ref().ok()?.1;
    failed.iter().find(|f| f.0 == ordinal).map(|f| f.1.clone())
}
