// Checkpoints of any size in the browser and in Node (openCheckpoint and
// convertCheckpoint), end to end. Made at test time in a temporary folder and removed
// after: one file of about 5 GiB with one tensor over 2 GiB, and a sharded checkpoint
// of more than 4 GiB in three shards (NXRIG_CHECKPOINT_SCALE shrinks both, for a quick
// run). In a fresh headless Chromium, served by www/e2e-server.mjs:
//   1. the file from a `File` (setInputFiles), on the host, into a stream the server
//      writes to disk; from its URL (HTTP Range), on WebGPU, the same;
//   2. the sharded one from its files, on the host, into OPFS (a directory handle);
//      from its index's URL, on WebGPU, into a stream a file;
//   each output's SHA-256 equal to `nxrig convert`'s; wasm memory and the renderer's
//   peak memory measured and asserted under the bound;
//   3. an abort half-way through into OPFS leaves no file there; a server that
//      ignores Range is refused; a tensor loaded alone onto WebGPU;
// and in Node: the file and the sharded folder from paths into paths, its peak memory
// asserted.
// The checkpoints are sparse files: in each MiB of a tensor's data its first and last
// 64 KiB are patterned bytes and the rest a hole (zeros that take no disk), so the
// 9.3 GiB of inputs take about 1.2 GiB of disk. nxrig convert's outputs are kept as
// digests (SHA-256 of each 64 MiB), each output is removed once compared: the disk
// holds one output at a time, and the step checks there is room first.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, ftruncateSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointServer } from './e2e-server.mjs';
import { step } from './e2e-step.mjs';

const KiB = 1 << 10;
const MiB = 1 << 20;
const GiB = 1 << 30;
const BLOCK = 16 * MiB;
/** The bounds on wasm memory and on the renderer's peak memory during a conversion
 * (the renderer's own ~300 MiB, the page's wasm memory, and the pieces in flight). */
const WASM_BOUND = 256 * MiB;
const RENDERER_BOUND = 1280 * MiB;
/** A Worker's wasm memory: a 16 MiB piece, its cast and the headers (50 MiB seen). */
const WORKER_WASM_BOUND = 96 * MiB;


/** The bytes a digest's chunk covers. */
const CHUNK = 64 * MiB;

/** The file at `path` as `{ size, chunks }`: its size in bytes and the SHA-256 (hex)
 * of each `CHUNK` bytes of it, streamed. Two files are equal byte for byte when their
 * digests are; the first unequal chunk says where they differ. nxrig convert's outputs
 * are kept as these, not as files (the page digests its outputs the same way). */
function digestOf(path) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    let h = createHash('sha256');
    let left = CHUNK;
    createReadStream(path, { highWaterMark: 4 * MiB }).on('data', (c) => {
      size += c.length;
      while (c.length) {
        const part = c.subarray(0, left);
        h.update(part);
        left -= part.length;
        c = c.subarray(part.length);
        if (left === 0) {
          chunks.push(h.digest('hex'));
          h = createHash('sha256');
          left = CHUNK;
        }
      }
    }).on('end', () => {
      if (left < CHUNK || size === 0) chunks.push(h.digest('hex'));
      resolve({ size, chunks });
    }).on('error', reject);
  });
}

/** The bytes of disk the files under `path` take (their blocks, holes not counted). */
function du(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.blocks * 512;
  return readdirSync(path).reduce((a, f) => a + du(join(path, f)), 0);
}

/** The free bytes of the file system that holds `path` (what an unprivileged writer
 * may use). */
