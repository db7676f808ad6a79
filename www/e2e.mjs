// The end-to-end test of nxrig in the browser: headless Chromium (playwright-core
// driving /usr/bin/chromium with WebGPU's flags, WebGPU on SwiftShader) opens the
// demo page served by http-server on localhost, and
//   1. a TypedArray view with a byte offset, the 4-byte padding of WebGPU never showing,
//      and a read pending at a device loss, through the JavaScript API;
//   2. converts the real MiniLM checkpoint on WebGPU into bfloat16 and float8_e4m3fn, and
//      on the CPU (wasm) into float16, and checks each download equals `nxrig
//      convert`'s file byte for byte;
//   3. saves a screenshot (target/e2e/demo.png);
//   4. checks the JS API's conventions (www/e2e-api.mjs: shapes validated, TypedArray
//      kinds, reads, dispose, text; 600 MiB arrays on the host and on WebGPU);
//   5. uses the `npm pack` tarball as a user would (www/e2e-package.mjs): the README's
//      TypeScript under tsc --strict, a Vite project, a Node script;
//   6. checkpoints of any size (www/e2e-checkpoint.mjs): a 5 GiB file and a 4 GiB
//      sharded checkpoint made at test time, from Files and URLs, on the host and
//      WebGPU, into streams and OPFS, each byte nxrig convert's; an abort, a server
//      without Range, the demo's folder input; and in Node from paths into paths;
//   7. block-scaled model folders (www/e2e-quant.mjs): FP8 blocks, MXFP4, NVFP4, GPTQ,
//      AWQ, compressed-tensors dequantized from Files, URLs and OPFS on the host and
//      WebGPU, and in Node from paths, each file nxrig convert's; the refusals;
//   8. GPU memory shared with onnxruntime-web and TensorFlow.js on one GPUDevice
//      (www/e2e-interop.mjs): gpuBuffer out, fromGpuBuffer in, either library's
//      device, no read back between; Device.gpu's options checked.
// Needs `npm run build`, the release `nxrig` binary and the checkpoint (scripts/test.sh
// does all three). Env: NXRIG_CHECKPOINT, NXRIG_BIN.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { big, conventions, panics } from './e2e-api.mjs';
import { checkpoints } from './e2e-checkpoint.mjs';
import { interop } from './e2e-interop.mjs';
import { kernels } from './e2e-kernels.mjs';
import { operations } from './e2e-ops.mjs';
import { quantFolders } from './e2e-quant.mjs';
import { rawKernels } from './e2e-raw.mjs';
import { tarball } from './e2e-package.mjs';
import { step } from './e2e-step.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const checkpoint = process.env.NXRIG_CHECKPOINT ?? join(root, 'data/minilm/model.safetensors');
const bin = process.env.NXRIG_BIN ?? join(root, 'target/release/nxrig');
const out = join(root, 'target', 'e2e');
mkdirSync(out, { recursive: true });

export const FLAGS = [
  '--no-sandbox', '--disable-gpu-sandbox', '--enable-unsafe-webgpu',
  '--enable-features=Vulkan,WebGPU', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
];

const sha = (b) => createHash('sha256').update(b).digest('hex');

/** Serves `dir` with http-server on a free port; resolves to [url, process]. */
export async function serve(dir) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const p = spawn(join(root, 'node_modules/.bin/http-server'), [dir, '-a', '127.0.0.1', '-p', String(port), '-c-1', '-s'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      return [url, p];
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  p.kill();
  throw new Error(`http-server did not start on ${url}`);
}

export async function browser() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
}


