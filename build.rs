//! Builds the C host kernels (`src/kernels/c/`, over `include/nx_array.h`) with the
//! `cc` crate for native targets (a cross build without the target's C compiler goes
//! without them), and tells the tests which target they run on and, with the `cuda`
//! feature, whether this machine has CUDA's driver and NVRTC (`cfg(nx_cuda_no_driver)`,
//! `cfg(nx_cuda_no_nvrtc)`: the CUDA tests then report themselves ignored, saying why).
//! `cfg(nx_vectors)` marks the targets whose 128-bit vectors the transposes use
//! (`src/array/vec128.rs`): x86_64, aarch64 with NEON, and wasm32 with simd128.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=NXRIG_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "cuda")]
    probe_cuda();
    println!("cargo:rustc-check-cfg=cfg(nx_c_kernels)");
    println!("cargo:rustc-check-cfg=cfg(nx_vectors)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has = |f: &str| features.split(',').any(|g| g == f);
    if arch == "x86_64"
        || (arch == "aarch64" && has("neon"))
        || (arch == "wasm32" && has("simd128"))
    {
        println!("cargo:rustc-cfg=nx_vectors");
    }
    if !target.starts_with("wasm32") {
        for f in [
            "src/kernels/c/nx_cpu_add.c",
            "include/nx_array.h",
            "include/nx_dtype.h",
        ] {
            println!("cargo:rerun-if-changed={f}");
        }
        let mut c = cc::Build::new();
        c.file("src/kernels/c/nx_cpu_add.c")
            .include("include")
            .std("c99")
            .warnings(true);
        let host = std::env::var("HOST").unwrap_or_default();
        // A cross build says in one line why it goes without them, not the compiler's.
        c.cargo_warnings(target == host);
        if target == host {
            c.compile("nxrig_c");
        } else if let Err(e) = c.try_compile("nxrig_c") {
            // A cross build without the target's C toolchain (CI's `cargo check` for
            // macOS and Windows on Linux): the crate without its C host kernels.
            println!("cargo:warning=nxrig: the C host kernels are left out of this build for {target}: {e}");
            return;
        }
        println!("cargo:rustc-cfg=nx_c_kernels");
    }
}

/// Sets `cfg(nx_cuda_no_driver)` or `cfg(nx_cuda_no_nvrtc)` where the loader finds no
/// CUDA driver or no NVRTC library (by the names cudarc loads them by).
#[cfg(feature = "cuda")]
fn probe_cuda() {
    println!("cargo:rerun-if-env-changed=LD_LIBRARY_PATH");
    if std::path::Path::new("/etc/ld.so.cache").exists() {
        println!("cargo:rerun-if-changed=/etc/ld.so.cache");
    }
    let found = |names: &[&str]| {
        names.iter().any(|n| {
            // SAFETY: loading a system library runs its initializers, as the CUDA
            // backend itself does when it opens the devices.
            unsafe { libloading::Library::new(n) }.is_ok()
        })
    };
    let driver = found(&["libcuda.so.1", "libcuda.so", "nvcuda.dll"]);
    let nvrtc = found(&[
        "libnvrtc.so",
        "libnvrtc.so.13",
        "libnvrtc.so.12",
        "libnvrtc.so.11.2",
        "nvrtc64_130_0.dll",
        "nvrtc64_120_0.dll",
    ]);
    if !driver {
        println!("cargo:rustc-cfg=nx_cuda_no_driver");
    } else if !nvrtc {
        println!("cargo:rustc-cfg=nx_cuda_no_nvrtc");
    }
}
