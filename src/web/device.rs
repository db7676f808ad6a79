//! Devices for JavaScript: the host (wasm linear memory) and WebGPU. Seed: `Rig.t`.

use wasm_bindgen::prelude::*;

use crate::rig::wgpu::Options;
use crate::rig::RigKind;
use crate::Rig;

/// A device arrays live on: `Device.host()`, or a WebGPU device from `await
/// Device.gpu()`.
#[wasm_bindgen]
#[derive(Clone)]
pub struct Device {
    pub(crate) rig: Rig,
}

#[wasm_bindgen]
impl Device {
    /// The host: wasm linear memory; its work runs at once, on the calling thread.
    pub fn host() -> Device {
        Device { rig: Rig::host() }
    }

    /// A new WebGPU device of the browser's first adapter (`navigator.gpu`). With
    /// `emulate` true, every type goes through 32-bit integer arithmetic even where the
    /// adapter has `shader-f16`.
    ///
    /// Errors: a JS `Error` when the browser has no WebGPU or its adapter refuses a
    /// device.
    pub async fn gpu(emulate: Option<bool>) -> Result<Device, JsError> {
        let options = Options {
            emulate: emulate.unwrap_or(false),
            ..Options::default()
        };
        let rig = Rig::gpu_async(&options).await.map_err(super::js_error)?;
        Ok(Device { rig })
    }

    /// The device's name: `"host"`, or the adapter's name and backend.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.rig.name().to_owned()
    }

    /// True for a GPU device.
    #[wasm_bindgen(getter, js_name = isGpu)]
    pub fn is_gpu(&self) -> bool {
        self.rig.kind() == RigKind::Gpu
    }

    /// The native WGSL types nxrig's kernels use on a GPU (`f32`, `f16`, `f64`,
    /// `int64`, and `f32_exact` where float32 sums were probed exact on subnormals),
    /// comma-separated; empty on the host or when every type is emulated.
    #[wasm_bindgen(getter)]
    pub fn native(&self) -> String {
        let Some(g) = self.rig.wgpu() else {
            return String::new();
        };
        let n = g.native();
        [
            (n.f32, "f32"),
            (n.f16, "f16"),
            (n.f64, "f64"),
            (n.int64, "int64"),
            (n.f32_exact, "f32_exact"),
        ]
        .iter()
        .filter(|x| x.0)
        .map(|x| x.1)
        .collect::<Vec<_>>()
        .join(",")
    }

    /// Bytes of freed GPU memory (and read staging) the device keeps for reuse: an
    /// array of a size freed before is made without asking the browser for new memory
    /// (up to 256 MiB; 0 on the host).
    #[wasm_bindgen(getter, js_name = cachedBytes)]
    pub fn cached_bytes(&self) -> f64 {
        self.rig.wgpu().map_or(0.0, |g| g.cached_bytes() as f64)
    }

    /// Gives the freed GPU memory the device keeps for reuse back to the browser.
    #[wasm_bindgen(js_name = emptyCache)]
    pub fn empty_cache(&self) {
        if let Some(g) = self.rig.wgpu() {
            g.empty_cache();
        }
    }

    /// True once the device is lost: every operation on its memory then fails.
    #[wasm_bindgen(getter)]
    pub fn lost(&self) -> bool {
        self.rig.is_lost()
    }

    /// Destroys a GPU device, as a driver reset would (the host: marks it lost): reads
    /// pending on it settle with the device-lost error, later operations fail at once.
    pub fn destroy(&self) {
        self.rig.destroy()
    }
}
