// The npm package as a user has it: the `npm pack` tarball installed
// offline into a fresh project, then
//   1. the README's TypeScript snippets checked with `tsc --strict` (the DOM's lib, and
//      again with ESNext's, where `Symbol.dispose` is the language's own);
//   2. a Vite project (the TypeScript template's `tsc && vite build`) built over it and
//      its page run in headless Chromium: the `.wasm` found with no configuration, a
//      cast on WebGPU and on the host;
//   3. a Node script importing 'nxrig': `await init()` with no argument, host arrays,
//      a `.safetensors` file, `Device.gpu()` rejecting at once.
// TypeScript and Vite are the repository's dev dependencies, run over the project.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function step(s) {
  console.log(`--- ${s}`);
}

/** The ```ts blocks of the README and of docs/javascript.md, in order. */
function readmeSnippets(root) {
  const text = ['README.md', 'docs/javascript.md'].map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function tsconfig(lib, include) {
  return JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'ES2022', module: 'ESNext',
      moduleResolution: 'bundler', lib, skipLibCheck: false, isolatedModules: true,
    },
    include,
  }, null, 2);
}

export async function tarball(browser, { root, out, serve }) {
  step('the npm tarball in a fresh project');
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: root }).toString().trim().split('\n').pop();
  const proj = mkdtempSync(join(tmpdir(), 'nxrig-user-'));
  writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'user', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(out, name)], { cwd: proj, stdio: 'inherit' });
  const bin = (p) => join(root, 'node_modules', '.bin', p);

  step("the README's TypeScript snippets under tsc --strict");
  const snippets = readmeSnippets(root);
  assert.ok(snippets.length >= 3, `the README has its TypeScript snippets (found ${snippets.length})`);
  mkdirSync(join(proj, 'snippets'));
  snippets.forEach((s, i) => writeFileSync(join(proj, 'snippets', `s${i}.ts`), `${s}\nexport {};\n`));
  // What the types must refuse (tsc fails where an expected error does not come).
  writeFileSync(join(proj, 'snippets', 'refused.ts'), `import { Device, NxArray, add, elementwise } from 'nxrig';
const host = Device.host();
// @ts-expect-error a Float64Array is not float32's kind
NxArray.fromTypedArray(new Float64Array(2), 'float32');
// @ts-expect-error 'f32' is not a dtype's name
NxArray.zeros(host, 'f32', [1]);
// @ts-expect-error toTypedArray of bfloat16 gives its bits, a Uint16Array
const f: Float32Array = await NxArray.zeros(host, 'bfloat16', [1]).toTypedArray();
// @ts-expect-error a shape is numbers
NxArray.zeros(host, 'float32', ['2']);
const ok: Float32Array = await NxArray.zeros(host, 'bfloat16', [1]).toTypedArray({ as: 'float32' });
const raw = NxArray.fromTypedArray(new Uint8Array(8), 'float64');
const k = elementwise({ name: 'k', inputs: ['T x', 'T y'], outputs: ['T z'], wgsl: 'z = x + y;' });
// @ts-expect-error two inputs declared, one given
await k(raw);
// @ts-expect-error the int32 body works on Int32Arrays
elementwise({ name: 'i', inputs: ['int32 a'], outputs: ['int32 b'], compute: 'int32', js: (a: Float32Array[]) => a });
const [z] = await k(raw, raw);
// An output of a type variable has the dtype of the input binding it.
const b = NxArray.zeros(host, 'bfloat16', [2]);
const [zb] = await k(b, b);
const kept: NxArray<'bfloat16'> = zb;
// @ts-expect-error an output of T over bfloat16 inputs is no float32 array
const wrong: NxArray<'float32'> = zb;
const [o] = await k(b, b, { out: b });
const given: NxArray<'bfloat16'> = o;
console.log(f, ok, add(raw, raw), z.shape, kept, wrong, given);
export {};
`);
  for (const lib of [['ES2022', 'DOM'], ['ESNext', 'DOM']]) {
    writeFileSync(join(proj, 'tsconfig.json'), tsconfig(lib, ['snippets']));
    execFileSync(bin('tsc'), ['-p', proj], { stdio: 'inherit' });
    console.log(`${snippets.length} snippets: tsc --strict, lib ${lib.join(' + ')}: ok`);
  }

  step('a Vite project over the package: tsc && vite build, then its page');
  mkdirSync(join(proj, 'src'));
  writeFileSync(join(proj, 'index.html'), '<!doctype html><script type="module" src="/src/main.ts"></script>');
  writeFileSync(join(proj, 'src', 'main.ts'), `import init, { Device, NxArray, type DataTypeMap } from 'nxrig';
await init();
const x = NxArray.fromTypedArray(new Float32Array([1.5, -2.25, 65520, 1e-8]), 'float32');
const gpu = await Device.gpu();
const onGpu: DataTypeMap['float16'] = await (await x.toDevice(gpu)).cast('float16').toTypedArray();
const onHost: Float32Array = await x.cast('bfloat16').toTypedArray({ as: 'float32' });
const w = window as unknown as { result: unknown };
w.result = { device: gpu.name, gpu: Array.from(new Uint16Array(onGpu.buffer, onGpu.byteOffset, 4)), host: Array.from(onHost) };
`);
  writeFileSync(join(proj, 'tsconfig.json'), tsconfig(['ES2022', 'DOM'], ['src']));
  execFileSync(bin('tsc'), ['-p', proj], { stdio: 'inherit' });
  execFileSync(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: proj, stdio: 'inherit' });
  const [url, server] = await serve(join(proj, 'dist'));
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(`${url}/index.html`);
    const r = await (await page.waitForFunction(() => window.result, null, { timeout: 60000 })).jsonValue();
    assert.deepEqual(r.gpu, [0x3e00, 0xc080, 0x7c00, 0]);
    assert.deepEqual(r.host, [1.5, -2.25, 65536, 1.0011717677116394e-8]);
    console.log(`${name} built by Vite and used on ${r.device} and the host: ok`);
    await page.close();
  } finally {
    server.kill();
  }

  step('Node: import nxrig, init() with no argument, host work, a .safetensors file');
  cpSync(join(root, 'www', 'sample.safetensors'), join(proj, 'sample.safetensors'));
  writeFileSync(join(proj, 'node.mjs'), `import { readFileSync } from 'node:fs';
import init, { Device, NxArray, loadSafetensors, version } from 'nxrig';
const out = {};
try { Device.host(); } catch (e) { out.early = e.message; }
await init();
out.version = version();
const a = NxArray.fromTypedArray(new Float32Array([1, 2, 3, 4, 5, 6]), 'float32', [2, 3]);
out.text = String(a);
out.nested = await a.permute([1, 0]).cast('bfloat16').toArray();
const f = loadSafetensors(readFileSync('sample.safetensors'));
out.file = [f.length, f.get(f.names[0]).dtype];
const t0 = Date.now();
try { await Device.gpu(); out.gpu = 'settled'; } catch (e) { out.gpu = e.message; }
out.gpuMs = Date.now() - t0;
console.log(JSON.stringify(out));
`);
  const got = JSON.parse(execFileSync('node', ['node.mjs'], { cwd: proj, timeout: 60000 }).toString());
  assert.match(got.early, /call `await init\(\)` before Device\.host/);
  assert.equal(got.text, 'NxArray(float32 [2, 3] on host: 1, 2, 3, 4, 5, 6)');
  assert.deepEqual(got.nested, [[1, 4], [2, 5], [3, 6]]);
  assert.ok(got.file[0] > 0);
  assert.equal(got.gpu, 'Device.gpu: this environment has no WebGPU (navigator.gpu): use Device.host()');
  assert.ok(got.gpuMs < 1000, 'Device.gpu() rejects at once');
  console.log(`Node ${process.version}: nxrig ${got.version}, ${got.file[0]} tensors read, Device.gpu() rejected: ok`);
}