async function cases(page) {
  step('a subarray, odd byte counts on WebGPU, a read pending at a loss, through the JavaScript API');
  const r = await page.evaluate(async () => {
    const { NxArray, Device } = window.nxrig;
    const out = {};
    // A TypedArray view with a byte offset.
    const f = new Float32Array([1, 2, 3, 4, 10, 20, 30, 40]);
    out.k10 = Array.from(await NxArray.fromTypedArray(f.subarray(4, 8), 'float32').toTypedArray());
    // A view of nxrig's own wasm memory is shared, not copied.
    const z = NxArray.zeros(Device.host(), 'float32', [4]);
    const v = z.view();
    const shared = NxArray.fromTypedArray(v.subarray(4, 12), 'float32');
    new Float32Array(v.buffer, v.byteOffset, 4).set([5, 6, 7, 8]);
    out.shared = Array.from(await shared.toTypedArray());
    // 25 uint8 and 5 int4 (3 bytes) up to WebGPU and back.
    const gpu = await Device.gpu();
    out.gpu = gpu.name;
    const u8 = Uint8Array.from({ length: 25 }, (_, i) => 200 + i);
    const a = await NxArray.fromTypedArray(u8, 'uint8', [5, 5]).toDevice(gpu);
    out.k11u8 = Array.from(await a.toTypedArray());
    const q = await NxArray.fromTypedArray(new Uint8Array([0x98, 0xf7, 0x01]), 'int4', [5]).toDevice(gpu);
    out.k11i4 = [q.byteLength, ...Array.from(await q.toTypedArray())];
    // Views of a WebGPU array brought back both ways: toDevice(host) then
    // toTypedArray, and toTypedArray straight from the GPU view.
    const g6 = await NxArray.fromTypedArray(new Int32Array([0, 1, 2, 3, 4, 5]), 'int32', [2, 3]).toDevice(gpu);
    const row = await NxArray.fromTypedArray(new Int32Array([0, 1, 2, 3, 4, 5]), 'int32').toDevice(gpu);
    const zoo = {
      flip: g6.flip([1]),
      permute: g6.permute([1, 0]),
      expand: g6.reshape([1, 2, 3]).expand([2, 2, 3]),
      stepped: row.slice([[null, null, 2]]).reshape([1, 3]).expand([2, 3]),
    };
    out.views = {};
    for (const [name, v] of Object.entries(zoo)) {
      const viaHost = Array.from(await (await v.toDevice(Device.host())).toTypedArray());
      out.views[name] = [viaHost, Array.from(await v.toTypedArray())];
    }
    // A read pending when the device is lost.
    const dev = await Device.gpu();
    const big = await NxArray.fromTypedArray(new Int32Array(1 << 16).fill(7), 'int32').toDevice(dev);
    const pending = big.toTypedArray();
    dev.destroy();
    try { await pending; out.k13 = 'settled with values'; } catch (e) { out.k13 = e.message; }
    try { big.copy(); out.k13later = 'worked'; } catch (e) { out.k13later = e.message; }
    // Freed GPU memory is kept for reuse, and given back on request.
    const g2 = await Device.gpu();
    const kept = await NxArray.fromTypedArray(new Float32Array(1024), 'float32').toDevice(g2);
    const before = g2.cachedBytes;
    kept.free();
    out.cache = [g2.cachedBytes - before];
    g2.emptyCache();
    out.cache.push(g2.cachedBytes);
    // Errors are JS Errors with nxrig's message.
    try { NxArray.fromTypedArray(new Uint8Array(3), 'float32', [1]); } catch (e) { out.error = [e instanceof Error, e.message]; }
    return out;
  });
  console.log(`WebGPU device: ${r.gpu}`);
  assert.deepEqual(r.k10, [10, 20, 30, 40]);
  assert.deepEqual(r.shared, [6, 7], "a view of wasm memory is shared");
  assert.deepEqual(r.k11u8, Array.from({ length: 25 }, (_, i) => 200 + i));
  assert.deepEqual(r.k11i4, [3, -8, -7, 7, -1, 1]);
  const views = {
    flip: [2, 1, 0, 5, 4, 3],
    permute: [0, 3, 1, 4, 2, 5],
    expand: [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5],
    stepped: [0, 2, 4, 0, 2, 4],
  };
  for (const [name, want] of Object.entries(views)) {
    assert.deepEqual(r.views[name], [want, want], `${name} on WebGPU, via the host and straight`);
  }
  assert.match(r.k13, /was lost/);
  assert.match(r.k13later, /was lost/);
  assert.deepEqual(r.cache, [4096, 0], 'freed GPU memory kept, then given back');
  assert.equal(r.error[0], true);
  assert.match(r.error[1], /3 bytes do not hold a float32 array/);
}

async function messages(page) {
  step('a file the page cannot read');
  const bad = join(out, 'truncated.safetensors');
  writeFileSync(bad, Buffer.from([8, 0, 0, 0, 0, 0, 0, 0, 0x7b]));
  await page.setInputFiles('#file', bad);
  await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
  const text = await page.textContent('#status');
  assert.match(text, /^Cannot read truncated\.safetensors: /);
  assert.equal(await page.isDisabled('#convert'), true);
  console.log(`shown: ${text}`);
}

