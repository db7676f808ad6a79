//! Devices through `wgpu`: WebGPU in the browser; Vulkan, Metal and DX12 natively.
//!
//! - `adapters` (native): what wgpu finds and what each offers (the features nxrig's WGSL can
//!   use natively, the limits that decide how arrays are bound);
//! - [`Gpu`]: a GPU [`crate::rig::Rig`]'s device and queue, stamps from queue
//!   submissions, device loss;
//! - memory: wgpu buffers padded to the 4-byte copy alignment, written through the
//!   queue, read through mapped staging buffers (`io`);
//! - kernels: one way through for every kernel described as data (`crate::wgsl::Kernel`,
//!   `job`: pieces that fit the device, `plan`; the forms chosen from the layouts; a
//!   first pass and the indirect step, `indirect`; each dispatch bound, sized and
//!   encoded, `dispatch`), raw kernels (`raw`), and the strided blit that stands in
//!   for the copy engine where a range is not 4-byte aligned (`blit`), itself such a
//!   kernel.

mod backend;
mod blit;
mod dispatch;
mod gpu;
mod indirect;
mod io;
mod job;
mod memory;
mod open;
mod plan;
mod pool;
mod probe;
mod raw;

pub use crate::wgsl::Native;
pub(crate) use gpu::instance;
pub(crate) use gpu::name_of;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use gpu::primary_adapters;
pub use gpu::{Gpu, Options};
pub(crate) use io::{Out, Readback};
pub(crate) use job::form_key;
pub use memory::GpuMemory;
pub(crate) use open::open;
pub(crate) use plan::Operand;

/// What an adapter is and offers, as `nxrig devices` lists it.
///
/// ```
/// for a in nxrig::rig::wgpu::adapters() {
///     println!("{}: f16 {}, max buffer {} bytes", a.describe(), a.shader_f16, a.max_buffer_size);
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterInfo {
    /// The adapter's name, as its driver gives it.
    pub name: String,
    /// The API wgpu drives it through: `"Vulkan"`, `"Metal"`, `"Dx12"`, `"BrowserWebGpu"`, ...
    pub backend: String,
    /// Discrete, integrated, virtual, CPU (a software rasteriser such as lavapipe), ...
    pub device_type: String,
    /// The adapter has native `f16` in shaders (`SHADER_F16`).
    pub shader_f16: bool,
    /// The adapter has 64-bit integers in shaders (`SHADER_INT64`).
    pub shader_int64: bool,
    /// The adapter has `f64` in shaders (`SHADER_F64`).
    pub shader_f64: bool,
    /// The largest buffer, in bytes (`maxBufferSize`).
    pub max_buffer_size: u64,
    /// The largest storage binding, in bytes (`maxStorageBufferBindingSize`).
    pub max_storage_buffer_binding_size: u64,
    /// The most workgroups a dispatch has on one axis.
    pub max_compute_workgroups_per_dimension: u32,
}

impl AdapterInfo {
    /// What the adapter is and offers, in one line, as `nxrig devices` prints it.
    pub fn describe(&self) -> String {
        let yes = |b: bool| if b { "yes" } else { "no" };
        format!(
            "{}, shader-f16 {}, shader-int64 {}, shader-f64 {}, max buffer {} bytes, max storage binding {} bytes",
            self.device_type,
            yes(self.shader_f16),
            yes(self.shader_int64),
            yes(self.shader_f64),
            self.max_buffer_size,
            self.max_storage_buffer_binding_size
        )
    }

    pub(crate) fn of(a: &::wgpu::Adapter) -> AdapterInfo {
        let (info, f, l) = (a.get_info(), a.features(), a.limits());
        AdapterInfo {
            name: info.name,
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            shader_f16: f.contains(::wgpu::Features::SHADER_F16),
            shader_int64: f.contains(::wgpu::Features::SHADER_INT64),
            shader_f64: f.contains(::wgpu::Features::SHADER_F64),
            max_buffer_size: l.max_buffer_size,
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
        }
    }
}

/// Every adapter wgpu finds on this machine (natively: every backend compiled in).
/// Blocking; native only (the browser's adapter is asked for with `async` code).
#[cfg(not(target_arch = "wasm32"))]
pub fn adapters() -> Vec<AdapterInfo> {
    let instance = ::wgpu::Instance::new(::wgpu::InstanceDescriptor::new_without_display_handle());
    let found = pollster::block_on(instance.enumerate_adapters(::wgpu::Backends::all()));
    found.iter().map(AdapterInfo::of).collect()
}
