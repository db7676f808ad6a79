// Block-scaled model folders in the browser and in Node: the folders of
// tests/quant/dequant.py (DeepSeek-V3/V4's FP8 blocks, gpt-oss' MXFP4, ModelOpt's NVFP4,
// compressed-tensors' float and integer schemes, GPTQ v1/v2, AWQ; config.json,
// a tokenizer and a generation config beside the tensors, one sharded with a scale in
// the other shard), written at test time and converted by `nxrig convert` on the host
// (which dequant.py holds to its exact oracle), then
//   1. in Node, from each folder's path into a path;
//   2. in headless Chromium, from each folder's files (a FileList) on the host, and
//      from its URL (ending in /) on WebGPU (each band's values gathered there from
//      tables the host rounds), into streams; one folder from an OPFS directory
//      handle into another;
// every file of every output equal to nxrig convert's, byte for byte; and the
// refusals (a weight without its scale across shards, GPTQ v1 labelled v2, quantized
// names without a config.json) as errors naming convertCheckpoint and the tensor, in
// JavaScript's option names, nothing written. Then a GGUF file of every block-quantized
// type nxrig dequantizes (tests/gguf/gguf_check.py --write), converted in Node and in
// Chromium and one tensor loaded onto WebGPU, each nxrig convert's.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkpointServer } from './e2e-server.mjs';
import { step } from './e2e-step.mjs';
import { writeCheckpoint } from './e2e-checkpoint.mjs';

/** The files of the folder `dir`, by name. */
function filesOf(dir) {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f))]));
}

/** Asserts that `got` (name to bytes) is the folder `want`, file for file. */
function sameFolder(got, want, what) {
  const w = filesOf(want);
  assert.deepEqual(Object.keys(got).sort(), Object.keys(w), `${what}: the files`);
  for (const [name, bytes] of Object.entries(w)) {
    assert.ok(Buffer.from(got[name]).equals(bytes), `${what}: ${name} differs from nxrig convert's`);
  }
}

/** In the page: a sink of files kept in memory, each read back as base64. */
function pageHelpers() {
  window.memoryFolder = () => {
    const files = {};
    const sink = (name) => new WritableStream({ write(c) { (files[name] ??= []).push(c.slice()); } });
    const base64 = () => Object.fromEntries(Object.entries(files).map(([n, chunks]) => {
      let s = '';
      for (const c of chunks) for (let i = 0; i < c.length; i += 0x8000) s += String.fromCharCode(...c.subarray(i, i + 0x8000));
      return [n, btoa(s)];
    }));
    return { files, sink, base64 };
  };
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.id = 'qfiles';
  document.body.append(input);
}

