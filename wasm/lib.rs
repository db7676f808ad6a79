//! The wasm module of the npm package: nxrig's JavaScript API, which lives in the
//! library (`nxrig::web`, wasm32 only), linked as a cdylib. `npm run build` builds it
//! with wasm-pack; the library itself has no cdylib, so crates that depend on it
//! build none.

pub use nxrig;
