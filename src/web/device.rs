//! Devices for JavaScript: the host (wasm linear memory) and WebGPU.

use wasm_bindgen::prelude::*;

use crate::rig::wgpu::Options;
use crate::Rig;

/// True where `navigator.gpu` exists.
fn has_webgpu() -> bool {
    let get =
        |o: &JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let nav = get(&js_sys::global().into(), "navigator");
    !nav.is_undefined() && !nav.is_null() && {
        let g = get(&nav, "gpu");
        !g.is_undefined() && !g.is_null()
    }
}

/// A device arrays live on: `Device.host()`, or a WebGPU device from `await
/// Device.gpu()`.
///
/// ```js
/// import init, { Device, NxArray } from 'nxrig';
/// await init();
/// const gpu = await Device.gpu(); // rejects at once without WebGPU
/// const x = await NxArray.zeros(Device.host(), 'float16', [1024]).toDevice(gpu);
/// console.log(gpu.name, gpu.memory()); // { bytes, allocations, arrays }
/// ```
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
    /// adapter has `shader-f16`; `power_preference` is `"high-performance"`,
    /// `"low-power"` or absent; `adopted` says the adapter `navigator.gpu` gives now is
    /// the JavaScript entry's stand-in for a `GPUDevice` another library made (the
    /// options object of `Device.gpu` is checked there, in `js/index.js`).
    ///
    /// Errors (the promise rejects at once): a JS `Error` "this environment has no
    /// WebGPU (navigator.gpu)" where `navigator.gpu` is missing (Node, or a browser
    /// without WebGPU); an adapter that refuses a device; a device whose limits are
    /// below what nxrig's kernels need.
    pub async fn gpu(
        emulate: Option<bool>,
        power_preference: Option<String>,
        adopted: Option<bool>,
    ) -> Result<Device, JsError> {
        if !has_webgpu() {
            return Err(super::js_invalid(
                "nxrig: this environment has no WebGPU (navigator.gpu): use Device.host()",
            ));
        }
        let power_preference = match power_preference.as_deref() {
            None => ::wgpu::PowerPreference::None,
            Some("high-performance") => ::wgpu::PowerPreference::HighPerformance,
            Some("low-power") => ::wgpu::PowerPreference::LowPower,
            Some(p) => {
                return Err(super::js_invalid(&format!(
                    "nxrig: powerPreference is 'high-performance' or 'low-power', got: {p:?}"
                )))
            }
        };
        let options = Options {
            emulate: emulate.unwrap_or(false),
            power_preference,
            adopted: adopted.unwrap_or(false),
            ..Options::default()
        };
        let rig = Rig::gpu_async(&options).await.map_err(super::js_error)?;
        super::panic::watch(&rig);
        Ok(Device { rig })
    }

    /// What the device's memory holds now: `{ bytes, allocations, arrays }`, the bytes
    /// and allocations alive (arrays, their views' buffers, files read into memory;
    /// not the freed memory kept for reuse, `cachedBytes`) and the arrays made from
    /// JavaScript and not yet disposed.
    #[wasm_bindgen(
        unchecked_return_type = "{ bytes: number; allocations: number; arrays: number }"
    )]
    pub fn memory(&self) -> js_sys::Object {
        let m = self.rig.memory_use();
        let o = js_sys::Object::new();
        let set = |k: &str, v: u64| {
            let _ = js_sys::Reflect::set(&o, &k.into(), &JsValue::from_f64(v as f64));
        };
        set("bytes", m.bytes);
        set("allocations", m.allocations);
        set("arrays", super::alive::alive(self.rig.id()) as u64);
        o
    }

    /// The device's name: `"host"`, or the adapter's name and backend.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.rig.name().to_owned()
    }

    /// True for a GPU device.
    #[wasm_bindgen(getter, js_name = isGpu)]
    pub fn is_gpu(&self) -> bool {
        self.rig.kind().is_gpu()
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

    /// Bytes of freed memory the device keeps for reuse: an array of a size freed
    /// before is made without asking for new memory. On a GPU, its buffers (and read
    /// staging, up to 256 MiB); on the host, freed allocations of 1 MiB and more (up to
    /// 256 MiB, shared by the host devices).
    #[wasm_bindgen(getter, js_name = cachedBytes)]
    pub fn cached_bytes(&self) -> f64 {
        self.rig.cached_bytes() as f64
    }

    /// Gives the freed memory the device keeps for reuse back: a GPU's to the browser,
    /// the host's to the wasm allocator (wasm memory itself never shrinks).
    #[wasm_bindgen(js_name = emptyCache)]
    pub fn empty_cache(&self) {
        self.rig.empty_cache();
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

#[wasm_bindgen]
impl Device {
    /// Panics (a Rust bug's way out), for the end-to-end test of the hook and of the JS
    /// entry's translation: not in the package's types; never call it otherwise (the
    /// instance is unusable after a panic).
    #[doc(hidden)]
    #[wasm_bindgen(js_name = panicForTests)]
    pub fn panic_for_tests() {
        panic!("a panic for the tests");
    }
}