function freeBytes(path) {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

const WIDTH = { F32: 4, BF16: 2, F16: 2, I64: 8, I32: 4 };

/** A block of patterned bytes: every 32-bit pattern's low bits over the block, and
 * the block's number `k` in its first word (no two blocks alike, so a piece read from
 * the wrong offset changes the output). */
const pattern = (() => {
  const w = new Uint32Array(BLOCK / 4);
  for (let i = 0; i < w.length; i++) w[i] = Math.imul(i, 2654435761) >>> 0;
  return w;
})();

/** The bytes written in each MiB of a sparse file's tensor data: the MiB's first and
 * last `STRIPE` bytes, and the tensor's last `STRIPE` (the rest a hole, read as zeros). */
const STRIPE = 64 * KiB;

/** Word `i` of a tensor of `bytes` bytes of 4-byte words written by `writeCheckpoint`
 * whose first block is block number `k0` of the file: the pattern's word, the block's
 * number at each block's start, zero in a sparse file's holes. */
export function wordAt(i, bytes, k0, sparse) {
  const o = (i * 4) % BLOCK;
  if (sparse && o % MiB >= STRIPE && o % MiB < MiB - STRIPE && i * 4 < bytes - STRIPE) return 0;
  return o === 0 ? k0 + Math.floor((i * 4) / BLOCK) : Math.imul(o / 4, 2654435761) >>> 0;
}

/** Writes a `.safetensors` file of `tensors` ([name, dtype, shape]) with patterned data
 * (`sparse`: only each MiB's first and last `STRIPE` bytes, the rest a hole). */
export function writeCheckpoint(path, tensors, metadata, sparse = false) {
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let at = 0;
  const sizes = tensors.map(([, d, shape]) => shape.reduce((a, b) => a * b, 1) * WIDTH[d]);
  tensors.forEach(([name, dtype, shape], i) => {
    header[name] = { dtype, shape, data_offsets: [at, at + sizes[i]] };
    at += sizes[i];
  });
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const fd = openSync(path, 'w');
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    writeSync(fd, len);
    writeSync(fd, json);
    let k = 0;
    let pos = 8 + json.length;
    for (const n of sizes) {
      for (let done = 0; done < n; done += BLOCK) {
        pattern[0] = k++;
        const len = Math.min(BLOCK, n - done);
        if (!sparse) {
          writeSync(fd, new Uint8Array(pattern.buffer, 0, len));
          continue;
        }
        const parts = [];
        for (let m = 0; m < len; m += MiB) parts.push(m, m + MiB - STRIPE);
        if (done + len === n) parts.push(Math.max(0, len - STRIPE));
        for (const from of parts) {
          const to = Math.min(from + STRIPE, len);
          if (to > from) writeSync(fd, new Uint8Array(pattern.buffer, from, to - from), 0, to - from, pos + done + from);
        }
      }
      pos += n;
    }
    // The holes up to the end.
    ftruncateSync(fd, pos);
  } finally {
    closeSync(fd);
  }
  return at;
}

/** The test's checkpoints in `dir`: `big.safetensors` and `sharded/` (index and
 * three shards), `scale` times their full sizes. */
export function makeCheckpoints(dir, scale) {
  const n = (bytes, w) => Math.max(2, Math.round((bytes * scale) / w / 4096)) * 4096 / 1;
  const big = [
    ['huge', 'F32', [n(2.25 * GiB, 4) / 4096, 4096]],
    ['w', 'F32', [n(2.5 * GiB, 4)]],
    ['emb', 'BF16', [n(0.25 * GiB, 2) / 1024, 1024]],
    ['ids', 'I64', [n(8 * MiB, 8)]],
    ['half', 'F16', [n(16 * MiB, 2)]],
  ];
  const bytes = writeCheckpoint(join(dir, 'big.safetensors'), big, { format: 'pt' }, true);
  mkdirSync(join(dir, 'sharded'));
  const shards = [
    ['model-00001-of-00003.safetensors', [['a', 'F32', [n(1.5 * GiB, 4)]]]],
    ['model-00002-of-00003.safetensors', [['b', 'F32', [n(1.5 * GiB, 4) / 2048, 2048]], ['c', 'I32', [n(4 * MiB, 4)]]]],
    ['model-00003-of-00003.safetensors', [['d', 'BF16', [n(1.25 * GiB, 2)]], ['e', 'F32', [n(MiB, 4)]]]],
  ];
  const weightMap = {};
  let total = 0;
  for (const [file, ts] of shards) {
    total += writeCheckpoint(join(dir, 'sharded', file), ts, { format: 'pt' }, true);
    for (const [name] of ts) weightMap[name] = file;
  }
  writeFileSync(join(dir, 'sharded', 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2));
  return { bytes, shardBytes: total };
}

/** The Chromium processes of the profile `profile`: its browser process and every
 * process below it, `{ pid, type, bytes, rss }` (`bytes` the peak resident memory,
 * VmHWM; `rss` the resident memory now, VmRSS). */
function processes(profile) {
  const procs = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      // Chromium's children rewrite their command line as one string: split on spaces too.
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]+/);
      const ppid = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1];
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      const type = cmd.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
      procs.push({ pid, ppid, type, top: cmd.some((a) => a.includes(profile)) && type === 'browser', bytes: kb('VmHWM') * 1024, rss: kb('VmRSS') * 1024 });
    } catch { /* gone */ }
  }
  const ours = new Set(procs.filter((p) => p.top).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!ours.has(p.pid) && ours.has(p.ppid)) { ours.add(p.pid); grew = true; }
  }
  return procs.filter((p) => ours.has(p.pid));
}

/** The peak resident memory of each type of the profile's processes since the last
 * `resetPeaks`: the largest of each type. */
function peaks(profile) {
  const out = {};
  for (const p of processes(profile)) out[p.type] = Math.max(out[p.type] ?? 0, p.bytes);
  return out;
}

/** The largest resident memory now of the profile's renderers. */
function rendererRss(profile) {
  return Math.max(0, ...processes(profile).filter((p) => p.type === 'renderer').map((p) => p.rss));
}

