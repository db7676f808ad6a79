//! Tells the tests which target they run on, so that the C header test can ask the
//! `cc` crate for that target's C compiler.

fn main() {
    println!(
        "cargo:rustc-env=NXRIG_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!("cargo:rerun-if-changed=build.rs");
}
