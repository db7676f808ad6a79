// nxrig's npm entry for Node (package.json's "node" condition): the browser entry,
// with `init()` and `initSync()` reading the `.wasm` from the package's files when no
// argument is given (Node's fetch cannot read a `file:` URL), and checkpoints opened
// from paths and `FileHandle`s and converted into paths (a temporary beside each
// file, renamed once all are whole). Node has no WebGPU: `Device.gpu()` rejects at
// once; host arrays and checkpoints of any size work.
import { readFileSync } from 'node:fs';
import { mkdir, open, readFile, readdir, realpath, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Checkpoint,
  convertCheckpoint as convertAny,
  init as browserInit,
  initSync as browserInitSync,
  openCheckpoint as openAny,
} from './index.js';
import { indexShards } from '../pkg/nxrig.js';
import { GGUF_SPLIT, MAX_WORKERS, asFolder } from './checkpoint.js';
import { inWorkers } from './offload.js';
import { staleWeights } from './sinks.js';
import { readingAhead } from './sources.js';

export * from './index.js';

const wasm = new URL('../pkg/nxrig_bg.wasm', import.meta.url);

/** Loads nxrig's WebAssembly: with no argument, the package's `.wasm` file. */
export async function init(input) {
  return browserInit(input ?? { module_or_path: await readFile(wasm) });
}

/** `init` at once: with no argument, the package's `.wasm` file. */
export function initSync(input) {
  return browserInitSync(input ?? { module: readFileSync(wasm) });
}

export default init;

/** Bytes `start..end` of the open `fh`, as many as the file has. */
async function readRange(fh, start, end) {
  const buf = new Uint8Array(end - start);
  let at = 0;
  while (at < buf.length) {
    const { bytesRead } = await fh.read(buf, at, buf.length - at, start + at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return buf.subarray(0, at);
}

/** A source over the file at `path`: opened for each read (no handle left open). */
async function pathSource(path) {
  const s = await stat(path);
  if (!s.isFile()) throw new Error(`${path}: not a regular file`);
  return {
    name: path,
    size: s.size,
    // The next piece read while nxrig casts this one.
    read: readingAhead(async (start, end) => {
      const fh = await open(path, 'r');
      try {
        return await readRange(fh, start, end);
      } finally {
        await fh.close();
      }
    }, s.size),
  };
}

/** A source over a `FileHandle` the caller opened (and closes). */
async function handleSource(fh, name) {
  const { size } = await fh.stat();
  return { name, size, read: readingAhead((start, end) => readRange(fh, start, end), size) };
}

const isPath = (x) => typeof x === 'string' && !/^(https?|blob|data):/i.test(x);
const INDEX = /\.index\.json$/;

/** A folder's checkpoint: its index, or its one weights file. */
async function folderSource(dir) {
  const names = await readdir(dir);
  const index = names.filter((n) => INDEX.test(n));
  if (index.length === 1) return join(dir, index[0]);
  const weights = names.filter((n) => /\.(safetensors|npy)$/.test(n));
  if (index.length === 0 && weights.length === 1) return join(dir, weights[0]);
  throw new Error(`${dir}: ${index.length} indexes and ${weights.length} weights files; nxrig opens a folder of one checkpoint`);
}

/** `ck` opened from the folder `dir` made a model's folder where the folder has a
 * `config.json` or `hf_quant_config.json` (its other regular files copied by a
 * conversion). */
async function asModelFolder(ck, dir) {
  const files = new Map();
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isFile()) files.set(e.name, { ...(await pathSource(join(dir, e.name))), name: e.name });
  }
  return asFolder(ck, files, ck.__nxCtx);
}

/**
 * `openCheckpoint` of the browser entry, and in Node also a path (a file, a
 * sharded checkpoint's `*.index.json` or its folder, a model's folder with its
 * `config.json`; `file:` URLs too) or a `FileHandle`. Reads the headers only.
 */
export async function openCheckpoint(source, options) {
  try {
    source = fileUrlPath(source);
    if (isPath(source)) return from(await openPath(source, options), source, options);
    if (source && typeof source.fd === 'number' && typeof source.read === 'function' && typeof source.stat === 'function') {
      return await openAny(await handleSource(source, 'the file'), options);
    }
  } catch (e) {
    throw e?.message?.startsWith('openCheckpoint: ') ? e : new Error(`openCheckpoint: ${e.message}`, { cause: e });
  }
  return openAny(source, options);
}

