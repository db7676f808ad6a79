// The npm package as a user has it: the `npm pack` tarball installed
// offline into a fresh project, then
//   1. the README's and docs' TypeScript snippets checked with `tsc --strict`:
//      TypeScript 5.9 with the DOM's lib, with ESNext's (where `Symbol.dispose` is the
//      language's own), with `@webgpu/types`, and TypeScript 7 (WebGPU's types in its
//      DOM lib); onnxruntime-web's own types beside them, no `any`; and what the types
//      must refuse (`add(bf16, f32)`, a Map as a checkpoint) and narrow (a checkpoint's
//      tensor by its dtype);
//   2. a Vite project (the TypeScript template's `tsc && vite build`) built over it and
//      its page run in headless Chromium: the `.wasm` found with no configuration, a
//      cast on WebGPU and on the host, a conversion in a module Worker (the docs'
//      `worker: { format: 'es' }`) byte for byte the page's; and the production
//      build's errors, each naming the class and method called (a minifier renames
//      the classes), of the right class (TypeError for options), with the remedy;
//   3. the docs' servers of checkpoints: `http-server --cors` refused from another
//      origin (the size not exposed), the docs' one line read from there;
//   4. a Node script importing 'nxrig': `await init()` with no argument, host arrays,
//      a `.safetensors` file, `Device.gpu()` rejecting at once.
// TypeScript and Vite are the repository's dev dependencies, run over the project.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { step } from './e2e-step.mjs';


