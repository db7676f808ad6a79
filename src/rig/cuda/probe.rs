//! Whether this machine has CUDA, and its devices: the driver and NVRTC looked up by
//! the names cudarc loads them by before cudarc is asked to load them (its loader
//! panics where a library or a symbol is missing, and a panic there is caught too),
//! then one [`Cuda`] per device the driver reports, opened once for the process.

use std::cell::Cell;
use std::sync::{Arc, OnceLock};

use cudarc::driver::result;

use super::device::Cuda;

/// The CUDA devices, or why there are none.
fn state() -> &'static Result<Vec<Arc<Cuda>>, String> {
    static STATE: OnceLock<Result<Vec<Arc<Cuda>>, String>> = OnceLock::new();
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

fn open() -> Result<Vec<Arc<Cuda>>, String> {
    // SAFETY: loading a system library runs its initializers, as any user of CUDA does.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (the loader finds no libcuda.so.1 or nvcuda.dll): install NVIDIA's driver".into());
    }
    // SAFETY: as above.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("no NVRTC (the loader finds no libnvrtc): install the CUDA toolkit's NVRTC and put its folder on the loader's path".into());
    }
    result::init().map_err(|e| format!("the CUDA driver failed to start: {e}"))?;
    let count = result::device::get_count().map_err(|e| format!("the CUDA driver failed: {e}"))?;
    if count <= 0 {
        return Err("the CUDA driver reports no device".into());
    }
    let mut opened = Vec::new();
    let mut first_error = None;
    for ordinal in 0..count as usize {
        match Cuda::open(ordinal) {
            Ok(c) => opened.push(c),
            Err(e) => {
                first_error.get_or_insert(format!("cuda{ordinal} failed to open: {e}"));
            }
        }
    }
    match (opened.is_empty(), first_error) {
        (true, Some(e)) => Err(e),
        _ => Ok(opened),
    }
}

/// The CUDA devices of the machine, opened on the first call.
pub(crate) fn open_all() -> Vec<Arc<Cuda>> {
    state().clone().unwrap_or_default()
}

/// Why the machine offers no CUDA device, in one line; `None` where it offers one.
pub(crate) fn unavailable() -> Option<String> {
    state().as_ref().err().cloned()
}
