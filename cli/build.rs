//! Tells the tests which target they run on (the CUDA stand-in libraries of
//! `tests/cuda_absent.rs` are built for it).

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=NXRIG_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
