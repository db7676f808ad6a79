// nxrig's GPU memory shared with onnxruntime-web and TensorFlow.js in headless
// Chromium (WebGPU on SwiftShader), on one GPUDevice, never through the host: an ORT
// WebGPU session (benches/web/models/add.onnx: y = x + z) fed `ort.Tensor.fromGpuBuffer`
// of nxrig arrays' `gpuBuffer`, its output kept on the GPU and taken back with
// `NxArray.fromGpuBuffer`, cast to bfloat16 in nxrig and read: values against a
// JavaScript reference, and no `mapAsync` of any buffer before the final read. Through
// both of ORT's entries: 'onnxruntime-web' (its JSEP backend) once with ORT on nxrig's
// device (`ort.env.webgpu.adapter = gpu.gpuAdapter`) and once with nxrig on ORT's
// (`Device.gpu({ device: await ort.env.webgpu.device })`); 'onnxruntime-web/webgpu'
// (its native WebGPU execution provider, which takes a GPUDevice for its sessions but
// then cannot read GPU buffers into them) with nxrig on ORT's. Then TF.js's WebGPU
// backend on nxrig's device (`tf.tensor({ buffer })`, `tf.add`, `dataToGPU`). And
// Device.gpu's options checked.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browser, serve } from './e2e.mjs';
import { step } from './e2e-step.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');


/** bfloat16 of each float32 of `xs`, rounded to nearest even, as float32 values. */
function bf16(xs) {
  const f = new Float32Array(xs);
  const u = new Uint32Array(f.buffer);
  for (let i = 0; i < u.length; i++) {
    const x = u[i];
    u[i] = (((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) << 16) >>> 0;
  }
  return Array.from(f);
}

// The page's part of one run: x, z made in nxrig on `gpu`, added by ORT (`session`),
// the sum taken back and cast to bfloat16 in nxrig, then read.
async function throughOrt(page, mode) {
  return page.evaluate(async (mode) => {
    const { Device, NxArray } = window.nx;
    const { ort } = window;
    let gpu;
    if (mode === 'ort-on-nxrig') {
      gpu = await Device.gpu();
      ort.env.webgpu.adapter = gpu.gpuAdapter; // ORT makes its device from an adapter
    }
    const session = await ort.InferenceSession.create('/benches/web/models/add.onnx', {
      executionProviders: ['webgpu'],
      preferredOutputLocation: 'gpu-buffer',
    });
    if (mode === 'nxrig-on-ort') gpu = await Device.gpu({ device: await ort.env.webgpu.device });
    const n = 32 * 32;
    const xs = Float32Array.from({ length: n }, (_, i) => i * 0.37 - 100);
    const zs = Float32Array.from({ length: n }, (_, i) => (i % 7) * 0.001);
    const x = await NxArray.fromTypedArray(xs, 'float32', [32, 32]).toDevice(gpu);
    const z = await NxArray.fromTypedArray(zs, 'float32', [32, 32]).toDevice(gpu);
    const before = window.mapsSoFar();
    const feeds = {
      x: ort.Tensor.fromGpuBuffer(x.gpuBuffer, { dataType: 'float32', dims: [32, 32] }),
      z: ort.Tensor.fromGpuBuffer(z.gpuBuffer, { dataType: 'float32', dims: [32, 32] }),
    };
    const { y } = await session.run(feeds);
    const sum = await NxArray.fromGpuBuffer(y.gpuBuffer, 'float32', [32, 32], { device: gpu });
    const b = sum.cast('bfloat16');
    const maps = window.mapsSoFar() - before;
    const got = Array.from(await b.toTypedArray({ as: 'float32' }));
    const same = (gpu.gpuDevice === (await ort.env.webgpu.device));
    return { maps, got, xs: Array.from(xs), zs: Array.from(zs), same, offsets: [x.gpuByteOffset, z.gpuByteOffset], name: gpu.name, ort: ort.env.versions.web };
  }, mode);
}

async function throughTf(page) {
  return page.evaluate(async () => {
    const { Device, NxArray } = window.nx;
    const gpu = await Device.gpu();
    // TF.js's WebGPU kernels are registered for the backend named 'webgpu'.
    tf.removeBackend('webgpu');
    tf.registerBackend('webgpu', () => new tf.WebGPUBackend(gpu.gpuDevice));
    await tf.setBackend('webgpu');
    const n = 64 * 64; // TF.js runs small tensors on the CPU
    const xs = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 7);
    const zs = Float32Array.from({ length: n }, (_, i) => (i % 11) * 0.125);
    const x = await NxArray.fromTypedArray(xs, 'float32', [64, 64]).toDevice(gpu);
    const z = await NxArray.fromTypedArray(zs, 'float32', [64, 64]).toDevice(gpu);
    const before = window.mapsSoFar();
    const tx = tf.tensor({ buffer: x.gpuBuffer }, [64, 64], 'float32');
    const tz = tf.tensor({ buffer: z.gpuBuffer }, [64, 64], 'float32');
    const s = tf.add(tx, tz);
    const { buffer } = s.dataToGPU();
    const sum = await NxArray.fromGpuBuffer(buffer, 'float32', [64, 64], { device: gpu });
    const maps = window.mapsSoFar() - before;
    const got = Array.from(await sum.toTypedArray());
    return { maps, got, xs: Array.from(xs), zs: Array.from(zs) };
  });
}

