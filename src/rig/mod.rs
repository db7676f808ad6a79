//! The runtime: devices, memory, buffers, claims, timelines and stamps, submit.
//!
//! Knows nothing of arrays or kernels: it moves bytes, keeps claims and orders work; a
//! kernel is work that [`Rig::submit`] runs without knowing what it computes.
//!
//! - [`Rig`]: a device, with its timeline; [`Rig::host`] is the host.
//! - [`Buffer`]: a byte range of one memory; read, write, views, borrow, export, free,
//!   copy, blit, fill, wait.
//! - [`Claim`]: read claims, exclusive claims and donation ([`Claim::with`],
//!   [`Claims::consume`]), holds ([`Claim::hold`]), [`Claim::share`].
//! - [`Stamp`]: a point on a device's timeline; [`Rig::submit`], [`Submission`].

mod access;
pub(crate) mod backend;
mod buffer;
mod claim;
mod copying;
#[cfg(feature = "cuda")]
pub(crate) mod cuda;
mod device;
mod foreign;
mod gpus;
mod host;
#[cfg(target_arch = "wasm32")]
pub(crate) use host::MAX_ALLOCATION;
mod kind;
mod memory;
mod seam;
mod submit;
mod timeline;
pub mod wgpu;
mod word;

pub use access::ReadAsync;
pub use buffer::Buffer;
pub use claim::{Claim, Claims, Hold};
pub use device::{MemoryUse, Rig};
pub(crate) use foreign::Address;
pub use host::ALIGN;
pub use kind::RigKind;
pub use memory::{Access, Kind};
pub use submit::Submission;
pub use timeline::Stamp;
pub(crate) use word::ReadClaims;

#[cfg(all(test, not(loom)))]
mod tests;
