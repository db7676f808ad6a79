//! The runtime: devices, memory and buffers. Knows nothing of arrays or kernels: it
//! moves bytes. Seed: `Rig` (as the `Nx_array` seed calls it).
//!
//! This is the host device's part; claims, timelines and the GPU devices plug in here.

mod buffer;
mod memory;

pub use buffer::Buffer;
pub use memory::{Access, Memory, ALIGN};

/// A device that holds memory. Seed: `Rig.t`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Device {
    /// The host: memory in the host's address space (wasm linear memory under wasm32).
    Host,
}

impl Device {
    /// The host device. Seed: `Rig.host`.
    pub fn host() -> Device {
        Device::Host
    }

    /// The device's name, as `nxrig devices` lists it.
    pub fn name(&self) -> &str {
        match self {
            Device::Host => "host",
        }
    }

    /// Every device nxrig can use, the host first.
    pub fn all() -> Vec<Device> {
        vec![Device::Host]
    }

    /// The device named `name` (as [`Device::name`] gives it).
    ///
    /// # Errors
    /// [`crate::Error::Invalid`] if no device has that name.
    pub fn by_name(name: &str) -> crate::Result<Device> {
        Device::all()
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| crate::Error::Invalid {
                op: "Rig.device",
                reason: format!(
                    "no device named {name:?} (devices: {})",
                    Device::all()
                        .iter()
                        .map(|d| d.name().to_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                operands: String::new(),
            })
    }
}