export async function interop() {
  const [url, server] = await serve(root);
  const b = await browser();
  try {
    const open = async (entry = 'default') => {
      const page = await b.newPage();
      page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
      await page.goto(`${url}/www/interop.html?ort=${entry}`);
      await page.waitForFunction(() => window.ready === true, null, { timeout: 60000 });
      return page;
    };
    step('Device.gpu checks its options');
    let page = await open();
    const bad = await page.evaluate(async () => {
      const { Device } = window.nx;
      const out = [];
      for (const o of [{ foo: 1 }, { emulate: 'yes' }, 'yes', { powerPreference: 'fast' }, { device: 5 }, null]) {
        out.push(await Device.gpu(o).then(() => 'accepted', (e) => e.message));
      }
      const host = Device.host();
      let noDevice;
      try {
        noDevice = host.gpuDevice;
      } catch (e) {
        noDevice = e.message;
      }
      const g = await Device.gpu({ emulate: false, powerPreference: 'high-performance' });
      const a = window.nx.NxArray.zeros(g, 'float32', [4, 4]);
      let strided;
      try {
        strided = a.permute([1, 0]).gpuBuffer;
      } catch (e) {
        strided = e.message;
      }
      const onHost = (() => {
        try {
          return window.nx.NxArray.zeros(host, 'float32', [4]).gpuBuffer;
        } catch (e) {
          return e.message;
        }
      })();
      const tooSmall = await window.nx.NxArray.fromGpuBuffer(a.gpuBuffer, 'float32', [5, 4], { device: g }).then(() => 'accepted', (e) => e.message);
      return { out, noDevice, strided, onHost, tooSmall, bool: typeof (await Device.gpu(true)).gpuDevice };
    });
    console.log(bad);
    assert.deepEqual(bad.out, [
      'Device.gpu: unknown option "foo" (it takes device, emulate, powerPreference)',
      'Device.gpu: options.emulate must be a boolean, got: "yes"',
      'Device.gpu: the options are an object such as { powerPreference: \'high-performance\' }, got: "yes"',
      'Device.gpu: options.powerPreference must be \'high-performance\' or \'low-power\', got: "fast"',
      'Device.gpu: options.device must be a GPUDevice, got: 5',
      'Device.gpu: the options are an object such as { powerPreference: \'high-performance\' }, got: null',
    ]);
    assert.match(bad.noDevice, /^Device\.gpuDevice: the host has no GPUDevice/);
    assert.match(bad.strided, /^NxArray\.gpuBuffer: the array's elements are not one contiguous range of bytes: copy\(\) it first/);
    assert.match(bad.onHost, /^NxArray\.gpuBuffer: the array is on host, not on WebGPU/);
    assert.match(bad.tooSmall, /^NxArray\.fromGpuBuffer: the buffer holds 64 bytes: too few for 80 bytes/);
    assert.equal(bad.bool, 'object', 'a bare boolean still opens a device');
    await page.close();

    for (const [entry, mode] of [['default', 'ort-on-nxrig'], ['default', 'nxrig-on-ort'], ['webgpu', 'nxrig-on-ort']]) {
      const name = entry === 'default' ? 'onnxruntime-web' : 'onnxruntime-web/webgpu';
      step(`${name}'s Add on one GPUDevice: ${mode}`);
      page = await open(entry);
      const r = await throughOrt(page, mode);
      const want = bf16(r.xs.map((x, i) => Math.fround(x + r.zs[i])));
      assert.equal(r.same, true, 'one GPUDevice');
      assert.deepEqual(r.offsets, [0, 0]);
      assert.equal(r.maps, 0, 'no buffer read back before the last step');
      assert.deepEqual(r.got, want);
      console.log(`${name} ${r.ort}, ${mode}: ${r.got.length} values equal the reference, ${r.maps} mapAsync before the read, on ${r.name}`);
      await page.close();
    }

    step("TensorFlow.js's WebGPU backend on nxrig's device");
    page = await open();
    const t = await throughTf(page);
    assert.equal(t.maps, 0, 'no buffer read back before the last step');
    assert.deepEqual(t.got, t.xs.map((x, i) => Math.fround(x + t.zs[i])));
    console.log(`TF.js: ${t.got.length} sums equal, ${t.maps} mapAsync before the read`);
    await page.close();
  } finally {
    await b.close();
    server.kill();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await interop();
  console.log('interop: all passed');
}
