// GPU memory shared with other libraries on one GPUDevice (onnxruntime-web,
// TensorFlow.js): Device.gpu's options (and a GPUDevice another library made, taken
// as nxrig's device), and NxArray.fromGpuBuffer (another library's GPUBuffer, copied
// once on the device into an nxrig array). What goes out (device.gpuDevice,
// array.gpuBuffer) is in src/web/interop.rs.

import { described } from './described.js';

const OPTIONS = ['device', 'emulate', 'powerPreference'];


function isGpuDevice(v) {
  return typeof GPUDevice === 'function' ? v instanceof GPUDevice : !!v && typeof v.createBuffer === 'function' && !!v.queue;
}

/** Device.gpu's argument checked: `{ device, emulate, powerPreference }` (a bare
 * boolean is `{ emulate }`), or a TypeError naming what is wrong. */
export function gpuOptions(options) {
  if (options === undefined) return {};
  if (typeof options === 'boolean') return { emulate: options };
  if (isGpuDevice(options)) throw new TypeError('nxrig: a GPUDevice goes in the options: Device.gpu({ device })');
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`nxrig: the options are an object such as { powerPreference: 'high-performance' }, got: ${described(options)}`);
  }
  for (const k of Object.keys(options)) {
    if (!OPTIONS.includes(k)) throw new TypeError(`nxrig: unknown option ${JSON.stringify(k)} (it takes ${OPTIONS.join(', ')})`);
  }
  const { device, emulate, powerPreference } = options;
  if (emulate !== undefined && typeof emulate !== 'boolean') throw new TypeError(`nxrig: options.emulate must be a boolean, got: ${described(emulate)}`);
  if (powerPreference !== undefined && powerPreference !== 'high-performance' && powerPreference !== 'low-power') {
    throw new TypeError(`nxrig: options.powerPreference must be 'high-performance' or 'low-power', got: ${described(powerPreference)}`);
  }
  if (device !== undefined && !isGpuDevice(device)) throw new TypeError(`nxrig: options.device must be a GPUDevice, got: ${described(device)}`);
  if (device !== undefined && powerPreference !== undefined) throw new TypeError('nxrig: options.powerPreference chooses an adapter, and options.device is a device already: give one');
  return { device, emulate, powerPreference };
}

/** A stand-in `GPUAdapter` whose `requestDevice` gives `device` (with its features,
 * limits and adapter info): for a library that makes its device from an adapter
 * (onnxruntime-web's `ort.env.webgpu.adapter`), so that it runs on `device`. */
export function adapterOf(device) {
  return {
    features: device.features,
    limits: device.limits,
    info: device.adapterInfo ?? {},
    isFallbackAdapter: false,
    requestDevice: async () => device,
    requestAdapterInfo: async () => device.adapterInfo ?? {},
  };
}

let adopting = Promise.resolve();

/**
 * `open()` (which opens nxrig's WebGPU device) run while `navigator.gpu` offers one
 * adapter whose device is `device`: wgpu reads `navigator.gpu` when it makes its
 * instance and asks the adapter for a device, so nxrig's device is then the given
 * `GPUDevice`, its limits and features those it was made with. One adoption at a time.
 */
export function adoptDevice(device, open) {
  const run = adopting.then(async () => {
    const nav = globalThis.navigator;
    const real = nav.gpu;
    const adapter = adapterOf(device);
    const gpu = {
      requestAdapter: async () => adapter,
      getPreferredCanvasFormat: () => real.getPreferredCanvasFormat(),
      wgslLanguageFeatures: real.wgslLanguageFeatures,
    };
    Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
    try {
      return await open();
    } finally {
      delete nav.gpu;
    }
  });
  adopting = run.catch(() => {});
  return run;
}

const COPY_SRC = 0x0004;

/**
 * An nxrig array of `dtype` and `shape` holding the bytes of `buffer` from
 * `byteOffset`: a fresh array on `device` (nxrig's WebGPU device, on the GPUDevice the
 * buffer belongs to), filled by one copy on the device (never through the host). The
 * array owns its memory; `buffer` stays the caller's.
 */
export async function fromGpuBuffer(NxArray, buffer, dtype, shape, options, device) {
  if (typeof GPUBuffer === 'function' ? !(buffer instanceof GPUBuffer) : !(buffer && typeof buffer.size === 'number' && typeof buffer.usage === 'number')) {
    throw new TypeError(`nxrig: the first argument must be a GPUBuffer, got: ${described(buffer)}`);
  }
  if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError(`nxrig: the options are an object such as { byteOffset: 0 }, got: ${described(options)}`);
  for (const k of Object.keys(options ?? {})) {
    if (k !== 'byteOffset' && k !== 'device') throw new TypeError(`nxrig: unknown option ${JSON.stringify(k)} (it takes byteOffset, device)`);
  }
  const byteOffset = options?.byteOffset ?? 0;
  if (!Number.isSafeInteger(byteOffset) || byteOffset < 0 || byteOffset % 4 !== 0) {
    throw new TypeError(`nxrig: options.byteOffset must be a non-negative multiple of 4, got: ${described(byteOffset)}`);
  }
  if (!device) throw new Error('nxrig: no WebGPU device of nxrig: give options.device (a Device on the GPUDevice the buffer belongs to)');
  if ((buffer.usage & COPY_SRC) === 0) throw new Error('nxrig: the buffer lacks COPY_SRC usage, so nothing can be copied out of it: make it with GPUBufferUsage.COPY_SRC (onnxruntime-web and TensorFlow.js do)');
  const out = NxArray.zeros(device, dtype, shape);
  try {
    const need = out.byteLength;
    const copied = Math.ceil(need / 4) * 4;
    if (byteOffset + need > buffer.size) {
      throw new Error(`nxrig: the buffer holds ${buffer.size} bytes: too few for ${need} bytes of ${dtype} ${JSON.stringify(shape)} from byte ${byteOffset}`);
    }
    if (byteOffset + copied > buffer.size) {
      throw new Error(`nxrig: copies on the GPU go by 4 bytes, and the buffer ends ${byteOffset + copied - buffer.size} bytes short of the last word of ${need} bytes from byte ${byteOffset}`);
    }
    const dev = device.gpuDevice;
    dev.pushErrorScope('validation');
    const enc = dev.createCommandEncoder();
    for (const [dst, at, n, from] of out.__gpuSegments()) {
      enc.copyBufferToBuffer(buffer, byteOffset + from, dst, at, Math.ceil(n / 4) * 4);
    }
    dev.queue.submit([enc.finish()]);
    const error = await dev.popErrorScope();
    if (error) throw new Error(`nxrig: the GPU refused the copy (the buffer destroyed, or of another GPUDevice than ${device.name}'s): ${error.message}`);
    return out;
  } catch (e) {
    out.dispose();
    throw e;
  }
}