/** Waits until the renderers' resident memory has stopped falling (three readings
 * 100 ms apart within 4 MiB, at most 5 s), and returns it: after a collection the
 * garbage collector returns large ArrayBuffers' memory on a thread of its own, so a
 * peak reset at once would start from memory about to go. */
async function settle(profile) {
  const readings = [rendererRss(profile)];
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    readings.push(rendererRss(profile));
    const last = readings.slice(-3);
    if (last.length === 3 && Math.max(...last) - Math.min(...last) <= 4 * MiB) break;
  }
  return readings[readings.length - 1];
}

/** Starts the peaks anew (`5` into `clear_refs` resets a process's VmHWM). */
function resetPeaks(profile) {
  for (const p of processes(profile)) {
    try { writeFileSync(`/proc/${p.pid}/clear_refs`, '5'); } catch { /* gone */ }
  }
}

/** In the page: a WritableStream to the test server (a WebSocket it writes to
 * disk), a comparison of a Blob with a URL's bytes, and a file input. */
function pageHelpers() {
  window.uploadStream = (name) => {
    let ws;
    const reply = () => new Promise((resolve) => { ws.onmessage = resolve; });
    return new WritableStream({
      async start() {
        ws = new WebSocket(`ws://${location.host}/upload/${encodeURIComponent(name)}`);
        ws.binaryType = 'arraybuffer';
        await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = () => reject(new Error(`upload of ${name}: no WebSocket`)); });
      },
      async write(chunk) {
        // 256 KiB a send, the page's thread let go between them: a send copies its
        // bytes on this thread, and a piece's (16-64 MiB) at once held it past 50 ms.
        const step = 256 << 10;
        for (let at = 0; at < chunk.byteLength; at += step) {
          ws.send(chunk.subarray(at, at + step));
          await new Promise((r) => setTimeout(r, 0));
          while (ws.bufferedAmount > 64 << 20) await new Promise((r) => setTimeout(r, 5));
        }
      },
      async close() { const r = reply(); ws.send('close'); await r; ws.close(); },
      async abort() { const r = reply(); ws.send('abort'); await r; ws.close(); },
    });
  };
  // The first byte where `blob` and the bytes at `url` differ, or -1 (-2: lengths).
  // -1 when `blob` is the file `want` digests ({ size, chunks }, from digestOf in
  // Node), -2 when its size differs, else the start of the first chunk that differs.
  window.firstDifference = async (blob, want) => {
    if (want.size !== blob.size) return -2;
    const step = 64 << 20;
    for (let at = 0, i = 0; at < want.size || i === 0; at += step, i++) {
      const bytes = await blob.slice(at, Math.min(want.size, at + step)).arrayBuffer();
      const hex = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (x) => x.toString(16).padStart(2, '0')).join('');
      if (hex !== want.chunks[i]) return at;
    }
    return -1;
  };
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.id = 'ckfiles';
  document.body.append(input);
}

/** Runs the checkpoint tests: `flags` Chromium's, `root` the repo, `bin` the release
 * `nxrig`. Chromium runs on a profile of its own on disk (a persistent context): a
 * fresh context is off the record, and keeps OPFS in memory, under a small quota. */
