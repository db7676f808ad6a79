//! GPU memory that crosses to other libraries in the browser: a device's `GPUDevice`
//! (for onnxruntime-web's and TensorFlow.js's WebGPU backends) and an array's
//! `GPUBuffer`, handed out without a copy. What comes in (another library's
//! `GPUDevice`, its `GPUBuffer`s) is taken in `js/index.js`: `Device.gpu({ device })`
//! and `NxArray.fromGpuBuffer`, over the segments this file gives.

use wasm_bindgen::prelude::*;

use super::array::NxArray;
use super::device::Device;
use super::{js_error, js_invalid};
use crate::AnyArray;

#[wasm_bindgen]
impl Device {
    /// The `GPUDevice` of a WebGPU device, shared: give it to another library (`new
    /// tf.WebGPUBackend(gpu.gpuDevice)` in TensorFlow.js; onnxruntime-web makes its
    /// device from an adapter: `ort.env.webgpu.adapter = gpu.gpuAdapter`) and the two
    /// exchange `GPUBuffer`s.
    ///
    /// Errors: the host has none.
    #[wasm_bindgen(getter, js_name = gpuDevice, unchecked_return_type = "GPUDevice")]
    pub fn gpu_device(&self) -> Result<JsValue, JsError> {
        let g = self
            .rig
            .wgpu()
            .ok_or_else(|| js_invalid("nxrig: the host has no GPUDevice: use Device.gpu()"))?;
        g.device
            .as_webgpu()
            .map(|d| d.clone().into())
            .ok_or_else(|| js_invalid("nxrig: this GPU device has no WebGPU handle"))
    }
}

/// The bytes of `a` in its memory: where they start and how many, for a
/// C-contiguous array of whole bytes (a sub-byte array starting at a byte).
fn byte_range(a: &AnyArray) -> Result<(usize, usize), JsError> {
    let (start, len) = a.own_byte_range().ok_or_else(|| {
        js_invalid(
            "nxrig: the array's elements are not one contiguous range of bytes: copy() it first",
        )
    })?;
    Ok((a.buffer().start() + start, len))
}

#[wasm_bindgen]
impl NxArray {
    /// The `GPUBuffer` holding the array's elements, for another library on the same
    /// `GPUDevice` (`ort.Tensor.fromGpuBuffer(a.gpuBuffer, ...)`, `tf.tensor({ buffer:
    /// a.gpuBuffer }, ...)`): its bytes from `gpuByteOffset`, `byteLength` of them.
    /// No copy: the memory is exported, outside nxrig's claims for good (no donation
    /// writes it again) and never reused for another array. nxrig never destroys it:
    /// disposing the array lets nxrig's handle go, and the buffer is freed once every
    /// holder lets go (or when its user calls `destroy()`, after nxrig's last use).
    ///
    /// Errors: an array not on WebGPU; elements not one contiguous range of one
    /// buffer (a view with strides, or an array past one buffer's size): `copy()` it
    /// first.
    #[wasm_bindgen(getter, js_name = gpuBuffer, unchecked_return_type = "GPUBuffer")]
    pub fn gpu_buffer(&self) -> Result<JsValue, JsError> {
        let a = self.get()?;
        let (c, _) = one_chunk(a)?;
        a.buffer().export().map_err(js_error)?;
        let (m, _) = a.buffer().wgpu_memory().expect("checked: GPU memory");
        handle(&m.buffers()[c])
    }

    /// The byte of `gpuBuffer` where the elements start.
    ///
    /// Errors: as `gpuBuffer`.
    #[wasm_bindgen(getter, js_name = gpuByteOffset)]
    pub fn gpu_byte_offset(&self) -> Result<usize, JsError> {
        Ok(one_chunk(self.get()?)?.1)
    }

    /// Where a copy into the array's memory goes, for `NxArray.fromGpuBuffer`: one
    /// `[GPUBuffer, byte in it, bytes, byte of the elements]` a buffer its bytes span.
    /// Not part of the API.
    #[doc(hidden)]
    #[wasm_bindgen(js_name = __gpuSegments)]
    pub fn gpu_segments(&self) -> Result<js_sys::Array, JsError> {
        let a = self.get()?;
        let (start, len) = byte_range(a)?;
        let (m, _) = a
            .buffer()
            .wgpu_memory()
            .ok_or_else(|| js_invalid("nxrig: the array is not on WebGPU"))?;
        let out = js_sys::Array::new();
        for (c, off, n, done) in m.segments(start, len) {
            let seg = js_sys::Array::new();
            seg.push(&handle(&m.buffers()[c])?);
            seg.push(&(off as f64).into());
            seg.push(&(n as f64).into());
            seg.push(&(done as f64).into());
            out.push(&seg);
        }
        Ok(out)
    }
}

/// The chunk of a GPU array's memory that holds all its bytes, and where they start
/// in it.
fn one_chunk(a: &AnyArray) -> Result<(usize, usize), JsError> {
    let (m, _) = a.buffer().wgpu_memory().ok_or_else(|| {
        js_invalid(&format!(
            "nxrig: the array is on {}, not on WebGPU: toDevice(gpu) first",
            a.rig().name()
        ))
    })?;
    let (start, len) = byte_range(a)?;
    let (c, off) = (start / m.chunk(), start % m.chunk());
    if len > 0 && (start + len - 1) / m.chunk() != c {
        return Err(js_invalid(&format!(
            "nxrig: the array's {len} bytes span more than one GPUBuffer (buffers of {} bytes on this device): copy() a slice of it",
            m.chunk()
        )));
    }
    Ok((c, off))
}

/// The JavaScript handle of a wgpu buffer.
fn handle(b: &::wgpu::Buffer) -> Result<JsValue, JsError> {
    b.as_webgpu()
        .map(|h| h.clone().into())
        .ok_or_else(|| js_invalid("nxrig: this GPU buffer has no WebGPU handle"))
}
