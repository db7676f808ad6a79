//! Programs: CUDA C compiled by NVRTC for the device's compute capability and loaded
//! into its context, their kernels looked up by name; the runtime knows none of them
//! (nxrig's own are `array/cuda_source.rs`'s, users' are theirs); and an operand's
//! layout as kernels walk it ([`Walk`]).

use std::ffi::CString;

use cudarc::driver::result;
use cudarc::driver::sys;

use super::said::said;
use crate::layout::{Layout, MAX_RANK};

/// An operand's layout as the kernels walk it: `nx_walk` of `nx_kernels.cu`, field
/// for field (elements).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walk {
    offset: i64,
    rank: i32,
    pad: i32,
    shape: [i64; MAX_RANK],
    strides: [i64; MAX_RANK],
}

impl Walk {
    /// The walk of `layout`.
    pub(crate) fn of(layout: &Layout) -> Walk {
        let mut w = Walk {
            offset: layout.offset() as i64,
            rank: layout.shape().len() as i32,
            pad: 0,
            shape: [1; MAX_RANK],
            strides: [0; MAX_RANK],
        };
        for (k, (&n, &s)) in layout.shape().iter().zip(layout.strides()).enumerate() {
            w.shape[k] = n as i64;
            w.strides[k] = s as i64;
        }
        w
    }
}

/// `source` (file `name`) compiled by NVRTC for compute capability `(major, minor)`
/// and loaded into the current context, or why not: the compiler's log, or the
/// driver's word.
fn load((major, minor): (i32, i32), name: &str, source: String) -> Result<sys::CUmodule, String> {
    let opts = |arch: Option<String>| cudarc::nvrtc::CompileOptions {
        fmad: Some(false),
        options: arch.into_iter().collect(),
        name: Some(name.into()),
        ..Default::default()
    };
    let arch = format!("--gpu-architecture=compute_{major}{minor}");
    // An NVRTC older than the device knows no target for it: then its default
    // target, which the driver compiles for the device when it loads the PTX.
    let ptx = match cudarc::nvrtc::compile_ptx_with_opts(&source, opts(Some(arch))) {
        Ok(p) => p,
        Err(cudarc::nvrtc::CompileError::CompileError { log, .. }) => {
            return Err(log.to_string_lossy().trim().to_owned())
        }
        Err(_) => cudarc::nvrtc::compile_ptx_with_opts(&source, opts(None))
            .map_err(|e| format!("{e:?}"))?,
    };
    let image = CString::new(ptx.to_src()).map_err(|e| format!("PTX with a NUL: {e}"))?;
    // SAFETY: a PTX image NVRTC made, NUL-terminated.
    unsafe { result::module::load_data(image.as_ptr().cast()) }
        .map_err(|e| format!("the driver refused the PTX: {}", said(&e)))
}

/// The kernel `symbol` of a loaded module.
fn function(module: sys::CUmodule, symbol: &str) -> Result<sys::CUfunction, String> {
    let name = CString::new(symbol).map_err(|_| format!("a kernel name with a NUL: {symbol:?}"))?;
    // SAFETY: a module loaded by `load`.
    unsafe { result::module::get_function(module, name) }
        .map_err(|err| format!("no kernel {symbol} in the module: {}", said(&err)))
}

/// A program: a module compiled from CUDA C and loaded, whose kernels are looked up by
/// name at launch.
pub(crate) struct Program {
    module: sys::CUmodule,
}

// SAFETY: the driver's handle, valid in the device's context from any thread.
unsafe impl Send for Program {}
unsafe impl Sync for Program {}

impl Program {
    /// `source` (the whole of it: NVRTC reads no files) compiled for `capability`
    /// under the file name `name` and loaded (the device's context is current); or
    /// the compiler's log, or the driver's word.
    pub(super) fn compile(
        capability: (i32, i32),
        name: &str,
        source: &str,
    ) -> Result<Program, String> {
        let module = load(capability, name, source.to_owned())?;
        Ok(Program { module })
    }

    /// Its kernel `symbol`, or why there is none.
    pub(super) fn function(&self, symbol: &str) -> Result<sys::CUfunction, String> {
        function(self.module, symbol)
    }

    /// Unloads the module (the device's context is current).
    pub(super) fn unload(self) {
        // SAFETY: loaded once by `compile`, unloaded once.
        let _ = unsafe { result::module::unload(self.module) };
    }
}
