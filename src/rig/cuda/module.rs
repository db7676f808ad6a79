//! nxrig's CUDA kernels: `src/kernels/cuda/nx_kernels.cu` and `nx_ops.cu` with their headers
//! (`include/nx_dtype.h`, `include/nx_array.h`, `nx_launch.h`) inlined, compiled by
//! NVRTC for the device's compute capability on the first launch and loaded once per
//! device; and launches over an operand's [`Walk`]. The same source compiles for the
//! host in `tests/cuda_kernels.rs`, which checks its arithmetic on every machine.

use std::ffi::CString;

use cudarc::driver::result;
use cudarc::driver::sys;

use super::said::said;
use crate::layout::{Layout, MAX_RANK};

/// The kernels' source files, in the order they are inlined.
const SOURCES: [&str; 5] = [
    include_str!("../../../include/nx_dtype.h"),
    include_str!("../../../include/nx_array.h"),
    include_str!("../../kernels/cuda/nx_launch.h"),
    include_str!("../../kernels/cuda/nx_kernels.cu"),
    include_str!("../../kernels/cuda/nx_ops.cu"),
];

/// A kernel of `nx_kernels.cu`; its parameters are those of the C function named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `nx_transfer(src, sw, dst, dw, code, n)`.
    Transfer,
    /// `nx_fill(dst, dw, code, bits, n)`.
    Fill,
    /// `nx_cast(src, sw, sd, dst, dw, dd, n)`.
    Cast,
    /// `nx_add(x, xw, y, yw, out, ow, code, n)`.
    Add,
    /// `nx_op2(x, xw, y, yw, out, ow, code, op, n)` (`nx_ops.cu`).
    Op2,
    /// `nx_select(c, cw, x, xw, y, yw, out, ow, code, n)` (`nx_ops.cu`).
    Select,
}

impl Entry {
    const ALL: [Entry; 6] = [
        Entry::Transfer,
        Entry::Fill,
        Entry::Cast,
        Entry::Add,
        Entry::Op2,
        Entry::Select,
    ];

    fn symbol(self) -> &'static str {
        match self {
            Entry::Transfer => "nx_transfer",
            Entry::Fill => "nx_fill",
            Entry::Cast => "nx_cast",
            Entry::Add => "nx_add",
            Entry::Op2 => "nx_op2",
            Entry::Select => "nx_select",
        }
    }
}

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

/// The loaded module and its kernels, in [`Entry::ALL`]'s order.
pub(crate) struct Module {
    module: sys::CUmodule,
    functions: [sys::CUfunction; Entry::ALL.len()],
}

// SAFETY: the driver's handles, valid in the device's context from any thread.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Module {
    /// The source compiled by NVRTC for compute capability `(major, minor)` and
    /// loaded into the current context, or why it could not be.
    pub(super) fn compile(capability: (i32, i32)) -> Result<Module, String> {
        let module = load(capability, "nx_kernels.cu", source())
            .map_err(|e| format!("NVRTC failed on nx_kernels.cu: {e}"))?;
        let mut functions = [std::ptr::null_mut(); Entry::ALL.len()];
        for (f, e) in functions.iter_mut().zip(Entry::ALL) {
            *f = function(module, e.symbol())?;
        }
        Ok(Module { module, functions })
    }

    /// The kernel `entry`.
    pub(super) fn function(&self, entry: Entry) -> sys::CUfunction {
        let k = Entry::ALL
            .iter()
            .position(|&e| e == entry)
            .expect("every entry");
        self.functions[k]
    }

    /// Unloads the module (the device's context is current).
    pub(super) fn unload(self) {
        // SAFETY: loaded once by `compile`, unloaded once.
        let _ = unsafe { result::module::unload(self.module) };
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

/// A module the runtime does not know (a user's kernel), loaded with its one kernel.
pub(crate) struct Program {
    module: sys::CUmodule,
    pub(super) function: sys::CUfunction,
}

// SAFETY: as `Module`'s.
unsafe impl Send for Program {}
unsafe impl Sync for Program {}

impl Program {
    /// `source` (inlined after nxrig's headers and `nx_kernels.cu`, its `#include
    /// "..."` lines dropped) compiled for `capability` and loaded, with its kernel
    /// `symbol`; or the compiler's log.
    pub(super) fn compile(
        capability: (i32, i32),
        name: &str,
        source: &str,
        symbol: &str,
    ) -> Result<Program, String> {
        let module = load(capability, name, source_with(source))?;
        let function = function(module, symbol)?;
        Ok(Program { module, function })
    }

    /// Unloads the module (the device's context is current).
    pub(super) fn unload(self) {
        // SAFETY: loaded once by `compile`, unloaded once.
        let _ = unsafe { result::module::unload(self.module) };
    }
}

/// nxrig's headers and `nx_kernels.cu` (not `nx_ops.cu`), then `extra`, inlined.
fn source_with(extra: &str) -> String {
    inlined(SOURCES[..4].iter().copied().chain([extra]))
}

/// The source NVRTC compiles: the files inlined in order, their `#include "..."`
/// lines dropped (NVRTC reads no files; each header's guard holds as in C).
pub(crate) fn source() -> String {
    inlined(SOURCES.iter().copied())
}

/// `files` inlined in order, their `#include "..."` lines dropped.
fn inlined<'a>(files: impl Iterator<Item = &'a str>) -> String {
    let mut s = String::new();
    for f in files {
        for line in f.lines() {
            if !line.trim_start().starts_with("#include \"") {
                s.push_str(line);
            }
            s.push('\n');
        }
    }
    s
}
