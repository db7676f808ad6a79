//! Builds the C host kernels (`src/kernels/c/`, over `include/nx_array.h`) with the
//! `cc` crate for native targets, and tells the tests which target they run on.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=NXRIG_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(nx_c_kernels)");
    if !target.starts_with("wasm32") {
        for f in [
            "src/kernels/c/nx_cpu_add.c",
            "include/nx_array.h",
            "include/nx_dtype.h",
        ] {
            println!("cargo:rerun-if-changed={f}");
        }
        cc::Build::new()
            .file("src/kernels/c/nx_cpu_add.c")
            .include("include")
            .std("c99")
            .warnings(true)
            .compile("nxrig_c");
        println!("cargo:rustc-cfg=nx_c_kernels");
    }
}
