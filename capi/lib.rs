//! nxrig's C API as a shared library (`libnxrig_capi.so`, `.dylib`, `.dll`): the
//! library's `capi` module (feature `capi`, declared in `include/nx_capi.h`) linked as
//! a cdylib, nothing of its own. `cargo build --release -p nxrig-capi` builds it.

pub use nxrig;
