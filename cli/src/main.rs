//! The `nxrig` command line: `devices`, `info FILE`, `convert INPUT OUTPUT --to DTYPE`.

#[cfg(not(target_arch = "wasm32"))]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
mod convert;
#[cfg(not(target_arch = "wasm32"))]
mod info;
#[cfg(not(target_arch = "wasm32"))]
mod process;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
