//! Launches of a program's kernels on a device's stream: the program compiled on its
//! first launch and kept under its name (`module.rs`), blocks of 256 threads,
//! grid-stride loops.

use std::ffi::c_void;

use cudarc::driver::result;

use super::device::Cuda;
use super::module::Program;
use crate::error::Error;

impl Cuda {
    /// The program named `key`, compiled from `source()` and loaded the first time
    /// (the context is current).
    fn program(
        &self,
        op: &'static str,
        key: &str,
        source: impl FnOnce() -> String,
    ) -> Result<std::sync::Arc<Program>, Error> {
        let mut programs = super::device::lock(&self.programs);
        let made = programs.entry(key.to_owned()).or_insert_with(|| {
            Program::compile(self.capability, key, &source()).map(std::sync::Arc::new)
        });
        made.clone().map_err(|log| Error::Invalid {
            op,
            reason: format!("its CUDA C does not compile: {log}"),
            operands: String::new(),
        })
    }

    /// Launches the kernel `symbol` of the program named `key` (compiled from
    /// `source()`, the whole CUDA C, on its first launch) over `n` indices with
    /// `args` (a pointer to each parameter's value, in the C function's order), on
    /// the stream: blocks of 256 threads, a grid of at most 16 blocks a
    /// multiprocessor, each thread striding over the rest.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` where the source does not compile (NVRTC's log);
    /// [`Error::Device`] where it does not load or has no kernel `symbol`;
    /// [`Error::Lost`].
    ///
    /// # Safety
    /// `args` match `symbol`'s parameters in number, order and type; every device
    /// address among them is of live memory of this device that the kernel may read
    /// or write at the positions the walks give.
    pub(crate) unsafe fn launch_source(
        &self,
        op: &'static str,
        (key, symbol): (&str, &str),
        source: impl FnOnce() -> String,
        n: usize,
        args: &mut [*mut c_void],
    ) -> Result<(), Error> {
        self.current(op)?;
        let p = self.program(op, key, source)?;
        if n == 0 {
            return Ok(());
        }
        let f = p.function(symbol).map_err(|reason| Error::Device {
            op,
            device: self.name.clone(),
            reason,
        })?;
        // SAFETY: the caller's.
        unsafe { self.launch_function(op, f, n, args) }
    }

    /// Launches `f` over `n` indices (blocks of 256 threads, at most 16 blocks a
    /// multiprocessor).
    ///
    /// # Safety
    /// As [`Cuda::launch_source`]'s, for `f`.
    unsafe fn launch_function(
        &self,
        op: &'static str,
        f: cudarc::driver::sys::CUfunction,
        n: usize,
        args: &mut [*mut c_void],
    ) -> Result<(), Error> {
        let blocks = n
            .div_ceil(256)
            .min(self.multiprocessors as usize * 16)
            .max(1) as u32;
        // SAFETY: the caller's.
        unsafe { result::launch_kernel(f, (blocks, 1, 1), (256, 1, 1), 0, self.stream, args) }
            .map_err(|e| self.fail(op, e))
    }
}

/// A kernel parameter's value as `launch` takes it.
pub(crate) fn arg<T>(x: &mut T) -> *mut c_void {
    (x as *mut T).cast()
}