/** A `file:` URL (a `URL` or a string) as its path; anything else as it is. */
function fileUrlPath(x) {
  if (x instanceof URL && x.protocol === 'file:') return fileURLToPath(x);
  if (typeof x === 'string' && /^file:/i.test(x)) return fileURLToPath(x);
  return x;
}

/** `ck` marked as read from the path `path` (a file or a folder) with `options`: a
 * conversion into the same place is refused, and one into a path runs in a worker
 * thread that opens it again from there. */
function from(ck, path, options) {
  Object.defineProperty(ck, '__nxFrom', { value: resolve(path), configurable: true });
  Object.defineProperty(ck, '__nxOpenOptions', { value: options, configurable: true });
  return ck;
}

/** The checkpoint at the path `source`: a file, an index, a folder. */
async function openPath(source, options) {
  if ((await stat(source)).isDirectory()) {
    const dir = source;
    const path = await folderSource(dir);
    const names = await readdir(dir);
    if (!names.includes('config.json') && !names.includes('hf_quant_config.json')) return await openPath(path, options);
    // A model's folder: its one weights file under its own name (the converted
    // folder's file).
    const ck = /\.json$/.test(path) ? await openPath(path, options) : await openAny({ ...(await pathSource(path)), name: basename(path) }, options);
    return await asModelFolder(ck, dir);
  }
  const split = GGUF_SPLIT.exec(basename(source));
  if (split) {
    // Every split of a split GGUF file, whichever was named.
    const [, prefix, , n] = split;
    const names = Array.from({ length: Number(n) }, (_, k) => `${prefix}-${String(k + 1).padStart(5, '0')}-of-${n}.gguf`);
    const ggufSplits = [];
    for (const name of names) ggufSplits.push({ ...(await pathSource(join(dirname(source), name))), name });
    return await openAny({ ggufSplits }, options);
  }
  if (/\.json$/.test(source)) {
    const text = await readFile(source, 'utf8');
    const dir = dirname(source);
    const shards = {};
    for (const n of indexShards(basename(source), text)) shards[n] = await pathSource(join(dir, n)).catch(() => undefined);
    return await openAny({ index: { name: basename(source), text }, shards }, options);
  }
  return await openAny(await pathSource(source), options);
}

/** Whether the paths `a` and `b` name one file or folder (through links too); false
 * where either does not exist. */
async function samePlace(a, b) {
  const [x, y] = await Promise.all([realpath(a).catch(() => null), realpath(b).catch(() => null)]);
  return x !== null && x === y;
}

/** The refusal of a conversion of `checkpoint` into the path `sink` that would write
 * over its own input: the input file itself, or the folder it was read from. */
async function overInput(checkpoint, sink, sharded) {
  const input = checkpoint?.__nxFrom;
  if (!input) return null;
  const inputStat = await stat(input).catch(() => null);
  const inputDir = inputStat?.isDirectory() ? input : dirname(input);
  if (sharded && (await samePlace(inputDir, sink))) {
    return 'the output folder is the input\'s: its files would overwrite themselves';
  }
  if (!sharded && (await samePlace(input, sink))) return 'the output is the input file';
  return null;
}

let temps = 0;

/** A sink into the path `target`: one file there, or for a sharded checkpoint the
 * files in the folder `target` (made if missing, removed again on an abort); each
 * written to a temporary beside it and renamed at the commit. */
function pathSink(target, sharded) {
  const whole = [];
  let current = null;
  let madeDir = false;
  return {
    async open(name) {
      let path = target;
      if (sharded) {
        const made = await mkdir(target, { recursive: true });
        madeDir ||= made !== undefined;
        path = join(target, name);
      }
      const tmp = join(dirname(path), `.nxrig-${process.pid}-${temps++}.tmp`);
      let fh;
      try {
        fh = await open(tmp, 'wx');
      } catch (e) {
        const why = { ENOENT: 'does not exist', ENOTDIR: 'is not a folder' }[e?.code];
        if (!why) throw e;
        throw new Error(`${path}: its folder ${dirname(path)} ${why}`, { cause: e });
      }
      current = { path, tmp, fh };
    },
    async write(bytes) {
      let at = 0;
      while (at < bytes.length) at += (await current.fh.write(bytes, at, bytes.length - at)).bytesWritten;
    },
    async close() {
      await current.fh.sync();
      await current.fh.close();
      whole.push(current);
      current = null;
    },
    async commit() {
      if (sharded) {
        // Weights or an index of an earlier conversion left beside these: a loader
        // would read both.
        const why = staleWeights(await readdir(target), whole.map((f) => basename(f.path)));
        if (why) throw new Error(`${target}: ${why}`);
      }
      for (const f of whole.splice(0)) await rename(f.tmp, f.path);
    },
    async abort() {
      if (current) {
        await current.fh.close().catch(() => {});
        whole.push(current);
        current = null;
      }
      for (const f of whole.splice(0)) await unlink(f.tmp).catch(() => {});
      if (madeDir) await rmdir(target).catch(() => {});
    },
  };
}