async function convertCheckpoint(page) {
  step(`the checkpoint (${checkpoint}) on WebGPU`);
  await page.setInputFiles('#file', checkpoint);
  await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 100, null, { timeout: 120000 });
  // WebGPU, then the CPU (wasm: the host device, whose arrays and their reads are
  // one object, which the page once freed twice).
  for (const [dtype, device] of [['bfloat16', 'webgpu'], ['float8_e4m3fn', 'webgpu'], ['float16', 'wasm']]) {
    const want = join(out, `model.${dtype}.safetensors`);
    execFileSync(bin, ['convert', checkpoint, want, '--to', dtype], { stdio: 'inherit' });
    await page.selectOption('#dtype', dtype);
    await page.selectOption('#device', device);
    await page.evaluate(() => { window.nxrigDone = null; });
    const t0 = Date.now();
    await page.click('#convert');
    await page.waitForFunction(() => window.nxrigDone, null, { timeout: 600000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    const got = readFileSync(await download.path());
    const expected = readFileSync(want);
    console.log(`${dtype} on ${device}: ${got.length} bytes in ${(Date.now() - t0) / 1000} s; ${await page.textContent('#summary')}`);
    assert.equal(got.length, expected.length, `${dtype}: the download's length differs`);
    assert.ok(got.equals(expected), `${dtype}: the download differs from nxrig convert's file`);
    console.log(`${dtype}: sha256 ${sha(got)}, the same as nxrig convert's`);
  }
  await page.screenshot({ path: join(out, 'demo.png'), fullPage: true });
  console.log(`screenshot: ${join(out, 'demo.png')}`);
}

/** A file of the field's newer dtypes (tests/checkpoint/field_dtypes.py: the "fnuz"
 * float8s, float8_e8m0fnu scales, float4_e2m1fn and float6 weights beside I8 and F32), listed by
 * the page with their dtypes and converted to
 * bfloat16 on WebGPU and on the CPU: the downloads equal `nxrig convert`'s file, which
 * tests/checkpoint/check.py holds to ml_dtypes' casts in the same run. */
async function fieldDtypes(page) {
  step('a file of the field\'s newer dtypes, listed and converted on WebGPU and the CPU');
  const file = join(out, 'field.safetensors');
  execFileSync('python3', [join(root, 'tests/checkpoint/field_dtypes.py'), file], { stdio: 'inherit' });
  const want = join(out, 'field.bfloat16.safetensors');
  execFileSync(bin, ['convert', file, want, '--to', 'bfloat16'], { stdio: 'inherit' });
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length === 8, null, { timeout: 60000 });
  const listed = await page.textContent('#tensors');
  for (const d of ['float8_e4m3fnuz', 'float8_e5m2fnuz', 'float8_e8m0fnu', 'float4_e2m1fn', 'float6_e2m3fn', 'float6_e3m2fn', 'int8', 'float32']) {
    assert.ok(listed.includes(d), `the page lists a ${d} tensor: ${listed}`);
  }
  for (const device of ['webgpu', 'wasm']) {
    await page.selectOption('#dtype', 'bfloat16');
    await page.selectOption('#device', device);
    await page.evaluate(() => { window.nxrigDone = null; });
    await page.click('#convert');
    await page.waitForFunction(() => window.nxrigDone, null, { timeout: 120000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    const got = readFileSync(await download.path());
    assert.ok(got.equals(readFileSync(want)), `field dtypes on ${device}: the download differs from nxrig convert's file`);
    console.log(`field dtypes on ${device}: ${got.length} bytes, the same as nxrig convert's`);
  }
}

/** The page's inputs are disabled until nxrig is ready (a click while the
 * WebAssembly loads once did nothing) and a file dropped meanwhile is refused with a
 * word; then the sample loads: the `.wasm` held back 1.5 s so that the loading is
 * seen. */
async function inputsWaitForReady(b, url) {
  step('the inputs wait for nxrig, then the sample loads');
  const page = await b.newPage();
  try {
    await page.route('**/*.wasm', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await page.goto(`${url}/index.html`);
    assert.equal(await page.evaluate(() => window.nxrigReady === true), false, 'still loading');
    assert.equal(await page.isDisabled('#sample'), true, 'the sample button while loading');
    assert.equal(await page.isDisabled('#file'), true, 'the file input while loading');
    const dropped = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(8)], 'early.safetensors'));
      return dt;
    });
    await page.dispatchEvent('#drop', 'drop', { dataTransfer: dropped });
    assert.match(await page.textContent('#status'), /still loading/, 'a file dropped while loading');
    await page.waitForFunction(() => window.nxrigReady === true, null, { timeout: 60000 });
    assert.equal(await page.isDisabled('#sample'), false);
    assert.equal(await page.isDisabled('#file'), false);
    await page.click('#sample');
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length > 0, null, { timeout: 60000 });
    assert.equal(await page.isDisabled('#convert'), false, 'the sample is ready to convert');
  } finally {
    await page.close();
  }
}

async function main() {
  const [url, server] = await serve(join(root, 'www'));
  const b = await browser();
  try {
    const page = await b.newPage({ acceptDownloads: true, viewport: { width: 1100, height: 900 } });
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(`${url}/index.html`);
    await page.waitForFunction(() => window.nxrigReady === true, null, { timeout: 60000 });
    await inputsWaitForReady(b, url);
    await cases(page);
    await conventions(page);
    await kernels(page);
    await rawKernels(page);
    await operations(page);
    await messages(page);
    await convertCheckpoint(page);
    await fieldDtypes(page);
    await quantFolders(b, { root, bin });
    await big(b, url);
    await panics(b, url);
    await tarball(b, { root, out, serve });
    await interop();
    await checkpoints({ flags: FLAGS, root, bin });
    step('e2e: all passed');
  } finally {
    await b.close();
    server.kill();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
