//! nxrig's CUDA kernels as NVRTC compiles them: `include/nx_dtype.h`,
//! `include/nx_array.h`, `src/kernels/cuda/nx_launch.h`, `nx_kernels.cu` and
//! `nx_ops.cu` inlined (NVRTC reads no files), one program a device, compiled on its
//! first launch as a user's kernel is (`rig::cuda`'s `launch_source`: the runtime
//! keeps no catalogue of them); a user's kernel is compiled after the headers and
//! `nx_kernels.cu` ([`with`]). The same source compiles for the host in
//! `tests/kernels_c.rs`, which checks its arithmetic on every machine.

use std::ffi::c_void;

use crate::error::Error;
use crate::rig::cuda::Cuda;

/// The source files, in the order they are inlined.
const FILES: [&str; 5] = [
    include_str!("../../include/nx_dtype.h"),
    include_str!("../../include/nx_array.h"),
    include_str!("../kernels/cuda/nx_launch.h"),
    include_str!("../kernels/cuda/nx_kernels.cu"),
    include_str!("../kernels/cuda/nx_ops.cu"),
];

/// The name nxrig's kernels are compiled under.
const KEY: &str = "nx_kernels.cu";

/// The source NVRTC compiles: the files inlined in order, their `#include "..."`
/// lines dropped (each header's guard holds as in C).
pub(crate) fn source() -> String {
    inlined(FILES.iter().copied())
}

/// The headers and `nx_kernels.cu` (not `nx_ops.cu`), then `extra` (a user's
/// kernel), inlined.
pub(crate) fn with(extra: &str) -> String {
    inlined(FILES[..4].iter().copied().chain([extra]))
}

/// `files` inlined in order, their `#include "..."` lines dropped (the programs
/// of nxrig's own kernels, and `quant`'s dequantization).
pub(crate) fn inlined<'a>(files: impl Iterator<Item = &'a str>) -> String {
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

/// Launches nxrig's kernel `symbol` (`nx_transfer`, `nx_cast`, ...) on `c` over `n`
/// indices with `args`, its program compiled on the device's first launch.
///
/// # Errors
/// [`Error::Device`] where the kernels do not compile or load on the device (an
/// NVRTC or driver too old for them; its log); [`Error::Lost`].
///
/// # Safety
/// `args` match `symbol`'s parameters in number, order and type (a pointer to each
/// value); every device address among them is of live memory of `c` that the kernel
/// may read or write at the positions the walks give.
pub(crate) unsafe fn launch(
    c: &Cuda,
    op: &'static str,
    symbol: &str,
    n: usize,
    args: &mut [*mut c_void],
) -> Result<(), Error> {
    // SAFETY: the caller's.
    unsafe { c.launch_source(op, (KEY, symbol), source, n, args) }.map_err(|e| match e {
        Error::Invalid { op, reason, .. } => Error::Device {
            op,
            device: c.name.clone(),
            reason: format!("NVRTC failed on nxrig's kernels: {reason}"),
        },
        e => e,
    })
}

/// What can be checked of a CUDA program without a GPU: `source` (a program as NVRTC
/// gets it, the headers inlined) compiled as CUDA device code to PTX with clang's NVPTX
/// target; the PTX's text. Panics with clang's messages where it does not compile.
#[cfg(test)]
pub(crate) fn ptx(source: &str) -> String {
    use std::process::Command;

    // What NVRTC provides and clang's CUDA mode without CUDA's headers does not: the
    // qualifiers as attributes, the launch indices, the three atomics the sources use.
    const PRELUDE: &str = r#"
    #define __global__ __attribute__((global))
    #define __device__ __attribute__((device))
    #define __host__ __attribute__((host))
    #include "__clang_cuda_builtin_vars.h"
    __device__ unsigned int atomicAnd(unsigned int *a, unsigned int v) { return __nvvm_atom_and_gen_i((int *)a, (int)v); }
    __device__ unsigned int atomicOr(unsigned int *a, unsigned int v) { return __nvvm_atom_or_gen_i((int *)a, (int)v); }
    __device__ unsigned int atomicMax(unsigned int *a, unsigned int v) { return __nvvm_atom_max_gen_ui(a, v); }
    "#;
    let dir = tempfile::tempdir().unwrap();
    let (src, pre, ptx) = (
        dir.path().join("program.cu"),
        dir.path().join("prelude.h"),
        dir.path().join("program.ptx"),
    );
    std::fs::write(&src, source).unwrap();
    std::fs::write(&pre, PRELUDE).unwrap();
    let out = Command::new("clang++")
        .args(["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_70"])
        .args([
            "-nocudainc",
            "-nocudalib",
            "-D__CUDACC__",
            "-D__CUDACC_RTC__",
        ])
        .args(["-Werror", "-S", "-include"])
        .arg(&pre)
        .arg("-o")
        .arg(&ptx)
        .arg(&src)
        .output()
        .expect("clang++ (Debian's clang, with its NVPTX target: scripts/setup.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&ptx).unwrap()
}

/// The parameters of kernel `name` in `ptx`'s text, in order: 'p' a device address or
/// a 64-bit count, 'w' a walk (a byte array of `walk` bytes), 'i' a 32-bit value.
#[cfg(test)]
pub(crate) fn params(ptx: &str, name: &str, walk: usize) -> String {
    let at = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no kernel {name} in:\n{ptx}"));
    let list = &ptx[at..at + ptx[at..].find(')').unwrap()];
    let walk = format!("[{walk}]");
    list.lines()
        .skip(1)
        .map(|l| {
            if l.contains(".u64") {
                'p'
            } else if l.contains(".u32") {
                'i'
            } else if l.contains(".b8") && l.contains(&walk) {
                'w'
            } else {
                '?'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    // The source NVRTC gets (the headers inlined) compiles as CUDA device code, and its
    // six kernels take the parameters `launch`'s callers pass (device addresses as
    // 64-bit values, a walk of `size_of::<Walk>()` bytes, 32-bit codes, 64-bit counts).
    // The kernels' arithmetic is `tests/kernels_c.rs`'s, on the host.

    use super::{params, ptx, source};
    use crate::rig::cuda::Walk;

    #[test]
    fn the_nvrtc_source_compiles_to_ptx_with_the_kernels_launch_passes() {
        let text = ptx(&source());
        for (name, want) in [
            ("nx_transfer", "pwpwip"),
            ("nx_fill", "pwipp"),
            ("nx_cast", "pwipwip"),
            ("nx_add", "pwpwpwip"),
            ("nx_op2", "pwpwpwiip"),
            ("nx_select", "pwpwpwpwip"),
        ] {
            let got = params(&text, name, std::mem::size_of::<Walk>());
            assert_eq!(got, want, "{name}'s parameters");
        }
    }
}