/**
 * `convertCheckpoint` of the browser entry, and in Node also into a path: a file, or
 * for a sharded checkpoint or a model's folder a folder; written to temporaries renamed once all are
 * whole (an error or an abort leaves nothing).
 */
export async function convertCheckpoint(checkpoint, sink, options) {
  sink = fileUrlPath(sink);
  if (typeof sink === 'string') {
    const sharded = checkpoint instanceof Checkpoint && !!checkpoint.__wbg_ptr && (checkpoint.sharded || checkpoint.folder);
    const over = await overInput(checkpoint, sink, sharded);
    if (over) throw new Error(`convertCheckpoint: ${sink}: ${over}`);
    if (sharded && (await stat(sink).catch(() => null))?.isDirectory() === false) {
      throw new Error(`convertCheckpoint: ${sink}: the output exists and is not a folder (${checkpoint.folder ? "a model's folder" : 'a sharded checkpoint'} converts into a folder)`);
    }
    // An existing folder as one file's output: named as a folder, which is refused
    // saying so (as `nxrig convert` does), not for its missing extension.
    const folder = !sharded && !sink.endsWith('/') && (await stat(sink).catch(() => null))?.isDirectory();
    const name = options?.fileName ?? (folder ? `${sink}/` : sink);
    const thread = threadOptions(checkpoint, options);
    if (thread) {
      // `workers` threads share it; one converts and writes it itself. A `workers`
      // that is no count from 1 to MAX_WORKERS goes to the thread, which says why.
      const { workers, ...rest } = thread;
      if (Number.isInteger(workers) && workers > 1 && workers <= MAX_WORKERS) {
        return convertShared(checkpoint, pathSink(sink, sharded), { ...rest, fileName: name }, workers, options);
      }
      return convertInThread(checkpoint, sink, workers === 1 ? rest : thread, options);
    }
    return convertAny(checkpoint, pathSink(sink, sharded), { ...options, fileName: name });
  }
  return convertAny(checkpoint, sink, options);
}

/** The options a worker thread converts `checkpoint` with (those that cross: no
 * `signal`, `onProgress` or `device`), or `null` where it converts on this thread:
 * `options.worker` false, a checkpoint not opened from a path, a device given (Node's
 * one device is the host, which a thread has too), options that are not a plain object
 * (the main thread's checks then say why). */
function threadOptions(checkpoint, options) {
  if (options === null || typeof options !== 'object' || options.worker === false || options.device !== undefined) return null;
  if (!(checkpoint instanceof Checkpoint) || !checkpoint.__wbg_ptr || !checkpoint.__nxFrom) return null;
  const { signal, onProgress, worker, ...rest } = options;
  if (worker !== undefined && worker !== true) return null;
  if (signal !== undefined && !(signal instanceof AbortSignal)) return null;
  if (onProgress !== undefined && typeof onProgress !== 'function') return null;
  try {
    structuredClone([rest, checkpoint.__nxOpenOptions]);
  } catch {
    return null;
  }
  return rest;
}

/** Node's options `argv` (process.execArgv) a worker thread of a file can take: the
 * caller's, but what only a script given as text takes (`--input-type`, `-e`, `-p`
 * and their values), which a thread refuses. */
function threadArgv(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--input-type' || ['-e', '--eval', '-p', '--print'].includes(a)) i++;
    else if (!a.startsWith('--input-type=') && !/^--(eval|print)=/.test(a)) out.push(a);
  }
  return out;
}

/** A worker thread of js/node-worker.js, started with the caller's Node flags (those
 * of a script given as text left out; where Node refuses the rest given by name, V8's
 * and the process's such as --max-old-space-size, without them), and `workerData`. */