export async function checkpoints({ flags, root, bin }) {
  const scale = Number(process.env.NXRIG_CHECKPOINT_SCALE ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'nxrig-ck-'));
  const uploads = join(dir, 'uploads');
  mkdirSync(uploads);
  let t0;
  let server;
  let b;
  try {
    step(`checkpoints made at test time (scale ${scale})`);
    // The disk holds the sparse inputs (about 1.2 GiB), one output of at most 2.5 GiB
    // at a time and Chromium's profile: 5 GiB free is asked for, so that a full disk is
    // said here and not as a failed write half-way.
    const free = freeBytes(dir);
    const need = Math.max(256 * MiB, 5 * GiB * scale);
    if (free < need) throw new Error(`the checkpoint tests need ${(need / GiB).toFixed(1)} GiB free in ${tmpdir()} (TMPDIR), and it has ${(free / GiB).toFixed(1)} GiB`);
    t0 = Date.now();
    const { bytes, shardBytes } = makeCheckpoints(dir, scale);
    writeCheckpoint(join(dir, 'small.safetensors'), [['x', 'F32', [4096]]]);
    const onDisk = du(dir);
    console.log(`big.safetensors ${(bytes / GiB).toFixed(2)} GiB of tensors, sharded ${(shardBytes / GiB).toFixed(2)} GiB, made in ${(Date.now() - t0) / 1000} s; ${(onDisk / GiB).toFixed(2)} GiB on disk, ${(free / GiB).toFixed(1)} GiB free before`);

    // nxrig convert's outputs, kept as their digests (each file removed once digested:
    // the disk holds one output at a time).
    const ref = join(dir, 'ref');
    mkdirSync(ref);
    const cli = async (input, output, to) => {
      execFileSync(bin, ['convert', input, join(ref, output), '--to', to], { stdio: 'inherit' });
      const got = {};
      if (output.endsWith('.safetensors')) return digestOf(join(ref, output));
      for (const f of readdirSync(join(ref, output))) got[f] = await digestOf(join(ref, output, f));
      return got;
    };
    const want8 = await cli(join(dir, 'big.safetensors'), 'big.e4m3.safetensors', 'float8_e4m3fn');
    const want = await cli(join(dir, 'big.safetensors'), 'big.safetensors', 'bfloat16');
    const wantShards = await cli(join(dir, 'sharded', 'model.safetensors.index.json'), 'sharded', 'bfloat16');
    rmSync(ref, { recursive: true });

    server = await checkpointServer({ www: join(root, 'www'), data: dir, uploads });
    const profile = join(dir, 'profile');
    // --expose-gc: each step's peak starts after a collection, not over the garbage of
    // the step before.
    b = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', headless: true, args: [...flags, '--js-flags=--expose-gc'] });
    const page = b.pages()[0] ?? await b.newPage();
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => window.nxrigReady === true, null, { timeout: 60000 });
    await page.evaluate(pageHelpers);
    // Each step's peaks, from a reset at its start.
    const stepPeaks = [];
    const measured = (name) => {
      if (stepPeaks.length) stepPeaks[stepPeaks.length - 1].mem = peaks(profile);
      if (name) stepPeaks.push({ name });
      resetPeaks(profile);
    };
    // The page ends a conversion's measure before its comparisons (which hold the two
    // sides' pieces until the garbage collector comes), measured on their own.
    await page.exposeFunction('nxrigMeasure', (name) => measured(name));
    // A step's peak starts after a collection, once the memory it frees is returned.
    const measure = async (name) => {
      await page.evaluate(() => window.gc?.());
      const from = await settle(profile);
      measured(name);
      if (name) stepPeaks[stepPeaks.length - 1].from = from;
    };
    const rate = (r, t) => `${(r.bytesIn / GiB).toFixed(2)} GiB in ${((Date.now() - t) / 1000).toFixed(1)} s (${(r.bytesIn / (Date.now() - t) / 1e6).toFixed(2)} GB/s)`;

    // 1. One file over 4 GiB with a tensor over 2 GiB, from a File, on the host, into
    // a stream the test server writes to disk.
    await measure('File, host');
    step('big.safetensors from a File on the host into a stream the server writes to disk (float8_e4m3fn)');
    await page.setInputFiles('#ckfiles', join(dir, 'big.safetensors'));
    t0 = Date.now();
    const one = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const ck = await openCheckpoint(document.getElementById('ckfiles').files[0]);
      let last = null;
      let pieces = 0;
      // The page's tasks over 50 ms while it converts (in a Worker of its own).
      const long = [];
      const start = performance.now();
      const seen = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => `${Math.round(e.duration)} ms at ${Math.round(e.startTime - start)} ms`)));
      seen.observe({ type: 'longtask' });
      const report = await convertCheckpoint(ck, window.uploadStream('big-e4m3'), {
        to: 'float8_e4m3fn', onProgress: (p) => { last = p; pieces++; },
      });
      const took = Math.round(performance.now() - start);
      await new Promise((r) => setTimeout(r, 100));
      seen.disconnect();
      long.push(...(long.length ? [`of ${took} ms`] : []));
      return { report, last, pieces, long, tensors: ck.tensors, wasm: Math.max(window.nxrigWasmBytes(), report.__nxWasmBytes ?? 0), worker: report.__nxWasmBytes !== undefined };
    });
    console.log(`${rate(one.report, t0)}, wasm memory ${(one.wasm / MiB).toFixed(0)} MiB (the Worker's), ${one.pieces} progress events, tasks over 50 ms on the page: ${one.long.length ? one.long.join(', ') : 'none'}`);
    assert.ok(one.worker, 'the page converted in a Worker');
    assert.ok(one.wasm <= WORKER_WASM_BOUND, `the Worker's wasm memory ${one.wasm} within ${WORKER_WASM_BOUND}`);
    // Over 50 ms: rare. The page's own work a piece is short (WebSocket sends of 256 KiB,
    // the thread let go between them), but the 2 cores are shared by the Worker, the
    // browser's reads of the File, the test server's writes and Chromium's own threads:
    // a short task preempted crosses 50 ms (this machine gave 2, 3 and 5 such tasks,
    // 52 to 91 ms, in three runs of 34 to 39 s). None of 100 ms or more, and fewer than
    // one a 5 s of conversion.
    const over = one.long.filter((l) => !l.startsWith('of'));
    assert.ok(over.every((l) => Number(l.split(' ')[0]) < 100), `no task on the page of 100 ms or more while it converted: ${one.long.join(', ')}`);
    assert.ok(over.length <= Math.max(2, Math.floor(Number(one.long.at(-1)?.split(' ')[1] ?? 0) / 5000)), `tasks on the page over 50 ms fewer than one a 5 s: ${one.long.join(', ')}`);
    assert.equal(one.tensors.length, 5);
    if (scale >= 1) assert.ok(one.tensors.find((t) => t.name === 'huge').byteLength > 2 * GiB, 'one tensor over 2 GiB');
    assert.equal(one.last.bytesDone, one.last.bytesTotal, 'progress reached the end');
    const st = server.uploads.get('big-e4m3');
    assert.ok(st?.done, 'the upload was closed whole');
    assert.deepEqual(await digestOf(st.file), want8, "the stream's file is nxrig convert's, byte for byte");
    rmSync(st.file);

    // 1b. The same File converted in its Worker into a stream that drops its bytes: the
    // page's own work (the Worker's messages, the sink's steps in order) and nothing of
    // the test's sink (whose WebSocket sends above copy on the page's thread): no task
    // over 50 ms.
    step('big.safetensors from a File in a Worker into a stream that drops its bytes: the page never blocked');
    t0 = Date.now();
    const quiet = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const ck = await openCheckpoint(document.getElementById('ckfiles').files[0]);
      const long = [];
      const start = performance.now();
      const seen = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => `${Math.round(e.duration)} ms at ${Math.round(e.startTime - start)} ms`)));
      seen.observe({ type: 'longtask' });
      let pieces = 0;
      const report = await convertCheckpoint(ck, new WritableStream({ write() {} }), { to: 'float8_e4m3fn', onProgress: () => { pieces++; } });
      const took = Math.round(performance.now() - start);
      await new Promise((r) => setTimeout(r, 100));
      seen.disconnect();
      return { report, long, took, pieces };
    });
    console.log(`${rate(quiet.report, t0)}, ${quiet.pieces} progress events, tasks over 50 ms on the page: ${quiet.long.length ? quiet.long.join(', ') : 'none'} in ${quiet.took} ms`);
    assert.equal(quiet.report.bytesIn, one.report.bytesIn);
    assert.deepEqual(quiet.long, [], `no task on the page over 50 ms while its Worker converted ${(quiet.report.bytesIn / GiB).toFixed(2)} GiB`);

    // 2. The same file from its URL (HTTP Range), on WebGPU, into an OPFS file.
    await measure('URL, WebGPU');
    step('big.safetensors from its URL on WebGPU into an OPFS file (bfloat16)');
    t0 = Date.now();
    const two = await page.evaluate(async (want) => {
      const { openCheckpoint, convertCheckpoint, Device } = window.nxrig;
      const ck = await openCheckpoint('/data/big.safetensors');
      const root = await navigator.storage.getDirectory();
      const h = await root.getFileHandle('big.bf16.safetensors', { create: true });
      const report = await convertCheckpoint(ck, await h.createWritable(), { to: 'bfloat16', device: await Device.gpu() });
      window.gc?.();
      await window.nxrigMeasure('comparing: URL, WebGPU');
      const t = performance.now();
      const diff = await window.firstDifference(await h.getFile(), want);
      await root.removeEntry('big.bf16.safetensors');
      return { report, diff, compare: performance.now() - t, wasm: window.nxrigWasmBytes() };
    }, want);
    console.log(`${rate(two.report, t0)} with the comparison (${(two.compare / 1000).toFixed(1)} s), wasm memory ${(two.wasm / MiB).toFixed(0)} MiB`);
    assert.equal(two.diff, -1, "the OPFS file is nxrig convert's, byte for byte");

    // 3. Sharded, from its files, on the host, into an OPFS folder.
    await measure('sharded files, host');
    step('the sharded checkpoint from its files on the host into an OPFS folder');
    await page.setInputFiles('#ckfiles', readdirSync(join(dir, 'sharded')).map((f) => join(dir, 'sharded', f)));
    t0 = Date.now();
    const three = await page.evaluate(async (wants) => {
      const { openCheckpoint, convertCheckpoint } = window.nxrig;
      const ck = await openCheckpoint(document.getElementById('ckfiles').files);
      const root = await navigator.storage.getDirectory();
      const out = await root.getDirectoryHandle('sharded-bf16', { create: true });
      const report = await convertCheckpoint(ck, out, { to: 'bfloat16' });
      window.gc?.();
      await window.nxrigMeasure('comparing: sharded files, host');
      const got = [];
      for await (const [name] of out.entries()) got.push(name);
      const diffs = {};
      for (const [name, want] of Object.entries(wants)) diffs[name] = await window.firstDifference(await (await out.getFileHandle(name)).getFile(), want);
      await root.removeEntry('sharded-bf16', { recursive: true });
      return { report, got: got.sort(), diffs, wasm: Math.max(window.nxrigWasmBytes(), report.__nxWasmBytes ?? 0), wrote: report.__nxWrote };
    }, wantShards);
    console.log(`${rate(three.report, t0)} with the comparisons, wasm memory ${(three.wasm / MiB).toFixed(0)} MiB, written by ${three.wrote}`);
    assert.equal(three.wrote, 'sync access handles', 'an OPFS folder written in the Worker, from its wasm memory');
    assert.deepEqual(three.got, Object.keys(wantShards).sort());
    for (const [name, d] of Object.entries(three.diffs)) assert.equal(d, -1, `${name} in OPFS is nxrig convert's`);

    // 4. Sharded, from its index's URL, on WebGPU, into a stream for each file.
    await measure('sharded URL, WebGPU');
    step('the sharded checkpoint from its index URL on WebGPU into a stream for each file');
    t0 = Date.now();
    const four = await page.evaluate(async (wants) => {
      const { openCheckpoint, convertCheckpoint, Device } = window.nxrig;
      const ck = await openCheckpoint('/data/sharded/model.safetensors.index.json');
      const root = await navigator.storage.getDirectory();
      const out = await root.getDirectoryHandle('url-bf16', { create: true });
      const report = await convertCheckpoint(ck, async (name) => (await out.getFileHandle(name, { create: true })).createWritable(), { to: 'bfloat16', device: await Device.gpu() });
      window.gc?.();
      await window.nxrigMeasure('comparing: sharded URL, WebGPU');
      const diffs = {};
      for (const [name, want] of Object.entries(wants)) diffs[name] = await window.firstDifference(await (await out.getFileHandle(name)).getFile(), want);
      await root.removeEntry('url-bf16', { recursive: true });
      return { report, files: ck.files, sharded: ck.sharded, diffs, wasm: window.nxrigWasmBytes() };
    }, wantShards);
    console.log(`${rate(four.report, t0)} with the comparisons, wasm memory ${(four.wasm / MiB).toFixed(0)} MiB`);
    assert.equal(four.sharded, true);
    for (const [name, d] of Object.entries(four.diffs)) assert.equal(d, -1, `${name} via its URL on WebGPU is nxrig convert's`);
    for (const r of [one, two, three, four]) assert.ok(r.wasm <= WASM_BOUND, `wasm memory ${r.wasm} within ${WASM_BOUND}`);

    // The demo page: the sharded checkpoint through its folder input, on the CPU,
    // into the browser's storage; its progress bar reaches the end and its files are
    // nxrig convert's.
    await measure('the demo');
    step("the demo converts the sharded checkpoint through its folder input");
    await page.setInputFiles('#folder', join(dir, 'sharded'));
    await page.waitForFunction(() => document.querySelectorAll('#tensors tbody tr').length === 5, null, { timeout: 60000 });
    await page.selectOption('#dtype', 'bfloat16');
    await page.selectOption('#device', 'wasm');
    await page.evaluate(() => { window.nxrigDone = null; });
    t0 = Date.now();
    await page.click('#convert');
    await page.waitForFunction(() => window.nxrigDone, null, { timeout: 900000 });
    await measure('comparing: the demo');
    const demo = await page.evaluate(async (wants) => {
      const root = await navigator.storage.getDirectory();
      const diffs = {};
      for await (const [dirName, h] of root.entries()) {
        if (h.kind !== 'directory' || !dirName.startsWith('nxrig-')) continue;
        for (const [name, want] of Object.entries(wants)) diffs[name] = await window.firstDifference(await (await h.getFileHandle(name)).getFile(), want);
        await root.removeEntry(dirName, { recursive: true });
      }
      return { done: window.nxrigDone, diffs, links: document.querySelectorAll('#downloads a').length, summary: document.getElementById('summary').textContent, rate: document.getElementById('rate').textContent };
    }, wantShards);
    console.log(`demo: ${demo.summary} (${((Date.now() - t0) / 1000).toFixed(1)} s with the comparisons; last progress: ${demo.rate})`);
    assert.equal(demo.done.progress, 1, 'the progress bar reached the end');
    assert.deepEqual(demo.done.files, Object.keys(wantShards).sort());
    assert.equal(demo.links, Object.keys(wantShards).length, 'a download link a file');
    for (const [name, d] of Object.entries(demo.diffs)) assert.equal(d, -1, `the demo's ${name} is nxrig convert's`);

    // 3. An abort half-way; a server that ignores Range; a tensor alone.
    await measure('an abort, a server without Range, a changed file');
    step('an abort half-way leaves nothing; Range ignored is refused; a tensor loaded alone');
    const edge = await page.evaluate(async () => {
      const { openCheckpoint, convertCheckpoint, Device } = window.nxrig;
      const out = {};
      const ck = await openCheckpoint('/data/sharded/model.safetensors.index.json');
      const root = await navigator.storage.getDirectory();
      const dirH = await root.getDirectoryHandle('aborted', { create: true });
      const ac = new AbortController();
      let aborted;
      try {
        await convertCheckpoint(ck, dirH, { to: 'float16', signal: ac.signal, onProgress: (p) => { if (p.bytesDone * 2 >= p.bytesTotal && !aborted) { aborted = performance.now(); ac.abort(); } } });
        out.abort = 'resolved';
      } catch (e) {
        out.abort = [e.name, e.message];
        out.abortMs = Math.round(performance.now() - aborted);
      }
      out.left = [];
      for await (const [name] of dirH.entries()) out.left.push(name);
      await root.removeEntry('aborted', { recursive: true });
      try {
        await openCheckpoint('/data/big.safetensors?norange');
        out.norange = 'opened';
      } catch (e) {
        out.norange = e.message;
      }
      try {
        const moving = await openCheckpoint('/data/big.safetensors?changing');
        await moving.load('ids');
        out.changing = 'loaded';
      } catch (err) {
        out.changing = err.message;
      }
      // A server that answers a Range with the rest of the file (Vite's, for
      // bytes=0-0): the open and a tensor's read take what they asked for, no more.
      const same = async (a, b) => {
        const [x, y] = [await a.toTypedArray(), await b.toTypedArray()];
        const [u, v] = [new Uint8Array(x.buffer, x.byteOffset, x.byteLength), new Uint8Array(y.buffer, y.byteOffset, y.byteLength)];
        return u.length === v.length && u.every((z, i) => z === v[i]);
      };
      try {
        const toEnd = await openCheckpoint('/data/big.safetensors?rangetoend');
        out.rangeToEnd = await same(await toEnd.load('ids'), await (await openCheckpoint('/data/big.safetensors')).load('ids'));
      } catch (err) {
        out.rangeToEnd = err.message;
      }
      // A whole answer the browser cached, gzipped (vite preview's), before the open:
      // the ranges read are the file's, not the cache's compressed bytes.
      try {
        await (await fetch('/data/small.safetensors?cacheable')).arrayBuffer();
        const small = await openCheckpoint('/data/small.safetensors?cacheable');
        out.cached = await same(await small.load('x'), await (await openCheckpoint('/data/small.safetensors')).load('x'));
      } catch (err) {
        out.cached = err.message;
      }

      const gpu = await Device.gpu();
      const e = await ck.load('e', gpu);
      const head = await e.slice([[0, 4]]).toTypedArray();
      out.load = [e.dtype, e.shape, e.device.isGpu, Array.from(new Uint32Array(head.buffer, head.byteOffset, 4))];
      try { await ck.load('nope'); out.missing = 'loaded'; } catch (err) { out.missing = err.message; }
      // The tensor over 2 GiB onto WebGPU alone, a piece at a time; its last elements.
      window.gc?.();
      await window.nxrigMeasure('a 2.25 GiB tensor loaded onto WebGPU');
      const big = await openCheckpoint('/data/big.safetensors');
      const t = big.tensors.find((x) => x.name === 'huge');
      const h = await big.load('huge', gpu);
      const [rows, cols] = t.shape;
      const last = await h.slice([[rows - 1, rows], [cols - 4, cols]]).toTypedArray();
      out.huge = [t.byteLength, h.shape, Array.from(new Uint32Array(last.buffer, last.byteOffset, 4))];
      h.dispose();
      try { await big.load('huge'); out.hugeHost = 'loaded'; } catch (err) { out.hugeHost = err.message; }
      // Bytes past one wasm32 allocation: refused with a sentence, no panic.
      try {
        window.nxrig.NxArray.fromTypedArray(new Uint8Array(2 ** 31 + 8), 'float32');
        out.twoGiB = 'made';
      } catch (err) {
        out.twoGiB = [err.constructor.name, err.message, window.nxrig.lastPanic() ?? null];
      }
      return out;
    });
    assert.equal(edge.abort[0], 'AbortError', `the abort: ${edge.abort}`);
    console.log(`an abort half-way: rejected ${edge.abortMs} ms after it, its files removed, its Worker ended`);
    assert.deepEqual(edge.left, [], 'an aborted conversion into OPFS leaves no file');
    assert.match(edge.norange, /^openCheckpoint: .*big\.safetensors\?norange: the server ignores HTTP Range requests/);
    assert.match(edge.changing, /big\.safetensors\?changing: tensor "ids": .*the file changed while it was read/, 'a file changed between reads');
    assert.equal(edge.rangeToEnd, true, 'a tensor read from a server that answers a Range with the rest of the file');
    console.log(`a server that answers a Range with the rest of the file: ${(server.counted.rangeToEndBytes / MiB).toFixed(1)} MiB read of it for the open and an 8 MiB tensor`);
    assert.ok(server.counted.rangeToEndBytes < 256 * MiB, `the rest of each answer not read: ${server.counted.rangeToEndBytes} bytes`);
    assert.equal(edge.cached, true, 'a file whose whole answer the browser cached gzipped, read by ranges');
    assert.equal(edge.load[0], 'float32');
    assert.equal(edge.load[2], true);
    // The first words of the shard's last block of e: its block number, then the pattern.
    assert.deepEqual(edge.load[3].slice(1), [2654435761, Math.imul(2, 2654435761) >>> 0, Math.imul(3, 2654435761) >>> 0]);
    assert.match(edge.missing, /tensor "nope": no tensor of that name/);
    // The generator's words (wordAt): element i of huge, the file's first tensor, its
    // blocks numbered from 0.
    const hugeBytes = edge.huge[0];
    const wantLast = [4, 3, 2, 1].map((k) => wordAt(hugeBytes / 4 - k, hugeBytes, 0, true));
    assert.ok(wantLast.every((w) => w !== 0), 'the last elements of huge are patterned, not a hole');
    assert.deepEqual(edge.huge[2], wantLast, 'the last elements of the tensor over 2 GiB, loaded onto WebGPU');
    if (scale >= 1) assert.match(edge.hugeHost, /one allocation holds at most/, 'a host array past one wasm32 allocation is refused');
    assert.equal(edge.twoGiB[0], 'Error');
    assert.match(edge.twoGiB[1], /2147483656 bytes: more than one wasm32 allocation holds/);
    assert.equal(edge.twoGiB[2], null, 'no panic');

    await measure(null);
    const m = (b) => `${((b ?? 0) / MiB).toFixed(0)} MiB`;
    const conversions = ['File, host', 'URL, WebGPU', 'sharded files, host', 'sharded URL, WebGPU', 'the demo'];
    for (const { name, mem, from } of stepPeaks) {
      const start = from === undefined ? '' : ` (from ${m(from)})`;
      console.log(`peak memory, ${name}: renderer ${m(mem.renderer)}${start}, GPU process ${m(mem['gpu-process'])}, browser ${m(mem.browser)}`);
      // The conversions are bounded; the comparisons and the 2.25 GiB load onto WebGPU
      // (Chromium's shared memory for queue writes, about 1.0-1.4 GiB) are logged only.
      if (conversions.includes(name)) assert.ok(mem.renderer > 0 && mem.renderer <= RENDERER_BOUND, `${name}: the renderer's peak ${mem.renderer} within ${RENDERER_BOUND}`);
    }

    // 4. Node: paths in, paths out, each in a process of its own (its peak memory),
    // each output removed once compared.
    step('Node: the file and the sharded folder from paths into paths');
    const script = `
      import { init, openCheckpoint, convertCheckpoint } from ${JSON.stringify(join(root, 'js/node.js'))};
      await init();
      const [from, to] = process.argv.slice(1);
      await convertCheckpoint(await openCheckpoint(from), to, { to: 'bfloat16' });
      console.log(JSON.stringify({ rss: process.resourceUsage().maxRSS * 1024 }));`;
    for (const [from, to, wanted, size] of [['big.safetensors', 'node.safetensors', want, bytes], ['sharded', 'node-sharded', wantShards, shardBytes]]) {
      t0 = Date.now();
      const o = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, join(dir, from), join(dir, to)], { encoding: 'utf8' }).trim().split('\n').pop());
      console.log(`Node, ${from}: ${(size / GiB).toFixed(2)} GiB in ${(Date.now() - t0) / 1000} s, peak memory ${(o.rss / MiB).toFixed(0)} MiB`);
      if (to.endsWith('.safetensors')) {
        assert.deepEqual(await digestOf(join(dir, to)), wanted, `Node: ${from}`);
      } else {
        assert.deepEqual(readdirSync(join(dir, to)).sort(), Object.keys(wanted).sort(), `Node: ${from}'s files`);
        for (const [name, d] of Object.entries(wanted)) assert.deepEqual(await digestOf(join(dir, to, name)), d, `Node: ${name}`);
      }
      rmSync(join(dir, to), { recursive: true });
      assert.ok(o.rss <= RENDERER_BOUND, `Node's peak ${o.rss} within ${RENDERER_BOUND}`);
    }
    console.log('checkpoints: all passed');
  } finally {
    await b?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
