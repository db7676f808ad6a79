//! CUDA devices through cudarc's bindings of the driver API and NVRTC, both loaded at
//! run time (cargo feature `cuda`, native only): one device a CUDA device (`cuda0`,
//! `cuda1`, ...), its memory stream-ordered allocations, its work one stream in
//! submission order, its stamps CUDA events on that stream, and programs (CUDA C:
//! nxrig's kernels, `array/cuda_source.rs`, and users') compiled by NVRTC once a
//! device and name. Knows no `Rig`, buffer, array or kernel, as `wgpu/` does not.
//!
//! - `probe.rs`: whether the machine has the libraries, and why not, before cudarc
//!   loads them (its loader panics where they are missing); opening the devices.
//! - `device.rs`: the device state, errors, and the stamps.
//! - `said.rs`: driver errors in words; `module.rs`: programs through NVRTC (compiled
//!   once a name), and the walk of an operand's layout; `staging.rs`: pinned buffers
//!   (none knows the device).
//! - `memory.rs`: an allocation; `transfer.rs`: allocating, uploads, reads (through
//!   the staging buffers from 1 MiB), copies, fills; `launch.rs`: kernel launches.
//! - `backend.rs`: the `DeviceBackend` implementation.

mod backend;
mod device;
mod launch;
mod memory;
mod module;
mod probe;
mod said;
mod staging;
mod transfer;

pub(crate) use backend::CudaBackend;
pub(crate) use device::Cuda;
pub(crate) use launch::arg;
pub(crate) use memory::CudaMemory;
pub(crate) use module::Walk;
pub(crate) use probe::{not_opened, open_all, unavailable};