/** Runs the tests: `b` a Chromium with WebGPU, `root` the repo, `bin` the release `nxrig`. */
export async function quantFolders(b, { root, bin }) {
  const dir = mkdtempSync(join(tmpdir(), 'nxrig-quant-'));
  let server;
  let page;
  try {
    step('block-scaled model folders: written by tests/quant/dequant.py, converted by nxrig convert');
    const src = join(dir, 'src');
    execFileSync('python3', [join(root, 'tests/quant/dequant.py'), '--write', src], { stdio: 'inherit' });
    const layouts = readdirSync(src).filter((n) => !n.startsWith('refuse-')).sort();
    const ref = join(dir, 'ref');
    mkdirSync(ref);
    const cli = (...a) => execFileSync(bin, ['convert', ...a], { stdio: 'pipe' });
    for (const l of layouts) cli(join(src, l), join(ref, l), '--to', 'bfloat16');
    cli(join(src, 'gpt-oss'), join(ref, 'gpt-oss-f16-sat'), '--to', 'float16', '--saturate');
    cli(join(src, 'deepseek-v3'), join(ref, 'deepseek-v3-kept'), '--to', 'bfloat16', '--keep-quantized', '*.down_proj.weight');

    step('block-scaled model folders in Node: paths in, paths out');
    const node = await import(join(root, 'js/node.js'));
    await node.init();
    for (const l of layouts) {
      const ck = await node.openCheckpoint(join(src, l));
      assert.equal(ck.folder, true, `${l}: a model's folder`);
      assert.ok(ck.scheme, `${l}: its scheme`);
      const r = await node.convertCheckpoint(ck, join(dir, 'node', l), { to: 'bfloat16' });
      assert.ok(r.dequantized >= 1, `${l}: dequantized ${r.dequantized}`);
      sameFolder(filesOf(join(dir, 'node', l)), join(ref, l), `Node ${l}`);
    }
    const sat = await node.convertCheckpoint(await node.openCheckpoint(join(src, 'gpt-oss')), join(dir, 'node', 'gpt-oss-f16-sat'), { to: 'float16', saturate: true });
    assert.equal(sat.overflows.length, 1, 'gpt-oss: the saturated overflows reported');
    sameFolder(filesOf(join(dir, 'node', 'gpt-oss-f16-sat')), join(ref, 'gpt-oss-f16-sat'), 'Node gpt-oss float16 saturated');
    await node.convertCheckpoint(await node.openCheckpoint(join(src, 'deepseek-v3')), join(dir, 'node', 'deepseek-v3-kept'), { to: 'bfloat16', keepQuantized: '*.down_proj.weight' });
    sameFolder(filesOf(join(dir, 'node', 'deepseek-v3-kept')), join(ref, 'deepseek-v3-kept'), 'Node deepseek-v3 keepQuantized');
    const refused = async (l, want, options = {}) => {
      const to = join(dir, 'node', l);
      await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(join(src, l)), to, { to: 'bfloat16', ...options }), (e) => {
        assert.match(e.message, want);
        return true;
      });
      assert.throws(() => readdirSync(to), /ENOENT/, `${l}: nothing written`);
    };
    await refused('refuse-missing-scale', /^convertCheckpoint: .*tensor "model\.layers\.0\.mlp\.down_proj\.weight": a weight \(fp8-block\) without its scale/);
    await refused('refuse-gptq-v1-as-v2', /^convertCheckpoint: .*qweight": a zero point of 7 .*looks like v1/);
    await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(join(src, 'gpt-oss')), join(dir, 'node', 'x'), { to: 'bfloat16', scheme: 'gptq' }), /options\.scheme: gptq: no weight of the checkpoint has its partners/);
    // The v1 checkpoint labelled v2 converts when the option says v1; the hint says so.
    await refused('refuse-gptq-v1-as-v2', /looks like v1: options\.scheme: 'gptq' reads it so/);
    await node.convertCheckpoint(await node.openCheckpoint(join(src, 'refuse-gptq-v1-as-v2')), join(dir, 'node', 'v1'), { to: 'bfloat16', scheme: 'gptq' });
    // A keepQuantized that keeps nothing is a typo, refused.
    await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(join(src, 'awq')), join(dir, 'node', 'typo'), { to: 'bfloat16', keepQuantized: 'nomatch*' }), /options\.keepQuantized: the pattern "nomatch\*" matches no block-scaled weight/);
    assert.throws(() => readdirSync(join(dir, 'node', 'typo')), /ENOENT/, 'keepQuantized typo: nothing written');
    // Never over the input: its own folder (through a file: URL string too), its file.
    const inSrc = join(dir, 'node', 'in-place');
    cpSync(join(src, 'awq'), inSrc, { recursive: true });
    const before = filesOf(inSrc);
    await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(pathToFileURL(inSrc).href), `${inSrc}/`, { to: 'bfloat16' }), /^Error: convertCheckpoint: .*the output folder is the input's/);
    await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(join(inSrc, 'model.safetensors')), join(inSrc, 'model.safetensors'), { to: 'bfloat16' }), /the output is the input file/);
    assert.deepEqual(filesOf(inSrc), before, 'the input folder as it was');
    assert.equal((await node.openCheckpoint(join(inSrc, 'model.safetensors'))).scheme, null, 'a plain file: scheme null');
    await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(join(src, 'awq')), join(inSrc, 'model.safetensors'), { to: 'bfloat16' }), /^Error: convertCheckpoint: .*model\.safetensors: the output exists and is not a folder/);
    assert.deepEqual(filesOf(inSrc), before, 'a folder into a file: the file as it was');
    // An output folder holding an earlier conversion's other files is refused whole.
    await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(join(src, 'deepseek-v3')), join(dir, 'node', 'awq'), { to: 'bfloat16' }), /the folder holds model\.safetensors that this conversion does not write/);
    sameFolder(filesOf(join(dir, 'node', 'awq')), join(ref, 'awq'), 'Node: the refused folder as it was');
    console.log(`Node: ${layouts.length} folders and 3 with options, each nxrig convert's; 9 refusals`);

    server = await checkpointServer({ www: join(root, 'www'), data: dir, uploads: dir });
    page = await b.newPage();
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => window.nxrigReady === true, null, { timeout: 60000 });
    await page.evaluate(pageHelpers);

    step('block-scaled model folders in Chromium: Files on the host, URLs on WebGPU');
    for (const l of layouts) {
      await page.setInputFiles('#qfiles', readdirSync(join(src, l)).map((f) => join(src, l, f)));
      const got = await page.evaluate(async (l) => {
        const { openCheckpoint, convertCheckpoint, Device } = window.nxrig;
        const out = {};
        const files = await openCheckpoint(document.getElementById('qfiles').files);
        out.scheme = files.scheme;
        const a = window.memoryFolder();
        out.report = await convertCheckpoint(files, a.sink, { to: 'bfloat16' });
        out.host = a.base64();
        // `/spa/` answers a missing file with an HTML page (200), as a development
        // server's fallback does: the optional files are then missing, not errors.
        const url = await openCheckpoint(`/spa/src/${l}/`);
        const b = window.memoryFolder();
        out.gpuReport = await convertCheckpoint(url, b.sink, { to: 'bfloat16', device: await Device.gpu() });
        out.gpu = b.base64();
        return out;
      }, l);
      const bytes = (o) => Object.fromEntries(Object.entries(o).map(([n, s]) => [n, Buffer.from(s, 'base64')]));
      assert.ok(got.scheme, `${l}: ck.scheme`);
      assert.ok(got.report.dequantized >= 1, `${l}: the report's dequantized`);
      assert.equal(got.report.dequantizedOnDevice, 0, `${l}: on the host`);
      // On WebGPU every weight's bands gathered there, but gpt-oss' one that overflows.
      assert.equal(got.gpuReport.dequantizedOnDevice, got.gpuReport.dequantized - (l === 'gpt-oss' ? 1 : 0), `${l}: dequantized on WebGPU`);
      sameFolder(bytes(got.host), join(ref, l), `Chromium ${l} from Files on the host`);
      sameFolder(bytes(got.gpu), join(ref, l), `Chromium ${l} from its URL on WebGPU`);
    }
    console.log(`Chromium: ${layouts.length} folders from Files (host) and URLs (WebGPU), each nxrig convert's`);

    step('block-scaled model folders in Chromium: OPFS folder to OPFS folder, the refusals');
    const names = readdirSync(join(src, 'deepseek-v3'));
    const edge = await page.evaluate(async (names) => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const root = await navigator.storage.getDirectory();
      const inDir = await root.getDirectoryHandle('ds3', { create: true });
      for (const n of names) {
        const w = await (await inDir.getFileHandle(n, { create: true })).createWritable();
        await w.write(await (await fetch(`/data/src/deepseek-v3/${n}`)).arrayBuffer());
        await w.close();
      }
      const outDir = await root.getDirectoryHandle('ds3-out', { create: true });
      const ck = await openCheckpoint(inDir);
      await convertCheckpoint(ck, outDir, { to: 'bfloat16' });
      const out = { opfs: {} };
      for await (const [n, h] of outDir.entries()) {
        const b = new Uint8Array(await (await h.getFile()).arrayBuffer());
        let s = '';
        for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
        out.opfs[n] = btoa(s);
      }
      const message = async (f) => { try { await f(); return 'converted'; } catch (e) { return e.message; } };
      // Another model into that folder: its weights and index are not this one's.
      out.stale = await message(async () => convertCheckpoint(await openCheckpoint('/data/src/awq/'), outDir, { to: 'bfloat16' }));
      out.afterStale = [];
      for await (const n of outDir.keys()) out.afterStale.push(n);
      // A quota too small for the output: refused naming both numbers, nothing written.
      const estimate = navigator.storage.estimate;
      navigator.storage.estimate = async () => ({ usage: 1000, quota: 5000 });
      const small = await root.getDirectoryHandle('ds3-quota', { create: true });
      out.quota = await message(async () => convertCheckpoint(await openCheckpoint(inDir), small, { to: 'bfloat16' }));
      navigator.storage.estimate = estimate;
      out.afterQuota = [];
      for await (const n of small.keys()) out.afterQuota.push(n);
      await root.removeEntry('ds3-quota', { recursive: true });
      // worker: true where the checkpoint came from bytes: refused, saying why.
      const bytes = new Uint8Array(await (await fetch('/sample.safetensors')).arrayBuffer());
      out.workerBytes = await message(async () => convertCheckpoint(await openCheckpoint(bytes), new WritableStream(), { to: 'bfloat16', worker: true }));
      const missing = window.memoryFolder();
      out.missing = await message(async () => convertCheckpoint(await openCheckpoint('/data/src/refuse-missing-scale/'), missing.sink, { to: 'bfloat16' }));
      out.missingWritten = Object.keys(missing.files);
      // The GPTQ folder's weights alone, without config.json: quantized names, no scheme.
      const input = document.getElementById('qfiles');
      const weights = [...input.files].filter((f) => f.name.endsWith('.safetensors'));
      const bare = await openCheckpoint(weights);
      out.bare = await message(() => convertCheckpoint(bare, window.memoryFolder().sink, { to: 'bfloat16' }));
      out.none = await message(() => convertCheckpoint(bare, window.memoryFolder().sink, { to: 'bfloat16', scheme: 'none' }));
      out.nibbles = await message(() => convertCheckpoint(bare, window.memoryFolder().sink, { to: 'bfloat16', nibbles: 'high' }));
      out.stream = await message(async () => convertCheckpoint(await openCheckpoint('/data/src/awq/'), new WritableStream(), { to: 'bfloat16' }));
      await root.removeEntry('ds3', { recursive: true });
      await root.removeEntry('ds3-out', { recursive: true });
      return out;
    }, names);
    sameFolder(Object.fromEntries(Object.entries(edge.opfs).map(([n, s]) => [n, Buffer.from(s, 'base64')])), join(ref, 'deepseek-v3'), 'Chromium deepseek-v3 OPFS to OPFS');
    assert.match(edge.stale, /^convertCheckpoint: .*the folder holds model-00001-of-00002\.safetensors and 2 more weights or index files that this conversion does not write/);
    assert.deepEqual(edge.afterStale.sort(), Object.keys(edge.opfs).sort(), 'OPFS: the refused folder as it was');
    assert.match(edge.quota, /^convertCheckpoint: .*ds3-quota: the conversion writes \d+ bytes and this origin's storage has 4000 bytes left of its quota \(navigator\.storage\.estimate\(\): 1000 used of 5000\); nothing was written$/);
    assert.deepEqual(edge.afterQuota, [], 'a quota too small: nothing written');
    const folderBytes = Object.values(edge.opfs).reduce((a, b64) => a + Buffer.from(b64, 'base64').length, 0);
    assert.match(edge.quota, new RegExp(`writes ${folderBytes} bytes`), 'the size checked is the converted folder\'s');
    assert.match(edge.workerBytes, /^convertCheckpoint: options\.worker is true, but the conversion cannot run in a Worker: the checkpoint was opened from bytes/);
    assert.match(edge.missing, /^convertCheckpoint: .*"model\.layers\.0\.mlp\.down_proj\.weight": a weight \(fp8-block\) without its scale/);
    assert.deepEqual(edge.missingWritten, [], 'a refused folder: nothing written');
    // The last files given were the last layout's (modelopt-nvfp4): its weights alone.
    assert.match(edge.bare, /^convertCheckpoint: .*looks quantized.*options\.scheme names its scheme.*options\.scheme: 'none' casts/);
    assert.equal(edge.none, 'converted', "options.scheme 'none' casts the packed tensors as they are");
    assert.match(edge.nibbles, /^TypeError|options\.nibbles must be 'low-first' or 'high-first'/);
    assert.match(edge.stream, /a model's folder converts into several files/);
    console.log(`refusals: ${edge.missing}\n  ${edge.bare}\n  ${edge.quota}\n  ${edge.workerBytes}`);

    step('a GGUF file of 24 block-quantized types (tests/gguf/gguf_check.py): Node from its path, Chromium from its File (in the Worker), its URL and on WebGPU, each nxrig convert\'s');
    const gg = join(dir, 'gguf');
    execFileSync('python3', [join(root, 'tests/gguf/gguf_check.py'), '--write', gg], { stdio: 'inherit' });
    const gguf = join(gg, 'quant.gguf');
    cli(gguf, join(gg, 'ref.safetensors'), '--to', 'float16');
    const want = readFileSync(join(gg, 'ref.safetensors'));
    const gck = await node.openCheckpoint(gguf);
    const q4k = gck.tensors.find((t) => t.name === 'r.q4_k');
    assert.deepEqual([q4k.ggmlType, q4k.dtype, q4k.shape], ['Q4_K', 'float32', [3, 512]], 'a Q4_K tensor listed with its ggml type');
    // From a path into a path: in a worker thread of its own (its wasm memory reported),
    // progress told here; worker: false on this thread; both nxrig convert's bytes.
    const told = [];
    const inThread = await node.convertCheckpoint(gck, join(gg, 'node.safetensors'), { to: 'float16', onProgress: (p) => told.push(p.bytesDone) });
    assert.ok(readFileSync(join(gg, 'node.safetensors')).equals(want), 'Node: the GGUF conversion is nxrig convert\'s');
    assert.ok(inThread.__nxWasmBytes > 0, 'Node: a conversion from a path into a path ran in a worker thread');
    assert.ok(told.length > 1 && told.every((b, i) => i === 0 || b > told[i - 1]), `Node: the worker thread's progress told here, growing: ${told}`);
    const blockTensors = gck.tensors.filter((t) => t.ggmlType).length;
    assert.ok(blockTensors >= 24 && inThread.dequantized === blockTensors, `Node: the report counts the ${blockTensors} block-quantized tensors dequantized: ${inThread.dequantized}`);
    // A block type as the target, and an output in a folder that is not there: one
    // sentence each, naming the option and the output (not a temporary).
    await assert.rejects(node.convertCheckpoint(gck, join(gg, 'q.safetensors'), { to: 'q4_k_m' }),
      (e) => e instanceof TypeError && e.message.startsWith("convertCheckpoint: options.to: Q4_K is one of GGUF's block-quantized types") && e.message.includes('options.to takes a dtype'));
    // A name of no dtype: a TypeError naming the option, as every option's refusal.
    await assert.rejects(node.convertCheckpoint(gck, join(gg, 'q.safetensors'), { to: 'flaot16' }),
      (e) => e instanceof TypeError && e.message.startsWith('convertCheckpoint: options.to: unknown dtype "flaot16" (expected one of float16, bfloat16'));
    // A folder as one file's output: refused as a folder, nothing written there.
    const inFolder = readdirSync(gg).length;
    await assert.rejects(node.convertCheckpoint(gck, gg, { to: 'float16' }),
      (e) => e.message.startsWith(`convertCheckpoint: ${gg}/: a folder: one file converts into one file`));
    assert.equal(readdirSync(gg).length, inFolder, 'nothing written into the folder');
    const gone = join(gg, 'gone', 'o.safetensors');
    await assert.rejects(node.convertCheckpoint(gck, gone, { to: 'float16' }),
      (e) => e.message === `convertCheckpoint: ${gone}: its folder ${join(gg, 'gone')} does not exist`);
    // Node's own flags: a V8 flag (which Node refuses a thread by name) and a script
    // given as text (whose flags a thread refuses): the thread still converts.
    for (const flags of [['--max-old-space-size=512'], ['--max-old-space-size=512', '--input-type=module', '-e']]) {
      const script = `import { init, openCheckpoint, convertCheckpoint } from ${JSON.stringify(join(root, 'js/node.js'))};
        await init();
        const r = await convertCheckpoint(await openCheckpoint(${JSON.stringify(gguf)}), ${JSON.stringify(join(gg, 'node-flags.safetensors'))}, { to: 'float16' });
        if (!(r.__nxWasmBytes > 0)) throw new Error('not in a thread');`;
      const file = join(gg, 'flags.mjs');
      if (flags.includes('-e')) execFileSync(process.execPath, [...flags, script]);
      else {
        writeFileSync(file, script);
        execFileSync(process.execPath, [...flags, file]);
      }
      assert.ok(readFileSync(join(gg, 'node-flags.safetensors')).equals(want), `Node ${flags.join(' ')}: the thread's conversion is nxrig convert's`);
    }
    // Before init: the function called named, once, and the remedy.
    const early = execFileSync(process.execPath, ['--input-type=module', '-e', `
      import * as nx from ${JSON.stringify(join(root, 'js/node.js'))};
      for (const f of [() => nx.openCheckpoint(${JSON.stringify(gguf)}), () => nx.NxArray.fromTypedArray(new Float32Array(2), [2])]) {
        try { await f(); } catch (e) { console.log(e.message); }
      }`]).toString().trim().split('\n');
    assert.deepEqual(early, ['openCheckpoint', 'NxArray.fromTypedArray'].map((f) => `${f}: call \`await init()\` first (nxrig's WebAssembly is not loaded yet)`));
    const here = await node.convertCheckpoint(gck, join(gg, 'node-here.safetensors'), { to: 'float16', worker: false });
    assert.equal(here.__nxWasmBytes, undefined, 'worker: false converts on the calling thread');
    assert.ok(readFileSync(join(gg, 'node-here.safetensors')).equals(want), 'Node: worker: false gives the same bytes');
    // An abort from here stops the thread: the promise rejects with the signal's
    // reason, nothing is left; an option's error is the thread's TypeError.
    // (64 MiB of float32: four pieces, the abort at the first.)
    writeCheckpoint(join(gg, 'big.safetensors'), [['w', 'F32', [4096, 4096]]]);
    const ac = new AbortController();
    await assert.rejects(node.convertCheckpoint(await node.openCheckpoint(join(gg, 'big.safetensors')), join(gg, 'aborted.safetensors'), { to: 'float16', signal: ac.signal, onProgress: () => ac.abort() }), (e) => e.name === 'AbortError');
    assert.ok(!readdirSync(gg).some((n) => n === 'aborted.safetensors' || n.endsWith('.tmp')), 'an aborted thread leaves no file');
    await assert.rejects(node.convertCheckpoint(gck, join(gg, 'bad.safetensors'), { to: 'float17' }), (e) => e instanceof Error && /^convertCheckpoint: .*float17/.test(e.message));
    await assert.rejects(node.convertCheckpoint(gck, join(gg, 'bad.safetensors'), { to: 'float16', tensors: 3 }), (e) => e instanceof TypeError && /options\.tensors/.test(e.message));
    // Worker threads sharing a conversion (workers: N): each converts its pieces, this
    // thread writes them in order: one thread's bytes and report (overflow tallies
    // added up), progress told here and growing, an abort leaving nothing, the
    // option's refusals.
    // Each thread's source reads ahead the piece it reads next: in a share of N, the
    // piece N on (the next one is another thread's: read and dropped, every piece read
    // twice). Its reads (MiB): in order, in a share of 3, and across a tensor's
    // shorter last piece into the next tensor.
    const { readingAhead } = await import(pathToFileURL(join(root, 'js/sources.js')).href);
    const M = 1 << 20;
    const readsOf = async (ranges) => {
      const reads = [];
      const read = readingAhead(async (s, e) => { reads.push(`${s / M}-${e / M}`); return new Uint8Array(e - s); }, 64 * M);
      for (const [s, e] of ranges) assert.equal((await read(s * M, e * M)).length, (e - s) * M);
      return reads;
    };
    const pieces = (ks) => ks.map((k) => [k, k + 1]);
    assert.deepEqual(await readsOf(pieces([0, 1, 2, 3])), ['0-1', '1-2', '2-3', '3-4', '4-5'], 'in order: each piece read once, the next one ahead');
    assert.deepEqual(await readsOf(pieces([0, 3, 6, 9])), ['0-1', '1-2', '3-4', '6-7', '9-10', '12-13'], 'a share of 3: after its first guess, its own next piece ahead');
    assert.deepEqual(await readsOf([[0, 2], [2, 3], [3, 5], [5, 7]]), ['0-2', '2-4', '2-3', '3-4', '3-5', '5-7', '7-9'], 'after a shorter piece, the next tensor: the range just after');
    const bigCk = await node.openCheckpoint(join(gg, 'big.safetensors'));
    const one = await node.convertCheckpoint(bigCk, join(gg, 'big-1.safetensors'), { to: 'float8_e4m3fn' });
    for (const workers of [2, 3]) {
      const toldN = [];
      const r = await node.convertCheckpoint(gck, join(gg, `node-${workers}.safetensors`), { to: 'float16', workers, onProgress: (p) => toldN.push(p.bytesDone) });
      assert.equal(r.__nxWorkers, workers, `Node: workers: ${workers} threads converted`);
      assert.ok(readFileSync(join(gg, `node-${workers}.safetensors`)).equals(want), `Node, workers: ${workers}: the GGUF conversion is nxrig convert's`);
      assert.deepEqual(JSON.parse(JSON.stringify(r)), JSON.parse(JSON.stringify(inThread)), `Node, workers: ${workers}: one thread's report`);
      assert.ok(toldN.length > 1 && toldN.every((b, i) => i === 0 || b > toldN[i - 1]), `Node, workers: ${workers}: progress told here, growing: ${toldN}`);
      const rb = await node.convertCheckpoint(bigCk, join(gg, `big-${workers}.safetensors`), { to: 'float8_e4m3fn', workers });
      assert.ok(readFileSync(join(gg, `big-${workers}.safetensors`)).equals(readFileSync(join(gg, 'big-1.safetensors'))), `Node, workers: ${workers}: float32 -> float8_e4m3fn as one thread`);
      assert.deepEqual(rb.overflows, one.overflows, `Node, workers: ${workers}: the overflow tallies added up`);
      assert.ok(one.overflows.length === 1 && one.overflows[0].overflowed > 0, `float8_e4m3fn overflows counted: ${JSON.stringify(one.overflows)}`);
    }
    const ac2 = new AbortController();
    await assert.rejects(node.convertCheckpoint(bigCk, join(gg, 'aborted2.safetensors'), { to: 'float16', workers: 2, signal: ac2.signal, onProgress: () => ac2.abort() }), (e) => e.name === 'AbortError');
    assert.ok(!readdirSync(gg).some((n) => n === 'aborted2.safetensors' || n.endsWith('.tmp')), 'Node, workers: 2: an abort leaves no file');
    await assert.rejects(node.convertCheckpoint(bigCk, join(gg, 'w0.safetensors'), { to: 'float16', workers: 0 }), (e) => e instanceof TypeError && /^convertCheckpoint: options\.workers must be a whole number from 1 to 8, got: 0/.test(e.message));
    await assert.rejects(node.convertCheckpoint(bigCk, join(gg, 'w0.safetensors'), { to: 'float16', workers: 2, worker: false }), (e) => e instanceof TypeError && /options\.workers is 2, but worker: false/.test(e.message));
    await assert.rejects(node.convertCheckpoint(bigCk, join(gg, 'w0.safetensors'), { to: 'flaot16', workers: 2 }), (e) => e instanceof TypeError && /^convertCheckpoint: options\.to: unknown dtype "flaot16"/.test(e.message));
    assert.ok(!readdirSync(gg).some((n) => n === 'w0.safetensors' || n.endsWith('.tmp')), 'Node: a refused conversion writes nothing');
    bigCk.dispose();
    console.log(`Node: workers: 2 and 3 equal to one thread and to nxrig convert; ${JSON.stringify(one.overflows)}`);
    await page.setInputFiles('#qfiles', [gguf]);
    const ggot = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint, Device } = window.nxrig;
      const ck = await openCheckpoint(document.getElementById('qfiles').files[0]);
      const chunks = [];
      await convertCheckpoint(ck, new WritableStream({ write(c) { chunks.push(c.slice()); } }), { to: 'float16' });
      const all = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
      let at = 0;
      for (const c of chunks) { all.set(c, at); at += c.length; }
      let b64 = '';
      for (let i = 0; i < all.length; i += 0x8000) b64 += String.fromCharCode(...all.subarray(i, i + 0x8000));
      // The Q4_K tensor alone onto WebGPU (dequantized on the host, uploaded), cast there.
      const w = await ck.load('r.q4_k', await Device.gpu());
      const h = w.cast('float16');
      const bits = await h.toTypedArray();
      const out = { file: btoa(b64), load: [w.dtype, w.shape, w.device.isGpu], q4k: Array.from(new Uint16Array(bits.buffer, bits.byteOffset, bits.length)) };
      w.dispose();
      h.dispose();
      return out;
    });
    assert.ok(Buffer.from(ggot.file, 'base64').equals(want), 'Chromium: the GGUF conversion from its File is nxrig convert\'s');
    assert.deepEqual(ggot.load, ['float32', [3, 512], true], 'the Q4_K tensor loaded onto WebGPU as float32');
    // The reference file's r.q4_k, as float16 bits.
    const n = Number(want.readBigUInt64LE(0));
    const header = JSON.parse(want.subarray(8, 8 + n).toString());
    const [s0, e0] = header['r.q4_k'].data_offsets;
    const ref16 = want.subarray(8 + n + s0, 8 + n + e0);
    assert.deepEqual(ggot.q4k, Array.from(new Uint16Array(ref16.buffer.slice(ref16.byteOffset, ref16.byteOffset + ref16.length))), 'the Q4_K tensor on WebGPU, cast to float16, is nxrig convert\'s');
    // The same file by its URL (HTTP Range requests: the header in growing reads, each
    // piece's blocks), converted on the page's own thread (worker: false).
    const byUrl = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const ck = await openCheckpoint('/data/gguf/quant.gguf');
      const chunks = [];
      await convertCheckpoint(ck, new WritableStream({ write(c) { chunks.push(c.slice()); } }), { to: 'float16', worker: false });
      const all = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
      let at = 0;
      for (const c of chunks) { all.set(c, at); at += c.length; }
      let b64 = '';
      for (let i = 0; i < all.length; i += 0x8000) b64 += String.fromCharCode(...all.subarray(i, i + 0x8000));
      return { file: btoa(b64), types: ck.tensors.filter((t) => t.ggmlType).length };
    });
    assert.equal(byUrl.types, 24, 'the URL lists its 24 block-quantized tensors');
    assert.ok(Buffer.from(byUrl.file, 'base64').equals(want), 'Chromium: the GGUF conversion from its URL is nxrig convert\'s');
    // The same tensors split in three files: one checkpoint, a folder of shards out.
    const splits = [1, 2, 3].map((k) => join(gg, `split-0000${k}-of-00003.gguf`));
    cli(splits[0], join(gg, 'ref-split'), '--to', 'float16');
    await node.convertCheckpoint(await node.openCheckpoint(splits[1]), join(gg, 'node-split'), { to: 'float16' });
    sameFolder(filesOf(join(gg, 'node-split')), join(gg, 'ref-split'), 'Node: a split GGUF from the path of its second split');
    await page.setInputFiles('#qfiles', splits);
    const split = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const ck = await openCheckpoint(document.getElementById('qfiles').files);
      const f = window.memoryFolder();
      await convertCheckpoint(ck, f.sink, { to: 'float16' });
      return { files: ck.files, out: f.base64() };
    });
    assert.deepEqual(split.files, splits.map((p) => p.split('/').pop()), 'the splits, in order');
    sameFolder(Object.fromEntries(Object.entries(split.out).map(([n, s]) => [n, Buffer.from(s, 'base64')])), join(gg, 'ref-split'), 'Chromium: a split GGUF from its Files');
    console.log('GGUF: Node and Chromium (File, in the Worker; its URL, on the page; Q4_K loaded onto WebGPU; a split of three into a folder) equal to nxrig convert');

    step('two Workers sharing a conversion (workers: 2): the bytes, the report and its overflow tallies one Worker gives; a split into a folder; an abort');
    cli(join(gg, 'big.safetensors'), join(gg, 'big-ref.safetensors'), '--to', 'float16');
    const sha = (b) => createHash('sha256').update(b).digest('hex');
    const bigWant = sha(readFileSync(join(gg, 'big-ref.safetensors')));
    // Two tensors whose output order (by name) is not the file's: the overflows are
    // told in the order written.
    writeCheckpoint(join(gg, 'two.safetensors'), [['z', 'F32', [1024, 1024]], ['a', 'F32', [1024, 1024]]]);
    await page.setInputFiles('#qfiles', [join(gg, 'big.safetensors'), gguf, join(gg, 'two.safetensors')]);
    const shared = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const [big, quant, two] = document.getElementById('qfiles').files;
      const hex = async (chunks) => {
        const all = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
        let at = 0;
        for (const c of chunks) { all.set(c, at); at += c.length; }
        return Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', all)), (b) => b.toString(16).padStart(2, '0')).join('');
      };
      const run = async (file, workers, signal) => {
        const chunks = [];
        const told = [];
        let aborted = false;
        const sink = new WritableStream({ write(c) { chunks.push(c.slice()); }, abort() { aborted = true; } });
        try {
          const report = await convertCheckpoint(await openCheckpoint(file), sink, { to: 'float16', workers, signal: signal?.signal, onProgress: (p) => { told.push([p.bytesDone, p.bytesTotal]); signal?.abort(); } });
          return { sha: await hex(chunks), report: JSON.parse(JSON.stringify(report)), workers: report.__nxWorkers, told };
        } catch (e) {
          return { error: e.name, aborted, told: told.length };
        }
      };
      let refused;
      try {
        await convertCheckpoint(await openCheckpoint(big), new WritableStream(), { to: 'float16', workers: 0 });
      } catch (e) {
        refused = `${e.name}: ${e.message}`;
      }
      return {
        refused,
        one: await run(big, 1),
        two: await run(big, 2),
        quant: await run(quant, 2),
        order: [await run(two, 1), await run(two, 2)],
        stopped: await run(big, 2, new AbortController()),
        // Aborted before it began, and contradictory options.
        early: await (async () => {
          let aborted = false;
          const error = await convertCheckpoint(await openCheckpoint(big), new WritableStream({ abort() { aborted = true; } }), { to: 'float16', signal: AbortSignal.abort() }).catch((e) => e.name);
          return { error, aborted };
        })(),
        // A refusal in the Worker before its first step leaves the stream as it was.
        typo: await (async () => {
          let aborted = false;
          const stream = new WritableStream({ abort() { aborted = true; } });
          const error = await convertCheckpoint(await openCheckpoint(big), stream, { to: 'flaot16', workers: 2 }).catch((e) => `${e.name}: ${e.message}`);
          return { error, aborted, locked: stream.locked };
        })(),
        both: await convertCheckpoint(await openCheckpoint(big), new WritableStream(), { to: 'float16', workers: 2, worker: false }).catch((e) => `${e.name}: ${e.message}`),
      };
    });
    assert.match(shared.refused, /^TypeError: convertCheckpoint: options\.workers must be a whole number from 1 to 8, got: 0/);
    assert.equal(shared.two.workers, 2, 'two Workers converted');
    assert.equal(shared.two.sha, bigWant, 'two Workers: the bytes are nxrig convert\'s');
    assert.equal(shared.one.sha, bigWant, 'one Worker: the bytes are nxrig convert\'s');
    assert.ok(shared.one.report.overflows.length === 1 && shared.one.report.overflows[0].overflowed > 0, `float32 -> float16 overflows: ${JSON.stringify(shared.one.report.overflows)}`);
    assert.deepEqual(shared.two.report, shared.one.report, 'two Workers: the report one gives, its overflow tallies added up');
    const last = shared.two.told[shared.two.told.length - 1];
    assert.ok(shared.two.told.length >= 4 && last[0] === last[1] && shared.two.told.every((t, i) => i === 0 || t[0] > shared.two.told[i - 1][0]), `two Workers' progress grows to the end: ${JSON.stringify(shared.two.told)}`);
    assert.deepEqual(shared.order[0].report.overflows.map((o) => o.tensor), ['a', 'z'], 'one Worker tells the overflows in the order written');
    assert.deepEqual(shared.order[1].report, shared.order[0].report, 'two Workers: the overflows in the order written');
    assert.equal(shared.quant.sha, sha(want), 'two Workers: the GGUF file\'s 24 block types are nxrig convert\'s');
    assert.deepEqual(shared.stopped, { error: 'AbortError', aborted: true, told: 1 }, 'an abort stops both Workers, the stream aborted, nothing told after it');
    assert.deepEqual(shared.early, { error: 'AbortError', aborted: true }, 'an abort before the start aborts the stream too');
    assert.ok(shared.typo.error.startsWith('TypeError: convertCheckpoint: options.to: unknown dtype "flaot16"') && !shared.typo.aborted && !shared.typo.locked, `a refusal in the Workers leaves the stream as it was: ${JSON.stringify(shared.typo)}`);
    assert.match(shared.both, /^TypeError: convertCheckpoint: options\.workers is 2, but worker: false converts on this thread/);
    await page.setInputFiles('#qfiles', splits);
    const split2 = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const f = window.memoryFolder();
      const files = document.getElementById('qfiles').files;
      const r = await convertCheckpoint(await openCheckpoint(files), f.sink, { to: 'float16', workers: 3 });
      // A sink whose writes into the second shard fail, and whose abort throws too: the
      // promise rejects with that write's error naming the shard (whichever Worker
      // wrote it), the sink aborted once, nothing committed.
      const names = [];
      let aborts = 0;
      let committed = false;
      const failing = {
        open(name) { names.push(name); },
        write() { if (names.length === 2) throw new Error('the disk is full'); },
        close() {},
        commit() { committed = true; },
        abort() { aborts++; throw new Error('and the abort failed'); },
      };
      let failed;
      try {
        await convertCheckpoint(await openCheckpoint(files), failing, { to: 'float16', workers: 3 });
      } catch (e) {
        failed = e.message;
      }
      return { out: f.base64(), workers: r.__nxWorkers, failed, shard: names[1], aborts, committed };
    });
    assert.ok(split2.failed?.startsWith(`convertCheckpoint: ${split2.shard}: `) && split2.failed.endsWith('the disk is full'), `a failed write names its shard: ${split2.failed}`);
    assert.deepEqual([split2.aborts, split2.committed], [1, false], 'the sink aborted once, nothing committed');
    assert.equal(split2.workers, 3);
    sameFolder(Object.fromEntries(Object.entries(split2.out).map(([n, s]) => [n, Buffer.from(s, 'base64')])), join(gg, 'ref-split'), 'three Workers: a split GGUF into a folder, its index once');
    console.log(`workers: 2 and 3 equal to one Worker and to nxrig convert (${shared.two.told.length} progress events)`);
  } finally {
    await page?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