async function nodeThread(workerData) {
  const { Worker } = await import('node:worker_threads');
  const url = new URL('./node-worker.js', import.meta.url);
  const made = { name: 'nxrig convertCheckpoint', workerData };
  const argv = threadArgv(process.execArgv);
  if (argv.length !== process.execArgv.length) made.execArgv = argv;
  try {
    return new Worker(url, made);
  } catch (e) {
    if (e?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
    return new Worker(url, { ...made, execArgv: [] });
  }
}

/**
 * Converts `checkpoint` (opened from a path) into `sink` (a path's sink, written on
 * this thread) shared by `count` worker threads (js/node-worker.js), as a page's
 * Workers share one (js/offload.js): each converts its pieces and hands its output
 * here, written in the file's order. `cloned` the options that cross;
 * `options.onProgress` is told here (the threads' bytes added up), `options.signal`
 * aborts it. Resolves to the report (overflow tallies added up); rejects with the
 * first thread's error, the signal's reason, or what onProgress threw. Every thread is
 * ended either way, and on a failure nothing is left of the output.
 */
async function convertShared(checkpoint, sink, cloned, count, { signal, onProgress } = {}) {
  signal?.throwIfAborted();
  // Each thread made before the first is started, so that a refused start throws here.
  const threads = [];
  try {
    for (let k = 0; k < count; k++) threads.push(await nodeThread(null));
  } catch (e) {
    await Promise.all(threads.map((w) => w.terminate()));
    throw e;
  }
  // Each thread as js/offload.js drives a Worker.
  const spawn = (_, k) => {
    const w = threads[k];
    const a = { onmessage: null, onerror: null, postMessage: (m, t) => w.postMessage(m, t), terminate: () => w.terminate() };
    w.on('message', (data) => a.onmessage?.({ data }));
    w.on('error', (e) => a.onerror?.({ message: e?.message ?? String(e) }));
    w.on('exit', (code) => a.onerror?.({ message: `it exited (code ${code}) before it finished` }));
    return a;
  };
  const ctx = { signal, failed: undefined };
  try {
    const from = { spawn, source: checkpoint.__nxFrom, openOptions: checkpoint.__nxOpenOptions, folder: false };
    return await inWorkers({ ...from, sink, options: cloned, onProgress, signal, ctx, sinkDir: undefined, count });
  } catch (e) {
    if (signal?.aborted) throw signal.reason ?? new DOMException('The conversion was aborted', 'AbortError');
    if (ctx.failed !== undefined) {
      const m = ctx.failed instanceof Error ? ctx.failed.message : String(ctx.failed);
      throw new Error(`convertCheckpoint: options.onProgress threw: ${m} (the conversion stopped and its output was aborted)`, { cause: ctx.failed });
    }
    throw e;
  }
}

/**
 * Converts `checkpoint` (opened from a path) into the path `sink` in a worker thread
 * (js/node-worker.js): the thread opens the checkpoint again, converts and writes;
 * `options.onProgress` is told here, `options.signal` aborts it. Resolves to the
 * thread's report; rejects with its error (a TypeError stays one), the signal's
 * reason, or what onProgress threw. The thread is ended either way.
 */
async function convertInThread(checkpoint, sink, cloned, { signal, onProgress } = {}) {
  signal?.throwIfAborted();
  const worker = await nodeThread({ source: checkpoint.__nxFrom, openOptions: checkpoint.__nxOpenOptions, sink, options: cloned, progress: onProgress !== undefined });
  let failed;
  const onAbort = () => worker.postMessage({ kind: 'abort' });
  try {
    return await new Promise((resolve, reject) => {
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', (data) => {
        if (data.kind === 'progress') {
          if (failed !== undefined) return;
          try {
            onProgress?.({ bytesDone: data.bytesDone, bytesTotal: data.bytesTotal, tensor: data.tensor });
          } catch (e) {
            failed = { e };
            onAbort();
          }
        } else if (data.kind === 'done') {
          Object.defineProperty(data.report, '__nxWasmBytes', { value: data.wasmBytes });
          resolve(data.report);
        } else if (data.kind === 'failed') {
          if (signal?.aborted) return reject(signal.reason ?? new DOMException('The conversion was aborted', 'AbortError'));
          if (failed !== undefined) {
            const m = failed.e instanceof Error ? failed.e.message : String(failed.e);
            return reject(new Error(`convertCheckpoint: options.onProgress threw: ${m} (the conversion stopped and its output was aborted)`, { cause: failed.e }));
          }
          const E = data.error.name === 'TypeError' ? TypeError : Error;
          reject(data.error.name === 'AbortError' ? new DOMException(data.error.message, 'AbortError') : new E(data.error.message.replace(/^openCheckpoint: /, 'convertCheckpoint: ')));
        }
      });
      worker.on('error', (e) => reject(new Error(`convertCheckpoint: the conversion's worker thread failed: ${e?.message ?? e} (convertCheckpoint(ck, path, { worker: false }) converts on this thread)`, { cause: e })));
      worker.on('exit', (code) => reject(new Error(`convertCheckpoint: the conversion's worker thread exited (code ${code}) before it finished`)));
    });
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await worker.terminate();
  }
}