/** The ```ts blocks of the README and of docs/javascript.md, in order. */
function readmeSnippets(root) {
  const text = ['README.md', 'docs/javascript.md'].map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function tsconfig(lib, include, types = []) {
  return JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'ES2022', module: 'ESNext',
      moduleResolution: 'bundler', lib, types, skipLibCheck: false, isolatedModules: true,
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
  // onnxruntime-web (the snippets import its entries) and WebGPU's types, as a user
  // installs them beside nxrig: the repository's copies.
  mkdirSync(join(proj, 'node_modules', '@webgpu'), { recursive: true });
  for (const p of ['onnxruntime-web', 'onnxruntime-common', 'http-server', '@webgpu/types']) {
    symlinkSync(join(root, 'node_modules', p), join(proj, 'node_modules', p), 'dir');
  }
  // Every relative link of the package's Markdown (its README's to the docs, the
  // changelog, the benchmarks) names a file the tarball holds.
  const pkg = join(proj, 'node_modules', 'nxrig');
  const broken = [];
  const markdown = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'node_modules' ? [] : markdown(join(d, e.name))) : e.name.endsWith('.md') ? [join(d, e.name)] : []));
  const pages = markdown(pkg);
  for (const md of pages) {
    for (const [, link] of readFileSync(md, 'utf8').matchAll(/\]\(([^)#\s]+)/g)) {
      if (!/^[a-z]+:/.test(link) && !existsSync(join(dirname(md), link))) broken.push(`${relative(pkg, md)}: ${link}`);
    }
  }
  assert.deepEqual(broken, [], "the package's Markdown links to files it holds");
  console.log(`the package's ${pages.length} Markdown files: every relative link resolves in it`);
  const bin = (p) => join(root, 'node_modules', '.bin', p);
  // Both TypeScripts by path: each has a `tsc` bin, and node_modules/.bin holds one.
  const tsc5 = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const tsc7 = join(root, 'node_modules', 'typescript7', 'bin', 'tsc');

  step("the README's TypeScript snippets under tsc --strict");
  const snippets = readmeSnippets(root);
  assert.ok(snippets.length >= 3, `the README has its TypeScript snippets (found ${snippets.length})`);
  mkdirSync(join(proj, 'snippets'));
  snippets.forEach((s, i) => writeFileSync(join(proj, 'snippets', `s${i}.ts`), `${s}\nexport {};\n`));
  // What the types must refuse (tsc fails where an expected error does not come).
  writeFileSync(join(proj, 'snippets', 'refused.ts'), `import init, { Device, NxArray, add, elementwise, isDType, openCheckpoint, where, type AnyNxArray } from 'nxrig';
const grown: number = (await init()).memory.buffer.byteLength;
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
// A checkpoint's tensor narrows by its dtype; operands must share one.
const ck = await openCheckpoint(new Uint8Array(8));
const t: AnyNxArray = await ck.load('w');
// @ts-expect-error an unnarrowed tensor is not a bfloat16 array
const notYet: NxArray<'bfloat16'> = t;
if (t.dtype === 'bfloat16') {
  const narrowed: NxArray<'bfloat16'> = t;
  const bits: Uint16Array = await t.toTypedArray();
  console.log(narrowed, bits, add(t, b));
}
if (isDType(t, 'float32')) {
  const values: Float32Array = await t.toTypedArray();
  console.log(values);
}
const f32 = NxArray.zeros(host, 'float32', [2]);
// @ts-expect-error add's operands share a dtype
add(b, f32);
// @ts-expect-error where's x and y share a dtype
where(NxArray.zeros(host, 'bool', [2]), f32, b);
// @ts-expect-error openCheckpoint takes sources, not any object
await openCheckpoint(new Map());
// @ts-expect-error out must be of the operands' dtype
add(b, b, { out: f32 });
const gpu = await Device.gpu();
const adapter: object = gpu.gpuAdapter;
console.log(f, ok, add(raw, raw), z.shape, kept, wrong, given, notYet, adapter, grown);
export {};
`);
  for (const [tsc, lib, types, what] of [
    [tsc5, ['ES2022', 'DOM'], [], 'TypeScript 5.9, lib ES2022 + DOM'],
    [tsc5, ['ESNext', 'DOM'], [], 'TypeScript 5.9, lib ESNext + DOM'],
    [tsc5, ['ES2022', 'DOM'], ['@webgpu/types'], 'TypeScript 5.9, lib ES2022 + DOM, @webgpu/types'],
    [tsc7, ['ES2022', 'DOM'], [], 'TypeScript 7, lib ES2022 + DOM (WebGPU\'s types its own)'],
  ]) {
    writeFileSync(join(proj, 'tsconfig.json'), tsconfig(lib, ['snippets'], types));
    const t0 = Date.now();
    execFileSync(tsc, ['-p', proj], { stdio: 'inherit' });
    console.log(`${snippets.length} snippets and the refusals: tsc --strict, ${what}: ok (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }

  // A Node project's TypeScript: no DOM, Node's types (the inputs the DOM names need
  // no DOM types).
  mkdirSync(join(proj, 'node_modules', '@types'), { recursive: true });
  symlinkSync(join(root, 'node_modules', '@types', 'node'), join(proj, 'node_modules', '@types', 'node'), 'dir');
  mkdirSync(join(proj, 'node-snippets'));
  writeFileSync(join(proj, 'node-snippets', 'node.ts'), `import init, { NxArray, convertCheckpoint, openCheckpoint } from 'nxrig';
await init();
const ck = await openCheckpoint('model.safetensors');
for (const t of ck.tensors) console.log(t.name, t.dtype, t.shape, t.byteLength);
const report = await convertCheckpoint(ck, 'model-bf16', { to: 'bfloat16' });
const x = NxArray.fromTypedArray(new Float32Array([1.5, -2.25]), 'float32').cast('bfloat16');
console.log(report.converted, String(x));
export {};
`);
  writeFileSync(join(proj, 'tsconfig.json'), tsconfig(['ES2022'], ['node-snippets'], ['node']));
  execFileSync(tsc5, ['-p', proj], { stdio: 'inherit' });
  console.log('a Node script: tsc --strict, TypeScript 5.9, lib ES2022 without DOM, @types/node: ok');

  step('a Vite project over the package: tsc && vite build, then its page, its worker and its errors');
  mkdirSync(join(proj, 'src'));
  mkdirSync(join(proj, 'public'));
  cpSync(join(root, 'www', 'sample.safetensors'), join(proj, 'public', 'sample.safetensors'));
  writeFileSync(join(proj, 'index.html'), '<!doctype html><script type="module" src="/src/main.ts"></script>');
  writeFileSync(join(proj, 'vite.config.js'), "export default { worker: { format: 'es' } };\n");
  // The docs' worker, converting the file it is given into bytes it posts back.
  writeFileSync(join(proj, 'src', 'convert.worker.ts'), `import init, { convertCheckpoint, openCheckpoint } from 'nxrig';
self.onmessage = async (e: MessageEvent<File>) => {
  await init();
  const ck = await openCheckpoint(e.data);
  const parts: Uint8Array[] = [];
  const sink = new WritableStream<Uint8Array>({ write(c) { parts.push(c.slice()); } });
  const report = await convertCheckpoint(ck, sink, { to: 'bfloat16' });
  self.postMessage({ report, bytes: parts.reduce((n, p) => n + p.length, 0), sum: parts.reduce((h, p) => p.reduce((a, x) => (a * 31 + x) >>> 0, h), 7) });
};
`);
  writeFileSync(join(proj, 'src', 'main.ts'), `import init, { Device, NxArray, TensorFile, add, convertCheckpoint, elementwise, loadSafetensors, openCheckpoint, type DataTypeMap } from 'nxrig';
const errors: Record<string, [string, string, string?]> = {};
async function said(k: string, f: () => unknown) {
  try {
    await f();
    errors[k] = ['accepted', ''];
  } catch (e) {
    const err = e as Error;
    errors[k] = [err instanceof TypeError ? 'TypeError' : err instanceof Error ? 'Error' : typeof e, err.message, err.cause === undefined ? undefined : String(err.cause)];
  }
}
await said('beforeInit', () => Device.host());
await init();
const x = NxArray.fromTypedArray(new Float32Array([1.5, -2.25, 65520, 1e-8]), 'float32');
const gpu = await Device.gpu();
const onGpu: DataTypeMap['float16'] = await (await x.toDevice(gpu)).cast('float16').toTypedArray();
const onHost: Float32Array = await x.cast('bfloat16').toTypedArray({ as: 'float32' });
const bytes = new Uint8Array(await (await fetch('/sample.safetensors')).arrayBuffer());
// The errors of a production build, each naming what was called.
const host = Device.host();
await said('zeros', () => NxArray.zeros(host, 'flaot16' as 'float16', [1]));
await said('shape', () => NxArray.zeros(host, 'float32', [-1]));
await said('typed', () => NxArray.fromTypedArray(new Float64Array(2) as unknown as Float32Array, 'float32'));
await said('castOption', () => x.cast('float16', { saturat: true } as unknown as { saturate: boolean }));
await said('castDtype', () => x.cast('flaot16' as 'float16'));
const d = NxArray.zeros(host, 'float32', [1]);
d.dispose();
await said('cast', () => d.cast('float16'));
const ck = await openCheckpoint(bytes);
await said('load', () => ck.load('no.such'));
const name = ck.tensors[0].name;
const gone = await openCheckpoint(bytes);
gone.dispose();
await said('loadDisposed', () => gone.load(name));
await said('convertDisposed', () => convertCheckpoint(gone, new WritableStream(), { to: 'bfloat16' }));
const file = loadSafetensors(bytes);
file.dispose();
await said('fileDisposed', () => file.get(name));
await said('tensorFileNew', () => new TensorFile().names.length);
const goneDevice = Device.host();
goneDevice.dispose();
await said('argDisposed', () => NxArray.zeros(goneDevice, 'float32', [1]));
const dev = Device.gpu;
await said('gpuOption', () => dev({ powerpreference: 'low-power' } as object));
await said('noOptions', () => (convertCheckpoint as (...a: unknown[]) => Promise<unknown>)(ck, new WritableStream()));
await said('unknownOption', () => convertCheckpoint(ck, new WritableStream(), { to: 'bfloat16', tensor: 'x' } as { to: 'bfloat16' }));
await said('noMatch', () => convertCheckpoint(ck, new WritableStream(), { to: 'bfloat16', tensors: 'zzz*' }));
await said('progress', () => convertCheckpoint(ck, new WritableStream(), { to: 'bfloat16', onProgress: () => { throw new Error('boom'); } }));
await said('devices', () => add(NxArray.zeros(host, 'float32', [2]), NxArray.zeros(gpu, 'float32', [2])));
await said('notMap', () => openCheckpoint(new Map() as unknown as File));
await said('kernel', () => elementwise({ name: 'k', inputs: ['T x'], outputs: ['T z'], wgsl: 'z = x;', body: 1 } as Parameters<typeof elementwise>[0]));
// The docs' worker converts the file as the page does, byte for byte.
const parts: Uint8Array[] = [];
await convertCheckpoint(ck, new WritableStream<Uint8Array>({ write(c) { parts.push(c.slice()); } }), { to: 'bfloat16' });
const page = { bytes: parts.reduce((n, p) => n + p.length, 0), sum: parts.reduce((h, p) => p.reduce((a, v) => (a * 31 + v) >>> 0, h), 7) };
// nxrig's own Worker (worker: true refuses where it cannot be used): the bundle found
// js/worker.js.
const own: Uint8Array[] = [];
const ownReport = await convertCheckpoint(await openCheckpoint(new File([bytes], 'sample.safetensors')), new WritableStream<Uint8Array>({ write(c) { own.push(c.slice()); } }), { to: 'bfloat16', worker: true });
const builtIn = { bytes: own.reduce((n, p) => n + p.length, 0), sum: own.reduce((h, p) => p.reduce((a, v) => (a * 31 + v) >>> 0, h), 7), converted: ownReport.converted };
const worker = new Worker(new URL('./convert.worker.ts', import.meta.url), { type: 'module' });
const inWorker = await new Promise((resolve, reject) => {
  worker.onmessage = (e) => resolve(e.data);
  worker.onerror = (e) => reject(new Error(e.message));
  worker.postMessage(new File([bytes], 'sample.safetensors'));
});
const w = window as unknown as { result: unknown; nx: unknown };
w.nx = { openCheckpoint };
w.result = { device: gpu.name, gpu: Array.from(new Uint16Array(onGpu.buffer, onGpu.byteOffset, 4)), host: Array.from(onHost), errors, page, inWorker, builtIn };
`);
  writeFileSync(join(proj, 'tsconfig.json'), tsconfig(['ES2022', 'DOM'], ['src']));
  execFileSync(tsc5, ['-p', proj], { stdio: 'inherit' });
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
    assert.deepEqual([r.builtIn.bytes, r.builtIn.sum], [r.page.bytes, r.page.sum], "nxrig's own Worker, bundled by Vite, converts as the page does");
    assert.equal(r.inWorker.bytes, r.page.bytes);
    assert.equal(r.inWorker.sum, r.page.sum);
    assert.ok(r.inWorker.report.converted > 0);
    console.log(`a module Worker of the production build converted the file: ${r.inWorker.bytes} bytes, the page's: ok`);
    const e = r.errors;
    for (const [k, v] of Object.entries(e)) console.log(`  ${k}: ${v[0]}: ${v[1]}${v[2] ? ` (cause: ${v[2]})` : ''}`);
    const want = {
      beforeInit: ['Error', /^Device\.host: call `await init\(\)` first \(nxrig's WebAssembly is not loaded yet\)$/],
      zeros: ['TypeError', /^NxArray\.zeros: unknown dtype "flaot16"/],
      shape: ['TypeError', /^NxArray\.zeros: shape\[0\] must be a non-negative integer, got: -1$/],
      typed: ['TypeError', /^NxArray\.fromTypedArray: /],
      castOption: ['TypeError', /^NxArray\.cast: unknown option "saturat" \(it takes saturate\)$/],
      castDtype: ['TypeError', /^NxArray\.cast: unknown dtype "flaot16"/],
      cast: ['Error', /^NxArray\.cast: the array was disposed/],
      load: ['Error', /^Checkpoint\.load: .*tensor "no\.such": no tensor of that name/],
      loadDisposed: ['Error', /^Checkpoint\.load: this Checkpoint was disposed \(or made with `new`, which makes none: use openCheckpoint\)$/],
      convertDisposed: ['Error', /^convertCheckpoint: the checkpoint was disposed: open it again with openCheckpoint$/],
      fileDisposed: ['Error', /^TensorFile\.get: this TensorFile was disposed \(or made with `new`, which makes none: use loadSafetensors or new TensorFile\(\)\)$/],
      tensorFileNew: ['accepted', /^$/],
      argDisposed: ['Error', /^NxArray\.zeros: an argument was disposed \(a Device, NxArray, TensorFile or Checkpoint used after its dispose\(\)\)$/],
      gpuOption: ['TypeError', /^Device\.gpu: unknown option "powerpreference" \(it takes device, emulate, powerPreference\)$/],
      noOptions: ['TypeError', /^convertCheckpoint: options are required: at least \{ to \}/],
      unknownOption: ['TypeError', /^convertCheckpoint: unknown option "tensor" \(it takes to, tensors/],
      noMatch: ['Error', /^convertCheckpoint: options\.tensors: the pattern "zzz\*" matches no tensor of the checkpoint/],
      progress: ['Error', /^convertCheckpoint: options\.onProgress threw: boom \(the conversion stopped and its output was aborted\)$/],
      devices: ['Error', /^add: the operands are on host and .+: move one onto the other's device first \(toDevice\)$/],
      notMap: ['TypeError', /^openCheckpoint: expected a File, .* got: Map$/],
      kernel: ['TypeError', /^elementwise: unknown option 'body'/],
    };
    for (const [k, [cls, re]] of Object.entries(want)) {
      assert.equal(e[k]?.[0], cls, `${k}: ${e[k]}`);
      assert.match(e[k][1], re, k);
    }
    assert.equal(e.progress[2], 'Error: boom', 'what onProgress threw is the cause');
    assert.ok(Object.values(e).every(([, m]) => !/\be\.|\bthis e\b/.test(m)), 'no minified name in any message');
    console.log(`${Object.keys(want).length} errors of the production build, each naming the class and method called: ok`);
    await page.close();
  } finally {
    server.kill();
  }

  step("the docs' checkpoint servers, from another origin");
  await servers(browser, proj, serve, root);

  step("Node: import nxrig, init() with no argument, host work, a .safetensors file, one of the field's newer dtypes converted");
  cpSync(join(root, 'www', 'sample.safetensors'), join(proj, 'sample.safetensors'));
  // The "fnuz" float8s, float8_e8m0fnu scales, float4_e2m1fn and float6 weights beside I8 and F32 (tests/checkpoint/field_dtypes.py), converted
  // by the command line too: its file is held to ml_dtypes by tests/checkpoint/check.py.
  execFileSync('python3', [join(root, 'tests', 'checkpoint', 'field_dtypes.py'), join(proj, 'field.safetensors')]);
  execFileSync(join(root, 'target', 'release', 'nxrig'), ['convert', join(proj, 'field.safetensors'), join(proj, 'field-cli.safetensors'), '--to', 'bfloat16']);
  // bfloat16 past float16's largest finite: the report's overflows, and --saturate's bytes.
  execFileSync('python3', ['-c', "import sys, json, struct, numpy as np, ml_dtypes; a = np.array([1, 70000, -1e6, np.inf, np.nan, -3], np.float32).astype(ml_dtypes.bfloat16); h = json.dumps({'w': {'dtype': 'BF16', 'shape': [6], 'data_offsets': [0, 12]}}).encode(); h += b' ' * (-len(h) % 8); open(sys.argv[1], 'wb').write(struct.pack('<Q', len(h)) + h + a.tobytes())", join(proj, 'over.safetensors')]);
  execFileSync(join(root, 'target', 'release', 'nxrig'), ['convert', join(proj, 'over.safetensors'), join(proj, 'over-cli.safetensors'), '--to', 'float16', '--saturate'], { stdio: 'pipe' });
  // ml_dtypes' bfloat16 saved by NumPy (void elements, <V2): read with npyDtype, as the command line's --npy-dtype.
  execFileSync('python3', ['-c', 'import sys, ml_dtypes, numpy as np; np.save(sys.argv[1], (np.arange(-6, 6, dtype=np.float32) * 1.7).astype(ml_dtypes.bfloat16).reshape(3, 4))', join(proj, 'w.npy')]);
  execFileSync(join(root, 'target', 'release', 'nxrig'), ['convert', join(proj, 'w.npy'), join(proj, 'w-cli.npy'), '--to', 'float32', '--npy-dtype', 'bfloat16']);
  writeFileSync(join(proj, 'node.mjs'), `import { readFileSync } from 'node:fs';
import init, { Device, NxArray, convertCheckpoint, loadSafetensors, openCheckpoint, version } from 'nxrig';
const out = {};
try { Device.host(); } catch (e) { out.early = e.message; }
await init();
out.version = version();
const a = NxArray.fromTypedArray(new Float32Array([1, 2, 3, 4, 5, 6]), 'float32', [2, 3]);
out.text = String(a);
out.nested = await a.permute([1, 0]).cast('bfloat16').toArray();
const f = loadSafetensors(readFileSync('sample.safetensors'));
out.file = [f.length, f.get(f.names[0]).dtype];
const ck = await openCheckpoint('field.safetensors');
out.field = ck.tensors.map((t) => t.name + ' ' + t.dtype);
out.floats = ck.tensors.filter((t) => t.isFloat).map((t) => t.name);
await convertCheckpoint(ck, 'field-bf16.safetensors', { to: 'bfloat16' });
const over = await openCheckpoint('over.safetensors');
out.overDefault = (await convertCheckpoint(over, 'over-16.safetensors', { to: 'float16' })).overflows;
out.overSat = (await convertCheckpoint(over, 'over-16s.safetensors', { to: 'float16', saturate: true })).overflows;
try { await convertCheckpoint(over, 'over-x.safetensors', { to: 'float16', saturate: 'yes' }); } catch (e) { out.overBad = e.message; }
const wide = NxArray.fromTypedArray(new Float32Array([70000, -Infinity, NaN, 1]), 'float32', [4]);
out.castSat = Array.from(await wide.cast('float16', { saturate: true }).toTypedArray({ as: 'float32' }));
out.castPlain = Array.from(await wide.cast('float16').toTypedArray({ as: 'float32' }));
try { wide.cast('float16', { saturate: 1 }); } catch (e) { out.castBad = e.message; }
try { await openCheckpoint('w.npy'); } catch (e) { out.npyRefused = e.message; }
const npy = await openCheckpoint('w.npy', { npyDtype: 'bfloat16' });
out.npy = npy.tensors.map((t) => [t.name, t.dtype, t.shape]);
await convertCheckpoint(npy, 'w-f32.npy', { to: 'float32' });
try { await openCheckpoint('field.safetensors', { npyDtype: 'bfloat16' }); } catch (e) { out.npyOnSafetensors = e.message; }
try { await openCheckpoint(readFileSync('w.npy'), { npyDtype: 'bfloat16x' }); } catch (e) { out.npyUnknown = e.message; }
out.npyBytes = (await openCheckpoint(readFileSync('w.npy'), { npyDtype: 'bf16' })).tensors.map((t) => t.dtype);
const t0 = Date.now();
try { await Device.gpu(); out.gpu = 'settled'; } catch (e) { out.gpu = e.message; }
out.gpuMs = Date.now() - t0;
console.log(JSON.stringify(out));
`);
  const got = JSON.parse(execFileSync('node', ['node.mjs'], { cwd: proj, timeout: 60000 }).toString());
  assert.match(got.early, /^Device\.host: call `await init\(\)` first/);
  assert.equal(got.text, 'NxArray(float32 [2, 3] on host: 1, 2, 3, 4, 5, 6)');
  assert.deepEqual(got.nested, [[1, 4], [2, 5], [3, 6]]);
  assert.ok(got.file[0] > 0);
  assert.deepEqual(got.field, ['w.fnuz float8_e4m3fnuz', 'w.e5m2fnuz float8_e5m2fnuz', 'w.scale float8_e8m0fnu', 'w.fp4 float4_e2m1fn', 'w.fp6 float6_e2m3fn', 'w.fp6e3 float6_e3m2fn', 'q.int8 int8', 'b.f32 float32']);
  assert.deepEqual(got.floats, ['w.fnuz', 'w.e5m2fnuz', 'w.scale', 'w.fp4', 'w.fp6', 'w.fp6e3', 'b.f32']);
  assert.ok(readFileSync(join(proj, 'field-bf16.safetensors')).equals(readFileSync(join(proj, 'field-cli.safetensors'))),
    "Node's conversion of the field's dtypes differs from nxrig convert's");
  const w16 = (overflowed, infinities) => [{ tensor: 'w', dtype: 'float16', overflowed, infinities, nans: 0 }];
  assert.deepEqual(got.overDefault, w16(2, 2));
  assert.deepEqual(got.overSat, w16(2, 0));
  assert.ok(readFileSync(join(proj, 'over-16s.safetensors')).equals(readFileSync(join(proj, 'over-cli.safetensors'))),
    "Node's saturating conversion differs from nxrig convert --saturate's");
  assert.match(got.overBad, /^convertCheckpoint: options\.saturate must be a boolean/);
  assert.deepEqual(got.castSat, [65504, -65504, null, 1]);
  assert.deepEqual(got.castPlain, [null, null, null, 1]);
  assert.match(got.castBad, /NxArray\.cast: .*saturate: true/);
  assert.match(got.npyRefused, /^openCheckpoint: .*<V2.*options\.npyDtype/);
  assert.deepEqual(got.npy, [['w', 'bfloat16', [3, 4]]]);
  assert.ok(readFileSync(join(proj, 'w-f32.npy')).equals(readFileSync(join(proj, 'w-cli.npy'))),
    "Node's conversion of an ml_dtypes .npy differs from nxrig convert --npy-dtype's");
  assert.match(got.npyOnSafetensors, /^openCheckpoint: .*bfloat16.*\.safetensors/);
  assert.match(got.npyUnknown, /^openCheckpoint: .*bfloat16x/);
  assert.deepEqual(got.npyBytes, ['bfloat16']);
  assert.equal(got.gpu, 'Device.gpu: this environment has no WebGPU (navigator.gpu): use Device.host()');
  assert.ok(got.gpuMs < 1000, 'Device.gpu() rejects at once');
  console.log(`Node ${process.version}: nxrig ${got.version}, ${got.file[0]} tensors read, Device.gpu() rejected: ok`);
}

/** The docs' paragraph on serving checkpoints, tried: the sample served from a second
 * origin by `http-server --cors` (refused: the size is not exposed) and by the docs'
 * one line (read: the tensors listed), opened from a page of the first origin. */
async function servers(browser, proj, serve, root) {
  const docs = readFileSync(join(root, 'docs', 'javascript.md'), 'utf8');
  const line = /^node -e "(.*)"$/m.exec(docs)?.[1];
  assert.ok(line, "the docs' one-line server");
  const data = join(proj, 'public');
  const [page, pageServer] = await serve(join(proj, 'dist'));
  const started = [];
  const start = async (args, port) => {
    const p = spawn(args[0], args.slice(1), { cwd: data, stdio: 'ignore' });
    started.push(p);
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(`http://127.0.0.1:${port}/sample.safetensors`);
        return `http://127.0.0.1:${port}`;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`no server on ${port}`);
  };
  try {
    const p1 = 20000 + Math.floor(Math.random() * 20000);
    const p2 = p1 + 1;
    const cors = await start([join(root, 'node_modules', '.bin', 'http-server'), '.', '--cors', '-a', '127.0.0.1', '-p', String(p1), '-s'], p1);
    const oneLine = await start(['node', '-e', line.replace("root: 'models'", "root: '.'").replace('.listen(8080)', `.listen(${p2}, '127.0.0.1')`)], p2);
    const tab = await browser.newPage();
    await tab.goto(`${page}/index.html`);
    await tab.waitForFunction(() => window.result, null, { timeout: 60000 });
    const r = await tab.evaluate(async (urls) => {
      const { nx } = window;
      const out = {};
      for (const [k, u] of Object.entries(urls)) {
        out[k] = await nx.openCheckpoint(`${u}/sample.safetensors`).then((ck) => `${ck.tensors.length} tensors`, (e) => e.message);
      }
      return out;
    }, { cors, oneLine });
    console.log(r);
    assert.match(r.cors, /gave no Content-Range .*Access-Control-Expose-Headers: Content-Range/);
    assert.match(r.oneLine, /^\d+ tensors$/);
    console.log(`http-server --cors from another origin: refused naming the header; the docs' one line: ${r.oneLine}: ok`);
    await tab.close();
  } finally {
    for (const p of started) p.kill();
    pageServer.kill();
  }
}
